// adjit-allocate-reshaped-results: a result returned as a reshaped view of
// an allocation is allocated in its own shape (see Passes.td).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_ALLOCATERESHAPEDRESULTS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool isStaticIdentity(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getLayout().isIdentity();
}

// If `returned` is an expand_shape or collapse_shape of an allocation
// (static shapes, identity layouts), allocates its shape instead and lets
// the allocation's users see that through the inverse reshape.
void allocateInResultShape(Value returned) {
  Operation *reshape = returned.getDefiningOp();
  if (!reshape || !isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(reshape))
    return;
  auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
  if (!alloc || !isStaticIdentity(alloc.getType()) || !isStaticIdentity(returned.getType()))
    return;
  OpBuilder b(alloc);
  auto whole = b.create<memref::AllocOp>(alloc.getLoc(), cast<MemRefType>(returned.getType()),
                                         alloc.getAlignmentAttr());
  Value back;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
    back = b.create<memref::CollapseShapeOp>(reshape->getLoc(), whole,
                                             expand.getReassociationIndices());
  else
    back = b.create<memref::ExpandShapeOp>(
        reshape->getLoc(), alloc.getType(), whole,
        cast<memref::CollapseShapeOp>(reshape).getReassociationIndices());
  alloc.replaceAllUsesWith(back);
  returned.replaceAllUsesWith(whole.getResult());
  reshape->erase();
  alloc.erase();
}

struct AllocateReshapedResultsPass
    : adjit::impl::AllocateReshapedResultsBase<AllocateReshapedResultsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
    // Each operand read afresh: one may be the allocation a reshape of an
    // earlier one replaced (returned as it is too: squeeze(expand_dims(x))).
    for (unsigned i = 0; i < ret.getNumOperands(); ++i)
      allocateInResultShape(ret.getOperand(i));
  }
};

} // namespace
