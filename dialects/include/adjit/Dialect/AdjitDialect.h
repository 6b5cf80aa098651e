#ifndef ADJIT_DIALECT_ADJITDIALECT_H
#define ADJIT_DIALECT_ADJITDIALECT_H

#include "mlir/IR/Dialect.h"

#include "adjit/Dialect/AdjitOpsDialect.h.inc"

namespace mlir::adjit {
/// A unit attribute on a func.call made by adjit::checkpoint: reverse mode
/// recomputes the callee in the backward pass (behind an
/// adjit.optimization_barrier) instead of keeping its intermediate values.
inline constexpr llvm::StringLiteral kCheckpointAttrName = "adjit.checkpoint";
} // namespace mlir::adjit

#endif
