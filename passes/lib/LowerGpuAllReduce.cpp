// adjit-lower-gpu-all-reduce: block-wide reductions in kernels become warp
// shuffles and shared memory (see Passes.td).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_LOWERGPUALLREDUCE
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
struct LowerGpuAllReducePass
    : adjit::impl::LowerGpuAllReduceBase<LowerGpuAllReducePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuAllReducePatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto kernels : getOperation().getOps<gpu::GPUModuleOp>())
      if (failed(applyPatternsAndFoldGreedily(kernels, frozen)))
        return signalPassFailure();
  }
};
} // namespace
