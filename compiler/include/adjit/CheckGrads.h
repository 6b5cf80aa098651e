#ifndef ADJIT_CHECKGRADS_H
#define ADJIT_CHECKGRADS_H

// check_grads: reverse and forward mode against central finite differences
// computed in f64, to orders 1 through kMaxCheckGradsOrder.

#include "adjit/Grad.h"

#include <functional>
#include <string>
#include <vector>

namespace adjit {

struct GradCheckOptions {
  double atol = -1;   ///< absolute tolerance; < 0: by dtype (f64 1e-6, f32 2e-3, 16-bit 5e-2)
  double rtol = -1;   ///< relative tolerance; < 0: like atol
  double eps = 1e-6;  ///< finite-difference step, relative to max(1, |x|)
  uint64_t seed = 20261129;  ///< output weights and sampled elements
  /// Per-element checks of forward mode and finite differences cover at most
  /// this many input elements (sampled when there are more).
  int64_t max_elements = 256;
  bool reverse = true;
  bool forward = true;
};

/// The outcome of check_grads; converts to bool (passed), implicitly, so
/// that `bool ok = check_grads(f, args);` works as well as `if (report)`.
struct GradCheckReport {
  bool passed = true;
  int64_t checked = 0;        ///< element comparisons made
  double worst_ratio = 0;     ///< largest error / tolerance (passed iff <= 1)
  std::string worst;          ///< which comparison that was, in words
  operator bool() const { return passed; }
  /// One line: pass/fail, the worst element (mode, order, argument, index,
  /// analytic and numeric values) and its error against the tolerance.
  std::string summary() const;
};

namespace detail {

// The function whose parameters say how f is called: a jitted function, a
// checkpoint or a custom gradient takes what the function it wraps takes
// (their own call operators accept anything, and would mislead the tests
// below into a hard error).
template <class F>
struct CalledAs {
  using type = F;
};
template <class G>
struct CalledAs<Jitted<G>> : CalledAs<G> {};
template <class G>
struct CalledAs<CheckpointTransform<G>> : CalledAs<G> {};
template <class Forward, class Backward, class Tangent>
struct CalledAs<CustomGradientTransform<Forward, Backward, Tangent>> : CalledAs<Forward> {};
template <class F>
using called_as_t = typename CalledAs<F>::type;

// Whether f takes K Tensors as separate arguments (K >= 1).
template <class F, size_t K>
inline constexpr bool takes_tensors = K > 0 && []<size_t... I>(std::index_sequence<I...>) {
  return std::is_invocable_v<const called_as_t<F>&, decltype((void)I, std::declval<Tensor>())...>;
}(std::make_index_sequence<K>{});

inline constexpr size_t kMaxSeparateArguments = 8;

// Whether f takes 1 to kMaxSeparateArguments Tensors as separate arguments.
template <class F>
inline constexpr bool takes_separate_tensors = []<size_t... K>(std::index_sequence<K...>) {
  return (takes_tensors<F, K> || ...);
}(std::make_index_sequence<kMaxSeparateArguments + 1>{});

// Whether f takes one std::vector<Tensor> instead. Asked only of a function
// that takes no separate Tensors: asking a generic lambda ([](auto x)) would
// instantiate its body with a vector.
template <class F>
inline constexpr bool takes_tensor_vector = [] {
  if constexpr (takes_separate_tensors<F>) return false;
  else return std::is_invocable_v<const called_as_t<F>&, const std::vector<Tensor>&>;
}();

// Whether invoke_flat can call f with `count` Tensors.
template <class F>
bool callable_with(size_t count) {
  if constexpr (takes_tensor_vector<F>) {
    return true;
  } else {
    return [&]<size_t... K>(std::index_sequence<K...>) {
      return ((count == K && takes_tensors<F, K>) || ...);
    }(std::make_index_sequence<kMaxSeparateArguments + 1>{});
  }
}

// Calls f with the Tensors of `xs` as separate arguments (up to
// kMaxSeparateArguments), or as one std::vector<Tensor> if f takes that.
// f's result, checked to be one Tensor (the compiler's own message for a
// tuple would point into this header).
template <class R>
Tensor one_result(R&& result) {
  static_assert(std::is_convertible_v<R, Tensor>,
                "check_grads: f must return one Tensor; check the outputs of a function "
                "returning several one at a time");
  return std::forward<R>(result);
}

template <class F>
Tensor invoke_flat(const F& f, const std::vector<Tensor>& xs) {
  if constexpr (takes_tensor_vector<F>) {
    return one_result(f(xs));
  } else {
    Tensor result;
    bool called = false;
    [&]<size_t... K>(std::index_sequence<K...>) {
      auto attempt = [&]<size_t N>(std::integral_constant<size_t, N>) {
        if constexpr (takes_tensors<F, N>) {
          if (xs.size() == N) {
            [&]<size_t... I>(std::index_sequence<I...>) {
              result = one_result(f(xs[I]...));
            }(std::make_index_sequence<N>{});
            called = true;
          }
        }
      };
      (attempt(std::integral_constant<size_t, K>{}), ...);
    }(std::make_index_sequence<kMaxSeparateArguments + 1>{});
    if (!called)
      throw Error("check_grads: the function cannot be called with " + std::to_string(xs.size()) +
                  " Tensor arguments");
    return result;
  }
}

// sum(f(xs) * w): a scalar whose gradient covers every output element.
template <class F>
struct WeightedOutput {
  F f;
  Tensor operator()(const std::vector<Tensor>& xs, const Tensor& w) const {
    Tensor y = invoke_flat(f, xs);
    return sum(y * cast(w, y.dtype()));
  }
};

// The scalar of the check at order K >= 2: S_K = sum_i <grad_i S_{K-1},
// w_K,i>, with S_1 = WeightedOutput: a (K-1)-th derivative of f's weighted
// output along fixed weights, whose derivatives (the K-th) the check
// compares. `ws` holds the weights of orders 2 .. K, xs.size() each.
template <class F, int K>
struct WeightedDerivative {
  static_assert(K >= 2);
  F f;
  Tensor operator()(const std::vector<Tensor>& xs, const Tensor& w,
                    const std::vector<Tensor>& ws) const {
    size_t n = xs.size();
    GradOptions options{.allow_int = true};
    std::vector<Tensor> g;
    if constexpr (K == 2) {
      g = GradTransform<false, WeightedOutput<F>, 0>{WeightedOutput<F>{f},
                                                     SourceLocation::current(), options}(xs, w);
    } else {
      std::vector<Tensor> lower(ws.begin(), ws.begin() + (K - 2) * n);
      g = GradTransform<false, WeightedDerivative<F, K - 1>, 0>{
          WeightedDerivative<F, K - 1>{f}, SourceLocation::current(), options}(xs, w, lower);
    }
    const Tensor* weights = ws.data() + (K - 2) * n;
    Tensor total = sum(g[0] * cast(weights[0], g[0].dtype()));
    for (size_t i = 1; i < n; ++i) total = total + sum(g[i] * cast(weights[i], g[i].dtype()));
    return total;
  }
};

/// Compares analytic derivatives of a scalar function with finite
/// differences. `evaluate(xs)` runs the function at the dtype of xs (also
/// f64), `reverse(xs)` gives its gradient, `forward(xs, direction)` its
/// derivative along a direction.
GradCheckReport compare_derivatives(
    const std::vector<Array>& xs, int order, const GradCheckOptions& options,
    const std::function<double(const std::vector<Array>&)>& evaluate,
    const std::function<std::vector<Array>(const std::vector<Array>&)>& reverse,
    const std::function<double(const std::vector<Array>&, const std::vector<Array>&)>& forward);

/// Deterministic weights in [-1, -1/2] and [1/2, 1) shaped like `like`, as f64.
Array random_weights(const Shape& shape, uint64_t seed);
/// The shapes of f's output at xs, by tracing (no compilation).
Shape output_shape(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                   const std::vector<Array>& xs);

inline Tensor zeros_of(const Tensor& t) { return zeros_like(t); }
inline std::vector<Tensor> zeros_of(const std::vector<Tensor>& ts) {
  std::vector<Tensor> zeros;
  for (const Tensor& t : ts) zeros.push_back(zeros_like(t));
  return zeros;
}
/// The value of a one-element array as a double.
double scalar_value(const Array& a);
/// Throws when no argument is floating-point: nothing would be compared.
/// `at` ends the message (the caller's line).
void require_differentiable_argument(const std::vector<Array>& args, const std::string& at);
/// Both checks' comparisons; passed iff both passed; the worse one's worst.
GradCheckReport combine(const GradCheckReport& a, const GradCheckReport& b);

template <class S, class... Extra>
GradCheckReport check_scalar(const S& s, const std::vector<Array>& xs, int order,
                             const GradCheckOptions& options, const Extra&... extra) {
  auto value = jit(s, {.name = "check_grads_value"}, SourceLocation{});
  // Integer arguments (labels, indices) ride along with zero gradients.
  auto gradient = grad<0>(s, GradOptions{.allow_int = true});
  auto tangent = jit(
      [s](const std::vector<Tensor>& at, const std::vector<Tensor>& direction,
          const auto&... e) {
        using Arguments = std::tuple<std::vector<Tensor>, std::decay_t<decltype(e)>...>;
        return jvp(s, Arguments{at, e...}, Arguments{direction, zeros_of(e)...}).second;
      },
      {.name = "check_grads_jvp"}, SourceLocation{});
  return compare_derivatives(
      xs, order, options,
      [&](const std::vector<Array>& at) { return scalar_value(value(at, extra...)); },
      [&](const std::vector<Array>& at) { return gradient(at, extra...); },
      [&](const std::vector<Array>& at, const std::vector<Array>& direction) {
        return scalar_value(tangent(at, direction, extra...));
      });
}

}  // namespace detail

/// The highest order check_grads takes: each order nests one more
/// reverse-mode derivative, compiled on its own.
inline constexpr int kMaxCheckGradsOrder = 4;

namespace detail {

// Orders K .. order of check_grads, each combined into `report`.
template <int K, class F>
void check_orders(const F& f, const std::vector<Array>& args, int order,
                  const GradCheckOptions& options, const Array& w, std::vector<Array>& ws,
                  GradCheckReport& report) {
  if constexpr (K <= kMaxCheckGradsOrder) {
    if (K > order) return;
    for (size_t i = 0; i < args.size(); ++i)
      ws.push_back(random_weights(args[i].shape(), options.seed + 1 + (K - 2) * args.size() + i)
                       .to(args.front().device()));
    report = combine(report, check_scalar(WeightedDerivative<F, K>{f}, args, K, options, w, ws));
    check_orders<K + 1>(f, args, order, options, w, ws, report);
  }
}

}  // namespace detail

/// Checks the derivatives of f (a function of args.size() Tensors, or of one
/// std::vector<Tensor>) at `args`: reverse mode (grad) and forward mode (jvp)
/// against central differences in f64, for every order from 1 to `order`
/// (at most kMaxCheckGradsOrder): order K compares the derivatives of the
/// (K-1)-th derivative along fixed random weights. At least one argument
/// must be floating-point. Vector outputs are checked through a fixed
/// random weighting of their elements.
template <class F>
GradCheckReport check_grads(F f, std::vector<Array> args, int order = 1,
                            GradCheckOptions options = {},
                            SourceLocation where = SourceLocation::current()) {
  std::string at = std::string(" (at ") + where.file_name() + ":" + std::to_string(where.line()) + ")";
  if (order < 1 || order > kMaxCheckGradsOrder)
    throw TraceError("adjit::check_grads: order must be 1 to " +
                     std::to_string(kMaxCheckGradsOrder) + ", got " + std::to_string(order) + at);
  if (!detail::callable_with<F>(args.size()))
    throw TraceError("adjit::check_grads: the function cannot be called with " +
                     std::to_string(args.size()) + " Tensor arguments" + at);
  detail::require_differentiable_argument(args, at);
  std::function<Tensor(const std::vector<Tensor>&)> flat = [f](const std::vector<Tensor>& xs) {
    return detail::invoke_flat(f, xs);
  };
  // The weights live where the arguments do (every function runs there).
  Device device = args.front().device();
  Array w = detail::random_weights(detail::output_shape(flat, args), options.seed).to(device);
  GradCheckReport report = detail::check_scalar(detail::WeightedOutput<F>{f}, args, 1, options, w);
  // Higher orders check each lower derivative too (as JAX does): a wrong
  // first derivative can have a right derivative.
  std::vector<Array> ws;
  detail::check_orders<2>(f, args, order, options, w, ws, report);
  return report;
}

}  // namespace adjit

#endif
