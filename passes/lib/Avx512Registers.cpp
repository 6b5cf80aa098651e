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
                          function_ref<Value(ArrayRef<Value>)> perRegister,
                          int64_t registerLanes, Value padding) {
  auto type = cast<VectorType>(into.getType());
  int64_t lanes = type.getDimSize(0);
  if (registerLanes == 0)
    registerLanes = zmmLanes(type.getElementType());
  if (lanes == registerLanes)
    return perRegister(llvm::to_vector(operands));
  auto slice = [&](Value vector, int64_t offset, int64_t size) -> Value {
    return b.create<vector::ExtractStridedSliceOp>(vector, ArrayRef<int64_t>{offset},
                                                   ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1});
  };
  auto insert = [&](Value part, Value vector, int64_t offset) -> Value {
    return b.create<vector::InsertStridedSliceOp>(part, vector, ArrayRef<int64_t>{offset},
                                                  ArrayRef<int64_t>{1});
  };
  Value result = into;
  for (int64_t lane = 0; lane < lanes; lane += registerLanes) {
    int64_t width = std::min(registerLanes, lanes - lane);
    assert((width == registerLanes || padding) && "a partial register needs padding");
    SmallVector<Value> parts;
    for (Value operand : operands) {
      Value part = width == lanes ? operand : slice(operand, lane, width);
      parts.push_back(width < registerLanes ? insert(part, padding, 0) : part);
    }
    Value computed = perRegister(parts);
    if (width < registerLanes)
      computed = slice(computed, 0, width);
    result = width == lanes ? computed : insert(computed, result, lane);
  }
  return result;
}
