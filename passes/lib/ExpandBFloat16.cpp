#include "adjit/Passes/Passes.h"
#include "FloatOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
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

// f32 -> bf16, rounded to nearest even, in integer arithmetic (upstream's
// pattern, but for NaN): a NaN keeps its sign and leading payload bits,
// quieted, as x86's vcvtneps2bf16 and XLA's conversion keep them, where
// upstream's gives +NaN (0x7fc0). The sign of a NaN is what lax.top_k's
// order reads (0/0 on x86 is -NaN).
struct TruncateToBFloat16 : OpRewritePattern<arith::TruncFOp> {
  TruncateToBFloat16(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {} // before upstream's
  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rewriter) const override {
    Type in = op.getIn().getType(), out = op.getType();
    if (!getElementTypeOrSelf(out).isBF16() || !getElementTypeOrSelf(in).isF32())
      return failure();
    auto like = [&](Type element) -> Type {
      if (auto vector = dyn_cast<VectorType>(in))
        return vector.clone(element);
      return element;
    };
    Type i32 = like(rewriter.getI32Type()), i16 = like(rewriter.getIntegerType(16));
    Location loc = op.getLoc();
    Value bits = rewriter.create<arith::BitcastOp>(loc, i32, op.getIn());
    auto constant = [&](uint64_t value) {
      return adjit::integerConstantLike(rewriter, loc, bits, APInt(32, value));
    };
    Value high = rewriter.create<arith::ShRUIOp>(loc, bits, constant(16));
    // Round to nearest even: add 0x7fff and the lowest kept bit.
    Value lowestKept = rewriter.create<arith::AndIOp>(loc, high, constant(1));
    Value bias = rewriter.create<arith::AddIOp>(loc, lowestKept, constant(0x7fff));
    Value rounded = rewriter.create<arith::ShRUIOp>(
        loc, rewriter.create<arith::AddIOp>(loc, bits, bias), constant(16));
    Value quietNaN = rewriter.create<arith::OrIOp>(loc, high, constant(0x40));
    Value isNaN =
        rewriter.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, op.getIn(), op.getIn());
    Value result = rewriter.create<arith::SelectOp>(loc, isNaN, quietNaN, rounded);
    Value narrow = rewriter.create<arith::TruncIOp>(loc, i16, result);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, out, narrow);
    return success();
  }
};

struct ExpandBFloat16Pass : adjit::impl::ExpandBFloat16Base<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    patterns.add<WidenBFloat16Comparison, TruncateToBFloat16>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
