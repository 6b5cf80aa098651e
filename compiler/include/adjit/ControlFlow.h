#ifndef ADJIT_CONTROLFLOW_H
#define ADJIT_CONTROLFLOW_H

// Control flow on traced values (DESIGN.md §5): cond, while_loop, fori_loop
// and scan. Each traces its functions once, into regions of one op, so a
// loop of a thousand iterations is one loop in the compiled code, not a
// thousand copies of its body. A carry is a Tensor, or a std::tuple,
// std::pair, std::array or std::vector of Tensors, the same structure in
// and out; functions may use Tensors of the enclosing trace (closures).
//
// Differentiation: both modes through all of them. Reverse mode keeps each
// iteration's carries and recomputes the body backwards; a while_loop keeps
// them in stacks that grow as it runs (a fori_loop with Tensor bounds sizes
// its stack by upper - lower; docs/guide/control-flow.md).

#include "adjit/Grad.h"  // detail::TracedCall
#include "adjit/detail/ControlFlow.h"

#include <type_traits>
#include <utility>

namespace adjit {

/// then_fn(operands...) if pred (a 0-d bool Tensor) is true, else
/// else_fn(operands...); both must return the same structure and types.
template <class Then, class Else, class... Operands>
auto cond(Predicate pred, Then then_fn, Else else_fn, const Operands&... operands) {
  auto args = std::tuple<const Operands&...>(operands...);
  // "cond" names both branches' functions and the errors tracing them.
  detail::TracedCall<Then, Operands...> then_call("cond", then_fn, args, pred.location);
  detail::TracedCall<Else, Operands...> else_call("cond", else_fn, args, pred.location);
  static_assert(std::is_same_v<typename decltype(then_call)::Result,
                               typename decltype(else_call)::Result>,
                "adjit::cond: then_fn and else_fn must return the same C++ type");
  std::vector<Tensor> results = detail::cond_of(pred.tensor, then_call.function,
                                                else_call.function, then_call.flat,
                                                pred.location);
  size_t position = 0;
  return then_call.rebuild(results, position);
}

/// for (i = lower; i < upper; ++i) carry = body_fn(i, carry); i is a 0-d
/// i32 Tensor. Bounds are C++ integers or 0-d integer Tensors. `options`
/// trades the memory of reverse mode for recomputation (LoopOptions).
template <class Body, class Carry>
Carry fori_loop(LoopBound lower, LoopBound upper, Body body_fn, const Carry& init,
                LoopOptions options = {}, SourceLocation loc = SourceLocation::current()) {
  std::vector<size_t> starts;
  std::vector<Tensor> flat = detail::flatten_tensors(starts, init);
  auto body = [&](detail::ParameterFn parameter, std::vector<size_t>& layout) {
    Tensor i = parameter(DType::i32, {});
    Carry carry = detail::traced_like(init, parameter);
    auto next = body_fn(i, carry);
    static_assert(std::is_same_v<std::decay_t<decltype(next)>, Carry>,
                  "adjit::fori_loop: body_fn must return the carry's C++ type");
    std::vector<Tensor> results;
    detail::flatten_into(next, results, layout);
    return results;
  };
  detail::TracedFunction traced = detail::trace_function("fori_loop", flat, body, loc);
  std::vector<Tensor> out = detail::for_of("fori_loop", lower, upper, traced, flat,
                                           detail::layout_of(init), {}, options, loc);
  size_t position = 0;
  return detail::StructureTraits<Carry>::rebuild_like(init, out, position);
}

/// lax.scan: for each row x of xs (its leading dimension), {carry, y} =
/// body_fn(carry, x); returns {the last carry, the ys stacked}. xs is a
/// Tensor or a structure of Tensors with one leading dimension. `options`
/// trades the memory of reverse mode for recomputation (LoopOptions).
template <class Body, class Carry, class Xs>
auto scan(Body body_fn, const Carry& init, const Xs& xs, LoopOptions options = {},
          SourceLocation loc = SourceLocation::current()) {
  std::vector<size_t> starts, x_starts;
  std::vector<Tensor> flat = detail::flatten_tensors(starts, init);
  std::vector<Tensor> flat_xs = detail::flatten_tensors(x_starts, xs);
  using Result = std::decay_t<std::invoke_result_t<Body&, const Carry&, const Xs&>>;
  static_assert(std::tuple_size_v<Result> == 2,
                "adjit::scan: body_fn must return {carry, y} (a std::pair or std::tuple)");
  using Ys = std::decay_t<std::tuple_element_t<1, Result>>;
  static_assert(std::is_same_v<std::decay_t<std::tuple_element_t<0, Result>>, Carry>,
                "adjit::scan: body_fn must return the carry's C++ type first");
  std::optional<Ys> traced_ys;
  int64_t length = flat_xs.empty() || flat_xs.front().rank() == 0 ? -1
                                                                  : flat_xs.front().shape()[0];
  auto body = [&](detail::ParameterFn parameter, std::vector<size_t>& layout) {
    parameter(DType::i32, {});  // the iteration index, unused by scan
    Carry carry = detail::traced_like(init, parameter);
    auto row = [&](DType dtype, const Shape& shape) {
      return parameter(dtype, shape.empty() ? shape : Shape(shape.begin() + 1, shape.end()));
    };
    Xs x = detail::StructureTraits<Xs>::make_traced(xs, row);
    Result next = body_fn(carry, x);
    std::vector<Tensor> results;
    detail::flatten_into(std::get<0>(next), results, layout);
    detail::flatten_into(std::get<1>(next), results, layout);
    traced_ys.emplace(std::get<1>(next));
    return results;
  };
  std::vector<Tensor> all(flat);
  all.insert(all.end(), flat_xs.begin(), flat_xs.end());
  detail::TracedFunction traced = detail::trace_function("scan", all, body, loc);
  std::vector<Tensor> out = detail::for_of("scan", 0, length < 0 ? 0 : length, traced, flat,
                                           detail::layout_of(init), flat_xs, options, loc);
  size_t position = 0;
  Carry carry = detail::StructureTraits<Carry>::rebuild_like(init, out, position);
  Ys ys = detail::StructureTraits<Ys>::rebuild_like(*traced_ys, out, position);
  return std::pair<Carry, Ys>{std::move(carry), std::move(ys)};
}

/// while (cond_fn(carry)) carry = body_fn(carry); cond_fn returns a 0-d
/// bool Tensor. The trip count may depend on the data. `options` trades
/// the memory of reverse mode for recomputation (LoopOptions).
template <class CondFn, class Body, class Carry>
Carry while_loop(CondFn cond_fn, Body body_fn, const Carry& init, LoopOptions options = {},
                 SourceLocation loc = SourceLocation::current()) {
  std::vector<size_t> starts;
  std::vector<Tensor> flat = detail::flatten_tensors(starts, init);
  auto condition = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Carry carry = detail::traced_like(init, parameter);
    Tensor pred = cond_fn(carry);
    return std::vector<Tensor>{pred};
  };
  auto body = [&](detail::ParameterFn parameter, std::vector<size_t>& layout) {
    Carry carry = detail::traced_like(init, parameter);
    auto next = body_fn(carry);
    static_assert(std::is_same_v<std::decay_t<decltype(next)>, Carry>,
                  "adjit::while_loop: body_fn must return the carry's C++ type");
    std::vector<Tensor> results;
    detail::flatten_into(next, results, layout);
    return results;
  };
  detail::TracedFunction traced_cond = detail::trace_function("while_cond", flat, condition, loc);
  detail::TracedFunction traced_body = detail::trace_function("while_body", flat, body, loc);
  std::vector<Tensor> out =
      detail::while_of(traced_cond, traced_body, flat, detail::layout_of(init), options, loc);
  size_t position = 0;
  return detail::StructureTraits<Carry>::rebuild_like(init, out, position);
}

}  // namespace adjit

#endif
