// Gathers from strided memory, and strided vector reads, through
// unit-stride views: see the pass description in Passes.td.

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/VectorInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>

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

// The strided metadata of a memref and the position in its buffer of the
// element at `indices`.
struct BufferPosition {
  memref::ExtractStridedMetadataOp metadata;
  Value start;
};
BufferPosition positionOf(PatternRewriter &rewriter, Location loc, Value base,
                          ValueRange indices) {
  auto metadata = rewriter.create<memref::ExtractStridedMetadataOp>(loc, base);
  Value start = metadata.getOffset();
  for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
    start = rewriter.create<arith::AddIOp>(loc, start,
                                           rewriter.create<arith::MulIOp>(loc, index, stride));
  return {metadata, start};
}

// A one-dimensional unit-stride view of that buffer from `at`, `extent`
// elements long.
Value unitStrideView(PatternRewriter &rewriter, Location loc, BufferPosition at, Value extent) {
  auto type = cast<MemRefType>(at.metadata.getSource().getType());
  auto viewType = MemRefType::get(
      {ShapedType::kDynamic}, type.getElementType(),
      StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic, {1}),
      type.getMemorySpace());
  return rewriter.create<memref::ReinterpretCastOp>(
      loc, viewType, at.metadata.getBaseBuffer(), OpFoldResult(at.start),
      ArrayRef<OpFoldResult>{extent}, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
}

// `indices` (a vector of integers) times `stride`, as indices.
Value scaled(PatternRewriter &rewriter, Location loc, Value indices, Value stride) {
  auto indicesType = cast<VectorType>(indices.getType());
  auto positionsType = indicesType.clone(rewriter.getIndexType());
  if (!indicesType.getElementType().isIndex())
    indices = rewriter.create<arith::IndexCastOp>(loc, positionsType, indices);
  return rewriter.create<arith::MulIOp>(
      loc, indices, rewriter.create<vector::BroadcastOp>(loc, positionsType, stride));
}

struct GatherThroughUnitStrideView : OpRewritePattern<vector::GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::GatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<MemRefType>(gather.getBase().getType());
    if (!type || type.getRank() == 0 || hasUnitInnermostStride(type))
      return failure();
    Location loc = gather.getLoc();
    BufferPosition at = positionOf(rewriter, loc, gather.getBase(), gather.getIndices());
    // The view covers every element of the innermost dimension.
    Value innermost = at.metadata.getStrides().back();
    Value extent =
        rewriter.create<arith::MulIOp>(loc, at.metadata.getSizes().back(), innermost);
    Value view = unitStrideView(rewriter, loc, at, extent);
    Value positions = scaled(rewriter, loc, gather.getIndexVec(), innermost);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    rewriter.replaceOpWithNewOp<vector::GatherOp>(gather, gather.getType(), view,
                                                  ValueRange{zero}, positions,
                                                  gather.getMask(), gather.getPassThru());
    return success();
  }
};

// The dimension along which a one-dimensional, in-bounds, unmasked vector
// transfer of a memref moves, where its stride is not known to be 1. Not
// for i1, whose byte-per-element memory only loads and stores lower
// (adjit-convert-bool-vector-memory-to-llvm).
std::optional<unsigned> stridedDimension(VectorTransferOpInterface transfer) {
  auto type = dyn_cast<MemRefType>(transfer.getShapedType());
  VectorType vector = transfer.getVectorType();
  if (!type || vector.getRank() != 1 || vector.isScalable() || transfer.getMask() ||
      vector.getElementType().isInteger(1) ||
      !transfer.isDimInBounds(0) || transfer.getPermutationMap().getNumResults() != 1)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(transfer.getPermutationMap().getResult(0));
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!dim || failed(getStridesAndOffset(type, strides, offset)) ||
      strides[dim.getPosition()] == 1)
    return std::nullopt;
  return dim.getPosition();
}

// The elements a strided transfer touches: a unit-stride view from its
// first, and their positions in it, 0, s, 2s, ...
struct StridedElements {
  Value view, positions, allLanes;
};
StridedElements stridedElements(PatternRewriter &rewriter, VectorTransferOpInterface transfer,
                                unsigned dim) {
  Location loc = transfer.getLoc();
  int64_t lanes = transfer.getVectorType().getNumElements();
  BufferPosition at = positionOf(rewriter, loc, transfer.getSource(), transfer.getIndices());
  Value stride = at.metadata.getStrides()[dim];
  Value last = rewriter.create<arith::MulIOp>(
      loc, stride, rewriter.create<arith::ConstantIndexOp>(loc, lanes - 1));
  Value extent =
      rewriter.create<arith::AddIOp>(loc, last, rewriter.create<arith::ConstantIndexOp>(loc, 1));
  auto laneType = VectorType::get({lanes}, rewriter.getIndexType());
  SmallVector<APInt> lanesInOrder;
  for (int64_t i = 0; i < lanes; ++i)
    lanesInOrder.push_back(APInt(64, i));
  Value iota = rewriter.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(laneType, lanesInOrder));
  Value allLanes = rewriter.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(VectorType::get({lanes}, rewriter.getI1Type()), true));
  return {unitStrideView(rewriter, loc, at, extent), scaled(rewriter, loc, iota, stride),
          allLanes};
}

// A strided read (a strided slice's elements, a column of a row-major
// matrix) as one gather: vector.transfer_read's own lowering would make a
// loop of scalar loads, each inserted into the vector through the stack (a
// column of [2^20, 4] f32 3.5x slower). Strided writes keep that lowering:
// Zen 4's scatters were no faster than its scalar stores.
struct StridedReadAsGather : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    std::optional<unsigned> dim = stridedDimension(read);
    if (!dim)
      return failure();
    StridedElements elements = stridedElements(rewriter, read, *dim);
    Value zero = rewriter.create<arith::ConstantIndexOp>(read.getLoc(), 0);
    Value passThru =
        rewriter.create<vector::BroadcastOp>(read.getLoc(), read.getVectorType(), read.getPadding());
    rewriter.replaceOpWithNewOp<vector::GatherOp>(read, read.getVectorType(), elements.view,
                                                  ValueRange{zero}, elements.positions,
                                                  elements.allLanes, passThru);
    return success();
  }
};

struct UnitStrideGathersPass
    : adjit::impl::UnitStrideGathersBase<UnitStrideGathersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GatherThroughUnitStrideView, StridedReadAsGather>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
