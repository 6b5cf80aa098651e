#include "adjit/detail/ControlFlow.h"

#include "Recorder.h"

#include "mlir/IR/IRMapping.h"

#include <limits>

#include <fmt/format.h>

namespace adjit::detail {

namespace {
namespace ir = mlir::adjit;

std::vector<mlir::Value> values_of(Recorder& r, const std::vector<Tensor>& tensors) {
  std::vector<mlir::Value> values;
  for (const Tensor& t : tensors) values.push_back(r.value(t));
  return values;
}

std::vector<mlir::Type> types_of(Recorder& r, const std::vector<TensorType>& types) {
  std::vector<mlir::Type> out;
  for (const TensorType& t : types) out.push_back(r.type(t.dtype, t.shape));
  return out;
}

TensorType type_of(const Tensor& t) { return {t.dtype(), t.shape()}; }

// Moves the ops of the traced function `f` into a new entry block of
// `region` taking `types`; the function's argument k stands for block
// argument positions[k], its return becomes adjit.yield, and the function
// is erased.
void move_into_region(Recorder& r, const TracedFunction& f, mlir::Region& region,
                      mlir::TypeRange types, const std::vector<unsigned>& positions) {
  auto function = r.trace().module().lookupSymbol<mlir::func::FuncOp>(f.symbol);
  mlir::OpBuilder b(&r.trace().context());
  std::vector<mlir::Location> locations(types.size(), function.getLoc());
  mlir::Block* block = b.createBlock(&region, {}, types, locations);
  mlir::IRMapping mapping;
  for (auto [k, argument] : llvm::enumerate(function.getArguments()))
    mapping.map(argument, block->getArgument(positions[k]));
  for (mlir::Operation& op : function.front().without_terminator()) b.clone(op, mapping);
  mlir::Operation* terminator = function.front().getTerminator();
  std::vector<mlir::Value> yielded;
  for (mlir::Value v : terminator->getOperands()) yielded.push_back(mapping.lookupOrDefault(v));
  b.create<ir::YieldOp>(terminator->getLoc(), yielded);
  function.erase();
}

// Block argument positions first..first+count-1.
std::vector<unsigned> positions(unsigned first, unsigned count) {
  std::vector<unsigned> out;
  for (unsigned k = 0; k < count; ++k) out.push_back(first + k);
  return out;
}

std::vector<unsigned> concat(std::vector<unsigned> a, const std::vector<unsigned>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A body must return the carries it was given, type for type.
void check_carries(Recorder& r, const char* fn, const TracedFunction& body,
                   const std::vector<Tensor>& init, const std::vector<size_t>& init_layout) {
  if (body.results.size() < init.size())
    r.fail(fmt::format("{} returns {} Tensors for a carry of {}", fn, body.results.size(),
                       init.size()));
  for (size_t k = 0; k < init.size(); ++k)
    if (!(body.results[k] == type_of(init[k])))
      r.fail(fmt::format(
          "carry {} enters the loop as {} but {} returns {}; a carry keeps its shape and dtype "
          "in every iteration",
          k, describe(init[k]), fn, body.results[k].str()));
  if (body.layout.size() < init_layout.size() ||
      !std::equal(init_layout.begin(), init_layout.end(), body.layout.begin()))
    r.fail(fmt::format("{} returns std::vectors of other lengths than the carry's", fn));
}

// LoopOptions::checkpoint_every as the loop op's attribute (none for 0).
std::optional<int64_t> checkpoint_every(Recorder& r, const LoopOptions& options) {
  if (options.checkpoint_every < 0)
    r.fail(fmt::format("checkpoint_every must be 0 (off) or positive, got {}",
                       options.checkpoint_every));
  if (options.checkpoint_every == 0) return std::nullopt;
  return options.checkpoint_every;
}

// A 0-d i32 bound: a constant, or a traced integer scalar.
mlir::Value bound(Recorder& r, const LoopBound& b, const char* which) {
  if (b.beyond_int64) r.fail(fmt::format("the {} bound {} does not fit in int32", which, *b.beyond_int64));
  if (b.constant) {
    if (*b.constant < std::numeric_limits<int32_t>::min() ||
        *b.constant > std::numeric_limits<int32_t>::max())
      r.fail(fmt::format("the {} bound {} does not fit in int32", which, *b.constant));
    return r.value(r.constant(static_cast<double>(*b.constant), DType::i32, {}));
  }
  const Tensor& t = *b.tensor;
  if (!TraceContext::owner(t))
    r.fail(fmt::format("the {} bound is {}", which, TraceContext::why_unusable(t)));
  if (t.rank() != 0 || (t.dtype() != DType::i32 && t.dtype() != DType::i64))
    r.fail(fmt::format("the {} bound must be a C++ integer or a 0-d i32/i64 Tensor, got {}", which,
                       describe(t)));
  return r.value(r.convert(t, DType::i32));
}
}  // namespace

std::vector<Tensor> cond_of(const Tensor& pred, const TracedFunction& then_fn,
                            const TracedFunction& else_fn, const std::vector<Tensor>& operands,
                            SourceLocation loc) {
  Recorder r("cond", loc, {&pred});
  if (pred.dtype() != DType::i1 || pred.rank() != 0)
    r.fail(fmt::format(
        "the predicate must be a 0-d bool Tensor, got {}; reduce it first (e.g. adjit::sum(x) > 0)",
        describe(pred)));
  if (then_fn.results.size() != else_fn.results.size())
    r.fail(fmt::format("then_fn returns {} Tensors but else_fn returns {}",
                       then_fn.results.size(), else_fn.results.size()));
  for (size_t k = 0; k < then_fn.results.size(); ++k)
    if (!(then_fn.results[k] == else_fn.results[k]))
      r.fail(fmt::format(
          "result {} is {} from then_fn but {} from else_fn; both branches must return the same "
          "shapes and dtypes",
          k, then_fn.results[k].str(), else_fn.results[k].str()));
  if (then_fn.layout != else_fn.layout)
    r.fail("then_fn and else_fn return std::vectors of different lengths");

  std::vector<mlir::Value> inputs = values_of(r, operands);
  for (const TracedFunction* f : {&then_fn, &else_fn})
    for (mlir::Value v : values_of(r, f->captures)) inputs.push_back(v);
  auto op = r.builder().create<ir::CondOp>(r.location(), types_of(r, then_fn.results),
                                           r.value(pred), inputs);
  mlir::TypeRange types = op.getInputs().getTypes();
  unsigned n = operands.size(), then_captured = then_fn.captures.size();
  move_into_region(r, then_fn, op.getThenRegion(), types,
                   concat(positions(0, n), positions(n, then_captured)));
  move_into_region(r, else_fn, op.getElseRegion(), types,
                   concat(positions(0, n),
                          positions(n + then_captured, else_fn.captures.size())));
  std::vector<Tensor> results;
  for (mlir::Value v : op.getResults()) results.push_back(r.trace().wrap(v));
  return results;
}

std::vector<Tensor> for_of(const char* op_name, const LoopBound& lower, const LoopBound& upper,
                           const TracedFunction& body, const std::vector<Tensor>& init,
                           const std::vector<size_t>& init_layout, const std::vector<Tensor>& xs,
                           const LoopOptions& options, SourceLocation loc) {
  Recorder r(op_name, loc, {init.empty() ? nullptr : &init.front()});
  check_carries(r, "body_fn", body, init, init_layout);
  std::optional<int64_t> every = checkpoint_every(r, options);
  bool stacks = !xs.empty() || body.results.size() > init.size();
  if (std::string(op_name) == "scan" && xs.empty())
    r.fail("needs at least one Tensor in xs to scan over");
  int64_t trips = 0;
  if (stacks) {
    if (!lower.constant || !upper.constant)
      r.fail("stacked inputs or outputs need C++ integer bounds");
    trips = std::max<int64_t>(*upper.constant - *lower.constant, 0);
  }
  for (size_t k = 0; k < xs.size(); ++k)
    if (xs[k].rank() == 0 || xs[k].shape()[0] != trips)
      r.fail(k == 0 ? fmt::format("xs leaf 0 is {} and has no leading dimension to scan over",
                                  describe(xs[k]))
                    : fmt::format("xs leaf {} is {} but xs leaf 0 has the leading dimension {}; "
                                  "all must share it",
                                  k, describe(xs[k]), trips));
  mlir::Value lo = bound(r, lower, "lower"), hi = bound(r, upper, "upper");
  std::vector<mlir::Type> result_types;
  for (size_t k = 0; k < body.results.size(); ++k) {
    Shape shape = body.results[k].shape;
    if (k >= init.size()) shape.insert(shape.begin(), trips);
    result_types.push_back(r.type(body.results[k].dtype, shape));
  }
  auto op = r.builder().create<ir::ForOp>(
      r.location(), result_types, lo, hi, values_of(r, init), values_of(r, xs),
      values_of(r, body.captures), false, every);
  auto function = r.trace().module().lookupSymbol<mlir::func::FuncOp>(body.symbol);
  std::vector<mlir::Type> types(function.getArgumentTypes().begin(),
                                function.getArgumentTypes().end());
  move_into_region(r, body, op.getBody(), types, positions(0, types.size()));
  std::vector<Tensor> results;
  for (mlir::Value v : op.getResults()) results.push_back(r.trace().wrap(v));
  return results;
}

std::vector<Tensor> while_of(const TracedFunction& cond_fn, const TracedFunction& body_fn,
                             const std::vector<Tensor>& init,
                             const std::vector<size_t>& init_layout, const LoopOptions& options,
                             SourceLocation loc) {
  Recorder r("while_loop", loc, {init.empty() ? nullptr : &init.front()});
  if (cond_fn.results.size() != 1 || cond_fn.results[0].dtype != DType::i1 ||
      !cond_fn.results[0].shape.empty())
    r.fail(cond_fn.results.size() == 1
               ? fmt::format("cond_fn must return one 0-d bool Tensor, got {}",
                             cond_fn.results[0].str())
               : std::string("cond_fn must return one 0-d bool Tensor"));
  check_carries(r, "body_fn", body_fn, init, init_layout);
  std::optional<int64_t> every = checkpoint_every(r, options);
  if (body_fn.results.size() != init.size())
    r.fail(fmt::format("body_fn returns {} Tensors for a carry of {}", body_fn.results.size(),
                       init.size()));
  std::vector<mlir::Value> invariants = values_of(r, cond_fn.captures);
  for (mlir::Value v : values_of(r, body_fn.captures)) invariants.push_back(v);
  std::vector<mlir::Value> inits = values_of(r, init);
  auto op = r.builder().create<ir::WhileOp>(r.location(), mlir::ValueRange(inits).getTypes(),
                                            inits, invariants, every);
  std::vector<mlir::Type> types(mlir::ValueRange(inits).getTypes().begin(),
                                mlir::ValueRange(inits).getTypes().end());
  for (mlir::Value v : invariants) types.push_back(v.getType());
  unsigned c = init.size(), cond_captured = cond_fn.captures.size();
  move_into_region(r, cond_fn, op.getCondRegion(), types,
                   concat(positions(0, c), positions(c, cond_captured)));
  move_into_region(r, body_fn, op.getBodyRegion(), types,
                   concat(positions(0, c), positions(c + cond_captured, body_fn.captures.size())));
  std::vector<Tensor> results;
  for (mlir::Value v : op.getResults()) results.push_back(r.trace().wrap(v));
  return results;
}

}  // namespace adjit::detail
