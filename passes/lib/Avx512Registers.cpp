#include "Avx512Registers.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

int64_t adjit::zmmLanes(Type element) { return 512 / element.getIntOrFloatBitWidth(); }

static bool isRegistersOf(Type type, function_ref<bool(Type)> element) {
  auto vector = dyn_cast<VectorType>(type);
  return vector && vector.getRank() == 1 && !vector.isScalable() &&
         element(vector.getElementType()) &&
         vector.getDimSize(0) % adjit::zmmLanes(vector.getElementType()) == 0;
}

bool adjit::isRegistersOfF32(Type type) {
  return isRegistersOf(type, [](Type t) { return t.isF32(); });
}

bool adjit::isRegistersOfF32OrF64(Type type) {
  return isRegistersOf(type, [](Type t) { return t.isF32() || t.isF64(); });
}

Value adjit::eachRegister(ImplicitLocOpBuilder &b, Value into, ValueRange operands,
                          function_ref<Value(ArrayRef<Value>)> perRegister) {
  auto type = cast<VectorType>(into.getType());
  int64_t lanes = type.getDimSize(0), registerLanes = zmmLanes(type.getElementType());
  if (lanes == registerLanes)
    return perRegister(llvm::to_vector(operands));
  Value result = into;
  for (int64_t lane = 0; lane < lanes; lane += registerLanes) {
    SmallVector<Value> parts;
    for (Value operand : operands)
      parts.push_back(b.create<vector::ExtractStridedSliceOp>(
          operand, ArrayRef<int64_t>{lane}, ArrayRef<int64_t>{registerLanes}, ArrayRef<int64_t>{1}));
    result = b.create<vector::InsertStridedSliceOp>(perRegister(parts), result,
                                                    ArrayRef<int64_t>{lane},
                                                    ArrayRef<int64_t>{1});
  }
  return result;
}
