#ifndef ADJIT_PASSES_LINEARALGEBRATOLOOPS_H
#define ADJIT_PASSES_LINEARALGEBRATOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::adjit {
/// adjit.cholesky / adjit.triangular_solve / adjit.solve -> scf loops on
/// tensors, for adjit-lower-to-linalg.
void populateLinearAlgebraToLoopsPatterns(RewritePatternSet &patterns);
} // namespace mlir::adjit

#endif
