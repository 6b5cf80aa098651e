// adjit-rematerialize: a reverse-mode function keeps fewer residuals when
// its backward pass recomputes cheap elementwise values from others it
// keeps anyway. Which values to keep is a minimum cut (PyTorch's
// AOTAutograd partitioner does the same): every forward value is a node
// whose keeping costs its bytes; a value an elementwise op makes can be
// recomputed from its operands, other values cannot; the backward pass
// needs every residual. The cheapest set of kept values from which all
// residuals can be had is the cut.
//
// Recomputing is only chosen where it adds no memory traffic: a residual
// that the backward pass reads in a contraction, a control-flow op or
// anything else that does not fuse with elementwise producers is kept
// (recomputing it would write it again), as is one the backward pass
// compares for equality (it must be bit for bit the forward's), and a
// value more than
// kMaxRecomputeDepth elementwise ops away from a kept one is kept too,
// which bounds the work added. The recomputation sits behind an
// adjit.optimization_barrier on the kept values, so that CSE and fusion
// do not merge it back into the forward pass.
#include "MinCut.h"

#include "adjit/Dialect/AdjitDialect.h"
#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/BufferPlan.h"
#include "adjit/Passes/Passes.h"
#include "adjit/Passes/Residuals.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_REMATERIALIZE
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {

// How many elementwise ops deep a recomputation may reach.
constexpr int kMaxRecomputeDepth = 8;
// What keeping a value of unknown size costs: more than any known one, so
// such values are kept only where nothing else will do (never recomputed).
constexpr int64_t kUnknownBytes = int64_t(1) << 40;

int64_t bytesOf(Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  std::optional<int64_t> bytes = type ? sizeInBytes(type) : std::nullopt;
  return bytes.value_or(kUnknownBytes);
}

// An op whose result the backward pass may compute again from its
// operands: one result, elementwise or a pure rearrangement of elements
// (which fusion reads through its map), static shapes.
bool isRecomputable(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  if (!isa<ElementwiseOpInterface, BroadcastInDimOp, ReshapeOp, TransposeOp, IotaOp>(op))
    return false;
  auto isStatic = [](Value v) {
    auto type = dyn_cast<ShapedType>(v.getType());
    return type && type.hasStaticShape();
  };
  return llvm::all_of(op->getOperands(), isStatic) && isStatic(op->getResult(0));
}

// A backward op that reads a recomputed value fuses with its recomputation.
bool fusesWithProducers(Operation *op) {
  return isa<ElementwiseOpInterface, BroadcastInDimOp, ReshapeOp, TransposeOp, ReduceOp>(op);
}

bool isFree(Value v) { return isa<BlockArgument>(v) || matchPattern(v, m_Constant()); }

class Rematerializer {
public:
  Rematerializer(func::FuncOp function, ReverseSplit split)
      : function_(function), split_(std::move(split)) {}

  void run() {
    keepOnlyResidualsAcrossKernels();
    if (split_.residuals.empty())
      return;
    buildGraph();
    graph_.maxFlow(source_, sink_);
    std::vector<bool> reached = graph_.sourceSide(source_);
    int64_t keptBytes = 0, residualBytes = 0;
    for (auto [value, node] : nodes_) {
      if (reached[node] && !reached[node + 1])
        keptBytes += bytesOf(value);
      recomputed_[value] = !reached[node];
    }
    for (Value residual : split_.residuals)
      residualBytes += bytesOf(residual);
    if (keptBytes >= residualBytes)
      return;
    rewrite();
  }

private:
  // A residual read only before the next op that does not fuse (a
  // contraction, control flow, a call) is read where fusion can keep it in
  // registers or in a block of rows (a LayerNorm's statistics, W1's tanh):
  // there is nothing to gain by recomputing it, and a barrier would only
  // split the fused loops. The others live across such an op in memory.
  void keepOnlyResidualsAcrossKernels() {
    Block &body = function_.getBody().front();
    llvm::DenseMap<Operation *, int64_t> kernelsBefore;
    int64_t kernels = 0;
    for (Operation &op : body) {
      kernelsBefore[&op] = kernels;
      if (!fusesWithProducers(&op) && !matchPattern(&op, m_Constant()) && !isa<IotaOp>(op))
        ++kernels;
    }
    llvm::SetVector<Value> acrossKernels;
    for (Value residual : split_.residuals) {
      Operation *producer = residual.getDefiningOp();
      int64_t after = kernelsBefore.lookup(producer->getNextNode());
      if (llvm::any_of(residual.getUsers(), [&](Operation *user) {
            Operation *top = body.findAncestorOpInBlock(*user);
            return top && !split_.forward.contains(top) &&
                   !top->hasTrait<OpTrait::IsTerminator>() && kernelsBefore.lookup(top) > after;
          }))
        acrossKernels.insert(residual);
    }
    split_.residuals = std::move(acrossKernels);
  }

  // Node n is a value's "computed" end, n + 1 its "available" end; the
  // edge between them costs the value's bytes (keeping it).
  int nodeOf(Value v) {
    auto [it, inserted] = nodes_.try_emplace(v, 0);
    if (inserted) {
      it->second = graph_.addNode();
      graph_.addNode();
      graph_.addEdge(it->second, it->second + 1, bytesOf(v));
    }
    return it->second;
  }

  // How many recomputable ops deep each forward value is (0 for what cannot
  // be recomputed), counted in program order and capped past the limit.
  void computeDepths() {
    for (Operation &op : function_.getBody().front()) {
      if (!split_.forward.contains(&op) || op.getNumResults() != 1 || !isRecomputable(&op))
        continue;
      int depth = 1;
      for (Value operand : op.getOperands())
        depth = std::max(depth, depth_.lookup(operand) + 1);
      depth_[op.getResult(0)] = std::min(depth, kMaxRecomputeDepth + 1);
    }
  }

  void buildGraph() {
    computeDepths();
    source_ = graph_.addNode();
    sink_ = graph_.addNode();
    SmallVector<Value> worklist;
    auto visit = [&](Value v) {
      bool seen = nodes_.contains(v);
      int node = nodeOf(v);
      if (!seen)
        worklist.push_back(v);
      return node;
    };
    for (Value residual : split_.residuals) {
      int node = visit(residual);
      graph_.addEdge(node + 1, sink_, FlowGraph::kInfinite);
      bool readWhereItFuses = llvm::all_of(residual.getUsers(), [&](Operation *user) {
        return split_.forward.contains(user) || fusesWithProducers(user);
      });
      // A residual compared for equality (a max's mask, against the kept
      // maximum) must be the forward pass's value to the bit: recomputed in
      // other code (libm's sin where the forward had a vector sin, another
      // FMA contraction), a row's mask could be all false, and its share
      // 0 / 0.
      bool comparedForEquality = llvm::any_of(residual.getUsers(), [&](Operation *user) {
        auto compare = dyn_cast<CompareOp>(user);
        return compare && !split_.forward.contains(user) &&
               (compare.getDirection() == ComparisonDirection::eq ||
                compare.getDirection() == ComparisonDirection::ne);
      });
      if (!readWhereItFuses || comparedForEquality)
        graph_.addEdge(source_, node, FlowGraph::kInfinite);
    }
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *producer = v.getDefiningOp();
      int node = nodes_.lookup(v);
      if (!isRecomputable(producer) || depth_.lookup(v) > kMaxRecomputeDepth) {
        graph_.addEdge(source_, node, FlowGraph::kInfinite);
        continue;
      }
      // Arguments and constants are there in the backward pass already.
      for (Value operand : producer->getOperands())
        if (!isFree(operand))
          graph_.addEdge(visit(operand) + 1, node, FlowGraph::kInfinite);
    }
  }

  void rewrite() {
    Block &body = function_.getBody().front();
    // The backward pass proper starts after the last forward op: ops before
    // it (primal ops nothing returned needs) keep reading the originals.
    Operation *lastForward = nullptr;
    for (Operation &op : body)
      if (split_.forward.contains(&op))
        lastForward = &op;
    // (A primal result that is also a residual is still returned as
    // computed by the forward pass.)
    llvm::DenseSet<Operation *> added;  // the barrier and the clones
    auto readsAgain = [&](Operation *user) {
      Operation *top = body.findAncestorOpInBlock(*user);
      return top && lastForward->isBeforeInBlock(top) && !added.contains(top) &&
             !top->hasTrait<OpTrait::IsTerminator>();
    };
    // What the recomputation starts from: the kept values and arguments,
    // behind one barrier (so that CSE does not merge the recomputation
    // back into the forward pass) placed before the first backward op
    // that reads a recomputed residual.
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> toClone;
    std::function<void(Value)> collect = [&](Value v) {
      Operation *producer = v.getDefiningOp();
      if (!producer || matchPattern(v, m_Constant()) || !toClone.insert(producer))
        return;
      for (Value operand : producer->getOperands()) {
        if (matchPattern(operand, m_Constant()))
          continue;
        if (!isa<BlockArgument>(operand) && recomputed_.lookup(operand))
          collect(operand);
        else
          inputs.insert(operand);
      }
    };
    Operation *first = nullptr;
    for (Value residual : split_.residuals) {
      if (!recomputed_.lookup(residual))
        continue;
      collect(residual);
      for (Operation *user : residual.getUsers())
        if (readsAgain(user)) {
          Operation *top = body.findAncestorOpInBlock(*user);
          if (!first || top->isBeforeInBlock(first))
            first = top;
        }
    }
    if (!first)
      return;
    OpBuilder b(first);
    IRMapping mapping;
    if (!inputs.empty()) {
      auto barrier = b.create<OptimizationBarrierOp>(first->getLoc(), inputs.getArrayRef());
      added.insert(barrier);
      mapping.map(inputs.getArrayRef(), barrier.getResults());
    }
    // Clones in program order, so that operands come first.
    SmallVector<Operation *> ordered(toClone.begin(), toClone.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    for (Operation *op : ordered)
      added.insert(b.clone(*op, mapping));
    for (Value residual : split_.residuals)
      if (recomputed_.lookup(residual))
        residual.replaceUsesWithIf(mapping.lookup(residual),
                                   [&](OpOperand &use) { return readsAgain(use.getOwner()); });
    // Forward values only the backward pass read are not computed there.
    for (Operation *op : llvm::reverse(ordered))
      if (op->use_empty() && isMemoryEffectFree(op))
        op->erase();
  }

  func::FuncOp function_;
  ReverseSplit split_;
  FlowGraph graph_{0};
  int source_ = 0, sink_ = 0;
  llvm::MapVector<Value, int> nodes_;
  llvm::DenseMap<Value, int> depth_;
  llvm::DenseMap<Value, bool> recomputed_;
};

// Rules compute every operand's contribution, also for operands nothing
// differentiates (a weight's gradient when only the input's is asked for):
// those dead ops would otherwise read residuals too.
void eraseDeadOps(func::FuncOp function) {
  Block &body = function.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

struct RematerializePass : adjit::impl::RematerializeBase<RematerializePass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp function) {
      if (!function.isExternal() && function->hasAttr(kCotangentsFromAttrName))
        eraseDeadOps(function);
      if (std::optional<ReverseSplit> split = splitReverseFunction(function))
        Rematerializer(function, std::move(*split)).run();
    });
  }
};

} // namespace
