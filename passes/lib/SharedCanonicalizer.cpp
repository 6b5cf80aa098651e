#include "adjit/Passes/SharedCanonicalizer.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <mutex>

namespace mlir::adjit {

class CanonicalizationPatterns {
public:
  std::shared_ptr<const FrozenRewritePatternSet> get(MLIRContext *context) {
    std::lock_guard lock(mutex);
    // Dialects are only ever added to a context: their number tells whether
    // the patterns gathered last are still all of them.
    size_t dialects = context->getLoadedDialects().size();
    if (!patterns || context != builtFor || dialects != dialectsThen) {
      RewritePatternSet owning(context);
      for (Dialect *dialect : context->getLoadedDialects())
        dialect->getCanonicalizationPatterns(owning);
      for (RegisteredOperationName op : context->getRegisteredOperations())
        op.getCanonicalizationPatterns(owning, context);
      patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owning));
      builtFor = context;
      dialectsThen = dialects;
    }
    return patterns;
  }

private:
  std::mutex mutex;
  MLIRContext *builtFor = nullptr;
  size_t dialectsThen = 0;
  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};

namespace {

// Upstream's canonicalizer with its default options (top-down, region
// simplification, at most 10 iterations), its patterns from `shared`.
struct SharedCanonicalizer
    : PassWrapper<SharedCanonicalizer, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SharedCanonicalizer)

  explicit SharedCanonicalizer(std::shared_ptr<CanonicalizationPatterns> shared)
      : shared(std::move(shared)) {}

  StringRef getArgument() const override { return "canonicalize"; }
  StringRef getName() const override { return "Canonicalizer"; }
  StringRef getDescription() const override {
    return "Canonicalize operations (patterns shared by the pipeline)";
  }

  LogicalResult initialize(MLIRContext *context) override {
    patterns = shared->get(context);
    return success();
  }

  void runOnOperation() override {
    // Canonicalization is best effort: not converging is no failure.
    (void)applyPatternsAndFoldGreedily(getOperation(), *patterns, config);
  }

  std::shared_ptr<CanonicalizationPatterns> shared;
  std::shared_ptr<const FrozenRewritePatternSet> patterns;
  GreedyRewriteConfig config;
};

} // namespace

CanonicalizerFactory::CanonicalizerFactory()
    : shared(std::make_shared<CanonicalizationPatterns>()) {}

std::unique_ptr<Pass> CanonicalizerFactory::create() const {
  return std::make_unique<SharedCanonicalizer>(shared);
}

} // namespace mlir::adjit
