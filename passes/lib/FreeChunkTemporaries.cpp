// adjit-free-chunk-temporaries: deallocates what a parallel chunk
// (scf.forall body) allocated, which upstream's buffer deallocation leaves.
#include "BufferUses.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_FREECHUNKTEMPORARIES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// The first use of `buffer`, or of a view of it, that could carry the
// buffer out of the chunk, if any; `deallocated` tells whether something
// already frees it.
Operation *escapingUse(Value buffer, bool &deallocated) {
  Operation *escaping = nullptr;
  adjit::forEachBufferUser(buffer, [&](Operation *user) {
    if (isa<memref::DeallocOp>(user))
      deallocated = true;
    else if (!escaping && adjit::carriesBufferOut(user))
      escaping = user;
  });
  return escaping;
}

struct FreeChunkTemporariesPass
    : adjit::impl::FreeChunkTemporariesBase<FreeChunkTemporariesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](memref::AllocOp alloc) {
      auto chunk = dyn_cast<scf::ForallOp>(alloc->getParentOp());
      if (!chunk)
        return WalkResult::advance();
      bool deallocated = false;
      if (Operation *use = escapingUse(alloc.getResult(), deallocated)) {
        InFlightDiagnostic error =
            alloc.emitError("a temporary of a parallel chunk may outlive the chunk");
        error.attachNote(use->getLoc()) << "through this use";
        return WalkResult::interrupt();
      }
      if (deallocated)
        return WalkResult::advance();
      OpBuilder b(chunk.getBody()->getTerminator());
      b.create<memref::DeallocOp>(alloc.getLoc(), alloc.getResult());
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
