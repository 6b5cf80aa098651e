// tan, asin, acos, atan, atan2, sinh, cosh, asinh, acosh, atanh, cbrt,
// log2, log10, ceil, round, clip, fmod, remainder and floor_divide: values against the C library (vector
// loops and their remainders, 0-d scalars, the edges of each domain, f32 and
// f64, integer inputs), gradients in both modes, and their errors.
// (test_compiler_math_accuracy.cpp measures the unary ones over their whole
// ranges.)
#include "test_support.h"

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

struct UnaryCase {
  std::string name;
  std::function<Tensor(const Tensor&)> op;
  double (*reference)(double);
  double lo, hi;           // the interior of the domain, for random points
  Vec edges;               // the domain's edges and special values
};

std::vector<UnaryCase> unary_cases() {
  return {
      {"tan", [](const Tensor& x) { return adjit::tan(x); }, [](double x) { return std::tan(x); },
       -1.5, 1.5, {0.0, -0.0, 1e-30, 100.0, kInf, kNaN}},
      {"asin", [](const Tensor& x) { return adjit::asin(x); },
       [](double x) { return std::asin(x); }, -1, 1, {-1.0, 1.0, -0.0, 1.5, -2.0, kNaN}},
      {"acos", [](const Tensor& x) { return adjit::acos(x); },
       [](double x) { return std::acos(x); }, -1, 1, {-1.0, 1.0, 0.0, 1.5, kNaN}},
      {"atan", [](const Tensor& x) { return adjit::atan(x); },
       [](double x) { return std::atan(x); }, -20, 20, {0.0, -0.0, 1e30, -kInf, kInf, kNaN}},
      {"sinh", [](const Tensor& x) { return adjit::sinh(x); },
       [](double x) { return std::sinh(x); }, -10, 10, {0.0, -0.0, 1e-20, -80.0, kInf, -kInf}},
      {"cosh", [](const Tensor& x) { return adjit::cosh(x); },
       [](double x) { return std::cosh(x); }, -10, 10, {0.0, -80.0, kInf, -kInf, kNaN}},
      {"asinh", [](const Tensor& x) { return adjit::asinh(x); },
       [](double x) { return std::asinh(x); }, -20, 20, {0.0, -0.0, -1e30, 1e-25, kInf, -kInf}},
      {"acosh", [](const Tensor& x) { return adjit::acosh(x); },
       [](double x) { return std::acosh(x); }, 1, 20, {1.0, 1e30, 0.5, kInf, kNaN}},
      {"atanh", [](const Tensor& x) { return adjit::atanh(x); },
       [](double x) { return std::atanh(x); }, -1, 1, {-1.0, 1.0, -0.0, 1e-25, 2.0, kNaN}},
      {"cbrt", [](const Tensor& x) { return adjit::cbrt(x); },
       [](double x) { return std::cbrt(x); }, -30, 30, {-8.0, 27.0, 0.0, -0.0, 1e-30, -kInf}},
      {"log2", [](const Tensor& x) { return adjit::log2(x); },
       [](double x) { return std::log2(x); }, 0.01, 100, {1.0, 8.0, 0.0, -1.0, kInf}},
      {"log10", [](const Tensor& x) { return adjit::log10(x); },
       [](double x) { return std::log10(x); }, 0.01, 100, {1.0, 1000.0, 0.0, -1.0, kInf}},
      {"ceil", [](const Tensor& x) { return adjit::ceil(x); },
       [](double x) { return std::ceil(x); }, -50, 50, {-0.5, 0.5, -0.0, 1e20, -kInf, kNaN}},
      {"round", [](const Tensor& x) { return adjit::round(x); },
       [](double x) { return std::nearbyint(x); }, -50, 50,
       {0.5, 1.5, 2.5, -0.5, -2.5, 3.5, 0.49999997, 1e20, kInf, kNaN}},
  };
}

// 37 points: a vector loop's body and its remainder.
Vec interior(double lo, double hi, int n = 37) {
  Vec v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * (i + 0.5) / n);
  return v;
}

// The reference on the inputs as the dtype holds them.
Vec reference(double (*f)(double), const Array& x) { return map(values(x), f); }

Tol tolerance(DType dtype) { return dtype == F32 ? Tol{2e-6, 1e-7} : Tol{4e-15, 1e-16}; }

}  // namespace

TEST_CASE("tracer ops: trigonometric, hyperbolic and rounding ops against the C library",
          "[tracer][ops][math-ops]") {
  for (DType dtype : {F32, F64})
    for (const UnaryCase& c : unary_cases()) {
      INFO(c.name << " on " << dtype_name(dtype));
      auto f = jit([op = c.op](Tensor x) { return op(x); });
      Vec points = interior(c.lo, c.hi);
      points.insert(points.end(), c.edges.begin(), c.edges.end());
      Shape shape{static_cast<int64_t>(points.size())};
      Array x = make(points, shape, dtype);
      Array got = f(x);
      CHECK_ARRAY(c.name, got, dtype, shape, reference(c.reference, x), tolerance(dtype));
      // Zeros keep the sign the C library gives them.
      Vec g = values(got), want = reference(c.reference, x);
      for (size_t i = 0; i < g.size(); ++i)
        if (want[i] == 0) CHECK(std::signbit(g[i]) == std::signbit(want[i]));
      // A 0-d tensor takes the scalar path (libm, not a vector library).
      Array scalar = make({points[3]}, {}, dtype);
      CHECK_ARRAY(c.name + " of a 0-d tensor", f(scalar), dtype, Shape{},
                  reference(c.reference, scalar), tolerance(dtype));
    }
}

TEST_CASE("tracer ops: the half-precision math ops are computed in f32 and rounded once",
          "[tracer][ops][math-ops]") {
  for (DType dtype : {F16, BF16})
    for (const UnaryCase& c : unary_cases()) {
      INFO(c.name << " on " << dtype_name(dtype));
      Vec points = interior(c.lo, c.hi, 9);
      Array x = make(points, {9}, dtype);
      Array got = jit([op = c.op](Tensor x) { return op(x); })(x);
      // The f32 result rounded to the half format: within half an ulp of
      // it. log2 and log10 are ln(x) / ln(b) in the half format, as in JAX:
      // two roundings.
      bool composed = c.name == "log2" || c.name == "log10";
      Vec want = reference(c.reference, x);
      Vec g = values(got);
      REQUIRE(got.dtype() == dtype);
      for (size_t i = 0; i < g.size(); ++i)
        CHECK(std::fabs(g[i] - want[i]) <=
              ulp_of(want[i], dtype) * (composed ? 1.5 : 0.5) + 1e-6 * std::fabs(want[i]));
    }
}

TEST_CASE("tracer ops: atan2 in every quadrant, on the axes, with signed zeros and infinities",
          "[tracer][ops][math-ops]") {
  Vec ys{1, 1, -1, -1, 0, -0.0, 0, -0.0, 2, -3, kInf, -kInf, kInf, 1, -1, kNaN, 1e-30, 5};
  Vec xs{1, -1, 1, -1, 1, 1, -1, -1, 0, 0, 1, 5, -kInf, kInf, -kInf, 1, -1e30, 1e-30};
  Shape shape{static_cast<int64_t>(ys.size())};
  for (DType dtype : {F32, F64}) {
    INFO(dtype_name(dtype));
    auto f = jit([](Tensor y, Tensor x) { return atan2(y, x); });
    Array y = make(ys, shape, dtype), x = make(xs, shape, dtype);
    Array got = f(y, x);
    Vec want;
    Vec yv = values(y), xv = values(x);
    for (size_t i = 0; i < yv.size(); ++i) want.push_back(std::atan2(yv[i], xv[i]));
    CHECK_ARRAY("atan2", got, dtype, shape, want, tolerance(dtype));
    Vec g = values(got);
    for (size_t i = 0; i < g.size(); ++i)
      if (want[i] == 0) CHECK(std::signbit(g[i]) == std::signbit(want[i]));
    // A long vector (the vector library's path) and a broadcast scalar.
    Vec angles = interior(-3.1, 3.1, 101);
    Vec sines = map(angles, [](double a) { return 2.5 * std::sin(a); });
    Vec cosines = map(angles, [](double a) { return 2.5 * std::cos(a); });
    Array long_got = f(make(sines, {101}, dtype), make(cosines, {101}, dtype));
    CHECK_ARRAY("atan2 of points on a circle", long_got, dtype, Shape{101}, angles,
                (dtype == F32 ? Tol{1e-6, 1e-6} : Tol{1e-14, 1e-14}));
    Array to_scalar = jit([](Tensor y) { return atan2(y, 2.0); })(make(sines, {101}, dtype));
    Vec want_scalar = map(values(make(sines, {101}, dtype)), [](double v) { return std::atan2(v, 2.0); });
    CHECK_ARRAY("atan2(y, 2)", to_scalar, dtype, Shape{101}, want_scalar, tolerance(dtype));
  }
  // Integers give f32 angles, as numpy's.
  Array got = jit([](Tensor y, Tensor x) { return atan2(y, x); })(
      Array::from<int32_t>({1, -1, 0}, {3}), Array::from<int32_t>({0, 0, -2}, {3}));
  CHECK_ARRAY("atan2 of i32", got, F32, Shape{3}, (Vec{std::numbers::pi / 2, -std::numbers::pi / 2, std::numbers::pi}),
              (Tol{1e-7, 0}));
}

TEST_CASE("tracer ops: fmod, remainder (%) and floor_divide: signs, zeros, infinities, integers",
          "[tracer][ops][math-ops]") {
  // Every sign combination, exact multiples, |a| < |b|, a huge quotient,
  // division by zero and by infinity, NaN.
  Vec as{7.5, -7.5, 7.5, -7.5, 6, -6, 0.25, -0.25, 1e30, 5, 5, kInf, kNaN, -0.0, 3, -3};
  Vec bs{2, 2, -2, -2, 3, 3, 4, 4, 3, 0, kInf, 2, 1, 1, -kInf, kInf};
  Shape shape{static_cast<int64_t>(as.size())};
  auto numpy_remainder = [](double a, double b) {
    // numpy's npy_divmod: fmod, moved by b where the signs differ; a zero
    // takes b's sign.
    if (b == 0) return kNaN;
    double mod = std::fmod(a, b);
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) mod += b;
    } else {
      mod = std::copysign(0.0, b);
    }
    return mod;
  };
  auto numpy_floor_divide = [](double a, double b) {
    if (b == 0) return a / b;
    double mod = std::fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
    return div == 0 ? std::copysign(0.0, a / b) : std::round(div);
  };
  for (DType dtype : {F32, F64}) {
    INFO(dtype_name(dtype));
    Array a = make(as, shape, dtype), b = make(bs, shape, dtype);
    auto f = jit([](Tensor x, Tensor y) {
      return std::vector<Tensor>{fmod(x, y), x % y, floor_divide(x, y), x % 2.0, 5.0 % y};
    });
    std::vector<Array> got = f(a, b);
    Vec av = values(a), bv = values(b);
    CHECK_EXACT("fmod", got[0], dtype, shape, zip(av, bv, [](double p, double q) { return std::fmod(p, q); }));
    Vec rem = zip(av, bv, numpy_remainder);
    CHECK_EXACT("remainder", got[1], dtype, shape, rem);
    // numpy's and JAX's differ only in the sign of some zeros, which
    // CHECK_EXACT does not compare.
    Vec fd = zip(av, bv, numpy_floor_divide);
    CHECK_EXACT("floor_divide", got[2], dtype, shape, fd);
    CHECK_EXACT("x % 2", got[3], dtype, shape, map(av, [&](double p) { return numpy_remainder(p, 2); }));
    CHECK_EXACT("5 % y", got[4], dtype, shape, map(bv, [&](double q) { return numpy_remainder(5, q); }));
  }
  // Integers: exact, numpy's signs; by zero as JAX gives it (fmod and
  // remainder 0, floor_divide XLA's -2 and -1).
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  auto g = jit([](Tensor x, Tensor y) {
    return std::vector<Tensor>{fmod(x, y), x % y, floor_divide(x, y), floor_divide(x, 4), x % true};
  });
  std::vector<Array> got = g(Array::from<int32_t>({7, -7, 7, -7, 6, 5, 0, lowest, lowest}, {9}),
                             Array::from<int32_t>({2, 2, -2, -2, 3, 0, 0, -1, 3}, {9}));
  CHECK_EXACT("fmod of i32", got[0], I32, Shape{9}, (Vec{1, -1, 1, -1, 0, 0, 0, 0, -2}));
  CHECK_EXACT("remainder of i32", got[1], I32, Shape{9}, (Vec{1, 1, -1, -1, 0, 0, 0, 0, 1}));
  CHECK_EXACT("floor_divide of i32", got[2], I32, Shape{9},
              (Vec{3, -4, -4, 3, 2, -2, -1, static_cast<double>(lowest), -715827883}));
  CHECK_EXACT("floor_divide by 4", got[3], I32, Shape{9},
              (Vec{1, -2, 1, -2, 1, 1, 0, -536870912, -536870912}));
  CHECK_EXACT("x % true", got[4], I32, Shape{9}, Vec(9, 0.0));
  // Bools divide as i32.
  Array bools = jit([](Tensor p, Tensor q) { return floor_divide(p, q); })(
      Array::from<bool>({true, false}, {2}), Array::from<bool>({true, true}, {2}));
  CHECK_EXACT("floor_divide of bools", bools, I32, Shape{2}, (Vec{1, 0}));
  // Gradients: d/da 1, d/db -trunc(a / b) for fmod, -floor(a / b) for
  // remainder (JAX's), 0 for floor_divide.
  auto grads = jit(grad<0, 1>([](Tensor x, Tensor y) {
    return sum(fmod(x, y) * 3.0 + remainder(x, y) + floor_divide(x, y) * 100.0);
  }));
  auto [ga, gb] = grads(Array::from<double>({7.5, -7.5, 1}, {3}), Array::from<double>({2, 2, -4}, {3}));
  CHECK_EXACT("d/da", ga, F64, Shape{3}, (Vec{4, 4, 4}));
  CHECK_EXACT("d/db", gb, F64, Shape{3}, (Vec{-3 * 3 - 3, 3 * 3 + 4, 0 + 1}));
  // Away from the jumps (a / b not near an integer).
  expect_grads("fmod and remainder", FN(fmod(x[0], x[1]) * remainder(x[1], x[0])),
               {Array::from<double>({7.3, -5.6, 2.2, -9.1}, {4}), Array::from<double>({2.1, 1.7, -3.4, -2.6}, {4})}, 2);
}

TEST_CASE("tracer ops: ceil and round keep integers, clip limits to a range",
          "[tracer][ops][math-ops]") {
  Array ints = Array::from<int32_t>({-3, 0, 7}, {3});
  CHECK_EXACT("ceil of i32", jit([](Tensor x) { return ceil(x); })(ints), I32, Shape{3},
              (Vec{-3, 0, 7}));
  CHECK_EXACT("round of i32", jit([](Tensor x) { return round(x); })(ints), I32, Shape{3},
              (Vec{-3, 0, 7}));
  for (DType dtype : {F32, F64, I32}) {
    INFO(dtype_name(dtype));
    Vec v{-5, -1, 0, 2, 3, 9};
    Array got = jit([](Tensor x) { return clip(x, -1, 3); })(make(v, {6}, dtype));
    CHECK_EXACT("clip(x, -1, 3)", got, dtype, Shape{6}, (Vec{-1, -1, 0, 2, 3, 3}));
    // Bounds as tensors, broadcast along the rows.
    Array lo = make({0, -4}, {2, 1}, dtype), hi = make({1, 8}, {2, 1}, dtype);
    Array x = make({-2, 0.0, 3, -5, 2, 10}, {2, 3}, dtype);
    Array tensor_bounds = jit([](Tensor x, Tensor lo, Tensor hi) { return clip(x, lo, hi); })(x, lo, hi);
    CHECK_EXACT("clip with tensor bounds", tensor_bounds, dtype, Shape({2, 3}),
                (Vec{0, 0, 1, -4, 2, 8}));
  }
}

TEST_CASE("ad ops: gradients of the trigonometric and hyperbolic ops, both modes",
          "[ad][ad-ops][math-ops]") {
  // Points inside each domain, away from its edges.
  Array any = make({-1.3, -0.4, 0.2, 0.9, 1.4}, {5}, F64);
  Array unit = make({-0.8, -0.3, 0.1, 0.5, 0.85}, {5}, F64);
  Array above_one = make({1.2, 1.7, 2.5, 4.0, 9.0}, {5}, F64);
  Array positive = make({0.3, 0.8, 1.5, 4.0, 12.0}, {5}, F64);
  expect_grads("tan", FN(tan(x[0])), {any});
  expect_grads("asin", FN(asin(x[0])), {unit});
  expect_grads("acos", FN(acos(x[0])), {unit});
  expect_grads("atan", FN(atan(x[0] * 3.0)), {any});
  expect_grads("sinh", FN(sinh(x[0])), {any});
  expect_grads("cosh", FN(cosh(x[0])), {any});
  expect_grads("asinh", FN(asinh(x[0] * 4.0)), {any});
  expect_grads("acosh", FN(acosh(x[0])), {above_one});
  expect_grads("atanh", FN(atanh(x[0])), {unit});
  expect_grads("cbrt", FN(cbrt(x[0])), {any});
  expect_grads("log2 and log10", FN(log2(x[0]) * log10(x[0] + 1.0)), {positive});
  expect_grads("ceil and round (zero almost everywhere)", FN(ceil(x[0] * 3.0) * x[0] + round(x[0] * 5.0)),
               {make({-1.33, -0.4, 0.2, 0.93, 1.42}, {5}, F64)});
  expect_grads("atan2, both operands", FN(atan2(x[0], x[1])),
               {make({1.0, -0.5, 0.3, -2.0, 0.7}, {5}, F64), make({0.5, -1.5, -0.8, 1.0, 2.0}, {5}, F64)});
  expect_grads("atan2 against a constant", FN(atan2(x[0], 1.5) + atan2(-0.5, x[0])), {any});
  expect_grads("clip", FN(clip(x[0], -1.0, 1.0) * x[0]), {any});
  // Second order: derivatives of the derivative rules.
  expect_grads("second order", FN(sinh(x[0]) * atan(x[0]) + asinh(x[0]) * cosh(x[0] * 0.5) + tan(x[0] * 0.5)),
               {any}, 2);
  expect_grads("second order, bounded domains", FN(asin(x[0]) + acos(x[0] * 0.5) + atanh(x[0])),
               {unit}, 2);
  expect_grads("second order, atan2", FN(atan2(x[0], x[1])),
               {make({1.0, -0.5, 0.3}, {3}, F64), make({0.5, -1.5, -0.8}, {3}, F64)}, 2);
}

TEST_CASE("ad ops: the math ops' derivatives at the edges, as JAX gives them",
          "[ad][ad-ops][math-ops]") {
  // asin's derivative is infinite at +-1, atanh's too; cbrt's at 0.
  auto d = [](auto op) {
    return grad([op](Tensor x) { return sum(op(x)); });
  };
  Array edges = make({-1.0, 1.0}, {2}, F64);
  CHECK_ARRAY("d asin at +-1", d([](Tensor x) { return asin(x); })(edges), F64, Shape{2},
              (Vec{kInf, kInf}), kExact);
  CHECK_ARRAY("d acos at +-1", d([](Tensor x) { return acos(x); })(edges), F64, Shape{2},
              (Vec{-kInf, -kInf}), kExact);
  CHECK_ARRAY("d atanh at +-1", d([](Tensor x) { return atanh(x); })(edges), F64, Shape{2},
              (Vec{kInf, kInf}), kExact);
  CHECK_ARRAY("d cbrt at 0", d([](Tensor x) { return cbrt(x); })(make({0.0}, {1}, F64)), F64,
              Shape{1}, (Vec{kInf}), kExact);
  CHECK_ARRAY("d atan at infinity", d([](Tensor x) { return atan(x); })(make({kInf, 0.0}, {2}, F64)),
              F64, Shape{2}, (Vec{0, 1}), kExact);
}

TEST_CASE("tracer ops: atan2 names itself and both shapes when they do not broadcast",
          "[tracer][ops][math-ops][errors]") {
  std::string message = what_of<TraceError>([] {
    jit([](Tensor y, Tensor x) { return atan2(y, x); })(Array::zeros({2, 3}), Array::zeros({4}));
  });
  INFO(message);
  CHECK(contains(message, "atan2"));
  CHECK(contains(message, "f32[2,3]"));
  CHECK(contains(message, "f32[4]"));
  CHECK(contains(message, "test_compiler_math_ops.cpp"));
}
