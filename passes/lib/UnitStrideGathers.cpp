// Gathers from strided memory through a unit-stride view: see the pass
// description in Passes.td.

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_UNITSTRIDEGATHERS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool hasUnitInnermostStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(getStridesAndOffset(type, strides, offset)) && strides.back() == 1;
}

struct GatherThroughUnitStrideView : OpRewritePattern<vector::GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::GatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(gather.getBase().getType());
    if (!type || type.getRank() == 0 || hasUnitInnermostStride(type))
      return failure();
    Location loc = gather.getLoc();
    auto metadata =
        rewriter.create<memref::ExtractStridedMetadataOp>(loc, gather.getBase());
    // The base element's position in the buffer, and the extent the view
    // must cover from it: every element of the innermost dimension.
    Value start = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(gather.getIndices(), metadata.getStrides()))
      start = rewriter.create<arith::AddIOp>(
          loc, start, rewriter.create<arith::MulIOp>(loc, index, stride));
    Value innermost = metadata.getStrides().back();
    Value extent = rewriter.create<arith::MulIOp>(loc, metadata.getSizes().back(), innermost);
    auto viewType = MemRefType::get(
        {ShapedType::kDynamic}, type.getElementType(),
        StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic, {1}),
        type.getMemorySpace());
    Value view = rewriter.create<memref::ReinterpretCastOp>(
        loc, viewType, metadata.getBaseBuffer(), OpFoldResult(start),
        ArrayRef<OpFoldResult>{extent}, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});

    auto indicesType = cast<VectorType>(gather.getIndexVec().getType());
    auto positionsType = indicesType.clone(rewriter.getIndexType());
    Value indices = gather.getIndexVec();
    if (!indicesType.getElementType().isIndex())
      indices = rewriter.create<arith::IndexCastOp>(loc, positionsType, indices);
    Value positions = rewriter.create<arith::MulIOp>(
        loc, indices, rewriter.create<vector::BroadcastOp>(loc, positionsType, innermost));
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    rewriter.replaceOpWithNewOp<vector::GatherOp>(gather, gather.getType(), view,
                                                  ValueRange{zero}, positions,
                                                  gather.getMask(), gather.getPassThru());
    return success();
  }
};

struct UnitStrideGathersPass
    : adjit::impl::UnitStrideGathersBase<UnitStrideGathersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GatherThroughUnitStrideView>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
