// adjit-lower-gpu-all-reduce: block-wide reductions in kernels become warp
// shuffles and shared memory (see Passes.td).
#include "adjit/Passes/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_LOWERGPUALLREDUCE
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
// Upstream's expansion splits the all-reduce's block, which the one-block
// body of a structured loop does not allow: kernels with an all-reduce in
// a loop (a GPU row group's rows) take their loops to branches first.
LogicalResult unstructureLoopsAroundAllReduces(gpu::GPUModuleOp kernels) {
  bool nested = kernels
                    .walk([](gpu::AllReduceOp reduce) {
                      return isa<gpu::GPUFuncOp>(reduce->getParentOp()) ? WalkResult::advance()
                                                                        : WalkResult::interrupt();
                    })
                    .wasInterrupted();
  if (!nested)
    return success();
  MLIRContext *context = kernels.getContext();
  RewritePatternSet patterns(context);
  populateSCFToControlFlowConversionPatterns(patterns);
  ConversionTarget target(*context);
  target.addIllegalDialect<scf::SCFDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  return applyPartialConversion(kernels, target, std::move(patterns));
}

struct LowerGpuAllReducePass
    : adjit::impl::LowerGpuAllReduceBase<LowerGpuAllReducePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuAllReducePatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto kernels : getOperation().getOps<gpu::GPUModuleOp>())
      if (failed(unstructureLoopsAroundAllReduces(kernels)) ||
          failed(applyPatternsAndFoldGreedily(kernels, frozen)))
        return signalPassFailure();
  }
};
} // namespace
