#ifndef ADJIT_PASSES_RESERVEROWBUFFERIZATION_H
#define ADJIT_PASSES_RESERVEROWBUFFERIZATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::adjit {
/// How One-Shot Bufferize lowers adjit.reserve_row (a stack that grows).
void registerReserveRowBufferization(DialectRegistry &registry);
} // namespace mlir::adjit

#endif
