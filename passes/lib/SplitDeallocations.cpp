// adjit-split-deallocations: a bufferization.dealloc of distinct allocations
// with constant conditions becomes one memref.dealloc per freed allocation,
// so that upstream's simplification does not compare every pair of them.
#include "adjit/Passes/Passes.h"

#include "mlir/IR/Matchers.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_SPLITDEALLOCATIONS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// Whether `dealloc` frees only distinct allocations under constant
// conditions and retains nothing (then nothing it frees can alias anything
// else it handles).
bool freesDistinctAllocations(bufferization::DeallocOp dealloc) {
  if (!dealloc.getRetained().empty())
    return false;
  llvm::SmallPtrSet<Operation *, 16> allocations;
  for (auto [memref, condition] : llvm::zip_equal(dealloc.getMemrefs(), dealloc.getConditions())) {
    auto alloc = memref.getDefiningOp<memref::AllocOp>();
    if (!alloc || !allocations.insert(alloc).second || !matchPattern(condition, m_Constant()))
      return false;
  }
  return true;
}

struct SplitDeallocationsPass : adjit::impl::SplitDeallocationsBase<SplitDeallocationsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> splittable;
    getOperation().walk([&](bufferization::DeallocOp dealloc) {
      if (freesDistinctAllocations(dealloc))
        splittable.push_back(dealloc);
    });
    for (bufferization::DeallocOp dealloc : splittable) {
      OpBuilder b(dealloc);
      for (auto [memref, condition] : llvm::zip_equal(dealloc.getMemrefs(), dealloc.getConditions()))
        if (matchPattern(condition, m_One()))
          b.create<memref::DeallocOp>(dealloc.getLoc(), memref);
      dealloc.erase();
    }
  }
};

} // namespace
