// Parallel chunks of independent items: the plan and the scf.forall.
#include "ParallelChunks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::adjit;

namespace {
constexpr int64_t kMaxChunks = 16, kMinChunkWork = 131072;
} // namespace

int64_t mlir::adjit::parallelChunks(int64_t items, int64_t work) {
  for (int64_t c = std::min({kMaxChunks, items, work / kMinChunkWork}); c >= 2; --c)
    if (items % c == 0)
      return c;
  return 1;
}

SmallVector<Value> mlir::adjit::forEachChunk(OpBuilder &b, Location loc, int64_t items,
                                             int64_t chunks, ValueRange inputs,
                                             ValueRange carried, ChunkBody body) {
  if (chunks == 1)
    return body(items, inputs, carried);
  int64_t perChunk = items / chunks;
  auto forall = b.create<scf::ForallOp>(loc, ArrayRef<OpFoldResult>{b.getIndexAttr(chunks)},
                                        carried, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value first = b.create<arith::MulIOp>(loc, forall.getInductionVars().front(),
                                        b.create<arith::ConstantIndexOp>(loc, perChunk));
  // The chunk's items of a tensor: its slice along dimension 0.
  auto chunkOf = [&](Value tensor, auto makeSlice) {
    auto type = cast<RankedTensorType>(tensor.getType());
    SmallVector<OpFoldResult> offsets{first}, sizes{b.getIndexAttr(perChunk)},
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t d = 1; d < type.getRank(); ++d) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
    }
    return makeSlice(offsets, sizes, strides);
  };
  auto extract = [&](Value tensor) -> Value {
    return chunkOf(tensor, [&](auto offsets, auto sizes, auto strides) {
      return b.create<tensor::ExtractSliceOp>(loc, tensor, offsets, sizes, strides).getResult();
    });
  };
  SmallVector<Value> chunkInputs, chunkCarried;
  for (Value v : inputs)
    chunkInputs.push_back(extract(v));
  for (Value v : forall.getRegionIterArgs())
    chunkCarried.push_back(extract(v));
  SmallVector<Value> done = body(perChunk, chunkInputs, chunkCarried);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [value, shared] : llvm::zip(done, forall.getRegionIterArgs()))
    chunkOf(shared, [&](auto offsets, auto sizes, auto strides) {
      b.create<tensor::ParallelInsertSliceOp>(loc, value, shared, offsets, sizes, strides);
      return Value();
    });
  return SmallVector<Value>(forall.getResults());
}
