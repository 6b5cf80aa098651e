// GradientTape: the recorded ops between the watched sources and the target
// are outlined into a private function, and the gradient becomes an
// adjit.vjp request on it, so tapes and the functional API share one AD.
#include "adjit/GradientTape.h"

#include "Recorder.h"

#include "adjit/detail/Transforms.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include "llvm/ADT/ScopeExit.h"

#include <fmt/format.h>

namespace adjit {

namespace detail {

struct TapeState {
  TraceContext* trace;
  uint64_t frame;  // the trace's frame the tape was made in
  mlir::Block* block;
  mlir::Operation* before_start;  // the op preceding the first recorded one (or null)
  std::vector<std::pair<mlir::Operation*, mlir::Operation*>> paused;  // (before, last) ops
  std::vector<mlir::Value> watched;
  TapeOptions options;
  SourceLocation loc;
  bool used = false;

  mlir::Operation* last_op() { return block->empty() ? nullptr : &block->back(); }

  // `where`: the failing call's line, when known (line 0: not known).
  [[noreturn]] void fail(const std::string& message, SourceLocation where = {}) const {
    std::string call = where.line() == 0
                           ? ""
                           : fmt::format("at {}:{}; ", where.file_name(), where.line());
    throw TraceError(fmt::format("adjit::GradientTape: {} ({}tape created at {}:{})", message,
                                 call, loc.file_name(), loc.line()));
  }

  // The trace the tape records, after checking it still runs here.
  TraceContext& live_trace(SourceLocation where) const {
    if (!TraceContext::running(trace, frame))
      fail("the traced function the tape was created in has returned (or runs on another "
           "thread); a GradientTape is used inside the call that made it",
           where);
    return *trace;
  }

  // `t` belongs to the tape's trace; `what` names it in the error.
  void require_own(const Tensor& t, const std::string& what, SourceLocation where) const {
    if (TraceContext::owner(t) == trace) return;
    fail(fmt::format("{} is {}", what, TraceContext::why_unusable(t, trace)), where);
  }

  // Ops traced into the tape's block since it was created, minus paused ones.
  std::vector<mlir::Operation*> recorded_ops() {
    auto after = [&](mlir::Operation* op) {
      return op ? std::next(op->getIterator()) : block->begin();
    };
    llvm::DenseSet<mlir::Operation*> excluded;
    for (auto [before, last] : paused)
      if (last)
        for (auto it = after(before); &*it != last; ++it) excluded.insert(&*it);
    for (auto [before, last] : paused)
      if (last) excluded.insert(last);
    std::vector<mlir::Operation*> ops;
    for (auto it = after(before_start); it != block->end(); ++it)
      if (!excluded.contains(&*it)) ops.push_back(&*it);
    return ops;
  }
};

}  // namespace detail

GradientTape::GradientTape(TapeOptions options, SourceLocation loc)
    : state_(std::make_unique<detail::TapeState>()) {
  detail::Recorder r("GradientTape", loc, {});
  state_->trace = &r.trace();
  state_->frame = r.trace().current_frame();
  state_->block = &r.trace().current_block();
  state_->before_start = state_->last_op();
  state_->options = options;
  state_->loc = loc;
}

GradientTape::~GradientTape() = default;

void GradientTape::watch(const Tensor& t, SourceLocation where) {
  detail::TraceContext& trace = state_->live_trace(where);
  state_->require_own(t, "watch()'s Tensor", where);
  state_->watched.push_back(trace.value(t));
}

void GradientTape::watch(const std::vector<Tensor>& ts, SourceLocation where) {
  for (const Tensor& t : ts) watch(t, where);
}

GradientTape::Pause::Pause(detail::TapeState& state) : state_(state) {
  state_.paused.push_back({state_.last_op(), nullptr});
}

GradientTape::Pause::~Pause() {
  auto& range = state_.paused.back();
  range.second = state_.last_op();
  // Nothing traced while paused: drop the empty range.
  if (range.second == range.first) state_.paused.pop_back();
}

std::vector<Tensor> GradientTape::gradient(const Tensor& target,
                                           const std::vector<Tensor>& sources,
                                           SourceLocation where) {
  detail::TapeState& s = *state_;
  detail::TraceContext& trace = s.live_trace(where);
  s.require_own(target, "gradient()'s target", where);
  if (&trace.current_block() != s.block)
    s.fail("gradient() must be called in the function where the tape was created", where);
  if (s.used && !s.options.persistent)
    s.fail("gradient() was already called on this non-persistent tape; create it with "
           "GradientTape(/*persistent=*/true) to ask several times",
           where);
  if (!is_floating(target.dtype()))
    s.fail(fmt::format("the target must be a float Tensor, got {}", detail::describe(target)),
           where);
  s.used = true;

  mlir::Value goal = trace.value(target);
  std::vector<mlir::Value> inputs;
  for (size_t i = 0; i < sources.size(); ++i) {
    s.require_own(sources[i], fmt::format("source {}", i), where);
    mlir::Value v = trace.value(sources[i]);
    if (std::find(s.watched.begin(), s.watched.end(), v) == s.watched.end())
      s.fail(fmt::format("source {} ({}) was not watched: call tape.watch() on it first", i,
                         detail::describe(sources[i])),
             where);
    // As adjit::grad: an integer has no gradient to give (not even zeros).
    if (!is_floating(sources[i].dtype()))
      s.fail(fmt::format("source {} is {}: gradients are taken with respect to floating-point "
                         "Tensors only",
                         i, detail::describe(sources[i])),
             where);
    inputs.push_back(v);
  }

  // The recorded ops a derivative flows through from a source to the target.
  std::vector<mlir::Operation*> recorded = s.recorded_ops();
  llvm::DenseSet<mlir::Value> active = mlir::adjit::activeValues(recorded, inputs, {goal});
  std::vector<mlir::Operation*> slice;
  for (mlir::Operation* op : recorded)
    if (llvm::any_of(op->getResults(), [&](mlir::Value r) { return active.contains(r); }))
      slice.push_back(op);
  if (s.options.unconnected == UnconnectedGradients::error)
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!active.contains(inputs[i]))
        s.fail(fmt::format(
            "the target does not depend on source {} through recorded ops "
            "(UnconnectedGradients::error)",
            i));

  // Outline the slice: f(sources..., captured values...) -> target.
  mlir::OpBuilder builder(&trace.context());
  builder.setInsertionPointToEnd(trace.module().getBody());
  mlir::Location loc = trace.location(s.loc);
  std::string name = trace.next_function_name("tape");
  auto function = builder.create<mlir::func::FuncOp>(loc, name, builder.getFunctionType({}, {}));
  function.setPrivate();
  mlir::Block* body = function.addEntryBlock();
  mlir::IRMapping mapping;
  llvm::DenseMap<mlir::Value, mlir::Value> argument_of;
  for (mlir::Value v : inputs)
    if (!mapping.contains(v)) {
      argument_of[v] = body->addArgument(v.getType(), loc);
      mapping.map(v, argument_of[v]);
    }
  auto is_source = [&](mlir::Value v) { return argument_of.contains(v); };
  // A source computed on the tape from another source (h = f(w), both
  // watched) is both: w's derivative flows through f, h's starts at h. Its
  // value becomes f(w) + a, the argument a taking -0 (x + -0 is x, bit for
  // bit), so that d/da is the derivative with respect to h itself.
  llvm::DenseSet<mlir::Value> derived_sources;
  std::vector<mlir::Value> captures;
  builder.setInsertionPointToEnd(body);
  for (mlir::Operation* op : slice) {
    bool derived = llvm::any_of(op->getOperands(), [&](mlir::Value v) { return active.contains(v); });
    // A source's own op, not fed by another source: the source is an
    // independent argument, the op not needed.
    if (!derived && llvm::all_of(op->getResults(), [&](mlir::Value r) {
          return is_source(r) || !active.contains(r);
        }))
      continue;
    for (mlir::Value v : op->getOperands()) {
      if (mapping.contains(v))
        continue;
      // Constants are copied in, not captured: a loop's bounds must stay
      // known (a scan's rows are counted by them).
      mlir::Operation* def = v.getDefiningOp();
      if (def && def->hasTrait<mlir::OpTrait::ConstantLike>()) {
        builder.clone(*def, mapping);
        continue;
      }
      mapping.map(v, body->addArgument(v.getType(), loc));
      captures.push_back(v);
    }
    builder.clone(*op, mapping);
    for (mlir::Value r : op->getResults())
      if (is_source(r)) {
        mapping.map(r, builder.create<mlir::adjit::AddOp>(loc, mapping.lookup(r), argument_of[r]));
        derived_sources.insert(r);
      }
  }
  mlir::Value result = mapping.lookupOrNull(goal);
  if (!result) {  // the target was computed without any recorded op on the path
    result = body->addArgument(goal.getType(), loc);
    captures.push_back(goal);
  }
  builder.create<mlir::func::ReturnOp>(loc, result);
  function.setFunctionType(builder.getFunctionType(body->getArgumentTypes(), {result.getType()}));

  // d sum(target) / d sources: a vjp with a cotangent of ones. Repeated
  // sources share one argument; the request differentiates each once.
  std::vector<Tensor> args;
  std::vector<int64_t> wrt;
  for (mlir::Value v : inputs) {
    auto position = std::find(inputs.begin(), inputs.end(), v) - inputs.begin();
    if (static_cast<size_t>(position) == args.size()) {
      wrt.push_back(static_cast<int64_t>(args.size()));
      Tensor source = trace.wrap(v);
      args.push_back(derived_sources.contains(v)
                         ? full(source.shape(), -0.0, source.dtype(), s.loc)
                         : source);
    }
  }
  for (mlir::Value v : captures) args.push_back(trace.wrap(v));
  detail::TracedFunction traced;
  traced.symbol = name;
  traced.results = {{target.dtype(), target.shape()}};
  std::vector<Tensor> ones{ones_like(target, s.loc)};
  std::vector<Tensor> values = detail::vjp_of(traced, args, ones, wrt, s.loc);
  std::vector<Tensor> grads;
  for (mlir::Value v : inputs) {
    auto position = std::find(inputs.begin(), inputs.end(), v) - inputs.begin();
    grads.push_back(values[1 + position]);
  }
  return grads;
}

Tensor GradientTape::jacobian(const Tensor& target, const Tensor& source, SourceLocation where) {
  detail::TapeState& s = *state_;
  s.live_trace(where);
  s.require_own(target, "jacobian()'s target", where);
  s.require_own(source, "jacobian()'s source", where);
  if (s.used && !s.options.persistent)
    s.fail("jacobian() follows gradient() or jacobian() on this non-persistent tape; create it "
           "with GradientTape(/*persistent=*/true) to ask several times",
           where);
  // Each row is one reverse pass with a one-hot cotangent; the tape is
  // consulted once per row, so it must outlive them all (and be itself
  // again however the rows end).
  bool persistent = s.options.persistent;
  s.options.persistent = true;
  auto restore = llvm::make_scope_exit([&] {
    s.options.persistent = persistent;
    s.used = true;
  });
  Shape shape = target.shape();
  shape.insert(shape.end(), source.shape().begin(), source.shape().end());
  if (target.size() == 0) return full(shape, 0, source.dtype(), s.loc);
  std::vector<Tensor> rows;
  Tensor positions = arange(target.size(), DType::i32, s.loc);
  for (int64_t k = 0; k < target.size(); ++k) {
    // d <e_k, target> / d source = row k of the Jacobian.
    Tensor weight = reshape(cast(equal(positions, static_cast<int>(k), s.loc), target.dtype(), s.loc),
                            target.shape(), s.loc);
    Tensor picked = sum(Operand(target, s.loc) * Operand(weight, s.loc), {}, false, s.loc);
    Tensor row = gradient(picked, std::vector<Tensor>{source}, where)[0];
    rows.push_back(reshape(row, {1, source.size()}, s.loc));
  }
  return reshape(concat(rows, 0, s.loc), shape, s.loc);
}

}  // namespace adjit
