#ifndef ADJIT_PASSES_TRANSFERWRITEBUFFERIZATION_H
#define ADJIT_PASSES_TRANSFERWRITEBUFFERIZATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::adjit {
/// How One-Shot Bufferize lowers vector.transfer_write on tensors, in place
/// of MLIR's own model: register it before
/// vector::registerBufferizableOpInterfaceExternalModels.
void registerTransferWriteBufferization(DialectRegistry &registry);
} // namespace mlir::adjit

#endif
