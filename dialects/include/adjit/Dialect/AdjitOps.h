#ifndef ADJIT_DIALECT_ADJITOPS_H
#define ADJIT_DIALECT_ADJITOPS_H

#include "adjit/Dialect/AdjitDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "adjit/Dialect/DerivativeContext.h"
#include "mlir/IR/SymbolTable.h"

#include "adjit/Dialect/AdjitOpsEnums.h.inc"
#include "adjit/Dialect/AdjitInterfaces.h.inc"

namespace mlir::adjit {
/// Whether `type` is a tensor of floats: the values that have derivatives.
inline bool isFloatTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && isa<FloatType>(shaped.getElementType());
}

/// Elements [start, limit) taken every `stride` (>= 1, start <= limit):
/// written so that no stride overflows it.
inline int64_t sliceLength(int64_t start, int64_t limit, int64_t stride) {
  return limit > start ? (limit - start - 1) / stride + 1 : 0;
}

/// The i1 tensor type of `type`'s shape: what comparisons return.
inline Type boolTensorLike(Type type) {
  return cast<RankedTensorType>(type).clone(IntegerType::get(type.getContext(), 1));
}
} // namespace mlir::adjit

#define GET_OP_CLASSES
#include "adjit/Dialect/AdjitOps.h.inc"

namespace mlir::adjit {
/// An adjit.constant of `type` (a tensor type) with every element `value`.
Value createSplat(OpBuilder &builder, Location loc, Type type, double value);

/// The dimensions of a rank-`rank` tensor that are not in `dims`, in order
/// (those a reduction keeps, those a dot_general leaves free).
SmallVector<int64_t> otherDimensions(int64_t rank, ArrayRef<int64_t> dims);

/// The dimensions of a dot_general operand of `rank` that are neither batch
/// nor contracting dimensions, in order.
SmallVector<int64_t> freeDimensions(int64_t rank, ArrayRef<int64_t> batch,
                                    ArrayRef<int64_t> contract);
} // namespace mlir::adjit

#endif
