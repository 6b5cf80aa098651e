#include "adjit/Dialect/AdjitDialect.h"

#include "adjit/Dialect/AdjitOps.h"

using namespace mlir;
using namespace mlir::adjit;

#include "adjit/Dialect/AdjitOpsDialect.cpp.inc"

void AdjitDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "adjit/Dialect/AdjitOps.cpp.inc"
      >();
}

Operation *AdjitDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}
