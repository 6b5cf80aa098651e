// adjit-erase-optimization-barriers: the barriers have done their job (no
// pass that merges tensor computations runs after this one).
#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/Passes.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_ERASEOPTIMIZATIONBARRIERS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {
struct EraseOptimizationBarriersPass
    : adjit::impl::EraseOptimizationBarriersBase<EraseOptimizationBarriersPass> {
  void runOnOperation() override {
    getOperation()->walk([](OptimizationBarrierOp barrier) {
      barrier->replaceAllUsesWith(barrier.getOperands());
      barrier->erase();
    });
  }
};
} // namespace
