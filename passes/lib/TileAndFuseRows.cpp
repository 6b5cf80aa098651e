// Row-blocked tile and fuse: groups of generics that share their leading
// (row) loop run block of rows by block of rows, so that intermediates live
// in the cache instead of in full-size buffers, and chunks of rows run on
// separate threads. The policy (what joins a group, block and chunk sizes)
// is the first section of this file; the rewriting is the second.

#include "adjit/Passes/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"

#include <unistd.h>

namespace mlir::adjit {
#define GEN_PASS_DEF_TILEANDFUSEROWS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// ------------------------------------------------------------- policy ----

// The cache line of x86-64 CPUs: parallel chunks keep what each one
// writes on lines of its own.
constexpr int64_t kCacheLineBytes = 64;

// How a generic's operand is indexed by the row loop (loop 0): not at all,
// as one of its dimensions (`dim`: 0 for the operand's leading one), or in
// a way a block of rows cannot slice (a sum of loops, several dimensions).
struct RowAccess {
  enum Kind { none, sliced, other } kind = none;
  unsigned dim = 0;

  bool leading() const { return kind == sliced && dim == 0; }
};

RowAccess rowAccess(AffineMap map) {
  RowAccess access;
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isFunctionOfDim(0))
      continue;
    if (access.kind != RowAccess::none || !isa<AffineDimExpr>(expr))
      return {RowAccess::other};
    access = {RowAccess::sliced, static_cast<unsigned>(position)};
  }
  return access;
}

bool reducesRows(linalg::GenericOp op) {
  return op.getIteratorTypesArray().front() == utils::IteratorType::reduction;
}

// The extent of the row loop of a generic that can run one block of rows at
// a time: every operand reads row r of the block from its own row r (or
// does not depend on the row), and a reduction over the rows accumulates
// into an output that does not depend on them. GEMM-served contractions
// stay whole (the kernel blocks them itself), as do bodies that read loop
// indices (a block would see its own, not the global, row index).
std::optional<int64_t> blockableRows(linalg::GenericOp op) {
  if (op.getLibraryCallAttr() || op.hasIndexSemantics() ||
      !op.hasPureTensorSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.front() < 2)
    return std::nullopt;
  bool reduced = reducesRows(op);
  for (OpOperand &operand : op->getOpOperands()) {
    RowAccess access = rowAccess(op.getMatchingIndexingMap(&operand));
    if (access.kind == RowAccess::other)
      return std::nullopt;
    // Inputs may read the row as any dimension (a transposed operand);
    // outputs have it first, or not at all when reduced over.
    bool outputFits = reduced ? access.kind == RowAccess::none : access.leading();
    if (op.isDpsInit(&operand) && !outputFits)
      return std::nullopt;
  }
  return ranges.front();
}

// The combining operation of a reduction over the rows, when it has a
// neutral element so that chunks can start from it and be combined after.
struct Combiner {
  Operation *op = nullptr;
  Value accumulator, value; // the operands: the output block argument, the new value
};

std::optional<Combiner> chunkableCombiner(linalg::GenericOp op, unsigned result) {
  SmallVector<Operation *> combiners;
  Value value = matchReduction(op.getRegionOutputArgs(), result, combiners);
  if (!value || combiners.size() != 1 || combiners.front()->getNumOperands() != 2 ||
      combiners.front()->getNumResults() != 1 || !arith::getNeutralElement(combiners.front()))
    return std::nullopt;
  // Partial sums change the order of a float sum or product: only where the
  // op allows reassociation (the tracer's reductions do). min and max, and
  // integer arithmetic, give the same result in any order.
  if (isa<arith::AddFOp, arith::MulFOp>(combiners.front())) {
    auto fastmath = dyn_cast<arith::ArithFastMathInterface>(combiners.front());
    if (!fastmath || !arith::bitEnumContainsAll(fastmath.getFastMathFlagsAttr().getValue(),
                                                arith::FastMathFlags::reassoc))
      return std::nullopt;
  }
  return Combiner{combiners.front(), op.getRegionOutputArgs()[result], value};
}

// Chunks need every reduction over the rows to combine partial results.
bool reductionsCombine(ArrayRef<linalg::GenericOp> members) {
  return llvm::all_of(members, [](linalg::GenericOp member) {
    return !reducesRows(member) ||
           llvm::all_of(llvm::seq(member.getNumDpsInits()), [&](int64_t result) {
             return chunkableCombiner(member, result).has_value();
           });
  });
}

struct BlockPlan {
  int64_t blockRows = 1; // rows per block
  int64_t chunks = 1;    // parallel chunks of whole blocks (1: one loop)
  // A member's output that starts as a fill starts as a fill of the block's
  // rows instead of as the block's rows of the filled tensor: on a GPU, the
  // whole fill would be a launch of its own and a read per block.
  bool fillBlocks = false;
};

int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, getElementTypeOrSelf(type).getIntOrFloatBitWidth() / 8);
}

// adjit-vectorize reads an input contiguous along the rows but indexed by
// the innermost loop (a transpose) in square tiles of up to 16 rows: such
// a group's blocks are whole tiles, even past the cache budget (a tile's
// rows are used as soon as they are read).
constexpr int64_t kTransposedTileRows = 16;

bool readsRowsTransposed(linalg::GenericOp op) {
  unsigned inner = op.getNumLoops() - 1;
  return inner > 0 && llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
           AffineMap map = op.getMatchingIndexingMap(operand);
           return map.getNumResults() > 0 && map.getResults().back() == getAffineDimExpr(0, op.getContext()) &&
                  map.isFunctionOfDim(inner);
         });
}

// The elements of the narrowest operand of `members` in a cache line.
int64_t elementsPerLine(ArrayRef<linalg::GenericOp> members) {
  int64_t narrowest = kCacheLineBytes;
  for (linalg::GenericOp member : members)
    for (Value operand : member->getOperands())
      if (getElementTypeOrSelf(operand.getType()).isIntOrFloat())
        narrowest = std::min(narrowest, elementBytes(operand.getType()));
  return kCacheLineBytes / narrowest;
}

// Blocks as large as the cache budget allows (a divisor of the rows when
// one is close, so that no tail block is needed; whole tiles of a
// transposed input; whole cache lines of one-dimensional operands, whose
// rows are elements, where the budget holds a line: an elementwise op over
// (N, 3) points flattened, where blocks of 1705 elements left every vector
// misaligned); chunks when there is
// enough work for each, as many as allowed and dividing the blocks evenly.
// Nothing here depends on the thread count: results do not either.
BlockPlan planBlocks(ArrayRef<linalg::GenericOp> members, int64_t rows,
                     int64_t cacheBytes, int64_t minChunkWork,
                     int64_t maxChunks, bool chunkable) {
  int64_t bytesPerRow = 0, workPerRow = 0;
  for (linalg::GenericOp member : members) {
    int64_t iterations = 1;
    SmallVector<int64_t> ranges = member.getStaticLoopRanges();  // outlives the loop
    for (int64_t extent : ArrayRef(ranges).drop_front())
      iterations *= extent;
    workPerRow += iterations;
    for (OpOperand &operand : member->getOpOperands()) {
      if (rowAccess(member.getMatchingIndexingMap(&operand)).kind != RowAccess::sliced)
        continue;
      auto type = cast<ShapedType>(operand.get().getType());
      bytesPerRow += type.getNumElements() / rows * elementBytes(type);
    }
  }
  BlockPlan plan;
  int64_t budgetRows = std::clamp<int64_t>(cacheBytes / std::max<int64_t>(1, bytesPerRow), 1, rows);
  int64_t multiple = 1;
  if (rows >= kTransposedTileRows && llvm::any_of(members, readsRowsTransposed)) {
    multiple = kTransposedTileRows;
    budgetRows = std::max(multiple, budgetRows / multiple * multiple);
  } else if (llvm::all_of(members, [](linalg::GenericOp m) { return m.getNumLoops() == 1; }) &&
             budgetRows >= elementsPerLine(members)) {
    multiple = elementsPerLine(members);
    budgetRows = budgetRows / multiple * multiple;
  }
  plan.blockRows = budgetRows;
  for (int64_t candidate = budgetRows; candidate * 2 > budgetRows; candidate -= multiple)
    if (rows % candidate == 0) {
      plan.blockRows = candidate;
      break;
    }
  int64_t blocks = rows / plan.blockRows;
  int64_t mostChunks = chunkable ? std::min(maxChunks, rows * workPerRow / std::max<int64_t>(1, minChunkWork)) : 1;
  for (int64_t candidate = std::min(mostChunks, blocks); candidate >= 2; --candidate)
    if (blocks % candidate == 0) {
      plan.chunks = candidate;
      break;
    }
  return plan;
}

// A GPU thread block shares each row among its threads, which pays for a
// group with a reduction over at least a warp's worth of each row's
// elements (the block-wide all-reduce); narrower rows stay with one kernel
// per generic, a thread per row. Rows wider than 64 elements per thread of
// a block stay too: few long rows would leave most multiprocessors idle,
// where a kernel per generic splits each row over several blocks.
constexpr int64_t kMinGpuRowReduction = 32, kMaxGpuRowWork = 16384;

// The loop iterations of a generic for one row, and of its reductions.
std::pair<int64_t, int64_t> rowWork(linalg::GenericOp op) {
  int64_t all = 1, reduced = 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [range, iterator] :
       llvm::zip(ArrayRef(ranges).drop_front(), ArrayRef(iterators).drop_front())) {
    all *= range;
    if (iterator == utils::IteratorType::reduction)
      reduced *= range;
  }
  return {all, reduced};
}

bool reducesWithinRows(linalg::GenericOp op) {
  return !reducesRows(op) && rowWork(op).second >= kMinGpuRowReduction;
}

// On a GPU each chunk is a thread block taking its rows one at a time: as
// many chunks as divide the rows, up to `maxChunks`. Without enough of
// them (a prime row count), or without partials to combine, the group
// would leave the GPU idle, and it is not formed.
std::optional<BlockPlan> planGpuBlocks(ArrayRef<linalg::GenericOp> members, int64_t rows,
                                       int64_t maxChunks, bool chunkable) {
  if (members.size() < 2 || !chunkable || !llvm::any_of(members, reducesWithinRows) ||
      llvm::any_of(members,
                   [](linalg::GenericOp op) { return rowWork(op).first > kMaxGpuRowWork; }))
    return std::nullopt;
  int64_t wanted = std::min(rows, maxChunks);
  for (int64_t candidate = wanted; candidate * 2 > wanted; --candidate)
    if (rows % candidate == 0)
      return BlockPlan{/*blockRows=*/1, /*chunks=*/candidate, /*fillBlocks=*/true};
  return std::nullopt;
}

// ------------------------------------------------------------- groups ----

struct RowGroup {
  int64_t rows = 0;
  SmallVector<linalg::GenericOp> members;
  llvm::SmallPtrSet<Operation *, 16> memberSet;
  // Ops between the first and the last member that use the group's
  // results, in block order: they move after the loop that replaces the
  // group.
  SmallVector<Operation *> dependents;
  llvm::SmallPtrSet<Operation *, 16> dependentSet;

  bool defines(Value v) const {
    Operation *op = v.getDefiningOp();
    return op && memberSet.contains(op);
  }
  bool taints(Value v) const {
    Operation *op = v.getDefiningOp();
    return op && (memberSet.contains(op) || dependentSet.contains(op));
  }
};

bool usesAny(Operation *op, function_ref<bool(Value)> predicate) {
  return op
      ->walk([&](Operation *nested) {
        return llvm::any_of(nested->getOperands(), predicate) ? WalkResult::interrupt()
                                                              : WalkResult::advance();
      })
      .wasInterrupted();
}

// A generic joins when it reads the group's values row by row: a value
// reduced over the rows is complete only after the loop, and one read
// whole (broadcast along the rows) only after every block.
bool canJoin(const RowGroup &group, linalg::GenericOp op) {
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (!group.taints(v))
      continue;
    if (!group.defines(v) || !rowAccess(op.getMatchingIndexingMap(&operand)).leading())
      return false;
    auto producer = cast<linalg::GenericOp>(v.getDefiningOp());
    if (reducesRows(producer))
      return false;
  }
  // The body reads no group value either (it works on scalars; a captured
  // value would be an extract from a group result).
  for (Operation &nested : op.getRegion().front())
    if (usesAny(&nested, [&](Value v) { return group.taints(v); }))
      return false;
  return true;
}

// blockableRows of the block's generics, each worked out once: every seed's
// scan asks it of every generic after the seed (a 24-layer transformer's
// step: a third of the pass's time). Members leave it when erased.
class BlockableRowsCache {
public:
  std::optional<int64_t> operator()(linalg::GenericOp op) {
    auto [it, inserted] = rows.try_emplace(op, std::nullopt);
    if (inserted)
      it->second = blockableRows(op);
    return it->second;
  }
  void forget(Operation *op) { rows.erase(op); }

private:
  DenseMap<Operation *, std::optional<int64_t>> rows;
};

RowGroup collectGroup(linalg::GenericOp seed, int64_t rows, BlockableRowsCache &blockable) {
  RowGroup group;
  group.rows = rows;
  size_t dependentsBeforeLast = 0;
  for (Operation &op : llvm::make_range(seed->getIterator(), seed->getBlock()->end())) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      break;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && blockable(generic) == rows && canJoin(group, generic)) {
      group.members.push_back(generic);
      group.memberSet.insert(generic);
      dependentsBeforeLast = group.dependents.size();
      continue;
    }
    if (usesAny(&op, [&](Value v) { return group.taints(v); })) {
      group.dependents.push_back(&op);
      group.dependentSet.insert(&op);
    }
  }
  // Those after the last member stay where they are.
  group.dependents.truncate(dependentsBeforeLast);
  return group;
}

// ---------------------------------------------------------- rewriting ----

// Rows `row` to `row + rows` of dimension `dim` of a tensor.
RankedTensorType withRows(Type type, int64_t rows, unsigned dim = 0) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[dim] = rows;
  return tensor.clone(shape);
}

struct RowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

RowSlice rowSlice(OpBuilder &b, RankedTensorType full, OpFoldResult row, int64_t rows,
                  unsigned dim = 0) {
  RowSlice slice;
  for (auto [d, extent] : llvm::enumerate(full.getShape())) {
    slice.offsets.push_back(d == dim ? row : b.getIndexAttr(0));
    slice.sizes.push_back(b.getIndexAttr(d == dim ? rows : extent));
    slice.strides.push_back(b.getIndexAttr(1));
  }
  return slice;
}

Value extractRows(OpBuilder &b, Location loc, Value full, OpFoldResult row, int64_t rows,
                  unsigned dim = 0) {
  auto type = cast<RankedTensorType>(full.getType());
  RowSlice s = rowSlice(b, type, row, rows, dim);
  return b.create<tensor::ExtractSliceOp>(loc, withRows(type, rows, dim), full, s.offsets,
                                          s.sizes, s.strides);
}

Value insertRows(OpBuilder &b, Location loc, Value block, Value full, OpFoldResult row) {
  auto type = cast<RankedTensorType>(full.getType());
  RowSlice s = rowSlice(b, type, row, cast<RankedTensorType>(block.getType()).getDimSize(0));
  return b.create<tensor::InsertSliceOp>(loc, block, full, s.offsets, s.sizes, s.strides);
}

// What a group carries from block to block: the full-size (or chunk-size)
// tensors its escaping row results are written into, and the accumulators
// of its reductions over the rows.
struct Carried {
  SmallVector<Value> outputs, accumulators;

  SmallVector<Value> all() const {
    SmallVector<Value> values(outputs);
    values.append(accumulators);
    return values;
  }
  static Carried split(ValueRange values, size_t outputCount) {
    return {SmallVector<Value>(values.take_front(outputCount)),
            SmallVector<Value>(values.drop_front(outputCount))};
  }
};

class GroupRewriter {
public:
  GroupRewriter(RowGroup &group, BlockPlan plan) : group(group), plan(plan) {
    for (linalg::GenericOp member : group.members)
      for (OpResult result : member->getResults()) {
        Value init = member.getDpsInitOperand(result.getResultNumber())->get();
        if (reducesRows(member)) {
          accumulatorIndex[result] = accumulatorInits.size();
          accumulatorInits.push_back(init);
          combiners.push_back(chunkableCombiner(member, result.getResultNumber()));
        } else if (llvm::any_of(result.getUsers(), [&](Operation *user) {
                     return !group.memberSet.contains(user);
                   })) {
          outputIndex[result] = outputInits.size();
          outputInits.push_back(init);
        }
      }
  }

  // Top-level generics the rewrite created (a tail block, combined
  // partials): they are not candidates for another group.
  ArrayRef<Operation *> createdGenerics() const { return created; }

  void rewrite() {
    linalg::GenericOp last = group.members.back();
    OpBuilder b(last);
    Location loc = last.getLoc();
    int64_t blocks = group.rows / plan.blockRows;
    // An output computed in place over a member's result starts empty:
    // the member's block value is what the block reads.
    for (Value &init : outputInits)
      if (group.defines(init)) {
        auto type = cast<RankedTensorType>(init.getType());
        init = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
      }
    Carried carried{outputInits, accumulatorInits};
    if (plan.chunks > 1)
      carried = buildChunks(b, loc, carried);
    else if (blocks > 0)
      carried = buildLoop(b, loc, carried, blocks * plan.blockRows, nullptr);
    if (int64_t tail = group.rows % plan.blockRows) {
      OpFoldResult tailRow = b.getIndexAttr(blocks * plan.blockRows);
      carried = buildBlock(b, loc, tailRow, tailRow, tail, carried, &created);
    }
    // Everything built stands right before `last`.
    Operation *insertAfter = last->getPrevNode();
    for (linalg::GenericOp member : group.members)
      for (OpResult result : member->getResults()) {
        if (auto it = outputIndex.find(result); it != outputIndex.end())
          result.replaceAllUsesWith(carried.outputs[it->second]);
        else if (auto it = accumulatorIndex.find(result); it != accumulatorIndex.end())
          result.replaceAllUsesWith(carried.accumulators[it->second]);
      }
    // Dependents that stood between the members now follow the loop. (The
    // scan knows which they are: asking isBeforeInBlock after each move,
    // which renumbers the block, took time quadratic in a deep model's
    // length.)
    for (Operation *dependent : group.dependents) {
      dependent->moveAfter(insertAfter);
      insertAfter = dependent;
    }
    for (linalg::GenericOp member : llvm::reverse(group.members))
      member->erase();
  }

private:
  // One block of `rows` rows: the group's inputs are read from `inputRow`,
  // the carried outputs written at `outputRow` (they differ inside a chunk,
  // whose outputs are the chunk's own rows).
  Carried buildBlock(OpBuilder &b, Location loc, OpFoldResult inputRow, OpFoldResult outputRow,
                     int64_t rows, Carried carried,
                     SmallVectorImpl<Operation *> *clones = nullptr) {
    IRMapping blockValues;
    for (linalg::GenericOp member : group.members) {
      SmallVector<Value> operands;
      for (OpOperand &operand : member->getOpOperands()) {
        Value v = operand.get();
        if (Value blockValue = blockValues.lookupOrNull(v)) {
          operands.push_back(blockValue);
          continue;
        }
        if (member.isDpsInit(&operand)) {
          OpResult result = member.getTiedOpResult(&operand);
          if (auto it = accumulatorIndex.find(result); it != accumulatorIndex.end()) {
            operands.push_back(carried.accumulators[it->second]);
            continue;
          }
          if (auto it = outputIndex.find(result); it != outputIndex.end()) {
            operands.push_back(extractRows(b, loc, carried.outputs[it->second], outputRow, rows));
            continue;
          }
        }
        RowAccess access = rowAccess(member.getMatchingIndexingMap(&operand));
        if (access.kind != RowAccess::sliced) {
          operands.push_back(v);
          continue;
        }
        auto fill = v.getDefiningOp<linalg::FillOp>();
        if (plan.fillBlocks && fill && member.isDpsInit(&operand)) {
          Value rowsOfInit = extractRows(b, loc, fill.getOutputs()[0], inputRow, rows, access.dim);
          operands.push_back(
              b.create<linalg::FillOp>(loc, fill.getInputs(), rowsOfInit).getResult(0));
          continue;
        }
        operands.push_back(extractRows(b, loc, v, inputRow, rows, access.dim));
      }
      SmallVector<Type> resultTypes;
      for (OpResult result : member->getResults())
        resultTypes.push_back(accumulatorIndex.count(result) ? result.getType()
                                                             : withRows(result.getType(), rows));
      Operation *blockOp = clone(b, member.getOperation(), resultTypes, operands);
      if (clones)
        clones->push_back(blockOp);
      for (OpResult result : member->getResults()) {
        Value blockResult = blockOp->getResult(result.getResultNumber());
        if (auto it = accumulatorIndex.find(result); it != accumulatorIndex.end()) {
          carried.accumulators[it->second] = blockResult;
          continue;
        }
        blockValues.map(result, blockResult);
        if (auto it = outputIndex.find(result); it != outputIndex.end())
          carried.outputs[it->second] =
              insertRows(b, loc, blockResult, carried.outputs[it->second], outputRow);
      }
    }
    return carried;
  }

  // Blocks over `rows` rows of the carried outputs, which start at row
  // `chunkRow` of the inputs (at row 0 without chunks).
  Carried buildLoop(OpBuilder &b, Location loc, Carried carried, int64_t rows, Value chunkRow) {
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    Value end = b.create<arith::ConstantIndexOp>(loc, rows);
    Value step = b.create<arith::ConstantIndexOp>(loc, plan.blockRows);
    auto loop = b.create<scf::ForOp>(
        loc, zero, end, step, carried.all(),
        [&](OpBuilder &nested, Location nestedLoc, Value row, ValueRange iterArgs) {
          Value inputRow = row;
          if (chunkRow)
            inputRow = nested.create<arith::AddIOp>(nestedLoc, chunkRow, row);
          Carried next = buildBlock(nested, nestedLoc, inputRow, row, plan.blockRows,
                                    Carried::split(iterArgs, outputInits.size()));
          nested.create<scf::YieldOp>(nestedLoc, next.all());
        });
    return Carried::split(loop.getResults(), outputInits.size());
  }

  // Chunks of whole blocks in parallel: each writes its own rows of the
  // outputs and its own partial of each reduction over the rows; the
  // partials are combined in chunk order after the loop.
  Carried buildChunks(OpBuilder &b, Location loc, Carried carried) {
    int64_t chunkRows = group.rows / plan.blockRows / plan.chunks * plan.blockRows;
    SmallVector<Partials> partials = llvm::map_to_vector(accumulatorInits, [&](Value init) {
      return partialsOf(cast<RankedTensorType>(init.getType()));
    });
    SmallVector<Value> shared(outputInits);
    for (const Partials &layout : partials)
      shared.push_back(b.create<tensor::EmptyOp>(loc, layout.type.getShape(),
                                                 layout.type.getElementType()));
    auto forall = b.create<scf::ForallOp>(loc, ArrayRef<OpFoldResult>{b.getIndexAttr(plan.chunks)},
                                          shared, std::nullopt);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = forall.getBody();
      b.setInsertionPointToStart(body);
      Value chunk = forall.getInductionVars().front();
      Value chunkRow = b.create<arith::MulIOp>(
          loc, chunk, b.create<arith::ConstantIndexOp>(loc, chunkRows));
      ValueRange sharedArgs = forall.getRegionIterArgs();
      ValueRange sharedPartials = sharedArgs.drop_front(outputInits.size());
      Carried chunkCarried;
      for (Value output : sharedArgs.take_front(outputInits.size()))
        chunkCarried.outputs.push_back(extractRows(b, loc, output, chunkRow, chunkRows));
      for (auto [all, layout, combiner] : llvm::zip(sharedPartials, partials, combiners)) {
        RowSlice s = layout.slice(b, chunk, 1);
        Value slot = b.create<tensor::ExtractSliceOp>(loc, layout.accumulator, all, s.offsets,
                                                      s.sizes, s.strides);
        Value neutral = b.create<arith::ConstantOp>(loc, *arith::getNeutralElement(combiner->op));
        chunkCarried.accumulators.push_back(
            b.create<linalg::FillOp>(loc, ValueRange{neutral}, ValueRange{slot}).getResult(0));
      }
      Carried done = buildLoop(b, loc, chunkCarried, chunkRows, chunkRow);
      b.setInsertionPointToStart(forall.getTerminator().getBody());
      for (auto [value, output] : llvm::zip(done.outputs, sharedArgs.take_front(outputInits.size()))) {
        auto type = cast<RankedTensorType>(output.getType());
        RowSlice s = rowSlice(b, type, chunkRow, chunkRows);
        b.create<tensor::ParallelInsertSliceOp>(loc, value, output, s.offsets, s.sizes, s.strides);
      }
      for (auto [value, all, layout] : llvm::zip(done.accumulators, sharedPartials, partials)) {
        RowSlice s = layout.slice(b, chunk, 1);
        b.create<tensor::ParallelInsertSliceOp>(loc, value, all, s.offsets, s.sizes, s.strides);
      }
    }
    ValueRange results = forall.getResults();
    Carried combined;
    combined.outputs.assign(results.begin(), results.begin() + outputInits.size());
    for (auto [all, layout, init, combiner] :
         llvm::zip(results.drop_front(outputInits.size()), partials, accumulatorInits, combiners))
      combined.accumulators.push_back(combinePartials(b, loc, all, layout, init, *combiner));
    return combined;
  }

  // The partials of one accumulator, one per chunk. Chunks update theirs
  // after every block, and the partials of a scalar sum shared one cache
  // line, which two cores then took turns to own: an accumulator smaller
  // than a line gets a padding dimension (chunks x padding x its shape),
  // of which each chunk uses the first element, so that each partial
  // starts a line of its own.
  struct Partials {
    RankedTensorType type;         // chunks x [padding x] the accumulator's shape
    RankedTensorType accumulator;  // one chunk's partial
    RankedTensorType unpadded;     // chunks x the accumulator's shape
    bool padded;

    // `count` chunks' partials from `chunk` on.
    RowSlice slice(OpBuilder &b, OpFoldResult chunk, int64_t count) const {
      RowSlice s = rowSlice(b, type, chunk, count);
      if (padded) s.sizes[1] = b.getIndexAttr(1);
      return s;
    }
  };
  Partials partialsOf(RankedTensorType accumulator) {
    SmallVector<int64_t> shape{plan.chunks};
    llvm::append_range(shape, accumulator.getShape());
    auto unpadded = RankedTensorType::get(shape, accumulator.getElementType());
    int64_t bytes = accumulator.getNumElements() *
                    llvm::divideCeil(accumulator.getElementTypeBitWidth(), 8);
    bool padded = bytes > 0 && bytes < kCacheLineBytes && kCacheLineBytes % bytes == 0;
    if (padded) shape.insert(shape.begin() + 1, kCacheLineBytes / bytes);
    return {RankedTensorType::get(shape, accumulator.getElementType()), accumulator, unpadded,
            padded};
  }

  // init ⊕ partial[0] ⊕ partial[1] ⊕ ... in chunk order.
  Value combinePartials(OpBuilder &b, Location loc, Value all, const Partials &layout, Value init,
                        const Combiner &combiner) {
    Value partials = all;
    if (layout.padded) {  // the chunks' first elements, without the padding
      RowSlice s = layout.slice(b, b.getIndexAttr(0), plan.chunks);
      partials = b.create<tensor::ExtractSliceOp>(loc, layout.unpadded, all, s.offsets, s.sizes,
                                                  s.strides);
    }
    auto type = cast<RankedTensorType>(partials.getType());
    unsigned rank = type.getRank();
    MLIRContext *context = b.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    AffineMap dropChunk = AffineMap::get(rank, 0, identity.getResults().drop_front(), context);
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.front() = utils::IteratorType::reduction;
    auto generic = b.create<linalg::GenericOp>(
        loc, init.getType(), ValueRange{partials}, ValueRange{init},
        ArrayRef<AffineMap>{identity, dropChunk}, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          IRMapping mapping;
          mapping.map(combiner.accumulator, args[1]);
          mapping.map(combiner.value, args[0]);
          Operation *combined = nested.clone(*combiner.op, mapping);
          nested.create<linalg::YieldOp>(nestedLoc, combined->getResult(0));
        });
    created.push_back(generic);
    return generic.getResult(0);
  }

  RowGroup &group;
  BlockPlan plan;
  DenseMap<Value, unsigned> outputIndex, accumulatorIndex;
  SmallVector<Value> outputInits, accumulatorInits;
  SmallVector<std::optional<Combiner>> combiners;
  SmallVector<Operation *> created;
};

// A group pays when its members share a block (intermediates stay in the
// cache, common inputs are read once) or when its rows split into chunks.
bool worthBlocking(const RowGroup &group, BlockPlan plan) {
  return group.members.size() >= 2 || plan.chunks > 1;
}

// Half the L1 data cache: what a block's loops pass through memory (they
// merge into a few, adjit-merge-generics) stays in L1.
int64_t hostCacheBudget() {
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  return (l1 > 0 ? l1 : 32 << 10) / 2;
}

struct TileAndFuseRowsPass : adjit::impl::TileAndFuseRowsBase<TileAndFuseRowsPass> {
  using TileAndFuseRowsBase::TileAndFuseRowsBase;

  void runOnOperation() override {
    int64_t budget = cacheBytes > 0 ? cacheBytes : hostCacheBudget();
    getOperation().walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      Block &body = function.getBody().front();
      llvm::SmallPtrSet<Operation *, 16> tried;
      BlockableRowsCache blockable;
      Operation *op = &body.front();
      while (op) {
        auto seed = dyn_cast<linalg::GenericOp>(op);
        std::optional<int64_t> rows = seed ? blockable(seed) : std::nullopt;
        if (!rows || tried.contains(seed)) {
          op = op->getNextNode();
          continue;
        }
        RowGroup group = collectGroup(seed, *rows, blockable);
        bool chunkable = reductionsCombine(group.members);
        std::optional<BlockPlan> plan =
            gpu ? planGpuBlocks(group.members, *rows, maxChunks, chunkable)
                : planBlocks(group.members, *rows, budget, minChunkWork, maxChunks, chunkable);
        if (!plan || !worthBlocking(group, *plan)) {
          tried.insert(group.members.begin(), group.members.end());
          op = op->getNextNode();
          continue;
        }
        // Go on after the ops before the group: the members are erased,
        // and what follows them is either new or not yet seen.
        Operation *previous = seed->getPrevNode();
        GroupRewriter rewriter(group, *plan);
        rewriter.rewrite();
        for (linalg::GenericOp member : group.members)
          blockable.forget(member);
        tried.insert(rewriter.createdGenerics().begin(), rewriter.createdGenerics().end());
        op = previous ? previous->getNextNode() : &body.front();
      }
    });
  }
};

} // namespace
