// Bufferization of vector.transfer_write on tensors. LLVM 19's model counts
// a write at offsets 0 as overwriting its whole destination when each
// vector size is at least the destination's size of the same position,
// counted from the front: it pairs vector<2xf64> with the 1 of a
// tensor<1x3xf64> and not with the 3 that the vector runs along. An
// out-of-place write then went to a fresh buffer without copying the
// elements it does not write (adjit-vectorize's first step of a row of 3
// f64 on AVX2 left element 2 uninitialized: NaN hessians of expm). Here a
// write reads its destination unless it writes every element of it.
//
// An op keeps the first model attached for an interface, so this one is
// registered before MLIR's; tests/ir/transfer-write-bufferization.mlir
// fails if MLIR's takes its place.
#include "TransferWriteBufferization.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

// Whether `write` stores every element of its destination: static sizes,
// no mask, offsets 0, and each destination dimension either spanned by the
// vector dimension that runs along it or of size 1.
bool writesWholeDestination(vector::TransferWriteOp write) {
  ShapedType destination = write.getShapedType();
  if (!destination.hasStaticShape() || write.getMask())
    return false;
  if (!llvm::all_of(write.getIndices(), [](Value index) { return isConstantIntValue(index, 0); }))
    return false;
  ArrayRef<int64_t> vectorSizes = write.getVectorType().getShape();
  AffineMap map = write.getPermutationMap();
  for (auto [dim, size] : llvm::enumerate(destination.getShape())) {
    std::optional<unsigned> along = map.getResultPosition(getAffineDimExpr(dim, write.getContext()));
    if (along ? vectorSizes[*along] < size : size != 1)
      return false;
  }
  return true;
}

struct TransferWriteModel
    : public DstBufferizableOpInterfaceExternalModel<TransferWriteModel, vector::TransferWriteOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &, const AnalysisState &) const {
    return !writesWholeDestination(cast<vector::TransferWriteOp>(op));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto write = cast<vector::TransferWriteOp>(op);
    FailureOr<Value> buffer = getBuffer(rewriter, write.getSource(), options);
    if (failed(buffer))
      return failure();
    rewriter.create<vector::TransferWriteOp>(write.getLoc(), write.getVector(), *buffer,
                                             write.getIndices(), write.getPermutationMapAttr(),
                                             write.getMask(), write.getInBoundsAttr());
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

} // namespace

void mlir::adjit::registerTransferWriteBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, vector::VectorDialect *) {
    vector::TransferWriteOp::attachInterface<TransferWriteModel>(*context);
  });
}
