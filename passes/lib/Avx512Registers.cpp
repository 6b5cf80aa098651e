#include "Avx512Registers.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

bool adjit::isRegistersOfF32(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return vector && vector.getRank() == 1 && !vector.isScalable() &&
         vector.getElementType().isF32() && vector.getDimSize(0) % kZmmF32Lanes == 0;
}

Value adjit::eachRegister(ImplicitLocOpBuilder &b, Value into, ValueRange operands,
                          function_ref<Value(ArrayRef<Value>)> perRegister) {
  int64_t lanes = cast<VectorType>(into.getType()).getDimSize(0);
  if (lanes == kZmmF32Lanes)
    return perRegister(llvm::to_vector(operands));
  Value result = into;
  for (int64_t lane = 0; lane < lanes; lane += kZmmF32Lanes) {
    SmallVector<Value> parts;
    for (Value operand : operands)
      parts.push_back(b.create<vector::ExtractStridedSliceOp>(
          operand, ArrayRef<int64_t>{lane}, ArrayRef<int64_t>{kZmmF32Lanes}, ArrayRef<int64_t>{1}));
    result = b.create<vector::InsertStridedSliceOp>(perRegister(parts), result,
                                                    ArrayRef<int64_t>{lane},
                                                    ArrayRef<int64_t>{1});
  }
  return result;
}
