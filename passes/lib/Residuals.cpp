#include "adjit/Passes/Residuals.h"

#include "adjit/Dialect/AdjitDialect.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace mlir::adjit {

std::optional<ReverseSplit> splitReverseFunction(func::FuncOp function) {
  auto from = function->getAttrOfType<IntegerAttr>(kCotangentsFromAttrName);
  auto primal = function->getAttrOfType<IntegerAttr>(kPrimalResultsAttrName);
  if (!from || !primal || function.isExternal())
    return std::nullopt;
  Block &body = function.getBody().front();
  // A reverse function returns the primal results, then the gradients.
  int64_t primalResults = primal.getInt();
  ReverseSplit split;
  SmallVector<Operation *> worklist;
  auto need = [&](Value v) {
    if (Operation *producer = v.getDefiningOp())
      if (producer->getBlock() == &body && split.forward.insert(producer).second)
        worklist.push_back(producer);
  };
  for (Value result : body.getTerminator()->getOperands().take_front(primalResults))
    need(result);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    // An op with regions reads what its regions use from above as well
    // (adjit's control flow is isolated from above and takes operands).
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        need(operand);
    });
  }
  for (Operation &op : body) {
    if (split.forward.contains(&op) || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && split.forward.contains(producer) && !matchPattern(operand, m_Constant()))
          split.residuals.insert(operand);
      }
    });
  }
  return split;
}

} // namespace mlir::adjit
