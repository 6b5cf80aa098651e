// The composite ops' expansions (CompositeOpInterface). Each op's formula
// is written once (GeluFormula.h) and its derivative rule (DerivativeRules.cpp)
// builds the shared terms alike, so that CSE merges them once
// adjit-expand-composites has run.
#include "Emit.h"
#include "GeluFormula.h"
#include "adjit/Dialect/AdjitOps.h"

using namespace mlir;
using namespace mlir::adjit;

Value GeluOp::expand(OpBuilder &builder) {
  Emit e(builder, getLoc());
  return gelu::value(e, getOperand(), getApproximate());
}
