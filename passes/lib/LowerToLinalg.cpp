// adjit -> linalg/tensor/arith/math/scf. Every elementwise op becomes a
// linalg.generic around its own scalar rule (ElementwiseOpInterface), so
// this file names none of them; structural ops get one pattern each.
#include "ControlFlowToSCF.h"
#include "LinearAlgebraToLoops.h"
#include "LoopNests.h"
#include "SortToLoops.h"

#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Dialect/ScalarRules.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_LOWERADJITTOLINALG
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return b.create<tensor::EmptyOp>(loc, type.getShape(),
                                   type.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value scalar) {
  return b.create<linalg::FillOp>(loc, scalar, emptyTensor(b, loc, type))
      .getResult(0);
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

// A generic over `resultType` whose body maps the inputs' elements (read
// through `inputMaps`) to one result element.
Value mapElements(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, emptyTensor(b, loc, resultType), maps,
      parallelIterators(resultType.getRank()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        nb.create<linalg::YieldOp>(nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

// Row-major reshape through collapse_shape/expand_shape (metadata only).
Value reshapeTensor(OpBuilder &b, Location loc, Value v,
                    RankedTensorType to) {
  auto from = cast<RankedTensorType>(v.getType());
  if (from == to)
    return v;
  if (from.getRank() == 0)
    return b.create<tensor::ExpandShapeOp>(loc, to, v,
                                           ArrayRef<ReassociationIndices>{});
  if (to.getRank() == 0)
    return b.create<tensor::CollapseShapeOp>(loc, to, v,
                                             ArrayRef<ReassociationIndices>{});
  auto flatType = RankedTensorType::get({from.getNumElements()},
                                        from.getElementType());
  auto allDims = [](int64_t rank) {
    ReassociationIndices group;
    for (int64_t d = 0; d < rank; ++d)
      group.push_back(d);
    return SmallVector<ReassociationIndices>{group};
  };
  Value flat = from.getRank() == 1
                   ? v
                   : b.create<tensor::CollapseShapeOp>(loc, flatType, v,
                                                       allDims(from.getRank()));
  if (to.getRank() == 1)
    return flat;
  return b.create<tensor::ExpandShapeOp>(loc, to, flat, allDims(to.getRank()));
}

Value transposeTensor(OpBuilder &b, Location loc, Value v,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> operandIndex(perm.size());
  for (auto [i, p] : llvm::enumerate(perm)) {
    shape.push_back(type.getDimSize(p));
    operandIndex[p] = b.getAffineDimExpr(i);
  }
  if (llvm::equal(shape, type.getShape()) && llvm::is_sorted(perm))
    return v;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  AffineMap map = AffineMap::get(perm.size(), 0, operandIndex, b.getContext());
  return mapElements(b, loc, resultType, v, map,
                     [](OpBuilder &, Location, ValueRange args) {
                       return args[0];
                     });
}

Value convertTensorElements(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == to)
    return v;
  return mapElements(b, loc, type.clone(to), v,
                     b.getMultiDimIdentityMap(type.getRank()),
                     [&](OpBuilder &nb, Location nloc, ValueRange args) {
                       return convertScalar(nb, nloc, args[0], to);
                     });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

// Elementwise op -> linalg.generic with identity maps around the op's scalar
// rule, half precision computed in f32 and rounded once.
struct ElementwiseToGeneric
    : OpInterfaceConversionPattern<ElementwiseOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(ElementwiseOpInterface op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type resultElement = resultType.getElementType();
    bool widens = op.widensHalfPrecision();
    SmallVector<AffineMap> maps(
        operands.size(), rewriter.getMultiDimIdentityMap(resultType.getRank()));
    Value result = mapElements(
        rewriter, op.getLoc(), resultType, operands, maps,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          if (!widens)
            return op.emitScalar(b, loc, args);
          SmallVector<Value> wide;
          for (Value arg : args)
            wide.push_back(widenHalfPrecision(b, loc, arg));
          return narrowTo(b, loc, op.emitScalar(b, loc, wide), resultElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (value && value.isSplat()) {
      auto scalar = cast<TypedAttr>(value.getSplatValue<Attribute>());
      rewriter.replaceOp(
          op, mapElements(rewriter, op.getLoc(), op.getType(), {}, {},
                          [&](OpBuilder &b, Location loc, ValueRange) -> Value {
                            return b.create<arith::ConstantOp>(loc, scalar);
                          }));
      return success();
    }
    auto typed = dyn_cast<TypedAttr>(op.getValue());
    if (!typed)
      return rewriter.notifyMatchFailure(op, "needs a typed elements attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, typed);
    return success();
  }
};

struct StopGradientToOperand : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

struct IotaToGeneric : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    int64_t dim = op.getDim();
    Value result = mapElements(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = b.create<linalg::IndexOp>(loc, dim);
          Value i64 = b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
          return convertScalar(b, loc, i64, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastToGeneric : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType operandType = op.getOperand().getType(),
                     resultType = op.getType();
    SmallVector<AffineExpr> operandIndex;
    for (auto [i, d] : llvm::enumerate(op.getDims())) {
      bool repeated = operandType.getDimSize(i) != resultType.getDimSize(d);
      operandIndex.push_back(repeated ? rewriter.getAffineConstantExpr(0)
                                      : rewriter.getAffineDimExpr(d));
    }
    AffineMap map = AffineMap::get(resultType.getRank(), 0, operandIndex,
                                   rewriter.getContext());
    rewriter.replaceOp(op, mapElements(rewriter, op.getLoc(), resultType,
                                       adaptor.getOperand(), map,
                                       [](OpBuilder &, Location,
                                          ValueRange args) { return args[0]; }));
    return success();
  }
};

struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getOperand(), op.getType()));
    return success();
  }
};

struct TransposeToGeneric : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, transposeTensor(rewriter, op.getLoc(),
                                           adaptor.getOperand(), op.getPerm()));
    return success();
  }
};

struct SliceToTensor : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getStart(), op.getType().getShape(), op.getStride());
    return success();
  }
};

Value insertSlice(OpBuilder &b, Location loc, Value source, Value dest,
                  ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  return b.create<tensor::InsertSliceOp>(loc, source, dest, ValueRange{},
                                         ValueRange{}, ValueRange{}, offsets,
                                         sourceType.getShape(), strides);
}

// The concatenation of `inputs` along `dim`: a chain of insert_slice ops
// into an empty tensor. One-Shot Bufferize and empty-tensor elimination
// take time superlinear in a chain's length (a conv's patch matrix of 256
// taps took minutes), so many inputs are concatenated in groups of at most
// kConcatGroup, and the groups again; empty-tensor elimination then builds
// each group in place in its slice of the result.
constexpr size_t kConcatGroup = 16;

Value concatenate(OpBuilder &b, Location loc, ValueRange inputs, int64_t dim) {
  auto sizeOf = [&](Value v) { return cast<RankedTensorType>(v.getType()).getDimSize(dim); };
  SmallVector<Value> parts(inputs);
  if (parts.size() > kConcatGroup) {
    parts.clear();
    for (size_t first = 0; first < inputs.size(); first += kConcatGroup)
      parts.push_back(concatenate(
          b, loc, inputs.slice(first, std::min(kConcatGroup, inputs.size() - first)), dim));
    if (parts.size() > kConcatGroup)
      return concatenate(b, loc, parts, dim);
  }
  auto type = cast<RankedTensorType>(parts.front().getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = 0;
  for (Value part : parts)
    shape[dim] += sizeOf(part);
  Value result = emptyTensor(b, loc, type.clone(shape));
  SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
  for (Value part : parts) {
    result = insertSlice(b, loc, part, result, offsets, strides);
    offsets[dim] += sizeOf(part);
  }
  return result;
}

struct ConcatenateToTensor : OpConversionPattern<ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, concatenate(rewriter, op.getLoc(), adaptor.getInputs(), op.getDim()));
    return success();
  }
};

struct PadToTensor : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value padding =
        rewriter.create<tensor::ExtractOp>(loc, adaptor.getPaddingValue());
    RankedTensorType type = op.getType();
    SmallVector<int64_t> strides;
    for (int64_t interior : op.getInterior())
      strides.push_back(interior + 1);
    if (llvm::any_of(op.getInterior(), [](int64_t i) { return i != 0; })) {
      Value filled = filledTensor(rewriter, loc, type, padding);
      rewriter.replaceOp(op, insertSlice(rewriter, loc, adaptor.getOperand(),
                                         filled, op.getLow(), strides));
      return success();
    }
    // Without interior padding: a tensor.pad, which
    // adjit-split-padded-consumers reads in place in its elementwise
    // consumers (and lowers where it cannot).
    SmallVector<OpFoldResult> low, high;
    for (auto [l, h] : llvm::zip(op.getLow(), op.getHigh())) {
      low.push_back(rewriter.getIndexAttr(l));
      high.push_back(rewriter.getIndexAttr(h));
    }
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, adaptor.getOperand(), low, high,
                                               padding);
    return success();
  }
};

// Clamps an integer index into [0, size) and casts it to `index`.
Value clampedIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Type t = index.getType();
  Value clamped = b.create<arith::MaxSIOp>(loc, index,
                                           scalarConstant(b, loc, t, 0));
  clamped = b.create<arith::MinSIOp>(
      loc, clamped, scalarConstant(b, loc, t, static_cast<double>(size - 1)));
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), clamped);
}

struct GatherToGeneric : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    int64_t axis = op.getAxis();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t axisSize = op.getOperand().getType().getDimSize(axis);
    SmallVector<AffineExpr> indexDims;
    for (int64_t d = 0; d < indexRank; ++d)
      indexDims.push_back(rewriter.getAffineDimExpr(axis + d));
    AffineMap indicesMap = AffineMap::get(resultType.getRank(), 0, indexDims,
                                          rewriter.getContext());
    Value operand = adaptor.getOperand();
    Value result = mapElements(
        rewriter, op.getLoc(), resultType, adaptor.getIndices(), indicesMap,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(b.create<linalg::IndexOp>(loc, d));
          at.push_back(clampedIndex(b, loc, args[0], axisSize));
          for (int64_t d = axis + indexRank; d < resultType.getRank(); ++d)
            at.push_back(b.create<linalg::IndexOp>(loc, d));
          return b.create<tensor::ExtractOp>(loc, operand, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

// The offsets of a block of `block`'s shape at `starts` (0-d integer
// tensors) in a tensor of `shape`: each clamped so the block fits.
SmallVector<OpFoldResult> blockOffsets(OpBuilder &b, Location loc, ValueRange starts,
                                       ArrayRef<int64_t> shape, ArrayRef<int64_t> block) {
  SmallVector<OpFoldResult> offsets;
  for (auto [start, n, size] : llvm::zip(starts, shape, block))
    offsets.push_back(
        clampedIndex(b, loc, b.create<tensor::ExtractOp>(loc, start), n - size + 1));
  return offsets;
}

struct DynamicSliceToTensor : OpConversionPattern<DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    SmallVector<OpFoldResult> offsets =
        blockOffsets(rewriter, op.getLoc(), adaptor.getStarts(),
                     op.getOperand().getType().getShape(), type.getShape());
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(getContext(), type.getShape());
    SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, adaptor.getOperand(), offsets,
                                                        sizes, strides);
    return success();
  }
};

struct DynamicUpdateSliceToTensor : OpConversionPattern<DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> block = op.getUpdate().getType().getShape();
    SmallVector<OpFoldResult> offsets = blockOffsets(
        rewriter, op.getLoc(), adaptor.getStarts(), op.getType().getShape(), block);
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(getContext(), block);
    SmallVector<OpFoldResult> strides(block.size(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, adaptor.getUpdate(),
                                                       adaptor.getOperand(), offsets, sizes,
                                                       strides);
    return success();
  }
};

Value reductionIdentity(OpBuilder &b, Location loc, ReduceKind kind,
                        Type type) {
  if (kind == ReduceKind::sum)
    return scalarConstant(b, loc, type, 0);
  bool isMax = kind == ReduceKind::max;
  if (auto f = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), isMax)));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, isMax ? APInt::getSignedMinValue(width)
                                        : APInt::getSignedMaxValue(width)));
}

// `ignoresNan`: a float max or min that skips NaN (maxnumf, minnumf).
Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
              Value x, bool ignoresNan = false) {
  switch (kind) {
  case ReduceKind::sum:
    // Sums may be reassociated (as in XLA), which lets LLVM vectorize them
    // into partial sums; the order of a sum is unspecified.
    if (isa<FloatType>(acc.getType()))
      return b.create<arith::AddFOp>(loc, acc, x, arith::FastMathFlags::reassoc);
    return b.create<arith::AddIOp>(loc, acc, x);
  case ReduceKind::max:
    if (ignoresNan)
      return b.create<arith::MaxNumFOp>(loc, acc, x);
    return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, {acc, x});
  case ReduceKind::min:
    if (ignoresNan)
      return b.create<arith::MinNumFOp>(loc, acc, x);
    return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, {acc, x});
  }
  llvm_unreachable("unknown reduce kind");
}

// scatter_add and scatter_extremum: sequential loops over the indices (and
// the dimensions before the axis), so that repeated indices combine in
// order, deterministically. Each combines one update into the element its
// index picks or, when the updates have rows of at least kMinRow elements
// after the indexed dimensions (an embedding's gradient, a graph network's
// messages), a whole row into the row it picks: an elementwise generic on
// the slice of the result, which becomes vector code and updates it in
// place.
template <class ScatterOp>
struct ScatterToLoops : OpConversionPattern<ScatterOp> {
  using OpConversionPattern<ScatterOp>::OpConversionPattern;
  using OpAdaptor = typename ScatterOp::Adaptor;
  static constexpr int64_t kMinRow = 8;

  LogicalResult
  matchAndRewrite(ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType updatesType = op.getUpdates().getType();
    int64_t axis = op.getAxis();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t axisSize = op.getBase().getType().getDimSize(axis);
    ArrayRef<int64_t> row = updatesType.getShape().drop_front(axis + indexRank);
    bool byRows = !row.empty() && ShapedType::getNumElements(row) >= kMinRow;
    ArrayRef<int64_t> looped =
        byRows ? updatesType.getShape().take_front(axis + indexRank) : updatesType.getShape();
    Value updates = adaptor.getUpdates(), indices = adaptor.getIndices();
    Type element = updatesType.getElementType();
    // Half-precision elements combine in f32 (widening a wider one is a no-op).
    auto combined = [&](OpBuilder &b, Location l, Value current, Value update) {
      Value result = combineUpdate(b, l, op, widenHalfPrecision(b, l, current),
                                   widenHalfPrecision(b, l, update));
      return isa<FloatType>(element) ? narrowTo(b, l, result, element) : result;
    };
    SmallVector<Value> results = loopNestOver(
        rewriter, loc, looped, adaptor.getBase(),
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange acc) -> scf::ValueVector {
          Value index = b.create<tensor::ExtractOp>(
              l, indices, ivs.slice(axis, indexRank));
          SmallVector<Value> at(ivs.take_front(axis));
          at.push_back(clampedIndex(b, l, index, axisSize));
          if (!byRows) {
            llvm::append_range(at, ivs.drop_front(axis + indexRank));
            Value update = widenHalfPrecision(b, l, b.create<tensor::ExtractOp>(l, updates, ivs));
            Value current =
                widenHalfPrecision(b, l, b.create<tensor::ExtractOp>(l, acc[0], at));
            return {b.create<tensor::InsertOp>(l, combined(b, l, current, update), acc[0], at)};
          }
          auto rowType = RankedTensorType::get(row, element);
          Value updateRow = rowSlice<tensor::ExtractSliceOp>(b, l, rowType, updates, ivs, row);
          Value currentRow = rowSlice<tensor::ExtractSliceOp>(b, l, rowType, acc[0], at, row);
          // The result's row is the generic's destination, read as its init.
          AffineMap identity = b.getMultiDimIdentityMap(row.size());
          Value next = b.create<linalg::GenericOp>(
                            l, rowType, updateRow, currentRow,
                            SmallVector<AffineMap>{identity, identity},
                            parallelIterators(row.size()),
                            [&](OpBuilder &nb, Location nl, ValueRange args) {
                              nb.create<linalg::YieldOp>(nl,
                                                         combined(nb, nl, args[1], args[0]));
                            })
                           .getResult(0);
          return {rowSlice<tensor::InsertSliceOp>(b, l, rowType, acc[0], at, row, next)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }

  // The slice op for the row of `tensor` at `leading` (indices of its
  // leading dimensions; the row fills the rest), rank-reduced to `rowType`:
  // an extract_slice, or an insert_slice of `source`.
  template <class SliceOp>
  static Value rowSlice(OpBuilder &b, Location loc, RankedTensorType rowType, Value tensor,
                        ValueRange leading, ArrayRef<int64_t> row, Value source = {}) {
    SmallVector<OpFoldResult> offsets(leading.begin(), leading.end());
    SmallVector<OpFoldResult> sizes(leading.size(), b.getIndexAttr(1));
    for (int64_t d : row) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(d));
    }
    SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
    if constexpr (std::is_same_v<SliceOp, tensor::ExtractSliceOp>)
      return b.create<tensor::ExtractSliceOp>(loc, rowType, tensor, offsets, sizes, strides);
    else
      return b.create<tensor::InsertSliceOp>(loc, source, tensor, offsets, sizes, strides);
  }

  // Sums in order (repeated indices accumulate deterministically); extrema
  // propagate NaN.
  static Value combineUpdate(OpBuilder &b, Location loc, ScatterOp op, Value current,
                             Value update) {
    if constexpr (std::is_same_v<ScatterOp, ScatterAddOp>)
      return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, ValueRange{current, update});
    else
      return combine(b, loc, op.getKind(), current, update);
  }
};


// The map from an operand index to the reduced result index.
AffineMap droppingDims(Builder &b, int64_t rank, ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> kept;
  for (int64_t d : otherDimensions(rank, dropped))
    kept.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, kept, b.getContext());
}

SmallVector<utils::IteratorType> reductionIterators(int64_t rank,
                                                    ArrayRef<int64_t> reduced) {
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  for (int64_t d : reduced)
    iterators[d] = utils::IteratorType::reduction;
  return iterators;
}

struct ReduceToGeneric : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = op.getOperand().getType().getRank();
    // Half precision accumulates in f32.
    Type accType = computeTypeOf(resultType.getElementType());
    auto accTensor = resultType.clone(accType);
    Value init = filledTensor(rewriter, loc, accTensor,
                              reductionIdentity(rewriter, loc, op.getKind(),
                                                accType));
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank),
                                droppingDims(rewriter, rank, op.getDims())};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, accTensor, adaptor.getOperand(), init, maps,
        reductionIterators(rank, op.getDims()),
        [&](OpBuilder &b, Location l, ValueRange args) {
          b.create<linalg::YieldOp>(
              l, combine(b, l, op.getKind(), args[1], widenHalfPrecision(b, l, args[0]),
                         op.getIgnoresNan()));
        });
    rewriter.replaceOp(op, convertTensorElements(rewriter, loc,
                                                 generic.getResult(0),
                                                 resultType.getElementType()));
    return success();
  }
};

struct ArgMaxToGeneric : OpConversionPattern<ArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType indexType = op.getType();
    int64_t rank = op.getOperand().getType().getRank(), axis = op.getAxis();
    Type valueElement = computeTypeOf(op.getOperand().getType().getElementType());
    auto valueType = indexType.clone(valueElement);
    Value bestValue = filledTensor(
        rewriter, loc, valueType,
        reductionIdentity(rewriter, loc, ReduceKind::max, valueElement));
    Value bestIndex = filledTensor(
        rewriter, loc, indexType,
        scalarConstant(rewriter, loc, indexType.getElementType(), 0));
    AffineMap reduced = droppingDims(rewriter, rank, {axis});
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), reduced,
                                reduced};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{valueType, indexType}, adaptor.getOperand(),
        ValueRange{bestValue, bestIndex}, maps,
        reductionIterators(rank, {axis}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = widenHalfPrecision(b, l, args[0]), best = args[1];
          Value better;
          if (isa<FloatType>(valueElement)) {
            // The first NaN wins, as in numpy; otherwise strictly greater,
            // so ties keep the first index: x > best or x is NaN (unordered
            // or greater), while best is not NaN. Two compares, where
            // `x > best || (isnan(x) && !isnan(best))` takes three and an or
            // (argmax along rows of 1024 f32 on Zen 4: 1.2x).
            Value greaterOrNan =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UGT, x, best);
            Value bestNotNan =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::ORD, best, best);
            better = b.create<arith::AndIOp>(l, greaterOrNan, bestNotNan);
          } else {
            better =
                b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sgt, x, best);
          }
          Value position = b.create<arith::IndexCastOp>(
              l, indexType.getElementType(), b.create<linalg::IndexOp>(l, axis));
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, better, x, best),
                            b.create<arith::SelectOp>(l, better, position,
                                                      args[2])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

// dot_general -> one contraction generic reading both operands in place:
// loops (batch..., lhs free..., contract..., rhs free...), each operand's
// map naming the loop of each of its dimensions, so a transposed operand
// costs no copy. The result is (batch..., lhs free..., rhs free...), as
// dot_general defines it. The innermost loop runs along the rhs free
// dimension, contiguous in B and C for a plain matmul, should the generic
// stay a loop nest; contractions the runtime's GEMM serves become calls
// (adjit-select-kernels).
struct DotGeneralToContraction : OpConversionPattern<DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType lhsType = op.getLhs().getType(),
                     rhsType = op.getRhs().getType(), resultType = op.getType();
    Type accElement = computeTypeOf(resultType.getElementType());
    ArrayRef<int64_t> lhsBatch = op.getLhsBatch(), rhsBatch = op.getRhsBatch(),
                      lhsContract = op.getLhsContract(),
                      rhsContract = op.getRhsContract();
    SmallVector<int64_t> lhsFree =
        freeDimensions(lhsType.getRank(), lhsBatch, lhsContract);
    SmallVector<int64_t> rhsFree =
        freeDimensions(rhsType.getRank(), rhsBatch, rhsContract);
    unsigned numBatch = lhsBatch.size(), numLhsFree = lhsFree.size(),
             numContract = lhsContract.size(), numRhsFree = rhsFree.size();
    unsigned numLoops = numBatch + numLhsFree + numContract + numRhsFree;
    unsigned firstLhsFree = numBatch, firstContract = numBatch + numLhsFree,
             firstRhsFree = firstContract + numContract;

    SmallVector<AffineExpr> lhsExprs(lhsType.getRank()),
        rhsExprs(rhsType.getRank()), resultExprs;
    auto loop = [&](unsigned d) { return rewriter.getAffineDimExpr(d); };
    for (unsigned b = 0; b < numBatch; ++b) {
      lhsExprs[lhsBatch[b]] = rhsExprs[rhsBatch[b]] = loop(b);
      resultExprs.push_back(loop(b));
    }
    for (unsigned f = 0; f < numLhsFree; ++f) {
      lhsExprs[lhsFree[f]] = loop(firstLhsFree + f);
      resultExprs.push_back(loop(firstLhsFree + f));
    }
    for (unsigned c = 0; c < numContract; ++c)
      lhsExprs[lhsContract[c]] = rhsExprs[rhsContract[c]] =
          loop(firstContract + c);
    for (unsigned f = 0; f < numRhsFree; ++f) {
      rhsExprs[rhsFree[f]] = loop(firstRhsFree + f);
      resultExprs.push_back(loop(firstRhsFree + f));
    }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, lhsExprs, ctx),
                                AffineMap::get(numLoops, 0, rhsExprs, ctx),
                                AffineMap::get(numLoops, 0, resultExprs, ctx)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(numLoops);
    for (unsigned c = 0; c < numContract; ++c)
      iterators[firstContract + c] = utils::IteratorType::reduction;

    Value lhs = convertTensorElements(rewriter, loc, adaptor.getLhs(), accElement);
    Value rhs = convertTensorElements(rewriter, loc, adaptor.getRhs(), accElement);
    auto productType = resultType.clone(accElement);
    Value init = filledTensor(rewriter, loc, productType,
                              scalarConstant(rewriter, loc, accElement, 0));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, productType, ValueRange{lhs, rhs}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product =
              floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, {args[0], args[1]});
          // A sum like any other: its order is unspecified (the GEMM
          // kernels block it), so a matrix-vector product vectorizes.
          b.create<linalg::YieldOp>(
              l, combine(b, l, ReduceKind::sum, args[2], product));
        });
    rewriter.replaceOp(op, convertTensorElements(rewriter, loc, generic.getResult(0),
                                                 resultType.getElementType()));
    return success();
  }
};

struct LowerAdjitToLinalgPass
    : adjit::impl::LowerAdjitToLinalgBase<LowerAdjitToLinalgPass> {
  using LowerAdjitToLinalgBase::LowerAdjitToLinalgBase;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, vector::VectorDialect>();
    target.addIllegalDialect<AdjitDialect>();
    // Kept until bufferization (adjit-erase-optimization-barriers), and the
    // growing stacks of while loops (bufferized by their own model).
    target.addLegalOp<OptimizationBarrierOp, ReserveRowOp>();
    RewritePatternSet patterns(context);
    patterns.add<ElementwiseToGeneric>(context);
    patterns.add<DynamicSliceToTensor, DynamicUpdateSliceToTensor>(context);
    patterns.add<
        ConstantToArith, StopGradientToOperand,
        IotaToGeneric, BroadcastToGeneric, ReshapeToTensor, TransposeToGeneric,
        SliceToTensor, ConcatenateToTensor, PadToTensor, GatherToGeneric,
        ScatterToLoops<ScatterAddOp>, ScatterToLoops<ScatterExtremumOp>, ReduceToGeneric,
        ArgMaxToGeneric,
        DotGeneralToContraction>(context);
    populateControlFlowToSCFPatterns(patterns);
    populateLinearAlgebraToLoopsPatterns(patterns, matrixVectorBits);
    populateSortToLoopsPatterns(patterns, parallelRows);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
