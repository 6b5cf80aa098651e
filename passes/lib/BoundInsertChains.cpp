// adjit-bound-insert-chains: a long chain of tensor.insert_slice ops, each
// updating the one before, continues in a copy every kLinks links.
//
// Every link of such a chain (dynamic_update_slice unrolled at trace time)
// aliases every other, and one-shot bufferization's analysis compares the
// writes and reads of an alias set pair by pair, walking the chain for each:
// 256 links took minutes. A copy (bufferization.alloc_tensor) starts a new
// alias set, for one copy of the tensor per kLinks updates. Runs just
// before bufferization.
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_BOUNDINSERTCHAINS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
// 32 links analyse in about 0.07 s (64 in 0.6 s); concatenations, lowered
// in groups of 16, never reach it.
constexpr unsigned kLinks = 32;

struct BoundInsertChainsPass : adjit::impl::BoundInsertChainsBase<BoundInsertChainsPass> {
  void runOnOperation() override {
    // Each link's position in its chain; ops are visited in program order,
    // so a link's destination comes first.
    llvm::DenseMap<Operation *, unsigned> position;
    getOperation()->walk([&](tensor::InsertSliceOp link) {
      auto previous = link.getDest().getDefiningOp<tensor::InsertSliceOp>();
      unsigned at = previous && previous->getBlock() == link->getBlock()
                        ? position.lookup(previous) + 1
                        : 1;
      if (at > kLinks) {
        OpBuilder b(link);
        Value copy = b.create<bufferization::AllocTensorOp>(
            link.getLoc(), link.getDestType(), ValueRange{}, link.getDest());
        link.getDestMutable().assign(copy);
        at = 1;
      }
      position[link] = at;
    });
  }
};
} // namespace
