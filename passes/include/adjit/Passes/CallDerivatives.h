#ifndef ADJIT_PASSES_CALLDERIVATIVES_H
#define ADJIT_PASSES_CALLDERIVATIVES_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::adjit {
/// Attaches DifferentiableOpInterface to func.call.
void registerCallDerivatives(DialectRegistry &registry);
} // namespace mlir::adjit

#endif
