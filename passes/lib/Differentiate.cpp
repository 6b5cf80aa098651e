// adjit-differentiate: reverse and forward mode over the adjit dialect. The
// driver knows no op: rules come from DifferentiableOpInterface.
#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_DIFFERENTIATE
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {


std::string maskSuffix(ArrayRef<bool> mask) {
  std::string s;
  for (auto [i, on] : llvm::enumerate(mask))
    if (on)
      s += "_" + std::to_string(i);
  return s;
}

class Differentiator : public DerivativeContext {
public:
  explicit Differentiator(ModuleOp module) : module(module), symbols(module) {}

  FailureOr<func::FuncOp> reverseFunction(func::FuncOp callee, ArrayRef<bool> given) override {
    return reverse(callee, SmallVector<bool>(callee.getNumArguments(), true), given);
  }
  FailureOr<func::FuncOp> forwardFunction(func::FuncOp callee, ArrayRef<bool> given) override {
    return forward(callee, given);
  }
  LogicalResult reverseBlock(OpBuilder &b, Block &body, ValueRange arguments,
                             ArrayRef<bool> needed, ValueRange resultCotangents,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Value> &argumentCotangents,
                             IRMapping *primalClones) override;
  LogicalResult forwardBlock(OpBuilder &b, Block &body, ValueRange arguments,
                             ValueRange argumentTangents, SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Value> &resultTangents) override;
  bool needsCotangent(Value operand) override {
    return activeNow && activeNow->contains(operand);
  }
  void replacePrimal(Operation *op, ValueRange values) override {
    for (auto [old, now] : llvm::zip(op->getResults(), values))
      replaced[old] = now;
    op->replaceAllUsesWith(values);
  }

  /// `(args..., cotangents of the results in `given`...) -> (results...,
  /// cotangents of the args in `wrt`)`; `given` empty: every result's.
  FailureOr<func::FuncOp> reverse(func::FuncOp f, ArrayRef<bool> wrt, ArrayRef<bool> given = {});
  /// `(args..., tangents of the args in `wrt`) -> (results..., tangents of
  /// the results)`.
  FailureOr<func::FuncOp> forward(func::FuncOp f, ArrayRef<bool> wrt);

  LogicalResult expandRequests(func::FuncOp f);

private:
  /// The derived function of `f` named by `suffix`, `inputs -> results`:
  /// cached, or new, its body built by `build` (which fills in the values
  /// to return).
  FailureOr<func::FuncOp>
  derive(func::FuncOp f, const std::string &suffix, TypeRange inputs, TypeRange results,
         function_ref<LogicalResult(OpBuilder &, Block &entry, SmallVectorImpl<Value> &returned)>
             build);

  ModuleOp module;
  SymbolTable symbols;
  std::map<std::pair<Operation *, std::string>, func::FuncOp> derived;
  /// The active values of the innermost reverse sweep running now.
  const llvm::DenseSet<Value> *activeNow = nullptr;
  /// Primal results that rules replaced (replacePrimal), old -> new.
  llvm::DenseMap<Value, Value> replaced;
};

FailureOr<func::FuncOp> Differentiator::derive(
    func::FuncOp f, const std::string &suffix, TypeRange inputs, TypeRange results,
    function_ref<LogicalResult(OpBuilder &, Block &, SmallVectorImpl<Value> &)> build) {
  auto key = std::make_pair(f.getOperation(), suffix);
  if (auto it = derived.find(key); it != derived.end())
    return it->second;
  if (f.isExternal() || !f.getBody().hasOneBlock())
    return f.emitError() << "cannot differentiate '" << f.getSymName()
                         << "': it needs a body of one block";
  OpBuilder b(module.getContext());
  auto fn = b.create<func::FuncOp>(f.getLoc(), (f.getSymName() + suffix).str(),
                                   b.getFunctionType(inputs, results));
  fn.setPrivate();
  symbols.insert(fn, module.getBody()->end());
  derived[key] = fn;
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  SmallVector<Value> returned;
  if (failed(build(b, *entry, returned)))
    return failure();
  b.create<func::ReturnOp>(f.front().getTerminator()->getLoc(), returned);
  return fn;
}

// The derivative rule of `op` for `mode` ("reverse-mode" or "forward-mode").
FailureOr<DifferentiableOpInterface> ruleOf(Operation *op, StringRef mode) {
  auto rule = dyn_cast<DifferentiableOpInterface>(op);
  if (!rule)
    return op->emitError() << "no " << mode << " derivative rule for '" << op->getName()
                           << "' (implement DifferentiableOpInterface)";
  return rule;
}

// Checks that a rule of `op` that succeeded (`built`) gave `count`
// derivatives, one per `expected` of the op.
LogicalResult checkRule(Operation *op, LogicalResult built, size_t count, StringRef what,
                        size_t expected, StringRef per) {
  if (failed(built))
    return op->emitError() << "the derivative rule of '" << op->getName() << "' failed";
  if (count != expected)
    return op->emitError() << "the derivative rule of '" << op->getName() << "' returned "
                           << count << " " << what << " for " << expected << " " << per;
  return success();
}

LogicalResult Differentiator::reverseBlock(OpBuilder &b, Block &body, ValueRange arguments,
                                           ArrayRef<bool> needed, ValueRange resultCotangents,
                                           SmallVectorImpl<Value> &results,
                                           SmallVectorImpl<Value> &argumentCotangents,
                                           IRMapping *primalClones) {
  IRMapping primal;
  primal.map(body.getArguments(), arguments);
  SmallVector<Operation *> primalOps;
  for (Operation &op : body.without_terminator())
    primalOps.push_back(b.clone(op, primal));
  if (primalClones)
    *primalClones = primal;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(primal.lookupOrDefault(v));

  SmallVector<Value> seeds;
  for (auto [arg, on] : llvm::zip(arguments, needed))
    if (on)
      seeds.push_back(arg);
  llvm::DenseSet<Value> active = activeValues(primalOps, seeds, results);
  const llvm::DenseSet<Value> *enclosingActive = activeNow;
  activeNow = &active;
  auto restoreActive = llvm::make_scope_exit([&] { activeNow = enclosingActive; });

  llvm::DenseMap<Value, Value> adjoint;
  auto accumulate = [&](Value v, Value contribution) -> LogicalResult {
    Value &slot = adjoint[v];
    if (!slot) {
      slot = contribution;
      return success();
    }
    // Only a loop's per-iteration stack (its residuals, for a run-time
    // trip count) is dynamically shaped; adjit.add is not.
    if (!cast<ShapedType>(contribution.getType()).hasStaticShape())
      return emitError(contribution.getLoc())
             << "reverse-mode differentiation would add two cotangents of "
             << contribution.getType()
             << ", the per-iteration stack of a loop whose trip count is known only at run "
                "time: reverse mode of third or higher order through such a loop is not "
                "supported; give the loop static bounds, or take the highest order in "
                "forward mode (jvp, hessian)";
    slot = b.create<AddOp>(contribution.getLoc(), slot, contribution).getResult();
    return success();
  };
  for (auto [out, cotangent] : llvm::zip(results, resultCotangents))
    if (cotangent && active.contains(out) && failed(accumulate(out, cotangent)))
      return failure();

  // The adjoint sweep is appended after the primal ops, walking them
  // backwards; rules may move the builder, so each starts from here.
  OpBuilder::InsertPoint sweep = b.saveInsertionPoint();
  for (Operation *op : llvm::reverse(primalOps)) {
    SmallVector<Value> cotangents;
    for (Value r : op->getResults())
      cotangents.push_back(adjoint.lookup(r));
    if (llvm::all_of(cotangents, [](Value v) { return !v; }))
      continue;
    if (op->hasTrait<NotDifferentiable>())
      continue;
    FailureOr<DifferentiableOpInterface> rule = ruleOf(op, "reverse-mode");
    if (failed(rule))
      return failure();
    SmallVector<Value> contributions;
    b.restoreInsertionPoint(sweep);
    LogicalResult built = rule->buildVJP(b, cotangents, contributions, *this);
    if (failed(checkRule(op, built, contributions.size(), "cotangents", op->getNumOperands(),
                         "operands")))
      return failure();
    for (auto [operand, contribution] : llvm::zip(op->getOperands(), contributions))
      if (contribution && active.contains(operand) && failed(accumulate(operand, contribution)))
        return failure();
  }
  b.restoreInsertionPoint(sweep);
  llvm::DenseSet<Value> given;
  for (auto [arg, on] : llvm::zip(arguments, needed))
    argumentCotangents.push_back(on && given.insert(arg).second ? adjoint.lookup(arg) : Value());
  return success();
}

LogicalResult Differentiator::forwardBlock(OpBuilder &b, Block &body, ValueRange arguments,
                                           ValueRange argumentTangents,
                                           SmallVectorImpl<Value> &results,
                                           SmallVectorImpl<Value> &resultTangents) {
  IRMapping primal;
  primal.map(body.getArguments(), arguments);
  llvm::DenseMap<Value, Value> tangent;
  for (auto [arg, t] : llvm::zip(arguments, argumentTangents))
    if (t && isFloatTensor(arg.getType()))
      tangent[arg] = t;
  for (Operation &op : body.without_terminator()) {
    Operation *clone = b.clone(op, primal);
    SmallVector<Value> tangents;
    for (Value v : clone->getOperands())
      tangents.push_back(tangent.lookup(v));
    if (llvm::all_of(tangents, [](Value v) { return !v; }) ||
        clone->hasTrait<NotDifferentiable>())
      continue;
    FailureOr<DifferentiableOpInterface> rule = ruleOf(clone, "forward-mode");
    if (failed(rule))
      return failure();
    SmallVector<Value> resultTangents;
    LogicalResult built = rule->buildJVP(b, tangents, resultTangents, *this);
    if (failed(checkRule(clone, built, resultTangents.size(), "tangents", clone->getNumResults(),
                         "results")))
      return failure();
    for (auto [old, r, t] : llvm::zip(op.getResults(), clone->getResults(), resultTangents)) {
      // A rule that recomputed the primal results along with the tangents
      // (replacePrimal) makes later clones use the new ones.
      Value now = replaced.lookup(r);
      if (now)
        primal.map(old, now);
      if (t && isFloatTensor(r.getType()))
        tangent[now ? now : r] = t;
    }
  }
  for (Value v : body.getTerminator()->getOperands()) {
    Value mapped = primal.lookupOrDefault(v);
    results.push_back(mapped);
    resultTangents.push_back(tangent.lookup(mapped));
  }
  return success();
}

FailureOr<func::FuncOp> Differentiator::reverse(func::FuncOp f, ArrayRef<bool> wrt,
                                                ArrayRef<bool> given) {
  FunctionType type = f.getFunctionType();
  unsigned numInputs = type.getNumInputs();
  SmallVector<bool> withCotangent(given);
  if (withCotangent.empty())
    withCotangent.assign(type.getNumResults(), true);
  SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  for (auto [r, on] : llvm::enumerate(withCotangent))
    if (on)
      inputs.push_back(type.getResult(r));
  for (auto [i, on] : llvm::enumerate(wrt))
    if (on)
      results.push_back(type.getInput(i));
  auto build = [&](OpBuilder &b, Block &entry, SmallVectorImpl<Value> &returned) {
    auto fn = cast<func::FuncOp>(entry.getParentOp());
    fn->setAttr(kCotangentsFromAttrName, b.getI64IntegerAttr(numInputs));
    fn->setAttr(kPrimalResultsAttrName, b.getI64IntegerAttr(type.getNumResults()));
    SmallVector<Value> resultCotangents;
    unsigned next = numInputs;
    for (bool on : withCotangent)
      resultCotangents.push_back(on ? entry.getArgument(next++) : Value());
    SmallVector<Value> cotangents;
    if (failed(reverseBlock(b, f.front(), entry.getArguments().take_front(numInputs), wrt,
                            resultCotangents, returned, cotangents, nullptr)))
      return failure();
    // Unconnected (or integer) arguments get zeros, never nothing.
    for (auto [i, on] : llvm::enumerate(wrt))
      if (on)
        returned.push_back(orZeros(b, fn.getLoc(), cotangents[i], type.getInput(i)));
    return success();
  };
  bool all = llvm::all_of(withCotangent, [](bool on) { return on; });
  return derive(f, "_vjp" + maskSuffix(wrt) + (all ? "" : "_ct" + maskSuffix(withCotangent)),
                inputs, results, build);
}

FailureOr<func::FuncOp> Differentiator::forward(func::FuncOp f, ArrayRef<bool> wrt) {
  FunctionType type = f.getFunctionType();
  unsigned numInputs = type.getNumInputs();
  SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  for (auto [i, on] : llvm::enumerate(wrt))
    if (on)
      inputs.push_back(type.getInput(i));
  llvm::append_range(results, type.getResults());
  auto build = [&](OpBuilder &b, Block &entry, SmallVectorImpl<Value> &returned) {
    SmallVector<Value> argumentTangents;
    unsigned next = numInputs;
    for (unsigned i = 0; i < numInputs; ++i)
      argumentTangents.push_back(wrt[i] ? entry.getArgument(next++) : Value());
    SmallVector<Value> tangents;
    if (failed(forwardBlock(b, f.front(), entry.getArguments().take_front(numInputs),
                            argumentTangents, returned, tangents)))
      return failure();
    for (unsigned i = 0, n = tangents.size(); i < n; ++i)
      returned.push_back(orZeros(b, entry.getParentOp()->getLoc(), tangents[i],
                                 returned[i].getType()));
    return success();
  };
  return derive(f, "_jvp" + maskSuffix(wrt), inputs, results, build);
}

SmallVector<bool> maskOf(ArrayRef<int64_t> wrt, unsigned numArgs) {
  SmallVector<bool> mask(numArgs, false);
  for (int64_t i : wrt)
    mask[i] = true;
  return mask;
}

// Results of a derived reverse function for the `wrt` arguments, in `wrt`
// order (the derived function returns them in argument order).
SmallVector<Value> inWrtOrder(ValueRange gradients, ArrayRef<int64_t> wrt) {
  SmallVector<int64_t> sorted(wrt);
  llvm::sort(sorted);
  SmallVector<Value> ordered;
  for (int64_t arg : wrt)
    ordered.push_back(gradients[llvm::find(sorted, arg) - sorted.begin()]);
  return ordered;
}

LogicalResult Differentiator::expandRequests(func::FuncOp f) {
  SmallVector<Operation *> requests;
  f.walk([&](Operation *op) {
    if (isa<GradOp, VjpOp, JvpOp>(op))
      requests.push_back(op);
  });
  for (Operation *op : requests) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto calleeOf = [&](StringRef name) { return symbols.lookup<func::FuncOp>(name); };
    if (auto grad = dyn_cast<GradOp>(op)) {
      func::FuncOp callee = calleeOf(grad.getCallee());
      auto fn = reverse(callee, maskOf(grad.getWrt(), callee.getNumArguments()));
      if (failed(fn))
        return failure();
      SmallVector<Value> operands(grad.getPrimals());
      operands.push_back(createSplat(b, loc, callee.getResultTypes()[0], 1));
      auto call = b.create<func::CallOp>(loc, *fn, operands);
      op->replaceAllUsesWith(inWrtOrder(call.getResults().drop_front(1), grad.getWrt()));
    } else if (auto vjp = dyn_cast<VjpOp>(op)) {
      func::FuncOp callee = calleeOf(vjp.getCallee());
      auto fn = reverse(callee, maskOf(vjp.getWrt(), callee.getNumArguments()));
      if (failed(fn))
        return failure();
      SmallVector<Value> operands(vjp.getPrimals());
      llvm::append_range(operands, vjp.getCotangents());
      auto call = b.create<func::CallOp>(loc, *fn, operands);
      unsigned numResults = callee.getNumResults();
      SmallVector<Value> replacement(call.getResults().take_front(numResults));
      llvm::append_range(replacement,
                         inWrtOrder(call.getResults().drop_front(numResults), vjp.getWrt()));
      op->replaceAllUsesWith(replacement);
    } else {
      auto jvp = cast<JvpOp>(op);
      func::FuncOp callee = calleeOf(jvp.getCallee());
      auto fn = forward(callee, maskOf(jvp.getWrt(), callee.getNumArguments()));
      if (failed(fn))
        return failure();
      // The derived function takes tangents in argument order.
      SmallVector<int64_t> sorted(jvp.getWrt());
      llvm::sort(sorted);
      SmallVector<Value> operands(jvp.getPrimals());
      for (int64_t arg : sorted)
        operands.push_back(jvp.getTangents()[llvm::find(jvp.getWrt(), arg) - jvp.getWrt().begin()]);
      auto call = b.create<func::CallOp>(loc, *fn, operands);
      op->replaceAllUsesWith(call.getResults());
    }
    op->erase();
  }
  return success();
}

// Functions in callee-before-caller order (by func.call and request
// references), so requests inside a differentiated function are expanded
// before its body is copied into derivatives. Recursion is an error.
FailureOr<SmallVector<func::FuncOp>> calleesFirst(ModuleOp module, SymbolTable &symbols) {
  SmallVector<func::FuncOp> order;
  llvm::DenseMap<Operation *, int> state;  // 1: in progress, 2: done
  SmallVector<func::FuncOp> path;          // the functions in progress
  std::function<LogicalResult(func::FuncOp)> visit = [&](func::FuncOp f) -> LogicalResult {
    int &s = state[f];
    if (s == 2)
      return success();
    if (s == 1) {
      // Recursion is not an AD limit: no adjit program may recurse.
      std::string cycle;
      for (func::FuncOp g : llvm::make_range(llvm::find(path, f), path.end()))
        cycle += "'" + g.getSymName().str() + "' -> ";
      return f.emitError() << "the function '" << f.getSymName()
                           << "' is recursive (" << cycle << "'" << f.getSymName()
                           << "'): adjit programs cannot recurse; repeat work with a loop "
                              "(adjit.for / adjit.while: fori_loop, while_loop)";
    }
    s = 1;
    path.push_back(f);
    WalkResult walk = f.walk([&](Operation *op) {
      auto symbol = op->getAttrOfType<FlatSymbolRefAttr>("callee");
      if (!symbol)
        return WalkResult::advance();
      auto callee = symbols.lookup<func::FuncOp>(symbol.getValue());
      if (callee && failed(visit(callee)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    path.pop_back();
    state[f] = 2;
    order.push_back(f);
    return success();
  };
  for (auto f : llvm::to_vector(module.getOps<func::FuncOp>()))
    if (failed(visit(f)))
      return failure();
  return order;
}

struct DifferentiatePass : adjit::impl::DifferentiateBase<DifferentiatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Differentiator differentiator(module);
    SymbolTable symbols(module);
    auto order = calleesFirst(module, symbols);
    if (failed(order))
      return signalPassFailure();
    for (func::FuncOp f : *order)
      if (failed(differentiator.expandRequests(f)))
        return signalPassFailure();
  }
};

} // namespace
