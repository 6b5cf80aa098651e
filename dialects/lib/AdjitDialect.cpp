#include "adjit/Dialect/AdjitDialect.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::adjit;

#include "adjit/Dialect/AdjitOpsDialect.cpp.inc"

namespace {
// Every adjit op is pure and region-free, so inlining is always legal: the
// functions that differentiation derives are inlined into their callers.
struct AdjitInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void AdjitDialect::initialize() {
  addInterfaces<AdjitInlinerInterface>();
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
