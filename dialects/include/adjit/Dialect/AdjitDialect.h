#ifndef ADJIT_DIALECT_ADJITDIALECT_H
#define ADJIT_DIALECT_ADJITDIALECT_H

#include "mlir/IR/Dialect.h"

#include "adjit/Dialect/AdjitOpsDialect.h.inc"

#endif
