// adjit-plan-buffers: each temporary lives from its first to its last use,
// at a fixed offset of one arena per call.
//
// After bufferization, ownership-based deallocation frees each temporary at
// the end of its block, so every temporary of a function body is live until
// the function returns and the peak is their sum. Here each top-level
// temporary of static size gets an offset in one arena, allocated once per
// call, chosen so that temporaries live at the same time never overlap (as
// XLA's buffer assignment and TFLite's arena planner do); one of run-time
// size is allocated just before its first use and freed just after its
// last. The arena's buffers are `adjit.arena_buffer` ops, which LLVM sees as
// separate allocations (a call returning a noalias pointer), so sharing one
// arena costs no alias information: as views of one allocation, the loop
// vectorizer could not tell a chunk's writes to one buffer from its reads
// of another, and W3's gradient ran 7x slower (measured).
#include "BufferUses.h"

#include "adjit/Dialect/AdjitOps.h"
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

// Every op of a function numbered in program order (pre-order), once: the
// first of a buffer's users is then found without walking the loops around
// them again for every buffer.
using ProgramOrder = DenseMap<Operation *, int64_t>;

// The first op of `users` in program order, views aside (null if none).
Operation *firstUser(const llvm::SmallPtrSetImpl<Operation *> &users, const ProgramOrder &order) {
  Operation *first = nullptr;
  for (Operation *user : users)
    if (!isa<ViewLikeOpInterface>(user) && (!first || order.lookup(user) < order.lookup(first)))
      first = user;
  return first;
}

// First and last top-level use, the maker and the one deallocation of a
// top-level temporary of `body`, or the reason it cannot be placed.
LogicalResult findLifetime(PlannedBuffer &buffer, Block &body,
                           const DenseMap<Operation *, int64_t> &position,
                           const ProgramOrder &order) {
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
  buffer.maker = firstUser(users, order);
  return success();
}

// Arena buffers of a cache line or more start on one, as the runtime's
// allocations do.
constexpr int64_t kArenaAlignment = 64;

int64_t alignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

} // namespace

int64_t mlir::adjit::placeInArena(MutableArrayRef<ArenaSlot> slots) {
  // Greedy by size, as TFLite's arena planner: the largest slot first, each
  // into the smallest gap that fits it between the slots already placed
  // that are live at the same time, else above them all.
  SmallVector<size_t> order(slots.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](size_t a, size_t b) {
    return slots[a].bytes != slots[b].bytes ? slots[a].bytes > slots[b].bytes
                                            : slots[a].firstUse < slots[b].firstUse;
  });
  // Placed slots by offset: one scan finds the gaps, with no sorting per
  // slot (programs with thousands of temporaries live at once exist).
  SmallVector<size_t> byOffset;
  int64_t arenaBytes = 0;
  for (size_t i : order) {
    ArenaSlot &slot = slots[i];
    std::optional<int64_t> best;
    int64_t bestWaste = 0, top = 0;
    for (size_t j : byOffset) {
      const ArenaSlot &other = slots[j];
      if (other.firstUse > slot.lastUse || slot.firstUse > other.lastUse)
        continue;
      int64_t at = alignUp(top, slot.alignment);
      if (at + slot.bytes <= other.offset && (!best || other.offset - at - slot.bytes < bestWaste)) {
        best = at;
        bestWaste = other.offset - at - slot.bytes;
      }
      top = std::max(top, other.offset + other.bytes);
    }
    slot.offset = best ? *best : alignUp(top, slot.alignment);
    arenaBytes = std::max(arenaBytes, slot.offset + slot.bytes);
    byOffset.insert(llvm::upper_bound(byOffset, slot.offset,
                                      [&](int64_t offset, size_t j) { return offset < slots[j].offset; }),
                    i);
  }
  return arenaBytes;
}

std::optional<int64_t> mlir::adjit::sizeInBytes(ShapedType type) {
  Type element = type.getElementType();
  int64_t elementBytes = element.isIndex()        ? 8
                         : element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8
                                                  : 0;
  if (!type.hasStaticShape() || elementBytes == 0)
    return std::nullopt;
  // A size past a quarter of int64 cannot be allocated: left unplanned (its
  // allocation fails when it runs), so that no offset arithmetic overflows.
  int64_t bytes = elementBytes;
  for (int64_t extent : type.getShape())
    if (__builtin_mul_overflow(bytes, extent, &bytes) || bytes > (int64_t{1} << 61))
      return std::nullopt;
  return bytes;
}

BufferPlan mlir::adjit::planBuffers(func::FuncOp function) {
  BufferPlan plan;
  if (function.isExternal())
    return plan;
  Block &body = function.getBody().front();
  DenseMap<Operation *, int64_t> position;
  for (Operation &op : body)
    position[&op] = plan.opCount++;
  ProgramOrder order;
  function.walk<WalkOrder::PreOrder>([&](Operation *op) { order[op] = order.size(); });
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
      (void)findLifetime(buffer, body, position, order);
    if (!buffer.maker) {
      llvm::SmallPtrSet<Operation *, 8> users;
      forEachBufferUser(alloc.getResult(), [&](Operation *user) { users.insert(user); });
      buffer.maker = firstUser(users, order);
    }
    plan.buffers.push_back(std::move(buffer));
  });

  // Planned buffers of static size share the arena.
  plan.arenaAlignment = kArenaAlignment;
  SmallVector<ArenaSlot> slots;
  SmallVector<PlannedBuffer *> inArena;
  for (PlannedBuffer &buffer : plan.buffers) {
    if (!buffer.planned() || !buffer.bytes || *buffer.bytes == 0)
      continue;
    // A buffer of a cache line or more starts on one (or at a larger
    // alignment its allocation asks for); a smaller one at its size rounded
    // up to a power of two, so that a row loop's thousands of scalars do
    // not take a line each.
    int64_t alignment = std::min<int64_t>(kArenaAlignment, llvm::PowerOf2Ceil(*buffer.bytes));
    int64_t asked = buffer.alloc.getAlignment().value_or(1);
    if (asked > kArenaAlignment)
      alignment = asked;
    plan.arenaAlignment = std::max(plan.arenaAlignment, alignment);
    slots.push_back({buffer.firstUse, buffer.lastUse, *buffer.bytes, alignment});
    inArena.push_back(&buffer);
  }
  plan.arenaBytes = alignUp(placeInArena(slots), kArenaAlignment);
  for (auto [slot, buffer] : llvm::zip_equal(slots, inArena))
    buffer->offset = slot.offset;

  // Bytes held at each top-level op, planned and not: each buffer outside
  // the arena adds its size over an interval (a difference array keeps
  // this linear).
  SmallVector<int64_t> change(plan.opCount + 1, 0), changeUnplanned(plan.opCount + 1, 0);
  for (PlannedBuffer &buffer : plan.buffers) {
    int64_t bytes = buffer.bytes.value_or(0);
    bool topLevel = buffer.alloc->getBlock() == &body;
    int64_t around = position.lookup(body.findAncestorOpInBlock(*buffer.alloc));
    int64_t from = topLevel ? 0 : around, to = topLevel ? plan.opCount - 1 : around;
    changeUnplanned[from] += bytes;
    changeUnplanned[to + 1] -= bytes;
    if (buffer.offset)
      continue;
    if (buffer.planned())
      from = buffer.firstUse, to = buffer.lastUse;
    change[from] += bytes;
    change[to + 1] -= bytes;
  }
  plan.peakBytes = plan.arenaBytes;
  for (int64_t at = 0, live = plan.arenaBytes, liveUnplanned = 0; at < plan.opCount; ++at) {
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
    OpBuilder b(function.getContext());
    Value arena;
    if (plan.arenaBytes > 0) {
      b.setInsertionPointToStart(&body);
      arena = b.create<memref::AllocOp>(
          function.getLoc(), MemRefType::get({plan.arenaBytes}, b.getI8Type()),
          b.getI64IntegerAttr(plan.arenaAlignment));
      b.setInsertionPoint(body.getTerminator());
      b.create<memref::DeallocOp>(function.getLoc(), arena);
    }
    for (PlannedBuffer &buffer : plan.buffers) {
      if (!buffer.planned())
        continue;
      memref::AllocOp alloc = buffer.alloc;
      memref::DeallocOp dealloc;
      for (Operation *user : alloc->getUsers())
        if ((dealloc = dyn_cast<memref::DeallocOp>(user)))
          break;
      if (!buffer.offset) {
        alloc->moveBefore(topLevel[buffer.firstUse]);
        dealloc->moveAfter(topLevel[buffer.lastUse]);
        continue;
      }
      b.setInsertionPoint(topLevel[buffer.firstUse]);
      auto placed = b.create<ArenaBufferOp>(alloc.getLoc(), alloc.getType(), arena,
                                            *buffer.offset);
      b.setInsertionPointAfter(topLevel[buffer.lastUse]);
      b.create<ArenaReleaseOp>(dealloc.getLoc(), placed);
      dealloc.erase();
      alloc.replaceAllUsesWith(placed.getResult());
      alloc.erase();
    }
  }
};

} // namespace
