#ifndef ADJIT_PASSES_CONTIGUOUSTENSORS_H
#define ADJIT_PASSES_CONTIGUOUSTENSORS_H

// Which tensors bufferization lays out contiguously: the passes that view
// a tensor's rows as one long row (adjit-flatten-short-rows,
// adjit-vectorize's short rows) collapse only those, as a copy would
// otherwise be made.

#include "mlir/IR/Value.h"

namespace mlir::adjit {

/// Whether `tensor`'s elements are contiguous in its buffer as bufferization
/// lays it out: slices must take whole trailing dimensions (every dimension
/// after the first one they cut), all the way to the tensor they slice.
bool isContiguous(Value tensor);

} // namespace mlir::adjit

#endif
