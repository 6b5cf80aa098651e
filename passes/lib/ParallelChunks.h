#ifndef ADJIT_PASSES_PARALLELCHUNKS_H
#define ADJIT_PASSES_PARALLELCHUNKS_H

// Independent items along dimension 0 of tensors (batches of matrices,
// rows to sort) in chunks that run in parallel: an scf.forall, OpenMP
// threads after bufferization.

#include "mlir/IR/Builders.h"

namespace mlir::adjit {

/// How many parallel chunks `items` items are worth, as row groups' chunks
/// are planned: as many as divide the items, up to 16, each worth at least
/// 131072 operations of `work` in all (1: not worth threads). The count
/// depends on the shapes only, so results are the same for every thread
/// count.
int64_t parallelChunks(int64_t items, int64_t work);

/// Builds the items of one chunk from its slices of `inputs` (read) and
/// `carried` (updated): returns the updated `carried`.
using ChunkBody = function_ref<SmallVector<Value>(int64_t items, ValueRange inputs,
                                                  ValueRange carried)>;

/// Runs `body` on `chunks` equal chunks of the `items` along dimension 0 of
/// `inputs` and `carried`, in an scf.forall whose results are `carried`
/// updated; with one chunk, `body` on the whole tensors.
SmallVector<Value> forEachChunk(OpBuilder &b, Location loc, int64_t items, int64_t chunks,
                                ValueRange inputs, ValueRange carried, ChunkBody body);

} // namespace mlir::adjit

#endif
