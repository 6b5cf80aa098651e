#ifndef ADJIT_PASSES_BUFFERPLAN_H
#define ADJIT_PASSES_BUFFERPLAN_H

// When the temporaries of a bufferized function live and where in its
// arena they are placed: computed by planBuffers, applied by
// adjit-plan-buffers, reported by Program::memory_plan and
// `adjit compile --emit=memory-plan`.

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <optional>
#include <string>

namespace mlir::adjit {

/// One temporary buffer (a memref.alloc) of a function.
struct PlannedBuffer {
  memref::AllocOp alloc;
  /// Its size in bytes, when its shape is static.
  std::optional<int64_t> bytes;
  /// The top-level ops of the function's body that use it, numbered from
  /// 0: the first and the last (an op using it inside a loop or parallel
  /// chunk counts as the top-level op that contains it).
  int64_t firstUse = -1, lastUse = -1;
  /// The first op in program order that uses it, views aside: the one
  /// that writes it (null when nothing does).
  Operation *maker = nullptr;
  /// Its place in the function's arena, in bytes from the arena's start:
  /// every planned buffer of static size has one.
  std::optional<int64_t> offset;
  /// Why its lifetime is not planned (empty when it is): it is then live
  /// for as long as the op that allocates it runs (the whole function for
  /// a top-level temporary, one chunk or iteration for a nested one).
  std::string reason;
  bool planned() const { return reason.empty(); }
};

/// The temporaries of one function, in program order, with their
/// lifetimes and places.
struct BufferPlan {
  SmallVector<PlannedBuffer> buffers;
  /// The size of the arena that holds the buffers with an offset: one
  /// allocation for the whole call.
  int64_t arenaBytes = 0;
  /// The arena's alignment: a cache line, or the largest alignment one of
  /// its buffers needs.
  int64_t arenaAlignment = 1;
  /// The most bytes of temporaries held at once: the arena, plus the other
  /// planned buffers live from their first to their last use and the
  /// unplanned ones for as long as the top-level op around them (a nested
  /// temporary counted once: per running chunk).
  int64_t peakBytes = 0;
  /// The same if nothing were planned: what deallocation at block ends
  /// (upstream's) keeps live.
  int64_t unplannedPeakBytes = 0;
  /// Top-level ops of the function's body.
  int64_t opCount = 0;
};

BufferPlan planBuffers(func::FuncOp function);

/// A buffer to place in an arena: live in [firstUse, lastUse] (inclusive),
/// `bytes` long, at a multiple of `alignment` (a power of two).
struct ArenaSlot {
  int64_t firstUse = 0, lastUse = 0, bytes = 0, alignment = 1;
  int64_t offset = 0;
};

/// Sets every slot's offset so that slots whose lifetimes intersect do not
/// overlap; returns the arena's size.
int64_t placeInArena(MutableArrayRef<ArenaSlot> slots);

/// The bytes of a tensor or memref of static shape and numeric elements.
std::optional<int64_t> sizeInBytes(ShapedType type);

} // namespace mlir::adjit

#endif
