#include "BufferUses.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::adjit {

void forEachBufferUser(Value buffer, function_ref<void(Operation *)> visit,
                       bool visitViews) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (view && view.getViewSource() == value) {
        llvm::append_range(worklist, user->getResults());
        if (visitViews)
          visit(user);
        continue;
      }
      visit(user);
      // A loop or branch that takes the buffer may return it: its buffer
      // results are followed as views of it.
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
    }
  }
}

bool carriesBufferOut(Operation *user) {
  return isa<CallOpInterface, RegionBranchTerminatorOpInterface>(user) ||
         user->hasTrait<OpTrait::ReturnLike>();
}

Value viewedBuffer(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(op);
    if (!view)
      break;
    value = view.getViewSource();
  }
  return value;
}

Operation *allocationOf(Value value) {
  Value buffer = viewedBuffer(value);
  Operation *op = buffer.getDefiningOp();
  return op && hasSingleEffect<MemoryEffects::Allocate>(op, buffer) ? op : nullptr;
}

BlockArgument functionArgumentOf(Value buffer) {
  auto argument = dyn_cast<BlockArgument>(viewedBuffer(buffer));
  if (!argument)
    return nullptr;
  Block *owner = argument.getOwner();
  return owner->isEntryBlock() && isa<FunctionOpInterface>(owner->getParentOp()) ? argument
                                                                                 : nullptr;
}

bool isReadThroughViews(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (view && view.getViewSource() == buffer ? isReadThroughViews(user->getResult(0))
                                               : hasEffect<MemoryEffects::Read>(user, buffer))
      return true;
  }
  return false;
}

} // namespace mlir::adjit
