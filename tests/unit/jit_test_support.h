// Helpers for the JIT op and accuracy tests, on top of test_support.h:
// building small MLIR modules from types, compiling each distinct module
// once per test run, moving data between adjit::Array and long double
// vectors with exact rounding into every dtype, and tolerance checks on long
// doubles that describe the first mismatches in a readable way.
#pragma once

#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adjit/compiler/Program.h"
#include "adjit/runtime/Array.h"
#include "adjit/runtime/DType.h"

namespace adjit::jit_test {

// dtype shorthands, count/unravel/ravel, Tol, round_to_format, ulp_of, ...
using namespace adjit::test;

//===----------------------------------------------------------------------===//
// MLIR text
//===----------------------------------------------------------------------===//

/// "tensor<2x3xf32>", "tensor<f32>" for 0-d.
inline std::string tensor_type(DType dtype, const Shape& shape) {
  std::string out = "tensor<";
  for (int64_t n : shape) out += std::to_string(n) + "x";
  return out + std::string(dtype_name(dtype)) + ">";
}
inline std::string tensor_type(const TensorType& t) { return tensor_type(t.dtype, t.shape); }

/// "[1, 0, 2]" for dense i64 array attributes.
inline std::string int_list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

/// A public function `@name(%a0: ins[0], ...) -> (outs...)` whose `body`
/// defines %r0, %r1, ... (one per result).
inline std::string func_text(const std::vector<TensorType>& ins,
                             const std::vector<TensorType>& outs, const std::string& body,
                             const std::string& name = "f") {
  std::string text = "func.func @" + name + "(";
  for (size_t i = 0; i < ins.size(); ++i)
    text += (i ? ", " : "") + ("%a" + std::to_string(i) + ": ") + tensor_type(ins[i]);
  text += ") -> (";
  for (size_t i = 0; i < outs.size(); ++i) text += (i ? ", " : "") + tensor_type(outs[i]);
  text += ") {\n" + body + "  return ";
  for (size_t i = 0; i < outs.size(); ++i) text += (i ? ", %r" : "%r") + std::to_string(i);
  text += " : ";
  for (size_t i = 0; i < outs.size(); ++i) text += (i ? ", " : "") + tensor_type(outs[i]);
  return text + "\n}\n";
}

/// One op: `%r0 = <op>` where `op` refers to %a0, %a1, ...
inline std::string one_op(const std::vector<TensorType>& ins, const TensorType& out,
                          const std::string& op) {
  return func_text(ins, {out}, "  %r0 = " + op + "\n");
}

/// `adjit.<name> %a0 : T` for a unary elementwise op on `t`.
inline std::string unary_module(const std::string& name, DType dtype, const Shape& shape) {
  TensorType t{dtype, shape};
  return one_op({t}, t, "adjit." + name + " %a0 : " + tensor_type(t));
}
/// `adjit.<name> %a0, %a1 : T` for a binary elementwise op on `t`.
inline std::string binary_module(const std::string& name, DType dtype, const Shape& shape) {
  TensorType t{dtype, shape};
  return one_op({t, t}, t, "adjit." + name + " %a0, %a1 : " + tensor_type(t));
}

//===----------------------------------------------------------------------===//
// Compilation, cached per module text for the whole run
//===----------------------------------------------------------------------===//

/// Compiles `mlir` the first time it is seen; later calls (other sections,
/// other test cases) reuse the executable. A compile error fails the test
/// case with the diagnostic and the module text.
inline const Executable& jit(const std::string& mlir) {
  static std::map<std::string, std::unique_ptr<Executable>> cache;
  auto found = cache.find(mlir);
  if (found != cache.end()) return *found->second;
  std::unique_ptr<Executable> executable;
  std::string error;
  // Debugging aid: ADJIT_TEST_PRINT_MODULES=1 prints each module before it
  // is compiled (useful when the compiler crashes instead of throwing).
  if (std::getenv("ADJIT_TEST_PRINT_MODULES")) std::fprintf(stderr, "%s\n", mlir.c_str());
  try {
    executable = std::make_unique<Executable>(Program::parse(mlir).compile());
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!executable) FAIL("JIT compilation failed: " << error << "\nmodule:\n" << mlir);
  return *cache.emplace(mlir, std::move(executable)).first->second;
}

inline std::vector<Array> run(const std::string& mlir, const std::vector<Array>& inputs,
                              const std::string& entry = "f") {
  const Executable& executable = jit(mlir);
  std::vector<Array> outputs;
  std::string error;
  try {
    outputs = executable.run(entry, inputs);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) FAIL("run failed: " << error << "\nmodule:\n" << mlir);
  return outputs;
}
inline Array run1(const std::string& mlir, const std::vector<Array>& inputs) {
  return run(mlir, inputs).at(0);
}

/// Several test functions compiled as one module (one compile instead of
/// many; each function still gets its own inputs and checks). Add cases,
/// then run_all() compiles once and runs every case with its INFO text.
class Batch {
 public:
  using Check = std::function<void(const std::vector<Array>&)>;

  void add(const std::vector<TensorType>& ins, const std::vector<TensorType>& outs,
           const std::string& body, std::vector<Array> inputs, std::string info, Check check) {
    std::string entry = "c" + std::to_string(cases_.size());
    module_ += func_text(ins, outs, body, entry);
    cases_.push_back({entry, std::move(inputs), std::move(info), std::move(check)});
  }
  /// One op `%r0 = <op>` with one result; the op text is the INFO text.
  void add_op(const std::vector<TensorType>& ins, const TensorType& out, const std::string& op,
              std::vector<Array> inputs, Check check) {
    add(ins, {out}, "  %r0 = " + op + "\n", std::move(inputs), op, std::move(check));
  }
  void run_all() const {
    if (cases_.empty()) return;
    for (const Case& c : cases_) {
      INFO(c.info);
      c.check(run(module_, c.inputs, c.entry));
    }
  }
  const std::string& module() const { return module_; }

 private:
  struct Case {
    std::string entry;
    std::vector<Array> inputs;
    std::string info;
    Check check;
  };
  std::string module_;
  std::vector<Case> cases_;
};

//===----------------------------------------------------------------------===//
// Array <-> numbers
//===----------------------------------------------------------------------===//

template <class T>
long double element_value(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
    return v.to_float();
  else
    return static_cast<long double>(v);
}

/// Every element as a long double (exact for all dtypes).
inline std::vector<long double> to_long_doubles(const Array& a) {
  return visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = a.data<T>();
    std::vector<long double> out(static_cast<size_t>(a.size()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = element_value(p[i]);
    return out;
  });
}

/// Stores exact values into `dtype`: floats round once to nearest even;
/// integers must be integral and in range; i1 stores value != 0.
template <class T>
T store_value(long double v) {
  if constexpr (std::is_same_v<T, half>)
    return half::from_float(static_cast<float>(round_to_format(v, DType::f16)));
  else if constexpr (std::is_same_v<T, bfloat16>)
    return bfloat16::from_float(static_cast<float>(round_to_format(v, DType::bf16)));
  else if constexpr (std::is_same_v<T, bool>)
    return v != 0;
  else
    return static_cast<T>(v);
}

inline Array from_long_doubles(const std::vector<long double>& values, Shape shape,
                               DType dtype) {
  return visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> typed;
    typed.reserve(values.size());
    for (long double v : values) typed.push_back(store_value<T>(v));
    return Array::from<T>(std::move(typed), std::move(shape));
  });
}
inline Array from_doubles(const std::vector<double>& values, Shape shape, DType dtype) {
  return from_long_doubles(std::vector<long double>(values.begin(), values.end()),
                           std::move(shape), dtype);
}

/// The value `v` would have once stored in `dtype` (round trip through it).
inline double representable(double v, DType dtype) {
  return static_cast<double>(to_long_doubles(from_doubles({v}, {}, dtype))[0]);
}

//===----------------------------------------------------------------------===//
// Random data (deterministic per seed)
//===----------------------------------------------------------------------===//

inline std::vector<double> uniform_values(size_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) v = dist(rng);
  return out;
}
inline std::vector<double> integer_values(size_t n, int64_t lo, int64_t hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) v = static_cast<double>(dist(rng));
  return out;
}

//===----------------------------------------------------------------------===//
// Comparisons: an empty string means "all match"; otherwise the text names
// how many elements differ and shows the first few, so a failing
// CHECK(report.empty()) says everything needed to reproduce.
//===----------------------------------------------------------------------===//

inline std::string number(long double v) {
  std::ostringstream s;
  s.precision(21);
  s << v;
  return s.str();
}

/// `got` against `want`, element by element: NaN matches only NaN, infinities
/// only themselves; finite values within the tolerance. With an all-zero
/// tolerance the values must be identical, including the sign of zero.
inline std::string compare(const std::vector<long double>& got,
                           const std::vector<long double>& want, Tol tol = {},
                           const std::vector<long double>& inputs = {},
                           const std::vector<long double>& inputs2 = {}) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + " != expected " + std::to_string(want.size());
  bool exact = tol.rel == 0 && tol.abs == 0;
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i) {
    long double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g))
      ok = std::isnan(w) && std::isnan(g);
    else if (std::isinf(w) || std::isinf(g))
      ok = g == w;
    else if (exact)
      ok = g == w && std::signbit(g) == std::signbit(w);
    else
      ok = std::fabs(g - w) <= tol.rel * std::fabs(w) + tol.abs;
    if (ok) continue;
    if (++bad <= 6) {
      first += "\n  [" + std::to_string(i) + "]";
      if (i < inputs.size()) first += " x=" + number(inputs[i]);
      if (i < inputs2.size()) first += " y=" + number(inputs2[i]);
      first += " got " + number(g) + " want " + number(w);
      if (std::isfinite(g) && std::isfinite(w) && w != 0)
        first += " (rel err " + number(std::fabs(g - w) / std::fabs(w)) + ")";
    }
  }
  if (bad == 0) return "";
  std::ostringstream s;
  s << bad << " of " << got.size() << " elements differ (rel tol " << tol.rel << ", abs tol "
    << tol.abs << "):" << first;
  return s.str();
}

template <class T>
std::vector<long double> widen_all(const std::vector<T>& v) {
  return std::vector<long double>(v.begin(), v.end());
}

inline std::string compare(const Array& got, const std::vector<long double>& want,
                           Tol tol = {}, const std::vector<long double>& inputs = {},
                           const std::vector<long double>& inputs2 = {}) {
  if (is_floating(got.dtype())) return compare(to_long_doubles(got), want, tol, inputs, inputs2);
  // Integers have no negative zero: a reference computed as -0.0 means 0.
  std::vector<long double> normalized(want);
  for (long double& w : normalized)
    if (w == 0) w = 0;
  return compare(to_long_doubles(got), normalized, tol, inputs, inputs2);
}
inline std::string compare(const Array& got, const std::vector<double>& want,
                           Tol tol = {}, const std::vector<double>& inputs = {},
                           const std::vector<double>& inputs2 = {}) {
  return compare(got, widen_all(want), tol, widen_all(inputs), widen_all(inputs2));
}


/// `got` (a float dtype) against exact reference values `want`: each must be
/// within `max_ulps` units of `got.dtype()` at the reference value of
/// round(want) (NaN and infinities exactly as in round(want)).
inline std::string compare_ulps(const Array& got, const std::vector<long double>& want,
                                double max_ulps, const std::vector<long double>& inputs = {},
                                const std::vector<long double>& inputs2 = {}) {
  std::vector<long double> g = to_long_doubles(got);
  if (g.size() != want.size())
    return "size " + std::to_string(g.size()) + " != expected " + std::to_string(want.size());
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < g.size(); ++i) {
    long double w = round_to_format(want[i], got.dtype());
    bool ok;
    if (std::isnan(w) || std::isnan(g[i]))
      ok = std::isnan(w) && std::isnan(g[i]);
    else if (std::isinf(w) || std::isinf(g[i]))
      ok = g[i] == w;
    else
      ok = std::fabs(g[i] - w) <= max_ulps * ulp_of(static_cast<double>(w), got.dtype());
    if (ok) continue;
    if (++bad <= 6) {
      first += "\n  [" + std::to_string(i) + "]";
      if (i < inputs.size()) first += " x=" + number(inputs[i]);
      if (i < inputs2.size()) first += " y=" + number(inputs2[i]);
      first += " got " + number(g[i]) + " want " + number(w) + " (exact " + number(want[i]) + ")";
    }
  }
  if (bad == 0) return "";
  std::ostringstream s;
  s << bad << " of " << g.size() << " elements differ by more than " << max_ulps << " ulp of "
    << dtype_name(got.dtype()) << ":" << first;
  return s.str();
}

/// The MLIR literal of an array's exact contents: `dense<[...]> : tensor<...>`,
/// floats as bit patterns (0x...) so NaN, -0 and every rounding survive.
/// Rank 0 or 1 only (MLIR wants nested brackets for higher ranks).
inline std::string dense_literal(const Array& a) {
  if (a.rank() > 1) throw std::logic_error("dense_literal: rank <= 1 only");
  std::ostringstream s;
  s << "dense<";
  if (a.rank() > 0) s << "[";
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = a.data<T>();
    for (int64_t i = 0; i < a.size(); ++i) {
      if (i) s << ", ";
      if constexpr (std::is_same_v<T, bool>) {
        s << (p[i] ? "true" : "false");
      } else if constexpr (std::is_integral_v<T>) {
        s << static_cast<long long>(p[i]);
      } else {
        uint64_t bits = 0;
        std::memcpy(&bits, &p[i], sizeof(T));
        char buffer[24];
        std::snprintf(buffer, sizeof buffer, "0x%0*llX", static_cast<int>(2 * sizeof(T)),
                      static_cast<unsigned long long>(bits));
        s << buffer;
      }
    }
  });
  if (a.rank() > 0) s << "]";
  s << "> : " << tensor_type(a.dtype(), a.shape());
  return s.str();
}

/// Checks dtype and shape of `got` before its values.
#define ADJIT_CHECK_TYPE(got, dtype_, shape_) \
  do {                                        \
    CHECK((got).dtype() == (dtype_));         \
    CHECK((got).shape() == (shape_));         \
  } while (0)

/// A Batch check: the result has `dtype` and `shape` and its values match
/// `want` as compare() sees it (bit for bit unless `tol` says otherwise;
/// `inputs` and `inputs2` appear next to the first mismatches).
inline Batch::Check expect_result(DType dtype, Shape shape, std::vector<long double> want,
                                  Tol tol = {}, std::vector<long double> inputs = {},
                                  std::vector<long double> inputs2 = {}) {
  return [=](const std::vector<Array>& r) {
    ADJIT_CHECK_TYPE(r[0], dtype, shape);
    CHECK(compare(r[0], want, tol, inputs, inputs2) == "");
  };
}

}  // namespace adjit::jit_test
