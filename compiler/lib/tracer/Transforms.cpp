#include "adjit/detail/Transforms.h"

#include "Recorder.h"

#include "adjit/Dialect/DerivativeContext.h"

#include <iterator>
#include <optional>
#include <ranges>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace adjit::detail {

namespace {
// The trace of a transform's arguments (all must share one), or the current.
TraceContext& trace_of(const char* op, const std::vector<Tensor>& args, SourceLocation loc) {
  if (args.empty()) {
    Recorder r(op, loc, {});
    return r.trace();
  }
  Recorder r(op, loc, {&args.front()});
  for (const Tensor& t : args) r.require_operand(t);
  return r.trace();
}

std::vector<mlir::Value> operands(TraceContext& trace, const TracedFunction& f,
                                  const std::vector<Tensor>& args) {
  std::vector<mlir::Value> values;
  for (const Tensor& t : args) values.push_back(trace.value(t));
  for (const Tensor& t : f.captures) values.push_back(trace.value(t));
  return values;
}

std::vector<Tensor> wrap_all(TraceContext& trace, mlir::ValueRange values) {
  std::vector<Tensor> tensors;
  for (mlir::Value v : values) tensors.push_back(trace.wrap(v));
  return tensors;
}

std::vector<mlir::Type> types_of(TraceContext& trace, const std::vector<Tensor>& tensors) {
  std::vector<mlir::Type> types;
  for (const Tensor& t : tensors) types.push_back(trace.tensor_type(t.dtype(), t.shape()));
  return types;
}

std::vector<mlir::Type> types_of(TraceContext& trace, const std::vector<TensorType>& tensors) {
  std::vector<mlir::Type> types;
  for (const TensorType& t : tensors) types.push_back(trace.tensor_type(t.dtype, t.shape));
  return types;
}

std::string describe_all(const std::vector<TensorType>& types) {
  return fmt::format("({})", fmt::join(types | std::views::transform(&TensorType::str), ", "));
}
}  // namespace

TracedFunction trace_function(const char* kind, const std::vector<Tensor>& args, TraceBody body,
                              SourceLocation loc) {
  TraceContext& trace = trace_of(kind, args, loc);
  trace.begin_subfunction(kind, loc);
  TracedFunction traced;
  try {
    auto parameter = [&](DType dtype, const Shape& shape) {
      return trace.add_parameter(dtype, shape);
    };
    std::vector<Tensor> results = body(parameter, traced.layout);
    TraceContext::SubFunction sub = trace.end_subfunction(results);
    traced.symbol = sub.function.getSymName().str();
    traced.captures = wrap_all(trace, sub.captures);
    for (mlir::Type type : sub.function.getResultTypes()) {
      auto tensor = mlir::cast<mlir::RankedTensorType>(type);
      traced.results.push_back(
          {*dtype_of(tensor.getElementType()),
           Shape(tensor.getShape().begin(), tensor.getShape().end())});
    }
  } catch (...) {
    trace.abandon_subfunction();
    throw;
  }
  return traced;
}

std::vector<Tensor> call_function(const TracedFunction& f, const std::vector<Tensor>& args,
                                  SourceLocation loc) {
  TraceContext& trace = trace_of("call", args, loc);
  auto call = trace.builder().create<mlir::func::CallOp>(
      trace.location(loc), f.symbol, types_of(trace, f.results), operands(trace, f, args));
  return wrap_all(trace, call.getResults());
}

std::vector<Tensor> call_checkpointed(const TracedFunction& f, const std::vector<Tensor>& args,
                                      SourceLocation loc) {
  std::vector<Tensor> results = call_function(f, args, loc);
  if (!results.empty()) {
    mlir::Operation* call =
        mlir::Value::getFromOpaquePointer(results.front().value()).getDefiningOp();
    call->setAttr(mlir::adjit::kCheckpointAttrName, mlir::UnitAttr::get(call->getContext()));
  }
  return results;
}

void require_scalar_result(const char* op, const TracedFunction& f,
                           const std::vector<Tensor>& args, SourceLocation loc) {
  if (f.results.size() == 1 && f.results[0].shape.empty() && is_floating(f.results[0].dtype))
    return;
  Recorder r(op, loc, {args.empty() ? nullptr : &args.front()});
  r.fail(fmt::format(
      "the function must return one scalar (0-d) float Tensor, got {}; reduce it to a scalar "
      "(sum, mean) or use vjp",
      describe_all(f.results)));
}

namespace {
// "argument 1", or "argument 0 (Tensor 1 of its 2)" for a leaf of a
// structure: the argument is the one whose leaves start before it.
std::string argument_of_leaf(const std::vector<size_t>& starts, int64_t leaf) {
  size_t argument = 0;
  while (argument + 1 < starts.size() && starts[argument + 1] <= static_cast<size_t>(leaf))
    ++argument;
  size_t leaves = starts[argument + 1] - starts[argument];
  std::string which = fmt::format("argument {}", argument);
  if (leaves > 1)
    fmt::format_to(std::back_inserter(which), " (Tensor {} of its {})", leaf - starts[argument],
                   leaves);
  return which;
}

// Throws op's TraceError at `loc` about the differentiated leaf args[leaf],
// with the message `message(which, described)`: "argument 1", "f64[2]".
template <class Message>
[[noreturn]] void fail_at_leaf(const char* op, SourceLocation loc, const std::vector<Tensor>& args,
                               const std::vector<size_t>& starts, int64_t leaf,
                               Message message) {
  Recorder r(op, loc, {&args[leaf]});
  r.fail(message(argument_of_leaf(starts, leaf), describe(args[leaf])));
}
}  // namespace

void require_floating_wrt(const char* op, const std::vector<Tensor>& args,
                          const std::vector<size_t>& starts, const std::vector<int64_t>& wrt,
                          SourceLocation loc) {
  for (int64_t leaf : wrt)
    if (!is_floating(args[leaf].dtype()))
      fail_at_leaf(op, loc, args, starts, leaf, [](const std::string& which,
                                                   const std::string& type) {
        return fmt::format(
            "{} is {}: gradients are taken with respect to floating-point Tensors only, as in "
            "JAX. Leave it out of the differentiated arguments (grad<0, 1>(f) names them), or "
            "pass GradOptions{{.allow_int = true}} for zero gradients",
            which, type);
      });
}

void require_connected(const char* op, const TracedFunction& f, const std::vector<Tensor>& args,
                       const std::vector<size_t>& starts, const std::vector<int64_t>& wrt,
                       SourceLocation loc) {
  TraceContext& trace = trace_of(op, args, loc);
  auto function = trace.module().lookupSymbol<mlir::func::FuncOp>(f.symbol);
  mlir::Block& body = function.front();
  std::vector<mlir::Operation*> ops;
  for (mlir::Operation& inner : body.without_terminator()) ops.push_back(&inner);
  // The function's parameters are the leaves of args, then its captures.
  std::vector<mlir::Value> seeds;
  for (int64_t leaf : wrt) seeds.push_back(body.getArgument(leaf));
  std::vector<mlir::Value> results(body.getTerminator()->operand_begin(),
                                   body.getTerminator()->operand_end());
  llvm::DenseSet<mlir::Value> active = mlir::adjit::activeValues(ops, seeds, results);
  for (int64_t leaf : wrt)
    if (is_floating(args[leaf].dtype()) && !active.contains(body.getArgument(leaf)))
      fail_at_leaf(op, loc, args, starts, leaf, [](const std::string& which,
                                                   const std::string& type) {
        return fmt::format(
            "the result does not depend on {} ({}), or only through stop_gradient and "
            "non-differentiable ops (UnconnectedGradients::error); "
            "GradOptions{{.unconnected = UnconnectedGradients::zero}} gives it a zero gradient",
            which, type);
      });
}

std::vector<Tensor> grad_of(const char* op, const TracedFunction& f,
                            const std::vector<Tensor>& args, const std::vector<int64_t>& wrt,
                            SourceLocation loc) {
  require_scalar_result(op, f, args, loc);
  Recorder r(op, loc, {args.empty() ? nullptr : &args.front()});
  std::vector<Tensor> differentiated;
  for (int64_t i : wrt) differentiated.push_back(args[i]);
  TraceContext& trace = r.trace();
  auto request = r.builder().create<mlir::adjit::GradOp>(
      r.location(), types_of(trace, differentiated), f.symbol, operands(trace, f, args), wrt);
  return wrap_all(trace, request.getResults());
}

std::vector<Tensor> vjp_of(const TracedFunction& f, const std::vector<Tensor>& args,
                           const std::vector<Tensor>& cotangents,
                           const std::vector<int64_t>& wrt, SourceLocation loc) {
  Recorder r("vjp", loc, {args.empty() ? nullptr : &args.front()});
  if (cotangents.size() != f.results.size())
    r.fail(fmt::format("needs one cotangent per result: {} results, {} cotangents",
                       f.results.size(), cotangents.size()));
  std::vector<mlir::Value> cts;
  for (size_t i = 0; i < cotangents.size(); ++i) {
    if (!(TensorType{cotangents[i].dtype(), cotangents[i].shape()} == f.results[i]))
      r.fail(fmt::format("cotangent {} is {} but the result is {}", i, describe(cotangents[i]),
                         f.results[i].str()));
    cts.push_back(r.value(cotangents[i]));
  }
  TraceContext& trace = r.trace();
  std::vector<mlir::Type> types = types_of(trace, f.results);
  for (int64_t i : wrt) types.push_back(trace.tensor_type(args[i].dtype(), args[i].shape()));
  auto request = r.builder().create<mlir::adjit::VjpOp>(r.location(), types, f.symbol,
                                                        operands(trace, f, args), cts, wrt);
  return wrap_all(trace, request.getResults());
}

std::vector<Tensor> jvp_of(const TracedFunction& f, const std::vector<Tensor>& args,
                           const std::vector<Tensor>& tangents, const std::vector<int64_t>& wrt,
                           SourceLocation loc, const char* op) {
  Recorder r(op, loc, {args.empty() ? nullptr : &args.front()});
  if (tangents.size() != wrt.size())
    r.fail(fmt::format("needs one tangent per primal Tensor: {} primal Tensors, {} tangents",
                       wrt.size(), tangents.size()));
  std::vector<mlir::Value> ts;
  for (size_t i = 0; i < tangents.size(); ++i) {
    const Tensor& primal = args[wrt[i]];
    if (tangents[i].dtype() != primal.dtype() || tangents[i].shape() != primal.shape())
      r.fail(fmt::format("tangent {} is {} but its primal is {}", i, describe(tangents[i]),
                         describe(primal)));
    ts.push_back(r.value(tangents[i]));
  }
  TraceContext& trace = r.trace();
  std::vector<mlir::Type> types = types_of(trace, f.results);
  std::vector<mlir::Type> tangent_types = types_of(trace, f.results);
  types.insert(types.end(), tangent_types.begin(), tangent_types.end());
  auto request = r.builder().create<mlir::adjit::JvpOp>(r.location(), types, f.symbol,
                                                        operands(trace, f, args), ts, wrt);
  return wrap_all(trace, request.getResults());
}

std::vector<Tensor> call_with_custom_vjp(const std::vector<Tensor>& args, TraceBody forward,
                                         TraceBody backward, SourceLocation loc,
                                         const TraceBody* tangent) {
  TracedFunction fwd = trace_function("custom_fwd", args, forward, loc);
  // `backward` and `tangent` add their parameters themselves: the inputs,
  // the forward results, then their cotangents or the inputs' tangents.
  TracedFunction bwd = trace_function("custom_bwd", {}, backward, loc);
  std::optional<TracedFunction> tan;
  if (tangent) tan = trace_function("custom_jvp", {}, *tangent, loc);
  Recorder r("custom_gradient", loc, {args.empty() ? nullptr : &args.front()});
  TraceContext& trace = r.trace();
  if (bwd.results.size() != args.size())
    r.fail(fmt::format(
        "the backward function must return one gradient per input: {} inputs, {} gradients",
        args.size(), bwd.results.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (!(bwd.results[i] == TensorType{args[i].dtype(), args[i].shape()}))
      r.fail(fmt::format("gradient {0} of the backward function is {1} but input {0} is {2}", i,
                         bwd.results[i].str(), describe(args[i])));
  if (tan) {
    if (tan->results.size() != fwd.results.size())
      r.fail(fmt::format("the tangent function must return one tangent per result: {} "
                         "results, {} tangents",
                         fwd.results.size(), tan->results.size()));
    for (size_t i = 0; i < fwd.results.size(); ++i)
      if (!(tan->results[i] == fwd.results[i]))
        r.fail(fmt::format("tangent {0} of the tangent function is {1} but result {0} is {2}", i,
                           tan->results[i].str(), fwd.results[i].str()));
  }
  // Values the rules captured reach them through the forward call: they
  // become extra (unused) parameters of the forward function, the backward
  // function's first.
  auto fwd_function = trace.module().lookupSymbol<mlir::func::FuncOp>(fwd.symbol);
  std::vector<Tensor> captures = bwd.captures;
  if (tan) captures.insert(captures.end(), tan->captures.begin(), tan->captures.end());
  for (const Tensor& capture : captures) {
    fwd_function.front().addArgument(trace.tensor_type(capture.dtype(), capture.shape()),
                                     fwd_function.getLoc());
    fwd.captures.push_back(capture);
  }
  fwd_function.setFunctionType(r.builder().getFunctionType(
      fwd_function.front().getArgumentTypes(), fwd_function.getResultTypes()));
  fwd_function->setAttr(mlir::adjit::kCustomVJPAttrName,
                        mlir::FlatSymbolRefAttr::get(&trace.context(), bwd.symbol));
  fwd_function->setAttr(mlir::adjit::kCustomVJPInputsAttrName,
                        r.builder().getI64IntegerAttr(static_cast<int64_t>(args.size())));
  if (tan)
    fwd_function->setAttr(mlir::adjit::kCustomJVPAttrName,
                          mlir::FlatSymbolRefAttr::get(&trace.context(), tan->symbol));
  return call_function(fwd, args, loc);
}

void check_cotangents(const std::vector<Array>& outputs, const std::vector<Array>& cotangents,
                      SourceLocation loc) {
  auto fail = [&](const std::string& message) {
    throw TraceError(fmt::format("adjit::vjp: {}{}", message, at(loc)));
  };
  if (outputs.size() != cotangents.size())
    fail(fmt::format("the pullback needs one cotangent per output: {} outputs, {} cotangents",
                     outputs.size(), cotangents.size()));
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].dtype() != cotangents[i].dtype() || outputs[i].shape() != cotangents[i].shape())
      fail(fmt::format("cotangent {} is {} but the output is {}", i,
                       type_string(cotangents[i].dtype(), cotangents[i].shape()),
                       type_string(outputs[i].dtype(), outputs[i].shape())));
}

}  // namespace adjit::detail
