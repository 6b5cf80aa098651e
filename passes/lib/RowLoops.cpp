#include "RowLoops.h"

#include "BufferUses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::adjit {

namespace {
// The ops nested in `root`, itself included: how much work a pass is.
int64_t countOps(Operation *root) {
  int64_t count = 0;
  root->walk([&](Operation *) { ++count; });
  return count;
}
} // namespace

bool sameConstantRange(scf::ForOp a, scf::ForOp b) {
  auto constant = [](Value v) { return getConstantIntValue(v); };
  return constant(a.getLowerBound()) &&
         constant(a.getLowerBound()) == constant(b.getLowerBound()) &&
         constant(a.getUpperBound()) && constant(a.getUpperBound()) == constant(b.getUpperBound());
}

std::optional<int64_t> constantStep(scf::ForOp loop) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0)
    return std::nullopt;
  return step;
}

scf::ForOp heaviestPass(scf::ForOp rows, Operation *except) {
  scf::ForOp heaviest;
  for (int64_t most = -1; auto pass : rows.getBody()->getOps<scf::ForOp>())
    if (int64_t ops = countOps(pass); pass != except && ops > most)
      most = ops, heaviest = pass;
  return heaviest;
}

std::optional<SmallVector<Operation *>> rowSlice(scf::ForOp rows, Operation *pass,
                                                 SmallVectorImpl<Value> *loadedBuffers) {
  Block *body = rows.getBody();
  SetVector<Operation *> slice;
  SmallVector<Value> worklist;
  pass->walk([&](Operation *op) { llvm::append_range(worklist, op->getOperands()); });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (value == rows.getInductionVar() || rows.isDefinedOutsideOfLoop(value))
      continue;
    Operation *op = value.getDefiningOp();
    if (!op || op->getBlock() != body)
      continue; // defined inside the pass itself
    if (op->getNumRegions() != 0)
      return std::nullopt; // a pass's result: not there before the pass
    if (slice.contains(op))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op); load && loadedBuffers)
      loadedBuffers->push_back(viewedBuffer(load.getMemRef()));
    else if (!isMemoryEffectFree(op))
      return std::nullopt;
    slice.insert(op);
    llvm::append_range(worklist, op->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

void cloneRowSlice(OpBuilder &b, scf::ForOp rows, ArrayRef<Operation *> slice, Value row,
                   IRMapping &mapping) {
  mapping.map(rows.getInductionVar(), row);
  for (Operation *op : slice)
    b.clone(*op, mapping);
}

void eraseUnusedSlice(ArrayRef<Operation *> slice) {
  for (Operation *op : llvm::reverse(slice))
    if (op->use_empty())
      op->erase();
}

void forEachLoopInnerFirst(Operation *root, function_ref<void(scf::ForOp)> rewrite) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    rewrite(loop);
}

bool allMemoryEffects(Operation *root,
                      function_ref<bool(const MemoryEffects::EffectInstance &)> visit) {
  return !root
              ->walk([&](Operation *op) {
                if (isMemoryEffectFree(op) || isa<memref::PrefetchOp>(op))
                  return WalkResult::advance();
                auto effects = dyn_cast<MemoryEffectOpInterface>(op);
                if (!effects)
                  return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                             ? WalkResult::advance()
                             : WalkResult::interrupt();
                SmallVector<MemoryEffects::EffectInstance> instances;
                effects.getEffects(instances);
                return llvm::all_of(instances, visit) ? WalkResult::advance()
                                                      : WalkResult::interrupt();
              })
              .wasInterrupted();
}

bool mayWriteAny(Operation *root, ArrayRef<Value> buffers) {
  return !allMemoryEffects(root, [&](const MemoryEffects::EffectInstance &effect) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
      return true;
    return effect.getValue() && !llvm::is_contained(buffers, viewedBuffer(effect.getValue()));
  });
}

} // namespace mlir::adjit
