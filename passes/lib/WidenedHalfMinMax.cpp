// adjit-widened-f16-min-max: maximumf and minimumf of f16 values widened to
// f32, as compares and selects (see the pass description in Passes.td).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_WIDENEDHALFMINMAX
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool isWidenedFromF16(Value v) {
  auto widen = v.getDefiningOp<arith::ExtFOp>();
  return widen && getElementTypeOrSelf(widen.getIn().getType()).isF16();
}

// IEEE 754-2019 maximum (minimum) in integer compares of the operands'
// bits, which LLVM cannot narrow to f16 (x86 without AVX512-FP16 compares
// f16 vectors a lane at a time). A float's bits b as a signed integer,
// with the magnitude bits flipped where b < 0, order as the floats do with
// -0 below +0; a NaN's magnitude bits exceed those of infinity. x is the
// result where it is NaN, or where y is not and x's key is above (below)
// y's; y otherwise.
Value exactMinMax(ImplicitLocOpBuilder &b, Value x, Value y, bool maximum) {
  Type type = x.getType();
  auto element = cast<FloatType>(getElementTypeOrSelf(type));
  unsigned width = element.getWidth();
  IntegerType elementBits = b.getIntegerType(width);
  Type bitsType = elementBits;
  if (auto vector = dyn_cast<VectorType>(type))
    bitsType = vector.clone(elementBits);
  auto constant = [&](const APInt &value) -> Value {
    auto attr = b.getIntegerAttr(elementBits, value);
    if (auto vector = dyn_cast<VectorType>(bitsType))
      return b.create<arith::ConstantOp>(DenseElementsAttr::get(vector, attr));
    return b.create<arith::ConstantOp>(attr);
  };
  Value signShift = constant(APInt(width, width - 1));
  Value magnitudeMask = constant(APInt::getSignedMaxValue(width));
  Value infinity = constant(APFloat::getInf(element.getFloatSemantics()).bitcastToAPInt());
  struct Keyed { Value magnitude, key; };
  auto keyed = [&](Value v) {
    Value bits = b.create<arith::BitcastOp>(bitsType, v);
    Value negativeMask = b.create<arith::ShRSIOp>(bits, signShift);
    Value flip = b.create<arith::AndIOp>(negativeMask, magnitudeMask);
    return Keyed{b.create<arith::AndIOp>(bits, magnitudeMask), b.create<arith::XOrIOp>(bits, flip)};
  };
  Keyed kx = keyed(x), ky = keyed(y);
  Value xNaN = b.create<arith::CmpIOp>(arith::CmpIPredicate::sgt, kx.magnitude, infinity);
  Value yNumber = b.create<arith::CmpIOp>(arith::CmpIPredicate::sle, ky.magnitude, infinity);
  Value xAhead = b.create<arith::CmpIOp>(
      maximum ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, kx.key, ky.key);
  Value xWins = b.create<arith::OrIOp>(xNaN, b.create<arith::AndIOp>(yNumber, xAhead));
  return b.create<arith::SelectOp>(xWins, x, y);
}

struct WidenedHalfMinMaxPass : adjit::impl::WidenedHalfMinMaxBase<WidenedHalfMinMaxPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::MaximumFOp, arith::MinimumFOp>(op) &&
          llvm::all_of(op->getOperands(), isWidenedFromF16))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      op->getResult(0).replaceAllUsesWith(
          exactMinMax(b, op->getOperand(0), op->getOperand(1), isa<arith::MaximumFOp>(op)));
      op->erase();
    }
  }
};

} // namespace
