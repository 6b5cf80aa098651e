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

// The allocation that `view` (an expand_shape or collapse_shape) reshapes,
// with the reshape of `replacement` (of `view`'s type) back to the
// allocation's type built at `b`, if both have static shapes and identity
// layouts.
std::pair<memref::AllocOp, Value> reshapedAllocation(OpBuilder &b, Value view, Value replacement) {
  Operation *reshape = view.getDefiningOp();
  auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
  if (!alloc || !isStaticIdentity(alloc.getType()) || !isStaticIdentity(view.getType()))
    return {};
  Value back;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
    back = b.create<memref::CollapseShapeOp>(reshape->getLoc(), replacement,
                                             expand.getReassociationIndices());
  else
    back = b.create<memref::ExpandShapeOp>(reshape->getLoc(), alloc.getType(), replacement,
                                           cast<memref::CollapseShapeOp>(reshape)
                                               .getReassociationIndices());
  if (back.getType() != alloc.getType()) {
    back.getDefiningOp()->erase();
    return {};
  }
  return {alloc, back};
}

struct AllocateReshapedResultsPass
    : adjit::impl::AllocateReshapedResultsBase<AllocateReshapedResultsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
    for (Value returned : ret.getOperands()) {
      Operation *reshape = returned.getDefiningOp();
      if (!reshape || !isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(reshape))
        continue;
      auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
      if (!alloc)
        continue;
      OpBuilder b(alloc);
      auto whole = b.create<memref::AllocOp>(alloc.getLoc(), cast<MemRefType>(returned.getType()),
                                             alloc.getAlignmentAttr());
      auto [original, back] = reshapedAllocation(b, returned, whole);
      if (!original) {
        whole.erase();
        continue;
      }
      original.replaceAllUsesWith(back);
      returned.replaceAllUsesWith(whole.getResult());
      reshape->erase();
      original.erase();
    }
  }
};

} // namespace
