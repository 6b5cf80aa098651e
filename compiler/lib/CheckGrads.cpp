#include "adjit/CheckGrads.h"

#include <cmath>

#include <fmt/format.h>

namespace adjit {

namespace detail {

namespace {

// Host arrays only.
double element(const Array& a, int64_t i) {
  return visit_dtype(a.dtype(), [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    const T& v = static_cast<const T*>(a.raw_data())[i];
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
      return v.to_float();
    else
      return static_cast<double>(v);
  });
}

void set_element(Array& a, int64_t i, double value) {
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T& v = static_cast<T*>(a.raw_data())[i];
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
      v = T::from_float(static_cast<float>(value));
    else
      v = static_cast<T>(value);
  });
}

Array to_f64(const Array& a) {
  Array result = Array::empty(a.shape(), DType::f64);
  for (int64_t i = 0; i < a.size(); ++i) result.data<double>()[i] = element(a, i);
  return result;
}

// Default tolerances: what the lowest-precision argument can resolve.
double default_tolerance(const std::vector<Array>& xs, int order) {
  double tolerance = 1e-6;
  for (const Array& x : xs) {
    if (x.dtype() == DType::f32) tolerance = std::max(tolerance, 2e-3);
    if (x.dtype() == DType::f16 || x.dtype() == DType::bf16) tolerance = std::max(tolerance, 5e-2);
  }
  // Each order derives the one before analytically: its rounding compounds.
  for (int k = 1; k < order; ++k) tolerance *= 5;
  return tolerance;
}

// Elements to compare per argument: all, or a deterministic sample.
std::vector<int64_t> sample(int64_t size, int64_t limit, uint64_t seed) {
  std::vector<int64_t> chosen;
  if (size <= limit) {
    for (int64_t i = 0; i < size; ++i) chosen.push_back(i);
    return chosen;
  }
  uint64_t state = seed;
  for (int64_t k = 0; k < limit; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    chosen.push_back(static_cast<int64_t>((state >> 17) % static_cast<uint64_t>(size)));
  }
  return chosen;
}

}  // namespace

double scalar_value(const Array& a) {
  if (a.size() != 1)
    throw Error(
        fmt::format("check_grads: expected a scalar, got {}", type_string(a.dtype(), a.shape())));
  return element(a.to(Device::cpu()), 0);
}

void require_differentiable_argument(const std::vector<Array>& args, const std::string& at) {
  std::string types;
  for (const Array& a : args) {
    if (is_floating(a.dtype())) return;
    types += (types.empty() ? "" : ", ") + type_string(a.dtype(), a.shape());
  }
  throw TraceError(fmt::format(
      "adjit::check_grads: no floating-point argument to differentiate (arguments: {}){}",
      types.empty() ? "none" : types, at));
}

GradCheckReport combine(const GradCheckReport& a, const GradCheckReport& b) {
  GradCheckReport both = b.worst_ratio > a.worst_ratio || a.worst.empty() ? b : a;
  both.passed = a.passed && b.passed;
  both.checked = a.checked + b.checked;
  return both;
}

Array random_weights(const Shape& shape, uint64_t seed) {
  // Magnitudes of at least 1/2: a weight near 0 would shrink a wrong
  // derivative into the absolute tolerance.
  Array weights = Array::uniform(shape, seed, -1.0, 1.0, DType::f64);
  double* w = weights.data<double>();
  for (int64_t i = 0; i < weights.size(); ++i) w[i] = std::copysign(0.5 + std::abs(w[i]) / 2, w[i]);
  return weights;
}

Shape output_shape(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                   const std::vector<Array>& xs) {
  auto probe = jit([&f](const std::vector<Tensor>& args) { return f(args); });
  return probe.lower(xs).signatures().at(0).outputs.at(0).shape;
}

GradCheckReport compare_derivatives(
    const std::vector<Array>& xs, int order, const GradCheckOptions& options,
    const std::function<double(const std::vector<Array>&)>& evaluate,
    const std::function<std::vector<Array>(const std::vector<Array>&)>& reverse,
    const std::function<double(const std::vector<Array>&, const std::vector<Array>&)>& forward) {
  if (!options.reverse && !options.forward)
    throw Error("check_grads: options.reverse and options.forward are both false; nothing would "
                "be compared");
  if (options.max_elements < 1)
    throw Error(fmt::format("check_grads: options.max_elements must be at least 1, got {}; "
                            "nothing would be compared",
                            options.max_elements));
  double atol = options.atol >= 0 ? options.atol : default_tolerance(xs, order);
  double rtol = options.rtol >= 0 ? options.rtol : atol;
  GradCheckReport report;
  // Every function runs where the arguments live (a GPU, say); elements
  // are read and perturbed in host copies.
  Device device = xs.empty() ? Device::cpu() : xs.front().device();
  auto on_device = [&](std::vector<Array> arrays) {
    for (Array& a : arrays) a = a.to(device);
    return arrays;
  };
  auto on_host = [](std::vector<Array> arrays) {
    for (Array& a : arrays) a = a.to(Device::cpu());
    return arrays;
  };
  // Finite differences run in f64; integer arguments (labels, indices) stay.
  std::vector<Array> wide;
  for (const Array& x : on_host(xs)) wide.push_back(is_floating(x.dtype()) ? to_f64(x) : x);
  std::vector<Array> gradients = options.reverse ? on_host(reverse(xs)) : std::vector<Array>{};

  auto compare = [&](const char* mode, size_t arg, int64_t i, double analytic, double numeric) {
    double error = std::abs(analytic - numeric);
    double tolerance = atol + rtol * std::abs(numeric);
    double ratio = std::isnan(error) ? INFINITY : error / tolerance;
    ++report.checked;
    if (ratio > report.worst_ratio || report.worst.empty()) {
      report.worst = fmt::format(
          "{} mode, order {}, argument {} {}, element {}: analytic {:g}, numeric {:g}, error {:g} "
          "(tolerance {:g})",
          mode, order, arg, type_string(xs[arg].dtype(), xs[arg].shape()), i, analytic, numeric,
          error, tolerance);
      report.worst_ratio = ratio;
    }
    if (!(ratio <= 1)) report.passed = false;
  };

  for (size_t arg = 0; arg < xs.size(); ++arg) {
    if (!is_floating(xs[arg].dtype())) continue;
    for (int64_t i : sample(xs[arg].size(), options.max_elements, options.seed + arg)) {
      double x = element(wide[arg], i);
      double h = options.eps * std::max(1.0, std::abs(x));
      Array up = wide[arg].copy(), down = wide[arg].copy();
      set_element(up, i, x + h);
      set_element(down, i, x - h);
      std::vector<Array> at_up = wide, at_down = wide;
      at_up[arg] = up;
      at_down[arg] = down;
      double numeric = (evaluate(on_device(at_up)) - evaluate(on_device(at_down))) / (2 * h);
      if (options.reverse) compare("reverse", arg, i, element(gradients[arg], i), numeric);
      if (options.forward) {
        std::vector<Array> direction;
        for (const Array& a : xs) direction.push_back(Array::zeros(a.shape(), a.dtype()));
        set_element(direction[arg], i, 1.0);
        compare("forward", arg, i, forward(xs, on_device(direction)), numeric);
      }
    }
  }
  return report;
}

}  // namespace detail

std::string GradCheckReport::summary() const {
  return fmt::format("{} ({} comparisons); worst: {}",
                     passed ? "check_grads passed" : "check_grads FAILED", checked,
                     worst.empty() ? "none" : worst);
}

}  // namespace adjit
