// Shared helpers for the compiler unit tests (tracer, AD transforms, JIT
// ops): dtype shorthands, Arrays <-> doubles, row-major index arithmetic,
// elementwise references, exact rounding into the float formats,
// comparisons that describe the first mismatches in a readable way, and the
// messages of thrown exceptions. The helpers of the AD tests (Fn, FN,
// expect_grads, ...) are in adjit::test::ad. jit_test_support.h builds on
// this header for the tests that compile MLIR text.
//
// Use: `using namespace adjit::test;` (and `using namespace adjit::test::ad;`
// in the AD tests).
#pragma once

#include <catch2/catch.hpp>

#include <adjit/adjit.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace adjit::test {

constexpr DType F16 = DType::f16, BF16 = DType::bf16, F32 = DType::f32, F64 = DType::f64,
                I1 = DType::i1, I32 = DType::i32, I64 = DType::i64;

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

using Vec = std::vector<double>;

// Sets an environment variable for a scope; unset again on the way out,
// also when a check throws.
struct ScopedEnvironment {
  ScopedEnvironment(const char* name, const std::string& value) : name(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() { ::unsetenv(name); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  const char* name;
};

//===----------------------------------------------------------------------===//
// Arrays <-> doubles
//===----------------------------------------------------------------------===//

/// Every element as a double (exact for all dtypes but i64 beyond 2^53).
inline Vec values(const Array& a) {
  return visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = a.data<T>();
    Vec out(static_cast<size_t>(a.size()));
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
        out[i] = p[i].to_float();
      else
        out[i] = static_cast<double>(p[i]);
    }
    return out;
  });
}

/// An array of `dtype` holding `v`: C++ conversions from double (f16/bf16
/// through float), i1 stores v != 0.
inline Array make(const Vec& v, Shape shape, DType dtype) {
  return visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> typed;
    for (double x : v) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
        typed.push_back(T::from_float(static_cast<float>(x)));
      else if constexpr (std::is_same_v<T, bool>)
        typed.push_back(x != 0);
      else
        typed.push_back(static_cast<T>(x));
    }
    return Array::from<T>(std::move(typed), shape);
  });
}

//===----------------------------------------------------------------------===//
// Row-major index arithmetic and elementwise references
//===----------------------------------------------------------------------===//

inline int64_t count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
inline std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}
inline int64_t ravel(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

/// sin(step * i + phase) for the i-th element of `shape`: deterministic
/// values in [-1, 1], no two neighbours alike, no symmetry to hide a
/// transposed index.
inline Vec sine_wave(const Shape& shape, double step, double phase) {
  Vec v(static_cast<size_t>(count(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(step * static_cast<double>(i) + phase);
  return v;
}

inline Vec map(const Vec& v, const std::function<double(double)>& f) {
  Vec out;
  for (double x : v) out.push_back(f(x));
  return out;
}
inline Vec zip(const Vec& a, const Vec& b, const std::function<double(double, double)>& f) {
  Vec out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back(f(a[i], b[i]));
  return out;
}

/// `v` (row-major, of shape `from`) broadcast numpy-style to `to`.
inline Vec broadcast_ref(const Vec& v, const Shape& from, const Shape& to) {
  Vec out(static_cast<size_t>(count(to)));
  size_t offset = to.size() - from.size();
  for (int64_t i = 0; i < count(to); ++i) {
    auto index = unravel(i, to);
    std::vector<int64_t> source(from.size());
    for (size_t d = 0; d < from.size(); ++d) source[d] = from[d] == 1 ? 0 : index[d + offset];
    out[i] = v[ravel(source, from)];
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Rounding into the float dtypes, exactly (reference side)
//===----------------------------------------------------------------------===//

struct FloatFormat {
  int precision;     // significand bits including the implicit one
  int min_exponent;  // exponent of the smallest normal number
  int max_exponent;  // exponent of the largest finite number
};
inline FloatFormat float_format(DType dtype) {
  switch (dtype) {
    case DType::f16: return {11, -14, 15};
    case DType::bf16: return {8, -126, 127};
    case DType::f32: return {24, -126, 127};
    case DType::f64: return {53, -1022, 1023};
    default: break;
  }
  throw std::logic_error("not a float dtype");
}

/// Rounds the exact value `x` once, to nearest with ties to even, into the
/// float `dtype` (with gradual underflow and overflow to infinity). A long
/// double (64-bit significand on x86-64) holds every double and every int64
/// exactly, so this is a correctly rounded reference for every conversion.
inline long double round_to_format(long double x, DType dtype) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  FloatFormat f = float_format(dtype);
  int exponent = std::ilogb(x);
  int quantum = std::max(exponent, f.min_exponent) - (f.precision - 1);
  long double scaled = std::scalbn(x, -quantum);  // exact
  long double rounded = std::scalbn(std::nearbyint(scaled), quantum);
  long double max_finite =
      std::scalbn(2.0L - std::scalbn(1.0L, 1 - f.precision), f.max_exponent);
  if (std::fabs(rounded) > max_finite) return std::copysign(INFINITY, x);
  return rounded;
}

/// The spacing of `dtype` at `x` (the unit in the last place of |x|'s binade;
/// the subnormal spacing below the normal range).
inline double ulp_of(double x, DType dtype) {
  FloatFormat f = float_format(dtype);
  int exponent = (x == 0 || !std::isfinite(x)) ? f.min_exponent : std::ilogb(x);
  return std::ldexp(1.0, std::max(exponent, f.min_exponent) - (f.precision - 1));
}

//===----------------------------------------------------------------------===//
// Comparisons: "" when everything matches, otherwise a readable report
//===----------------------------------------------------------------------===//

/// |got - want| <= rel * |want| + abs.
struct Tol {
  double rel = 0, abs = 0;
};
inline const Tol kExact{0, 0};

namespace detail {
/// "" when `got` has this dtype and shape and ok(got[i], want[i]) holds for
/// every element; otherwise the types, or how many elements differ (under
/// `rule`) and the first few.
template <class Ok>
std::string mismatch_report(const Array& got, DType dtype, const Shape& shape, const Vec& want,
                            Ok ok, const std::string& rule) {
  if (got.dtype() != dtype || got.shape() != shape)
    return "got " + type_string(got.dtype(), got.shape()) + ", want " + type_string(dtype, shape);
  Vec g = values(got);
  if (g.size() != want.size()) return "reference has the wrong size (test bug)";
  std::ostringstream s;
  s.precision(17);
  size_t bad = 0;
  for (size_t i = 0; i < g.size(); ++i)
    if (!ok(g[i], want[i]) && ++bad <= 6)
      s << "\n  [" << i << "] got " << g[i] << " want " << want[i];
  if (!bad) return "";
  return std::to_string(bad) + " of " + std::to_string(g.size()) + " elements differ (" + rule +
         "):" + s.str();
}
}  // namespace detail

/// Within `tol`; NaN matches only NaN, infinities only themselves.
inline std::string mismatch(const Array& got, DType dtype, const Shape& shape, const Vec& want,
                            Tol tol) {
  std::ostringstream rule;
  rule << "rel " << tol.rel << ", abs " << tol.abs;
  auto ok = [tol](double g, double w) {
    if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
    if (std::isinf(w) || std::isinf(g)) return g == w;
    return std::fabs(g - w) <= tol.rel * std::fabs(w) + tol.abs;
  };
  return detail::mismatch_report(got, dtype, shape, want, ok, rule.str());
}

/// One CHECK that `got` has `dtype` and `shape` and matches `want` within
/// `tol`; `label` names the result in the report.
#define CHECK_ARRAY(label, got, dtype, shape, want, tol)                            \
  do {                                                                              \
    INFO("result: " << (label));                                                    \
    CHECK(::adjit::test::mismatch((got), (dtype), (shape), (want), (tol)) == "");   \
  } while (0)
#define CHECK_EXACT(label, got, dtype, shape, want) \
  CHECK_ARRAY(label, got, dtype, shape, want, ::adjit::test::kExact)

//===----------------------------------------------------------------------===//
// Exceptions and messages
//===----------------------------------------------------------------------===//

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// How many times `what` occurs in `text` (overlapping ones too).
inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

template <class E>
const char* exception_name() {
  if constexpr (std::is_same_v<E, TraceError>) return "a TraceError";
  else if constexpr (std::is_same_v<E, Error>) return "an adjit::Error";
  else return "the expected exception";
}

/// The message of the `E` that `f` throws; "not <E>: <message>" for another
/// std::exception and "(no exception)" for none, which the caller's CHECK
/// then shows.
template <class E = std::exception>
std::string what_of(const std::function<void()>& f) {
  try {
    try {
      f();
    } catch (const E& e) {
      return e.what();
    }
  } catch (const std::exception& e) {  // not reached for E = std::exception
    return std::string("not ") + exception_name<E>() + ": " + e.what();
  }
  return "(no exception)";
}

/// The TraceError that `run` throws names each of `parts` and the test's
/// file (the user's line): one CHECK each.
inline void check_error(const std::function<void()>& run, const std::vector<std::string>& parts,
                        SourceLocation loc = SourceLocation::current()) {
  std::string message = what_of<TraceError>(run);
  std::string file = loc.file_name();
  INFO(message);
  for (const std::string& part : parts) CHECK(contains(message, part));
  CHECK(contains(message, file.substr(file.find_last_of('/') + 1)));
}

//===----------------------------------------------------------------------===//
// AD tests
//===----------------------------------------------------------------------===//

namespace ad {

/// Every check_grads goes through this one std::function type, so that
/// check_grads and its transforms are instantiated once.
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

/// A function of the check's arguments x[0], x[1], ...
#define FN(...) Fn([=](const std::vector<Tensor>& x) -> Tensor { return __VA_ARGS__; })

/// Within tol * (1 + |want|) of the reference (NaN never matches).
inline std::string mismatch(const Array& got, DType dtype, const Shape& shape, const Vec& want,
                            double tol = 1e-6) {
  std::ostringstream rule;
  rule << "tol " << tol << " * (1 + |want|)";
  auto ok = [tol](double g, double w) { return std::fabs(g - w) <= tol * (1 + std::fabs(w)); };
  return detail::mismatch_report(got, dtype, shape, want, ok, rule.str());
}
/// Same dtype, shape and values.
inline std::string mismatch(const Array& got, const Array& want, double tol = 1e-6) {
  return mismatch(got, want.dtype(), want.shape(), values(want), tol);
}

/// check_grads in both modes; on failure the report names the worst element.
/// (A template only so that files which never call it do not instantiate
/// check_grads; every caller passes an Fn.)
template <class F = Fn>
void expect_grads(const std::string& what, const F& f, const std::vector<Array>& args,
                  int order = 1, GradCheckOptions options = {}) {
  std::string arguments;
  for (const Array& a : args) arguments += " " + type_string(a.dtype(), a.shape());
  GradCheckReport report;
  try {
    report = check_grads(f, args, order, options);
  } catch (const std::exception& e) {
    FAIL_CHECK(what << " (" << arguments << "): threw " << e.what());
    return;
  }
  INFO(what << " (" << arguments << " ): " << report.summary());
  CHECK(report.checked > 0);
  CHECK(report);
}

/// A constant i32 vector, built while tracing.
inline Tensor ints(const std::vector<int>& v) {
  std::vector<Tensor> parts;
  for (int i : v) parts.push_back(full({1}, i, I32));
  return concat(parts, 0);
}

}  // namespace ad

}  // namespace adjit::test
