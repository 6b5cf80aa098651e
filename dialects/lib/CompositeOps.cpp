// The composite ops' expansions (CompositeOpInterface) and derivative rules.
// Each op's formula is written once (GeluFormula.h); its expansion and its
// derivative build their shared terms alike, so that CSE merges them once
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

LogicalResult GeluOp::buildVJP(OpBuilder &b, ValueRange cotangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.mul(cotangents[0], gelu::derivative(e, getOperand(), getApproximate())));
  return success();
}
LogicalResult GeluOp::buildJVP(OpBuilder &b, ValueRange tangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.mul(tangents[0], gelu::derivative(e, getOperand(), getApproximate())));
  return success();
}
