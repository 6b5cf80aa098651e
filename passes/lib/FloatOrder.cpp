#include "FloatOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::adjit {

Value integerConstantLike(OpBuilder &b, Location loc, Value like, const APInt &value) {
  auto element = cast<IntegerType>(getElementTypeOrSelf(like.getType()));
  auto attr = b.getIntegerAttr(element, value);
  if (auto vector = dyn_cast<VectorType>(like.getType()))
    return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(vector, attr));
  return b.create<arith::ConstantOp>(loc, attr);
}

FloatKey floatKey(OpBuilder &b, Location loc, Value floats) {
  unsigned width = getElementTypeOrSelf(floats.getType()).getIntOrFloatBitWidth();
  Type bitsType = b.getIntegerType(width);
  if (auto vector = dyn_cast<VectorType>(floats.getType()))
    bitsType = vector.clone(bitsType);
  Value bits = b.create<arith::BitcastOp>(loc, bitsType, floats);
  Value signShift = integerConstantLike(b, loc, bits, APInt(width, width - 1));
  Value magnitudeMask = integerConstantLike(b, loc, bits, APInt::getSignedMaxValue(width));
  Value negative = b.create<arith::ShRSIOp>(loc, bits, signShift); // all ones where negative
  Value flip = b.create<arith::AndIOp>(loc, negative, magnitudeMask);
  return {bits, b.create<arith::XOrIOp>(loc, bits, flip)};
}

} // namespace mlir::adjit
