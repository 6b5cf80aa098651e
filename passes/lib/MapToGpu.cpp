// adjit-map-to-gpu: each structured op of a bufferized function becomes one
// gpu.launch (see Passes.td for the mapping).
#include "adjit/Passes/ContractionKernels.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MAPTOGPU
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// Threads per block: a multiple of the warp size that keeps enough blocks
// per multiprocessor resident for the simple one-point-per-thread kernels.
constexpr int64_t kThreadsPerBlock = 256;
// A reduction gets a block per output point (its threads share the
// reduction, then combine through warp shuffles and shared memory) when it
// reduces at least a warp's worth of elements per point and has few enough
// points that a block each still fills the GPU without starving the
// thread-per-point form (a matmul's many outputs).
constexpr int64_t kMinBlockReductionSize = 32;
constexpr int64_t kMaxBlockReductionPoints = 65536;
// Column reductions: a block of 32 points by 8 row groups; long ones split
// along y until the launch has about this many blocks.
constexpr int64_t kColumnsPerBlock = 32, kRowGroups = 8, kColumnBlocksWanted = 1024;
// A GPU hides memory latency with loads in flight, and one load per thread
// at a time leaves HBM idle (W1's sum read 0.84 TB/s of 4.1 on an H200).
// Strided reduction loops are unrolled this many times, so that a thread
// issues this many independent loads before it needs the first; a large
// elementwise op gives each thread this many points, loaded before any is
// computed.
constexpr int64_t kLoadsInFlight = 4;
// Points per thread stay 1 below this many blocks of kThreadsPerBlock
// threads: fewer, fatter threads would leave multiprocessors idle (an H200
// keeps 8 such blocks on each of its 132).
constexpr int64_t kMinBlocksForSeveralPoints = 1024;

// How an accumulator combines a value into itself, as a block-wide
// gpu.all_reduce (32-bit values: what warp shuffles move).
std::optional<gpu::AllReduceOperation> allReduceKind(Operation *combiner) {
  Type type = combiner->getResult(0).getType();
  if (!type.isF32() && !type.isInteger(32))
    return std::nullopt;
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(combiner)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

// An accumulator's update `out' = combine(out, value)`: the payload op that
// alone reads the accumulator and whose result alone is yielded for it.
struct Combiner {
  Operation *op;
  unsigned accumulatorOperand;  // which operand of `op` is the accumulator
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map,
                             ValueRange loopIndices) {
  SmallVector<Value> indices;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    indices.push_back(b.create<affine::AffineApplyOp>(loc, map.getSubMap({r}),
                                                      loopIndices));
  return indices;
}

// Whether an output is indexed by the parallel loops alone: then one thread
// owns each of its elements for the whole reduction and keeps it in a
// register.
bool isAccumulator(linalg::LinalgOp op, OpOperand *init) {
  AffineMap map = op.getMatchingIndexingMap(init);
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction && map.isFunctionOfDim(dim))
      return false;
  return true;
}

// Folds the positions given (several, in order) into the carried
// accumulators; returns their new values.
using FoldBody = function_ref<scf::ValueVector(OpBuilder &, Location, ValueRange, ValueRange)>;

// A loop from `begin` to `end` by `step` whose body folds each position
// into one accumulator per combiner, starting from their identities. The
// main loop takes kLoadsInFlight positions per iteration (the body loads
// them all before it computes any), a remainder loop the rest.
SmallVector<Value> stridedFold(OpBuilder &b, Location loc, ArrayRef<Combiner> combiners,
                               Value begin, Value end, int64_t step, FoldBody body) {
  auto constant = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
  SmallVector<Value> identities;
  for (const Combiner &combiner : combiners)
    identities.push_back(b.create<arith::ConstantOp>(loc, combiner.identity));
  // The positions (ceil(span / step), span >= 0) rounded down to a multiple
  // of kLoadsInFlight: where the remainder loop begins.
  Value span =
      b.create<arith::MaxSIOp>(loc, b.create<arith::SubIOp>(loc, end, begin), constant(0));
  Value count = b.create<arith::DivSIOp>(
      loc, b.create<arith::AddIOp>(loc, span, constant(step - 1)), constant(step));
  Value unrolledCount = b.create<arith::SubIOp>(
      loc, count, b.create<arith::RemSIOp>(loc, count, constant(kLoadsInFlight)));
  Value unrolledStep = constant(step * kLoadsInFlight);
  Value unrolledEnd = b.create<arith::AddIOp>(
      loc, begin, b.create<arith::MulIOp>(loc, unrolledCount, constant(step)));
  auto main = b.create<scf::ForOp>(
      loc, begin, unrolledEnd, unrolledStep, identities,
      [&](OpBuilder &lb, Location lloc, Value position, ValueRange carried) {
        SmallVector<Value> positions{position};
        for (int64_t k = 1; k < kLoadsInFlight; ++k)
          positions.push_back(lb.create<arith::AddIOp>(
              lloc, position, lb.create<arith::ConstantIndexOp>(lloc, k * step)));
        lb.create<scf::YieldOp>(lloc, body(lb, lloc, positions, carried));
      });
  auto rest = b.create<scf::ForOp>(
      loc, unrolledEnd, end, constant(step), main.getResults(),
      [&](OpBuilder &lb, Location lloc, Value position, ValueRange carried) {
        lb.create<scf::YieldOp>(lloc, body(lb, lloc, position, carried));
      });
  return SmallVector<Value>(rest.getResults());
}

// Threads `thread`, `thread + threads`, ... of a block fold the positions
// from `begin` to `end`; a block-wide all-reduce per combiner then gives
// every thread the totals.
SmallVector<Value> blockReduce(OpBuilder &b, Location loc, ArrayRef<Combiner> combiners,
                               Value begin, Value end, int64_t threads, FoldBody body) {
  SmallVector<Value> strided = stridedFold(b, loc, combiners, begin, end, threads, body);
  SmallVector<Value> totals;
  for (auto [combiner, partial] : llvm::zip(combiners, strided))
    totals.push_back(b.create<gpu::AllReduceOp>(
        loc, partial, gpu::AllReduceOperationAttr::get(b.getContext(), combiner.kind),
        /*uniform=*/true));
  return totals;
}

// `if (thread == 0) {}`, for what one thread of a block stores.
scf::IfOp ifFirstThread(OpBuilder &b, Location loc, Value thread) {
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, thread, zero);
  return b.create<scf::IfOp>(loc, first, /*withElseRegion=*/false);
}

// Which threads of a row group's block touch an operand's elements when
// the op runs in the block (buildInBlock): only thread 0; element i, in the
// buffer's row-major order, thread i mod the block's threads (every op that
// strides over its positions does so from its thread index by the block's
// thread count); or any.
enum class Ownership { threadZero, strided, any };

class LaunchBuilder {
public:
  // `filled`: outputs whose linalg.fill was folded into this op (the value
  // each starts from instead of what the buffer holds).
  LaunchBuilder(linalg::LinalgOp op, const DenseMap<OpOperand *, Value> &filled)
      : op_(op), filled_(filled) {}

  // The op's own launch (or launches).
  LogicalResult build() {
    if (failed(analyze()))
      return failure();
    int64_t points = points_, reductionSize = reductionSize_;
    if (points == 0) {
      op_->erase();
      return success();
    }
    if (!reductionDims_.empty() && reductionSize >= kMinBlockReductionSize && matchCombiners()) {
      if (reducesColumns(points))
        return buildColumnReduction(points, reductionSize);
      if (points <= kMaxBlockReductionPoints)
        return buildBlockReduction(points, reductionSize);
    }
    OpBuilder b(op_);
    Location loc = op_.getLoc();
    int64_t threads = std::min<int64_t>(kThreadsPerBlock, llvm::alignTo(points, 32));
    int64_t perThread = pointsPerThread(points);
    int64_t blocks = llvm::divideCeil(points, threads * perThread);
    auto constant = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
    Value one = constant(1);
    auto launch = b.create<gpu::LaunchOp>(loc, constant(blocks), one, one, constant(threads), one,
                                          one);
    b.setInsertionPointToEnd(&launch.getBody().front());
    Value point = b.create<arith::AddIOp>(
        loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, constant(threads)),
        launch.getThreadIds().x);
    if (perThread > 1) {
      // The points of a thread lie a launch apart, so that each of its
      // loads is coalesced across the warp; they cover `points` exactly.
      SmallVector<Value> mine;
      for (int64_t k = 0; k < perThread; ++k)
        mine.push_back(b.create<arith::AddIOp>(loc, point, constant(k * blocks * threads)));
      emitPoints(
          b, loc, mine, [&](Value p) { setParallelIndices(b, loc, p); }, {}, {});
      b.create<gpu::TerminatorOp>(loc);
      op_->erase();
      return success();
    }
    Value inRange =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, point, constant(points));
    auto ifOp = b.create<scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
    b.create<gpu::TerminatorOp>(loc);

    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    setParallelIndices(b, loc, point);
    emitReductionLoops(b, loc);
    op_->erase();
    return success();
  }

  // The op inside a launch whose block of `threads` threads (`thread` is
  // this one's index) runs it together. An op with one point and a
  // reduction of 32-bit combiners strides over the reduction, all-reduces
  // block-wide and has thread 0 store; otherwise the threads stride over
  // the points, each running a point's reduction loops itself.
  LogicalResult buildInBlock(Value thread, int64_t threads) {
    if (failed(analyze()))
      return failure();
    OpBuilder b(op_);
    Location loc = op_.getLoc();
    auto constant = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
    if (reducesToOneInBlock()) {
      setParallelIndices(b, loc, constant(0));
      SmallVector<OpOperand *> accumulators;
      for (OpOperand &init : op_.getDpsInitsMutable())
        if (isAccumulator(op_, &init))
          accumulators.push_back(&init);
      SmallVector<Value> totals = blockReduce(
          b, loc, combiners_, thread, constant(reductionSize_), threads,
          [&](OpBuilder &lb, Location lloc, ValueRange positions, ValueRange carried) {
            return foldReductionPoints(lb, lloc, positions, accumulators, carried);
          });
      b.setInsertionPointToStart(&ifFirstThread(b, loc, thread).getThenRegion().front());
      foldIntoOutputs(b, loc, accumulators, totals);
    } else if (reductionDims_.empty()) {
      stridedFold(b, loc, {}, thread, constant(points_), threads,
                  [&](OpBuilder &lb, Location lloc, ValueRange positions, ValueRange) {
                    return emitPoints(
                        lb, lloc, positions, [&](Value p) { setParallelIndices(lb, lloc, p); },
                        {}, {});
                  });
    } else {
      b.create<scf::ForOp>(loc, thread, constant(points_), constant(threads), std::nullopt,
                           [&](OpBuilder &lb, Location lloc, Value point, ValueRange) {
                             setParallelIndices(lb, lloc, point);
                             emitReductionLoops(lb, lloc);
                             lb.create<scf::YieldOp>(lloc);
                           });
    }
    op_->erase();
    return success();
  }

  // The points of the parallel loops and the size of the reduction: the
  // threads' share of work.
  static FailureOr<int64_t> work(linalg::LinalgOp op) {
    static const DenseMap<OpOperand *, Value> noFills;
    LaunchBuilder builder(op, noFills);
    if (failed(builder.analyze()))
      return failure();
    return std::max(builder.points_, builder.reductionSize_);
  }

  // The Ownership of each operand of `op` run in a block, in operand order.
  static FailureOr<SmallVector<Ownership>> ownershipInBlock(linalg::LinalgOp op) {
    static const DenseMap<OpOperand *, Value> noFills;
    LaunchBuilder builder(op, noFills);
    if (failed(builder.analyze()))
      return failure();
    bool reducesToOne = builder.reducesToOneInBlock();
    // A position is a point of the parallel loops, or of the reduction
    // loops when the op reduces to one value; it indexes an operand read
    // through the identity map in row-major order when the other loops
    // have one iteration.
    bool positionsCoverEveryLoop =
        reducesToOne || llvm::all_of(builder.reductionDims_,
                                     [&](unsigned dim) { return builder.ranges_[dim] == 1; });
    SmallVector<Ownership> owners;
    for (OpOperand &operand : op->getOpOperands()) {
      if ((!reducesToOne && builder.points_ == 1) ||
          (reducesToOne && op.isDpsInit(&operand) && isAccumulator(op, &operand)))
        owners.push_back(Ownership::threadZero);
      else if (positionsCoverEveryLoop && op.getMatchingIndexingMap(&operand).isIdentity())
        owners.push_back(Ownership::strided);
      else
        owners.push_back(Ownership::any);
    }
    return owners;
  }

private:
  // Whether buildInBlock strides over the reduction and all-reduces (one
  // point, 32-bit combiners) rather than striding over the points.
  bool reducesToOneInBlock() { return points_ == 1 && reductionSize_ > 1 && matchCombiners(); }

  LogicalResult analyze() {
    if (!op_.hasPureBufferSemantics())
      return op_.emitOpError("reached GPU mapping on tensors; it runs after bufferization");
    ranges_ = op_.getStaticLoopRanges();
    if (llvm::any_of(ranges_, ShapedType::isDynamic))
      return op_.emitOpError("has dynamic loop bounds; GPU kernels are built for static shapes");
    points_ = 1;
    for (auto [dim, iterator] : llvm::enumerate(op_.getIteratorTypesArray())) {
      if (iterator == utils::IteratorType::parallel) {
        parallelDims_.push_back(dim);
        points_ *= ranges_[dim];
      } else {
        reductionDims_.push_back(dim);
      }
    }
    // An output that some parallel loop does not index would be updated by
    // several threads at once: such an op runs all its loops in one thread.
    for (OpOperand &init : op_.getDpsInitsMutable()) {
      AffineMap map = op_.getMatchingIndexingMap(&init);
      if (points_ > 0 && llvm::any_of(parallelDims_, [&](unsigned dim) {
            return !map.isFunctionOfDim(dim);
          })) {
        parallelDims_.clear();
        reductionDims_ = llvm::to_vector(llvm::seq<unsigned>(0, ranges_.size()));
        points_ = 1;
        break;
      }
    }
    reductionSize_ = 1;
    for (unsigned dim : reductionDims_)
      reductionSize_ *= ranges_[dim];
    return success();
  }

  // Whether every accumulator is updated by a combiner that a block-wide
  // all-reduce can compute (outputs indexed by reduction loops are written
  // once per point, whichever thread visits it).
  bool matchCombiners() {
    Block &payload = *op_.getBlock();
    auto yield = cast<linalg::YieldOp>(payload.getTerminator());
    for (OpOperand &init : op_.getDpsInitsMutable()) {
      // Other outputs must have one element per loop point, or threads
      // sharing the reduction would race on them.
      if (!isAccumulator(op_, &init)) {
        if (!op_.getMatchingIndexingMap(&init).isPermutation())
          return false;
        continue;
      }
      BlockArgument accumulator = op_.getMatchingBlockArgument(&init);
      if (!accumulator.hasOneUse())
        return false;
      OpOperand &use = *accumulator.use_begin();
      Operation *combiner = use.getOwner();
      unsigned position = init.getOperandNumber() - op_.getNumDpsInputs();
      if (combiner->getBlock() != &payload || combiner->getNumOperands() != 2 ||
          combiner->getNumResults() != 1 || !combiner->getResult(0).hasOneUse() ||
          yield.getOperand(position) != combiner->getResult(0))
        return false;
      std::optional<gpu::AllReduceOperation> kind = allReduceKind(combiner);
      std::optional<TypedAttr> identity = arith::getNeutralElement(combiner);
      if (!kind || !identity)
        return false;
      combiners_.push_back({combiner, use.getOperandNumber(), *kind, *identity});
    }
    return !combiners_.empty();
  }

  // One block per point of the parallel loops (per chunk of a point's
  // reduction when the points are too few to fill the GPU); its threads
  // stride over the reduction loops with private accumulators, which a
  // block-wide all-reduce combines. With chunks, a second launch combines
  // the chunks' partial results the same way. Thread 0 of the last block
  // folds the result into the output.
  LogicalResult buildBlockReduction(int64_t points, int64_t reductionSize) {
    int64_t chunks = chunksPerPoint(points, reductionSize);
    int64_t chunkSize = llvm::divideCeil(reductionSize, chunks);
    OpBuilder b(op_);
    Location loc = op_.getLoc();
    SmallVector<OpOperand *> accumulators;
    for (OpOperand &init : op_.getDpsInitsMutable())
      if (isAccumulator(op_, &init))
        accumulators.push_back(&init);
    SmallVector<Value> partials;  // [point, chunk] per accumulator
    if (chunks > 1)
      for (const Combiner &combiner : combiners_)
        partials.push_back(b.create<memref::AllocOp>(
            loc, MemRefType::get({points, chunks}, combiner.identity.getType())));

    BlockReductionLaunch first(b, loc, points * chunks, chunkSize);
    Value point = first.block, chunk;
    if (chunks > 1) {
      chunk = b.create<arith::RemUIOp>(loc, first.block, first.constant(chunks));
      point = b.create<arith::DivUIOp>(loc, first.block, first.constant(chunks));
    }
    setParallelIndices(b, loc, point);
    Value begin = first.thread, end = first.constant(reductionSize);
    if (chunks > 1) {
      Value chunkStart = b.create<arith::MulIOp>(loc, chunk, first.constant(chunkSize));
      begin = b.create<arith::AddIOp>(loc, chunkStart, first.thread);
      end = b.create<arith::MinUIOp>(
          loc, end, b.create<arith::AddIOp>(loc, chunkStart, first.constant(chunkSize)));
    }
    SmallVector<Value> totals = first.reduce(
        combiners_, begin, end,
        [&](OpBuilder &lb, Location lloc, ValueRange positions, ValueRange carried) {
          return foldReductionPoints(lb, lloc, positions, accumulators, carried);
        });
    first.onFirstThread([&] {
      if (chunks == 1)
        return foldIntoOutputs(b, loc, accumulators, totals);
      for (auto [buffer, total] : llvm::zip(partials, totals))
        b.create<memref::StoreOp>(loc, total, buffer, ValueRange{point, chunk});
    });
    if (chunks > 1) {
      b.setInsertionPointAfter(first.launch);
      BlockReductionLaunch second(b, loc, points, chunks);
      setParallelIndices(b, loc, second.block);
      SmallVector<Value> results = second.reduce(
          combiners_, second.thread, second.constant(chunks),
          [&](OpBuilder &lb, Location lloc, ValueRange positions, ValueRange carried) {
            SmallVector<SmallVector<Value>> loaded;  // [position][accumulator]
            for (Value position : positions) {
              loaded.emplace_back();
              for (Value buffer : partials)
                loaded.back().push_back(
                    lb.create<memref::LoadOp>(lloc, buffer, ValueRange{second.block, position}));
            }
            scf::ValueVector next(carried);
            for (ArrayRef<Value> values : loaded)
              for (auto [combiner, acc, value] : llvm::zip(combiners_, next, values))
                acc = combine(lb, combiner, acc, value);
            return next;
          });
      second.onFirstThread([&] { foldIntoOutputs(b, loc, accumulators, results); });
      b.setInsertionPointAfter(second.launch);
      for (Value buffer : partials)
        b.create<memref::DeallocOp>(loc, buffer);
    }
    op_->erase();
    return success();
  }

  // A reduction over outer loops whose innermost loop is parallel (a bias
  // gradient, LayerNorm's dgamma: column sums of a row-major matrix), with
  // every output an accumulator and at least a warp's worth of columns.
  bool reducesColumns(int64_t points) {
    if (points < kColumnsPerBlock || ranges_.empty() ||
        op_.getIteratorTypesArray().back() != utils::IteratorType::parallel)
      return false;
    return llvm::all_of(op_.getDpsInitsMutable(),
                        [&](OpOperand &init) { return isAccumulator(op_, &init); });
  }

  // Column reductions: a block covers 32 neighbouring points (columns:
  // each load of a warp is one coalesced row segment) and 8 row groups
  // that stride over the reduction; shared memory combines the row groups.
  // Long reductions are split over blocks along y, whose partial results a
  // second launch (a thread per point) folds into the outputs.
  LogicalResult buildColumnReduction(int64_t points, int64_t reductionSize) {
    int64_t columnBlocks = llvm::divideCeil(points, kColumnsPerBlock);
    int64_t chunks = std::clamp<int64_t>(llvm::divideCeil(kColumnBlocksWanted, columnBlocks), 1,
                                         llvm::divideCeil(reductionSize, 256));
    int64_t chunkSize = llvm::divideCeil(reductionSize, chunks);
    OpBuilder b(op_);
    Location loc = op_.getLoc();
    auto constant = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
    SmallVector<OpOperand *> accumulators;
    for (OpOperand &init : op_.getDpsInitsMutable())
      accumulators.push_back(&init);
    SmallVector<Value> partials;  // [chunk, point] per accumulator
    SmallVector<Type> sharedTypes;
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    for (const Combiner &combiner : combiners_) {
      Type element = combiner.identity.getType();
      sharedTypes.push_back(
          MemRefType::get({kRowGroups, kColumnsPerBlock}, element, AffineMap(), workgroup));
      if (chunks > 1)
        partials.push_back(b.create<memref::AllocOp>(loc, MemRefType::get({chunks, points}, element)));
    }
    Value one = constant(1);
    auto launch = b.create<gpu::LaunchOp>(loc, constant(columnBlocks), constant(chunks), one,
                                          constant(kColumnsPerBlock), constant(kRowGroups), one,
                                          /*dynamicSharedMemorySize=*/nullptr,
                                          /*asyncTokenType=*/nullptr, ValueRange(), sharedTypes);
    b.setInsertionPointToEnd(&launch.getBody().front());
    Value column = launch.getThreadIds().x, group = launch.getThreadIds().y;
    Value point = b.create<arith::AddIOp>(
        loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, constant(kColumnsPerBlock)),
        column);
    Value inRange = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, point, constant(points));
    setParallelIndices(b, loc, point);
    Value chunkStart = b.create<arith::MulIOp>(loc, launch.getBlockIds().y, constant(chunkSize));
    Value begin = b.create<arith::AddIOp>(loc, chunkStart, group);
    Value end = b.create<arith::MinUIOp>(
        loc, constant(reductionSize), b.create<arith::AddIOp>(loc, chunkStart, constant(chunkSize)));
    end = b.create<arith::SelectOp>(loc, inRange, end, begin);  // no rows for idle threads
    SmallVector<Value> strided = stridedFold(
        b, loc, combiners_, begin, end, kRowGroups,
        [&](OpBuilder &lb, Location lloc, ValueRange positions, ValueRange carried) {
          return foldReductionPoints(lb, lloc, positions, accumulators, carried);
        });
    ValueRange shared = launch.getWorkgroupAttributions();
    for (auto [buffer, partial] : llvm::zip(shared, strided))
      b.create<memref::StoreOp>(loc, partial, buffer, ValueRange{group, column});
    b.create<gpu::BarrierOp>(loc);
    Value firstGroup = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, group, constant(0));
    auto ifFirst = b.create<scf::IfOp>(loc, b.create<arith::AndIOp>(loc, firstGroup, inRange),
                                       /*withElseRegion=*/false);
    b.create<gpu::TerminatorOp>(loc);
    b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
    SmallVector<Value> totals;
    for (auto [combiner, buffer] : llvm::zip(combiners_, shared)) {
      Value total = b.create<memref::LoadOp>(loc, buffer, ValueRange{constant(0), column});
      for (int64_t g = 1; g < kRowGroups; ++g)
        total = combine(b, combiner, total,
                        b.create<memref::LoadOp>(loc, buffer, ValueRange{constant(g), column}));
      totals.push_back(total);
    }
    if (chunks == 1) {
      foldIntoOutputs(b, loc, accumulators, totals);
    } else {
      for (auto [buffer, total] : llvm::zip(partials, totals))
        b.create<memref::StoreOp>(loc, total, buffer, ValueRange{launch.getBlockIds().y, point});
      b.setInsertionPointAfter(launch);
      foldChunks(b, loc, points, chunks, partials, accumulators);
      for (Value buffer : partials)
        b.create<memref::DeallocOp>(loc, buffer);
    }
    op_->erase();
    return success();
  }

  // A thread per point folds the chunks' partial results into the outputs.
  void foldChunks(OpBuilder &b, Location loc, int64_t points, int64_t chunks,
                  ArrayRef<Value> partials, ArrayRef<OpOperand *> accumulators) {
    auto constant = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
    Value one = constant(1);
    auto launch = b.create<gpu::LaunchOp>(loc, constant(llvm::divideCeil(points, kThreadsPerBlock)),
                                          one, one, constant(kThreadsPerBlock), one, one);
    b.setInsertionPointToEnd(&launch.getBody().front());
    Value point = b.create<arith::AddIOp>(
        loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, constant(kThreadsPerBlock)),
        launch.getThreadIds().x);
    auto ifInRange = b.create<scf::IfOp>(
        loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, point, constant(points)),
        /*withElseRegion=*/false);
    b.create<gpu::TerminatorOp>(loc);
    b.setInsertionPointToStart(&ifInRange.getThenRegion().front());
    SmallVector<Value> firsts;
    for (Value buffer : partials)
      firsts.push_back(b.create<memref::LoadOp>(loc, buffer, ValueRange{constant(0), point}));
    auto loop = b.create<scf::ForOp>(
        loc, one, constant(chunks), one, firsts,
        [&](OpBuilder &lb, Location lloc, Value chunk, ValueRange carried) {
          scf::ValueVector next;
          for (auto [combiner, buffer, acc] : llvm::zip(combiners_, partials, carried))
            next.push_back(combine(lb, combiner, acc,
                                   lb.create<memref::LoadOp>(lloc, buffer, ValueRange{chunk, point})));
          lb.create<scf::YieldOp>(lloc, next);
        });
    setParallelIndices(b, loc, point);
    foldIntoOutputs(b, loc, accumulators, loop.getResults());
    b.setInsertionPointAfter(launch);
  }

  // kLoadsInFlight points per thread for a large op without reduction loops
  // whose points fill whole blocks of that many; else one.
  int64_t pointsPerThread(int64_t points) const {
    int64_t perBlock = kThreadsPerBlock * kLoadsInFlight;
    if (!reductionDims_.empty() || points % perBlock != 0 ||
        points / perBlock < kMinBlocksForSeveralPoints)
      return 1;
    return kLoadsInFlight;
  }

  // Enough chunks that every point's reduction keeps at least 4096
  // elements per block (16 per thread: the unrolled loop runs 4 times) and
  // the launch has some 4096 blocks.
  static int64_t chunksPerPoint(int64_t points, int64_t reductionSize) {
    constexpr int64_t kElementsPerBlock = 4096, kBlocksWanted = 4096;
    if (reductionSize < 2 * kElementsPerBlock)
      return 1;
    return std::clamp<int64_t>(kBlocksWanted / points, 1,
                               llvm::divideCeil(reductionSize, kElementsPerBlock));
  }

  static Value combine(OpBuilder &b, const Combiner &combiner, Value accumulator, Value value) {
    IRMapping operands;
    operands.map(combiner.op->getOperand(combiner.accumulatorOperand), accumulator);
    operands.map(combiner.op->getOperand(1 - combiner.accumulatorOperand), value);
    return b.clone(*combiner.op, operands)->getResult(0);
  }

  // Sets the indices of loops `dims` from one linear index, the last loop
  // fastest (for the parallel loops: neighbouring threads, coalesced).
  void delinearize(OpBuilder &b, Location loc, Value linear, ArrayRef<unsigned> dims) {
    for (unsigned dim : llvm::reverse(dims)) {
      Value extent = b.create<arith::ConstantIndexOp>(loc, ranges_[dim]);
      loopIndices_[dim] = b.create<arith::RemUIOp>(loc, linear, extent);
      linear = b.create<arith::DivUIOp>(loc, linear, extent);
    }
  }

  void setParallelIndices(OpBuilder &b, Location loc, Value point) {
    loopIndices_.assign(ranges_.size(), Value());
    delinearize(b, loc, point, parallelDims_);
  }

  // Points of the reduction loops (linear indices) folded into the carried
  // accumulators in order.
  scf::ValueVector foldReductionPoints(OpBuilder &b, Location loc, ValueRange positions,
                                       ArrayRef<OpOperand *> accumulators, ValueRange carried) {
    return emitPoints(
        b, loc, positions,
        [&](Value position) { delinearize(b, loc, position, reductionDims_); }, accumulators,
        carried);
  }

  // output = combine(output, total), at the current parallel indices.
  void foldIntoOutputs(OpBuilder &b, Location loc, ArrayRef<OpOperand *> accumulators,
                       ValueRange totals) {
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    for (unsigned dim : reductionDims_)
      loopIndices_[dim] = zero;
    for (auto [init, combiner, total] : llvm::zip(accumulators, combiners_, totals))
      store(b, loc, combine(b, combiner, initialValue(b, loc, init), total), init);
  }

  // A gpu.launch of `blocks` blocks whose threads share a strided loop and
  // then a block-wide all-reduce per accumulator.
  struct BlockReductionLaunch {
    OpBuilder &b;
    Location loc;
    int64_t threads;
    gpu::LaunchOp launch;
    Value block, thread;

    BlockReductionLaunch(OpBuilder &builder, Location location, int64_t blocks, int64_t work)
        : b(builder), loc(location),
          threads(std::min<int64_t>(kThreadsPerBlock, llvm::alignTo(work, 32))) {
      Value one = constant(1);
      launch = b.create<gpu::LaunchOp>(loc, constant(blocks), one, one, constant(threads), one,
                                       one);
      b.setInsertionPointToEnd(&launch.getBody().front());
      block = launch.getBlockIds().x;
      thread = launch.getThreadIds().x;
    }
    Value constant(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

    SmallVector<Value> reduce(ArrayRef<Combiner> combiners, Value begin, Value end,
                              FoldBody body) {
      return blockReduce(b, loc, combiners, begin, end, threads, body);
    }

    void onFirstThread(function_ref<void()> emit) {
      scf::IfOp ifFirst = ifFirstThread(b, loc, thread);
      b.create<gpu::TerminatorOp>(loc);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      emit();
    }
  };

  void emitReductionLoops(OpBuilder &b, Location loc) {
    SmallVector<Value> lbs, ubs, steps, initialValues;
    for (unsigned dim : reductionDims_) {
      lbs.push_back(b.create<arith::ConstantIndexOp>(loc, 0));
      ubs.push_back(b.create<arith::ConstantIndexOp>(loc, ranges_[dim]));
      steps.push_back(b.create<arith::ConstantIndexOp>(loc, 1));
    }
    // Accumulators are indexed by the parallel loops alone: outside the
    // reduction loops, those loops' indices are a placeholder 0.
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    for (unsigned dim : reductionDims_)
      loopIndices_[dim] = zero;
    SmallVector<OpOperand *> accumulators;
    for (OpOperand &init : op_.getDpsInitsMutable())
      if (isAccumulator(op_, &init)) {
        accumulators.push_back(&init);
        initialValues.push_back(initialValue(b, loc, &init));
      }
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, initialValues,
        [&](OpBuilder &nb, Location nloc, ValueRange ivs, ValueRange carried) {
          for (auto [dim, iv] : llvm::zip(reductionDims_, ivs))
            loopIndices_[dim] = iv;
          return emitBody(nb, nloc, accumulators, carried);
        });
    for (unsigned dim : reductionDims_)
      loopIndices_[dim] = zero;
    for (auto [init, value] : llvm::zip(accumulators, nest.results))
      store(b, loc, value, init);
  }

  // One point of the op at the current indices: loads its operands, runs
  // the payload, stores the outputs that are not carried; returns the
  // carried ones.
  scf::ValueVector emitBody(OpBuilder &b, Location loc, ArrayRef<OpOperand *> accumulators,
                            ValueRange carried) {
    IRMapping mapping;
    loadOperands(b, loc, mapping, accumulators);
    scf::ValueVector next = runPayload(b, mapping, accumulators, carried);
    storeOutputs(b, loc, mapping, accumulators);
    return next;
  }

  // Several points (`setIndices` sets the loop indices of each): all their
  // loads first, so that they are in flight together (a store between them
  // could alias and would order them), then the payloads, the accumulators
  // carried from one to the next, then the stores.
  scf::ValueVector emitPoints(OpBuilder &b, Location loc, ValueRange points,
                              function_ref<void(Value)> setIndices,
                              ArrayRef<OpOperand *> accumulators, ValueRange carried) {
    SmallVector<IRMapping> mappings(points.size());
    SmallVector<SmallVector<Value>> indices;
    for (auto [point, mapping] : llvm::zip(points, mappings)) {
      setIndices(point);
      indices.push_back(loopIndices_);
      loadOperands(b, loc, mapping, accumulators);
    }
    scf::ValueVector next(carried);
    for (IRMapping &mapping : mappings)
      next = runPayload(b, mapping, accumulators, next);
    for (auto [mapping, pointIndices] : llvm::zip(mappings, indices)) {
      loopIndices_ = pointIndices;
      storeOutputs(b, loc, mapping, accumulators);
    }
    return next;
  }

  // Maps the payload's scalar arguments, the loop indices it reads, and
  // loads of the buffers it reads other than the carried accumulators.
  void loadOperands(OpBuilder &b, Location loc, IRMapping &mapping,
                    ArrayRef<OpOperand *> accumulators) {
    for (OpOperand &operand : op_->getOpOperands()) {
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (!isa<MemRefType>(operand.get().getType()))
        mapping.map(argument, scalarInKernel(b, operand.get()));  // linalg.fill's value
      else if (!llvm::is_contained(accumulators, &operand) && !argument.use_empty())
        mapping.map(argument, load(b, loc, &operand));
    }
    // linalg.index reads the point's loop indices, fixed here.
    for (auto index : op_.getBlock()->getOps<linalg::IndexOp>())
      mapping.map(index.getResult(), loopIndices_[index.getDim()]);
  }

  // The payload with the accumulators at `carried`; returns their updates.
  scf::ValueVector runPayload(OpBuilder &b, IRMapping &mapping,
                              ArrayRef<OpOperand *> accumulators, ValueRange carried) {
    for (auto [init, value] : llvm::zip(accumulators, carried))
      mapping.map(op_.getMatchingBlockArgument(init), value);
    for (Operation &inner : op_.getBlock()->without_terminator())
      if (!isa<linalg::IndexOp>(inner))
        b.clone(inner, mapping);
    auto yield = cast<linalg::YieldOp>(op_.getBlock()->getTerminator());
    scf::ValueVector next;
    for (OpOperand *init : accumulators)
      next.push_back(mapping.lookupOrDefault(
          yield.getOperand(init->getOperandNumber() - op_.getNumDpsInputs())));
    return next;
  }

  // Stores the yielded values of the outputs that are not carried, at the
  // current indices.
  void storeOutputs(OpBuilder &b, Location loc, IRMapping &mapping,
                    ArrayRef<OpOperand *> accumulators) {
    auto yield = cast<linalg::YieldOp>(op_.getBlock()->getTerminator());
    for (auto [position, value] : llvm::enumerate(yield.getValues())) {
      OpOperand *init = op_.getDpsInitOperand(position);
      if (!llvm::is_contained(accumulators, init))
        store(b, loc, mapping.lookupOrDefault(value), init);
    }
  }

  // A scalar input that the host would read from device memory (a 0-d
  // tensor's element, such as pad's padding value) is read by the kernel
  // instead, when nothing between the read and the op touches that buffer.
  Value scalarInKernel(OpBuilder &b, Value scalar) {
    auto hostLoad = scalar.getDefiningOp<memref::LoadOp>();
    if (!hostLoad || hostLoad->getBlock() != op_->getBlock())
      return scalar;
    for (Operation *between = hostLoad->getNextNode(); between != op_.getOperation();
         between = between->getNextNode())
      if (llvm::is_contained(between->getOperands(), hostLoad.getMemref()))
        return scalar;
    return b.clone(*hostLoad)->getResult(0);
  }

  Value load(OpBuilder &b, Location loc, OpOperand *operand) {
    return b.create<memref::LoadOp>(
        loc, operand->get(),
        indicesAt(b, loc, op_.getMatchingIndexingMap(operand), loopIndices_));
  }

  // What an accumulator starts from: its folded fill value, or the buffer.
  Value initialValue(OpBuilder &b, Location loc, OpOperand *init) {
    if (Value value = filled_.lookup(init))
      return value;
    return load(b, loc, init);
  }

  void store(OpBuilder &b, Location loc, Value value, OpOperand *init) {
    b.create<memref::StoreOp>(
        loc, value, init->get(),
        indicesAt(b, loc, op_.getMatchingIndexingMap(init), loopIndices_));
  }

  linalg::LinalgOp op_;
  const DenseMap<OpOperand *, Value> &filled_;
  SmallVector<Combiner> combiners_;  // one per accumulator, in init order
  SmallVector<int64_t> ranges_;
  int64_t points_ = 0, reductionSize_ = 0;
  SmallVector<unsigned> parallelDims_, reductionDims_;
  SmallVector<Value> loopIndices_;
};

// What the host side of a GPU program does itself: allocate, free, view,
// launch.
bool staysOnHost(Operation *op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return adjit::matchLibraryGemm(generic).has_value();  // a library call
  return isa<arith::ConstantOp, memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
             memref::ReinterpretCastOp, memref::SubViewOp, gpu::LaunchOp, func::ReturnOp>(op);
}

// Host code that reads or writes buffers outside structured ops (the
// loops of scatter_add, a store) runs as it is, on one GPU thread.
void runOnOneThread(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  auto launch = b.create<gpu::LaunchOp>(loc, one, one, one, one, one, one);
  b.setInsertionPointToEnd(&launch.getBody().front());
  Operation *terminator = b.create<gpu::TerminatorOp>(loc);
  op->moveBefore(terminator);
}

// What a row group's thread block runs besides structured ops: views,
// index arithmetic, and loops or branches around them.
LogicalResult checkRunsInBlock(scf::ForallOp forall) {
  WalkResult walk = forall.getBody()->walk([&](Operation *op) {
    if (isa<linalg::LinalgOp>(op))
      return WalkResult::skip();
    if (isa<scf::ForOp, scf::IfOp, scf::YieldOp, scf::InParallelOp, memref::SubViewOp,
            memref::AllocOp, memref::DeallocOp>(op) ||
        isPure(op))
      return WalkResult::advance();
    op->emitOpError("cannot run in the thread blocks of a GPU row group");
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();
  if (forall.getRank() != 1 || !forall.getResults().empty())
    return forall.emitOpError("reached GPU mapping with ")
           << forall.getRank() << " dimensions or tensor results; a row group's chunks "
           << "are one dimension of buffers";
  std::optional<int64_t> lower = getConstantIntValue(forall.getMixedLowerBound()[0]),
                         upper = getConstantIntValue(forall.getMixedUpperBound()[0]),
                         step = getConstantIntValue(forall.getMixedStep()[0]);
  if (lower != 0 || step != 1 || !upper)
    return forall.emitOpError("reached GPU mapping without a static count of chunks from 0");
  // Temporaries become views of a larger allocation: only ops that take
  // any view may use them.
  walk = forall.getBody()->walk([&](memref::AllocOp alloc) {
    if (alloc->getParentOp() == forall && alloc.getType().hasStaticShape() &&
        alloc.getType().getLayout().isIdentity() &&
        llvm::all_of(alloc->getUsers(), [](Operation *user) {
          return isa<linalg::LinalgOp, memref::DeallocOp>(user);
        }))
      return WalkResult::advance();
    alloc.emitOpError("is a temporary that a GPU row group's thread blocks cannot place");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

// The allocation or argument that a view of a buffer is taken from.
Value rootBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

// Distinct allocations never alias; arguments may alias each other.
bool mayAlias(Value a, Value b) {
  Value rootA = rootBuffer(a), rootB = rootBuffer(b);
  return rootA == rootB ||
         !(rootA.getDefiningOp<memref::AllocOp>() || rootB.getDefiningOp<memref::AllocOp>());
}

// A buffer an op in a row group's block reads or writes, and which of the
// block's threads touch which of its elements.
struct BlockAccess {
  Value buffer;
  bool writes;
  Ownership owner;
};

// Whether an op touching `second` may run right after one touching
// `first`, with no barrier between: no element that one writes is touched
// by another thread in the other.
bool sameThreads(const BlockAccess &first, const BlockAccess &second) {
  if (!(first.writes || second.writes) || !mayAlias(first.buffer, second.buffer))
    return true;
  return first.buffer == second.buffer && first.owner == second.owner &&
         first.owner != Ownership::any;
}

// For each op of a row group's block, in order, whether a barrier must
// follow it: when the next op touches an element that another thread
// wrote, or writes one that another thread touched, in an op since the last
// barrier; and at the end of each block of ops (a loop's body repeats for
// the next row). Elementwise work on a row's temporary and the reduction
// that reads it stride over the same positions on the same threads, and a
// per-row scalar that thread 0 stores is read by thread 0 alone until an op
// of all threads reads it: those follow each other with no barrier.
FailureOr<SmallVector<bool>> barriersAfter(ArrayRef<linalg::LinalgOp> ops) {
  SmallVector<SmallVector<BlockAccess>> accesses;
  for (linalg::LinalgOp op : ops) {
    FailureOr<SmallVector<Ownership>> owners = LaunchBuilder::ownershipInBlock(op);
    if (failed(owners))
      return failure();
    SmallVector<BlockAccess> &touched = accesses.emplace_back();
    for (auto [operand, owner] : llvm::zip(op->getOpOperands(), *owners))
      if (isa<MemRefType>(operand.get().getType()))
        touched.push_back({operand.get(), op.isDpsInit(&operand), owner});
  }
  SmallVector<bool> barriers;
  SmallVector<BlockAccess> sinceBarrier;
  for (size_t i = 0; i < ops.size(); ++i) {
    llvm::append_range(sinceBarrier, accesses[i]);
    bool barrier = i + 1 == ops.size() || ops[i + 1]->getBlock() != ops[i]->getBlock() ||
                   llvm::any_of(accesses[i + 1], [&](const BlockAccess &next) {
                     return llvm::any_of(sinceBarrier, [&](const BlockAccess &earlier) {
                       return !sameThreads(earlier, next);
                     });
                   });
    barriers.push_back(barrier);
    if (barrier)
      sinceBarrier.clear();
  }
  return barriers;
}

// A row group's chunks (adjit-tile-and-fuse-rows with `gpu`): the
// scf.forall becomes one launch with a thread block per chunk, whose
// threads share each structured op of the chunk's rows (buildInBlock),
// with a barrier where barriersAfter finds one needed. A chunk's
// temporaries are its block's slice of one allocation per temporary.
LogicalResult mapChunksToBlocks(scf::ForallOp forall, const DenseMap<OpOperand *, Value> &filled,
                                int64_t maxThreads) {
  if (failed(checkRunsInBlock(forall)))
    return failure();
  SmallVector<linalg::LinalgOp> ops;
  int64_t work = 1;
  WalkResult walk = forall.getBody()->walk([&](linalg::LinalgOp op) {
    FailureOr<int64_t> opWork = LaunchBuilder::work(op);
    if (failed(opWork))
      return WalkResult::interrupt();
    work = std::max(work, *opWork);
    ops.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  int64_t chunks = *getConstantIntValue(forall.getMixedUpperBound()[0]);
  int64_t threads = std::min<int64_t>(maxThreads, llvm::alignTo(work, 32));
  OpBuilder b(forall);
  Location loc = forall.getLoc();
  auto constant = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
  SmallVector<Value> temporaries;
  SmallVector<memref::AllocOp> chunkAllocs(forall.getBody()->getOps<memref::AllocOp>());
  for (memref::AllocOp alloc : chunkAllocs) {
    SmallVector<int64_t> shape{chunks};
    llvm::append_range(shape, alloc.getType().getShape());
    temporaries.push_back(b.create<memref::AllocOp>(
        loc, MemRefType::get(shape, alloc.getType().getElementType()), alloc.getAlignmentAttr()));
  }
  Value one = constant(1);
  auto launch = b.create<gpu::LaunchOp>(loc, constant(chunks), one, one, constant(threads), one,
                                        one);
  Block &body = launch.getBody().front();
  body.getOperations().splice(body.end(), forall.getBody()->getOperations());
  forall.getInductionVar(0).replaceAllUsesWith(launch.getBlockIds().x);
  body.getTerminator()->erase();  // scf.forall.in_parallel, empty on buffers
  b.setInsertionPointToEnd(&body);
  b.create<gpu::TerminatorOp>(loc);
  b.setInsertionPointAfter(launch);
  for (Value temporary : temporaries)
    b.create<memref::DeallocOp>(loc, temporary);
  forall->erase();
  for (auto [alloc, temporary] : llvm::zip(chunkAllocs, temporaries)) {
    b.setInsertionPoint(alloc);
    MemRefType type = alloc.getType();
    SmallVector<OpFoldResult> offsets(type.getRank() + 1, b.getIndexAttr(0)),
        sizes{b.getIndexAttr(1)}, strides(type.getRank() + 1, b.getIndexAttr(1));
    offsets[0] = launch.getBlockIds().x;
    for (int64_t extent : type.getShape())
      sizes.push_back(b.getIndexAttr(extent));
    auto sliceType = memref::SubViewOp::inferRankReducedResultType(
        type.getShape(), cast<MemRefType>(temporary.getType()), offsets, sizes, strides);
    Value slice = b.create<memref::SubViewOp>(alloc.getLoc(), cast<MemRefType>(sliceType),
                                              temporary, offsets, sizes, strides);
    for (OpOperand &use : llvm::make_early_inc_range(alloc->getUses())) {
      if (isa<memref::DeallocOp>(use.getOwner()))
        use.getOwner()->erase();
      else
        use.set(slice);
    }
    alloc->erase();
  }
  FailureOr<SmallVector<bool>> barriers = barriersAfter(ops);
  if (failed(barriers))
    return failure();
  for (auto [op, barrier] : llvm::zip(ops, *barriers)) {
    b.setInsertionPointAfter(op);
    if (barrier)
      b.create<gpu::BarrierOp>(op.getLoc());
    if (failed(LaunchBuilder(op, filled).buildInBlock(launch.getThreadIds().x, threads)))
      return failure();
  }
  return success();
}

// A linalg.fill of a whole buffer (an allocation or an argument, not a
// view) whose next user accumulates into it (a reduction's output, every
// point of which the reduction's kernel writes): that kernel starts from the
// fill's value instead, and the fill's launch goes. Contractions left to the
// GEMM library keep their fills. Returns the outputs and their values;
// erases the fills.
DenseMap<OpOperand *, Value> foldFillsIntoReductions(ModuleOp module, bool gemmLibrary) {
  DenseMap<OpOperand *, Value> filled;
  SmallVector<linalg::FillOp> fills;
  module.walk([&](linalg::FillOp fill) { fills.push_back(fill); });
  for (linalg::FillOp fill : fills) {
    if (!fill.hasPureBufferSemantics())
      continue;
    Value buffer = fill.getDpsInits()[0];
    if (!isa<BlockArgument>(buffer) && !buffer.getDefiningOp<memref::AllocOp>())
      continue;
    linalg::GenericOp generic;
    for (Operation *next = fill->getNextNode(); next; next = next->getNextNode())
      if (llvm::is_contained(next->getOperands(), buffer)) {
        generic = dyn_cast<linalg::GenericOp>(next);
        break;
      }
    if (!generic || !generic.hasPureBufferSemantics() || generic.getNumReductionLoops() == 0 ||
        llvm::is_contained(generic.getDpsInputs(), buffer) ||
        (gemmLibrary && adjit::matchLibraryGemm(generic)))
      continue;
    // Nothing else reads the buffer before the reduction has written it.
    if (llvm::any_of(buffer.getUsers(), [&](Operation *user) {
          return user != fill && user != generic &&
                 (user->getBlock() != generic->getBlock() || user->isBeforeInBlock(generic));
        }))
      continue;
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (init.get() == buffer && isAccumulator(generic, &init)) {
        filled[&init] = fill.getInputs()[0];
        fill->erase();
        break;
      }
  }
  return filled;
}

struct MapToGpuPass : adjit::impl::MapToGpuBase<MapToGpuPass> {
  using MapToGpuBase::MapToGpuBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    // A product into zeros overwrites its output: one fill kernel fewer.
    if (gemmLibrary)
      module.walk([](linalg::GenericOp generic) {
        if (adjit::matchLibraryGemm(generic))
          adjit::absorbZeroFillIntoLibraryGemm(generic);
      });
    DenseMap<OpOperand *, Value> filled = foldFillsIntoReductions(module, gemmLibrary);
    SmallVector<scf::ForallOp> chunked;
    module.walk([&](scf::ForallOp forall) { chunked.push_back(forall); });
    int64_t maxRowThreads = rowThreads;
    if (maxRowThreads < 32 || maxRowThreads > 1024 || maxRowThreads % 32 != 0) {
      module.emitError() << "row-threads must be a multiple of 32 from 32 to 1024, got "
                         << maxRowThreads;
      return signalPassFailure();
    }
    for (scf::ForallOp forall : chunked)
      if (failed(mapChunksToBlocks(forall, filled, maxRowThreads)))
        return signalPassFailure();
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!(gemmLibrary && generic && adjit::matchLibraryGemm(generic)))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      if (failed(LaunchBuilder(op, filled).build()))
        return signalPassFailure();
    for (auto fn : module.getOps<func::FuncOp>()) {
      for (Operation &op : llvm::make_early_inc_range(fn.getOps())) {
        // Host control flow around kernels stays: GPU programs do not run
        // it yet, and say so when the launch plan is made.
        if (staysOnHost(&op) || op.walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
                                    .wasInterrupted())
          continue;
        if (isa<memref::LoadOp>(op) && op.use_empty())
          op.erase();  // read by the kernels themselves now
        else if (op.use_empty() && op.getNumRegions() + op.getNumResults() > 0 &&
                 !isPure(&op))
          runOnOneThread(&op);
        else if (op.getNumResults() == 0)
          runOnOneThread(&op);
      }
    }
  }
};

} // namespace
