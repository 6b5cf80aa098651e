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

// The function a donation attribute sits on, if `attribute` is `expected`,
// the one donation attribute of a function's `place` (argument or result).
FailureOr<func::FuncOp> donationFunction(Operation *op, NamedAttribute attribute,
                                         StringRef expected, StringRef place) {
  StringRef name = attribute.getName().getValue();
  if (name != expected)
    return op->emitOpError() << "unknown " << place << " attribute '" << name << "'";
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn)
    return op->emitOpError() << "'" << name << "' is for func.func " << place << "s";
  return fn;
}

// An index attribute of a donation, in [0, count).
LogicalResult verifyIndex(Operation *op, NamedAttribute attribute, unsigned count,
                          StringRef what) {
  auto index = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!index || index.getInt() < 0 || index.getInt() >= count)
    return op->emitOpError() << "'" << attribute.getName().getValue()
                             << "' must be the index of one of its " << count << " " << what
                             << ", got " << attribute.getValue();
  return success();
}

} // namespace

LogicalResult AdjitDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned argIndex,
                                                     NamedAttribute attribute) {
  FailureOr<func::FuncOp> fn = donationFunction(op, attribute, kAliasingOutputAttrName, "argument");
  if (failed(fn) || failed(verifyIndex(op, attribute, fn->getNumResults(), "results")))
    return failure();
  int64_t result = cast<IntegerAttr>(attribute.getValue()).getInt();
  Type argument = fn->getArgumentTypes()[argIndex], output = fn->getResultTypes()[result];
  if (output != argument)
    return op->emitOpError() << "argument " << argIndex << " (" << argument
                             << ") cannot hold result " << result << " (" << output
                             << "): their types differ";
  for (unsigned other = 0; other < fn->getNumArguments(); ++other)
    if (other != argIndex && fn->getArgAttr(other, kAliasingOutputAttrName) == attribute.getValue())
      return op->emitOpError() << "arguments " << std::min(other, argIndex) << " and "
                               << std::max(other, argIndex) << " both hold result " << result;
  return success();
}

LogicalResult AdjitDialect::verifyRegionResultAttribute(Operation *op, unsigned, unsigned,
                                                        NamedAttribute attribute) {
  FailureOr<func::FuncOp> fn = donationFunction(op, attribute, kAliasingInputAttrName, "result");
  if (failed(fn))
    return failure();
  return verifyIndex(op, attribute, fn->getNumArguments(), "arguments");
}
