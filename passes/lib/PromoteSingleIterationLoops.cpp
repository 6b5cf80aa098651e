// Loops of one iteration (a generic over one row of a block) become their
// bodies: see the pass description in Passes.td.

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/LoopUtils.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_PROMOTESINGLEITERATIONLOOPS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

struct PromoteSingleIterationLoopsPass
    : adjit::impl::PromoteSingleIterationLoopsBase<PromoteSingleIterationLoopsPass> {
  void runOnOperation() override {
    // Post-order: inner loops first, so that an outer loop is promoted
    // with its body already flat.
    getOperation().walk([](affine::AffineForOp loop) {
      (void)affine::promoteIfSingleIteration(loop);
    });
  }
};

} // namespace
