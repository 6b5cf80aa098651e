#ifndef ADJIT_COMPILER_MEMORYPLAN_H
#define ADJIT_COMPILER_MEMORYPLAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace adjit {

/// One temporary buffer of a compiled function (a memref.alloc of its
/// bufferized stage).
struct TemporaryBuffer {
  /// Its size; -1 when only known at run time.
  int64_t bytes = 0;
  /// Its element type and shape, "f32[256,1024]".
  std::string type;
  /// The ops of the function's body that use it, numbered from 0 in
  /// program order: the first (which writes it) and the last. An op that
  /// uses it inside a loop or a parallel chunk counts as the loop or chunk.
  int first_op = 0, last_op = 0;
  /// The op that first writes it ("linalg.generic", "linalg.fill", ...) and
  /// the source line it was traced from ("train.cpp:42:15"; empty when
  /// unknown).
  std::string made_by, location;
  /// Whether it lives only from its first to its last use (see `note`
  /// otherwise: it then lives for as long as the op that allocates it, the
  /// whole call or one chunk of a parallel loop).
  bool planned = false;
  /// Where it lies in the call's arena, in bytes from the arena's start; -1
  /// when it is not in the arena (unplanned, or of run-time size: then it
  /// is allocated on its own). Buffers live at the same time never overlap.
  int64_t offset = -1;
  std::string note;
};

/// A value of the forward pass that reverse mode keeps for the backward
/// pass, as differentiation leaves it (before fusion, which may recompute
/// cheap ones instead of storing them).
struct Residual {
  /// -1 when its size is known only at run time (a while_loop's stack).
  int64_t bytes = 0;
  std::string type;
  /// The op that computes it ("adjit.max") and its source line.
  std::string made_by, location;
};

/// What a compiled function keeps in memory while it runs besides its
/// inputs and outputs: jit(f).lower(args...).memory_plan(), or
/// `adjit compile FILE.mlir --emit=memory-plan`.
struct MemoryPlan {
  std::string function;
  /// The size of the arena, one allocation per call that holds every
  /// planned temporary of static size at its offset.
  int64_t arena_bytes = 0;
  /// The most bytes of temporaries held at once: the arena and the
  /// temporaries outside it that are live at the same time (a parallel
  /// chunk's own temporaries counted once, for one running chunk).
  int64_t peak_bytes = 0;
  /// The same had every temporary lived until the function returned, as
  /// upstream MLIR's buffer deallocation leaves them.
  int64_t peak_bytes_unplanned = 0;
  /// Ops in the function's body (what first_op and last_op count).
  int op_count = 0;
  /// Every temporary: the planned ones by their first use, then the others.
  std::vector<TemporaryBuffer> buffers;
  /// For a gradient: the forward values its backward pass reads.
  std::vector<Residual> residuals;

  /// The bytes of the residuals of static size (those of run-time size,
  /// bytes -1, are not counted: to_string says how many there are).
  int64_t residual_bytes() const;
  /// The report `--emit=memory-plan` prints.
  std::string to_string() const;
};

}  // namespace adjit

#endif
