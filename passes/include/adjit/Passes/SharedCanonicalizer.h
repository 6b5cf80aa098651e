#ifndef ADJIT_PASSES_SHAREDCANONICALIZER_H
#define ADJIT_PASSES_SHAREDCANONICALIZER_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::adjit {

class CanonicalizationPatterns;

/// Makes canonicalizer passes, the same as upstream's `canonicalize` with
/// its default options, that share one set of patterns: the set is built
/// when the first of them is initialized and rebuilt only when a dialect
/// was loaded since. A pipeline runs a dozen canonicalizers, and gathering
/// and freezing the patterns of every loaded dialect and op took about 7%
/// of a small function's compile each time.
class CanonicalizerFactory {
public:
  CanonicalizerFactory();
  std::unique_ptr<Pass> create() const;

private:
  std::shared_ptr<CanonicalizationPatterns> shared;
};

} // namespace mlir::adjit

#endif
