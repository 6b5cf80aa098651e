// adjit-sink-insert-slices: each tensor.insert_slice whose destination is
// still read after it moves down to just before its first user, so that the
// reads of the old value come first and bufferization writes in place.
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_SINKINSERTSLICES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// The first user of `value` but `except`, as its ancestor in `block`; null
// if none is in the block.
Operation *firstInBlock(Block *block, Value value, Operation *except) {
  Operation *first = nullptr;
  for (Operation *user : value.getUsers()) {
    if (user == except)
      continue;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && (!first || inBlock->isBeforeInBlock(first)))
      first = inBlock;
  }
  return first;
}

struct SinkInsertSlicesPass : adjit::impl::SinkInsertSlicesBase<SinkInsertSlicesPass> {
  void runOnOperation() override {
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation()->walk([&](tensor::InsertSliceOp op) { inserts.push_back(op); });
    for (tensor::InsertSliceOp insert : inserts) {
      Block *block = insert->getBlock();
      // A read of the destination, or of a slice of it, after the write:
      // the old value is still needed there. (Reads before it are no
      // conflict.)
      bool readAfter = false;
      SmallVector<Value> views{insert.getDest()};
      while (!views.empty() && !readAfter) {
        Value view = views.pop_back_val();
        for (Operation *user : view.getUsers()) {
          if (user == insert)
            continue;
          if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user))
            views.push_back(slice.getResult());
          Operation *inBlock = block->findAncestorOpInBlock(*user);
          readAfter |= inBlock && insert->isBeforeInBlock(inBlock);
        }
      }
      if (!readAfter)
        continue;
      Operation *firstUser = firstInBlock(block, insert.getResult(), insert);
      Operation *to = firstUser ? firstUser : block->getTerminator();
      if (to && insert->isBeforeInBlock(to))
        insert->moveBefore(to);
    }
  }
};

} // namespace
