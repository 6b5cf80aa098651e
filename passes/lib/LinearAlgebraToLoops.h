#ifndef ADJIT_PASSES_LINEARALGEBRATOLOOPS_H
#define ADJIT_PASSES_LINEARALGEBRATOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::adjit {
/// The linear algebra ops (adjit.cholesky ... adjit.svd, adjit.lu,
/// adjit.lu_pivots_to_permutation) -> scf loops on tensors, for
/// adjit-lower-to-linalg; with `vectorBits` > 0, batches of
/// small matrices run a matrix per lane of vectors that wide.
void populateLinearAlgebraToLoopsPatterns(RewritePatternSet &patterns, int64_t vectorBits);
} // namespace mlir::adjit

#endif
