#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_EXPANDBFLOAT16
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
// A comparison of bf16 values (a sort's comparator) compares them widened
// to f32, exactly: LLVM's x86 backend would otherwise narrow them back
// through `__truncsfbf2`, which GCC 12's libgcc lacks.
struct WidenBFloat16Comparison : OpRewritePattern<arith::CmpFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::CmpFOp op, PatternRewriter &rewriter) const override {
    Type type = op.getLhs().getType();
    if (!getElementTypeOrSelf(type).isBF16())
      return failure();
    Type wide = rewriter.getF32Type();
    if (auto vector = dyn_cast<VectorType>(type))
      wide = vector.clone(wide);
    Value lhs = rewriter.create<arith::ExtFOp>(op.getLoc(), wide, op.getLhs());
    Value rhs = rewriter.create<arith::ExtFOp>(op.getLoc(), wide, op.getRhs());
    auto wider = rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, op.getPredicate(), lhs, rhs);
    wider.setFastmathAttr(op.getFastmathAttr());
    return success();
  }
};

struct ExpandBFloat16Pass : adjit::impl::ExpandBFloat16Base<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    patterns.add<WidenBFloat16Comparison>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
