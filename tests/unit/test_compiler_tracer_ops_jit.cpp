// Every op of adjit/Tensor.h, traced and compiled through adjit::jit, run on
// random data (fixed seeds) in f32 and f64 and compared with a plain C++
// reference computed in double precision from the exact input values.
//
// Several ops share one jitted function (each result is checked under its
// own name), so the suite compiles a few dozen functions in all. No function
// returns one of its arguments unchanged, or the same value twice (also not
// after CSE, e.g. `a + 2.0` next to `2.0 + a`): both used to crash the
// bufferized stage (tests/ir/pipeline-return-aliases.mlir) and are covered
// on their own, in a child process, in test_compiler_tracer_jit.cpp.
//
// Tolerances (|got - want| <= rel * |want| + abs):
//   - correctly rounded ops (+ - * / with tensors or exactly representable
//     scalars, neg, abs, sign, floor, sqrt, square, relu, maximum, minimum,
//     where, data movement, casts): rel 2^-23 (f32) / 2^-52 (f64), abs 0;
//   - transcendentals and pow: rel 1e-6, abs 1e-6 (f32) / rel 1e-12,
//     abs 1e-14 (f64); composites (gelu, sigmoid, rsqrt, softmax,
//     log_softmax, logsumexp): rel 4e-6, abs 2e-6 (f32) / rel 1e-12,
//     abs 1e-13 (f64);
//   - reductions and matmul (terms of size O(1), at most 24 terms):
//     rel 1e-5, abs 1e-5 (f32) / rel 1e-12, abs 1e-12 (f64);
//   - comparisons, logical ops, argmax, integer ops: exact.
#include "test_support.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;

namespace {

Tol exact_tol(DType dt) { return dt == F32 ? Tol{0x1p-23, 0} : Tol{0x1p-52, 0}; }
Tol transcendental_tol(DType dt) { return dt == F32 ? Tol{1e-6, 1e-6} : Tol{1e-12, 1e-14}; }
Tol composite_tol(DType dt) { return dt == F32 ? Tol{4e-6, 2e-6} : Tol{1e-12, 1e-13}; }
Tol accumulate_tol(DType dt) { return dt == F32 ? Tol{1e-5, 1e-5} : Tol{1e-12, 1e-12}; }

// Row-major nd references -------------------------------------------------------

std::vector<bool> reduced_dims(size_t rank, std::vector<int> axes) {
  std::vector<bool> reduced(rank, axes.empty());
  for (int a : axes) reduced[a < 0 ? a + rank : a] = true;
  return reduced;
}

// kind: '+' sum, '>' max, '<' min. Results in row-major order of kept dims.
Vec reduce_ref(const Vec& v, const Shape& shape, std::vector<int> axes, char kind) {
  auto reduced = reduced_dims(shape.size(), axes);
  Shape kept = shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) kept[d] = 1;
  double init = kind == '+' ? 0 : kind == '>' ? -kInf : kInf;
  Vec out(static_cast<size_t>(count(kept)), init);
  for (int64_t i = 0; i < count(shape); ++i) {
    auto index = unravel(i, shape);
    for (size_t d = 0; d < shape.size(); ++d)
      if (reduced[d]) index[d] = 0;
    double& o = out[ravel(index, kept)];
    o = kind == '+' ? o + v[i] : kind == '>' ? std::max(o, v[i]) : std::min(o, v[i]);
  }
  return out;
}
Shape reduce_shape(const Shape& shape, std::vector<int> axes, bool keepdims) {
  auto reduced = reduced_dims(shape.size(), axes);
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) out.push_back(shape[d]);
    else if (keepdims) out.push_back(1);
  return out;
}
Vec argmax_ref(const Vec& v, const Shape& shape, int axis) {
  if (axis < 0) axis += static_cast<int>(shape.size());
  Shape kept = shape;
  kept[axis] = 1;
  Vec best(static_cast<size_t>(count(kept)), -kInf), arg(best.size(), 0);
  for (int64_t i = 0; i < count(shape); ++i) {
    auto index = unravel(i, shape);
    int64_t position = index[axis];
    index[axis] = 0;
    int64_t o = ravel(index, kept);
    if (v[i] > best[o]) best[o] = v[i], arg[o] = static_cast<double>(position);
  }
  return arg;
}
Vec logsumexp_ref(const Vec& v, const Shape& shape, std::vector<int> axes) {
  Vec m = reduce_ref(v, shape, axes, '>');
  auto reduced = reduced_dims(shape.size(), axes);
  Shape kept = shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) kept[d] = 1;
  Vec shift = map(m, [](double x) { return std::isfinite(x) ? x : 0.0; });
  Vec total(m.size(), 0.0);
  for (int64_t i = 0; i < count(shape); ++i) {
    auto index = unravel(i, shape);
    for (size_t d = 0; d < shape.size(); ++d)
      if (reduced[d]) index[d] = 0;
    int64_t o = ravel(index, kept);
    total[o] += std::exp(v[i] - shift[o]);
  }
  return zip(total, shift, [](double t, double s) { return std::log(t) + s; });
}
// log_softmax along one axis (softmax = exp of it).
Vec log_softmax_ref(const Vec& v, const Shape& shape, int axis) {
  Vec lse = logsumexp_ref(v, shape, {axis});
  Shape kept = shape;
  kept[axis < 0 ? axis + shape.size() : axis] = 1;
  Vec b = broadcast_ref(lse, kept, shape);
  return zip(v, b, [](double x, double l) { return x - l; });
}

// numpy.matmul, with 1-D promotion and batch broadcasting.
std::pair<Vec, Shape> matmul_ref(const Vec& a, Shape as, const Vec& b, Shape bs) {
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as = {1, as[0]};
  if (b_vec) bs = {bs[0], 1};
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  size_t rank = std::max(ab.size(), bb.size());
  Shape batch(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - ab.size() ? 1 : ab[i - (rank - ab.size())];
    int64_t db = i < rank - bb.size() ? 1 : bb[i - (rank - bb.size())];
    batch[i] = da == 1 ? db : da;
  }
  Shape full_a = batch, full_b = batch, full_c = batch;
  full_a.insert(full_a.end(), {m, k});
  full_b.insert(full_b.end(), {k, n});
  full_c.insert(full_c.end(), {m, n});
  Vec A = broadcast_ref(a, as, full_a), B = broadcast_ref(b, bs, full_b);
  Vec C(static_cast<size_t>(count(full_c)), 0.0);
  for (int64_t p = 0; p < count(batch); ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l) s += A[(p * m + i) * k + l] * B[(p * k + l) * n + j];
        C[(p * m + i) * n + j] = s;
      }
  Shape result = batch;
  if (!a_vec) result.push_back(m);
  if (!b_vec) result.push_back(n);
  return {C, result};
}

Vec transpose_ref(const Vec& v, const Shape& shape, std::vector<int> perm, Shape& out_shape) {
  out_shape.clear();
  for (int p : perm) out_shape.push_back(shape[p]);
  Vec out(v.size());
  for (int64_t i = 0; i < count(out_shape); ++i) {
    auto o = unravel(i, out_shape);
    std::vector<int64_t> in(shape.size());
    for (size_t d = 0; d < perm.size(); ++d) in[perm[d]] = o[d];
    out[i] = v[ravel(in, shape)];
  }
  return out;
}

Vec slice_ref(const Vec& v, const Shape& shape, const Shape& starts, const Shape& limits,
              const Shape& strides, Shape& out_shape) {
  out_shape.clear();
  for (size_t d = 0; d < shape.size(); ++d)
    out_shape.push_back((limits[d] - starts[d] + strides[d] - 1) / strides[d]);
  Vec out;
  for (int64_t i = 0; i < count(out_shape); ++i) {
    auto o = unravel(i, out_shape);
    for (size_t d = 0; d < shape.size(); ++d) o[d] = starts[d] + o[d] * strides[d];
    out.push_back(v[ravel(o, shape)]);
  }
  return out;
}

Vec take_ref(const Vec& v, const Shape& shape, const Vec& indices, const Shape& index_shape,
             int axis, Shape& out_shape) {
  out_shape.assign(shape.begin(), shape.begin() + axis);
  out_shape.insert(out_shape.end(), index_shape.begin(), index_shape.end());
  out_shape.insert(out_shape.end(), shape.begin() + axis + 1, shape.end());
  Vec out;
  size_t ir = index_shape.size();
  for (int64_t i = 0; i < count(out_shape); ++i) {
    auto o = unravel(i, out_shape);
    std::vector<int64_t> idx(o.begin() + axis, o.begin() + axis + ir);
    int64_t k = static_cast<int64_t>(indices[ravel(idx, index_shape)]);
    if (k < 0) k += shape[axis];  // from the end
    k = std::clamp<int64_t>(k, 0, shape[axis] - 1);
    std::vector<int64_t> in(o.begin(), o.begin() + axis);
    in.push_back(k);
    in.insert(in.end(), o.begin() + axis + ir, o.end());
    out.push_back(v[ravel(in, shape)]);
  }
  return out;
}

Vec cat(std::initializer_list<Vec> parts) {
  Vec out;
  for (const Vec& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double gelu_erf_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double sign_ref(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

}  // namespace

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

TEST_CASE("tracer ops: elementwise unary ops match a double reference (f32, f64)",
          "[tracer][ops]") {
  // x: general values; p: positive; u: > -1 (log1p); s: hand-picked values
  // around the steps of sign/floor/relu/abs.
  auto f = adjit::jit(
      [](Tensor x, Tensor p, Tensor u, Tensor s) {
        return std::vector<Tensor>{
            exp(x),           log(p),           log1p(u),          expm1(x),
            sqrt(p),          rsqrt(p),         square(x),         abs(x),
            sign(x),          floor(x),         sin(x),            cos(x),
            tanh(x),          sigmoid(x),       relu(x),           erf(x),
            gelu(s),          gelu(x, true),    gelu(x, false),    -x,
            stop_gradient(x * 3.0), abs(s),     sign(s),           floor(s),
            relu(s),          -s,               square(s)};
      },
      {.name = "unary"});

  const Shape shape{4, 6};
  const Shape special_shape{10};
  const Vec special{-2.5, -1.0, -0.75, -0.0, 0.0, 0.25, 1.0, 1.5, 3.0, 7.75};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::uniform(shape, 101, -4, 4, dt);
    Array p = Array::uniform(shape, 102, 0.05, 5, dt);
    Array u = Array::uniform(shape, 103, -0.9, 3, dt);
    Array s = make(special, special_shape, dt);
    std::vector<Array> r = f(x, p, u, s);
    REQUIRE(r.size() == 27);
    Vec X = values(x), P = values(p), U = values(u), S = values(s);
    Tol ex = exact_tol(dt), tr = transcendental_tol(dt), co = composite_tol(dt);
    auto check = [&](int i, const char* name, const Vec& in, const Shape& sh,
                     double (*ref)(double), Tol tol) {
      CHECK_ARRAY(name, r[i], dt, sh, map(in, ref), tol);
    };
    check(0, "exp(x)", X, shape, [](double v) { return std::exp(v); }, tr);
    check(1, "log(p)", P, shape, [](double v) { return std::log(v); }, tr);
    check(2, "log1p(u)", U, shape, [](double v) { return std::log1p(v); }, tr);
    check(3, "expm1(x)", X, shape, [](double v) { return std::expm1(v); }, tr);
    check(4, "sqrt(p)", P, shape, [](double v) { return std::sqrt(v); }, ex);
    check(5, "rsqrt(p)", P, shape, [](double v) { return 1 / std::sqrt(v); }, co);
    check(6, "square(x)", X, shape, [](double v) { return v * v; }, ex);
    check(7, "abs(x)", X, shape, [](double v) { return std::fabs(v); }, kExact);
    check(8, "sign(x)", X, shape, sign_ref, kExact);
    check(9, "floor(x)", X, shape, [](double v) { return std::floor(v); }, kExact);
    check(10, "sin(x)", X, shape, [](double v) { return std::sin(v); }, tr);
    check(11, "cos(x)", X, shape, [](double v) { return std::cos(v); }, tr);
    check(12, "tanh(x)", X, shape, [](double v) { return std::tanh(v); }, tr);
    check(13, "sigmoid(x)", X, shape, sigmoid_ref, co);
    check(14, "relu(x)", X, shape, [](double v) { return std::max(v, 0.0); }, kExact);
    check(15, "erf(x)", X, shape, [](double v) { return std::erf(v); }, tr);
    check(16, "gelu(s) (default: tanh approximation)", S, special_shape, gelu_tanh_ref, co);
    check(17, "gelu(x, tanh_approx=true)", X, shape, gelu_tanh_ref, co);
    check(18, "gelu(x, tanh_approx=false)", X, shape, gelu_erf_ref, co);
    check(19, "-x", X, shape, [](double v) { return -v; }, kExact);
    check(20, "stop_gradient(x * 3.0)", X, shape, [](double v) { return v * 3; }, ex);
    check(21, "abs(s)", S, special_shape, [](double v) { return std::fabs(v); }, kExact);
    check(22, "sign(s)", S, special_shape, sign_ref, kExact);
    check(23, "floor(s)", S, special_shape, [](double v) { return std::floor(v); }, kExact);
    check(24, "relu(s)", S, special_shape, [](double v) { return std::max(v, 0.0); }, kExact);
    check(25, "-s", S, special_shape, [](double v) { return -v; }, kExact);
    check(26, "square(s)", S, special_shape, [](double v) { return v * v; }, kExact);
  }
  CHECK(f.cache_info().misses == 2);
}

TEST_CASE("tracer ops: integer_pow against exact powers (f16, f32, f64, i32, i64), its errors",
          "[tracer][ops]") {
  // x^n for each of `exponents`, as one jitted function.
  auto powers = [](std::vector<int64_t> exponents) {
    return adjit::jit([exponents](Tensor x) {
      std::vector<Tensor> out;
      for (int64_t n : exponents) out.push_back(integer_pow(x, n));
      return out;
    });
  };
  const std::vector<int64_t> float_exponents = {-3, -2, -1, 0, 1, 2, 3, 4, 5, 7, 12};
  auto float_powers = powers(float_exponents);
  const Shape shape{3, 5};
  for (DType dt : {F16, F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    // Magnitudes 0.3 .. 2.4, every other one negative: odd powers keep the sign.
    Vec bases;
    for (int i = 0; i < 15; ++i) bases.push_back((i % 2 ? -1 : 1) * (0.3 + 0.15 * i));
    Array x = make(bases, shape, dt);
    std::vector<Array> r = float_powers(x);
    REQUIRE(r.size() == float_exponents.size());
    Vec X = values(x);
    // At most 6 roundings of the compute type (f32 for f16) in x^12 and
    // x^-3, plus the one into f16 (0.3^12 is subnormal there).
    double eps = dt == F64 ? 0x1p-53 : 0x1p-24;
    Tol tol{8 * eps + (dt == F16 ? 0x1p-11 : 0), dt == F16 ? 0x1p-24 : 0};  // f16's subnormal spacing
    for (size_t i = 0; i < float_exponents.size(); ++i) {
      int64_t n = float_exponents[i];
      Vec want = map(X, [n](double v) {
        return static_cast<double>(std::pow(static_cast<long double>(v), n));
      });
      CHECK_ARRAY("x^" + std::to_string(n), r[i], dt, shape, want, n == 0 || n == 1 ? kExact : tol);
    }
  }

  // Integers wrap around as C++'s unsigned arithmetic does.
  const std::vector<int64_t> int_exponents = {0, 1, 2, 3, 9, 12, 21};
  auto int_powers = powers(int_exponents);
  for (DType dt : {I32, I64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::uniform(shape, 302, -9, 10, dt);
    std::vector<Array> r = int_powers(x);
    Vec X = values(x);
    for (size_t i = 0; i < int_exponents.size(); ++i) {
      int64_t n = int_exponents[i];
      Vec want = map(X, [n, dt](double v) {
        uint64_t power = 1, base = static_cast<uint64_t>(static_cast<int64_t>(v));
        for (int64_t k = 0; k < n; ++k) power *= base;
        return dt == I32 ? static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(power)))
                         : static_cast<double>(static_cast<int64_t>(power));
      });
      CHECK_EXACT("x^" + std::to_string(n), r[i], dt, shape, want);
    }
  }

  std::string e = what_of<TraceError>(
      [] { jit([](Tensor i) { return integer_pow(i, -1); })(Array::uniform({3}, 1, 1, 4, I32)); });
  INFO(e);
  for (const char* part : {"adjit::integer_pow", "i32[3]", "negative power -1",
                           "test_compiler_tracer_ops_jit.cpp:"})
    CHECK(contains(e, part));
  // pow with a negative integer literal, as numpy and JAX: refused for integers.
  e = what_of<TraceError>(
      [] { jit([](Tensor i) { return pow(i * 2, -1); })(Array::uniform({3}, 1, 1, 4, I32)); });
  INFO(e);
  for (const char* part : {"adjit::pow", "i32[3]", "negative power -1",
                           "test_compiler_tracer_ops_jit.cpp:"})
    CHECK(contains(e, part));
  CHECK(jit([](Tensor x) { return pow(x, -1); })(Array::full({2}, 4.0)).to_vector<float>() ==
        std::vector<float>{0.25f, 0.25f});
  e = what_of<TraceError>(
      [] { jit([](Tensor v) { return integer_pow(v > 0.0, 2); })(Array::uniform({2}, 1)); });
  INFO(e);
  CHECK(contains(e, "adjit::integer_pow"));
  CHECK(contains(e, "bool"));
}

TEST_CASE("tracer ops: pow by 2, -1 and 0 at C pow's special values",
          "[tracer][ops]") {
  auto f = adjit::jit([](Tensor x) {
    return std::vector<Tensor>{pow(x, 2.0), pow(x, -1.0), pow(x, 0.0)};
  });
  const Vec specials{-0.0, 0.0, INFINITY, -INFINITY, NAN, -1.5, 3.0, 1e-30};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = make(specials, {8}, dt);
    std::vector<Array> r = f(x);
    Vec X = values(x);
    for (int i = 0; i < 3; ++i) {
      double n = std::array{2.0, -1.0, 0.0}[i];
      // C's pow: (-0)^-1 = -inf, (-inf)^2 = inf, NaN^0 = 1; 1e-30^2
      // underflows in f32. (LLVM computes x^2 as x * x and x^-1 as 1 / x.)
      Vec want = map(X, [n, dt](double v) {
        return static_cast<double>(round_to_format(std::pow(v, n), dt));
      });
      CHECK_ARRAY("pow(x, " + std::to_string(n) + ")", r[i], dt, Shape{8}, want, kExact);
    }
  }
}

//===----------------------------------------------------------------------===//
// Elementwise binary, comparisons, logical ops, where
//===----------------------------------------------------------------------===//

TEST_CASE("tracer ops: arithmetic operators, scalars on either side, pow/maximum/minimum",
          "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor a, Tensor b, Tensor q) {
        return std::vector<Tensor>{
            a + b,        a - b,        a * b,         a / q,          // 0-3
            a + 2.0,      2.25 + a,     a - 1.5,       1.5 - a,        // 4-7
            a * 3.0,      3.5 * a,      a / 4.0,       4.0 / q,        // 8-11
            a + 5,        7 - a,        6 * a,         a / 8,          // 12-15
            a * 2.5f,     a + int64_t{3}, pow(q, b),   pow(q, 2.0),    // 16-19
            pow(2.0, a),  pow(q, 0.5),  maximum(a, b), minimum(a, b),  // 20-23
            maximum(a, 0.5), minimum(-1, a), where(a < b, a, b),       // 24-26
            where(a > 0.0, a, 0.0), where(a > b, 1.0, -1.0),           // 27-28
            3 / q,        a - int64_t{4}};                               // 29-30
      },
      {.name = "binary"});
  const Shape shape{3, 4};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array a = Array::uniform(shape, 201, -3, 3, dt);
    Array b = Array::uniform(shape, 202, -3, 3, dt);
    Array q = Array::uniform(shape, 203, 0.5, 2, dt);
    std::vector<Array> r = f(a, b, q);
    REQUIRE(r.size() == 31);
    Vec A = values(a), B = values(b), Q = values(q);
    Tol ex = exact_tol(dt), tr = transcendental_tol(dt);
    auto check1 = [&](int i, const char* name, const Vec& in, auto ref, Tol tol) {
      CHECK_ARRAY(name, r[i], dt, shape, map(in, ref), tol);
    };
    auto check2 = [&](int i, const char* name, const Vec& x, const Vec& y, auto ref, Tol tol) {
      CHECK_ARRAY(name, r[i], dt, shape, zip(x, y, ref), tol);
    };
    check2(0, "a + b", A, B, [](double x, double y) { return x + y; }, ex);
    check2(1, "a - b", A, B, [](double x, double y) { return x - y; }, ex);
    check2(2, "a * b", A, B, [](double x, double y) { return x * y; }, ex);
    check2(3, "a / q", A, Q, [](double x, double y) { return x / y; }, ex);
    check1(4, "a + 2.0", A, [](double x) { return x + 2.0; }, ex);
    check1(5, "2.25 + a", A, [](double x) { return 2.25 + x; }, ex);
    check1(6, "a - 1.5", A, [](double x) { return x - 1.5; }, ex);
    check1(7, "1.5 - a", A, [](double x) { return 1.5 - x; }, ex);
    check1(8, "a * 3.0", A, [](double x) { return x * 3.0; }, ex);
    check1(9, "3.5 * a", A, [](double x) { return 3.5 * x; }, ex);
    check1(10, "a / 4.0", A, [](double x) { return x / 4.0; }, ex);
    check1(11, "4.0 / q", Q, [](double x) { return 4.0 / x; }, ex);
    check1(12, "a + 5 (int)", A, [](double x) { return x + 5; }, ex);
    check1(13, "7 - a (int)", A, [](double x) { return 7 - x; }, ex);
    check1(14, "6 * a (int)", A, [](double x) { return 6 * x; }, ex);
    check1(15, "a / 8 (int)", A, [](double x) { return x / 8; }, ex);
    check1(16, "a * 2.5f (float)", A, [](double x) { return x * 2.5; }, ex);
    check1(17, "a + int64_t{3}", A, [](double x) { return x + 3; }, ex);
    check2(18, "pow(q, b)", Q, B, [](double x, double y) { return std::pow(x, y); }, tr);
    check1(19, "pow(q, 2.0)", Q, [](double x) { return x * x; }, tr);
    check1(20, "pow(2.0, a)", A, [](double x) { return std::pow(2.0, x); }, tr);
    check1(21, "pow(q, 0.5)", Q, [](double x) { return std::sqrt(x); }, tr);
    check2(22, "maximum(a, b)", A, B, [](double x, double y) { return std::max(x, y); }, kExact);
    check2(23, "minimum(a, b)", A, B, [](double x, double y) { return std::min(x, y); }, kExact);
    check1(24, "maximum(a, 0.5)", A, [](double x) { return std::max(x, 0.5); }, kExact);
    check1(25, "minimum(-1, a)", A, [](double x) { return std::min(-1.0, x); }, kExact);
    check2(26, "where(a < b, a, b)", A, B, [](double x, double y) { return x < y ? x : y; },
           kExact);
    check1(27, "where(a > 0.0, a, 0.0)", A, [](double x) { return x > 0 ? x : 0.0; }, kExact);
    // Two weak scalars and no tensor value: f32, as jnp.where(c, 1.0, -1.0).
    CHECK_ARRAY("where(a > b, 1.0, -1.0)", r[28], F32, shape,
                zip(A, B, [](double x, double y) { return x > y ? 1.0 : -1.0; }), kExact);
    check1(29, "3 / q (int)", Q, [](double x) { return 3 / x; }, ex);
    check1(30, "a - int64_t{4}", A, [](double x) { return x - 4; }, ex);
  }
}

TEST_CASE("tracer ops: comparisons and logical ops give bool tensors", "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor a, Tensor b, Tensor c) {
        return std::vector<Tensor>{
            a < b,         a <= c,         a > b,          a >= c,          // 0-3
            a < 0.5,       0.5 < a,        a >= 0,         equal(a, c),     // 4-7
            not_equal(a, c), equal(a, 1.0), logical_and(a < b, a > 0.0),   // 8-10
            logical_or(a < b, a > 0.0), logical_not(a < b), a <= b};        // 11-13
      },
      {.name = "compare"});
  const Shape shape{3, 4};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array a = Array::uniform(shape, 301, -3, 3, dt);
    Vec A = values(a);
    A[5] = 1.0;  // for equal(a, 1.0)
    a = make(A, shape, dt);
    Array b = Array::uniform(shape, 302, -3, 3, dt);
    Vec B = values(b);
    B[2] = A[2];  // ties for <=, >=
    b = make(B, shape, dt);
    Vec C = B;
    for (size_t i = 0; i < C.size(); i += 2) C[i] = A[i];  // half equal to a
    Array c = make(C, shape, dt);
    std::vector<Array> r = f(a, b, c);
    REQUIRE(r.size() == 14);
    auto check = [&](int i, const char* name, auto ref) {
      Vec want;
      for (size_t k = 0; k < A.size(); ++k) want.push_back(ref(A[k], B[k], C[k]) ? 1.0 : 0.0);
      CHECK_ARRAY(name, r[i], I1, shape, want, kExact);
    };
    check(0, "a < b", [](double x, double y, double) { return x < y; });
    check(1, "a <= c", [](double x, double, double z) { return x <= z; });
    check(2, "a > b", [](double x, double y, double) { return x > y; });
    check(3, "a >= c", [](double x, double, double z) { return x >= z; });
    check(4, "a < 0.5", [](double x, double, double) { return x < 0.5; });
    check(5, "0.5 < a", [](double x, double, double) { return 0.5 < x; });
    check(6, "a >= 0", [](double x, double, double) { return x >= 0; });
    check(7, "equal(a, c)", [](double x, double, double z) { return x == z; });
    check(8, "not_equal(a, c)", [](double x, double, double z) { return x != z; });
    check(9, "equal(a, 1.0)", [](double x, double, double) { return x == 1.0; });
    check(10, "logical_and(a < b, a > 0)", [](double x, double y, double) { return x < y && x > 0; });
    check(11, "logical_or(a < b, a > 0)", [](double x, double y, double) { return x < y || x > 0; });
    check(12, "logical_not(a < b)", [](double x, double y, double) { return !(x < y); });
    check(13, "a <= b (with a tie)", [](double x, double y, double) { return x <= y; });
  }
}

// Bool tensors are a byte per element; in vector code a mask is a vector
// of i1 that must be read and written that way (as a byte 0 or 1 per lane,
// never bit-packed). Rows of 133: whole vectors of 32 or 128 lanes and a
// remainder. The mask of `where` in a gradient is kept for the backward
// pass, and read there, in both modes.
TEST_CASE("tracer ops: bool masks longer than a vector and kept between loops", "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor a, Tensor b) {
        Tensor m = a < b;
        Tensor n = logical_not(m);
        return std::vector<Tensor>{m, logical_and(n, a > 0.0),
                                   where(m, a, b) + where(n, 1.0, 2.0),
                                   sum(where(a > 0.0, a, 0.0), {-1})};
      },
      {.name = "masks"});
  auto slope = [](Tensor a) { return where(a > 0.0, a * a, -a); };
  auto reverse = adjit::grad([&](Tensor a) { return sum(slope(a)); });
  const Shape shape{3, 133};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array a = Array::uniform(shape, 431, -3, 3, dt), b = Array::uniform(shape, 432, -3, 3, dt);
    Vec A = values(a), B = values(b);
    std::vector<Array> r = f(a, b);
    REQUIRE(r.size() == 4);
    for (int i : {0, 1}) {
      const auto* bytes = static_cast<const uint8_t*>(r[i].raw_data());
      CHECK(std::all_of(bytes, bytes + r[i].nbytes(), [](uint8_t v) { return v <= 1; }));
    }
    Vec less, neither_positive, picked, row_sums(3, 0.0);
    for (size_t k = 0; k < A.size(); ++k) {
      less.push_back(A[k] < B[k]);
      neither_positive.push_back(!(A[k] < B[k]) && A[k] > 0);
      picked.push_back((A[k] < B[k] ? A[k] : B[k]) + (A[k] < B[k] ? 2.0 : 1.0));
      row_sums[k / 133] += A[k] > 0 ? A[k] : 0.0;
    }
    CHECK_ARRAY("a < b", r[0], I1, shape, less, kExact);
    CHECK_ARRAY("!(a < b) && a > 0", r[1], I1, shape, neither_positive, kExact);
    CHECK_ARRAY("where(m, a, b) + where(!m, 1, 2)", r[2], dt, shape, picked, exact_tol(dt));
    CHECK_ARRAY("sum(where(a > 0, a, 0), {-1})", r[3], dt, (Shape{3}), row_sums,
                accumulate_tol(dt));
    Vec slope_grad = map(A, [](double v) { return v > 0 ? 2 * v : -1.0; });
    CHECK_ARRAY("grad of where(a > 0, a^2, -a)", reverse(a), dt, shape, slope_grad, exact_tol(dt));
    auto [value, tangent] = adjit::jvp(slope, a, Array::ones(shape, dt));
    CHECK_ARRAY("jvp of where(a > 0, a^2, -a)", tangent, dt, shape, slope_grad, exact_tol(dt));
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_CASE("tracer ops: sum mean max min argmax over axes (negative, keepdims)",
          "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor x, Tensor xi) {
        return std::vector<Tensor>{
            sum(x),                  sum(x, {0}),            sum(x, {-1}),          // 0-2
            sum(x, {0, 2}, true),    sum(x, {}, true),       mean(x),               // 3-5
            mean(x, {1}),            mean(x, {-1, 0}, true), max(x),                // 6-8
            max(x, {-1}),            max(x, {0, 1}, true),   min(x, {2}),           // 9-11
            min(x),                  min(x, {-2}, true),     argmax(x, -1),         // 12-14
            argmax(x, 0),            argmax(x, 1),           sum(xi, {1}),          // 15-17
            max(xi),                 min(xi, {0}),           mean(xi),              // 18-20
            argmax(xi, 1),           sum(x > 0.0),           max(x > 1.5, {-1}),    // 21-23
            min(x > -1.9, {-1})};                                                    // 24
      },
      {.name = "reduce"});
  const Shape shape{2, 3, 4}, ishape{3, 5};
  Array xi = Array::uniform(ishape, 402, -5, 6, I32);
  Vec XI = values(xi);
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::uniform(shape, 401, -2, 2, dt);
    Vec X = values(x);
    std::vector<Array> r = f(x, xi);
    REQUIRE(r.size() == 25);
    Tol ac = accumulate_tol(dt);
    auto check = [&](int i, const char* name, std::vector<int> axes, bool keep, char kind) {
      Vec want = reduce_ref(X, shape, axes, kind);
      CHECK_ARRAY(name, r[i], dt, reduce_shape(shape, axes, keep), want,
                  kind == '+' ? ac : kExact);
    };
    auto check_mean = [&](int i, const char* name, std::vector<int> axes, bool keep) {
      Vec s = reduce_ref(X, shape, axes, '+');
      double n = static_cast<double>(count(shape) / static_cast<int64_t>(s.size()));
      CHECK_ARRAY(name, r[i], dt, reduce_shape(shape, axes, keep),
                  map(s, [n](double v) { return v / n; }), ac);
    };
    check(0, "sum(x)", {}, false, '+');
    check(1, "sum(x, {0})", {0}, false, '+');
    check(2, "sum(x, {-1})", {-1}, false, '+');
    check(3, "sum(x, {0, 2}, keepdims)", {0, 2}, true, '+');
    check(4, "sum(x, {}, keepdims)", {}, true, '+');
    check_mean(5, "mean(x)", {}, false);
    check_mean(6, "mean(x, {1})", {1}, false);
    check_mean(7, "mean(x, {-1, 0}, keepdims)", {-1, 0}, true);
    check(8, "max(x)", {}, false, '>');
    check(9, "max(x, {-1})", {-1}, false, '>');
    check(10, "max(x, {0, 1}, keepdims)", {0, 1}, true, '>');
    check(11, "min(x, {2})", {2}, false, '<');
    check(12, "min(x)", {}, false, '<');
    check(13, "min(x, {-2}, keepdims)", {-2}, true, '<');
    CHECK_ARRAY("argmax(x, -1)", r[14], I32, (Shape{2, 3}), argmax_ref(X, shape, -1), kExact);
    CHECK_ARRAY("argmax(x, 0)", r[15], I32, (Shape{3, 4}), argmax_ref(X, shape, 0), kExact);
    CHECK_ARRAY("argmax(x, 1)", r[16], I32, (Shape{2, 4}), argmax_ref(X, shape, 1), kExact);
    CHECK_ARRAY("sum(xi, {1}) (i32)", r[17], I32, (Shape{3}), reduce_ref(XI, ishape, {1}, '+'),
                kExact);
    CHECK_ARRAY("max(xi) (i32)", r[18], I32, (Shape{}), reduce_ref(XI, ishape, {}, '>'), kExact);
    CHECK_ARRAY("min(xi, {0}) (i32)", r[19], I32, (Shape{5}), reduce_ref(XI, ishape, {0}, '<'),
                kExact);
    CHECK_ARRAY("mean(xi) (i32 -> f32)", r[20], F32, (Shape{}),
                Vec{reduce_ref(XI, ishape, {}, '+')[0] / 15.0}, exact_tol(F32));
    CHECK_ARRAY("argmax(xi, 1) (first maximum)", r[21], I32, (Shape{3}),
                argmax_ref(XI, ishape, 1), kExact);
    Vec positive = map(X, [](double v) { return v > 0 ? 1.0 : 0.0; });
    CHECK_ARRAY("sum(x > 0) counts (bool -> i32)", r[22], I32, (Shape{}),
                reduce_ref(positive, shape, {}, '+'), kExact);
    Vec big = map(X, [](double v) { return v > 1.5 ? 1.0 : 0.0; });
    CHECK_ARRAY("max(x > 1.5, {-1}) is any (bool)", r[23], I1, (Shape{2, 3}),
                reduce_ref(big, shape, {-1}, '>'), kExact);
    Vec above = map(X, [](double v) { return v > -1.9 ? 1.0 : 0.0; });
    CHECK_ARRAY("min(x > -1.9, {-1}) is all (bool)", r[24], I1, (Shape{2, 3}),
                reduce_ref(above, shape, {-1}, '<'), kExact);
  }
}

// Rows of 53 elements: full vectors (16, 8 or 4 lanes, by dtype and the
// host's registers) and a shorter remainder, for reductions along the row
// (accumulated lane-wise, then across lanes), across rows, and elementwise
// work that mixes per-row scalars into the vectors.
TEST_CASE("tracer ops: rows longer than a vector register (full vectors and a remainder)",
          "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor x, Tensor xi) {
        Tensor shifted = x - max(x, {-1}, true);
        return std::vector<Tensor>{sum(x, {-1}),  max(x, {-1}),      min(x, {-1}),
                                   sum(x, {0}),   exp(shifted),      tanh(x) * 2.0 + x,
                                   sum(xi, {-1}), max(xi, {-1}),     min(xi * 3, {-1}),
                                   sum(x)};
      },
      {.name = "long_rows"});
  const Shape shape{3, 53};
  Array xi = Array::uniform(shape, 412, -1000, 1000, I32);
  Vec XI = values(xi);
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    // Positive terms: the sums' rounding stays within accumulate_tol.
    Array x = Array::uniform(shape, 411, 0.5, 1.5, dt);
    Vec X = values(x);
    std::vector<Array> r = f(x, xi);
    REQUIRE(r.size() == 10);
    Tol ac = accumulate_tol(dt);
    CHECK_ARRAY("sum(x, {-1})", r[0], dt, (Shape{3}), reduce_ref(X, shape, {-1}, '+'), ac);
    CHECK_ARRAY("max(x, {-1})", r[1], dt, (Shape{3}), reduce_ref(X, shape, {-1}, '>'), kExact);
    CHECK_ARRAY("min(x, {-1})", r[2], dt, (Shape{3}), reduce_ref(X, shape, {-1}, '<'), kExact);
    CHECK_ARRAY("sum(x, {0})", r[3], dt, (Shape{53}), reduce_ref(X, shape, {0}, '+'), ac);
    Vec row_max = reduce_ref(X, shape, {-1}, '>');
    Vec softmax_numerator(X.size());
    for (size_t i = 0; i < X.size(); ++i) softmax_numerator[i] = std::exp(X[i] - row_max[i / 53]);
    CHECK_ARRAY("exp(x - max(x, {-1}, keepdims))", r[4], dt, shape, softmax_numerator,
                transcendental_tol(dt));
    CHECK_ARRAY("tanh(x) * 2 + x", r[5], dt, shape,
                map(X, [](double v) { return std::tanh(v) * 2.0 + v; }), composite_tol(dt));
    CHECK_ARRAY("sum(xi, {-1}) (i32)", r[6], I32, (Shape{3}), reduce_ref(XI, shape, {-1}, '+'),
                kExact);
    CHECK_ARRAY("max(xi, {-1}) (i32)", r[7], I32, (Shape{3}), reduce_ref(XI, shape, {-1}, '>'),
                kExact);
    CHECK_ARRAY("min(xi * 3, {-1}) (i32)", r[8], I32, (Shape{3}),
                reduce_ref(map(XI, [](double v) { return 3 * v; }), shape, {-1}, '<'), kExact);
    CHECK_ARRAY("sum(x)", r[9], dt, (Shape{}), reduce_ref(X, shape, {}, '+'), ac);
  }
}

TEST_CASE("tracer ops: argmax returns the first of tied maxima", "[tracer][ops]") {
  auto f = adjit::jit([](Tensor x) { return argmax(x, 1); }, {.name = "argmax_ties"});
  Array x = make({1, 3, 3, 0, 5, 5, 5, 5, -1, -1, -2, -1}, {3, 4}, F32);
  CHECK_ARRAY("argmax ties", f(x), I32, (Shape{3}), (Vec{1, 0, 0}), kExact);
}

TEST_CASE("tracer ops: f16 and bf16 math in vectors rounds as one element at a time",
          "[tracer][ops]") {
  // Widened to f32, computed, narrowed back in vectors of 32 lanes with a
  // shorter remainder: the same bits as rows of one element, which stay
  // scalar code.
  auto f = adjit::jit([](Tensor x) { return adjit::exp(x * 3.0 + 1.0) - x; }, {.name = "half_math"});
  for (DType dt : {F16, BF16}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::randn({5, 70}, 650, dt);
    Array column = make(values(x), {350, 1}, dt);
    CHECK_ARRAY("in vectors", f(x), dt, (Shape{5, 70}), values(f(column)), kExact);
  }
}

TEST_CASE("tracer ops: reductions over short rows run across rows, in order",
          "[tracer][ops]") {
  // Rows no longer than a register run one row per lane, read in tiles
  // transposed in registers (the last classes of a tile padding), rows of
  // at most 4 as whole vectors whose columns shuffles gather; lengths
  // around the tile's side and row counts with partial tiles.
  auto f = adjit::jit(
      [](Tensor x) {
        return std::vector<Tensor>{adjit::sum(x, {-1}), adjit::max(x, {-1}), adjit::min(x, {-1}),
                                   adjit::argmax(x, -1)};
      },
      {.name = "short_rows"});
  uint64_t seed = 640;
  for (int64_t columns : {1, 2, 3, 4, 5, 8, 10, 15, 16, 17})
    for (int64_t rows : {1, 7, 16, 37, 100})
      for (DType dt : {F32, F64, I32, F16, BF16}) {
        INFO("rows " << rows << " columns " << columns << " dtype " << dtype_name(dt));
        Shape shape{rows, columns};
        Vec v = values(Array::uniform(shape, seed++, -4, 4, F64));
        for (double& x : v) x = std::floor(x);  // exact sums, and ties
        Array x = make(v, shape, dt);
        std::vector<Array> r = f(x);
        REQUIRE(r.size() == 4);
        CHECK_ARRAY("sum", r[0], dt, (Shape{rows}), reduce_ref(v, shape, {1}, '+'), kExact);
        CHECK_ARRAY("max", r[1], dt, (Shape{rows}), reduce_ref(v, shape, {1}, '>'), kExact);
        CHECK_ARRAY("min", r[2], dt, (Shape{rows}), reduce_ref(v, shape, {1}, '<'), kExact);
        CHECK_ARRAY("argmax", r[3], I32, (Shape{rows}), argmax_ref(v, shape, 1), kExact);
      }
}

TEST_CASE("tracer ops: argmax over long rows: ties, NaNs and -inf across vector lanes",
          "[tracer][ops]") {
  // Rows longer than a vector run lane by lane and combine the lanes (the
  // better value, or the smaller index on a tie) before the elements past
  // the whole vectors: few distinct values make ties across lanes common.
  // Apart: in one function the two would merge into one generic.
  auto along_rows = adjit::jit([](Tensor x) { return argmax(x, 1); }, {.name = "argmax_rows"});
  auto along_columns = adjit::jit([](Tensor x) { return argmax(x, 0); }, {.name = "argmax_columns"});
  auto reference = [](const Vec& v, int64_t rows, int64_t columns, int axis) {
    Vec out;
    int64_t outer = axis == 1 ? rows : columns, along = axis == 1 ? columns : rows;
    for (int64_t o = 0; o < outer; ++o) {
      auto at = [&](int64_t k) { return axis == 1 ? v[o * columns + k] : v[k * columns + o]; };
      int64_t best = 0;
      for (int64_t k = 1; k < along; ++k) {
        if (std::isnan(at(best))) break;
        if (std::isnan(at(k)) || at(k) > at(best)) best = k;
      }
      out.push_back(static_cast<double>(best));
    }
    return out;
  };
  uint64_t seed = 630;
  for (int64_t columns : {1, 7, 33, 64, 70, 129, 300})
    for (DType dt : {F32, F64, I32, I64, F16, BF16}) {
      INFO("columns " << columns << " dtype " << dtype_name(dt));
      const int64_t rows = 6;
      Vec v = values(Array::uniform({rows, columns}, seed++, -3, 3, F64));
      for (double& x : v) x = std::floor(x);
      // Row 1: all -inf (or the lowest integer); row 2: NaNs late and
      // early; row 3: one max in the last element; row 4: -0 and +0 only.
      double lowest = dt == I32 ? double(INT32_MIN) : dt == I64 ? -9.2233720368547758e18 : -kInf;
      for (int64_t k = 0; k < columns; ++k) {
        v[1 * columns + k] = lowest;
        v[3 * columns + k] = -5;
        v[4 * columns + k] = k % 3 == 0 ? 0.0 : -0.0;
      }
      v[4 * columns + columns / 2] = -0.0;
      v[3 * columns + columns - 1] = 7;
      if (is_floating(dt)) {
        v[2 * columns + columns - 1] = kNaN;
        v[2 * columns + columns / 2] = kNaN;
        v[5 * columns + columns / 3] = kNaN;
      }
      Array x = make(v, {rows, columns}, dt);
      Vec stored = values(x);  // as rounded into dt
      CHECK_ARRAY("argmax(x, 1)", along_rows(x), I32, (Shape{rows}),
                  reference(stored, rows, columns, 1), kExact);
      CHECK_ARRAY("argmax(x, 0)", along_columns(x), I32, (Shape{columns}),
                  reference(stored, rows, columns, 0), kExact);
    }
}

TEST_CASE("tracer ops: logsumexp, softmax, log_softmax (random, -inf rows, huge values)",
          "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor x, Tensor special, Tensor big) {
        return std::vector<Tensor>{
            logsumexp(x),            logsumexp(x, {-1}),      logsumexp(x, {0, 2}, true),  // 0-2
            softmax(x),              softmax(x, 0),           log_softmax(x),              // 3-5
            log_softmax(x, 1),       logsumexp(special, {1}), softmax(big),                // 6-8
            log_softmax(big, -1),    logsumexp(big, {-1}, true)};                          // 9-10
      },
      {.name = "softmax"});
  const Shape shape{2, 3, 4};
  // Rows: all -inf (-> -inf), huge finite (no overflow), one -inf entry,
  // tiny values (no underflow to -inf), +inf (-> +inf).
  const Shape special_shape{5, 3};
  const Vec special{-kInf, -kInf, -kInf, 1000, 999, 998, -kInf, 0, 1,
                    -1000, -1001, -1002, kInf, 0, 1};
  const Shape big_shape{3, 3};
  const Vec big{1000, 999, 998, -1000, -1001, -1002, 80, 90, 100};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::uniform(shape, 501, -3, 3, dt);
    Vec X = values(x);
    std::vector<Array> r = f(x, make(special, special_shape, dt), make(big, big_shape, dt));
    REQUIRE(r.size() == 11);
    Tol co = composite_tol(dt);
    CHECK_ARRAY("logsumexp(x)", r[0], dt, (Shape{}), logsumexp_ref(X, shape, {}), co);
    CHECK_ARRAY("logsumexp(x, {-1})", r[1], dt, (Shape{2, 3}), logsumexp_ref(X, shape, {-1}), co);
    CHECK_ARRAY("logsumexp(x, {0, 2}, keepdims)", r[2], dt, (Shape{1, 3, 1}),
                logsumexp_ref(X, shape, {0, 2}), co);
    auto exp_all = [](Vec v) { return map(v, [](double t) { return std::exp(t); }); };
    CHECK_ARRAY("softmax(x)", r[3], dt, shape, exp_all(log_softmax_ref(X, shape, -1)), co);
    CHECK_ARRAY("softmax(x, 0)", r[4], dt, shape, exp_all(log_softmax_ref(X, shape, 0)), co);
    CHECK_ARRAY("log_softmax(x)", r[5], dt, shape, log_softmax_ref(X, shape, -1), co);
    CHECK_ARRAY("log_softmax(x, 1)", r[6], dt, shape, log_softmax_ref(X, shape, 1), co);
    Vec want_special{-kInf, 1000 + std::log(1 + std::exp(-1.0) + std::exp(-2.0)),
                     std::log(1 + std::exp(1.0)),
                     -1000 + std::log(1 + std::exp(-1.0) + std::exp(-2.0)), kInf};
    CHECK_ARRAY("logsumexp(special, {1}): -inf row, huge, tiny, +inf", r[7], dt, (Shape{5}),
                want_special, co);
    CHECK_ARRAY("softmax(big) (no overflow)", r[8], dt, big_shape,
                exp_all(log_softmax_ref(big, big_shape, -1)), co);
    CHECK_ARRAY("log_softmax(big)", r[9], dt, big_shape, log_softmax_ref(big, big_shape, -1), co);
    CHECK_ARRAY("logsumexp(big, {-1}, keepdims)", r[10], dt, (Shape{3, 1}),
                logsumexp_ref(big, big_shape, {-1}), co);
  }
}

TEST_CASE("tracer ops: a NaN in a row makes its softmax, log_softmax and logsumexp NaN",
          "[tracer][ops]") {
  // Their max skips NaN (adjit.reduce ignores_nan): the NaN must still reach
  // every output of its row, through the row's sum. Rows of 48 (whole
  // registers) and 37 (a tail), the NaN at each of several positions, a row
  // of NaN only, a row with NaN and +inf, rows without NaN; along rows and
  // along columns.
  for (int64_t columns : {48, 37}) {
    const int64_t rows = 8;
    Vec v(rows * columns);
    for (int64_t i = 0; i < rows * columns; ++i) v[i] = std::sin(0.37 * i) * 4;
    std::vector<int64_t> poisoned = {0, 1, 2, 3, 4, 5};
    v[0 * columns + 0] = kNaN;
    v[1 * columns + 15] = kNaN;
    v[2 * columns + columns - 1] = kNaN;
    for (int64_t c = 0; c < columns; ++c) v[3 * columns + c] = kNaN;
    v[4 * columns + 7] = kNaN, v[4 * columns + 8] = kInf;
    v[5 * columns + 20] = kNaN, v[5 * columns + 21] = -kInf;
    const Shape shape{rows, columns};
    for (DType dt : {F32, F64}) {
      INFO(columns << " columns, " << dtype_name(dt));
      Array x = make(v, shape, dt);
      auto f = adjit::jit([](Tensor x) {
        return std::vector<Tensor>{softmax(x, -1), log_softmax(x, -1), logsumexp(x, {-1}),
                                   softmax(transpose(x, {1, 0}), 0)};
      });
      std::vector<Array> r = f(x);
      Vec sm = values(r[0]), lsm = values(r[1]), lse = values(r[2]), smt = values(r[3]);
      Vec want_lsm = log_softmax_ref(v, shape, -1), want_lse = logsumexp_ref(v, shape, {-1});
      Tol co = composite_tol(dt);
      for (int64_t row = 0; row < rows; ++row) {
        INFO("row " << row);
        bool nan_row = std::count(poisoned.begin(), poisoned.end(), row) > 0;
        CHECK(std::isnan(lse[row]) == nan_row);
        if (!nan_row) CHECK(std::abs(lse[row] - want_lse[row]) <= co.abs + co.rel * std::abs(want_lse[row]));
        for (int64_t c = 0; c < columns; ++c) {
          int64_t i = row * columns + c;
          CHECK(std::isnan(sm[i]) == nan_row);
          CHECK(std::isnan(lsm[i]) == nan_row);
          CHECK(std::isnan(smt[c * rows + row]) == nan_row);
          if (!nan_row) {
            CHECK(std::abs(lsm[i] - want_lsm[i]) <= co.abs + co.rel * std::abs(want_lsm[i]));
            CHECK(std::abs(smt[c * rows + row] - sm[i]) <= co.abs + co.rel * sm[i]);
          }
        }
      }
    }
  }
}

TEST_CASE("tracer ops: maximum, minimum, max and min follow IEEE 754-2019 on NaN and signed zeros",
          "[tracer][ops]") {
  // Every pair of special values, in vectors of whole registers (AVX-512's
  // vrangeps path) and a partial one: NaN gives NaN, +0 is above -0, in
  // either order; the reductions over rows of 48 with NaN and zeros of both
  // signs at every lane position. f16 and bf16 compute widened to f32,
  // which LLVM would narrow back to f16 vectors (adjit-widened-f16-min-max).
  const Vec specials{0.0, -0.0, 1.0, -1.0, kInf, -kInf, kNaN, 1e-45, -1e-45, 3.5, -2.25, 1e38, -1e38};
  Vec a, b;
  for (double x : specials)
    for (double y : specials) a.push_back(x), b.push_back(y);
  const Shape pairs{static_cast<int64_t>(a.size())};  // 169: 10 registers and 9 lanes
  const int64_t rows = 6, columns = 48;
  Vec r(rows * columns, -0.0);
  for (int64_t c = 0; c < columns; ++c) {
    r[0 * columns + c] = c % 2 ? 0.0 : -0.0;   // max +0, min -0
    r[1 * columns + c] = -0.0;                 // max and min -0
    r[2 * columns + c] = c == 37 ? 0.0 : -0.0; // one +0
    r[3 * columns + c] = c == 21 ? kNaN : -1.0 * c;
    r[4 * columns + c] = c == 47 ? kNaN : 1.0 * c;
    r[5 * columns + c] = c == 5 ? -kInf : (c == 40 ? kInf : 0.5 * c - 7);
  }
  auto f = adjit::jit([](Tensor x, Tensor y, Tensor m) {
    return std::vector<Tensor>{maximum(x, y), minimum(x, y), adjit::max(m, {1}), adjit::min(m, {1})};
  });
  auto ieee = [](double x, double y, bool maximum) {
    if (std::isnan(x) || std::isnan(y)) return kNaN;
    if (x == 0 && y == 0) return std::signbit(x) == maximum ? y : x;
    return maximum ? std::max(x, y) : std::min(x, y);
  };
  auto same = [](const Vec& got, const Vec& want) {
    for (size_t i = 0; i < want.size(); ++i)
      if (std::isnan(want[i]) ? !std::isnan(got[i])
                              : got[i] != want[i] || std::signbit(got[i]) != std::signbit(want[i]))
        return "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " +
               std::to_string(want[i]);
    return std::string();
  };
  for (DType dt : {F32, F64, F16, BF16}) {
    INFO("dtype " << dtype_name(dt));
    std::vector<Array> out = f(make(a, pairs, dt), make(b, pairs, dt), make(r, {rows, columns}, dt));
    Vec want_max, want_min, want_row_max, want_row_min;
    // The inputs as the dtype holds them (1e-45 is f32's smallest subnormal).
    Vec x = values(make(a, pairs, dt)), y = values(make(b, pairs, dt));
    for (size_t i = 0; i < x.size(); ++i) {
      want_max.push_back(ieee(x[i], y[i], true));
      want_min.push_back(ieee(x[i], y[i], false));
    }
    Vec stored = values(make(r, {rows, columns}, dt));
    for (int64_t row = 0; row < rows; ++row) {
      double hi = -kInf, lo = kInf;
      for (int64_t c = 0; c < columns; ++c) {
        hi = ieee(hi, stored[row * columns + c], true);
        lo = ieee(lo, stored[row * columns + c], false);
      }
      want_row_max.push_back(hi);
      want_row_min.push_back(lo);
    }
    CHECK(same(values(out[0]), want_max) == "");
    CHECK(same(values(out[1]), want_min) == "");
    CHECK(same(values(out[2]), want_row_max) == "");
    CHECK(same(values(out[3]), want_row_min) == "");
  }
}

TEST_CASE("tracer ops: softmax and log_softmax over many short rows, 1 and 2 threads",
          "[tracer][ops]") {
  // Rows shorter than a register run across rows in the vectorizer: the
  // max and the sum of exps in transposed tiles, `x - max` recomputed in
  // the last pass. Row lengths around the tile's lanes (15, 16, 17), a
  // last partial tile (1003 rows), a row with -inf entries and one with a
  // NaN; at 1 and 2 threads, which must agree to the bit.
  for (int64_t classes : {2, 3, 10, 15, 16, 17}) {
    const Shape shape{1003, classes};
    for (DType dt : {F32, F64}) {
      INFO("dtype " << dtype_name(dt) << ", rows of " << classes);
      Vec X = values(Array::uniform(shape, 700 + classes, -20, 20, dt));
      X[5 * classes] = -kInf;             // row 5: one -inf entry
      X[9 * classes + classes - 1] = kNaN;  // row 9: NaN throughout
      Array x = make(X, shape, dt);
      std::vector<std::vector<Array>> runs;
      for (int threads : {1, 2}) {
        auto f = adjit::jit(
            [](Tensor x) { return std::vector<Tensor>{log_softmax(x, -1), softmax(x, -1)}; },
            {.threads = threads});
        runs.push_back(f(x));
      }
      const std::vector<Array>& r = runs.front();
      REQUIRE(r.size() == 2);
      Vec want = log_softmax_ref(X, shape, -1);
      Tol co = composite_tol(dt);
      CHECK_ARRAY("log_softmax(x, -1)", r[0], dt, shape, want, co);
      CHECK_ARRAY("softmax(x, -1)", r[1], dt, shape,
                  map(want, [](double t) { return std::exp(t); }), co);
      for (size_t k = 0; k < r.size(); ++k)
        CHECK_EXACT("2 threads as 1", runs[1][k], dt, shape, values(r[k]));
    }
  }
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

TEST_CASE("tracer ops: matmul (2-D, vector operands, batched with broadcasting)",
          "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor a, Tensor b, Tensor v, Tensor w, Tensor A, Tensor B, Tensor C) {
        return std::vector<Tensor>{matmul(a, b), matmul(v, b), matmul(a, w), matmul(v, w),
                                   matmul(A, B), matmul(C, b), matmul(v, B)};
      },
      {.name = "matmul"});
  const Shape as{3, 4}, bs{4, 5}, vs{4}, ws{4}, As{2, 1, 3, 4}, Bs{5, 4, 2}, Cs{2, 3, 4};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array a = Array::randn(as, 601, dt), b = Array::randn(bs, 602, dt),
          v = Array::randn(vs, 603, dt), w = Array::randn(ws, 604, dt),
          A = Array::randn(As, 605, dt), B = Array::randn(Bs, 606, dt),
          C = Array::randn(Cs, 607, dt);
    std::vector<Array> r = f(a, b, v, w, A, B, C);
    REQUIRE(r.size() == 7);
    Tol ac = accumulate_tol(dt);
    auto check = [&](int i, const char* name, const Array& x, const Array& y) {
      auto [want, want_shape] = matmul_ref(values(x), x.shape(), values(y), y.shape());
      CHECK_ARRAY(name, r[i], dt, want_shape, want, ac);
    };
    check(0, "[3,4] @ [4,5]", a, b);
    check(1, "[4] @ [4,5]", v, b);
    check(2, "[3,4] @ [4]", a, w);
    check(3, "[4] @ [4]", v, w);
    check(4, "[2,1,3,4] @ [5,4,2] -> [2,5,3,2]", A, B);
    check(5, "[2,3,4] @ [4,5]", C, b);
    check(6, "[4] @ [5,4,2] -> [5,2]", v, B);
  }
  // Spot-check the shapes numpy gives, independently of the reference helper.
  Array a = Array::randn(as, 1, F32), b = Array::randn(bs, 2, F32), v = Array::randn(vs, 3, F32);
  std::vector<Array> r =
      f(a, b, v, v, Array::randn(As, 4, F32), Array::randn(Bs, 5, F32), Array::randn(Cs, 6, F32));
  CHECK(r[0].shape() == Shape{3, 5});
  CHECK(r[1].shape() == Shape{5});
  CHECK(r[2].shape() == Shape{3});
  CHECK(r[3].shape() == Shape{});
  CHECK(r[4].shape() == Shape{2, 5, 3, 2});
  CHECK(r[5].shape() == Shape{2, 3, 5});
  CHECK(r[6].shape() == Shape{5, 2});
}

TEST_CASE("tracer ops: matmul of transposed operands reads them in place", "[tracer][ops]") {
  // x^T y, y w^T, both, and a batched one: the canonicalizer folds each
  // transpose into the contraction, so the GEMM reads the operand's own
  // layout (at sizes it serves, with a k past one slice of its blocking).
  auto f = adjit::jit(
      [](Tensor x, Tensor y, Tensor w, Tensor u, Tensor a, Tensor b) {
        return std::vector<Tensor>{matmul(transpose(x), y), matmul(y, transpose(w)),
                                   matmul(transpose(x), transpose(u)),
                                   matmul(transpose(a, {0, 2, 1}), b)};
      },
      {.name = "transposed_matmul"});
  const Shape xs{300, 37}, ys{300, 45}, ws{50, 45}, us{20, 300}, as{2, 70, 9}, bs{2, 70, 11};
  // values of a [rows, cols] matrix (or a batch of them) transposed.
  auto transposed = [](const Vec& v, int64_t batch, int64_t rows, int64_t cols) {
    Vec t(v.size());
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          t[n * rows * cols + j * rows + i] = v[n * rows * cols + i * cols + j];
    return t;
  };
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::randn(xs, 611, dt), y = Array::randn(ys, 612, dt),
          w = Array::randn(ws, 613, dt), u = Array::randn(us, 616, dt),
          a = Array::randn(as, 614, dt), b = Array::randn(bs, 615, dt);
    std::string optimized = f.lower(x, y, w, u, a, b).ir("optimized");
    CHECK(optimized.find("adjit.transpose") == std::string::npos);
    std::vector<Array> r = f(x, y, w, u, a, b);
    REQUIRE(r.size() == 4);
    Vec xt = transposed(values(x), 1, 300, 37), wt = transposed(values(w), 1, 50, 45),
        ut = transposed(values(u), 1, 20, 300), at = transposed(values(a), 2, 70, 9);
    Tol ac = accumulate_tol(dt);
    auto check = [&](int i, const char* name, const Vec& l, Shape ls, const Vec& rv, Shape rs) {
      auto [want, want_shape] = matmul_ref(l, ls, rv, rs);
      CHECK_ARRAY(name, r[i], dt, want_shape, want, ac);
    };
    check(0, "x^T y", xt, {37, 300}, values(y), ys);
    check(1, "y w^T", values(y), ys, wt, {45, 50});
    check(2, "x^T u^T", xt, {37, 300}, ut, {300, 20});
    check(3, "a^T b, batched", at, {2, 9, 70}, values(b), bs);
  }
}

TEST_CASE("tracer ops: matmul with several batch dimensions (attention's batch and heads)",
          "[tracer][ops]") {
  // Scores q k^T and the attention-weighted values, with q, k, v laid out
  // [batch, time, heads, depth] as a projection's reshape leaves them: the
  // transposes fold into the contraction, whose two batch loops then have
  // strides that do not merge. The GEMM kernel takes one, a loop around its
  // call the other. Also a contiguous 4-D product and a broadcast batch.
  auto f = adjit::jit(
      [](Tensor q, Tensor k, Tensor v, Tensor a, Tensor b, Tensor c) {
        Tensor qh = transpose(q, {0, 2, 1, 3}), kh = transpose(k, {0, 2, 3, 1});
        Tensor scores = matmul(qh, kh);
        return std::vector<Tensor>{scores, matmul(scores, transpose(v, {0, 2, 1, 3})),
                                   matmul(a, b), matmul(c, b)};
      },
      {.name = "multi_batch_matmul"});
  const Shape qs{2, 70, 3, 9}, as{2, 3, 40, 50}, bs{2, 3, 50, 30}, cs{2, 1, 40, 50};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array q = Array::randn(qs, 621, dt), k = Array::randn(qs, 622, dt),
          v = Array::randn(qs, 623, dt), a = Array::randn(as, 624, dt),
          b = Array::randn(bs, 625, dt), c = Array::randn(cs, 626, dt);
    // Every product runs on the kernels: no contraction is left a loop nest.
    auto lowered = f.lower(q, k, v, a, b, c);
    CHECK(occurrences(lowered.ir("fused"), "library_call") == 4);
    CHECK(occurrences(lowered.ir("llvm"), "call @adjit_gemm_") == 4);
    std::vector<Array> r = f(q, k, v, a, b, c);
    REQUIRE(r.size() == 4);
    Shape qh_shape, kh_shape, vh_shape;
    Vec qh = transpose_ref(values(q), qs, {0, 2, 1, 3}, qh_shape),
        kh = transpose_ref(values(k), qs, {0, 2, 3, 1}, kh_shape),
        vh = transpose_ref(values(v), qs, {0, 2, 1, 3}, vh_shape);
    Tol ac = accumulate_tol(dt);
    auto [scores, scores_shape] = matmul_ref(qh, qh_shape, kh, kh_shape);
    CHECK_ARRAY("q k^T", r[0], dt, scores_shape, scores, ac);
    // The product of computed scores: compare against the computed ones.
    auto [weighted, weighted_shape] = matmul_ref(values(r[0]), scores_shape, vh, vh_shape);
    CHECK_ARRAY("scores v", r[1], dt, weighted_shape, weighted, ac);
    auto [ab, ab_shape] = matmul_ref(values(a), as, values(b), bs);
    CHECK_ARRAY("4-D a b", r[2], dt, ab_shape, ab, ac);
    auto [cb, cb_shape] = matmul_ref(values(c), cs, values(b), bs);
    CHECK_ARRAY("broadcast c b", r[3], dt, cb_shape, cb, ac);
  }
}

TEST_CASE("tracer ops: matmul with a narrow side (points, a classifier, a small batch)",
          "[tracer][ops]") {
  // The GEMM's narrow kernels: C of at most a vector's lanes of columns
  // (points times a 3 x 3 matrix, k in registers; a classifier's 10
  // columns, A's rows as vectors along k with a partial last one), a small
  // batch times a weight stored out x in (y w^T, computed as (w y^T)^T),
  // and a batched one; at 1 and 2 threads, which must agree to the bit.
  const Shape ps{1000, 3}, rs{3, 3}, xs{300, 200}, cs{200, 10}, ys{6, 400}, ws{70, 400},
      as{2, 50, 40}, bs{2, 40, 5};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array points = Array::randn(ps, 621, dt), rotation = Array::randn(rs, 622, dt),
          x = Array::randn(xs, 623, dt), classifier = Array::randn(cs, 624, dt),
          y = Array::randn(ys, 625, dt), w = Array::randn(ws, 626, dt),
          a = Array::randn(as, 627, dt), b = Array::randn(bs, 628, dt);
    std::vector<std::vector<Array>> runs;
    for (int threads : {1, 2}) {
      auto f = adjit::jit(
          [](Tensor points, Tensor rotation, Tensor x, Tensor classifier, Tensor y, Tensor w,
             Tensor a, Tensor b) {
            return std::vector<Tensor>{matmul(points, rotation), matmul(x, classifier),
                                       matmul(y, transpose(w)), matmul(a, b)};
          },
          {.threads = threads});
      runs.push_back(f(points, rotation, x, classifier, y, w, a, b));
    }
    const std::vector<Array>& r = runs.front();
    REQUIRE(r.size() == 4);
    Vec wt(values(w).size());
    for (int64_t i = 0; i < 70; ++i)
      for (int64_t j = 0; j < 400; ++j) wt[j * 70 + i] = values(w)[i * 400 + j];
    Tol ac = accumulate_tol(dt);
    auto check = [&](int i, const char* name, const Vec& l, Shape ls, const Vec& rv, Shape rs) {
      auto [want, want_shape] = matmul_ref(l, ls, rv, rs);
      CHECK_ARRAY(name, r[i], dt, want_shape, want, ac);
    };
    check(0, "points @ rotation", values(points), ps, values(rotation), rs);
    check(1, "x @ classifier", values(x), xs, values(classifier), cs);
    check(2, "y @ w^T", values(y), ys, wt, {400, 70});
    check(3, "a @ b, batched", values(a), as, values(b), bs);
    for (size_t k = 0; k < r.size(); ++k) CHECK(values(runs[1][k]) == values(r[k]));
  }
}

//===----------------------------------------------------------------------===//
// Shape manipulation and indexing
//===----------------------------------------------------------------------===//

TEST_CASE("tracer ops: transpose reshape broadcast_to expand_dims squeeze slice concat",
          "[tracer][ops]") {
  // No result is a function argument returned unchanged (see the file
  // comment), hence x2 = 2 * x in the ops that could fold to their operand.
  auto f = adjit::jit(
      [](Tensor x, Tensor row, Tensor col, Tensor y) {
        Tensor x2 = x * 2.0;
        return std::vector<Tensor>{
            transpose(x2),                                    // 0 [4,3,2]
            transpose(x2, {1, 0, 2}),                         // 1 [3,2,4]
            transpose(x2, {-1, 0, 1}),                        // 2 [4,2,3]
            reshape(x2, {6, -1}),                             // 3 [6,4]
            reshape(x2, {-1}),                                // 4 [24]
            reshape(x2, {2, 2, 3, 2}),                        // 5
            broadcast_to(row, {2, 3}),                        // 6
            broadcast_to(col, {2, 3, 4}),                     // 7 col [3,1]
            expand_dims(x2, 0),                               // 8 [1,2,3,4]
            expand_dims(x2, -1),                              // 9 [2,3,4,1]
            expand_dims(x2, 2),                               // 10 [2,3,1,4]
            squeeze(col, 1),                                  // 11 [3]
            squeeze(expand_dims(x2, 1), -3),                  // 12 [2,3,4]
            slice(x, {0, 1, 0}, {2, 3, 4}),                   // 13 [2,2,4]
            slice(x, {0, 0, 1}, {2, 3, 4}, {1, 2, 2}),        // 14 [2,2,2]
            slice(x, {1, 0, 0}, {2, 3, 4}, {1, 3, 3}),        // 15 [1,1,2]
            concat({x, y}, 0),                                // 16 [4,3,4] (y [2,3,4])
            concat({x, x2, y}, -1),                           // 17 [2,3,12]
            concat({slice(x, {0, 0, 0}, {2, 1, 4}), x}, 1)};  // 18 [2,4,4]
      },
      {.name = "shapes"});
  const Shape xs{2, 3, 4};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::randn(xs, 701, dt), row = Array::randn({3}, 702, dt),
          col = Array::randn({3, 1}, 703, dt), y = Array::randn(xs, 704, dt);
    Vec X = values(x), X2 = map(X, [](double v) { return 2 * v; }), R = values(row),
        C = values(col), Y = values(y);
    std::vector<Array> r = f(x, row, col, y);
    REQUIRE(r.size() == 19);
    Shape s;
    Vec t = transpose_ref(X2, xs, {2, 1, 0}, s);
    CHECK_ARRAY("transpose(x) reverses", r[0], dt, s, t, kExact);
    t = transpose_ref(X2, xs, {1, 0, 2}, s);
    CHECK_ARRAY("transpose(x, {1,0,2})", r[1], dt, s, t, kExact);
    t = transpose_ref(X2, xs, {2, 0, 1}, s);
    CHECK_ARRAY("transpose(x, {-1,0,1})", r[2], dt, s, t, kExact);
    CHECK_ARRAY("reshape(x, {6,-1})", r[3], dt, (Shape{6, 4}), X2, kExact);
    CHECK_ARRAY("reshape(x, {-1})", r[4], dt, (Shape{24}), X2, kExact);
    CHECK_ARRAY("reshape(x, {2,2,3,2})", r[5], dt, (Shape{2, 2, 3, 2}), X2, kExact);
    CHECK_ARRAY("broadcast_to(row[3], {2,3})", r[6], dt, (Shape{2, 3}),
                broadcast_ref(R, {3}, {2, 3}), kExact);
    CHECK_ARRAY("broadcast_to(col[3,1], {2,3,4})", r[7], dt, (Shape{2, 3, 4}),
                broadcast_ref(C, {3, 1}, {2, 3, 4}), kExact);
    CHECK_ARRAY("expand_dims(x, 0)", r[8], dt, (Shape{1, 2, 3, 4}), X2, kExact);
    CHECK_ARRAY("expand_dims(x, -1)", r[9], dt, (Shape{2, 3, 4, 1}), X2, kExact);
    CHECK_ARRAY("expand_dims(x, 2)", r[10], dt, (Shape{2, 3, 1, 4}), X2, kExact);
    CHECK_ARRAY("squeeze(col, 1)", r[11], dt, (Shape{3}), C, kExact);
    CHECK_ARRAY("squeeze(expand_dims(x, 1), -3)", r[12], dt, xs, X2, kExact);
    t = slice_ref(X, xs, {0, 1, 0}, {2, 3, 4}, {1, 1, 1}, s);
    CHECK_ARRAY("slice(x, {0,1,0}, {2,3,4})", r[13], dt, s, t, kExact);
    t = slice_ref(X, xs, {0, 0, 1}, {2, 3, 4}, {1, 2, 2}, s);
    CHECK_ARRAY("slice(x, {0,0,1}, {2,3,4}, {1,2,2})", r[14], dt, s, t, kExact);
    t = slice_ref(X, xs, {1, 0, 0}, {2, 3, 4}, {1, 3, 3}, s);
    CHECK_ARRAY("slice(x, {1,0,0}, {2,3,4}, {1,3,3})", r[15], dt, s, t, kExact);
    CHECK_ARRAY("concat({x, y}, 0)", r[16], dt, (Shape{4, 3, 4}), cat({X, Y}), kExact);
    {
      Vec want;
      for (int64_t i = 0; i < 6; ++i)
        for (const Vec* part : {&X, &X2, &Y})
          want.insert(want.end(), part->begin() + 4 * i, part->begin() + 4 * i + 4);
      CHECK_ARRAY("concat({x, 2x, y}, -1)", r[17], dt, (Shape{2, 3, 12}), want, kExact);
    }
    {
      Vec want;
      for (int64_t b = 0; b < 2; ++b) {
        want.insert(want.end(), X.begin() + 12 * b, X.begin() + 12 * b + 4);
        want.insert(want.end(), X.begin() + 12 * b, X.begin() + 12 * b + 12);
      }
      CHECK_ARRAY("concat({x[:, :1], x}, 1)", r[18], dt, (Shape{2, 4, 4}), want, kExact);
    }
  }
}

TEST_CASE("tracer ops: transposes of every dtype in whole tiles and remainders, alone and fused",
          "[tracer][ops]") {
  // adjit-vectorize transposes square tiles in registers and runs what
  // whole tiles leave one element at a time; shapes here have both.
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  const Case cases[] = {{{37, 53}, {1, 0}}, {{64, 48}, {1, 0}}, {{3, 40, 20}, {0, 2, 1}},
                        {{20, 3, 40}, {2, 1, 0}}, {{5, 17}, {1, 0}}, {{300, 100}, {1, 0}}};
  // Element i of x transposed by perm, as a flat index into x.
  auto source_index = [](const Shape& shape, const std::vector<int64_t>& perm, int64_t i) {
    Shape out_shape;
    for (int64_t p : perm) out_shape.push_back(shape[p]);
    std::vector<int64_t> out_index(perm.size()), in_index(perm.size());
    for (int64_t d = static_cast<int64_t>(perm.size()) - 1; d >= 0; --d) {
      out_index[d] = i % out_shape[d];
      i /= out_shape[d];
    }
    for (size_t d = 0; d < perm.size(); ++d) in_index[perm[d]] = out_index[d];
    int64_t flat = 0;
    for (size_t d = 0; d < perm.size(); ++d) flat = flat * shape[d] + in_index[d];
    return flat;
  };
  for (const Case& c : cases)
    for (DType dt : all_dtypes) {
      INFO("case " << (&c - cases) << " dtype " << dtype_name(dt));
      Vec random = values(Array::uniform(c.shape, 620, -8, 8, F64));
      for (double& v : random) v = std::round(v);  // exact in every dtype
      Array x = make(random, c.shape, dt);
      std::vector<int> perm(c.perm.begin(), c.perm.end());
      auto f = adjit::jit([perm](Tensor x) {
        // The fused form adds a value per row of the result (its leading
        // dimension), read once per row of a tile.
        Tensor t = transpose(x, perm);
        Shape column(t.shape().size(), 1);
        column[0] = t.shape()[0];
        Tensor rows = reshape(cast(arange(t.shape()[0]), t.dtype()), column);
        Tensor fused = t.dtype() == DType::i1 ? logical_not(t) : t + rows;
        return std::vector<Tensor>{t, fused};
      });
      std::vector<Array> r = f(x);
      REQUIRE(r.size() == 2);
      Vec want_t, want_fused;
      Shape out_shape;
      for (int64_t p : c.perm) out_shape.push_back(c.shape[p]);
      int64_t row_size = r[0].size() / out_shape[0];
      for (int64_t i = 0; i < r[0].size(); ++i) {
        double v = random[source_index(c.shape, c.perm, i)];
        want_t.push_back(dt == DType::i1 ? double(v != 0) : v);
        want_fused.push_back(dt == DType::i1 ? double(v == 0) : v + double(i / row_size));
      }
      CHECK_ARRAY("transpose", r[0], dt, out_shape, want_t, Tol{});
      CHECK_ARRAY("transpose, fused", r[1], dt, out_shape, want_fused, Tol{});
    }
}

TEST_CASE("tracer ops: elementwise ops over short rows run flattened, every thread count",
          "[tracer][ops][threads]") {
  // adjit-flatten-short-rows runs these over their operands collapsed to
  // one row; a slice of a row's first columns is not collapsed (it is not
  // contiguous). Per-row values (a broadcast row, a row's length) are
  // spread over whole registers of rows where the rows are whole groups
  // (1024 x 3, 2048 x 6, 4096 x 10), one row at a time elsewhere.
  const Shape shapes[] = {{1000, 3}, {37, 10}, {4099, 1}, {5, 2, 3}, {333, 4},
                          {1024, 3}, {2048, 6}, {4096, 10}, {64, 4, 5}};
  for (const Shape& shape : shapes)
    for (DType dt : {F32, F64}) {
      INFO(dtype_name(dt) << " " << shape.size() << "-d, last " << shape.back());
      Shape wide = shape;
      wide.back() *= 2;
      // The inputs as the dtype holds them: the references start from them.
      auto input = [&](const Shape& s, uint64_t seed) {
        return values(make(values(Array::uniform(s, seed, -3, 3, F64)), s, dt));
      };
      Shape row_shape = shape;
      row_shape.back() = 1;
      Vec p = input(shape, 630), v = input(shape, 631), w = input(wide, 632), row = input(row_shape, 633);
      std::vector<std::vector<Array>> runs;
      for (int threads : {1, 2}) {
        auto f = adjit::jit(
            [shape](Tensor p, Tensor v, Tensor w, Tensor row) {
              Shape begin(shape.size(), 0);
              Tensor first_columns = slice(w, begin, shape);
              Tensor unit = p * rsqrt(sum(square(p), {-1}, true));
              return std::vector<Tensor>{p + v * 0.25, exp(p), where(p > v, p, v), exp(first_columns),
                                         p - row, unit + row, where(row > 0.0, p, v * row)};
            },
            {.threads = threads});
        runs.push_back(f(make(p, shape, dt), make(v, shape, dt), make(w, wide, dt), make(row, row_shape, dt)));
      }
      const std::vector<Array>& r = runs.front();
      REQUIRE(r.size() == 7);
      Vec want_step, want_exp, want_where, want_first, want_row, want_unit, want_row_where;
      int64_t last = shape.back();
      for (size_t i = 0; i < p.size(); ++i) {
        int64_t outer = static_cast<int64_t>(i) / last, column = static_cast<int64_t>(i) % last;
        want_step.push_back(p[i] + v[i] * 0.25);
        want_exp.push_back(std::exp(p[i]));
        want_where.push_back(p[i] > v[i] ? p[i] : v[i]);
        want_first.push_back(std::exp(w[outer * 2 * last + column]));
        want_row.push_back(p[i] - row[outer]);
        double length = 0;
        for (int64_t c = 0; c < last; ++c) length += p[outer * last + c] * p[outer * last + c];
        want_unit.push_back(p[i] / std::sqrt(length) + row[outer]);
        want_row_where.push_back(row[outer] > 0 ? p[i] : v[i] * row[outer]);
      }
      CHECK_ARRAY("p + v * dt", r[0], dt, shape, want_step, exact_tol(dt));
      CHECK_ARRAY("exp", r[1], dt, shape, want_exp, transcendental_tol(dt));
      CHECK_ARRAY("where", r[2], dt, shape, want_where, exact_tol(dt));
      CHECK_ARRAY("exp of the first columns", r[3], dt, shape, want_first, transcendental_tol(dt));
      CHECK_ARRAY("minus a per-row value", r[4], dt, shape, want_row, exact_tol(dt));
      CHECK_ARRAY("unit rows plus a per-row value", r[5], dt, shape, want_unit, composite_tol(dt));
      CHECK_ARRAY("where a per-row value is positive", r[6], dt, shape, want_row_where, exact_tol(dt));
      for (size_t k = 0; k < r.size(); ++k) CHECK(values(runs[1][k]) == values(r[k]));
    }
}

TEST_CASE("tracer ops: take along the last axis gathers in vectors", "[tracer][ops]") {
  // 70 indices per row: two vectors of 32 lanes and a remainder, negative
  // ones from the end, out-of-range ones clamped; f32, f64 and i32.
  auto f = adjit::jit([](Tensor x, Tensor i) { return take(x, i, 1); }, {.name = "take_columns"});
  const int64_t rows = 9, columns = 50, picks = 70;
  Vec index_values = values(Array::uniform({picks}, 660, -60, 60, DType::i32));
  Array indices = make(index_values, {picks}, I32);
  for (DType dt : {F32, F64, I32}) {
    INFO("dtype " << dtype_name(dt));
    Vec v = values(Array::uniform({rows, columns}, 661, -100, 100, F64));
    for (double& x : v) x = std::floor(x);
    Array x = make(v, {rows, columns}, dt);
    Vec want;
    for (int64_t r = 0; r < rows; ++r)
      for (double i : index_values) {
        int64_t c = static_cast<int64_t>(i);
        if (c < 0) c += columns;
        c = std::clamp<int64_t>(c, 0, columns - 1);
        want.push_back(v[r * columns + c]);
      }
    CHECK_ARRAY("take(x, i, 1)", f(x, indices), dt, (Shape{rows, picks}), want, kExact);
  }
}

TEST_CASE("tracer ops: take along the first axis reads whole rows in vectors", "[tracer][ops]") {
  // Rows of 70: two vectors of 32 lanes and a remainder, read as vectors at
  // each picked row (not gathered); negative indices from the end, out of
  // range ones clamped; f32, f64, i32 and bf16.
  auto f = adjit::jit([](Tensor x, Tensor i) { return take(x, i, 0); }, {.name = "take_rows"});
  const int64_t rows = 9, columns = 70, picks = 13;
  Vec index_values = values(Array::uniform({picks}, 664, -12, 12, DType::i32));
  Array indices = make(index_values, {picks}, I32);
  for (DType dt : {F32, F64, I32, BF16}) {
    INFO("dtype " << dtype_name(dt));
    Vec v = values(Array::uniform({rows, columns}, 665, -100, 100, F64));
    for (double& x : v) x = std::floor(x);
    Array x = make(v, {rows, columns}, dt);
    Vec want;
    for (double i : index_values) {
      int64_t r = static_cast<int64_t>(i);
      r = std::clamp<int64_t>(r < 0 ? r + rows : r, 0, rows - 1);
      want.insert(want.end(), v.begin() + r * columns, v.begin() + (r + 1) * columns);
    }
    CHECK_ARRAY("take(x, i, 0)", f(x, indices), dt, (Shape{picks, columns}), want, kExact);
  }
}

// Regression: a take from a slice with strides gathered from a strided view,
// which LLVM's lowering of vector gathers does not take (compile error).
TEST_CASE("tracer ops: take from a slice with strides, along either axis", "[tracer][ops]") {
  const int64_t rows = 6, columns = 40;
  Vec v = values(Array::uniform({rows, columns}, 663, -100, 100, F64));
  for (double& x : v) x = std::floor(x);
  Vec index_values = {1, 1, 0, -1, 12, 19, 5, 30, 2, 7, 18, 3, 0, 9, 4, 11, 6, 8};
  Array indices = make(index_values, {18}, I32);
  for (DType dt : {F32, F64, I32}) {
    INFO("dtype " << dtype_name(dt));
    Array x = make(v, {rows, columns}, dt);
    // Columns 1, 4, 7, ... (13 of them), then every other row.
    auto columns_of = adjit::jit([](Tensor x, Tensor i) {
      return take(slice(x, {0, 1}, {6, 40}, {1, 3}), i, 1);
    });
    auto rows_of = adjit::jit([](Tensor x, Tensor i) {
      return take(slice(x, {1, 0}, {6, 40}, {2, 1}), i, 0);
    });
    auto pick = [](double i, int64_t extent) {
      int64_t c = static_cast<int64_t>(i);
      return std::clamp<int64_t>(c < 0 ? c + extent : c, 0, extent - 1);
    };
    Vec want_columns, want_rows;
    for (int64_t r = 0; r < rows; ++r)
      for (double i : index_values) want_columns.push_back(v[r * columns + 1 + 3 * pick(i, 13)]);
    for (double i : index_values)
      for (int64_t c = 0; c < columns; ++c)
        want_rows.push_back(v[(1 + 2 * pick(i, 3)) * columns + c]);
    CHECK_ARRAY("take(strided columns, i, 1)", columns_of(x, indices), dt, (Shape{rows, 18}),
                want_columns, kExact);
    CHECK_ARRAY("take(strided rows, i, 0)", rows_of(x, indices), dt, (Shape{18, columns}),
                want_rows, kExact);
  }
}

TEST_CASE("tracer ops: take (negative indices from the end, clamped), one_hot", "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor x, Tensor idx, Tensor idx2, Tensor labels) {
        return std::vector<Tensor>{take(x, idx, 0),        take(x, idx, 1),
                                   take(x, idx2, -1),      take(x, idx2, 0),
                                   one_hot(labels, 5),     one_hot(labels, 3, F64),
                                   one_hot(labels, 4, I32), one_hot(idx2, 4)};
      },
      {.name = "take"});
  const Shape xs{4, 3};
  // -1 is the last entry; 99 and -5 (-5 + 4 on axis 0, -5 + 3 on axis 1)
  // are out of range: clamped to the last / first entry.
  const Vec I{2, 0, 3, 99, -1}, I2{1, 0, 2, -3, -5, 7};
  const Shape is{5}, i2s{2, 3};
  const Vec L{0, 4, 2, 7, -1};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Array x = Array::randn(xs, 801, dt);
    Vec X = values(x);
    std::vector<Array> r = f(x, make(I, is, I32), make(I2, i2s, I64), make(L, {5}, I32));
    REQUIRE(r.size() == 8);
    Shape s;
    Vec t = take_ref(X, xs, I, is, 0, s);
    CHECK_ARRAY("take(x, idx, 0)", r[0], dt, s, t, kExact);
    t = take_ref(X, xs, I, is, 1, s);
    CHECK_ARRAY("take(x, idx, 1)", r[1], dt, s, t, kExact);
    t = take_ref(X, xs, I2, i2s, 1, s);
    CHECK_ARRAY("take(x, idx2 (i64 [2,3]), -1)", r[2], dt, s, t, kExact);
    t = take_ref(X, xs, I2, i2s, 0, s);
    CHECK_ARRAY("take(x, idx2, 0)", r[3], dt, s, t, kExact);
    auto hot = [](const Vec& labels, int depth) {
      Vec out;
      for (double l : labels)
        for (int k = 0; k < depth; ++k) out.push_back(l == k ? 1.0 : 0.0);
      return out;
    };
    CHECK_ARRAY("one_hot(labels, 5) (out of range -> zero row)", r[4], F32, (Shape{5, 5}),
                hot(L, 5), kExact);
    CHECK_ARRAY("one_hot(labels, 3, f64)", r[5], F64, (Shape{5, 3}), hot(L, 3), kExact);
    CHECK_ARRAY("one_hot(labels, 4, i32)", r[6], I32, (Shape{5, 4}), hot(L, 4), kExact);
    CHECK_ARRAY("one_hot(i64 [2,3], 4)", r[7], F32, (Shape{2, 3, 4}), hot(I2, 4), kExact);
  }
}

TEST_CASE("tracer ops: take of bools, along either axis", "[tracer][ops]") {
  // A gather of bools runs as scalar code (a vector gather would read them
  // bit-packed).
  auto f = adjit::jit([](Tensor x, Tensor i) {
    return std::vector<Tensor>{take(x, i, 0), take(x, i, 1), take(reshape(x, {6}), i, 0)};
  });
  const Vec X{1, 0, 0, 1, 1, 0}, I{2, -1, 0, 1};
  std::vector<Array> r = f(make(X, {3, 2}, I1), make(I, {4}, I32));
  REQUIRE(r.size() == 3);
  CHECK_ARRAY("take(x, i, 0)", r[0], I1, (Shape{4, 2}), (Vec{1, 0, 1, 0, 1, 0, 0, 1}), kExact);
  CHECK_ARRAY("take(x, i, 1) (2 clamped to 1)", r[1], I1, (Shape{3, 4}),
              (Vec{0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0}), kExact);
  CHECK_ARRAY("take(flat x, i, 0)", r[2], I1, (Shape{4}), (Vec{0, 0, 1, 0}), kExact);
}

TEST_CASE("tracer ops: full of an integer dtype converts as cast does", "[tracer][ops]") {
  // Toward zero, saturated, NaN as 0 (JAX's full), where the constant used
  // to wrap: 1e10 became 1410065408.
  double nan = std::nan("");
  auto f = adjit::jit([nan](Tensor x) {
    return std::vector<Tensor>{full({1}, 1e10, I32),      full({1}, -1e10, I32),
                               full({1}, INFINITY, I64), full({1}, nan, I64),
                               full({1}, -2.9, I32),     cast(x, I32)};
  });
  std::vector<Array> r = f(make({1e10}, {1}, F64));
  REQUIRE(r.size() == 6);
  CHECK(r[0].to_vector<int32_t>() == std::vector<int32_t>{INT32_MAX});
  CHECK(r[1].to_vector<int32_t>() == std::vector<int32_t>{INT32_MIN});
  CHECK(r[2].to_vector<int64_t>() == std::vector<int64_t>{INT64_MAX});
  CHECK(r[3].to_vector<int64_t>() == std::vector<int64_t>{0});
  CHECK(r[4].to_vector<int32_t>() == std::vector<int32_t>{-2});
  CHECK(r[5].to_vector<int32_t>() == r[0].to_vector<int32_t>());
}

//===----------------------------------------------------------------------===//
// Constants, casts
//===----------------------------------------------------------------------===//

TEST_CASE("tracer ops: full zeros_like ones_like arange cast", "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor x, Tensor n) {
        return std::vector<Tensor>{
            full({2, 3}, 1.5),          full({}, 7, I32),       full({2}, -2.25, F64),  // 0-2
            full({3}, 1, I1),           zeros_like(x),          ones_like(x),           // 3-5
            ones_like(n),               arange(5),              arange(4, F32),         // 6-8
            arange(3, I64),             cast(x, I32),           cast(x, I1),            // 9-11
            cast(-x, F64),              cast(x, I64),           cast(n, I1),            // 12-14
            cast(n, F32),               cast(x > 0.0, F32),     cast(n, I64),           // 15-17
            x + full({1}, 0.5)};                                                       // 18
      },
      {.name = "create"});
  const Vec X{2.7, -2.7, 0.5, -0.0, 100.9, -0.5};
  const Vec N{3, -4, 0};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Vec Xr = values(make(X, {6}, dt));  // as stored in dt
    std::vector<Array> r = f(make(X, {6}, dt), make(N, {3}, I32));
    REQUIRE(r.size() == 19);
    CHECK_ARRAY("full({2,3}, 1.5)", r[0], F32, (Shape{2, 3}), Vec(6, 1.5), kExact);
    CHECK_ARRAY("full({}, 7, i32)", r[1], I32, (Shape{}), (Vec{7}), kExact);
    CHECK_ARRAY("full({2}, -2.25, f64)", r[2], F64, (Shape{2}), (Vec{-2.25, -2.25}), kExact);
    CHECK_ARRAY("full({3}, 1, i1)", r[3], I1, (Shape{3}), (Vec{1, 1, 1}), kExact);
    CHECK_ARRAY("zeros_like(x)", r[4], dt, (Shape{6}), Vec(6, 0.0), kExact);
    CHECK_ARRAY("ones_like(x)", r[5], dt, (Shape{6}), Vec(6, 1.0), kExact);
    CHECK_ARRAY("ones_like(n i32)", r[6], I32, (Shape{3}), Vec(3, 1.0), kExact);
    CHECK_ARRAY("arange(5)", r[7], I32, (Shape{5}), (Vec{0, 1, 2, 3, 4}), kExact);
    CHECK_ARRAY("arange(4, f32)", r[8], F32, (Shape{4}), (Vec{0, 1, 2, 3}), kExact);
    CHECK_ARRAY("arange(3, i64)", r[9], I64, (Shape{3}), (Vec{0, 1, 2}), kExact);
    CHECK_ARRAY("cast(x, i32) truncates toward zero", r[10], I32, (Shape{6}),
                (Vec{2, -2, 0, 0, 100, 0}), kExact);
    CHECK_ARRAY("cast(x, i1) is x != 0", r[11], I1, (Shape{6}), (Vec{1, 1, 1, 0, 1, 1}), kExact);
    CHECK_ARRAY("cast(-x, f64)", r[12], F64, (Shape{6}), map(Xr, [](double v) { return -v; }),
                kExact);
    CHECK_ARRAY("cast(x, i64)", r[13], I64, (Shape{6}), (Vec{2, -2, 0, 0, 100, 0}), kExact);
    CHECK_ARRAY("cast(n, i1)", r[14], I1, (Shape{3}), (Vec{1, 1, 0}), kExact);
    CHECK_ARRAY("cast(n i32, f32)", r[15], F32, (Shape{3}), N, kExact);
    CHECK_ARRAY("cast(x > 0, f32)", r[16], F32, (Shape{6}), (Vec{1, 0, 1, 0, 1, 0}), kExact);
    CHECK_ARRAY("cast(n, i64)", r[17], I64, (Shape{3}), N, kExact);
    CHECK_ARRAY("x + full({1}, 0.5)", r[18], dt, (Shape{6}),
                values(make(map(Xr, [](double v) { return v + 0.5; }), {6}, dt)), kExact);
  }
}

namespace {
// `x` rounded once, to nearest even, into f16 or bf16.
double to_f16(double x) { return static_cast<double>(round_to_format(x, F16)); }
double to_bf16(double x) { return static_cast<double>(round_to_format(x, BF16)); }
}  // namespace

TEST_CASE("tracer ops: casts into f16 and bf16 round once", "[tracer][ops]") {
  // Values next to half-format midpoints catch double rounding through f32
  // (tests/ir/run-convert-double-rounding.mlir): 1.0004882812500009 -> f16
  // is 1.0009765625, not 1; 16842753 -> bf16 is 16908288, not 16777216
  // (and inf in f16).
  auto f = adjit::jit(
      [](Tensor x, Tensor n) {
        return std::vector<Tensor>{cast(x, F16), cast(x, BF16), cast(n, F16), cast(n, BF16)};
      },
      {.name = "cast_half"});
  const Vec X{2.7, -2.7, 0.5, 100.9, 1.0 / 3, 65504, 1e-5, 1.0004882812500009,
              1.0039062500000002};
  const Vec N{3, -4, 2049, 16842753};
  const Shape xs{9}, ns{4};
  for (DType dt : {F32, F64}) {
    INFO("source dtype " << dtype_name(dt));
    Vec Xs = values(make(X, xs, dt));  // as stored in dt
    std::vector<Array> r;
    try {
      r = f(make(X, xs, dt), make(N, ns, I32));
    } catch (const std::exception& e) {
      FAIL_CHECK("compilation failed: " << e.what());
      continue;
    }
    REQUIRE(r.size() == 4);
    CHECK_ARRAY("cast(x, f16)", r[0], F16, xs, map(Xs, to_f16), kExact);
    CHECK_ARRAY("cast(x, bf16)", r[1], BF16, xs, map(Xs, to_bf16), kExact);
    CHECK_ARRAY("cast(n i32, f16)", r[2], F16, ns, map(N, to_f16), kExact);
    CHECK_ARRAY("cast(n i32, bf16)", r[3], BF16, ns, map(N, to_bf16), kExact);
  }
}

TEST_CASE("tracer ops: 0-d and empty tensors", "[tracer][ops]") {
  auto f = adjit::jit(
      [](Tensor s, Tensor e, Tensor m) {
        return std::vector<Tensor>{
            s * 2.0 + 1.0,                  // 0 []
            reshape(s, {1, 1}) * 3.0,       // 1 [1,1]
            broadcast_to(s, {2, 3}) - 1.0,  // 2 [2,3]
            e * 2.0,                        // 3 [0,3]
            sum(e, {0}),                    // 4 [3]: zeros
            sum(e),                         // 5 []: 0
            mean(e, {0}),                   // 6 [3]: NaN (0/0)
            concat({e, m}, 0),              // 7 [2,3]
            slice(m, {0, 1}, {2, 1}),       // 8 [2,0]
            arange(0, F32) + arange(-3, F32),  // 9 [0]: numpy's arange(-3) too
            transpose(e),                   // 10 [3,0]
            matmul(e, transpose(m)),        // 11 [0,2]
            matmul(transpose(e), e),        // 12 [3,3]: zeros (k = 0)
            max(s * 2.0),                   // 13 []
            where(s > 0.0, m, 0.0),         // 14 [2,3]
            sum(m, {1}, true) + s};         // 15 [2,1]
      },
      {.name = "edge_shapes"});
  Array s = Array::scalar(1.5f), e = Array::zeros({0, 3}), m = Array::uniform({2, 3}, 1, -1, 1);
  Vec M = values(m);
  std::vector<Array> r = f(s, e, m);
  REQUIRE(r.size() == 16);
  CHECK_ARRAY("s * 2 + 1", r[0], F32, (Shape{}), (Vec{4}), kExact);
  CHECK_ARRAY("reshape(s, {1,1}) * 3", r[1], F32, (Shape{1, 1}), (Vec{4.5}), kExact);
  CHECK_ARRAY("broadcast_to(s, {2,3}) - 1", r[2], F32, (Shape{2, 3}), Vec(6, 0.5), kExact);
  CHECK_ARRAY("e * 2", r[3], F32, (Shape{0, 3}), Vec{}, kExact);
  CHECK_ARRAY("sum(e, {0})", r[4], F32, (Shape{3}), Vec(3, 0.0), kExact);
  CHECK_ARRAY("sum(e)", r[5], F32, (Shape{}), (Vec{0}), kExact);
  CHECK_ARRAY("mean(e, {0})", r[6], F32, (Shape{3}), Vec(3, std::nan("")), kExact);
  CHECK_ARRAY("concat({e, m}, 0)", r[7], F32, (Shape{2, 3}), M, kExact);
  CHECK_ARRAY("slice(m, {0,1}, {2,1})", r[8], F32, (Shape{2, 0}), Vec{}, kExact);
  CHECK_ARRAY("arange(0) + arange(-3)", r[9], F32, (Shape{0}), Vec{}, kExact);
  CHECK_ARRAY("transpose(e)", r[10], F32, (Shape{3, 0}), Vec{}, kExact);
  CHECK_ARRAY("[0,3] @ [3,2]", r[11], F32, (Shape{0, 2}), Vec{}, kExact);
  CHECK_ARRAY("[3,0] @ [0,3]", r[12], F32, (Shape{3, 3}), Vec(9, 0.0), kExact);
  CHECK_ARRAY("max(0-d)", r[13], F32, (Shape{}), (Vec{3}), kExact);
  CHECK_ARRAY("where(0-d cond, m, 0)", r[14], F32, (Shape{2, 3}), M, kExact);
  Vec rows{static_cast<float>(static_cast<float>(M[0] + M[1]) + M[2]) + 1.5,
           static_cast<float>(static_cast<float>(M[3] + M[4]) + M[5]) + 1.5};
  CHECK_ARRAY("sum(m, {1}, keepdims) + s", r[15], F32, (Shape{2, 1}), rows, (Tol{1e-6, 1e-6}));
  // Empty reductions without an identity are trace errors.
  auto g = adjit::jit([](Tensor x) { return max(x, {0}); });
  CHECK_THROWS_AS(g(Array::zeros({0, 3})), TraceError);
  // logsumexp of nothing is log(0) = -inf (as in JAX); softmax and
  // log_softmax along an empty axis are empty. None needs a max to shift by.
  auto h = adjit::jit([](Tensor x) {
    return std::make_tuple(logsumexp(x, {0}), logsumexp(x, {0}, true), logsumexp(x),
                           softmax(x, 0), log_softmax(x, 0), softmax(x, 1));
  });
  auto [lse, lse_kept, lse_all, sm0, lsm0, sm1] = h(Array::zeros({0, 3}));
  Vec minus_inf(3, -std::numeric_limits<double>::infinity());
  CHECK_ARRAY("logsumexp(e, {0})", lse, F32, (Shape{3}), minus_inf, kExact);
  CHECK_ARRAY("logsumexp(e, {0}, keepdims)", lse_kept, F32, (Shape{1, 3}), minus_inf, kExact);
  CHECK_ARRAY("logsumexp(e)", lse_all, F32, (Shape{}), (Vec{minus_inf[0]}), kExact);
  CHECK_ARRAY("softmax(e, 0)", sm0, F32, (Shape{0, 3}), Vec{}, kExact);
  CHECK_ARRAY("log_softmax(e, 0)", lsm0, F32, (Shape{0, 3}), Vec{}, kExact);
  CHECK_ARRAY("softmax(e, 1)", sm1, F32, (Shape{0, 3}), Vec{}, kExact);
  auto dlse = adjit::grad([](Tensor x) { return sum(logsumexp(x, {1})); });
  CHECK_ARRAY("grad of logsumexp over an empty axis", dlse(Array::zeros({2, 0})), F32,
              (Shape{2, 0}), Vec{}, kExact);
}

TEST_CASE("tracer ops: slice with a stride past the dimension takes one element",
          "[tracer][ops]") {
  // The result's length is computed without overflow for any stride.
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  auto f = jit([](Tensor x) {
    return std::make_tuple(slice(x * 2.0, {0}, {4}, {kHuge}), slice(x * 2.0, {1}, {4}, {kHuge - 1}),
                           slice(x * 2.0, {4}, {4}, {kHuge}));
  });
  auto [first, second, none] = f(Array::from<float>({1, 2, 3, 4}, {4}));
  CHECK(first.to_vector<float>() == std::vector<float>{2});
  CHECK(second.to_vector<float>() == std::vector<float>{4});
  CHECK(none.shape() == Shape{0});
}

TEST_CASE("tracer ops: a slice of elementwise work computes only what it takes",
          "[tracer][ops]") {
  // x[5:25:2] of exp(x) * 2 + iota takes 10 exponentials; the plan holds
  // no temporary of x's size (4 MB).
  const int64_t n = 1 << 20;
  auto f = jit([](Tensor x, Tensor m) {
    Tensor y = where(m, exp(x) * 2.0 + cast(arange(x.shape()[0], DType::i64), DType::f32), x);
    return slice(y, {5}, {25}, {2});
  });
  std::vector<float> values(n);
  Vec mask(n);
  for (int64_t i = 0; i < n; ++i) {
    values[i] = std::sin(0.001f * static_cast<float>(i));
    mask[i] = i % 3 != 0;
  }
  Array x = Array::from(values, {n});
  Array m = make(mask, {n}, I1);
  std::vector<float> got = f(x, m).to_vector<float>();
  REQUIRE(got.size() == 10);
  for (int64_t k = 0; k < 10; ++k) {
    int64_t i = 5 + 2 * k;
    float want = mask[i] != 0 ? std::exp(values[i]) * 2.0f + static_cast<float>(i) : values[i];
    CHECK(got[k] == Approx(want).epsilon(1e-6));
  }
  CHECK(f.lower(x, m).memory_plan().peak_bytes < 4 * n);
  // Its gradient in both modes.
  using ad::Fn;
  ad::expect_grads("slice of exp", FN(slice(exp(x[0]) * x[0], {1}, {7}, {3})),
                   {Array::randn({8}, 3, F64)}, 2);
}

TEST_CASE("tracer ops: a DType outside the enum is a TraceError naming the op", "[tracer][ops]") {
  const auto bad = static_cast<DType>(42);
  for (auto [op, run] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"adjit::cast", [&] { jit([&](Tensor x) { return cast(x, bad); })(Array::ones({2})); }},
           {"adjit::full", [&] { jit([&](Tensor x) { return x + full({2}, 1.0, bad); })(Array::ones({2})); }},
           {"adjit::arange", [&] { jit([&](Tensor x) { return x + arange(2, bad); })(Array::ones({2})); }},
       }) {
    std::string message = what_of<TraceError>(run);
    INFO(message);
    CHECK(contains(message, op + ": invalid dtype 42"));
    CHECK(contains(message, "test_compiler_tracer_ops_jit.cpp:"));
  }
}

TEST_CASE("tracer ops: diagonal and trace, any offset and pair of axes, and their gradients",
          "[tracer][ops]") {
  // x [2,3,4]: diagonals of axes (1,2) at offsets 0, 2, -1, -3 (empty),
  // of axes (2,0), and of a square matrix; traces alike.
  auto f = adjit::jit([](Tensor x, Tensor m) {
    return std::vector<Tensor>{diagonal(x, 0, 1, 2), diagonal(x, 2, 1, 2),  diagonal(x, -1, -2, -1),
                               diagonal(x, -3, 1, 2), diagonal(x, 1, 2, 0), diagonal(m),
                               trace(m),              trace(x, 1, 1, 2)};
  });
  Array x = Array::randn({2, 3, 4}, 801, F64), m = Array::randn({3, 3}, 802, F64);
  Vec X = values(x), M = values(m);
  auto at = [&](int64_t a, int64_t b, int64_t c) { return X[(a * 3 + b) * 4 + c]; };
  // The reference: element (rest..., k) is x at i = k + first_row,
  // j = k + first_col along the two axes.
  auto reference = [&](int offset, int axis1, int axis2, Shape& shape) {
    Shape dims{2, 3, 4};
    int other = 3 - axis1 - axis2;
    int64_t rows = dims[axis1], cols = dims[axis2];
    int64_t r0 = offset < 0 ? -offset : 0, c0 = offset > 0 ? offset : 0;
    int64_t length = std::max<int64_t>(0, std::min(rows - r0, cols - c0));
    shape = {dims[other], length};
    Vec out;
    for (int64_t o = 0; o < dims[other]; ++o)
      for (int64_t k = 0; k < length; ++k) {
        int64_t index[3];
        index[other] = o, index[axis1] = k + r0, index[axis2] = k + c0;
        out.push_back(at(index[0], index[1], index[2]));
      }
    return out;
  };
  std::vector<Array> got = f(x, m);
  Shape s;
  Vec want = reference(0, 1, 2, s);
  CHECK_ARRAY("diagonal(x, 0, 1, 2)", got[0], F64, s, want, kExact);
  want = reference(2, 1, 2, s);
  CHECK_ARRAY("diagonal(x, 2, 1, 2)", got[1], F64, s, want, kExact);
  want = reference(-1, 1, 2, s);
  CHECK_ARRAY("diagonal(x, -1, -2, -1)", got[2], F64, s, want, kExact);
  CHECK(got[3].shape() == Shape{2, 0});
  want = reference(1, 2, 0, s);
  CHECK_ARRAY("diagonal(x, 1, 2, 0)", got[4], F64, s, want, kExact);
  CHECK_ARRAY("diagonal(m)", got[5], F64, Shape{3}, (Vec{M[0], M[4], M[8]}), kExact);
  CHECK_ARRAY("trace(m)", got[6], F64, Shape{}, (Vec{M[0] + M[4] + M[8]}), (Tol{1e-15, 1e-15}));
  Vec traces;
  for (int64_t a = 0; a < 2; ++a) traces.push_back(at(a, 0, 1) + at(a, 1, 2) + at(a, 2, 3));
  CHECK_ARRAY("trace(x, 1, 1, 2)", got[7], F64, Shape{2}, traces, (Tol{1e-15, 1e-15}));
  using ad::Fn;
  ad::expect_grads("diagonal", FN(diagonal(x[0], -1, 2, 1) * diagonal(x[0], -1, 2, 1)), {x});
  ad::expect_grads("trace", FN(trace(x[0] * x[0], 1, 0, 2)), {x});
  // Errors name the op, the operand and the line.
  for (auto [run, parts] : std::vector<std::pair<std::function<void()>, std::vector<std::string>>>{
           {[] { adjit::jit([](Tensor v) { return trace(v); })(Array::zeros({4})); },
            {"trace", "f32[4]", "2 dimensions"}},
           {[] { adjit::jit([](Tensor v) { return diagonal(v, 0, 1, -1); })(Array::zeros({2, 3})); },
            {"diagonal", "f32[2,3]", "both axis 1"}},
           {[] { adjit::jit([](Tensor v) { return diagonal(v, 0, 0, 2); })(Array::zeros({2, 3})); },
            {"diagonal", "axis2"}}}) {
    std::string message = what_of<TraceError>(run);
    INFO(message);
    for (const std::string& part : parts) CHECK(contains(message, part));
    CHECK(contains(message, "test_compiler_tracer_ops_jit.cpp"));
  }
}
