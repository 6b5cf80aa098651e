// adjit-emulate-gpu-launches: runs gpu.launch ops (before kernel outlining)
// as loops on the host, with the GPU's meaning of gpu.barrier and
// gpu.all_reduce, so that tests check the numbers adjit-map-to-gpu's kernels
// compute on machines without a GPU (CI).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_EMULATEGPULAUNCHES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// How gpu.all_reduce's attribute combines two values.
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind, Value x, Value y) {
  using K = gpu::AllReduceOperation;
  switch (kind) {
  case K::ADD:
    return isa<FloatType>(x.getType()) ? b.create<arith::AddFOp>(loc, x, y).getResult()
                                       : b.create<arith::AddIOp>(loc, x, y).getResult();
  case K::MUL:
    return isa<FloatType>(x.getType()) ? b.create<arith::MulFOp>(loc, x, y).getResult()
                                       : b.create<arith::MulIOp>(loc, x, y).getResult();
  case K::MINUI:
    return b.create<arith::MinUIOp>(loc, x, y);
  case K::MINSI:
    return b.create<arith::MinSIOp>(loc, x, y);
  case K::MINNUMF:
    return b.create<arith::MinNumFOp>(loc, x, y);
  case K::MAXUI:
    return b.create<arith::MaxUIOp>(loc, x, y);
  case K::MAXSI:
    return b.create<arith::MaxSIOp>(loc, x, y);
  case K::MAXNUMF:
    return b.create<arith::MaxNumFOp>(loc, x, y);
  case K::AND:
    return b.create<arith::AndIOp>(loc, x, y);
  case K::OR:
    return b.create<arith::OrIOp>(loc, x, y);
  case K::XOR:
    return b.create<arith::XOrIOp>(loc, x, y);
  case K::MINIMUMF:
    return b.create<arith::MinimumFOp>(loc, x, y);
  case K::MAXIMUMF:
    return b.create<arith::MaximumFOp>(loc, x, y);
  }
  llvm_unreachable("unknown gpu.all_reduce operation");
}

bool isSync(Operation *op) { return isa<gpu::BarrierOp, gpu::AllReduceOp>(op); }

bool containsSync(Operation *op) {
  return op->walk([](Operation *inner) {
             return isSync(inner) ? WalkResult::interrupt() : WalkResult::advance();
           })
      .wasInterrupted();
}

// The launch body as the emulation runs it: segments, which every thread
// of a block runs before any runs what follows; synchronisations; and loops
// that synchronise inside, whose bounds every thread shares, so that the
// emulation runs them once for the block with their bodies' items inside.
struct Item {
  enum Kind { segment, sync, loop } kind;
  Operation *op = nullptr;         // a sync's or a loop's op
  int number = -1;                 // a segment's
  std::vector<Item> body;          // a loop's (a vector of a type still incomplete here)
};

class LaunchEmulator {
public:
  explicit LaunchEmulator(gpu::LaunchOp launch) : launch_(launch), b_(launch) {}

  LogicalResult emulate() {
    Location loc = launch_.getLoc();
    if (launch_.getAsyncToken() || !launch_.getAsyncDependencies().empty() ||
        launch_.getClusterSizeX() || launch_.getDynamicSharedMemorySize() ||
        !launch_.getPrivateAttributions().empty() || !launch_.getBody().hasOneBlock())
      return launch_.emitOpError("is not a plain launch this emulation runs");
    for (auto [size, operand] : llvm::zip(sizes_, launchSizes())) {
      std::optional<int64_t> known = getConstantIntValue(operand);
      if (!known)
        return launch_.emitOpError("has a grid or block size that is not a constant");
      size = *known;
    }
    // Checked before anything is emitted, so that a failure leaves the IR.
    if (failed(collect(launch_.getBody().front(), items_)))
      return failure();
    WalkResult reduces = launch_.walk([&](gpu::AllReduceOp reduce) {
      if (!reduce.getOp()) {
        reduce.emitOpError("with a region is not emulated");
        return WalkResult::interrupt();
      }
      Operation *producer = reduce.getValue().getDefiningOp();
      if (!producer || !segmentOfOp_.count(producer)) {
        reduce.emitOpError("reduces a value no segment computes per thread, which the "
                           "emulation does not run");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (reduces.wasInterrupted())
      return failure();
    auto constant = [&](int64_t v) -> Value { return b_.create<arith::ConstantIndexOp>(loc, v); };
    threads_ = sizes_[3] * sizes_[4] * sizes_[5];
    // Blocks run one after the other, so one copy of the block's memory
    // serves them all: its shared memory, and an array with an element per
    // thread for each value that one segment defines and another uses.
    for (BlockArgument shared : launch_.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(shared.getType());
      mapping_.map(shared, b_.create<memref::AllocaOp>(
                               loc, MemRefType::get(type.getShape(), type.getElementType())));
    }
    for (auto [op, segment] : segmentOfOp_)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&, segment = segment](Operation *user) {
              return segmentOf(user) != segment;
            }))
          perThread_[result] = b_.create<memref::AllocaOp>(
              loc, MemRefType::get({threads_}, result.getType()));
    SmallVector<Value> gridLoops = nest(constant, {sizes_[2], sizes_[1], sizes_[0]});
    mapping_.map(launch_.getBlockIds().x, gridLoops[2]);
    mapping_.map(launch_.getBlockIds().y, gridLoops[1]);
    mapping_.map(launch_.getBlockIds().z, gridLoops[0]);
    gpu::KernelDim3 gridSize = launch_.getGridSize(), blockSize = launch_.getBlockSize();
    for (auto [argument, size] :
         llvm::zip(std::array{gridSize.x, gridSize.y, gridSize.z, blockSize.x, blockSize.y,
                              blockSize.z},
                   sizes_))
      mapping_.map(argument, constant(size));
    emitItems(loc, constant, items_);
    launch_->erase();
    return success();
  }

private:
  std::array<int64_t, 6> sizes_{};

  LogicalResult collect(Block &block, std::vector<Item> &items) {
    for (Operation &op : block.without_terminator()) {
      if (isSync(&op)) {
        items.push_back({Item::sync, &op});
        continue;
      }
      if (!containsSync(&op)) {
        if (items.empty() || items.back().kind != Item::segment)
          items.push_back({Item::segment, nullptr, segments_++});
        segmentOfOp_[&op] = items.back().number;
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(&op);
      if (!loop || loop.getNumResults() != 0 ||
          llvm::any_of(loop->getOperands(), [&](Value bound) { return !isUniform(bound); }))
        return op.emitOpError("synchronises inside a nested region, which the emulation does "
                              "not run (only inside a loop without results whose bounds "
                              "every thread shares)");
      items.push_back({Item::loop, &op});
      if (failed(collect(*loop.getBody(), items.back().body)))
        return failure();
    }
    return success();
  }

  // A constant, a value from outside the launch, or a block index or size.
  bool isUniform(Value v) {
    Operation *owner = v.getParentBlock()->getParentOp();
    if (matchPattern(v, m_Constant()) ||
        (owner != launch_.getOperation() && !launch_->isProperAncestor(owner)))
      return true;
    gpu::KernelDim3 ids = launch_.getBlockIds(), grid = launch_.getGridSize(),
                    block = launch_.getBlockSize();
    return llvm::is_contained(std::array{ids.x, ids.y, ids.z, grid.x, grid.y, grid.z, block.x,
                                         block.y, block.z},
                              v);
  }

  void emitItems(Location loc, function_ref<Value(int64_t)> constant, ArrayRef<Item> items) {
    for (const Item &item : items) {
      switch (item.kind) {
      case Item::segment:
        emitSegment(loc, constant, item.number);
        break;
      case Item::sync:
        afterSync(loc, constant, item.op);
        break;
      case Item::loop: {
        auto loop = cast<scf::ForOp>(item.op);
        auto host = b_.create<scf::ForOp>(loc, mapping_.lookupOrDefault(loop.getLowerBound()),
                                          mapping_.lookupOrDefault(loop.getUpperBound()),
                                          mapping_.lookupOrDefault(loop.getStep()));
        mapping_.map(loop.getInductionVar(), host.getInductionVar());
        OpBuilder::InsertionGuard guard(b_);
        b_.setInsertionPoint(host.getBody()->getTerminator());
        emitItems(loc, constant, item.body);
        break;
      }
      }
    }
  }

  // Segment `s` for every thread of the block, in order.
  void emitSegment(Location loc, function_ref<Value(int64_t)> constant, int s) {
    OpBuilder::InsertionGuard guard(b_);
    SmallVector<Value> threadLoops = nest(constant, {sizes_[5], sizes_[4], sizes_[3]});
    IRMapping segment = mapping_;
    gpu::KernelDim3 threadIds = launch_.getThreadIds();
    segment.map(threadIds.x, threadLoops[2]);
    segment.map(threadIds.y, threadLoops[1]);
    segment.map(threadIds.z, threadLoops[0]);
    Value linear = b_.create<arith::AddIOp>(
        loc, threadLoops[2],
        b_.create<arith::MulIOp>(
            loc, constant(sizes_[3]),
            b_.create<arith::AddIOp>(
                loc, threadLoops[1],
                b_.create<arith::MulIOp>(loc, constant(sizes_[4]), threadLoops[0]))));
    for (auto [value, array] : perThread_)
      if (segmentOf(value.getDefiningOp()) != s &&
          llvm::any_of(value.getUsers(), [&](Operation *user) { return segmentOf(user) == s; }))
        segment.map(value, b_.create<memref::LoadOp>(loc, array, linear));
    SmallVector<Operation *> ops;
    for (auto [op, opSegment] : segmentOfOp_)
      if (opSegment == s)
        ops.push_back(op);
    for (Operation *op : ops)
      b_.clone(*op, segment);
    for (Operation *op : ops)
      for (Value result : op->getResults())
        if (perThread_.count(result))
          b_.create<memref::StoreOp>(loc, segment.lookup(result), perThread_[result], linear);
  }

  SmallVector<Value, 6> launchSizes() {
    gpu::KernelDim3 grid = launch_.getGridSizeOperandValues(),
                    block = launch_.getBlockSizeOperandValues();
    return {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  }

  // Loops nested outermost first over `extents`; the builder is left in
  // the innermost body. Returns their induction variables.
  SmallVector<Value> nest(function_ref<Value(int64_t)> constant, ArrayRef<int64_t> extents) {
    SmallVector<Value> ivs;
    for (int64_t extent : extents) {
      auto loop = b_.create<scf::ForOp>(launch_.getLoc(), constant(0), constant(extent),
                                        constant(1));
      b_.setInsertionPointToStart(loop.getBody());
      ivs.push_back(loop.getInductionVar());
    }
    return ivs;
  }

  // A gpu.all_reduce folds every thread's operand, in thread order, into
  // the value the next segments see; a barrier needs nothing more.
  void afterSync(Location loc, function_ref<Value(int64_t)> constant, Operation *sync) {
    auto reduce = dyn_cast<gpu::AllReduceOp>(sync);
    if (!reduce)
      return;
    Value array = perThread_.lookup(reduce.getValue());
    Value first = b_.create<memref::LoadOp>(loc, array, constant(0));
    auto loop = b_.create<scf::ForOp>(
        loc, constant(1), constant(threads_), constant(1), ValueRange{first},
        [&](OpBuilder &lb, Location lloc, Value t, ValueRange carried) {
          Value next = lb.create<memref::LoadOp>(lloc, array, t);
          lb.create<scf::YieldOp>(lloc, combine(lb, lloc, *reduce.getOp(), carried[0], next));
        });
    mapping_.map(reduce.getResult(), loop.getResult(0));
  }

  // The segment an op (or the op around it) belongs to; -1 for a
  // synchronisation or a loop that holds some.
  int segmentOf(Operation *op) {
    for (; op && op != launch_; op = op->getParentOp())
      if (auto it = segmentOfOp_.find(op); it != segmentOfOp_.end())
        return it->second;
    return -1;
  }

  gpu::LaunchOp launch_;
  OpBuilder b_;
  int64_t threads_ = 0;
  int segments_ = 0;
  std::vector<Item> items_;
  llvm::MapVector<Operation *, int> segmentOfOp_;  // in program order
  IRMapping mapping_;  // block ids, sizes, shared memory, loop indices, reductions
  llvm::MapVector<Value, Value> perThread_;
};

struct EmulateGpuLaunchesPass
    : adjit::impl::EmulateGpuLaunchesBase<EmulateGpuLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(LaunchEmulator(launch).emulate()))
        return signalPassFailure();
    getOperation()->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
