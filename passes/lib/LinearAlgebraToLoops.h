#ifndef ADJIT_PASSES_LINEARALGEBRATOLOOPS_H
#define ADJIT_PASSES_LINEARALGEBRATOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::adjit {
/// adjit.cholesky / adjit.triangular_solve / adjit.solve -> scf loops on
/// tensors, for adjit-lower-to-linalg; with `vectorBits` > 0, batches of
/// small matrices run a matrix per lane of vectors that wide.
void populateLinearAlgebraToLoopsPatterns(RewritePatternSet &patterns, int64_t vectorBits);
} // namespace mlir::adjit

#endif
