// tensordot, inner, vdot, kron, polyval, vander, trapezoid, convolve and
// correlate: JAX 0.10.2's printed values (dtypes included), references
// from their definitions for random shapes, gradients in both modes;
// errors.
#include "test_support.h"

#include <cmath>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

TEST_CASE("tensor products: tensordot, inner, vdot and kron as JAX's", "[tracer][ops]") {
  // jnp.tensordot(arange(24.).reshape(2, 3, 4), arange(12.).reshape(4, 3),
  // axes=([1, 2], [1, 0])).
  auto pair = jit([](Tensor a, Tensor b) { return tensordot(a, b, {1, 2}, {1, 0}); });
  Vec a24, b12;
  for (int i = 0; i < 24; ++i) a24.push_back(i);
  for (int i = 0; i < 12; ++i) b12.push_back(i);
  CHECK_EXACT("axes pairs", pair(make(a24, {2, 3, 4}, F32), make(b12, {4, 3}, F32)), F32, Shape{2},
              (Vec{440, 1232}));
  // The integer form against a loop: a [2, 3, 4] . b [3, 4, 5] over 2 axes,
  // 1 axis and none (an outer product).
  Vec a = sine_wave({2, 3, 4}, 0.3, 0.1), b = sine_wave({3, 4, 5}, 0.7, 0.2);
  for (int axes : {0, 1, 2}) {
    INFO("axes = " << axes);
    Shape a_shape{2, 3, 4}, b_shape = axes == 1 ? Shape{4, 5} : Shape{3, 4, 5};
    Vec bv = axes == 1 ? Vec(b.begin(), b.begin() + 20) : b;
    auto f = jit([axes](Tensor x, Tensor y) { return tensordot(x, y, axes); });
    // a as [rows, inner] times b as [inner, cols], inner the contracted
    // axes' sizes.
    int64_t inner = axes == 2 ? 12 : axes == 1 ? 4 : 1;
    int64_t rows = 24 / inner, cols = static_cast<int64_t>(bv.size()) / inner;
    Vec want;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < cols; ++k) {
        double s = 0;
        for (int64_t j = 0; j < inner; ++j) s += a[i * inner + j] * bv[j * cols + k];
        want.push_back(s);
      }
    Shape shape = axes == 2 ? Shape{2, 5} : axes == 1 ? Shape{2, 3, 5} : Shape{2, 3, 4, 3, 4, 5};
    CHECK_ARRAY("tensordot", f(make(a, a_shape, F64), make(bv, b_shape, F64)), F64, shape, want,
                (Tol{1e-14, 1e-14}));
  }
  CHECK_EXACT("inner", jit([](Tensor x, Tensor y) { return inner(x, y); })(make({0, 1, 2, 3, 4, 5}, {2, 3}, F32), make({0, 1, 2}, {3}, F32)),
              F32, Shape{2}, (Vec{5, 14}));
  CHECK_EXACT("vdot", jit([](Tensor x, Tensor y) { return vdot(x, y); })(make({0, 1, 2, 3}, {2, 2}, F32), make({1, 1, 1, 1}, {4}, F32)),
              F32, Shape{}, (Vec{6}));
  auto k = jit([](Tensor x, Tensor y) { return kron(x, y); });
  CHECK_EXACT("kron", k(make({1, 2, 3, 4}, {2, 2}, I32), make({0, 1, 1, 0}, {2, 2}, I32)), I32,
              (Shape{4, 4}), (Vec{0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0}));
  CHECK_EXACT("kron of ranks 1 and 2", k(make({1, 10}, {2}, I32), make({1, 2, 3, 4}, {2, 2}, I32)),
              I32, (Shape{2, 4}), (Vec{1, 2, 10, 20, 3, 4, 30, 40}));
  expect_grads("tensordot", FN(tensordot(x[0], x[1], {0, 2}, {1, 0})),
               {make(a, {2, 3, 4}, F64), make(Vec(b.begin(), b.begin() + 40), {4, 2, 5}, F64)});
  expect_grads("kron", FN(kron(x[0], x[1])), {make(a, {2, 3, 4}, F64), make(Vec(b.begin(), b.begin() + 6), {3, 2}, F64)});
  expect_grads("inner and vdot", FN(inner(x[0], x[1]) + vdot(x[0], x[0])),
               {make(Vec(a.begin(), a.begin() + 6), {2, 3}, F64), make(Vec(b.begin(), b.begin() + 6), {2, 3}, F64)});
}

TEST_CASE("polynomials: polyval and vander as JAX's", "[tracer][ops]") {
  auto p = jit([](Tensor c, Tensor x) { return polyval(c, x); });
  CHECK_EXACT("integers stay integers", p(make({3, 0, 1}, {3}, I32), make({1, 2}, {2}, I32)), I32,
              Shape{2}, (Vec{4, 13}));
  CHECK_EXACT("floats", p(make({1.5, -2, 0.25}, {3}, F32), make({0.5, 2, 3, -1}, {2, 2}, F32)), F32,
              (Shape{2, 2}), (Vec{-0.375, 2.25, 7.75, 3.75}));
  CHECK_EXACT("no coefficients", p(Array::zeros({0}), make({1, 2}, {2}, F32)), F32, Shape{2}, (Vec{0, 0}));
  CHECK_EXACT("vander", jit([](Tensor x) { return vander(x, 4); })(make({1, 2, 3}, {3}, I32)), I32,
              (Shape{3, 4}), (Vec{1, 1, 1, 1, 8, 4, 2, 1, 27, 9, 3, 1}));
  CHECK_EXACT("vander increasing", jit([](Tensor x) { return vander(x, std::nullopt, true); })(make({2, -1.5}, {2}, F32)),
              F32, (Shape{2, 2}), (Vec{1, 2, 1, -1.5}));
  CHECK(jit([](Tensor x) { return vander(x, 0); })(make({2, 3}, {2}, F32)).shape() == (Shape{2, 0}));
  // Many columns: a cumulative product along the rows, not one op per
  // column (vander(x, 1000) once took most of a minute to compile).
  // Integers stay exact; 2^k of f64 too.
  auto wide = jit([](Tensor x, bool increasing) { return vander(x, 62, increasing); });
  Array powers = wide(make({2, -1, 0}, {3}, I64), true);
  std::vector<int64_t> got = powers.to_vector<int64_t>();
  REQUIRE(got.size() == 3 * 62);
  for (int64_t k = 0; k < 62; ++k) {
    CHECK(got[k] == (int64_t{1} << k));
    CHECK(got[62 + k] == (k % 2 ? -1 : 1));
    CHECK(got[124 + k] == (k == 0 ? 1 : 0));
  }
  std::vector<double> decreasing = wide(make({2}, {1}, F64), false).to_vector<double>();
  for (int64_t k = 0; k < 62; ++k) CHECK(decreasing[61 - k] == std::ldexp(1.0, static_cast<int>(k)));
  CHECK_EXACT("bools", jit([](Tensor x) { return vander(x, 40); })(make({1, 0}, {2}, I1)), I1,
              (Shape{2, 40}), [] {
                Vec v(80, 0.0);
                for (int k = 0; k < 40; ++k) v[k] = 1;
                v[79] = 1;  // x^0
                return v;
              }());
  // Fitting: solving vander(x) c = y recovers the polynomial that polyval
  // evaluates.
  // y = 2 x^3 + x^2 - x + 0.5 at four points, then at half of each.
  auto fit = jit([](Tensor x, Tensor y) { return polyval(linalg::solve(vander(x), y), x * 0.5); });
  CHECK_ARRAY("fit", fit(make({-1, 0.5, 2, 3}, {4}, F64), make({0.5, 0.5, 18.5, 60.5}, {4}, F64)),
              F64, Shape{4}, (Vec{1, 0.34375, 2.5, 8}), (Tol{1e-12, 1e-12}));
  expect_grads("polyval", FN(polyval(x[0], x[1])), {make({1.5, -2, 0.25, 3}, {4}, F64), make({0.5, 2, -1.25}, {3}, F64)});
  expect_grads("vander", FN(vander(x[0], 4)), {make({0.5, 2, -1.25}, {3}, F64)});
}

TEST_CASE("trapezoid: spacing, points and axes as JAX's", "[tracer][ops]") {
  CHECK_EXACT("dx", jit([](Tensor y) { return trapezoid(y, std::nullopt, 0.5); })(make({1, 2, 4, 7}, {4}, F32)),
              F32, Shape{}, (Vec{5}));
  CHECK_EXACT("points", jit([](Tensor y, Tensor x) { return trapezoid(y, x); })(make({1, 2, 4, 0, 1, 1}, {2, 3}, F32), make({0, 1, 3}, {3}, F32)),
              F32, Shape{2}, (Vec{7.5, 2.5}));
  CHECK_EXACT("axis 0", jit([](Tensor y) { return trapezoid(y, std::nullopt, 1.0, 0); })(make({1, 2, 4, 0, 1, 1}, {2, 3}, F32)),
              F32, Shape{3}, (Vec{0.5, 1.5, 2.5}));
  CHECK_EXACT("integers give f32", jit([](Tensor y) { return trapezoid(y); })(make({1, 2, 4}, {3}, I32)), F32,
              Shape{}, (Vec{4.5}));
  CHECK_EXACT("one sample", jit([](Tensor y) { return trapezoid(y); })(make({3}, {1}, F32)), F32, Shape{}, (Vec{0}));
  // The integral of sin over [0, pi] on 201 points: 2 within the rule's
  // error pi^3 / (12 n^2) max|sin''|.
  auto integral = jit([](Tensor x) { return trapezoid(sin(x), x); });
  Vec points;
  for (int i = 0; i <= 200; ++i) points.push_back(M_PI * i / 200);
  CHECK(std::fabs(values(integral(make(points, {201}, F64)))[0] - 2) <= std::pow(M_PI, 3) / (12 * 200 * 200));
  expect_grads("trapezoid", FN(trapezoid(x[0], x[1], 1.0, 0)),
               {make(sine_wave({4, 3}, 0.4, 0.2), {4, 3}, F64), make(sine_wave({4, 3}, 0.9, 0.1), {4, 3}, F64)});
}

TEST_CASE("convolve and correlate: every mode, either operand longer, as JAX's", "[tracer][ops]") {
  auto conv_of = [](const std::string& mode, bool correlation) {
    return jit([mode, correlation](Tensor a, Tensor v) {
      return correlation ? correlate(a, v, mode) : convolve(a, v, mode);
    });
  };
  CHECK_EXACT("integers give f32", conv_of("full", false)(make({1, 2, 3}, {3}, I32), make({1, 1}, {2}, I32)),
              F32, Shape{4}, (Vec{1, 3, 5, 3}));
  Array five = make({1, 2, 3, 4, 5}, {5}, F32);
  CHECK_EXACT("same", conv_of("same", false)(five, make({2, 1, 0.5}, {3}, F32)), F32, Shape{5},
              (Vec{5, 8.5, 12, 15.5, 7}));
  CHECK_EXACT("same, even kernel", conv_of("same", false)(five, make({2, 1, 0.5, 3}, {4}, F32)), F32,
              Shape{5}, (Vec{5, 8.5, 15, 21.5, 16}));
  Array three = make({1, 2, 3}, {3}, F32), longer = make({0, 1, 0.5, 2, 7}, {5}, F32);
  CHECK_EXACT("correlate, the second longer", conv_of("full", true)(three, longer), F32, Shape{7},
              (Vec{7, 16, 25.5, 8, 3.5, 3, 0}));
  CHECK_EXACT("correlate same, the second longer", conv_of("same", true)(three, longer), F32, Shape{5},
              (Vec{16, 25.5, 8, 3.5, 3}));
  CHECK_EXACT("correlate valid", conv_of("valid", true)(five, make({2, 1, 0.5}, {3}, F32)), F32, Shape{3},
              (Vec{5.5, 9, 12.5}));
  // Against the definition for every mode and both orders.
  Vec a = sine_wave({9}, 0.7, 0.3), v = sine_wave({4}, 1.1, 0.5);
  for (const std::string mode : {"full", "same", "valid"})
    for (bool swapped : {false, true}) {
      INFO(mode << (swapped ? ", v longer" : ""));
      const Vec& x = swapped ? v : a;
      const Vec& y = swapped ? a : v;
      int64_t n = x.size(), m = y.size(), big = std::max(n, m), small = std::min(n, m);
      Vec full(n + m - 1, 0.0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j) full[i + j] += x[i] * y[j];
      int64_t length = mode == "full" ? n + m - 1 : mode == "same" ? big : big - small + 1;
      int64_t start = mode == "full" ? 0 : mode == "same" ? (small - 1) / 2 : small - 1;
      Vec want(full.begin() + start, full.begin() + start + length);
      CHECK_ARRAY("convolve", conv_of(mode, false)(make(x, {n}, F64), make(y, {m}, F64)), F64,
                  Shape{length}, want, (Tol{1e-14, 1e-14}));
    }
  expect_grads("convolve", FN(convolve(x[0], x[1], "same")), {make(a, {9}, F64), make(v, {4}, F64)});
  expect_grads("correlate", FN(correlate(x[0], x[1], "full")), {make(v, {4}, F64), make(a, {9}, F64)});
}

TEST_CASE("products and polynomials: errors name the op, the shapes and the line",
          "[tracer][ops][errors]") {
  check_error([] { jit([](Tensor a, Tensor b) { return tensordot(a, b, {1}, {0}); })(Array::zeros({2, 3}), Array::zeros({4, 5})); },
              {"tensordot", "f32[2,3]", "f32[4,5]"});
  check_error([] { jit([](Tensor a, Tensor b) { return tensordot(a, b, 3); })(Array::zeros({2, 3}), Array::zeros({3, 5})); },
              {"tensordot", "axes = 3"});
  check_error([] { jit([](Tensor a, Tensor b) { return inner(a, b); })(Array::zeros({2, 3}), Array::zeros({4})); },
              {"inner", "f32[2,3]", "f32[4]"});
  check_error([] { jit([](Tensor a, Tensor b) { return vdot(a, b); })(Array::zeros({2, 3}), Array::zeros({5})); },
              {"vdot", "f32[2,3]", "f32[5]"});
  check_error([] { jit([](Tensor p, Tensor x) { return polyval(p, x); })(Array::zeros({2, 2}), Array::zeros({3})); },
              {"polyval", "f32[2,2]"});
  check_error([] { jit([](Tensor x) { return vander(x, -1); })(Array::zeros({3})); }, {"vander", "N = -1"});
  check_error([] { jit([](Tensor y, Tensor x) { return trapezoid(y, x); })(Array::zeros({4}), Array::zeros({3})); },
              {"trapezoid", "f32[3]", "3 samples", "f32[4]"});
  check_error([] { jit([](Tensor a, Tensor v) { return convolve(a, v, "middle"); })(Array::zeros({4}), Array::zeros({3})); },
              {"convolve", "'middle'"});
  check_error([] { jit([](Tensor a, Tensor v) { return correlate(a, v); })(Array::zeros({2, 2}), Array::zeros({3})); },
              {"correlate", "f32[2,2]", "vectors"});
}
