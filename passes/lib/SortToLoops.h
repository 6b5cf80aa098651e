#ifndef ADJIT_PASSES_SORTTOLOOPS_H
#define ADJIT_PASSES_SORTTOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::adjit {
/// adjit.argsort and adjit.search_sorted -> scf loops on tensors (a heap
/// sort per row, a binary search per value), for adjit-lower-to-linalg.
void populateSortToLoopsPatterns(RewritePatternSet &patterns);
} // namespace mlir::adjit

#endif
