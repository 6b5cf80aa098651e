#include "ContiguousTensors.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

bool adjit::isContiguous(Value tensor) {
  while (auto slice = tensor.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride())
      return false;
    ArrayRef<int64_t> sizes = slice.getStaticSizes(), whole = slice.getSourceType().getShape();
    if (ShapedType::isDynamicShape(sizes))
      return false;
    // Every dimension after the first of more than one element must be
    // taken whole (static sizes name every dimension, rank-reducing or not).
    bool cut = false;
    for (auto [size, extent] : llvm::zip(sizes, whole)) {
      if (cut && size != extent)
        return false;
      cut = cut || extent != 1;
    }
    tensor = slice.getSource();
  }
  return true;
}
