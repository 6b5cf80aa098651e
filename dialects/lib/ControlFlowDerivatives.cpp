// Derivative rules of the control-flow ops. Each builds a derived op of the
// same kind whose regions the driver differentiates (DerivativeContext's
// reverseBlock / forwardBlock), so nested control flow and higher orders
// need nothing more.
#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

bool isFloat(Value v) { return isFloatTensor(v.getType()); }

// An entry block of `region` taking `types`; the builder moves into it.
Block *createEntry(OpBuilder &b, Region &region, TypeRange types, Location loc) {
  return b.createBlock(&region, {}, types, SmallVector<Location>(types.size(), loc));
}

// Clones `body`'s ops with its arguments standing for `arguments`; returns
// the clones of the yielded values (`mapping` gets the clones of the rest).
SmallVector<Value> cloneBody(OpBuilder &b, Block &body, ValueRange arguments,
                             IRMapping &mapping) {
  mapping.map(body.getArguments(), arguments);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(v));
  return yielded;
}

SmallVector<Value> cloneBody(OpBuilder &b, Block &body, ValueRange arguments) {
  IRMapping mapping;
  return cloneBody(b, body, arguments, mapping);
}

// What a forward-mode region yields for `results`: the results, then the
// tangent of each float one (zeros where none flows).
void appendWithTangents(OpBuilder &b, Location loc, ArrayRef<Value> results,
                        ArrayRef<Value> tangents, SmallVectorImpl<Value> &yielded) {
  llvm::append_range(yielded, results);
  for (auto [r, t] : llvm::zip(results, tangents))
    if (isFloat(r))
      yielded.push_back(orZeros(b, loc, t, r.getType()));
}

RankedTensorType rowType(Type stacked) {
  auto type = cast<RankedTensorType>(stacked);
  return type.clone(type.getShape().drop_front());
}

RankedTensorType stackedType(Type row, int64_t count) {
  auto type = cast<RankedTensorType>(row);
  SmallVector<int64_t> shape{count};
  llvm::append_range(shape, type.getShape());
  return type.clone(shape);
}

// The values of `values` at the positions where `on` holds.
SmallVector<Value> select(ValueRange values, ArrayRef<bool> on) {
  SmallVector<Value> picked;
  for (auto [v, keep] : llvm::zip(values, on))
    if (keep)
      picked.push_back(v);
  return picked;
}

SmallVector<bool> floats(ValueRange values) {
  return llvm::map_to_vector(values, [](Value v) { return isFloat(v); });
}

SmallVector<bool> nonNull(ValueRange values) {
  return llvm::map_to_vector(values, [](Value v) { return static_cast<bool>(v); });
}

// Hands out `values` in order at the positions where `on` holds, null
// elsewhere: the inverse of select().
SmallVector<Value> spread(ValueRange values, ArrayRef<bool> on) {
  SmallVector<Value> spread;
  unsigned next = 0;
  for (bool keep : on)
    spread.push_back(keep ? values[next++] : Value());
  return spread;
}

// The entry block's arguments of a ForOp body: i, carries, rows of the
// stacked inputs, invariants.
SmallVector<Type> forBodyTypes(Type counter, TypeRange carries, TypeRange stacked,
                               TypeRange invariants) {
  SmallVector<Type> types{counter};
  llvm::append_range(types, carries);
  for (Type t : stacked)
    types.push_back(rowType(t));
  llvm::append_range(types, invariants);
  return types;
}

// Ops worth storing the results of rather than recomputing them: work
// beyond a pass over the elements (contractions, reductions, gathers, loops).
bool isExpensive(Operation *op) {
  return isa<DotGeneralOp, ReduceOp, ArgMaxOp, GatherOp, ScatterAddOp, ScatterExtremumOp, CondOp,
             ForOp, WhileOp>(op);
}

// A primal loop that also stacks, per iteration, the carries it starts
// from and the given residuals (values of the differentiated loop's body).
struct Stacking {
  Operation *op;
  ValueRange primal;        // the results that replace the loop's
  ValueRange savedCarries;  // a stack per carry
  ValueRange residuals;     // a stack per residual
};
// Builds a stacking loop before the loop being differentiated. Those it
// builds for the same loop have the same leading results, residuals last.
using BuildStacking = llvm::function_ref<Stacking(ArrayRef<Value> residuals)>;

// Adds carries to `loop` (after its others), starting from `inits`, for
// which its body yields `next` (values of the body); returns their body
// arguments. Ops cannot grow results, so the loop is rebuilt.
SmallVector<Value> appendCarries(OpBuilder &b, ForOp &loop, ValueRange inits, ValueRange next) {
  unsigned numCarries = loop.getNumCarries();
  SmallVector<Value> carries(loop.getInits());
  llvm::append_range(carries, inits);
  SmallVector<Type> types(loop.getCarryResults().getTypes());
  llvm::append_range(types, inits.getTypes());
  llvm::append_range(types, loop.getStackedResults().getTypes());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  auto grown = b.create<ForOp>(loop.getLoc(), types, loop.getLower(), loop.getUpper(), carries,
                               loop.getStacked(), loop.getInvariants(), loop.getReverse());
  grown.getBody().takeBody(loop.getBody());
  Block &body = grown.getBody().front();
  SmallVector<Value> arguments;
  for (auto [k, init] : llvm::enumerate(inits))
    arguments.push_back(body.insertArgument(1 + numCarries + k, init.getType(), loop.getLoc()));
  body.getTerminator()->insertOperands(numCarries, next);
  loop.getCarryResults().replaceAllUsesWith(grown.getCarryResults().take_front(numCarries));
  loop.getStackedResults().replaceAllUsesWith(grown.getStackedResults());
  loop->erase();
  loop = grown;
  return arguments;
}

// The reverse loop's body starts with a recomputation of `original`'s body
// (`clones` maps it). A primal value that the adjoint reads (a residual)
// and whose recomputation involves expensive work (tanh of a matmul) is
// kept instead of recomputed, as JAX's scan keeps it, and the recomputation
// that only fed it is erased. Cheap elementwise residuals are recomputed:
// that costs less than the memory traffic of stacking them (the trade-off
// of AOTAutograd's partitioner). A residual that the body yields as a
// carry (an RNN's new state) is the carry the next iteration starts from:
// the reverse loop carries it (the final carry, then each iteration's saved
// one) rather than the primal loop stacking it beside the saved carries;
// unless the body also yields it as a row, whose stack then serves both.
// Other residuals are stacked by the primal loop.
void keepResiduals(OpBuilder &b, ForOp original, Stacking &stacking, ForOp &reverseLoop,
                   const IRMapping &clones, BuildStacking build) {
  Block &primalBody = original.getBody().front();
  Block &body = reverseLoop.getBody().front();
  llvm::SmallPtrSet<Operation *, 16> recomputed;
  // Whether recomputing an op's results involves expensive work, in order.
  llvm::DenseMap<Operation *, bool> costly;
  for (Operation &op : primalBody.without_terminator()) {
    costly[&op] = isExpensive(&op) || llvm::any_of(op.getOperands(), [&](Value v) {
                    Operation *def = v.getDefiningOp();
                    return def && costly.lookup(def);
                  });
    Operation *clone = clones.lookupOrNull(&op);
    if (clone && clone->getBlock() == &body)
      recomputed.insert(clone);
  }
  ValueRange yielded = primalBody.getTerminator()->getOperands();
  ValueRange nextCarries = yielded.take_front(original.getNumCarries());
  ValueRange rows = yielded.drop_front(original.getNumCarries());
  SmallVector<Value> stackedResiduals, inPrimal, carriedResiduals;
  SmallVector<unsigned> carryOf;
  for (Operation &op : primalBody.without_terminator()) {
    Operation *clone = clones.lookupOrNull(&op);
    if (!costly[&op] || !recomputed.contains(clone))
      continue;
    for (auto [r, o] : llvm::zip(clone->getResults(), op.getResults())) {
      if (llvm::all_of(r.getUsers(), [&](Operation *user) { return recomputed.contains(user); }))
        continue;
      auto next = llvm::find(nextCarries, o);
      if (next != nextCarries.end() && !llvm::is_contained(rows, o)) {
        carriedResiduals.push_back(r);
        carryOf.push_back(next - nextCarries.begin());
      } else {
        stackedResiduals.push_back(r);
        inPrimal.push_back(o);
      }
    }
  }
  if (stackedResiduals.empty() && carriedResiduals.empty())
    return;
  auto useKept = [&](Value residual, Value kept) {
    residual.replaceUsesWithIf(kept,
                               [&](OpOperand &use) { return !recomputed.contains(use.getOwner()); });
  };
  Location loc = original.getLoc();

  if (!stackedResiduals.empty()) {
    // The primal loop again, stacking the residuals too.
    Stacking keeping = build(inPrimal);
    stacking.op->replaceAllUsesWith(
        keeping.op->getResults().take_front(stacking.op->getNumResults()));
    stacking.op->erase();
    stacking = keeping;
    // The reverse loop reads them as rows of more stacked inputs.
    unsigned position = 1 + reverseLoop.getNumCarries() + reverseLoop.getStacked().size();
    reverseLoop.getStackedMutable().append(keeping.residuals);
    for (auto [k, r] : llvm::enumerate(stackedResiduals))
      useKept(r, body.insertArgument(position + k, r.getType(), loc));
  }
  if (!carriedResiduals.empty()) {
    // Each starts from the final carry, then takes the carry each iteration
    // started from: the reverse loop's leading stacked inputs are those.
    SmallVector<Value> finals, saved;
    for (unsigned carry : carryOf) {
      finals.push_back(stacking.primal[carry]);
      saved.push_back(body.getArgument(1 + reverseLoop.getNumCarries() + carry));
    }
    for (auto [r, argument] :
         llvm::zip(carriedResiduals, appendCarries(b, reverseLoop, finals, saved)))
      useKept(r, argument);
  }
  SmallVector<Operation *> dead(recomputed.begin(), recomputed.end());
  // Erase in reverse program order so users go before their producers.
  llvm::sort(dead, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *clone : dead)
    if (clone->use_empty() && isMemoryEffectFree(clone))
      clone->erase();
}

} // namespace

//===----------------------------------------------------------------------===//
// cond
//===----------------------------------------------------------------------===//

LogicalResult CondOp::buildJVP(OpBuilder &b, ValueRange tangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &context) {
  Location loc = getLoc();
  ValueRange inputTangents = tangents.drop_front();
  SmallVector<bool> hasTangent = nonNull(inputTangents);
  SmallVector<Value> inputs(getInputs());
  llvm::append_range(inputs, select(inputTangents, hasTangent));
  SmallVector<bool> floatResults = floats(getResults());
  SmallVector<Type> types(getResultTypes());
  llvm::append_range(types, ValueRange(select(getResults(), floatResults)).getTypes());
  auto cond = b.create<CondOp>(loc, types, getPred(), inputs);
  unsigned n = getInputs().size();
  for (auto [from, to] : {std::pair{&getThenRegion(), &cond.getThenRegion()},
                          std::pair{&getElseRegion(), &cond.getElseRegion()}}) {
    OpBuilder::InsertionGuard guard(b);
    Block *block = createEntry(b, *to, ValueRange(inputs).getTypes(), loc);
    SmallVector<Value> results, resultTangents;
    if (failed(context.forwardBlock(b, from->front(), block->getArguments().take_front(n),
                                    spread(block->getArguments().drop_front(n), hasTangent),
                                    results, resultTangents)))
      return failure();
    SmallVector<Value> yielded;
    appendWithTangents(b, loc, results, resultTangents, yielded);
    b.create<YieldOp>(loc, yielded);
  }
  context.replacePrimal(*this, cond.getResults().take_front(getNumResults()));
  llvm::append_range(out, spread(cond.getResults().drop_front(getNumResults()), floatResults));
  return success();
}

LogicalResult CondOp::buildVJP(OpBuilder &b, ValueRange cotangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &context) {
  Location loc = getLoc();
  SmallVector<bool> needed = llvm::map_to_vector(
      getInputs(), [&](Value v) { return isFloat(v) && context.needsCotangent(v); });
  SmallVector<bool> floatResults = floats(getResults());
  SmallVector<Value> inputs(getInputs());
  for (auto [r, ct] : llvm::zip(getResults(), cotangents))
    if (isFloat(r))
      inputs.push_back(orZeros(b, loc, ct, r.getType()));
  SmallVector<Value> neededInputs = select(getInputs(), needed);
  auto cond = b.create<CondOp>(loc, ValueRange(neededInputs).getTypes(), getPred(), inputs);
  unsigned n = getInputs().size();
  for (auto [from, to] : {std::pair{&getThenRegion(), &cond.getThenRegion()},
                          std::pair{&getElseRegion(), &cond.getElseRegion()}}) {
    OpBuilder::InsertionGuard guard(b);
    Block *block = createEntry(b, *to, ValueRange(inputs).getTypes(), loc);
    ValueRange arguments = block->getArguments().take_front(n);
    SmallVector<Value> results, argumentCotangents;
    if (failed(context.reverseBlock(b, from->front(), arguments, needed,
                                    spread(block->getArguments().drop_front(n), floatResults),
                                    results, argumentCotangents)))
      return failure();
    SmallVector<Value> yielded;
    for (auto [arg, ct, on] : llvm::zip(arguments, argumentCotangents, needed))
      if (on)
        yielded.push_back(orZeros(b, loc, ct, arg.getType()));
    b.create<YieldOp>(loc, yielded);
  }
  out.push_back(Value());  // the predicate
  llvm::append_range(out, spread(cond.getResults(), needed));
  return success();
}

//===----------------------------------------------------------------------===//
// for
//===----------------------------------------------------------------------===//

LogicalResult ForOp::buildJVP(OpBuilder &b, ValueRange tangents, SmallVectorImpl<Value> &out,
                              DerivativeContext &context) {
  Location loc = getLoc();
  unsigned numCarries = getNumCarries(), numStacked = getStacked().size();
  ValueRange carryTangents = tangents.slice(2, numCarries);
  ValueRange stackedTangents = tangents.slice(2 + numCarries, numStacked);
  ValueRange invariantTangents = tangents.drop_front(2 + numCarries + numStacked);

  // Float carries always carry a tangent: the body may make one nonzero.
  SmallVector<bool> floatCarries = floats(getInits());
  SmallVector<bool> floatOutputs = floats(getStackedResults());
  SmallVector<bool> stackedHasTangent = nonNull(stackedTangents);
  SmallVector<bool> invariantHasTangent = nonNull(invariantTangents);
  SmallVector<Value> carries(getInits());
  for (auto [init, t] : llvm::zip(getInits(), carryTangents))
    if (isFloat(init))
      carries.push_back(orZeros(b, loc, t, init.getType()));
  SmallVector<Value> stacked(getStacked()), invariants(getInvariants());
  llvm::append_range(stacked, select(stackedTangents, stackedHasTangent));
  llvm::append_range(invariants, select(invariantTangents, invariantHasTangent));
  SmallVector<Type> types(ValueRange(carries).getTypes());
  for (Value y : getStackedResults())
    types.push_back(y.getType());
  for (Value y : select(getStackedResults(), floatOutputs))
    types.push_back(y.getType());

  auto loop = b.create<ForOp>(loc, types, getLower(), getUpper(), carries, stacked, invariants,
                              getReverse());
  {
    OpBuilder::InsertionGuard guard(b);
    Block *block = createEntry(
        b, loop.getBody(),
        forBodyTypes(getLower().getType(), ValueRange(carries).getTypes(),
                     ValueRange(stacked).getTypes(), ValueRange(invariants).getTypes()),
        loc);
    // [i, carries, carry tangents, rows, row tangents, invariants, invariant tangents]
    ValueRange args = block->getArguments();
    unsigned numFloatCarries = carries.size() - numCarries;
    unsigned numStackedTangents = stacked.size() - numStacked;
    ValueRange carryArgs = args.slice(1, numCarries);
    ValueRange carryTangentArgs = args.slice(1 + numCarries, numFloatCarries);
    unsigned rows = 1 + carries.size();
    ValueRange rowArgs = args.slice(rows, numStacked);
    ValueRange rowTangentArgs = args.slice(rows + numStacked, numStackedTangents);
    unsigned invs = rows + stacked.size();
    ValueRange invariantArgs = args.slice(invs, getInvariants().size());
    ValueRange invariantTangentArgs = args.drop_front(invs + getInvariants().size());

    SmallVector<Value> arguments{args[0]}, argumentTangents{Value()};
    llvm::append_range(arguments, carryArgs);
    llvm::append_range(argumentTangents, spread(carryTangentArgs, floatCarries));
    llvm::append_range(arguments, rowArgs);
    llvm::append_range(argumentTangents, spread(rowTangentArgs, stackedHasTangent));
    llvm::append_range(arguments, invariantArgs);
    llvm::append_range(argumentTangents, spread(invariantTangentArgs, invariantHasTangent));
    SmallVector<Value> results, resultTangents;
    if (failed(context.forwardBlock(b, getBody().front(), arguments, argumentTangents, results,
                                    resultTangents)))
      return failure();
    // [carries, their tangents, rows, their tangents]
    SmallVector<Value> yielded;
    appendWithTangents(b, loc, ArrayRef<Value>(results).take_front(numCarries),
                       ArrayRef<Value>(resultTangents).take_front(numCarries), yielded);
    appendWithTangents(b, loc, ArrayRef<Value>(results).drop_front(numCarries),
                       ArrayRef<Value>(resultTangents).drop_front(numCarries), yielded);
    b.create<YieldOp>(loc, yielded);
  }
  unsigned numOutputs = getStackedResults().size();
  SmallVector<Value> primal(loop.getResults().take_front(numCarries));
  llvm::append_range(primal, loop.getResults().slice(carries.size(), numOutputs));
  context.replacePrimal(*this, primal);
  llvm::append_range(out, spread(loop.getResults().slice(numCarries, carries.size() - numCarries),
                                 floatCarries));
  llvm::append_range(out, spread(loop.getResults().drop_front(carries.size() + numOutputs),
                                 floatOutputs));
  return success();
}

namespace {

// The driver's context, which knows the values of the program being
// differentiated: values a rule builds in front of a derived op (the rows
// of a stacked input it slices) need a cotangent where those they stand
// for do.
class StandInContext : public DerivativeContext {
public:
  explicit StandInContext(DerivativeContext &driver) : driver(driver) {}
  void standFor(Value standIn, Value original) { originals[standIn] = original; }

  FailureOr<func::FuncOp> reverseFunction(func::FuncOp callee, ArrayRef<bool> given) override {
    return driver.reverseFunction(callee, given);
  }
  FailureOr<func::FuncOp> forwardFunction(func::FuncOp callee, ArrayRef<bool> given) override {
    return driver.forwardFunction(callee, given);
  }
  LogicalResult reverseBlock(OpBuilder &builder, Block &body, ValueRange arguments,
                             ArrayRef<bool> needed, ValueRange resultCotangents,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Value> &argumentCotangents,
                             IRMapping *primalClones) override {
    return driver.reverseBlock(builder, body, arguments, needed, resultCotangents, results,
                               argumentCotangents, primalClones);
  }
  LogicalResult forwardBlock(OpBuilder &builder, Block &body, ValueRange arguments,
                             ValueRange argumentTangents, SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Value> &resultTangents) override {
    return driver.forwardBlock(builder, body, arguments, argumentTangents, results,
                               resultTangents);
  }
  bool needsCotangent(Value operand) override {
    auto original = originals.find(operand);
    return driver.needsCotangent(original == originals.end() ? operand : original->second);
  }
  void replacePrimal(Operation *op, ValueRange values) override {
    driver.replacePrimal(op, values);
  }

private:
  DerivativeContext &driver;
  DenseMap<Value, Value> originals;
};

// Rows [from, to) of a stacked value (itself when that is all of it).
Value stackedRows(OpBuilder &b, Location loc, Value stacked, int64_t from, int64_t to) {
  auto type = cast<RankedTensorType>(stacked.getType());
  if (from == 0 && to == type.getDimSize(0))
    return stacked;
  SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()), stride(type.getRank(), 1);
  start[0] = from;
  limit[0] = to;
  return b.create<SliceOp>(loc, stackedType(rowType(type), to - from), stacked, start, limit,
                           stride);
}

// A stacked value whose leading rows are regrouped as `leading`: rows as
// segments x k rows, or segments x k rows as rows.
Value restack(OpBuilder &b, Location loc, Value stacked, ArrayRef<int64_t> leading) {
  auto type = cast<RankedTensorType>(stacked.getType());
  int64_t current = leading.size() == 2 ? 1 : 2; // its leading dimensions now
  SmallVector<int64_t> shape(leading);
  llvm::append_range(shape, type.getShape().drop_front(current));
  return b.create<ReshapeOp>(loc, type.clone(shape), stacked);
}

} // namespace

// Reverse mode keeping the carries of every k-th iteration only, for a
// loop with stacked inputs and outputs (a scan): the first T - T mod k
// iterations become a loop over segments of k (an inner loop each, over
// the segment's k rows), the rest a loop of their own; their derivatives
// keep the carries at segment starts and recompute each segment, with its
// own stacks, in the backward pass. Needs constant bounds.
static LogicalResult buildSegmentedStackedVJP(ForOp op, int64_t k, OpBuilder &b,
                                              ValueRange cotangents, SmallVectorImpl<Value> &out,
                                              DerivativeContext &context) {
  std::optional<int64_t> trips = op.getConstantTripCount();
  DenseIntElementsAttr lowerAttr;
  if (!trips || !matchPattern(op.getLower(), m_Constant(&lowerAttr)))
    return op.emitError() << "checkpoint_every with stacked inputs or outputs needs constant "
                             "bounds";
  Location loc = op.getLoc();
  Type counter = op.getLower().getType();
  int64_t lower = (*lowerAttr.begin()).getSExtValue();
  int64_t segments = *trips / k, rest = *trips % k, split = segments * k;
  unsigned numCarries = op.getNumCarries(), numStacked = op.getStacked().size();
  unsigned numInvariants = op.getInvariants().size();
  ResultRange outputs = op.getStackedResults();
  StandInContext standIns(context);
  auto splat = [&](int64_t value) {
    return createSplat(b, loc, counter, static_cast<double>(value));
  };

  OpBuilder::InsertPoint sweep = b.saveInsertionPoint();
  b.setInsertionPoint(op);
  SmallVector<Value> carries(op.getInits());
  SmallVector<SmallVector<Value, 2>> outputParts(outputs.size());
  ForOp outer, tail;
  { // T > k (ForOp::buildVJP): at least one segment
    SmallVector<Value> segmentRows;
    for (Value x : op.getStacked()) {
      Value rows = restack(b, loc, stackedRows(b, loc, x, 0, split), {segments, k});
      standIns.standFor(rows, x);
      segmentRows.push_back(rows);
    }
    SmallVector<Type> types(op.getInits().getTypes());
    for (Value y : outputs)
      types.push_back(stackedType(stackedType(rowType(y.getType()), k), segments));
    outer = b.create<ForOp>(loc, types, splat(0), splat(segments), carries, segmentRows,
                            op.getInvariants(), false, 1);
    OpBuilder::InsertionGuard guard(b);
    Block *block = createEntry(
        b, outer.getBody(),
        forBodyTypes(counter, op.getInits().getTypes(), ValueRange(segmentRows).getTypes(),
                     op.getInvariants().getTypes()),
        loc);
    ValueRange args = block->getArguments();
    // Segment s runs i = lower + s k + j for j in [0, k).
    Value first = b.create<AddOp>(loc, b.create<MulOp>(loc, args[0], splat(k)), splat(lower));
    SmallVector<Value> invariants(args.take_back(numInvariants));
    invariants.push_back(first);
    SmallVector<Type> innerTypes(op.getInits().getTypes());
    for (Value y : outputs)
      innerTypes.push_back(stackedType(rowType(y.getType()), k));
    auto inner = b.create<ForOp>(loc, innerTypes, splat(0), splat(k), args.slice(1, numCarries),
                                 args.slice(1 + numCarries, numStacked), invariants, false);
    {
      OpBuilder::InsertionGuard innerGuard(b);
      SmallVector<Type> innerArgTypes(op.getBody().getArgumentTypes());
      innerArgTypes.push_back(counter);
      Block *innerBlock = createEntry(b, inner.getBody(), innerArgTypes, loc);
      SmallVector<Value> arguments(innerBlock->getArguments().drop_back());
      arguments[0] = b.create<AddOp>(loc, arguments[0], innerBlock->getArguments().back());
      b.create<YieldOp>(loc, cloneBody(b, op.getBody().front(), arguments));
    }
    b.create<YieldOp>(loc, inner.getResults());
    b.setInsertionPointAfter(outer);
    carries.assign(outer.getResults().begin(), outer.getResults().begin() + numCarries);
    for (auto [parts, y] : llvm::zip(outputParts, outer.getStackedResults()))
      parts.push_back(restack(b, loc, y, {split}));
  }
  if (rest > 0) {
    SmallVector<Value> tailRows;
    for (Value x : op.getStacked()) {
      Value rows = stackedRows(b, loc, x, split, *trips);
      standIns.standFor(rows, x);
      tailRows.push_back(rows);
    }
    SmallVector<Type> types(op.getInits().getTypes());
    for (Value y : outputs)
      types.push_back(stackedType(rowType(y.getType()), rest));
    tail = b.create<ForOp>(loc, types, splat(lower + split), splat(lower + *trips), carries,
                           tailRows, op.getInvariants(), false);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *block = createEntry(b, tail.getBody(), op.getBody().getArgumentTypes(), loc);
      b.create<YieldOp>(loc, cloneBody(b, op.getBody().front(), block->getArguments()));
    }
    carries.assign(tail.getResults().begin(), tail.getResults().begin() + numCarries);
    for (auto [parts, y] : llvm::zip(outputParts, tail.getStackedResults()))
      parts.push_back(y);
  }
  SmallVector<Value> primal(carries);
  for (auto [parts, y] : llvm::zip(outputParts, outputs))
    primal.push_back(parts.size() == 1 ? parts[0]
                                       : b.create<ConcatenateOp>(loc, y.getType(), parts, 0)
                                             .getResult());
  context.replacePrimal(op, primal);
  b.restoreInsertionPoint(sweep);

  // The tail's adjoint first, then the segments'. Each derived loop's
  // cotangents: [lower, upper, inits..., stacked..., invariants...].
  SmallVector<Value> carryCts(cotangents.take_front(numCarries));
  ValueRange outputCts = cotangents.drop_front(numCarries);
  SmallVector<SmallVector<Value, 2>> stackedParts(numStacked);
  SmallVector<Value> invariantCts(numInvariants);
  auto collect = [&](ArrayRef<Value> loopCts, function_ref<Value(Value)> stackedPart) {
    carryCts.assign(loopCts.begin() + 2, loopCts.begin() + 2 + numCarries);
    for (unsigned s = 0; s < numStacked; ++s)
      stackedParts[s].insert(stackedParts[s].begin(), stackedPart(loopCts[2 + numCarries + s]));
    for (unsigned v = 0; v < numInvariants; ++v) {
      Value ct = loopCts[2 + numCarries + numStacked + v];
      invariantCts[v] = !invariantCts[v] ? ct
                        : ct ? b.create<AddOp>(loc, invariantCts[v], ct).getResult()
                             : invariantCts[v];
    }
  };
  if (tail) {
    SmallVector<Value> tailCts(carryCts);
    for (Value ct : outputCts)
      tailCts.push_back(ct ? stackedRows(b, loc, ct, split, *trips) : Value());
    SmallVector<Value> loopCts;
    if (failed(tail.buildVJP(b, tailCts, loopCts, standIns)))
      return failure();
    collect(loopCts, [](Value ct) { return ct; });
  }
  {
    SmallVector<Value> outerCts(carryCts);
    for (Value ct : outputCts)
      outerCts.push_back(ct ? restack(b, loc, stackedRows(b, loc, ct, 0, split), {segments, k})
                            : Value());
    SmallVector<Value> loopCts;
    if (failed(outer.buildVJP(b, outerCts, loopCts, standIns)))
      return failure();
    collect(loopCts, [&](Value ct) { return ct ? restack(b, loc, ct, {split}) : ct; });
  }
  out.append(2, Value());  // the bounds
  llvm::append_range(out, carryCts);
  for (auto [parts, x] : llvm::zip(stackedParts, op.getStacked())) {
    if (parts.size() == 1 || llvm::none_of(parts, [](Value v) { return static_cast<bool>(v); })) {
      out.push_back(parts[0]);
      continue;
    }
    // The segments' rows, then the tail's; a part without cotangent as zeros.
    if (!parts[0])
      parts[0] = createSplat(b, loc, stackedType(rowType(x.getType()), split), 0);
    if (!parts[1])
      parts[1] = createSplat(b, loc, stackedType(rowType(x.getType()), rest), 0);
    out.push_back(b.create<ConcatenateOp>(loc, x.getType(), parts, 0));
  }
  llvm::append_range(out, invariantCts);
  return success();
}

// Reverse mode keeping the carries of every k-th iteration only: the loop
// becomes a loop over segments of k iterations (an inner loop each), whose
// derivative keeps the carries at segment starts and recomputes each
// segment, with its own stacks, in the backward pass.
static LogicalResult buildSegmentedVJP(ForOp op, int64_t k, OpBuilder &b, ValueRange cotangents,
                                       SmallVectorImpl<Value> &out, DerivativeContext &context) {
  if (op.getReverse())
    return op.emitError() << "checkpoint_every needs a forward loop";
  if (!op.getStacked().empty() || !op.getStackedResults().empty())
    return buildSegmentedStackedVJP(op, k, b, cotangents, out, context);
  Location loc = op.getLoc();
  Type counter = op.getLower().getType();
  OpBuilder::InsertPoint sweep = b.saveInsertionPoint();
  b.setInsertionPoint(op);
  // ceil((upper - lower) / k) segments, at least 0.
  Value segments;
  if (std::optional<int64_t> trips = op.getConstantTripCount()) {
    segments = createSplat(b, loc, counter, static_cast<double>((*trips + k - 1) / k));
  } else {
    Value span = b.create<SubOp>(loc, op.getUpper(), op.getLower());
    Value rounded = b.create<AddOp>(loc, span, createSplat(b, loc, counter, k - 1));
    segments = b.create<MaxOp>(loc, b.create<DivOp>(loc, rounded, createSplat(b, loc, counter, k)),
                               createSplat(b, loc, counter, 0));
  }
  SmallVector<Value> invariants(op.getInvariants());
  invariants.push_back(op.getLower());
  invariants.push_back(op.getUpper());
  auto outer = b.create<ForOp>(loc, op.getResultTypes(), createSplat(b, loc, counter, 0),
                               segments, op.getInits(), ValueRange(), invariants, false, 1);
  {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Type> types{counter};
    llvm::append_range(types, op.getInits().getTypes());
    llvm::append_range(types, ValueRange(invariants).getTypes());
    Block *block = createEntry(b, outer.getBody(), types, loc);
    unsigned numCarries = op.getNumCarries();
    ValueRange args = block->getArguments();
    Value lower = args.take_back(2)[0], upper = args.take_back(2)[1];
    // Segment s runs i in [lower + s k, min(lower + (s + 1) k, upper)).
    Value first = b.create<AddOp>(loc, lower,
                                  b.create<MulOp>(loc, args[0], createSplat(b, loc, counter, k)));
    Value last = b.create<MinOp>(loc, b.create<AddOp>(loc, first, createSplat(b, loc, counter, k)),
                                 upper);
    ValueRange carries = args.slice(1, numCarries);
    ValueRange bodyInvariants = args.slice(1 + numCarries, op.getInvariants().size());
    auto inner = b.create<ForOp>(loc, op.getResultTypes(), first, last, carries, ValueRange(),
                                 bodyInvariants, false);
    {
      OpBuilder::InsertionGuard innerGuard(b);
      Block *innerBlock = createEntry(b, inner.getBody(), op.getBody().getArgumentTypes(), loc);
      b.create<YieldOp>(loc, cloneBody(b, op.getBody().front(), innerBlock->getArguments()));
    }
    b.create<YieldOp>(loc, inner.getResults());
  }
  context.replacePrimal(op, outer.getResults());
  b.restoreInsertionPoint(sweep);
  SmallVector<Value> outerCotangents;
  if (failed(outer.buildVJP(b, cotangents, outerCotangents, context)))
    return failure();
  // [0, segments, carries..., invariants..., lower, upper] -> the loop's
  // [lower, upper, carries..., invariants...]
  out.append(2, Value());
  llvm::append_range(out, ArrayRef<Value>(outerCotangents).slice(2, op.getNumOperands() - 2));
  return success();
}

namespace {

// Reverse mode through `op` (not checkpointed), from the stacking loop that
// `buildStacking` makes in place of its primal.
LogicalResult buildReverseLoop(ForOp op, BuildStacking buildStacking, OpBuilder &b,
                               ValueRange cotangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &context) {
  Location loc = op.getLoc();
  unsigned numCarries = op.getNumCarries(), numStacked = op.getStacked().size();
  unsigned numInvariants = op.getInvariants().size();
  Stacking stacking = buildStacking({});
  context.replacePrimal(op, stacking.primal);

  // The reverse loop runs the iterations backwards, carrying the
  // cotangents of the carries and summing those of the invariants.
  SmallVector<bool> floatCarries = floats(op.getInits());
  SmallVector<bool> neededRows = llvm::map_to_vector(
      op.getStacked(), [&](Value v) { return isFloat(v) && context.needsCotangent(v); });
  SmallVector<bool> neededInvariants = llvm::map_to_vector(
      op.getInvariants(), [&](Value v) { return isFloat(v) && context.needsCotangent(v); });
  ValueRange outputCotangents = cotangents.drop_front(numCarries);
  SmallVector<bool> outputHasCotangent = nonNull(outputCotangents);

  SmallVector<Value> carries;
  for (auto [init, ct] : llvm::zip(op.getInits(), cotangents.take_front(numCarries)))
    if (isFloat(init))
      carries.push_back(orZeros(b, loc, ct, init.getType()));
  unsigned numCarryCotangents = carries.size();
  for (Value v : select(op.getInvariants(), neededInvariants))
    carries.push_back(createSplat(b, loc, v.getType(), 0));
  SmallVector<Value> stacked(stacking.savedCarries);
  llvm::append_range(stacked, op.getStacked());
  llvm::append_range(stacked, select(outputCotangents, outputHasCotangent));
  SmallVector<Type> types(ValueRange(carries).getTypes());
  for (Value x : select(op.getStacked(), neededRows))
    types.push_back(x.getType());

  auto loop = b.create<ForOp>(loc, types, op.getLower(), op.getUpper(), carries, stacked,
                              op.getInvariants(), !op.getReverse());
  OpBuilder::InsertionGuard guard(b);
  Block *block = createEntry(
      b, loop.getBody(),
      forBodyTypes(op.getLower().getType(), ValueRange(carries).getTypes(),
                   ValueRange(stacked).getTypes(), op.getInvariants().getTypes()),
      loc);
  // [i, carry cotangents, invariant cotangent sums, saved carries, rows,
  //  output cotangent rows, invariants]
  ValueRange args = block->getArguments();
  ValueRange carryCotangentArgs = args.slice(1, numCarryCotangents);
  ValueRange sumArgs = args.slice(1 + numCarryCotangents, carries.size() - numCarryCotangents);
  unsigned firstRow = 1 + carries.size();
  ValueRange savedArgs = args.slice(firstRow, numCarries);
  ValueRange rowArgs = args.slice(firstRow + numCarries, numStacked);
  ValueRange outputCotangentArgs = args.slice(firstRow + numCarries + numStacked,
                                              stacked.size() - numCarries - numStacked);
  ValueRange invariantArgs = args.take_back(numInvariants);

  SmallVector<Value> arguments{args[0]};
  llvm::append_range(arguments, savedArgs);
  llvm::append_range(arguments, rowArgs);
  llvm::append_range(arguments, invariantArgs);
  SmallVector<bool> needed{false};
  llvm::append_range(needed, floatCarries);
  llvm::append_range(needed, neededRows);
  llvm::append_range(needed, neededInvariants);
  SmallVector<Value> resultCotangents = spread(carryCotangentArgs, floatCarries);
  llvm::append_range(resultCotangents, spread(outputCotangentArgs, outputHasCotangent));
  SmallVector<Value> results, argumentCotangents;
  IRMapping clones;
  if (failed(context.reverseBlock(b, op.getBody().front(), arguments, needed, resultCotangents,
                                  results, argumentCotangents, &clones)))
    return failure();
  ArrayRef<Value> carryCts = ArrayRef<Value>(argumentCotangents).slice(1, numCarries);
  ArrayRef<Value> rowCts = ArrayRef<Value>(argumentCotangents).slice(1 + numCarries, numStacked);
  ArrayRef<Value> invariantCts = ArrayRef<Value>(argumentCotangents).take_back(numInvariants);
  SmallVector<Value> yielded;
  for (auto [arg, ct, on] : llvm::zip(savedArgs, carryCts, floatCarries))
    if (on)
      yielded.push_back(orZeros(b, loc, ct, arg.getType()));
  for (auto [sum, ct] : llvm::zip(sumArgs, select(invariantCts, neededInvariants)))
    yielded.push_back(ct ? b.create<AddOp>(loc, sum, ct).getResult() : sum);
  for (auto [arg, ct, on] : llvm::zip(rowArgs, rowCts, neededRows))
    if (on)
      yielded.push_back(orZeros(b, loc, ct, arg.getType()));
  b.create<YieldOp>(loc, yielded);
  // A checkpointed loop recomputes everything but its carries.
  if (!op.getCheckpointEvery())
    keepResiduals(b, op, stacking, loop, clones, buildStacking);

  out.append(2, Value());  // the bounds
  llvm::append_range(out, spread(loop.getResults().take_front(numCarryCotangents), floatCarries));
  llvm::append_range(out, spread(loop.getStackedResults(), neededRows));
  llvm::append_range(out, spread(loop.getResults().slice(numCarryCotangents,
                                                         carries.size() - numCarryCotangents),
                                 neededInvariants));
  return success();
}

} // namespace

LogicalResult ForOp::buildVJP(OpBuilder &b, ValueRange cotangents, SmallVectorImpl<Value> &out,
                              DerivativeContext &context) {
  Location loc = getLoc();
  // The carries stack has one row per iteration, sized at run time when
  // the bounds are traced. Checkpointed, segments of k iterations, unless
  // the loop is known to have no more than one.
  std::optional<int64_t> trips = getConstantTripCount();
  if (std::optional<uint64_t> k = getCheckpointEvery();
      k && *k > 1 && !(trips && *trips <= static_cast<int64_t>(*k)))
    return buildSegmentedVJP(*this, static_cast<int64_t>(*k), b, cotangents, out, context);
  int64_t rows = trips ? *trips : ShapedType::kDynamic;
  unsigned numCarries = getNumCarries();

  // The primal loop also stacks the carries that each iteration starts
  // from: what the reverse loop recomputes its iteration from.
  auto buildStacking = [&](ArrayRef<Value> residuals) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(*this);
    SmallVector<Type> types(getResultTypes());
    for (Value init : getInits())
      types.push_back(stackedType(init.getType(), rows));
    for (Value v : residuals)
      types.push_back(stackedType(v.getType(), rows));
    auto stacking = b.create<ForOp>(loc, types, getLower(), getUpper(), getInits(), getStacked(),
                                    getInvariants(), getReverse());
    Block *block = createEntry(b, stacking.getBody(), getBody().getArgumentTypes(), loc);
    IRMapping clones;
    SmallVector<Value> yielded =
        cloneBody(b, getBody().front(), block->getArguments(), clones);
    llvm::append_range(yielded, block->getArguments().slice(1, numCarries));
    for (Value v : residuals)
      yielded.push_back(clones.lookup(v));
    b.create<YieldOp>(loc, yielded);
    ValueRange results = stacking.getResults();
    return Stacking{stacking, results.take_front(getNumResults()),
                    results.slice(getNumResults(), numCarries),
                    results.take_back(residuals.size())};
  };
  return buildReverseLoop(*this, buildStacking, b, cotangents, out, context);
}

//===----------------------------------------------------------------------===//
// while
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::buildJVP(OpBuilder &b, ValueRange tangents, SmallVectorImpl<Value> &out,
                                DerivativeContext &context) {
  Location loc = getLoc();
  unsigned numCarries = getNumCarries(), numInvariants = getInvariants().size();
  ValueRange invariantTangents = tangents.drop_front(numCarries);
  SmallVector<bool> floatCarries = floats(getInits());
  SmallVector<bool> floatStacks = floats(getStackedResults());
  SmallVector<bool> invariantHasTangent = nonNull(invariantTangents);
  SmallVector<Value> carries(getInits()), invariants(getInvariants());
  for (auto [init, t] : llvm::zip(getInits(), tangents.take_front(numCarries)))
    if (isFloat(init))
      carries.push_back(orZeros(b, loc, t, init.getType()));
  llvm::append_range(invariants, select(invariantTangents, invariantHasTangent));
  // [carries, carry tangents, stacks, stacks of row tangents]
  SmallVector<Type> resultTypes(ValueRange(carries).getTypes());
  llvm::append_range(resultTypes, getStackedResults().getTypes());
  llvm::append_range(resultTypes, ValueRange(select(getStackedResults(), floatStacks)).getTypes());
  auto loop = b.create<WhileOp>(loc, resultTypes, carries, invariants);
  SmallVector<Type> argTypes(ValueRange(carries).getTypes());
  llvm::append_range(argTypes, ValueRange(invariants).getTypes());
  // [carries, carry tangents, invariants, invariant tangents]
  auto split = [&](Block *block, SmallVector<Value> &arguments,
                   SmallVector<Value> &argumentTangents) {
    ValueRange args = block->getArguments();
    llvm::append_range(arguments, args.take_front(numCarries));
    llvm::append_range(arguments, args.slice(carries.size(), numInvariants));
    llvm::append_range(argumentTangents,
                       spread(args.slice(numCarries, carries.size() - numCarries), floatCarries));
    llvm::append_range(argumentTangents,
                       spread(args.drop_front(carries.size() + numInvariants),
                              invariantHasTangent));
  };
  {
    OpBuilder::InsertionGuard guard(b);
    Block *block = createEntry(b, loop.getCondRegion(), argTypes, loc);
    SmallVector<Value> arguments, unused;
    split(block, arguments, unused);
    b.create<YieldOp>(loc, cloneBody(b, getCondRegion().front(), arguments));
  }
  {
    OpBuilder::InsertionGuard guard(b);
    Block *block = createEntry(b, loop.getBodyRegion(), argTypes, loc);
    SmallVector<Value> arguments, argumentTangents, results, resultTangents;
    split(block, arguments, argumentTangents);
    if (failed(context.forwardBlock(b, getBodyRegion().front(), arguments, argumentTangents,
                                    results, resultTangents)))
      return failure();
    SmallVector<Value> yielded;
    appendWithTangents(b, loc, ArrayRef<Value>(results).take_front(numCarries),
                       ArrayRef<Value>(resultTangents).take_front(numCarries), yielded);
    appendWithTangents(b, loc, ArrayRef<Value>(results).drop_front(numCarries),
                       ArrayRef<Value>(resultTangents).drop_front(numCarries), yielded);
    b.create<YieldOp>(loc, yielded);
  }
  ValueRange results = loop.getResults();
  unsigned numStacks = getStackedResults().size();
  SmallVector<Value> primal(results.take_front(numCarries));
  llvm::append_range(primal, results.slice(carries.size(), numStacks));
  context.replacePrimal(*this, primal);
  llvm::append_range(out, spread(results.slice(numCarries, carries.size() - numCarries),
                                 floatCarries));
  llvm::append_range(out, spread(results.drop_front(carries.size() + numStacks), floatStacks));
  return success();
}

namespace {

// The carries, a counter and the invariants: the block arguments of a while
// loop that also counts its iterations (and stacks its carries).
SmallVector<Type> countingTypes(WhileOp op, Type counterType) {
  SmallVector<Type> types(op.getInits().getTypes());
  types.push_back(counterType);
  llvm::append_range(types, op.getInvariants().getTypes());
  return types;
}

// Gives a while loop that also counts its iterations `op`'s condition.
void cloneCondition(OpBuilder &b, WhileOp op, WhileOp counting, Type counterType) {
  OpBuilder::InsertionGuard guard(b);
  Block *block = createEntry(b, counting.getCondRegion(), countingTypes(op, counterType),
                             op.getLoc());
  SmallVector<Value> arguments(block->getArguments().take_front(op.getNumCarries()));
  llvm::append_range(arguments, block->getArguments().take_back(op.getInvariants().size()));
  b.create<YieldOp>(op.getLoc(), cloneBody(b, op.getCondRegion().front(), arguments));
}

// `op`'s iterations as a counted loop (`adjit.for` from 0 to `count`), left
// unused: the loop whose derivative rule the while loop's follows.
ForOp countedLoop(OpBuilder &b, WhileOp op, Value count) {
  Location loc = op.getLoc();
  std::optional<int64_t> every;
  if (std::optional<uint64_t> k = op.getCheckpointEvery())
    every = static_cast<int64_t>(*k);
  auto counted = b.create<ForOp>(loc, op.getResultTypes(), createSplat(b, loc, count.getType(), 0),
                                 count, op.getInits(), ValueRange(), op.getInvariants(), false,
                                 every);
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> types{count.getType()};
  llvm::append_range(types, op.getInits().getTypes());
  llvm::append_range(types, op.getInvariants().getTypes());
  Block *block = createEntry(b, counted.getBody(), types, loc);
  b.create<YieldOp>(loc,
                    cloneBody(b, op.getBodyRegion().front(), block->getArguments().drop_front()));
  return counted;
}

// Reverse mode through a while loop that stacks rows itself, or
// checkpointed: the loop first runs counting its iterations, then the
// counted loop's rule applies (its forward work runs again).
LogicalResult buildCountedVJP(WhileOp op, OpBuilder &b, ValueRange cotangents,
                              SmallVectorImpl<Value> &out, DerivativeContext &context) {
  Location loc = op.getLoc();
  unsigned numCarries = op.getNumCarries();
  Type counterType = RankedTensorType::get({}, b.getI32Type());
  OpBuilder::InsertPoint sweep = b.saveInsertionPoint();
  b.setInsertionPoint(op);

  // [carries, count, stacks]
  SmallVector<Value> carries(op.getInits());
  carries.push_back(createSplat(b, loc, counterType, 0));
  SmallVector<Type> types(ValueRange(carries).getTypes());
  llvm::append_range(types, op.getStackedResults().getTypes());
  auto counting = b.create<WhileOp>(loc, types, carries, op.getInvariants());
  cloneCondition(b, op, counting, counterType);
  {
    OpBuilder::InsertionGuard inner(b);
    Block *block = createEntry(b, counting.getBodyRegion(), countingTypes(op, counterType), loc);
    SmallVector<Value> arguments(block->getArguments().take_front(numCarries));
    llvm::append_range(arguments, block->getArguments().take_back(op.getInvariants().size()));
    SmallVector<Value> next = cloneBody(b, op.getBodyRegion().front(), arguments);
    Value count = block->getArgument(numCarries);
    next.insert(next.begin() + numCarries,
                b.create<AddOp>(loc, count, createSplat(b, loc, counterType, 1)));
    b.create<YieldOp>(loc, next);
  }
  SmallVector<Value> primal(counting.getResults().take_front(numCarries));
  llvm::append_range(primal, counting.getResults().drop_front(numCarries + 1));
  context.replacePrimal(op, primal);

  ForOp counted = countedLoop(b, op, counting.getResult(numCarries));
  b.restoreInsertionPoint(sweep);
  SmallVector<Value> forCotangents;
  if (failed(counted.buildVJP(b, cotangents, forCotangents, context)))
    return failure();
  // [lower, upper, carries..., invariants...] -> [carries..., invariants...]
  llvm::append_range(out, ArrayRef<Value>(forCotangents).drop_front(2));
  return success();
}

} // namespace

LogicalResult WhileOp::buildVJP(OpBuilder &b, ValueRange cotangents, SmallVectorImpl<Value> &out,
                                DerivativeContext &context) {
  if (getCheckpointEvery() || !getStackedResults().empty())
    return buildCountedVJP(*this, b, cotangents, out, context);
  Location loc = getLoc();
  unsigned numCarries = getNumCarries();
  Type counterType = RankedTensorType::get({}, b.getI32Type());

  // The loop runs once, counting its iterations and stacking the carries
  // each starts from (and residuals) in stacks that grow at run time. Its
  // body is that of the counted loop whose reverse loop walks them back.
  ForOp counted;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(*this);
    counted = countedLoop(b, *this, createSplat(b, loc, counterType, 0));
  }
  Stacking latest;
  auto buildStacking = [&](ArrayRef<Value> residuals) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(*this);
    // [carries, count, saved carries, residuals]
    SmallVector<Value> carries(getInits());
    carries.push_back(createSplat(b, loc, counterType, 0));
    SmallVector<Type> types(ValueRange(carries).getTypes());
    for (Value init : getInits())
      types.push_back(stackedType(init.getType(), ShapedType::kDynamic));
    for (Value v : residuals)
      types.push_back(stackedType(v.getType(), ShapedType::kDynamic));
    auto stacking = b.create<WhileOp>(loc, types, carries, getInvariants());
    cloneCondition(b, *this, stacking, counterType);
    Block *block = createEntry(b, stacking.getBodyRegion(), countingTypes(*this, counterType), loc);
    ValueRange args = block->getArguments();
    Value count = args[numCarries];
    // The counted loop's body takes [i, carries, invariants].
    SmallVector<Value> arguments{count};
    llvm::append_range(arguments, args.take_front(numCarries));
    llvm::append_range(arguments, args.drop_front(numCarries + 1));
    IRMapping clones;
    SmallVector<Value> yielded =
        cloneBody(b, counted.getBody().front(), arguments, clones);
    yielded.push_back(b.create<AddOp>(loc, count, createSplat(b, loc, counterType, 1)));
    llvm::append_range(yielded, args.take_front(numCarries));
    for (Value v : residuals)
      yielded.push_back(clones.lookup(v));
    b.create<YieldOp>(loc, yielded);
    // The counted loop (unused) is bounded by the count.
    counted->moveAfter(stacking);
    counted.getUpperMutable().assign(stacking.getResult(numCarries));
    ValueRange results = stacking.getResults();
    latest = Stacking{stacking, results.take_front(numCarries),
                      results.slice(numCarries + 1, numCarries),
                      results.take_back(residuals.size())};
    return latest;
  };
  SmallVector<Value> forCotangents;
  if (failed(buildReverseLoop(counted, buildStacking, b, cotangents, forCotangents, context)))
    return failure();
  context.replacePrimal(*this, latest.primal);
  // [lower, upper, carries..., invariants...] -> [carries..., invariants...]
  llvm::append_range(out, ArrayRef<Value>(forCotangents).drop_front(2));
  return success();
}
