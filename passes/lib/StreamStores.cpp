// adjit-stream-stores: vector stores into large results that the function
// never reads become nontemporal (see the pass description in Passes.td).

#include "BufferUses.h"

#include "adjit/Passes/Passes.h"

#include <unistd.h>

namespace mlir::adjit {
#define GEN_PASS_DEF_STREAMSTORES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// Four times the host's L2 cache: a smaller result stays in the L3 for its
// reader, a larger one leaves the caches while it is written anyway. On a
// Zen 4 core (1 MiB L2, 32 MiB L3), `x * 2 + 1` and then a sum of its
// result, each jitted, on inputs taken in turn from six: with nontemporal
// stores the two took 1.6x as long for a 2 MiB result, as long for 4 and
// 8 MiB, 0.87x for 16 MiB and 0.65x for 32 MiB.
int64_t hostStreamingBytes() {
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return 4 * (l2 > 0 ? l2 : 1 << 20);
}

// x86's cache line. A line written partly by nontemporal stores and partly
// by plain ones is flushed from the write-combining buffer half written and
// read back: rows of 10 floats (40 bytes) so written were 10x slower.
constexpr int64_t kCacheLineBytes = 64;

// The bytes of a function argument that is a buffer of static shape, or 0.
int64_t staticBytes(BlockArgument argument) {
  auto type = dyn_cast<MemRefType>(argument.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return 0;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

// Whether the rows of a view stores write through are whole cache lines
// (buffers start on one), so that stores of whole lines from a row's start
// fill its lines. The view's rows, not the buffer's: rows of 3 floats
// written through a view of them collapsed to one long row are written in
// whole lines.
bool rowsAreWholeLines(Value view) {
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type || type.getRank() == 0 || ShapedType::isDynamic(type.getShape().back()))
    return false;
  int64_t rowBits = type.getShape().back() * type.getElementTypeBitWidth();
  return rowBits % (8 * kCacheLineBytes) == 0;
}

// Whether a store of `type` writes whole cache lines.
bool storesWholeLines(VectorType type) {
  return type.getNumElements() * type.getElementTypeBitWidth() % (8 * kCacheLineBytes) == 0;
}

// A write of a whole vector to consecutive elements, which one vector store
// does: in bounds, unmasked, along the innermost dimension of a buffer whose
// innermost stride is 1.
bool isContiguousVectorWrite(vector::TransferWriteOp write) {
  auto type = dyn_cast<MemRefType>(write.getSource().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && write.getVectorType().getRank() == 1 && !write.getMask() &&
         write.getPermutationMap().isMinorIdentity() && write.getInBoundsValues()[0] &&
         succeeded(getStridesAndOffset(type, strides, offset)) && strides.back() == 1;
}

struct StreamStoresPass : adjit::impl::StreamStoresBase<StreamStoresPass> {
  using StreamStoresBase::StreamStoresBase;

  void runOnOperation() override {
    int64_t threshold = minBytes > 0 ? minBytes : hostStreamingBytes();
    func::FuncOp function = getOperation();
    llvm::SmallDenseMap<BlockArgument, bool> streamed;
    auto isStreamed = [&](Value buffer) {
      BlockArgument argument = adjit::functionArgumentOf(buffer);
      if (!argument)
        return false;
      auto [entry, inserted] = streamed.try_emplace(argument, false);
      if (inserted)
        entry->second = staticBytes(argument) > threshold && !adjit::isReadThroughViews(argument);
      return entry->second;
    };
    // Only stores of whole lines into rows of whole lines stream: a buffer
    // whose stores are not all such keeps plain stores throughout.
    function.walk([&](Operation *op) {
      Value buffer;
      VectorType type;
      if (auto write = dyn_cast<vector::TransferWriteOp>(op))
        buffer = write.getSource(), type = write.getVectorType();
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        buffer = store.getBase(), type = store.getVectorType();
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        buffer = store.getMemRef();
      if (!buffer || (type && storesWholeLines(type) && rowsAreWholeLines(buffer)))
        return;
      if (BlockArgument argument = adjit::functionArgumentOf(buffer))
        streamed[argument] = false;
    });
    function.walk([&](vector::TransferWriteOp write) {
      if (!isContiguousVectorWrite(write) || !isStreamed(write.getSource()))
        return;
      OpBuilder builder(write);
      builder.create<vector::StoreOp>(write.getLoc(), write.getVector(), write.getSource(),
                                      write.getIndices(), /*nontemporal=*/true);
      write.erase();
    });
    function.walk([&](vector::StoreOp store) {
      if (isStreamed(store.getBase()))
        store.setNontemporal(true);
    });
  }
};

} // namespace
