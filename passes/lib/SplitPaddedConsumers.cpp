// adjit-split-padded-consumers: elementwise generics that read padded
// tensors run box by box, reading each pad's source in place; the pads
// left are lowered to a copy and fills (see Passes.td for the policy).
#include "ElementwiseCost.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <map>

namespace mlir::adjit {
#define GEN_PASS_DEF_SPLITPADDEDCONSUMERS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// More boxes than this leave pieces too small to pay for their loops.
constexpr int64_t kMaxBoxes = 64;
// Producers computed again for a slice, at most this many levels up.
constexpr int kMaxRecomputedLevels = 8;

// A box of an iteration space or of a tensor: offsets and sizes per
// dimension.
struct Box {
  SmallVector<int64_t> offsets, sizes;

  int64_t elements() const {
    int64_t n = 1;
    for (int64_t size : sizes)
      n *= size;
    return n;
  }
  // The box of the operand that `map` (a projected permutation) reads.
  Box through(AffineMap map) const {
    Box box;
    for (AffineExpr expr : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(expr).getPosition();
      box.offsets.push_back(offsets[d]);
      box.sizes.push_back(sizes[d]);
    }
    return box;
  }
};

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
}

// A pad with static amounts whose body yields a value from outside it or a
// constant.
struct StaticPad {
  Value source, padding;
  SmallVector<int64_t> low, high;

  // Whether `box` (of the result) lies inside the source along every
  // dimension; boxes cut at the source's edges lie inside or outside.
  bool holdsSource(const Box &box) const {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(source.getType()).getShape();
    for (auto [d, offset] : llvm::enumerate(box.offsets))
      if (offset < low[d] || offset + box.sizes[d] > low[d] + shape[d])
        return false;
    return true;
  }
};

std::optional<StaticPad> staticPad(Value v) {
  auto pad = v.getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getSourceType().hasStaticShape() || !pad.getResultType().hasStaticShape() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return std::nullopt;
  Value padding = pad.getConstantPaddingValue();
  if (!padding)
    return std::nullopt;
  return StaticPad{pad.getSource(), padding, SmallVector<int64_t>(pad.getStaticLow()),
                   SmallVector<int64_t>(pad.getStaticHigh())};
}

// Slices made for one consumer's pieces, by value and box: each is made
// once, however many operands or producers read it.
class Slicer {
public:
  explicit Slicer(OpBuilder &b, Location loc) : b_(b), loc_(loc) {}

  // `box` of `v`. A cheap elementwise producer (ElementwiseCost.h) is
  // computed again on slices of its operands, so that the slice fuses with
  // whatever reads it instead of reading a full-size buffer; any other
  // value is sliced.
  Value sliceOf(Value v, const Box &box, int level = 0) {
    auto type = cast<RankedTensorType>(v.getType());
    if (llvm::all_of(box.offsets, [](int64_t o) { return o == 0; }) &&
        ArrayRef(box.sizes) == type.getShape())
      return v;
    std::vector<int64_t> key(box.offsets.begin(), box.offsets.end());
    key.insert(key.end(), box.sizes.begin(), box.sizes.end());
    Value &slice = made_[{v.getAsOpaquePointer(), std::move(key)}];
    if (!slice)
      slice = make(v, box, level);
    return slice;
  }

private:
  Value make(Value v, const Box &box, int level) {
    OpBuilder &b = b_;
    auto type = cast<RankedTensorType>(v.getType());
    // (A producer outside the pieces' block, before a loop, stays there.)
    auto producer = v.getDefiningOp<linalg::GenericOp>();
    if (producer && producer->getBlock() == b.getInsertionBlock() &&
        level < kMaxRecomputedLevels && adjit::isCheapElementwise(producer) &&
        producer.hasPureTensorSemantics() && !producer.hasIndexSemantics() &&
        !producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0))) {
      AffineMap resultMap = producer.getIndexingMapMatchingResult(cast<OpResult>(v));
      if (resultMap.isPermutation()) {
        Box loops = box.through(inversePermutation(resultMap));
        SmallVector<Value> inputs;
        for (OpOperand *input : producer.getDpsInputOperands())
          inputs.push_back(isa<RankedTensorType>(input->get().getType())
                               ? sliceOf(input->get(),
                                         loops.through(producer.getMatchingIndexingMap(input)),
                                         level + 1)
                               : input->get());
        Value init = b.create<tensor::EmptyOp>(loc_, box.sizes, type.getElementType());
        auto computed = b.create<linalg::GenericOp>(
            loc_, TypeRange{type.clone(box.sizes)}, inputs, ValueRange{init},
            producer.getIndexingMapsArray(), producer.getIteratorTypesArray());
        IRMapping mapping;
        producer.getRegion().cloneInto(&computed.getRegion(), mapping);
        return computed.getResult(0);
      }
    }
    SmallVector<int64_t> strides(type.getRank(), 1);
    return b.create<tensor::ExtractSliceOp>(loc_, v, indexAttrs(b, box.offsets),
                                            indexAttrs(b, box.sizes), indexAttrs(b, strides));
  }

  OpBuilder &b_;
  Location loc_;
  std::map<std::pair<void *, std::vector<int64_t>>, Value> made_;
};

// The boxes that the edges of `pads` cut the iteration space `ranges`
// into, the largest first: its piece then writes into the original
// outputs, defined before every piece, which lets bufferization give it
// their buffers even when later passes merge it with smaller pieces whose
// slices of the results are defined after it.
SmallVector<Box> boxesCutBy(ArrayRef<int64_t> ranges, ArrayRef<StaticPad> pads) {
  SmallVector<SmallVector<int64_t>> cuts;
  for (auto [d, range] : llvm::enumerate(ranges)) {
    SmallVector<int64_t> edges{0, range};
    for (const StaticPad &pad : pads) {
      edges.push_back(pad.low[d]);
      edges.push_back(range - pad.high[d]);
    }
    llvm::sort(edges);
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    cuts.push_back(std::move(edges));
  }
  SmallVector<Box> boxes{Box{}};
  for (ArrayRef<int64_t> edges : cuts) {
    SmallVector<Box> longer;
    for (const Box &box : boxes)
      for (auto [begin, end] : llvm::zip(edges.drop_back(), edges.drop_front())) {
        Box next = box;
        next.offsets.push_back(begin);
        next.sizes.push_back(end - begin);
        longer.push_back(std::move(next));
      }
    boxes = std::move(longer);
    if (static_cast<int64_t>(boxes.size()) > kMaxBoxes)
      return {};
  }
  auto largest = llvm::max_element(
      boxes, [](const Box &a, const Box &b) { return a.elements() < b.elements(); });
  std::rotate(boxes.begin(), largest, std::next(largest));
  return boxes;
}

// Splits `op` into one generic per box, if it reads a pad it can read in
// place: all-parallel, operands read through projected permutations,
// results written through the identity, the pad read through the identity.
void splitAtPads(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() == 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }) ||
      !llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return op.getMatchingIndexingMap(&init).isIdentity();
      }))
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return;
  // A loop's new carry stays whole: adjit-write-into-dead-inputs lets it
  // overwrite the old one in place, where pieces would write a fresh
  // tensor that the loop must copy into a buffer of its own every step.
  if (llvm::any_of(op->getUsers(), [](Operation *user) {
        return isa<RegionBranchTerminatorOpInterface>(user) && !isa<func::ReturnOp>(user);
      }))
    return;
  // The pad each input reads through the identity, if any.
  SmallVector<std::optional<StaticPad>> padOf;
  SmallVector<StaticPad> pads;
  for (OpOperand *input : op.getDpsInputOperands()) {
    std::optional<StaticPad> pad;
    if (op.getMatchingIndexingMap(input).isIdentity())
      pad = staticPad(input->get());
    padOf.push_back(pad);
    if (pad)
      pads.push_back(*pad);
  }
  if (pads.empty())
    return;
  SmallVector<Box> boxes = boxesCutBy(ranges, pads);
  if (boxes.empty())
    return;

  OpBuilder b(op);
  Location loc = op.getLoc();
  Slicer slicer(b, loc);
  SmallVector<Value> results = op.getDpsInits();
  for (const Box &box : boxes) {
    // Each input's slice, or its pad's padding value where the box holds
    // only padding.
    SmallVector<Value> inputs, paddingOf(padOf.size());
    SmallVector<AffineMap> maps;
    for (auto [index, input] : llvm::enumerate(op.getDpsInputOperands())) {
      AffineMap map = op.getMatchingIndexingMap(input);
      Value value = input->get();
      if (const std::optional<StaticPad> &pad = padOf[index]) {
        if (!pad->holdsSource(box)) {
          paddingOf[index] = pad->padding;
          continue;
        }
        Box inSource = box;
        for (auto [offset, low] : llvm::zip(inSource.offsets, pad->low))
          offset -= low;
        inputs.push_back(slicer.sliceOf(pad->source, inSource));
      } else {
        inputs.push_back(isa<RankedTensorType>(value.getType())
                             ? slicer.sliceOf(value, box.through(map))
                             : value);
      }
      maps.push_back(map);
    }
    SmallVector<Value> inits;
    SmallVector<Type> types;
    for (Value dest : results) {
      inits.push_back(b.create<tensor::ExtractSliceOp>(
          loc, dest, indexAttrs(b, box.offsets), indexAttrs(b, box.sizes),
          indexAttrs(b, SmallVector<int64_t>(box.sizes.size(), 1))));
      types.push_back(inits.back().getType());
      maps.push_back(b.getMultiDimIdentityMap(box.sizes.size()));
    }
    auto piece = b.create<linalg::GenericOp>(
        loc, types, inputs, inits, maps, op.getIteratorTypesArray(),
        [&](OpBuilder &nested, Location, ValueRange arguments) {
          IRMapping mapping;
          Block *body = op.getBody();
          unsigned next = 0;
          for (auto [index, padding] : llvm::enumerate(paddingOf)) {
            Value replacement = padding;
            if (!padding)
              replacement = arguments[next++];
            else if (Operation *constant = padding.getDefiningOp();
                     constant && matchPattern(padding, m_Constant()))
              replacement = nested.clone(*constant)->getResult(0);
            mapping.map(body->getArgument(index), replacement);
          }
          for (unsigned k = 0; k < op.getNumDpsInits(); ++k)
            mapping.map(body->getArgument(op.getNumDpsInputs() + k), arguments[next++]);
          for (Operation &nestedOp : body->without_terminator())
            nested.clone(nestedOp, mapping);
          nested.create<linalg::YieldOp>(
              loc, llvm::map_to_vector(body->getTerminator()->getOperands(),
                                       [&](Value v) { return mapping.lookupOrDefault(v); }));
        });
    for (auto [k, result] : llvm::enumerate(piece.getResults()))
      results[k] = b.create<tensor::InsertSliceOp>(
          loc, result, results[k], indexAttrs(b, box.offsets), indexAttrs(b, box.sizes),
          indexAttrs(b, SmallVector<int64_t>(box.sizes.size(), 1)));
  }
  op->replaceAllUsesWith(results);
  op->erase();
}

// A pad left: its source copied into an empty tensor, and only the slabs
// around it filled (filling the whole result first would write the
// source's box twice).
void lowerPad(tensor::PadOp pad, Value padding) {
  OpBuilder b(pad);
  Location loc = pad.getLoc();
  if (Operation *constant = padding.getDefiningOp(); constant && pad->isAncestor(constant))
    padding = b.clone(*constant)->getResult(0); // a constant the pad's body yields
  RankedTensorType type = pad.getResultType();
  SmallVector<int64_t> ones(type.getRank(), 1);
  auto filled = [&](ArrayRef<int64_t> shape) {
    Value empty = b.create<tensor::EmptyOp>(loc, shape, type.getElementType());
    return b.create<linalg::FillOp>(loc, padding, empty).getResult(0);
  };
  Value result = b.create<tensor::InsertSliceOp>(
      loc, pad.getSource(), b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType()),
      indexAttrs(b, pad.getStaticLow()), indexAttrs(b, pad.getSourceType().getShape()),
      indexAttrs(b, ones));
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t extent = type.getDimSize(d), low = pad.getStaticLow()[d], high = pad.getStaticHigh()[d];
    for (auto [start, size] : {std::pair{int64_t(0), low}, std::pair{extent - high, high}}) {
      if (size <= 0)
        continue;
      SmallVector<int64_t> shape(type.getShape()), offsets(type.getRank(), 0);
      shape[d] = size;
      offsets[d] = start;
      result = b.create<tensor::InsertSliceOp>(loc, filled(shape), result, indexAttrs(b, offsets),
                                               indexAttrs(b, shape), indexAttrs(b, ones));
    }
  }
  pad.replaceAllUsesWith(result);
  pad.erase();
}

struct SplitPaddedConsumersPass
    : adjit::impl::SplitPaddedConsumersBase<SplitPaddedConsumersPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> consumers;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (llvm::any_of(op.getDpsInputs(), [](Value v) { return v.getDefiningOp<tensor::PadOp>(); }))
        consumers.push_back(op);
    });
    for (linalg::GenericOp op : consumers)
      splitAtPads(op);
    SmallVector<tensor::PadOp> pads;
    getOperation()->walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads) {
      if (pad->use_empty()) {
        pad.erase();
        continue;
      }
      if (std::optional<StaticPad> padded = staticPad(pad.getResult()))
        lowerPad(pad, padded->padding);
    }
  }
};

} // namespace
