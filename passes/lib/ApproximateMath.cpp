#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
struct ApproximateMathPass
    : adjit::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The patterns only match f32 (and f16 through f32), never f64.
    populateMathPolynomialApproximationPatterns(patterns);
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
