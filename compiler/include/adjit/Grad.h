#ifndef ADJIT_GRAD_H
#define ADJIT_GRAD_H

// Functional differentiation (DESIGN.md §5): grad, value_and_grad, vjp, jvp,
// hvp, hessian and custom_gradient. Each transform records a request in the
// trace (an adjit.grad/vjp/jvp op naming a traced function); the
// adjit-differentiate pass expands it. Called on Arrays, a transform is
// jitted implicitly; called on Tensors inside a trace, it traces inline, so
// transforms nest: grad(grad(f)), jit(grad(f)), jvp(grad(f)), ...

#include "adjit/Jit.h"
#include "adjit/UnconnectedGradients.h"
#include "adjit/detail/Transforms.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <tuple>
#include <utility>

namespace adjit {

struct GradOptions {
  /// Integer (and bool) Tensors among the differentiated arguments get zero
  /// gradients instead of an error (JAX's allow_int).
  bool allow_int = false;
  /// A floating-point argument the result does not depend on (or only
  /// through stop_gradient and non-differentiable ops) gets a zero gradient,
  /// or with UnconnectedGradients::error a TraceError naming it.
  UnconnectedGradients unconnected = UnconnectedGradients::zero;
};

namespace detail {

// Cotangent indices (into the flat Tensor leaves) of the arguments `argnums`.
inline std::vector<int64_t> leaves_of(const std::vector<size_t>& starts,
                                      std::initializer_list<int> argnums) {
  std::vector<int64_t> wrt;
  for (int i : argnums)
    for (size_t j = starts[i]; j < starts[i + 1]; ++j) wrt.push_back(static_cast<int64_t>(j));
  return wrt;
}

// An argument listed twice (grad<0, 0>, as JAX's argnums=(0, 0)) is
// differentiated once: `leaves` without repeats, and where each entry of
// the original list lies among them.
struct DistinctLeaves {
  std::vector<int64_t> leaves;
  std::vector<size_t> place;

  explicit DistinctLeaves(const std::vector<int64_t>& wrt) {
    for (int64_t leaf : wrt) {
      auto found = std::find(leaves.begin(), leaves.end(), leaf);
      place.push_back(static_cast<size_t>(found - leaves.begin()));
      if (found == leaves.end()) leaves.push_back(leaf);
    }
  }

  // `values` (the first `offset` of them, then one per distinct leaf)
  // with one per entry of the original list.
  std::vector<Tensor> repeated(const std::vector<Tensor>& values, size_t offset) const {
    std::vector<Tensor> out(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(offset));
    for (size_t p : place) out.push_back(values[offset + p]);
    return out;
  }
};

// Traces `f` on parameters shaped like `args` into a private function and
// keeps the traced result, whose structure rebuilds outputs later.
template <class F, class... Args>
struct TracedCall {
  TracedFunction function;
  std::vector<Tensor> flat;         // the Tensor leaves of args
  std::vector<size_t> starts;       // first leaf of each argument
  using Result = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
  std::optional<Result> traced;     // the result inside the traced function

  TracedCall(const char* kind, const F& f, const std::tuple<const Args&...>& args,
             SourceLocation loc) {
    flat = std::apply([&](const Args&... a) { return flatten_tensors(starts, a...); }, args);
    auto body = [&](ParameterFn parameter, std::vector<size_t>& layout) {
      auto made = std::apply(
          [&](const Args&... a) {
            return std::tuple<Args...>{StructureTraits<Args>::make_traced(a, parameter)...};
          },
          args);
      traced.emplace(std::apply(f, made));
      std::vector<Tensor> results;
      StructureTraits<Result>::flatten_result(*traced, results, layout);
      return results;
    };
    function = trace_function(kind, flat, body, loc);
  }

  Result rebuild(const std::vector<Tensor>& values, size_t& position) const {
    return StructureTraits<Result>::rebuild_like(*traced, values, position);
  }
};

// One structure per differentiated argument: the argument itself for one,
// a tuple for several.
template <int... Argnums, class... Args>
auto rebuild_arguments(const std::tuple<const Args&...>& args, const std::vector<Tensor>& values,
                       size_t position) {
  auto one = [&](auto index) {
    constexpr int I = decltype(index)::value;
    using Arg = std::decay_t<std::tuple_element_t<I, std::tuple<Args...>>>;
    return StructureTraits<Arg>::rebuild_like(std::get<I>(args), values, position);
  };
  if constexpr (sizeof...(Argnums) == 1) {
    return one(std::integral_constant<int, Argnums...>{});
  } else {
    return std::tuple{one(std::integral_constant<int, Argnums>{})...};
  }
}

// Whether argument I of a traced call holds Tensors to differentiate (an
// out-of-range I is the range check's to report).
template <int I, class... Args>
constexpr bool differentiable_argument() {
  if constexpr (I < 0 || I >= static_cast<int>(sizeof...(Args))) return true;
  else return contains_tensor<std::tuple_element_t<I, std::tuple<Args...>>>;
}

template <bool WithValue, class F, int... Argnums>
struct GradTransform {
  F f;
  SourceLocation loc;
  GradOptions options;
  const char* op = nullptr;  // what errors name: grad or value_and_grad unless set

  template <class... Args>
  auto operator()(const Args&... args) const {
    const char* name = op ? op : WithValue ? "value_and_grad" : "grad";
    static_assert(((Argnums >= 0 && Argnums < static_cast<int>(sizeof...(Args))) && ...),
                  "adjit::grad / value_and_grad: an argnum is out of range for this call");
    static_assert((differentiable_argument<Argnums, Args...>() && ...),
                  "adjit::grad / value_and_grad: an argnum names a static argument (a number, string or enum, "
                  "part of the cache key), which has no gradient: differentiate Tensor "
                  "arguments only");
    auto all = std::tuple<const Args&...>(args...);
    TracedCall<F, Args...> call(name, f, all, loc);
    static_assert(std::is_same_v<typename TracedCall<F, Args...>::Result, Tensor>,
                  "adjit::grad / value_and_grad: the function must return one scalar Tensor "
                  "(for several results, differentiate one of them: vjp takes a cotangent "
                  "for each)");
    std::vector<int64_t> wrt = leaves_of(call.starts, {Argnums...});
    if (!options.allow_int) require_floating_wrt(name, call.flat, call.starts, wrt, loc);
    if (options.unconnected == UnconnectedGradients::error)
      require_connected(name, call.function, call.flat, call.starts, wrt, loc);
    if constexpr (WithValue) {
      require_scalar_result(name, call.function, call.flat, loc);
      std::vector<Tensor> ones{full({}, 1.0, call.function.results[0].dtype, loc)};
      DistinctLeaves distinct(wrt);
      std::vector<Tensor> values =
          distinct.repeated(vjp_of(call.function, call.flat, ones, distinct.leaves, loc), 1);
      return std::pair{values[0], rebuild_arguments<Argnums...>(all, values, 1)};
    } else {
      DistinctLeaves distinct(wrt);
      std::vector<Tensor> grads =
          distinct.repeated(grad_of(name, call.function, call.flat, distinct.leaves, loc), 0);
      return rebuild_arguments<Argnums...>(all, grads, 0);
    }
  }
};

template <class F>
struct VjpApply {  // the pullback of f at the primals, applied to a cotangent
  F f;
  SourceLocation loc;
  template <class Cotangent, class... Primals>
  auto operator()(const Cotangent& cotangent, const Primals&... primals) const;
};

template <class F>
struct JvpApply {
  F f;
  SourceLocation loc;
  const char* op = "jvp";  // what errors name: jvp, or the hvp or hessian built on it
  template <class... Primals, class... Tangents>
  auto operator()(const std::tuple<Primals...>& primals,
                  const std::tuple<Tangents...>& tangents) const;
};

/// Throws TraceError at `loc` unless `cotangents` match `outputs` one to
/// one in shape and dtype.
void check_cotangents(const std::vector<Array>& outputs, const std::vector<Array>& cotangents,
                      SourceLocation loc);

template <class T>
inline constexpr bool is_tuple = false;
template <class... Ts>
inline constexpr bool is_tuple<std::tuple<Ts...>> = true;

}  // namespace detail

/// ∇f with respect to the arguments `Argnums` (default: the first). f must
/// return one scalar float Tensor. One argnum gives that argument's
/// structure of gradients; several give a std::tuple.
template <int... Argnums, class F>
auto grad(F f, GradOptions options, SourceLocation loc = SourceLocation::current()) {
  if constexpr (sizeof...(Argnums) == 0)
    return jit(detail::GradTransform<false, F, 0>{std::move(f), loc, options}, {.name = "grad"},
               loc);
  else
    return jit(detail::GradTransform<false, F, Argnums...>{std::move(f), loc, options},
               {.name = "grad"}, loc);
}

template <int... Argnums, class F>
auto grad(F f, SourceLocation loc = SourceLocation::current()) {
  return grad<Argnums...>(std::move(f), GradOptions{}, loc);
}

/// (f(args...), ∇f): one forward pass for both.
template <int... Argnums, class F>
auto value_and_grad(F f, GradOptions options, SourceLocation loc = SourceLocation::current()) {
  if constexpr (sizeof...(Argnums) == 0)
    return jit(detail::GradTransform<true, F, 0>{std::move(f), loc, options},
               {.name = "value_and_grad"}, loc);
  else
    return jit(detail::GradTransform<true, F, Argnums...>{std::move(f), loc, options},
               {.name = "value_and_grad"}, loc);
}

template <int... Argnums, class F>
auto value_and_grad(F f, SourceLocation loc = SourceLocation::current()) {
  return value_and_grad<Argnums...>(std::move(f), GradOptions{}, loc);
}

namespace detail {
// adjit::vjp, called at `loc`.
template <class F, class... Primals>
auto vjp_at(SourceLocation loc, F f, const Primals&... primals) {
  if constexpr ((detail::contains_tensor<Primals> || ...)) {
    static_assert((detail::contains_tensor<Primals> && ...),
                  "adjit::vjp: every primal is differentiated, so each must hold Tensors; bind a "
                  "static value (a number, string or enum) into the function instead, as in "
                  "[n](Tensor x) { ... }");
    auto all = std::tuple<const Primals&...>(primals...);
    auto call = std::make_shared<detail::TracedCall<F, Primals...>>("vjp", f, all, loc);
    size_t position = 0;
    auto outputs = call->rebuild(detail::call_function(call->function, call->flat, loc), position);
    auto kept = std::make_shared<std::tuple<Primals...>>(primals...);
    auto pullback = [call, kept](const auto& cotangent,
                                 SourceLocation where = SourceLocation::current()) {
      std::vector<Tensor> cts;
      detail::StructureTraits<std::decay_t<decltype(cotangent)>>::collect_tensors(cotangent, cts);
      std::vector<int64_t> wrt(call->flat.size());
      for (size_t i = 0; i < wrt.size(); ++i) wrt[i] = static_cast<int64_t>(i);
      std::vector<Tensor> values = detail::vjp_of(call->function, call->flat, cts, wrt, where);
      size_t first_grad = call->function.results.size();
      return std::apply(
          [&](const Primals&... p) {
            return [&]<int... I>(std::integer_sequence<int, I...>) {
              return detail::rebuild_arguments<I...>(std::tuple<const Primals&...>(p...), values,
                                                     first_grad);
            }(std::make_integer_sequence<int, sizeof...(Primals)>{});
          },
          *kept);
    };
    return std::pair{outputs, pullback};
  } else {
    auto outputs = jit(f, {}, loc)(primals...);
    std::vector<Array> flat_outputs;
    detail::StructureTraits<std::decay_t<decltype(outputs)>>::collect_arrays(outputs, flat_outputs);
    auto apply = jit(detail::VjpApply<F>{f, loc}, {.name = "vjp"}, loc);
    // Copies: the pullback differentiates at the primals as they were.
    auto kept = std::make_tuple(detail::copy_arrays(primals)...);
    auto pullback = [apply, kept, flat_outputs](const auto& cotangent,
                                                SourceLocation where = SourceLocation::current()) {
      // Checked here, where the caller's line is known.
      std::vector<Array> cts;
      detail::StructureTraits<std::decay_t<decltype(cotangent)>>::collect_arrays(cotangent, cts);
      detail::check_cotangents(flat_outputs, cts, where);
      return std::apply([&](const auto&... p) { return apply(cotangent, p...); }, kept);
    };
    return std::pair{outputs, pullback};
  }
}

template <class F, class... Primals>
using VjpResult = decltype(vjp_at(std::declval<SourceLocation>(), std::declval<F>(),
                                  std::declval<const Primals&>()...));
}  // namespace detail

/// (f(primals...), pullback): pullback(cotangent) returns the cotangent of
/// each primal (one structure for one primal, a tuple for several). The
/// cotangent has the structure of f's result.
/// A class whose deduction guide stands in for a function template: only a
/// constructor can take a defaulted source location after a pack of
/// arguments, so that errors name the caller's line. It is the std::pair
/// of outputs and pullback (`auto [y, pullback] = vjp(f, x);`).
template <class F, class... Primals>
struct vjp : detail::VjpResult<F, Primals...> {
  vjp(F f, const Primals&... primals, SourceLocation loc = SourceLocation::current())
      : detail::VjpResult<F, Primals...>(detail::vjp_at(loc, std::move(f), primals...)) {}
};
template <class F, class... Primals>
vjp(F, const Primals&...) -> vjp<F, Primals...>;

/// (f(primals), tangent of f along `tangents`). One primal and tangent, or
/// std::tuples of them for several arguments.
namespace detail {
// jvp, for adjit::jvp and the transforms built on it (`op` names them).
template <class F, class P, class T>
auto jvp_named(const char* op, F f, const P& primals, const T& tangents, SourceLocation loc) {
  if constexpr (is_tuple<P>) {
    static_assert(is_tuple<T>, "adjit::jvp: tuple primals need tuple tangents");
    if constexpr (contains_tensor<P>)
      return JvpApply<F>{f, loc, op}(primals, tangents);
    else
      return jit(JvpApply<F>{f, loc, op}, {.name = op}, loc)(primals, tangents);
  } else {
    return jvp_named(op, std::move(f), std::tuple<P>(primals), std::tuple<T>(tangents), loc);
  }
}
}  // namespace detail

template <class F, class P, class T>
auto jvp(F f, const P& primals, const T& tangents, SourceLocation loc = SourceLocation::current()) {
  return detail::jvp_named("jvp", std::move(f), primals, tangents, loc);
}

template <class F>
template <class Cotangent, class... Primals>
auto detail::VjpApply<F>::operator()(const Cotangent& cotangent, const Primals&... primals) const {
  return vjp_at(loc, f, primals...).second(cotangent);
}

template <class F>
template <class... Primals, class... Tangents>
auto detail::JvpApply<F>::operator()(const std::tuple<Primals...>& primals,
                                     const std::tuple<Tangents...>& tangents) const {
  auto all = std::apply([](const Primals&... p) { return std::tuple<const Primals&...>(p...); },
                        primals);
  TracedCall<F, Primals...> call(op, f, all, loc);
  std::vector<Tensor> flat_tangents;
  std::apply(
      [&](const Tangents&... t) {
        (StructureTraits<Tangents>::collect_tensors(t, flat_tangents), ...);
      },
      tangents);
  std::vector<int64_t> wrt(call.flat.size());
  for (size_t i = 0; i < wrt.size(); ++i) wrt[i] = static_cast<int64_t>(i);
  std::vector<Tensor> values = jvp_of(call.function, call.flat, flat_tangents, wrt, loc, op);
  size_t position = 0;
  auto outputs = call.rebuild(values, position);
  auto output_tangents = call.rebuild(values, position);
  return std::pair{outputs, output_tangents};
}

/// Hessian-vector product of scalar f at x along v (forward over reverse):
/// jvp(grad(f), x, v), without forming the Hessian. With std::tuples of
/// arguments and directions, the product of the full Hessian over all of
/// them (a tuple).
template <class F, class X, class V>
auto hvp(F f, const X& x, const V& v, SourceLocation loc = SourceLocation::current()) {
  if constexpr (detail::is_tuple<X>) {
    return [&]<int... I>(std::integer_sequence<int, I...>) {
      return detail::jvp_named(
                 "hvp", detail::GradTransform<false, F, I...>{std::move(f), loc, {}, "hvp"}, x,
                 v, loc)
          .second;
    }(std::make_integer_sequence<int, std::tuple_size_v<X>>{});
  } else {
    return detail::jvp_named("hvp", detail::GradTransform<false, F, 0>{std::move(f), loc, {}, "hvp"},
                             x, v, loc)
        .second;
  }
}

namespace detail {
template <int I, class F>
struct HessianTransform {
  F f;
  SourceLocation loc;
  template <class... Args>
  Tensor operator()(const Args&... args) const {
    static_assert(I >= 0 && I < static_cast<int>(sizeof...(Args)),
                  "adjit::hessian: the argnum is out of range for this call");
    static_assert(std::is_same_v<std::tuple_element_t<I, std::tuple<Args...>>, Tensor>,
                  "adjit::hessian: the differentiated argument must be a Tensor");
    static_assert(((std::is_same_v<Args, Tensor> || !contains_tensor<Args>) && ...),
                  "adjit::hessian: the arguments must be Tensors or static values (numbers, "
                  "strings, enums)");
    const Tensor& x = std::get<I>(std::tuple<const Args&...>(args...));
    GradTransform<false, F, I> gradient{f, loc, {}, "hessian"};
    int64_t n = x.size();
    Shape shape = x.shape();
    shape.insert(shape.end(), x.shape().begin(), x.shape().end());
    if (n == 0) {  // no rows: an empty Hessian, once f is known to have a gradient
      gradient(args...);
      return full(shape, 0.0, x.dtype(), loc);
    }
    // One jvp per basis direction: meant for small inputs.
    std::vector<Tensor> rows;
    Tensor positions = arange(n, DType::i32, loc);
    for (int64_t k = 0; k < n; ++k) {
      Tensor basis = reshape(cast(equal(positions, static_cast<int>(k), loc), x.dtype(), loc),
                             x.shape(), loc);
      auto tangents = std::tuple<Args...>{args...};
      // Only argument I moves; the other Tensors have zero tangents (static
      // values have none).
      auto zero = [&](auto& t) {
        if constexpr (std::is_same_v<std::decay_t<decltype(t)>, Tensor>) t = zeros_like(t, loc);
      };
      std::apply([&](auto&... t) { (zero(t), ...); }, tangents);
      std::get<I>(tangents) = basis;
      auto [g, dg] = JvpApply<GradTransform<false, F, I>>{gradient, loc, "hessian"}(
          std::tuple<Args...>{args...}, tangents);
      rows.push_back(reshape(dg, {1, n}, loc));
    }
    return reshape(concat(rows, 0, loc), shape, loc);
  }
};
}  // namespace detail

/// The Hessian of scalar f with respect to argument I (a Tensor of shape S):
/// a Tensor of shape S + S. Costs one forward-over-reverse pass per element
/// of argument I: for small inputs; use hvp for products with vectors.
template <int I = 0, class F>
auto hessian(F f, SourceLocation loc = SourceLocation::current()) {
  return jit(detail::HessianTransform<I, F>{std::move(f), loc}, {.name = "hessian"}, loc);
}

namespace detail {
/// custom_gradient without a tangent rule.
struct NoTangentRule {};

template <class Forward, class Backward, class Tangent = NoTangentRule>
struct CustomGradientTransform {
  Forward forward;
  Backward backward;
  Tangent tangent;
  SourceLocation loc;

  template <class... Args>
  auto operator()(const Args&... args) const {
    static_assert((std::is_same_v<Args, Tensor> && ...),
                  "adjit::custom_gradient: the inputs must be Tensors");
    std::vector<Tensor> inputs{args...};
    using Result = std::decay_t<std::invoke_result_t<const Forward&, const Args&...>>;
    std::optional<Result> traced;
    auto forward_body = [&](ParameterFn parameter, std::vector<size_t>& layout) {
      traced.emplace(forward(StructureTraits<Args>::make_traced(args, parameter)...));
      std::vector<Tensor> results;
      StructureTraits<Result>::flatten_result(*traced, results, layout);
      return results;
    };
    auto backward_body = [&](ParameterFn parameter, std::vector<size_t>&) {
      // Parameters: the inputs, the forward result, its cotangent.
      auto in = std::tuple<Args...>{StructureTraits<Args>::make_traced(args, parameter)...};
      Result output = StructureTraits<Result>::make_traced(*traced, parameter);
      Result cotangent = StructureTraits<Result>::make_traced(*traced, parameter);
      auto grads = std::apply(
          [&](const Args&... a) { return backward(a..., output, cotangent); }, in);
      std::vector<Tensor> flat;
      StructureTraits<std::decay_t<decltype(grads)>>::collect_tensors(grads, flat);
      return flat;
    };
    std::vector<Tensor> values;
    if constexpr (std::is_same_v<Tangent, NoTangentRule>) {
      values = call_with_custom_vjp(inputs, forward_body, backward_body, loc);
    } else {
      auto tangent_body = [&](ParameterFn parameter, std::vector<size_t>&) {
        // Parameters: the inputs, the forward result, the inputs' tangents.
        auto in = std::tuple<Args...>{StructureTraits<Args>::make_traced(args, parameter)...};
        Result output = StructureTraits<Result>::make_traced(*traced, parameter);
        auto tangents = std::tuple<Args...>{StructureTraits<Args>::make_traced(args, parameter)...};
        auto result_tangent = std::apply(
            [&](const Args&... a) {
              return std::apply([&](const Args&... t) { return tangent(a..., output, t...); },
                                tangents);
            },
            in);
        std::vector<Tensor> flat;
        StructureTraits<std::decay_t<decltype(result_tangent)>>::collect_tensors(result_tangent,
                                                                                 flat);
        return flat;
      };
      TraceBody tangent_rule = tangent_body;
      values = call_with_custom_vjp(inputs, forward_body, backward_body, loc, &tangent_rule);
    }
    size_t position = 0;
    return StructureTraits<Result>::rebuild_like(*traced, values, position);
  }
};
}  // namespace detail

namespace detail {
template <class F>
struct CheckpointTransform {
  F f;
  SourceLocation loc;

  template <class... Args>
  auto operator()(const Args&... args) const {
    TracedCall<F, Args...> call("checkpoint", f, std::tuple<const Args&...>(args...), loc);
    std::vector<Tensor> values = call_checkpointed(call.function, call.flat, loc);
    size_t position = 0;
    return call.rebuild(values, position);
  }
};
}  // namespace detail

/// jax.checkpoint / tf.recompute_grad: `f` computes the same values, but
/// reverse mode does not keep its intermediate values for the backward
/// pass: it runs `f` again there. Trades compute for memory (a block of a
/// deep network, a loop body). Gradients equal the stored ones to round-off.
template <class F>
auto checkpoint(F f, SourceLocation loc = SourceLocation::current()) {
  return jit(detail::CheckpointTransform<F>{std::move(f), loc}, {.name = "checkpoint"}, loc);
}

/// A function with a user-defined reverse-mode derivative, like
/// tf.custom_gradient / jax.custom_vjp. `forward(inputs...)` computes the
/// result; `backward(inputs..., result, cotangent)` returns one gradient per
/// input (a Tensor for one input, a std::tuple for several). Both are traced;
/// written in adjit ops, `backward` is differentiable again.
template <class Forward, class Backward>
auto custom_gradient(Forward forward, Backward backward,
                     SourceLocation loc = SourceLocation::current()) {
  return jit(detail::CustomGradientTransform<Forward, Backward>{
                 std::move(forward), std::move(backward), {}, loc},
             {.name = "custom_gradient"}, loc);
}

/// custom_gradient with forward mode's rule too (both of jax.custom_vjp's
/// and jax.custom_jvp's): `tangent(inputs..., result, tangents...)` returns
/// the result's tangent (the result's structure) for the inputs' tangents,
/// and jvp (and forward-over-reverse) calls it instead of differentiating
/// `forward`. It must be the linear map whose transpose `backward` is.
template <class Forward, class Backward, class Tangent>
  requires(!std::is_same_v<Tangent, SourceLocation>)
auto custom_gradient(Forward forward, Backward backward, Tangent tangent,
                     SourceLocation loc = SourceLocation::current()) {
  return jit(detail::CustomGradientTransform<Forward, Backward, Tangent>{
                 std::move(forward), std::move(backward), std::move(tangent), loc},
             {.name = "custom_gradient"}, loc);
}

}  // namespace adjit

#endif
