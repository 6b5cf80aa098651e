#ifndef ADJIT_PASSES_ROWLOOPS_H
#define ADJIT_PASSES_ROWLOOPS_H

// What the passes that move work between the rows of a row loop
// (adjit-tile-and-fuse-rows makes them: one scf.for over rows whose body
// makes several passes over its row) share: which pass is heaviest, and the
// part of the row body that a pass takes from it, to compute again for
// another row.

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::adjit {

/// Whether two loops have the same constant lower and upper bounds.
bool sameConstantRange(scf::ForOp a, scf::ForOp b);

/// The loop's step, if it is a positive constant.
std::optional<int64_t> constantStep(scf::ForOp loop);

/// The pass of `rows` with the most ops (an scf.for directly in its body),
/// `except` aside; null if there is none.
scf::ForOp heaviestPass(scf::ForOp rows, Operation *except);

/// The ops of `rows`' body whose values `pass` uses, directly or through
/// each other, in their order: what `pass` needs computed again to run for
/// another row. None when one of them has regions or memory effects, but
/// for `memref.load`s where `loadedBuffers` is given: it collects the
/// buffers they read.
std::optional<SmallVector<Operation *>> rowSlice(scf::ForOp rows, Operation *pass,
                                                 SmallVectorImpl<Value> *loadedBuffers);

/// Clones `slice` (of rowSlice) at `b` for the row at `row`.
void cloneRowSlice(OpBuilder &b, scf::ForOp rows, ArrayRef<Operation *> slice, Value row,
                   IRMapping &mapping);

/// Erases the ops of `slice` left without uses, last first.
void eraseUnusedSlice(ArrayRef<Operation *> slice);

/// Calls `rewrite` on each scf.for in `root`, inner loops first, on a list
/// made before the first call: a rewrite may replace the loop it is given
/// and those around it, but not the other loops in it.
void forEachLoopInnerFirst(Operation *root, function_ref<void(scf::ForOp)> rewrite);

/// Whether `visit` accepts every memory effect of `root` and of the ops in
/// it (a prefetch has none: it is a hint); false too where an op says
/// nothing of its effects.
bool allMemoryEffects(Operation *root,
                      function_ref<bool(const MemoryEffects::EffectInstance &)> visit);

/// Whether something in `root` may write or free one of `buffers` (or a
/// view of one).
bool mayWriteAny(Operation *root, ArrayRef<Value> buffers);

} // namespace mlir::adjit

#endif
