// adjit-split-shared-inits: each op output that starts from a shared initial
// value gets one of its own.
//
// CSE merges identical fills, so one zero tensor often starts several
// reductions and contractions. Bufferization then fills one buffer, keeps it
// alive, and copies it into each op's output; with a fill of its own per
// use, each op's output is filled in place (and the GEMM kernels absorb a
// zero fill just before them). An empty tensor repeated among one op's
// outputs gets a fresh one per repeat: only one of them could be written in
// place, and one-shot bufferization's analysis compares every pair of
// writes into aliases of a value, quadratic in their number; for the same
// reason an empty tensor shared by several ops gets one per use. Runs just
// before bufferization, after the last CSE.
#include "adjit/Passes/Passes.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_SPLITSHAREDINITS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
struct SplitSharedInitsPass : adjit::impl::SplitSharedInitsBase<SplitSharedInitsPass> {
  void runOnOperation() override {
    splitSharedFills();
    splitRepeatedEmpties();
    foldReshapedEmpties();
    splitSharedEmpties();
  }

  void splitSharedFills() {
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

  // An output init of a linalg op that repeats an earlier init of the same
  // op, is an empty tensor or a slice of one (undefined contents either
  // way), and is not read by the body, becomes a fresh empty tensor.
  void splitRepeatedEmpties() {
    SmallVector<OpOperand *> shared;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        Value value = init.get();
        if (seen.insert(value).second || op.payloadUsesValueFromOperand(&init))
          continue;
        Value source = value;
        if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
          source = slice.getSource();
        if (source.getDefiningOp<tensor::EmptyOp>() &&
            cast<RankedTensorType>(value.getType()).hasStaticShape())
          shared.push_back(&init);
      }
    });
    for (OpOperand *init : shared) {
      OpBuilder b(init->getOwner());
      auto type = cast<RankedTensorType>(init->get().getType());
      init->set(b.create<tensor::EmptyOp>(init->getOwner()->getLoc(), type.getShape(),
                                          type.getElementType()));
    }
  }

  // A reshape of an empty tensor (the output of an elementwise op that
  // adjit-flatten-short-rows flattened) is an empty tensor of its own
  // shape, made where the original is, so that splitSharedEmpties sees it:
  // CSE had shared one collapsed empty tensor among a chain's 79 tanh ops,
  // and one-shot bufferization's time grew 8x per doubling of the chain.
  void foldReshapedEmpties() {
    SmallVector<Operation *> reshapes;
    getOperation()->walk([&](Operation *op) {
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op) &&
          op->getOperand(0).getDefiningOp<tensor::EmptyOp>() &&
          cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape())
        reshapes.push_back(op);
    });
    for (Operation *reshape : reshapes) {
      Operation *empty = reshape->getOperand(0).getDefiningOp();
      OpBuilder b(empty);
      b.setInsertionPointAfter(empty);
      auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
      reshape->getResult(0).replaceAllUsesWith(
          b.create<tensor::EmptyOp>(reshape->getLoc(), type.getShape(), type.getElementType()));
      reshape->erase();
      if (empty->use_empty())
        empty->erase();
    }
  }

  // A tensor.empty that CSE shares among ops (a deep model's gradient: one
  // per shape, used by up to 200 ops) makes all their results aliases of
  // one value, whose pairs of writes one-shot bufferization compares: each
  // use gets a clone, made where the original is, so that it dominates the
  // same uses (one made inside a loop would be allocated in every
  // iteration). Each use gets a buffer of its own either way.
  void splitSharedEmpties() {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared) {
      OpBuilder b(empty);
      b.setInsertionPointAfter(empty);
      for (OpOperand &use : llvm::make_early_inc_range(llvm::drop_begin(empty->getUses())))
        use.set(b.clone(*empty)->getResult(0));
    }
  }
};
} // namespace
