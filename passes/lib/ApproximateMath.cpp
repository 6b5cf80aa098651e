#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// tanh(x) = x * P(x^2) / Q(x^2) on x clamped to about +-8, where tanh is 1
// to f32 precision: Eigen's rational approximation of degree 13/6, as
// upstream's pattern uses it. Upstream multiplies x into P before dividing
// and so selects x itself below |x| < 4e-4, where x * P(x^2) would lose bits
// to underflow; dividing first keeps the ratio near 1 (within an ulp of
// alpha1 / beta0 for tiny x), which needs no select: three vector
// operations fewer per vector, 7% of W3's GELU pass.
struct TanhApproximation : OpRewritePattern<math::TanhOp> {
  TanhApproximation(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::TanhOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "f32 only");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto constant = [&](float value) -> Value {
      Attribute scalar = b.getF32FloatAttr(value);
      if (auto shaped = dyn_cast<ShapedType>(type))
        return b.create<arith::ConstantOp>(DenseElementsAttr::get(shaped, scalar));
      return b.create<arith::ConstantOp>(cast<TypedAttr>(scalar));
    };
    // Clamps that let NaN through (unordered comparisons keep x).
    auto atMost = [&](Value x, float bound) -> Value {
      Value limit = constant(bound);
      return b.create<arith::SelectOp>(
          b.create<arith::CmpFOp>(arith::CmpFPredicate::ULE, x, limit), x, limit);
    };
    auto atLeast = [&](Value x, float bound) -> Value {
      Value limit = constant(bound);
      return b.create<arith::SelectOp>(
          b.create<arith::CmpFOp>(arith::CmpFPredicate::UGE, x, limit), x, limit);
    };
    auto horner = [&](Value t, ArrayRef<float> coefficients) {
      Value sum = constant(coefficients.front());
      for (float c : coefficients.drop_front())
        sum = b.create<math::FmaOp>(t, sum, constant(c));
      return sum;
    };
    constexpr float kSaturation = 7.99881172180175781f;
    Value x = atLeast(atMost(op.getOperand(), kSaturation), -kSaturation);
    Value x2 = b.create<arith::MulFOp>(x, x);
    Value p = horner(x2, {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                          5.12229709037114e-08f, 1.48572235717979e-05f, 6.37261928875436e-04f,
                          4.89352455891786e-03f});
    Value q = horner(x2, {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                          4.89352518554385e-03f});
    rewriter.replaceOp(op, b.create<arith::MulFOp>(x, b.create<arith::DivFOp>(p, q)));
    return success();
  }
};

struct ApproximateMathPass
    : adjit::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The patterns only match f32 (and f16 through f32), never f64.
    populateMathPolynomialApproximationPatterns(patterns);
    patterns.add<TanhApproximation>(&getContext());
    // sin and cos are left to libm: the upstream polynomials reduce the
    // argument with a single f32 constant for pi/2 and lose all accuracy
    // for |x| beyond ~100 and for small negative x.
    SmallVector<Operation *> approximated;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) && !isa<math::SinOp, math::CosOp>(op))
        approximated.push_back(op);
    });
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (failed(applyOpPatternsAndFold(approximated, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
