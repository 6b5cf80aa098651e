#ifndef ADJIT_PASSES_BUFFERUSES_H
#define ADJIT_PASSES_BUFFERUSES_H

// How a buffer is used after bufferization, seen through its views: what
// the passes that free or place temporaries (adjit-free-chunk-temporaries,
// adjit-plan-buffers) need to know to be sound.

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::adjit {

/// On a public function (adjit-mark-entry-points) some of whose arguments
/// were donated: the caller passes a donated argument's buffer as a
/// result's out-parameter too, so two of its arguments may be one buffer.
/// A public function without it gets separate buffers for its arguments
/// that it writes (outputs) and the others (Jit's call_into and the
/// ahead-of-time header reject or forbid overlapping ones).
inline constexpr llvm::StringLiteral kDonatesBuffersAttrName = "adjit.donates_buffers";

/// Calls `visit` on every op that uses `buffer` or a view of it. Views
/// (ViewLikeOpInterface) are followed, and visited too when `visitViews`;
/// the buffer results of any other user (a loop carrying the buffer) are
/// followed as views.
void forEachBufferUser(Value buffer, function_ref<void(Operation *)> visit,
                       bool visitViews = false);

/// Whether `user` could carry a buffer it uses beyond the ops that use it
/// in place: a return, a call, or a loop or branch yielding it.
bool carriesBufferOut(Operation *user);

/// The buffer that `value` is a view of (ViewLikeOpInterface, followed to
/// the end), or `value` itself when it is none.
Value viewedBuffer(Value value);

/// The op that allocates the buffer `value` is or views, or null (a
/// function argument). Buffers of one arena count as allocations of their
/// own: those live at the same time never overlap.
Operation *allocationOf(Value value);

/// The function argument that `buffer` is, or is a view of (memory that
/// the caller passed in); null for any other buffer.
BlockArgument functionArgumentOf(Value buffer);

/// Whether some op reads `buffer` or a view of it.
bool isReadThroughViews(Value buffer);

} // namespace mlir::adjit

#endif
