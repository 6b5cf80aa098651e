// The functional AD API (DESIGN.md §4-5): grad-of-grad against closed
// forms, hvp == jvp(grad) == hessian·v, vjp/jvp with several primals and
// outputs, value_and_grad, several argnums, std::vector arguments, static
// arguments, grad inside jit and around jitted functions, unconnected and
// integer arguments, custom_gradient and stop_gradient.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

const Vec kX = {0.3, -0.7, 1.1};

double softmax_i(const Vec& x, size_t i) {
  double top = *std::max_element(x.begin(), x.end()), total = 0;
  for (double v : x) total += std::exp(v - top);
  return std::exp(x[i] - top) / total;
}

}  // namespace

//===----------------------------------------------------------------------===//
// Higher derivatives against closed forms
//===----------------------------------------------------------------------===//

TEST_CASE("ad transforms: grad of grad, sum(x^3) -> 6x, f32 and f64", "[ad][ad-transforms]") {
  auto second = grad([](Tensor x) {
    return sum(grad([](Tensor y) { return sum(y * y * y); })(x));
  });
  CHECK(mismatch(second(make(kX, {3}, F64)), F64, {3}, map(kX, [](double x) { return 6 * x; })) ==
        "");
  CHECK(mismatch(second(make(kX, {3}, F32)), F32, {3}, map(kX, [](double x) { return 6 * x; }),
                 1e-5) == "");
  // grad(grad(f)) of a scalar function of a 0-d value, and a third derivative.
  auto d2 = grad(grad([](Tensor x) { return x * x * x * x; }));
  CHECK(mismatch(d2(Array::scalar<double>(0.5)), F64, {}, {12 * 0.25}) == "");
  auto d3 = grad(grad(grad([](Tensor x) { return x * x * x * x; })));
  CHECK(mismatch(d3(Array::scalar<double>(0.5)), F64, {}, {24 * 0.5}) == "");
}

TEST_CASE("ad transforms: grad of grad of sum(tanh x) is -2 tanh (1 - tanh^2)",
          "[ad][ad-transforms]") {
  auto second = grad([](Tensor x) { return sum(grad([](Tensor y) { return sum(tanh(y)); })(x)); });
  Vec want = map(kX, [](double x) { return -2 * std::tanh(x) * (1 - std::tanh(x) * std::tanh(x)); });
  CHECK(mismatch(second(make(kX, {3}, F64)), F64, {3}, want) == "");
  CHECK(mismatch(second(make(kX, {3}, F32)), F32, {3}, want, 1e-5) == "");
}

TEST_CASE("ad transforms: Hessian of logsumexp is diag(s) - s s^T", "[ad][ad-transforms]") {
  auto h = hessian([](Tensor x) { return logsumexp(x); });
  Vec want;
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 3; ++j)
      want.push_back((i == j ? softmax_i(kX, i) : 0) - softmax_i(kX, i) * softmax_i(kX, j));
  CHECK(mismatch(h(make(kX, {3}, F64)), F64, {3, 3}, want) == "");
  // Row 0 of the Hessian through grad of grad: d/dx of the first gradient
  // element (diagonal entry s0 (1 - s0) at element 0).
  auto diag0 = grad([](Tensor x) {
    return sum(slice(grad([](Tensor y) { return logsumexp(y); })(x), {0}, {1}));
  });
  Vec d0 = values(diag0(make(kX, {3}, F64)));
  CHECK(d0[0] == Approx(softmax_i(kX, 0) * (1 - softmax_i(kX, 0))).epsilon(1e-9));
  CHECK(d0[1] == Approx(-softmax_i(kX, 0) * softmax_i(kX, 1)).epsilon(1e-9));
  // grad(f) must return a 0-d scalar: a one-element [1] result is refused
  // with a message naming the shape.
  auto not_scalar = grad([](Tensor x) { return slice(x, {0}, {1}); });
  std::string message = what_of([&] { not_scalar(make(kX, {3}, F64)); });
  INFO(message);
  CHECK(contains(message, "f64[1]"));
}

TEST_CASE("ad transforms: check_grads order 2", "[ad][ad-transforms]") {
  Array x = make({0.4, -0.3, 0.8, 1.2, -1.1, 0.2}, {2, 3}, F64);
  expect_grads("sum(x^3), order 2", FN(sum(x[0] * x[0] * x[0])), {x}, 2);
  expect_grads("tanh, order 2", FN(tanh(x[0])), {x}, 2);
  expect_grads("logsumexp rows, order 2", FN(logsumexp(x[0], {1})), {x}, 2);
  expect_grads("two arguments, order 2", FN(sum(sin(x[0] * x[1]), {0})),
               {x, make({0.5, 1.5, -0.5}, {3}, F64)}, 2);
}

// A custom gradient off by a constant has the right derivative: order 2
// still fails it, because it checks the first order too (as JAX does).
TEST_CASE("ad transforms: check_grads order 2 also checks order 1", "[ad][ad-transforms]") {
  auto square = custom_gradient([](Tensor a) { return a * a; },
                                [](Tensor a, Tensor, Tensor ct) { return ct * (a * 2.0 + 1.0); });
  Array x = make({0.4, -0.3, 0.8}, {3}, F64);
  GradCheckReport report = check_grads([square](Tensor a) { return sum(square(a)); }, {x}, 2);
  INFO(report.summary());
  CHECK_FALSE(report);
  CHECK(contains(report.summary(), "order 1"));
  GradCheckReport right = check_grads([](Tensor a) { return sum(a * a * a); }, {x}, 2);
  INFO(right.summary());
  CHECK(right);
  bool passed = right;  // converts to bool, as the API contract says
  CHECK(passed);
  // Order 1 and order 2 comparisons: 2 modes x 3 elements each.
  CHECK(right.checked == 12);
}

// Orders 3 and 4 check the derivatives of the second and third derivatives.
// A custom gradient whose value and first derivative are right but whose
// second derivative is off (x^4's backward plus 4 (x - stop_gradient(x))^2,
// zero with a zero derivative, second derivative 8) passes orders 1 and 2
// and fails order 3.
TEST_CASE("ad transforms: check_grads orders 3 and 4", "[ad][ad-transforms]") {
  Array x = make({0.4, -0.3, 0.8}, {3}, F64);
  expect_grads("sin(x) x^2, order 3", FN(sum(sin(x[0]) * x[0] * x[0])), {x}, 3);
  expect_grads("two arguments, order 3", FN(sum(tanh(x[0] * x[1]))),
               {x, make({0.5, 1.5, -0.5}, {3}, F64)}, 3);
  expect_grads("exp, order 4", FN(sum(exp(x[0] * 0.5))), {x}, 4);
  GradCheckReport right = check_grads([](Tensor a) { return sum(a * a * a * a); }, {x}, 3);
  INFO(right.summary());
  CHECK(right);
  // 2 modes x 3 elements per order.
  CHECK(right.checked == 18);
  auto quartic = custom_gradient(
      [](Tensor a) { return a * a * a * a; },
      [](Tensor a, Tensor, Tensor ct) {
        return ct * (a * a * a * 4.0 + square(a - stop_gradient(a)) * 4.0);
      });
  auto f = [quartic](Tensor a) { return sum(quartic(a)); };
  GradCheckReport second = check_grads(f, {x}, 2);
  INFO(second.summary());
  CHECK(second);
  GradCheckReport third = check_grads(f, {x}, 3);
  INFO(third.summary());
  CHECK_FALSE(third);
  CHECK(contains(third.summary(), "order 3"));
}

TEST_CASE("ad transforms: check_grads with nothing to differentiate is an error",
          "[ad][ad-transforms]") {
  std::string m = what_of<Error>([] {
    check_grads([](Tensor i) { return sum(cast(i, F64)); }, {Array::from<int32_t>({1, 2}, {2})});
  });
  INFO(m);
  CHECK(contains(m, "no floating-point argument"));
  CHECK(contains(m, "i32[2]"));
  // Nor is a check that compares nothing a pass.
  auto f = [](Tensor x) { return sum(x * x); };
  Array x = Array::ones({3});
  CHECK(contains(what_of<Error>([&] { check_grads(f, {x}, 1, {.max_elements = 0}); }),
                 "max_elements must be at least 1"));
  CHECK(contains(what_of<Error>([&] { check_grads(f, {x}, 1, {.reverse = false, .forward = false}); }),
                 "nothing would be compared"));
}

TEST_CASE("ad transforms: check_grads fails a wrong gradient of a scalar in f16",
          "[ad][ad-transforms]") {
  // 1.5x the true gradient: a random output weight near 0 once shrank
  // both derivatives into f16's absolute tolerance (5e-2), and it passed.
  auto wrong = custom_gradient([](Tensor a) { return a * a; },
                               [](Tensor a, Tensor, Tensor ct) { return 3.0 * a * ct; });
  auto f = [&](Tensor a) { return sum(wrong(a)); };
  for (DType dtype : {F16, BF16, F32, F64}) {
    INFO(dtype_name(dtype));
    GradCheckReport report = check_grads(f, {Array::full({3}, 0.75, dtype)});
    INFO(report.summary());
    CHECK_FALSE(report);
  }
}

TEST_CASE("ad transforms: check_grads takes jitted functions, checkpoints and custom gradients",
          "[ad][ad-transforms]") {
  Array x = make(kX, {3}, F64), y = make({0.5, 2.0, -1.0}, {3}, F64);
  auto jitted = adjit::jit([](Tensor a, Tensor b) { return sum(sin(a) * b); });
  CHECK(check_grads(jitted, {x, y}));
  auto recomputed = checkpoint([](Tensor a) { return sum(exp(a) * a); });
  CHECK(check_grads(recomputed, {x}, 2));
  auto rows = adjit::jit([](const std::vector<Tensor>& v) { return sum(v[0] * v[1]); });
  CHECK(check_grads(rows, {x, y}));
  CHECK(check_grads([](auto a) { return sum(sin(a)); }, {x}));  // a generic lambda
  auto sine = custom_gradient([](Tensor a) { return sum(sin(a)); },
                              [](Tensor a, Tensor, Tensor ct) { return ct * cos(a); });
  CHECK(check_grads(sine, {x}, 2));
  auto wrong = custom_gradient([](Tensor a) { return sum(a * a); },
                               [](Tensor a, Tensor, Tensor ct) { return 3.0 * a * ct; });
  CHECK_FALSE(check_grads(wrong, {x}));
}

//===----------------------------------------------------------------------===//
// hvp, jvp(grad), hessian
//===----------------------------------------------------------------------===//

TEST_CASE("ad transforms: the hessian of an empty argument is empty", "[ad][ad-transforms]") {
  // As jax.hessian: shape S + S, here [2, 0, 2, 0] and [0, 0].
  auto f = [](Tensor a) { return sum(a * a); };
  Array h = hessian(f)(Array::zeros({2, 0}));
  CHECK(h.shape() == Shape{2, 0, 2, 0});
  CHECK(h.dtype() == F32);
  CHECK(hessian(f)(Array::zeros({0}, F64)).shape() == Shape{0, 0});
  // f is still traced: a non-scalar result is an error.
  CHECK_THROWS_AS(hessian([](Tensor a) { return a * a; })(Array::zeros({0})), TraceError);
}

TEST_CASE("ad transforms: hvp == jvp(grad f) == hessian(f) . v", "[ad][ad-transforms]") {
  // Non-quadratic: f(x) = sum(sin(x) x^2) + sum(x)^3 / 3 + logsumexp(x).
  auto f = [](Tensor x) { return sum(sin(x) * x * x) + pow(sum(x), 3.0) / 3.0 + logsumexp(x); };
  Array x = make(kX, {3}, F64), v = make({0.5, -1.0, 2.0}, {3}, F64);
  Array product = hvp(f, x, v);
  auto [g, jg] = jvp(grad(f), x, v);
  Array H = hessian(f)(x);
  REQUIRE(H.shape() == Shape{3, 3});
  auto Hv = jit([](Tensor h, Tensor w) { return matmul(h, w); })(H, v);
  CHECK(mismatch(product, jg, 1e-12) == "");
  CHECK(mismatch(product, Hv, 1e-12) == "");
  CHECK(mismatch(g, grad(f)(x), 1e-12) == "");
  // Closed form: H = diag(2 sin x + 4 x cos x - x^2 sin x) + 2 sum(x) 11^T + (diag(s) - s s^T).
  double total = kX[0] + kX[1] + kX[2];
  Vec vv = values(v), want(3, 0.0);
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 3; ++j) {
      double xi = kX[i];
      double hij = 2 * total - softmax_i(kX, i) * softmax_i(kX, j);
      if (i == j) hij += 2 * std::sin(xi) + 4 * xi * std::cos(xi) - xi * xi * std::sin(xi) +
                         softmax_i(kX, i);
      want[i] += hij * vv[j];
    }
  CHECK(mismatch(product, F64, {3}, want, 1e-12) == "");
  // Symmetric Hessian.
  Vec h = values(H);
  CHECK(h[1] == Approx(h[3]).epsilon(1e-12));
  CHECK(h[2] == Approx(h[6]).epsilon(1e-12));
  // A direction of another shape: the error names hvp (not the jvp it uses).
  std::string wrong = what_of<TraceError>([&] { hvp(f, x, make({1.0, 2.0}, {2}, F64)); });
  INFO(wrong);
  CHECK(contains(wrong, "adjit::hvp: tangent 0 is f64[2] but its primal is f64[3]"));
  CHECK(contains(wrong, "test_compiler_ad_transforms.cpp"));
  // A function that is not scalar: hessian's error names hessian.
  std::string not_scalar =
      what_of<TraceError>([&] { hessian([](Tensor t) { return t * t; })(x); });
  INFO(not_scalar);
  CHECK(contains(not_scalar, "adjit::hessian:"));
  CHECK_FALSE(contains(not_scalar, "adjit::grad"));
}

TEST_CASE("ad transforms: hvp over a tuple of two arguments", "[ad][ad-transforms]") {
  // f = sum(x^2 y) + sum(sin y); grad = (2xy, x^2 + cos y);
  // H.v = (2y vx + 2x vy, 2x vx - sin(y) vy).
  auto f = [](Tensor x, Tensor y) { return sum(x * x * y) + sum(sin(y)); };
  Vec xs = {0.5, -1.5}, ys = {2.0, 0.25}, vx = {1.0, 0.5}, vy = {-1.0, 3.0};
  auto [hx, hy] = hvp(f, std::tuple{make(xs, {2}, F64), make(ys, {2}, F64)},
                      std::tuple{make(vx, {2}, F64), make(vy, {2}, F64)});
  Vec want_x, want_y;
  for (size_t i = 0; i < 2; ++i) {
    want_x.push_back(2 * ys[i] * vx[i] + 2 * xs[i] * vy[i]);
    want_y.push_back(2 * xs[i] * vx[i] - std::sin(ys[i]) * vy[i]);
  }
  CHECK(mismatch(hx, F64, {2}, want_x, 1e-12) == "");
  CHECK(mismatch(hy, F64, {2}, want_y, 1e-12) == "");
  // hessian<1> alone: d2f/dy2 = diag(-sin y).
  Array Hyy = hessian<1>(f)(make(xs, {2}, F64), make(ys, {2}, F64));
  CHECK(mismatch(Hyy, F64, {2, 2}, {-std::sin(2.0), 0, 0, -std::sin(0.25)}, 1e-12) == "");
}

//===----------------------------------------------------------------------===//
// vjp, jvp, value_and_grad, argnums
//===----------------------------------------------------------------------===//

TEST_CASE("ad transforms: hessian with static arguments", "[ad][ad-transforms]") {
  // sum(x^3) * n: the Hessian is diag(6 n x); n is static, before or after x.
  auto cubic = [](Tensor x, int n) { return sum(x * x * x) * static_cast<double>(n); };
  Array x = make({0.5, -2}, {2}, F64);
  CHECK(mismatch(hessian(cubic)(x, 2), F64, {2, 2}, {6, 0, 0, -24}) == "");
  auto flipped = [](int n, Tensor x) { return sum(x * x * x) * static_cast<double>(n); };
  CHECK(mismatch(hessian<1>(flipped)(3, x), F64, {2, 2}, {9, 0, 0, -36}) == "");
}

TEST_CASE("ad transforms: vjp with one output and one primal", "[ad][ad-transforms]") {
  auto [out, pullback] = vjp([](Tensor x) { return sin(x) * 2.0; }, make(kX, {3}, F64));
  CHECK(mismatch(out, F64, {3}, map(kX, [](double x) { return 2 * std::sin(x); })) == "");
  Array ct = make({1, 2, -1}, {3}, F64);
  Vec want = {2 * std::cos(kX[0]), 4 * std::cos(kX[1]), -2 * std::cos(kX[2])};
  CHECK(mismatch(pullback(ct), F64, {3}, want) == "");
  // The pullback can be applied again, with another cotangent.
  CHECK(mismatch(pullback(make({0, 0, 1}, {3}, F64)), F64, {3}, {0, 0, 2 * std::cos(kX[2])}) ==
        "");
}

TEST_CASE("ad transforms: a pullback keeps the primals as they were at vjp",
          "[ad][ad-transforms]") {
  // Arrays are mutable handles: writing the caller's primal afterwards
  // must not move the point the pullback differentiates at.
  Array x = make(kX, {3}, F64);
  auto [out, pullback] = vjp([](Tensor a) { return sin(a) * a; }, x);
  Array ct = make({1, 1, 1}, {3}, F64);
  Vec want = map(kX, [](double v) { return std::cos(v) * v + std::sin(v); });
  x.data<double>()[0] = 3.0;
  CHECK(mismatch(pullback(ct), F64, {3}, want) == "");
  // A structure of primals too.
  std::vector<Array> pair = {make(kX, {3}, F64), make(kX, {3}, F64)};
  auto [sum_out, sum_pullback] = vjp([](std::vector<Tensor> v) { return v[0] * v[1]; }, pair);
  pair[1].data<double>()[1] = 100.0;
  std::vector<Array> grads = sum_pullback(ct);
  CHECK(mismatch(grads[0], F64, {3}, kX) == "");
}

TEST_CASE("ad transforms: vjp with tuple outputs and several primals", "[ad][ad-transforms]") {
  auto f = [](Tensor x, Tensor y) { return std::make_tuple(x * y, sum(sin(x))); };
  Vec xs = {0.5, -1.0}, ys = {2.0, 3.0};
  auto [outs, pullback] = vjp(f, make(xs, {2}, F32), make(ys, {2}, F32));
  auto [prod, s] = outs;
  CHECK(mismatch(prod, F32, {2}, {1.0, -3.0}) == "");
  CHECK(mismatch(s, F32, {}, {std::sin(0.5) + std::sin(-1.0)}, 1e-6) == "");
  auto [gx, gy] = pullback(std::make_tuple(make({1.0, 2.0}, {2}, F32), Array::scalar<float>(3)));
  CHECK(mismatch(gx, F32, {2}, {1 * 2.0 + 3 * std::cos(0.5), 2 * 3.0 + 3 * std::cos(-1.0)}, 1e-6) ==
        "");
  CHECK(mismatch(gy, F32, {2}, {0.5, -2.0}) == "");
}

TEST_CASE("ad transforms: vjp called on Tensors inside jit", "[ad][ad-transforms]") {
  auto f = jit([](Tensor x, Tensor ct) {
    auto [y, pullback] = vjp([](Tensor a) { return exp(a) * a; }, x);
    return std::make_tuple(y, pullback(ct));
  });
  auto [y, g] = f(make(kX, {3}, F64), make({1, 1, 2}, {3}, F64));
  CHECK(mismatch(y, F64, {3}, map(kX, [](double x) { return std::exp(x) * x; })) == "");
  CHECK(mismatch(g, F64, {3},
                 {std::exp(kX[0]) * (1 + kX[0]), std::exp(kX[1]) * (1 + kX[1]),
                  2 * std::exp(kX[2]) * (1 + kX[2])}) == "");
}

TEST_CASE("ad transforms: jvp with tuple primals and tangents", "[ad][ad-transforms]") {
  auto f = [](Tensor x, Tensor y) { return x * y + sin(x); };
  Vec xs = {0.5, -1.0}, ys = {2.0, 3.0}, tx = {1.0, 0.0}, ty = {0.5, 2.0};
  auto [out, tangent] = jvp(f, std::tuple{make(xs, {2}, F64), make(ys, {2}, F64)},
                            std::tuple{make(tx, {2}, F64), make(ty, {2}, F64)});
  CHECK(mismatch(out, F64, {2}, {1.0 + std::sin(0.5), -3.0 + std::sin(-1.0)}) == "");
  Vec want;
  for (size_t i = 0; i < 2; ++i) want.push_back(tx[i] * ys[i] + xs[i] * ty[i] + std::cos(xs[i]) * tx[i]);
  CHECK(mismatch(tangent, F64, {2}, want) == "");
  // Several outputs: a tuple of tangents; broadcasting primals.
  auto g = [](Tensor x, Tensor s) { return std::make_tuple(x * s, sum(x)); };
  auto [outs, tans] = jvp(g, std::tuple{make({1, 2, 3}, {3}, F32), Array::scalar<float>(2)},
                          std::tuple{make({1, 1, 1}, {3}, F32), Array::scalar<float>(1)});
  CHECK(mismatch(std::get<0>(outs), F32, {3}, {2, 4, 6}) == "");
  CHECK(mismatch(std::get<0>(tans), F32, {3}, {3, 4, 5}) == "");
  CHECK(mismatch(std::get<1>(tans), F32, {}, {3}) == "");
  // A tangent too few or too many: the user's mistake, named as such.
  std::string fewer = what_of<TraceError>([&] {
    jvp(f, std::tuple{make(xs, {2}, F64), make(ys, {2}, F64)}, std::tuple{make(tx, {2}, F64)});
  });
  CHECK(contains(fewer, "adjit::jvp: needs one tangent per primal Tensor: 2 primal Tensors, 1 "
                        "tangents"));
  std::string more = what_of<TraceError>([&] {
    jvp([](Tensor x) { return x; }, std::tuple{make(xs, {2}, F64)},
        std::tuple{make(tx, {2}, F64), make(ty, {2}, F64)});
  });
  CHECK(contains(more, "2 tangents"));
}

TEST_CASE("ad transforms: value_and_grad<0,1> and grad with several argnums",
          "[ad][ad-transforms]") {
  auto loss = [](Tensor w, Tensor b, Tensor x) { return sum(square(matmul(x, w) + b)); };
  Array w = make({1, -1, 0.5, 2}, {2, 2}, F64), b = make({0.5, -0.5}, {2}, F64),
        x = make({1, 2, 3, 4, 5, 6}, {3, 2}, F64);
  // r = x w + b; dL/dw = 2 x^T r; dL/db = 2 sum_rows r.
  Vec r = {1 * 1 + 2 * 0.5 + 0.5, 1 * -1 + 2 * 2 - 0.5, 3 * 1 + 4 * 0.5 + 0.5,
           3 * -1 + 4 * 2 - 0.5,  5 * 1 + 6 * 0.5 + 0.5, 5 * -1 + 6 * 2 - 0.5};
  Vec xv = values(x), want_w(4, 0.0), want_b(2, 0.0);
  double value = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      value += r[i * 2 + j] * r[i * 2 + j];
      want_b[j] += 2 * r[i * 2 + j];
      for (int k = 0; k < 2; ++k) want_w[k * 2 + j] += 2 * xv[i * 2 + k] * r[i * 2 + j];
    }
  auto [v, grads] = value_and_grad<0, 1>(loss)(w, b, x);
  auto [gw, gb] = grads;
  CHECK(mismatch(v, F64, {}, {value}) == "");
  CHECK(mismatch(gw, F64, {2, 2}, want_w) == "");
  CHECK(mismatch(gb, F64, {2}, want_b) == "");
  auto [gw2, gb2] = grad<0, 1>(loss)(w, b, x);
  CHECK(mismatch(gw2, gw) == "");
  CHECK(mismatch(gb2, gb) == "");
  // Argnums out of order and skipping one.
  auto [gx, gw3] = grad<2, 0>(loss)(w, b, x);
  CHECK(gx.shape() == Shape{3, 2});
  CHECK(mismatch(gw3, gw) == "");
  // value_and_grad with the default argnum.
  auto [v1, g1] = value_and_grad(loss)(w, b, x);
  CHECK(mismatch(v1, v) == "");
  CHECK(mismatch(g1, gw) == "");
  // An argument listed twice gets its gradient twice (JAX's argnums=(0, 0)).
  auto [gw4, gw5] = grad<0, 0>(loss)(w, b, x);
  CHECK(mismatch(gw4, gw) == "");
  CHECK(mismatch(gw5, gw) == "");
  auto [v2, repeated] = value_and_grad<1, 0, 1>(loss)(w, b, x);
  CHECK(mismatch(v2, v) == "");
  CHECK(mismatch(std::get<0>(repeated), gb) == "");
  CHECK(mismatch(std::get<1>(repeated), gw) == "");
  CHECK(mismatch(std::get<2>(repeated), gb) == "");
}

TEST_CASE("ad transforms: grad w.r.t. a std::vector<Tensor> argument", "[ad][ad-transforms]") {
  auto f = [](const std::vector<Tensor>& ps, Tensor x) {
    return sum(ps[0] * ps[1] * x) + sum(square(ps[2]));
  };
  std::vector<Array> params = {make({1, 2}, {2}, F32), make({3, 4}, {2}, F32),
                               make({0.5}, {}, F32)};
  Array x = make({2, -1}, {2}, F32);
  std::vector<Array> g = grad(f)(params, x);
  REQUIRE(g.size() == 3);
  CHECK(mismatch(g[0], F32, {2}, {6, -4}) == "");
  CHECK(mismatch(g[1], F32, {2}, {2, -2}) == "");
  CHECK(mismatch(g[2], F32, {}, {1}) == "");
  // Together with another argnum: a tuple of (vector, Array).
  auto [gp, gx] = grad<0, 1>(f)(params, x);
  REQUIRE(gp.size() == 3);
  CHECK(mismatch(gp[1], g[1]) == "");
  CHECK(mismatch(gx, F32, {2}, {3, 8}) == "");
}

TEST_CASE("ad transforms: static arguments of grad are baked in", "[ad][ad-transforms]") {
  auto f = [](Tensor x, int power, double scale) {
    Tensor y = x;
    for (int i = 1; i < power; ++i) y = y * x;
    return sum(y) * scale;
  };
  auto g = grad(f);
  Array x = make({1, 2}, {2}, F64);
  CHECK(mismatch(g(x, 2, 1.0), F64, {2}, {2, 4}) == "");
  CHECK(mismatch(g(x, 3, 1.0), F64, {2}, {3, 12}) == "");
  CHECK(mismatch(g(x, 3, 0.5), F64, {2}, {1.5, 6}) == "");
  CHECK(mismatch(g(x, 2, 1.0), F64, {2}, {2, 4}) == "");
  CacheInfo info = g.cache_info();
  CHECK(info.misses == 3);
  CHECK(info.hits == 1);
}

TEST_CASE("ad transforms: grad inside a jitted training step, jit(grad), grad of a jitted call",
          "[ad][ad-transforms]") {
  auto loss = [](Tensor w, Tensor x, Tensor y) { return mean(square(matmul(x, w) - y)); };
  auto step = jit([loss](Tensor w, Tensor x, Tensor y) {
    Tensor g = grad(loss)(w, x, y);
    return std::make_tuple(loss(w, x, y), w - 0.1 * g);
  });
  Array w = Array::zeros({3, 1}), x = Array::randn({8, 3}, 1), y = Array::randn({8, 1}, 2);
  float first = 0, last = 0;
  for (int i = 0; i < 5; ++i) {
    auto [l, w2] = step(w, x, y);
    (i == 0 ? first : last) = l.item<float>();
    w = w2;
  }
  CHECK(last < first);
  CHECK(step.cache_info().misses == 1);

  // jit(grad(f)) agrees with grad(f) and caches.
  auto jg = jit(grad(loss));
  CHECK(mismatch(jg(w, x, y), grad(loss)(w, x, y), 1e-6) == "");
  jg(w, x, y);
  CHECK(jg.cache_info().misses == 1);
  CHECK(jg.cache_info().hits == 1);

  // grad of a function that calls another jitted function.
  auto inner = jit([](Tensor a) { return tanh(a) * a; });
  auto outer = grad([inner](Tensor a) { return sum(inner(a) * 2.0); });
  Vec want = map(kX, [](double a) {
    double t = std::tanh(a);
    return 2 * ((1 - t * t) * a + t);
  });
  CHECK(mismatch(outer(make(kX, {3}, F64)), F64, {3}, want) == "");
  // ... and a jitted function returning a tuple, differentiated through one element.
  auto pair = jit([](Tensor a) { return std::make_tuple(a * a, exp(a)); });
  auto through = grad([pair](Tensor a) { return sum(std::get<1>(pair(a))); });
  CHECK(mismatch(through(make(kX, {3}, F64)), F64, {3}, map(kX, [](double a) { return std::exp(a); })) ==
        "");
}

TEST_CASE("ad transforms: unconnected arguments get zeros, integer arguments are not differentiated",
          "[ad][ad-transforms]") {
  auto f = [](Tensor x, Tensor unused) { return sum(x * x); };
  auto [gx, gu] = grad<0, 1>(f)(make({1, 2}, {2}, F32), make({5, 6, 7}, {3}, F64));
  CHECK(mismatch(gx, F32, {2}, {2, 4}) == "");
  CHECK(mismatch(gu, F64, {3}, {0, 0, 0}) == "");
  // Unconnected through a stop_gradient and a non-differentiable op.
  auto h = grad<0, 1>([](Tensor x, Tensor y) { return sum(x + stop_gradient(y) + floor(y)); });
  auto [hx, hy] = h(make({1, 2}, {2}, F64), make({0.5, 1.5}, {2}, F64));
  CHECK(mismatch(hx, F64, {2}, {1, 1}) == "");
  CHECK(mismatch(hy, F64, {2}, {0, 0}) == "");
  // Every argument unconnected: the value is a constant.
  auto c = grad([](Tensor x) { return sum(zeros_like(x)) + 3.0; });
  CHECK(mismatch(c(make({1, 2}, {2}, F32)), F32, {2}, {0, 0}) == "");

  // An integer argument next to the differentiated one.
  auto gather_loss = [](Tensor x, Tensor idx, int depth) {
    return sum(one_hot(idx, depth, DType::f64) * log_softmax(x));
  };
  Array logits = make({0.1, 0.2, 0.3, 1.0, 0.0, -1.0}, {2, 3}, F64);
  Array labels = Array::from<int32_t>({2, 0}, {2});
  Array g = grad(gather_loss)(logits, labels, 3);
  Vec want;
  Vec row0 = {0.1, 0.2, 0.3}, row1 = {1.0, 0.0, -1.0};
  for (size_t j = 0; j < 3; ++j) want.push_back((j == 2 ? 1 : 0) - softmax_i(row0, j));
  for (size_t j = 0; j < 3; ++j) want.push_back((j == 0 ? 1 : 0) - softmax_i(row1, j));
  CHECK(mismatch(g, F64, {2, 3}, want) == "");
}

// GradOptions{.unconnected = UnconnectedGradients::error}: the tape's rule
// (DESIGN.md §4) in the functional API.
TEST_CASE("ad transforms: unconnected arguments are an error on request", "[ad][ad-transforms]") {
  const GradOptions strict{.unconnected = UnconnectedGradients::error};
  Array x = make({1, 2}, {2}, F32), y = make({0.5, 1.5}, {2}, F64);
  auto unused = [](Tensor x, Tensor y) { return sum(x * x); };
  std::string message = what_of<TraceError>([&] { grad<0, 1>(unused, strict)(x, y); });
  INFO(message);
  CHECK(contains(message, "adjit::grad: the result does not depend on argument 1 (f64[2])"));
  CHECK(contains(message, "UnconnectedGradients::error"));
  CHECK(contains(message, "test_compiler_ad_transforms.cpp"));
  // Only through stop_gradient is unconnected too.
  auto blocked = [](Tensor x, Tensor y) { return sum(x + stop_gradient(y)); };
  std::string blocked_message =
      what_of<TraceError>([&] { value_and_grad<0, 1>(blocked, strict)(x, y); });
  INFO(blocked_message);
  CHECK(contains(blocked_message, "adjit::value_and_grad: the result does not depend on argument 1"));
  // ... and so is only through a comparison, which has no derivative.
  auto compared = [](Tensor x, Tensor y) { return sum(where(x > 1.5, y, y * 2.0)); };
  CHECK(contains(what_of<TraceError>([&] { grad<0, 1>(compared, strict)(x, make({3, 4}, {2}, F32)); }),
                 "does not depend on argument 0 (f32[2])"));
  // A leaf of a structure is named by its position.
  auto listed = [](const std::vector<Tensor>& xs) { return sum(xs[1] * 2.0); };
  CHECK(contains(what_of<TraceError>([&] { grad(listed, strict)(std::vector<Array>{x, x}); }),
                 "argument 0 (Tensor 0 of its 2)"));
  // Connected arguments, differentiated or not, are fine; so is an integer
  // argument with allow_int, whose zeros that option asks for.
  auto [gx, gy] = grad<0, 1>([](Tensor x, Tensor y) { return sum(x * x) + sum(exp(y)); },
                             strict)(x, y);
  CHECK(mismatch(gx, F32, {2}, {2, 4}) == "");
  CHECK(mismatch(gy, F64, {2}, {std::exp(0.5), std::exp(1.5)}) == "");
  CHECK(mismatch(grad<0>(unused, strict)(x, y), F32, {2}, {2, 4}) == "");
  Array idx = Array::from<int32_t>({0, 1}, {2});
  auto taken = [](Tensor x, Tensor idx) { return sum(take(x, idx, 0)); };
  auto [tx, ti] = grad<0, 1>(taken, {.allow_int = true, .unconnected = UnconnectedGradients::error})(x, idx);
  CHECK(mismatch(tx, F32, {2}, {1, 1}) == "");
  CHECK(ti.dtype() == I32);
  // The default stays zeros.
  CHECK(mismatch(std::get<1>(grad<0, 1>(unused)(x, y)), F64, {2}, {0, 0}) == "");
}

// grad<1> of an integer argument is an error naming it, as in JAX; with
// GradOptions{.allow_int = true} its "gradient" is zeros of its own shape
// and dtype.
TEST_CASE("ad transforms: grad with respect to an integer argument is an error unless allowed",
          "[ad][ad-transforms]") {
  auto f = [](Tensor x, Tensor idx) { return sum(take(x, idx, 0)); };
  Array x = make({1, 2, 3}, {3}, F32), idx = Array::from<int32_t>({0, 2}, {2});
  std::string message = what_of<TraceError>([&] { grad<0, 1>(f)(x, idx); });
  CHECK(contains(message, "adjit::grad: argument 1 is i32[2]"));
  CHECK(contains(message, "floating-point Tensors only"));
  CHECK(contains(message, "test_compiler_ad_transforms.cpp"));
  CHECK(contains(what_of<TraceError>([&] { value_and_grad<1>(f)(x, idx); }),
                 "adjit::value_and_grad: argument 1 is i32[2]"));
  // In a structure, the Tensor is named by its position.
  auto g = [](const std::vector<Tensor>& xs) { return sum(take(xs[0], xs[1], 0)); };
  CHECK(contains(what_of<TraceError>([&] { grad(g)(std::vector<Array>{x, idx}); }),
                 "argument 0 (Tensor 1 of its 2) is i32[2]"));
  // Not differentiated, an integer argument is fine.
  CHECK(mismatch(grad<0>(f)(x, idx), F32, {3}, {1, 0, 1}) == "");

  auto [gx, gi] = grad<0, 1>(f, GradOptions{.allow_int = true})(x, idx);
  CHECK(mismatch(gx, F32, {3}, {1, 0, 1}) == "");
  CHECK(gi.dtype() == I32);
  CHECK(gi.shape() == idx.shape());
  for (double v : values(gi)) CHECK(v == 0);
}

//===----------------------------------------------------------------------===//
// custom_gradient
//===----------------------------------------------------------------------===//

TEST_CASE("ad transforms: custom_gradient replaces the gradient", "[ad][ad-transforms]") {
  // A clipped gradient: the forward is the identity, the backward clips the
  // cotangent to [-1, 1].
  auto clip_grad = custom_gradient([](Tensor x) { return x * 1.0; },
                                   [](Tensor, Tensor, Tensor ct) {
                                     return maximum(minimum(ct, 1.0), -1.0);
                                   });
  Array x = make({1, -2, 3}, {3}, F32);
  CHECK(mismatch(jit([clip_grad](Tensor a) { return clip_grad(a); })(x), x) == "");
  auto g = grad<0>([clip_grad](Tensor a, Tensor w) { return sum(clip_grad(a) * w); });
  CHECK(mismatch(g(x, make({5, -0.5, -3}, {3}, F32)), F32, {3}, {1, -0.5, -1}) == "");

  // 100x scaling; the value is still exp(x).
  auto scaled = custom_gradient([](Tensor a) { return exp(a); },
                                [](Tensor, Tensor, Tensor ct) { return ct * 100.0; });
  auto [v, gs] = value_and_grad([scaled](Tensor a) { return sum(scaled(a)); })(x);
  CHECK(mismatch(v, F32, {}, {std::exp(1.0) + std::exp(-2.0) + std::exp(3.0)}, 1e-6) == "");
  CHECK(mismatch(gs, F32, {3}, {100, 100, 100}) == "");
  // Composed with ordinary ops on both sides (chain rule around it).
  auto chained = grad([scaled](Tensor a) { return sum(sin(scaled(a * 2.0))); });
  Vec xv = {0.1, -0.2};
  CHECK(mismatch(chained(make(xv, {2}, F64)), F64, {2},
                 map(xv, [](double a) { return std::cos(std::exp(2 * a)) * 100 * 2; })) == "");

  // Two inputs, a tuple of gradients; the backward may use the output.
  auto two = custom_gradient([](Tensor a, Tensor b) { return a * b; },
                             [](Tensor a, Tensor b, Tensor y, Tensor ct) {
                               return std::make_tuple(ct * b * 2.0, ct * a * 3.0 + y * 0.0);
                             });
  auto [ga, gb] = grad<0, 1>([two](Tensor a, Tensor b) { return sum(two(a, b)); })(
      make({1, 2}, {2}, F64), make({3, 4}, {2}, F64));
  CHECK(mismatch(ga, F64, {2}, {6, 8}) == "");
  CHECK(mismatch(gb, F64, {2}, {3, 6}) == "");

  // A numerically stable softplus whose backward uses the output:
  // d/dx log(1 + e^x) = 1 - e^-y. Correct, so reverse-mode check_grads passes.
  auto softplus = custom_gradient([](Tensor a) { return log1p(exp(a)); },
                                  [](Tensor, Tensor y, Tensor ct) { return ct * (1.0 - exp(-y)); });
  GradCheckOptions reverse_only;
  reverse_only.forward = false;
  expect_grads("custom softplus, reverse", FN(softplus(x[0]) * x[0]),
               {make({0.5, -1.5, 2.0, 0.1}, {2, 2}, F64)}, 1, reverse_only);
  // Inside a jitted training step too.
  auto step = jit([scaled](Tensor a) { return a - 0.01 * grad([scaled](Tensor b) { return sum(scaled(b)); })(a); });
  CHECK(mismatch(step(x), F32, {3}, {0, -3, 2}, 1e-6) == "");
}

TEST_CASE("ad transforms: grad of grad differentiates the custom backward", "[ad][ad-transforms]") {
  // Forward x^3; backward 2x the true gradient: 6 x^2 ct. The second
  // derivative follows the backward (12 x), not the forward (6 x).
  auto cube = custom_gradient([](Tensor a) { return a * a * a; },
                              [](Tensor a, Tensor, Tensor ct) { return ct * a * a * 6.0; });
  auto first = grad([cube](Tensor a) { return sum(cube(a)); });
  CHECK(mismatch(first(make(kX, {3}, F64)), F64, {3}, map(kX, [](double a) { return 6 * a * a; })) ==
        "");
  auto second = grad([cube](Tensor a) {
    return sum(grad([cube](Tensor b) { return sum(cube(b)); })(a));
  });
  CHECK(mismatch(second(make(kX, {3}, F64)), F64, {3}, map(kX, [](double a) { return 12 * a; })) ==
        "");
  // A backward that depends on the cotangent nonlinearly: d/dx of
  // grad(sum(w * f(x))) with backward ct^2 * cos(x) -> w^2 * (-sin x).
  auto odd = custom_gradient([](Tensor a) { return sin(a); },
                             [](Tensor a, Tensor, Tensor ct) { return ct * ct * cos(a); });
  auto mixed = grad<0>([odd](Tensor a, Tensor w) {
    return sum(grad<0>([odd](Tensor b, Tensor u) { return sum(odd(b) * u); })(a, w));
  });
  Array w = make({1, 2, 3}, {3}, F64);
  CHECK(mismatch(mixed(make(kX, {3}, F64), w), F64, {3},
                 {-1 * std::sin(kX[0]), -4 * std::sin(kX[1]), -9 * std::sin(kX[2])}) == "");
}

TEST_CASE("ad transforms: forward mode through custom_gradient differentiates the forward function",
          "[ad][ad-transforms]") {
  // The custom rule is reverse-mode only; jvp uses the forward function's
  // own derivative (what forward-over-reverse through it needs).
  auto scaled = custom_gradient([](Tensor a) { return exp(a); },
                                [](Tensor, Tensor, Tensor ct) { return ct * 100.0; });
  auto f = [scaled](Tensor a) { return scaled(a); };
  Array x = make({1, 2}, {2}, F64);
  auto [y, t] = jvp(f, x, x);
  CHECK(mismatch(t, F64, {2}, {std::exp(1.0) * 1, std::exp(2.0) * 2}) == "");
  // check_grads reports the custom reverse rule disagreeing with both.
  CHECK_FALSE(check_grads(FN(scaled(x[0])), {x}));
}

TEST_CASE("ad transforms: custom_gradient's tangent rule serves forward mode",
          "[ad][ad-transforms]") {
  // The Euclidean norm with the subgradient 0 at the origin in both modes,
  // where sqrt's derivative makes the plain function's NaN.
  auto safe_norm = custom_gradient(
      [](Tensor a) { return sqrt(sum(a * a)); },
      [](Tensor a, Tensor y, Tensor ct) { return where(y > 0.0, a / y, 0.0) * ct; },
      [](Tensor a, Tensor y, Tensor t) { return where(y > 0.0, sum(a * t) / y, 0.0); });
  auto f = [safe_norm](Tensor a) { return safe_norm(a); };
  Array origin = Array::zeros({2}, F64), direction = make({0.6, -0.8}, {2}, F64);
  auto [y0, t0] = jvp(f, origin, direction);
  CHECK(mismatch(t0, F64, {}, {0}, 0) == "");
  CHECK(mismatch(grad(f)(origin), F64, {2}, {0, 0}, 0) == "");
  auto [y1, t1] = jvp(f, make({3, 4}, {2}, F64), direction);
  CHECK(mismatch(t1, F64, {}, {(3 * 0.6 - 4 * 0.8) / 5}) == "");
  // The plain function's forward mode gives NaN there.
  auto [yp, tp] = jvp([](Tensor a) { return sqrt(sum(a * a)); }, origin, direction);
  CHECK(std::isnan(values(tp)[0]));
  // Away from the origin both rules are the derivative: check_grads in
  // both modes and of second order (forward-over-reverse differentiates
  // the backward rule, reverse-over-reverse too).
  expect_grads("safe norm", FN(safe_norm(x[0]) * x[0]), {make({0.5, -1.5, 2.0}, {3}, F64)}, 2);

  // The rule is what forward mode calls: a tangent 100x too large shows in
  // jvp (and check_grads reports it), not in grad.
  auto loud = custom_gradient([](Tensor a) { return exp(a); },
                              [](Tensor, Tensor y, Tensor ct) { return ct * y; },
                              [](Tensor, Tensor y, Tensor t) { return t * y * 100.0; });
  Array x = make({1, 2}, {2}, F64);
  auto [y, t] = jvp([loud](Tensor a) { return loud(a); }, x, x);
  CHECK(mismatch(t, F64, {2}, {100 * std::exp(1.0), 200 * std::exp(2.0)}) == "");
  CHECK(mismatch(grad([loud](Tensor a) { return sum(loud(a)); })(x), F64, {2},
                 {std::exp(1.0), std::exp(2.0)}) == "");
  CHECK_FALSE(check_grads(FN(loud(x[0])), {x}));

  // Two inputs, zero tangents for the one not differentiated, and rules
  // that capture different values of the enclosing trace.
  auto both = jit([](Tensor a, Tensor b, Tensor w, Tensor v) {
    auto product = custom_gradient(
        [](Tensor p, Tensor q) { return p * q; },
        [w](Tensor, Tensor, Tensor, Tensor ct) { return std::make_tuple(ct * w, ct * 0.0); },
        [v](Tensor, Tensor q, Tensor, Tensor tp, Tensor tq) { return tp * v + tq * q; });
    Tensor g = grad([&](Tensor p) { return sum(product(p, b)); })(a);
    auto [value, tangent] = jvp([&](Tensor p) { return product(p, b); }, a, b);
    return std::vector<Tensor>{value, g, tangent};
  });
  std::vector<Array> got = both(make({1, 2}, {2}, F64), make({3, 4}, {2}, F64),
                                make({5, 6}, {2}, F64), make({7, 8}, {2}, F64));
  CHECK(mismatch(got[0], F64, {2}, {3, 8}) == "");
  CHECK(mismatch(got[1], F64, {2}, {5, 6}) == "");
  CHECK(mismatch(got[2], F64, {2}, {21, 32}) == "");

  // A tangent of the wrong type is an error naming it.
  auto wrong = custom_gradient([](Tensor a) { return a * 2.0; },
                               [](Tensor, Tensor, Tensor ct) { return ct * 2.0; },
                               [](Tensor, Tensor, Tensor t) { return sum(t); });
  std::string message =
      what_of<TraceError>([&] { jit([wrong](Tensor a) { return wrong(a); })(x); });
  INFO(message);
  CHECK(contains(message, "tangent 0 of the tangent function is f64[]"));
  CHECK(contains(message, "result 0 is f64[2]"));
  CHECK(contains(message, "test_compiler_ad_transforms.cpp"));
}

//===----------------------------------------------------------------------===//
// stop_gradient
//===----------------------------------------------------------------------===//

TEST_CASE("ad transforms: custom_gradient refuses to differentiate what its forward captured",
          "[ad][ad-transforms][errors]") {
  // Its rules give derivatives for its inputs alone: w's would silently be
  // zero (and forward mode through the forward function would disagree).
  // JAX's custom_vjp refuses such a closure too.
  auto loss = [](Tensor a, Tensor w) {
    auto scale = custom_gradient([w](Tensor q) { return q * w; },
                                 [w](Tensor, Tensor, Tensor ct) { return ct * w; },
                                 [w](Tensor, Tensor, Tensor t) { return t * w; });
    return sum(scale(a));
  };
  Array a = make({0.3, -1.2, 2.0}, {3}, F64), w = make({1.5, 0.7, -0.4}, {3}, F64);
  Array zero = Array::zeros({3}, F64), one = Array::ones({3}, F64);
  for (const std::string& message :
       {what_of<CompileError>([&] { grad<0, 1>(loss)(a, w); }),
        what_of<CompileError>([&] { jvp(loss, std::make_tuple(a, w), std::make_tuple(zero, one)); })}) {
    INFO(message);
    CHECK(contains(message, "custom_gradient: its forward function captured a 'tensor<3xf64>'"));
    CHECK(contains(message, "pass that Tensor as an input"));
    CHECK(contains(message, "test_compiler_ad_transforms.cpp"));
  }
  // Captured but not differentiated, it is a constant of the rules.
  CHECK(mismatch(grad<0>(loss)(a, w), w, 0) == "");
}

TEST_CASE("ad transforms: stop_gradient", "[ad][ad-transforms]") {
  Array x = make(kX, {3}, F64);
  auto blocked = grad([](Tensor a) { return sum(stop_gradient(a) * 3.0); });
  CHECK(mismatch(blocked(x), F64, {3}, {0, 0, 0}) == "");
  // Only the direct path of x * stop_gradient(x) counts.
  auto half = grad([](Tensor a) { return sum(stop_gradient(a) * a); });
  CHECK(mismatch(half(x), x) == "");
  // Forward mode: zero tangent through it.
  auto [out, t] = jvp([](Tensor a) { return stop_gradient(a) * a; }, x, make({1, 1, 1}, {3}, F64));
  CHECK(mismatch(t, x) == "");
  // Second order: grad of grad through stop_gradient.
  auto gg = grad([](Tensor a) {
    return sum(grad([](Tensor b) { return sum(stop_gradient(b * b) * b * b); })(a));
  });
  // f = c b^2 with c = b^2 held: f' = 2 c b; d/db of that with c still held: 2 c.
  CHECK(mismatch(gg(x), F64, {3}, map(kX, [](double a) { return 2 * a * a; })) == "");
  // check_grads notices that a stop_gradient changes the derivative.
  GradCheckReport bad = check_grads(FN(sum(stop_gradient(x[0]) * x[0])), {x});
  INFO(bad.summary());
  CHECK_FALSE(bad);
  CHECK(contains(bad.summary(), "FAILED"));
  CHECK(contains(bad.summary(), "argument 0"));
}

TEST_CASE("ad transforms: logsumexp written with stop_gradient stays correct",
          "[ad][ad-transforms]") {
  auto lse = [](Tensor a) {
    Tensor m = stop_gradient(max(a, {-1}, true));
    return squeeze(log(sum(exp(a - m), {-1}, true)) + m, -1);
  };
  Vec big = {1000, 1001, 999};
  for (DType dtype : {F32, F64}) {
    Array x = make(big, {1, 3}, dtype);
    Array value = jit(lse)(x);
    double want_value = 1001 + std::log(std::exp(-1.0) + 1 + std::exp(-2.0));
    CHECK(mismatch(value, dtype, {1}, {want_value}, 1e-6) == "");
    Array g = grad([lse](Tensor a) { return sum(lse(a)); })(x);
    CHECK(mismatch(g, dtype, {1, 3}, {softmax_i(big, 0), softmax_i(big, 1), softmax_i(big, 2)},
                   1e-6) == "");
    CHECK(mismatch(g, grad([](Tensor a) { return logsumexp(a); })(x), 1e-6) == "");
    expect_grads("stop_gradient logsumexp", FN(lse(x[0])), {make({0.5, -1.0, 2.0, 0.1, 0.2, 0.3}, {2, 3}, dtype)});
  }
  // Its second derivative is the softmax Hessian too.
  Array H = hessian([lse](Tensor a) { return sum(lse(a)); })(make(kX, {1, 3}, F64));
  Vec want;
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 3; ++j)
      want.push_back((i == j ? softmax_i(kX, i) : 0) - softmax_i(kX, i) * softmax_i(kX, j));
  CHECK(mismatch(H, F64, {1, 3, 1, 3}, want, 1e-9) == "");
}
