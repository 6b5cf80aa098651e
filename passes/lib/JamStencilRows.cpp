// adjit-jam-stencil-rows: a row loop whose passes read rows of one buffer
// at several row offsets (a stencil) computes `rows` rows per pass over
// the columns (see the pass description in Passes.td).

#include "BufferUses.h"
#include "RowLoops.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_JAMSTENCILROWS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// A part of the row loop's body after its row slice, run for every row of
// a block before the next part: an inner loop over the columns, jammed
// (one loop computes every row of the block at each step) where it reads
// shifted rows, or ops cloned row after row.
struct Segment {
  SmallVector<Operation *> ops;
  bool jammed = false;
};

// A row loop in the form this pass rewrites: its body is the ops that
// compute the row's views and indices (`slice`: no regions, no effects but
// loads), then its segments.
struct StencilRows {
  scf::ForOp rows;
  SmallVector<Operation *> slice;
  SmallVector<Segment> segments;
};

// The static layout of a 2-D or higher view's source: its strides, the
// innermost 1, and its offset in its buffer; none where any is dynamic.
struct SourceLayout {
  SmallVector<int64_t> strides;
  int64_t offset;
};

std::optional<SourceLayout> sourceLayoutOf(memref::SubViewOp view) {
  auto type = dyn_cast<MemRefType>(view.getSource().getType());
  SourceLayout layout;
  if (!type || type.getRank() < 2 ||
      failed(getStridesAndOffset(type, layout.strides, layout.offset)) ||
      ShapedType::isDynamic(layout.offset) || layout.strides.back() != 1 ||
      layout.strides.front() <= 0 ||
      llvm::any_of(layout.strides, [](int64_t stride) { return ShapedType::isDynamic(stride); }))
    return std::nullopt;
  return layout;
}

// The row of its buffer at which `view`'s source starts: the source's
// offset in whole rows (its outermost stride).
std::optional<int64_t> firstRowOfSource(memref::SubViewOp view) {
  std::optional<SourceLayout> layout = sourceLayoutOf(view);
  if (!layout)
    return std::nullopt;
  return layout->offset / layout->strides.front();
}

// Whether `loop` reads, through views in `slice`, one buffer from three or
// more different rows (x[i - 1], x[i] and x[i + 1] of a stencil): rows that
// neighbouring output rows share. Views that differ only in their columns
// (x[i, 1:] and x[i, :-1]) share none. (Two rows, x[i + 1] - x[i], streamed
// 0.88 as fast jammed in blocks of 4 on Zen 4, at 2048 and 4096 rows of as
// many floats; three 1.2-1.7x as fast.)
bool readsShiftedRows(scf::ForOp loop, ArrayRef<Operation *> slice) {
  llvm::DenseMap<Value, SmallVector<int64_t>> firstRows;
  for (Operation *op : slice) {
    auto view = dyn_cast<memref::SubViewOp>(op);
    if (!view || llvm::none_of(view->getUsers(),
                               [&](Operation *user) { return loop->isAncestor(user); }))
      continue;
    std::optional<int64_t> firstRow = firstRowOfSource(view);
    if (!firstRow)
      continue;
    SmallVector<int64_t> &rows = firstRows[adjit::viewedBuffer(view.getSource())];
    if (!llvm::is_contained(rows, *firstRow))
      rows.push_back(*firstRow);
    if (rows.size() == 3)
      return true;
  }
  return false;
}

// Whether `view` is row `iv` of a source from outside `rows`: `view`s of one
// source at one row index never overlap from one row to the next.
bool isRowOfInvariantSource(memref::SubViewOp view, scf::ForOp rows) {
  ArrayRef<int64_t> sizes = view.getStaticSizes();
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  return rows.isDefinedOutsideOfLoop(view.getSource()) && !sizes.empty() && sizes.front() == 1 &&
         offsets.front() == OpFoldResult(rows.getInductionVar());
}

// Where one part of the body reads or writes a buffer.
struct Access {
  size_t segment;
  Value through; // the value the op names
  bool write;
};

// Whether running each segment for every row of a block before the next
// segment (and a jammed loop's rows step by step) computes what the rows in
// order did: each buffer that the body writes is either read and written by
// one segment that is not jammed (its rows keep their order), or never read,
// and written only through rows of one source at the row index (the rows'
// writes never meet). (The slice loads only buffers the body does not
// write: matchStencilRows keeps the others in their segments.)
bool reorderingIsSafe(const StencilRows &match) {
  llvm::MapVector<Value, SmallVector<Access>> accesses;
  for (auto [index, segment] : llvm::enumerate(match.segments))
    for (Operation *op : segment.ops) {
      bool known = adjit::allMemoryEffects(op, [&](const MemoryEffects::EffectInstance &effect) {
        Value value = effect.getValue();
        bool write = isa<MemoryEffects::Write>(effect.getEffect());
        if (!value || (!write && !isa<MemoryEffects::Read>(effect.getEffect())))
          return false; // allocations and frees stay one per row
        accesses[adjit::viewedBuffer(value)].push_back({index, value, write});
        return true;
      });
      if (!known)
        return false;
    }
  for (auto &[buffer, uses] : accesses) {
    if (llvm::none_of(uses, [](const Access &access) { return access.write; }))
      continue;
    size_t first = uses.front().segment;
    if (!match.segments[first].jammed &&
        llvm::all_of(uses, [&](const Access &access) { return access.segment == first; }))
      continue;
    auto rowView = [&](const Access &access) {
      auto view = access.through.getDefiningOp<memref::SubViewOp>();
      return view && llvm::is_contained(match.slice, view.getOperation()) &&
                     isRowOfInvariantSource(view, match.rows)
                 ? view.getSource()
                 : Value();
    };
    Value source = rowView(uses.front());
    if (!source || llvm::any_of(uses, [&](const Access &access) {
          return !access.write || rowView(access) != source;
        }))
      return false;
  }
  return true;
}

std::optional<StencilRows> matchStencilRows(scf::ForOp rows) {
  if (adjit::constantStep(rows) != 1 || rows.getNumResults() != 0)
    return std::nullopt;
  StencilRows match{rows, {}, {}};
  // The buffers the body writes: a load from one stays in its place.
  SmallVector<Value> written;
  if (!adjit::allMemoryEffects(rows, [&](const MemoryEffects::EffectInstance &effect) {
        if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue())
          written.push_back(adjit::viewedBuffer(effect.getValue()));
        return true;
      }))
    return std::nullopt;
  auto readsUnwritten = [&](Operation &op) {
    auto load = dyn_cast<memref::LoadOp>(op);
    return load && !llvm::is_contained(written, adjit::viewedBuffer(load.getMemRef()));
  };
  // The slice: ops without regions or effects (but loads of buffers the
  // body does not write) that read only values from outside, the row index
  // and each other.
  llvm::SmallPtrSet<Operation *, 32> inSlice;
  for (Operation &op : rows.getBody()->without_terminator()) {
    bool sliceOp = op.getNumRegions() == 0 && (isMemoryEffectFree(&op) || readsUnwritten(op)) &&
                   llvm::all_of(op.getOperands(), [&](Value operand) {
                     Operation *definition = operand.getDefiningOp();
                     return rows.isDefinedOutsideOfLoop(operand) ||
                            operand == rows.getInductionVar() ||
                            (definition && inSlice.contains(definition));
                   });
    if (sliceOp) {
      inSlice.insert(&op);
      match.slice.push_back(&op);
      continue;
    }
    // The other ops in segments: a loop on its own, runs of ops without
    // regions together.
    if (op.getNumRegions() != 0 || match.segments.empty() ||
        match.segments.back().ops.front()->getNumRegions() != 0)
      match.segments.emplace_back();
    match.segments.back().ops.push_back(&op);
  }
  bool shiftedRows = false;
  for (Segment &segment : match.segments) {
    auto loop = dyn_cast<scf::ForOp>(segment.ops.front());
    if (!loop || !readsShiftedRows(loop, match.slice))
      continue;
    // One loop over the columns serves every row: its bounds may not depend
    // on the row, and it has no loops inside.
    bool nested = false;
    loop.getBody()->walk([&](Operation *op) { nested |= op->getNumRegions() != 0; });
    if (nested || !llvm::all_of(ValueRange{loop.getLowerBound(), loop.getUpperBound(),
                                           loop.getStep()},
                                [&](Value bound) { return rows.isDefinedOutsideOfLoop(bound); }))
      continue;
    segment.jammed = shiftedRows = true;
  }
  if (!shiftedRows || !reorderingIsSafe(match))
    return std::nullopt;
  return match;
}

// Where a row view of the body starts in its buffer, for row `k` of a
// block: `memref.subview %source[%r, c...] [1, ...]` of a source with a
// static layout starts at the buffer's element `start + k * rowStride`
// plus `%r * rowStride`, %r the original row offset (the loop's row index,
// or an expression of it).
struct RowStart {
  Value buffer, rowOffset;
  int64_t rowStride, start;
};

// Whether `value` is the row index `iv` plus values from outside `rows`:
// one more for each next row of a block.
bool isRowIndexPlusInvariant(Value value, scf::ForOp rows) {
  if (value == rows.getInductionVar())
    return true;
  auto sum = value.getDefiningOp<arith::AddIOp>();
  if (!sum || rows.isDefinedOutsideOfLoop(sum))
    return false;
  Value lhs = sum.getLhs(), rhs = sum.getRhs();
  return (rows.isDefinedOutsideOfLoop(lhs) && isRowIndexPlusInvariant(rhs, rows)) ||
         (rows.isDefinedOutsideOfLoop(rhs) && isRowIndexPlusInvariant(lhs, rows));
}

std::optional<RowStart> rowStartOf(Value value, scf::ForOp rows) {
  auto view = value.getDefiningOp<memref::SubViewOp>();
  std::optional<SourceLayout> layout = view ? sourceLayoutOf(view) : std::nullopt;
  if (!layout || view.getStaticSizes().front() != 1)
    return std::nullopt;
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  if (!isa<Value>(offsets.front()) || !isRowIndexPlusInvariant(cast<Value>(offsets.front()), rows))
    return std::nullopt;
  RowStart row{adjit::viewedBuffer(view.getSource()), cast<Value>(offsets.front()),
               layout->strides.front(), layout->offset};
  for (size_t d = 1; d < offsets.size(); ++d) {
    std::optional<int64_t> constant = getConstantIntValue(offsets[d]);
    if (!constant)
      return std::nullopt;
    row.start += *constant * layout->strides[d];
  }
  return row;
}

// A vector read of a row view at [0, indices...]: its row's start for row
// `k`, the other indices (in the jammed loop), and how it reads, the
// view's shape included (it bounds what a read not in bounds pads).
using ReadKey = std::tuple<Value, Value, int64_t, int64_t, SmallVector<Value>, Type, Type, Value,
                           Attribute, AffineMap>;

std::optional<ReadKey> readKey(vector::TransferReadOp read, int64_t k, scf::ForOp rows,
                               IRMapping &mapping) {
  std::optional<RowStart> row = rowStartOf(read.getSource(), rows);
  if (!row || read.getMask() || getConstantIntValue(read.getIndices().front()) != 0)
    return std::nullopt;
  SmallVector<Value> indices;
  for (Value index : read.getIndices().drop_front())
    indices.push_back(mapping.lookupOrDefault(index));
  return ReadKey{row->buffer,
                 row->rowOffset,
                 row->rowStride,
                 row->start + k * row->rowStride,
                 indices,
                 read.getSource().getType(),
                 read.getType(),
                 mapping.lookupOrDefault(read.getPadding()),
                 read.getInBoundsAttr(),
                 read.getPermutationMap()};
}

// One loop over the columns for `loop`'s rows of a block: at each step
// each row's body in turn, with its own carried values. A vector read that
// an earlier row of the block made at the same address is that read's
// value: no buffer that the loop reads is written in the body
// (reorderingIsSafe), and LLVM cannot merge them across the rows' stores.
void jamLoop(OpBuilder &b, scf::ForOp rows, scf::ForOp loop, MutableArrayRef<IRMapping> copies) {
  SmallVector<Value> inits;
  for (IRMapping &mapping : copies)
    for (Value init : loop.getInitArgs())
      inits.push_back(mapping.lookupOrDefault(init));
  IRMapping &first = copies.front();
  auto jammed = b.create<scf::ForOp>(loop.getLoc(), first.lookupOrDefault(loop.getLowerBound()),
                                     first.lookupOrDefault(loop.getUpperBound()),
                                     first.lookupOrDefault(loop.getStep()), inits);
  // (Built without carried values, the loop comes with its yield.)
  if (!jammed.getBody()->empty())
    jammed.getBody()->getTerminator()->erase();
  OpBuilder inLoop = OpBuilder::atBlockEnd(jammed.getBody());
  size_t carried = loop.getInitArgs().size();
  SmallVector<Value> yielded;
  SmallVector<std::pair<ReadKey, Value>> reads; // a few per row: searched in turn
  for (auto [k, mapping] : llvm::enumerate(copies)) {
    mapping.map(loop.getInductionVar(), jammed.getInductionVar());
    for (size_t i = 0; i < carried; ++i)
      mapping.map(loop.getRegionIterArgs()[i], jammed.getRegionIterArgs()[k * carried + i]);
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto read = dyn_cast<vector::TransferReadOp>(op);
      std::optional<ReadKey> key =
          read ? readKey(read, static_cast<int64_t>(k), rows, mapping) : std::nullopt;
      auto found = key ? llvm::find_if(reads, [&](const auto &made) { return made.first == *key; })
                       : reads.end();
      if (found != reads.end()) {
        mapping.map(read.getResult(), found->second);
        continue;
      }
      Operation *clone = inLoop.clone(op, mapping);
      if (key)
        reads.emplace_back(*key, clone->getResult(0));
    }
    for (Value value : loop.getBody()->getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(value));
  }
  inLoop.create<scf::YieldOp>(loop.getLoc(), yielded);
  for (auto [k, mapping] : llvm::enumerate(copies))
    for (size_t i = 0; i < carried; ++i)
      mapping.map(loop.getResult(i), jammed.getResult(k * carried + i));
}

// Rewrites `match` into a loop over blocks of `count` rows, each segment
// run for all of them in turn, and a loop over the rows left.
void jam(const StencilRows &match, int64_t count) {
  scf::ForOp rows = match.rows;
  std::optional<int64_t> lower = getConstantIntValue(rows.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(rows.getUpperBound());
  if (!lower || !upper || *upper - *lower < count)
    return;
  int64_t jammedEnd = *lower + (*upper - *lower) / count * count;
  Location loc = rows.getLoc();
  OpBuilder b(rows);
  auto blocks = b.create<scf::ForOp>(loc, rows.getLowerBound(),
                                     b.create<arith::ConstantIndexOp>(loc, jammedEnd),
                                     b.create<arith::ConstantIndexOp>(loc, count));
  b.setInsertionPointToStart(blocks.getBody());
  SmallVector<IRMapping> copies(count);
  for (int64_t k = 0; k < count; ++k) {
    Value row = blocks.getInductionVar();
    if (k > 0)
      row = b.create<arith::AddIOp>(loc, row, b.create<arith::ConstantIndexOp>(loc, k));
    adjit::cloneRowSlice(b, rows, match.slice, row, copies[k]);
  }
  for (const Segment &segment : match.segments) {
    if (segment.jammed) {
      jamLoop(b, rows, cast<scf::ForOp>(segment.ops.front()), copies);
      continue;
    }
    for (IRMapping &mapping : copies)
      for (Operation *op : segment.ops)
        b.clone(*op, mapping);
  }

  // The rows left keep the original loop, from the first row not jammed.
  if (jammedEnd == *upper) {
    rows.erase();
    return;
  }
  OpBuilder before(rows);
  rows.getLowerBoundMutable().assign(before.create<arith::ConstantIndexOp>(loc, jammedEnd));
}

struct JamStencilRowsPass : adjit::impl::JamStencilRowsBase<JamStencilRowsPass> {
  using JamStencilRowsBase::JamStencilRowsBase;

  void runOnOperation() override {
    if (rows < 1) {
      getOperation().emitError("adjit-jam-stencil-rows: rows must be positive, got ")
          << static_cast<int64_t>(rows);
      return signalPassFailure();
    }
    if (rows == 1)
      return;
    adjit::forEachLoopInnerFirst(getOperation(), [&](scf::ForOp loop) {
      if (std::optional<StencilRows> match = matchStencilRows(loop))
        jam(*match, rows);
    });
  }
};

} // namespace
