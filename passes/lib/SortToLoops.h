#ifndef ADJIT_PASSES_SORTTOLOOPS_H
#define ADJIT_PASSES_SORTTOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::adjit {
/// adjit.argsort and adjit.search_sorted -> scf loops on tensors (a heap
/// sort per row, a binary search per value), for adjit-lower-to-linalg;
/// with `parallelRows`, rows and values in parallel chunks where there is
/// enough work.
void populateSortToLoopsPatterns(RewritePatternSet &patterns, bool parallelRows);
} // namespace mlir::adjit

#endif
