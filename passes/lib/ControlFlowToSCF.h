#ifndef ADJIT_PASSES_CONTROLFLOWTOSCF_H
#define ADJIT_PASSES_CONTROLFLOWTOSCF_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::adjit {
/// adjit.cond / adjit.for / adjit.while -> scf.if / scf.for / scf.while on
/// tensors, for adjit-lower-to-linalg (their bodies are lowered by the same
/// conversion).
void populateControlFlowToSCFPatterns(RewritePatternSet &patterns);
} // namespace mlir::adjit

#endif
