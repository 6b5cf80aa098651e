// adjit-widened-f16-min-max: maximumf and minimumf of f16 values widened to
// f32, as compares and selects (see the pass description in Passes.td).
#include "ExpandMinMax.h"
#include "FloatOrder.h"

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
// f16 vectors a lane at a time). Order keys (FloatOrder.h) order numbers as
// the floats do, -0 below +0; a NaN's magnitude bits exceed infinity's. x
// is the result where it is NaN, or where y is not and x's key is above
// (below) y's; y otherwise.
Value exactMinMax(ImplicitLocOpBuilder &b, Value x, Value y, bool maximum) {
  Location loc = b.getLoc();
  adjit::FloatKey kx = adjit::floatKey(b, loc, x), ky = adjit::floatKey(b, loc, y);
  auto element = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  unsigned width = element.getWidth();
  Value magnitudeMask = adjit::integerConstantLike(b, loc, kx.bits, APInt::getSignedMaxValue(width));
  Value infinity = adjit::integerConstantLike(
      b, loc, kx.bits, APFloat::getInf(element.getFloatSemantics()).bitcastToAPInt());
  auto magnitude = [&](Value bits) { return b.create<arith::AndIOp>(bits, magnitudeMask); };
  Value xNaN = b.create<arith::CmpIOp>(arith::CmpIPredicate::sgt, magnitude(kx.bits), infinity);
  Value yNumber = b.create<arith::CmpIOp>(arith::CmpIPredicate::sle, magnitude(ky.bits), infinity);
  Value xAhead = b.create<arith::CmpIOp>(
      maximum ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, kx.key, ky.key);
  Value xWins = b.create<arith::OrIOp>(xNaN, b.create<arith::AndIOp>(yNumber, xAhead));
  return b.create<arith::SelectOp>(xWins, x, y);
}

struct WidenedHalfMinMaxPass : adjit::impl::WidenedHalfMinMaxBase<WidenedHalfMinMaxPass> {
  void runOnOperation() override {
    adjit::expandMinMax(
        getOperation(),
        [](Operation *op) { return llvm::all_of(op->getOperands(), isWidenedFromF16); },
        exactMinMax);
  }
};

} // namespace
