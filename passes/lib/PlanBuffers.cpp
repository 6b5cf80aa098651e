// adjit-plan-buffers: each temporary lives from its first to its last use.
//
// After bufferization, ownership-based deallocation frees each temporary at
// the end of its block, so every temporary of a function body is live until
// the function returns and the peak is their sum. Here each top-level
// temporary is allocated just before its first use and freed just after its
// last, so that the caching allocator hands the memory of dead buffers to
// the ones made after them.
//
// (One arena with a buffer at a fixed offset each, as XLA and TFLite do,
// was tried first: the buffers then share one LLVM object, the loop
// vectorizer could no longer tell apart a chunk's writes to one buffer from
// its reads of another, and W3's gradient ran 7x slower. Separate
// allocations keep them apart.)
#include "BufferUses.h"

#include "adjit/Passes/BufferPlan.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_PLANBUFFERS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {

// The first op of `users` in program order within `scope` (itself
// included), views aside.
Operation *firstUser(Operation *scope, const llvm::SmallPtrSetImpl<Operation *> &users) {
  Operation *first = nullptr;
  scope->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!users.contains(op) || isa<ViewLikeOpInterface>(op))
      return WalkResult::advance();
    first = op;
    return WalkResult::interrupt();
  });
  return first;
}

// First and last top-level use, the maker and the one deallocation of a
// top-level temporary of `body`, or the reason it cannot be placed.
LogicalResult findLifetime(PlannedBuffer &buffer, Block &body,
                           const DenseMap<Operation *, int64_t> &position,
                           ArrayRef<Operation *> topLevel) {
  int deallocs = 0;
  bool escapes = false, nestedDealloc = false;
  llvm::SmallPtrSet<Operation *, 8> users;
  forEachBufferUser(buffer.alloc.getResult(), [&](Operation *user) {
    if (auto free = dyn_cast<memref::DeallocOp>(user)) {
      if (free.getMemref() != buffer.alloc.getResult() || user->getBlock() != &body)
        nestedDealloc = true;
      ++deallocs;
      return;
    }
    if (carriesBufferOut(user))
      escapes = true;
    users.insert(user);
    int64_t at = position.lookup(body.findAncestorOpInBlock(*user));
    buffer.firstUse = buffer.firstUse < 0 ? at : std::min(buffer.firstUse, at);
    buffer.lastUse = std::max(buffer.lastUse, at);
  }, /*visitViews=*/true);
  if (escapes) {
    buffer.reason = "it is returned, yielded or passed to a call";
    return failure();
  }
  if (nestedDealloc || deallocs != 1) {
    buffer.reason = "it is not freed exactly once in its block";
    return failure();
  }
  if (buffer.firstUse < 0) {
    buffer.reason = "nothing uses it";
    return failure();
  }
  buffer.maker = firstUser(topLevel[buffer.firstUse], users);
  return success();
}

} // namespace

std::optional<int64_t> mlir::adjit::sizeInBytes(ShapedType type) {
  Type element = type.getElementType();
  int64_t elementBytes = element.isIndex()        ? 8
                         : element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8
                                                  : 0;
  if (!type.hasStaticShape() || elementBytes == 0)
    return std::nullopt;
  return type.getNumElements() * elementBytes;
}

BufferPlan mlir::adjit::planBuffers(func::FuncOp function) {
  BufferPlan plan;
  if (function.isExternal())
    return plan;
  Block &body = function.getBody().front();
  DenseMap<Operation *, int64_t> position;
  SmallVector<Operation *> topLevel;
  for (Operation &op : body) {
    position[&op] = plan.opCount++;
    topLevel.push_back(&op);
  }
  bool singleBlock = function.getBody().hasOneBlock();

  function.walk<WalkOrder::PreOrder>([&](memref::AllocOp alloc) {
    PlannedBuffer buffer;
    buffer.alloc = alloc;
    buffer.bytes = sizeInBytes(alloc.getType());
    if (!singleBlock)
      buffer.reason = "the function has several blocks";
    else if (alloc->getBlock() != &body)
      buffer.reason = "a loop's or parallel chunk's own, allocated for each run";
    else
      (void)findLifetime(buffer, body, position, topLevel);
    if (!buffer.maker) {
      llvm::SmallPtrSet<Operation *, 8> users;
      forEachBufferUser(alloc.getResult(), [&](Operation *user) { users.insert(user); });
      buffer.maker = firstUser(alloc->getParentOp(), users);
    }
    plan.buffers.push_back(std::move(buffer));
  });

  // Live bytes at each top-level op, planned and not: each buffer adds its
  // size over an interval (a difference array keeps this linear).
  SmallVector<int64_t> change(plan.opCount + 1, 0), changeUnplanned(plan.opCount + 1, 0);
  for (PlannedBuffer &buffer : plan.buffers) {
    int64_t bytes = buffer.bytes.value_or(0);
    bool topLevel = buffer.alloc->getBlock() == &body;
    int64_t around = position.lookup(body.findAncestorOpInBlock(*buffer.alloc));
    int64_t from = topLevel ? 0 : around, to = topLevel ? plan.opCount - 1 : around;
    changeUnplanned[from] += bytes;
    changeUnplanned[to + 1] -= bytes;
    if (buffer.planned())
      from = buffer.firstUse, to = buffer.lastUse;
    change[from] += bytes;
    change[to + 1] -= bytes;
  }
  for (int64_t at = 0, live = 0, liveUnplanned = 0; at < plan.opCount; ++at) {
    live += change[at];
    liveUnplanned += changeUnplanned[at];
    plan.peakBytes = std::max(plan.peakBytes, live);
    plan.unplannedPeakBytes = std::max(plan.unplannedPeakBytes, liveUnplanned);
  }
  return plan;
}

namespace {

struct PlanBuffersPass : adjit::impl::PlanBuffersBase<PlanBuffersPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    BufferPlan plan = planBuffers(function);
    Block &body = function.getBody().front();
    SmallVector<Operation *> topLevel;
    for (Operation &op : body)
      topLevel.push_back(&op);
    for (PlannedBuffer &buffer : plan.buffers) {
      if (!buffer.planned())
        continue;
      memref::AllocOp alloc = buffer.alloc;
      alloc->moveBefore(topLevel[buffer.firstUse]);
      for (Operation *user : alloc->getUsers())
        if (isa<memref::DeallocOp>(user)) {
          user->moveAfter(topLevel[buffer.lastUse]);
          break;
        }
    }
  }
};

} // namespace
