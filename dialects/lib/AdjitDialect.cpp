#include "adjit/Dialect/AdjitDialect.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

namespace {

// An index attribute of a donation, in [0, count).
LogicalResult verifyIndex(Operation *op, NamedAttribute attribute, unsigned count,
                          StringRef what) {
  auto index = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!index || index.getInt() < 0 || index.getInt() >= count)
    return op->emitOpError() << "'" << attribute.getName().getValue() << "' must be the index of one of its "
                             << count << " " << what << ", got " << attribute.getValue();
  return success();
}

} // namespace

LogicalResult AdjitDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned argIndex,
                                                     NamedAttribute attribute) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (attribute.getName() != kAliasingOutputAttrName)
    return op->emitOpError() << "unknown argument attribute '" << attribute.getName().getValue() << "'";
  if (!fn)
    return op->emitOpError() << "'" << attribute.getName().getValue() << "' is for func.func arguments";
  if (failed(verifyIndex(op, attribute, fn.getNumResults(), "results")))
    return failure();
  int64_t result = cast<IntegerAttr>(attribute.getValue()).getInt();
  if (fn.getResultTypes()[result] != fn.getArgumentTypes()[argIndex])
    return op->emitOpError() << "argument " << argIndex << " (" << fn.getArgumentTypes()[argIndex]
                             << ") cannot hold result " << result << " ("
                             << fn.getResultTypes()[result] << "): their types differ";
  for (unsigned other = 0; other < fn.getNumArguments(); ++other)
    if (other != argIndex && fn.getArgAttr(other, kAliasingOutputAttrName) == attribute.getValue())
      return op->emitOpError() << "arguments " << std::min(other, argIndex) << " and "
                               << std::max(other, argIndex) << " both hold result " << result;
  return success();
}

LogicalResult AdjitDialect::verifyRegionResultAttribute(Operation *op, unsigned, unsigned,
                                                        NamedAttribute attribute) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (attribute.getName() != kAliasingInputAttrName)
    return op->emitOpError() << "unknown result attribute '" << attribute.getName().getValue() << "'";
  if (!fn)
    return op->emitOpError() << "'" << attribute.getName().getValue() << "' is for func.func results";
  return verifyIndex(op, attribute, fn.getNumArguments(), "arguments");
}
