// adjit-split-shared-fills: each op that starts from a filled tensor gets
// its own fill.
//
// CSE merges identical fills, so one zero tensor often starts several
// reductions and contractions. Bufferization then fills one buffer, keeps it
// alive, and copies it into each op's output; with a fill of its own per
// use, each op's output is filled in place (and the GEMM kernels absorb a
// zero fill just before them). Runs just before bufferization, after the
// last CSE.
#include "adjit/Passes/Passes.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_SPLITSHAREDFILLS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
struct SplitSharedFillsPass : adjit::impl::SplitSharedFillsBase<SplitSharedFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> shared;
    getOperation()->walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared) {
      Value filled = fill->getResult(0);
      auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      // Every use as an op's init gets a fill (of a fresh empty tensor) made
      // just before that op; the original goes when nothing else reads it.
      SmallVector<OpOperand *> inits;
      for (OpOperand &use : filled.getUses()) {
        auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (user && user.isDpsInit(&use))
          inits.push_back(&use);
      }
      for (OpOperand *use : inits) {
        OpBuilder b(use->getOwner());
        IRMapping mapping;
        if (empty && empty->getBlock() == fill->getBlock())
          mapping.map(empty.getResult(), b.clone(*empty)->getResult(0));
        use->set(b.clone(*fill, mapping)->getResult(0));
      }
      if (filled.use_empty()) {
        fill->erase();
        if (empty && empty->use_empty())
          empty->erase();
      }
    }
  }
};
} // namespace
