// AD corner cases: conventions at non-differentiable points, clamped
// indices, closures over outer traced values (nested differentiation
// without perturbation confusion), misuse errors of the transforms.
#include "test_support.h"

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

TEST_CASE("ad edge: pow and integer_pow at a zero base or exponent, abs and relu at zero", "[ad][ad-edge]") {
  // d/dx x^2 at 0 is 0; d/dx x^0 is 0 everywhere (also at 0, no 0 * inf).
  auto square_grad = grad([](Tensor x) { return sum(pow(x, 2.0)); });
  CHECK(mismatch(square_grad(make({0, 1.5}, {2}, F64)), F64, {2}, {0, 3}) == "");
  auto zero_power = grad([](Tensor x) { return sum(pow(x, 0.0)); });
  CHECK(mismatch(zero_power(make({0, 2}, {2}, F64)), F64, {2}, {0, 0}) == "");
  // d/db 0^b = 0 for b > 0 (the limit), not nan from log(0).
  auto exponent = grad([](Tensor b) { return sum(pow(0.0, b)); });
  CHECK(mismatch(exponent(make({1, 2.5}, {2}, F64)), F64, {2}, {0, 0}) == "");
  // integer_pow: n x^(n-1), so 0 at 0 for n = 2, 1 for n = 1, and x^0 has
  // a zero derivative everywhere (no 0 * inf at 0); the same in jvp.
  auto ipow_grad = grad([](Tensor x) {
    return sum(integer_pow(x, 2) + integer_pow(x, 1) * 3.0 + integer_pow(x, 0));
  });
  CHECK(mismatch(ipow_grad(make({0, 1.5}, {2}, F32)), F32, {2}, {3, 6}) == "");
  auto [ipow_value, ipow_tangent] = jvp([](Tensor x) { return integer_pow(x, 3) + integer_pow(x, 0); },
                                        make({0, -2}, {2}, F64), make({1, 0.5}, {2}, F64));
  CHECK(mismatch(ipow_value, F64, {2}, {1, -7}) == "");
  CHECK(mismatch(ipow_tangent, F64, {2}, {0, 6}) == "");
  // abs' = sign: 0 at 0.
  auto abs_grad = grad([](Tensor x) { return sum(abs(x)); });
  CHECK(mismatch(abs_grad(make({0, -2, 3}, {3}, F32)), F32, {3}, {0, -1, 1}) == "");
  // relu' is 0 at 0 in both modes, as in JAX, TensorFlow and PyTorch (not
  // maximum's equal split of a tie); relu passes NaN and maps -inf to 0.
  Array at_kink = make({0, -2, 3}, {3}, F32);
  auto relu_grad = grad([](Tensor x) { return sum(relu(x)); });
  CHECK(mismatch(relu_grad(at_kink), F32, {3}, {0, 0, 1}) == "");
  auto [relu_value, relu_tangent] =
      jvp([](Tensor x) { return relu(x); }, at_kink, make({1, 1, 1}, {3}, F32));
  CHECK(mismatch(relu_value, F32, {3}, {0, 0, 3}) == "");
  CHECK(mismatch(relu_tangent, F32, {3}, {0, 0, 1}) == "");
  auto relu_of = jit([](Tensor x) { return relu(x); });
  std::vector<float> specials = relu_of(make({NAN, -INFINITY, INFINITY}, {3}, F32)).to_vector<float>();
  CHECK(std::isnan(specials[0]));
  CHECK(specials[1] == 0);
  CHECK(specials[2] == INFINITY);
  // sign and floor: zero derivative.
  auto flat = grad([](Tensor x) { return sum(sign(x) * 2.0 + floor(x)); });
  CHECK(mismatch(flat(make({0.5, -2.5}, {2}, F64)), F64, {2}, {0, 0}) == "");
}

TEST_CASE("ad edge: take gradients with negative and out-of-range indices", "[ad][ad-edge]") {
  // take counts a negative index from the end and clamps what is still out
  // of range (-6 + 4 = -2 -> 0); the gradient lands where the value came from.
  auto values_of = jit([](Tensor x, Tensor idx) { return take(x, idx, 0); });
  Array x = make({1, 2, 3, 4}, {4}, F32);
  Array idx = Array::from<int32_t>({5, -1, 1, -6}, {4});
  CHECK(mismatch(values_of(x, idx), F32, {4}, {4, 4, 2, 1}) == "");
  auto g = grad<0>([](Tensor x, Tensor idx) { return sum(take(x, idx, 0) * take(x, idx, 0)); });
  CHECK(mismatch(g(x, idx), F32, {4}, {2, 4, 0, 16}) == "");
}

TEST_CASE("ad edge: closures over outer traced values, nested grads", "[ad][ad-edge]") {
  // grad of an inner function that captures an outer Tensor y: d/dx sum(x*y) = y.
  auto f = jit([](Tensor x, Tensor y) {
    return grad([&y](Tensor a) { return sum(a * y); })(x);
  });
  CHECK(mismatch(f(make({1, 2}, {2}, F64), make({3, 4}, {2}, F64)), F64, {2}, {3, 4}) == "");
  // Differentiating through the capture: d/dy sum(grad_x sum(x^2 y)) = d/dy sum(2 x y) = 2x.
  auto mixed = grad<1>([](Tensor x, Tensor y) {
    return sum(grad([&y](Tensor a) { return sum(a * a * y); })(x));
  });
  CHECK(mismatch(mixed(make({1, 2}, {2}, F64), make({3, 4}, {2}, F64)), F64, {2}, {2, 4}) == "");
  // Perturbation confusion (Siskind & Pearlmutter): d/dx [x * d/dy (x + y)] = 1.
  auto confusion = grad([](Tensor x) {
    Tensor inner = grad([&x](Tensor y) { return sum(x + y); })(x);
    return sum(x * inner);
  });
  CHECK(mismatch(confusion(make({2.0}, {}, F64)), F64, {}, {1}) == "");
  // The same in forward mode: jvp of a function that uses jvp with a captured x.
  auto [out, tangent] = jvp(
      [](Tensor x) {
        auto [y, dy] = jvp([&x](Tensor b) { return x + b; }, x, ones_like(x));
        return x * dy;
      },
      make({2.0}, {}, F64), make({1.0}, {}, F64));
  CHECK(mismatch(out, F64, {}, {2}) == "");
  CHECK(mismatch(tangent, F64, {}, {1}) == "");
}

TEST_CASE("ad edge: maximum with a NaN operand and the exact gelu's curvature at 0",
          "[ad][ad-edge]") {
  // Where either operand is NaN (so is the result) neither gets a share of
  // the cotangent, as in JAX: the rule is symmetric in its operands.
  Array a = make({NAN, 1, 2}, {3}, F32), b = make({1, NAN, 2}, {3}, F32);
  for (bool maximal : {true, false}) {
    INFO((maximal ? "maximum" : "minimum"));
    auto both = grad<0, 1>([maximal](Tensor x, Tensor y) {
      return sum(maximal ? maximum(x, y) : minimum(x, y));
    });
    auto [ga, gb] = both(a, b);
    CHECK(mismatch(ga, F32, {3}, {0, 0, 0.5}) == "");
    CHECK(mismatch(gb, F32, {3}, {0, 0, 0.5}) == "");
    auto [value, tangent] = jvp([maximal](Tensor x, Tensor y) {
      return maximal ? maximum(x, y) : minimum(x, y);
    }, std::make_tuple(a, b), std::make_tuple(make({1, 1, 1}, {3}, F32), make({1, 1, 1}, {3}, F32)));
    CHECK(mismatch(tangent, F32, {3}, {0, 0, 1}) == "");
  }
  // gelu'' = 2 phi(x) - x^2 phi(x): 2 phi(0) = 0.7978845608 at 0 (the
  // derivative of Phi's |x| is taken from the right there).
  auto curvature = hessian([](Tensor x) { return sum(gelu(x, false)); });
  for (double at : {0.0, -0.0, 1e-30, -1.0}) {
    INFO(at);
    double phi = std::exp(-at * at / 2) / std::sqrt(2 * M_PI);
    std::vector<double> h = curvature(make({at}, {1}, F64)).to_vector<double>();
    CHECK(std::abs(h[0] - (2 - at * at) * phi) < 1e-12);
  }
}

TEST_CASE("ad edge: second derivatives at infinities are not NaN from zero cotangents",
          "[ad][ad-edge]") {
  // An unused result of an inner derivative (its value) and a constant's
  // tangent take no part, as JAX's symbolic zeros: no 0 * inf = NaN.
  Array inf = make({INFINITY}, {1}, F64);
  auto twice = grad([](Tensor x) { return sum(grad([](Tensor y) { return sum(y * y); })(x)); });
  CHECK(mismatch(twice(inf), F64, {1}, {2}) == "");
  auto h = hessian([](Tensor x) { return sum(square(x)); });
  CHECK(mismatch(h(make({INFINITY, 0, 2}, {3}, F64)), F64, {3, 3}, {2, 0, 0, 0, 2, 0, 0, 0, 2}) == "");
  CHECK(mismatch(hvp([](Tensor x) { return sum(x * x); }, inf, make({1}, {1}, F64)), F64, {1},
                 {2}) == "");
  auto through_max = grad([](Tensor x) {
    return sum(grad([](Tensor y) { return sum(max(y, {0}, true) * y); })(x));
  });
  CHECK(mismatch(through_max(make({-INFINITY, 5}, {2}, F64)), F64, {2}, {1, 3}) == "");
}

TEST_CASE("ad edge: the same Tensor passed as several arguments", "[ad][ad-edge]") {
  auto f = [](Tensor a, Tensor b) { return sum(a * b * b); };
  auto g = jit([f](Tensor x) {
    auto [ga, gb] = grad<0, 1>(f)(x, x);
    return std::make_tuple(ga, gb, grad([f](Tensor y) { return f(y, y); })(x));
  });
  auto [ga, gb, total] = g(make({1, 2}, {2}, F64));
  CHECK(mismatch(ga, F64, {2}, {1, 4}) == "");
  CHECK(mismatch(gb, F64, {2}, {2, 8}) == "");
  CHECK(mismatch(total, F64, {2}, {3, 12}) == "");
}

TEST_CASE("ad edge: hessian of a matrix argument and of unconnected parts", "[ad][ad-edge]") {
  // f = sum(x^3) / 3 on [2,2]: H = diag(2x) with shape [2,2,2,2].
  auto h = hessian([](Tensor x) { return sum(x * x * x) / 3.0; });
  Vec xs = {1, -2, 0.5, 3}, want(16, 0.0);
  for (int k = 0; k < 4; ++k) want[k * 4 + k] = 2 * xs[k];
  CHECK(mismatch(h(make(xs, {2, 2}, F64)), F64, {2, 2, 2, 2}, want) == "");
  // A linear function has a zero Hessian.
  auto lin = hessian([](Tensor x) { return sum(x * 2.0); });
  CHECK(mismatch(lin(make({1, 2}, {2}, F64)), F64, {2, 2}, {0, 0, 0, 0}) == "");
  // hvp along a direction for an f32 function of a 0-d argument.
  Array hv = hvp([](Tensor x) { return x * x * x; }, Array::scalar<float>(2), Array::scalar<float>(0.5f));
  CHECK(mismatch(hv, F32, {}, {6}) == "");
}

// Regression: forward-over-reverse through custom_gradient used to fail on
// the jvp of the custom forward call inside the vjp function.
TEST_CASE("ad edge: hvp through a custom_gradient backward", "[ad][ad-edge]") {
  // Forward over reverse: the reverse pass uses the custom backward (plain
  // ops), so jvp of it is defined: d/dx (6 x^2 ct) . v = 12 x v.
  auto cube = custom_gradient([](Tensor a) { return a * a * a; },
                              [](Tensor a, Tensor, Tensor ct) { return ct * a * a * 6.0; });
  auto f = [cube](Tensor a) { return sum(cube(a)); };
  Array r, H;
  CHECK_NOTHROW(r = hvp(f, make({1, 2}, {2}, F64), make({1, -1}, {2}, F64)));
  CHECK(mismatch(r, F64, {2}, {12, -24}) == "");
  CHECK_NOTHROW(H = hessian(f)(make({1, 2}, {2}, F64)));
  CHECK(mismatch(H, F64, {2, 2}, {12, 0, 0, 24}) == "");
}

TEST_CASE("ad edge: misuse of the transforms throws adjit errors naming the problem",
          "[ad][ad-edge]") {
  // grad of a non-scalar result.
  std::string m = what_of<Error>([] { grad([](Tensor x) { return x * 2.0; })(make({1, 2}, {2}, F32)); });
  INFO(m);
  CHECK(contains(m, "scalar"));
  CHECK(contains(m, "f32[2]"));
  // value_and_grad says the same, not something about vjp cotangents.
  m = what_of<Error>([] {
    value_and_grad([](Tensor x) { return x * 2.0; })(make({1, 2}, {2}, F32));
  });
  INFO(m);
  CHECK(contains(m, "adjit::value_and_grad"));
  CHECK(contains(m, "must return one scalar (0-d) float Tensor, got (f32[2])"));
  CHECK_FALSE(contains(m, "cotangent"));
  // grad of an integer result.
  m = what_of<Error>([] {
    grad([](Tensor x) { return sum(x); })(Array::from<int32_t>({1, 2}, {2}));
  });
  INFO(m);
  CHECK(contains(m, "float"));
  // jvp with a tangent of the wrong shape.
  m = what_of<Error>([] {
    jvp([](Tensor x) { return sin(x); }, make({1, 2}, {2}, F32), make({1, 2, 3}, {3}, F32));
  });
  INFO(m);
  CHECK_FALSE(contains(m, "(no exception)"));
  CHECK_FALSE(contains(m, "not an adjit::Error"));
  CHECK(contains(m, "f32[3]"));
  // jvp with a tangent of another dtype.
  m = what_of<Error>([] {
    jvp([](Tensor x) { return sin(x); }, make({1, 2}, {2}, F32), make({1, 2}, {2}, F64));
  });
  INFO(m);
  CHECK_FALSE(contains(m, "(no exception)"));
  CHECK_FALSE(contains(m, "not an adjit::Error"));
  // A pullback given a cotangent of the wrong shape.
  m = what_of<Error>([] {
    auto [y, pullback] = vjp([](Tensor x) { return sin(x); }, make({1, 2}, {2}, F32));
    pullback(make({1, 2, 3}, {3}, F32));
  });
  INFO(m);
  CHECK_FALSE(contains(m, "(no exception)"));
  CHECK_FALSE(contains(m, "not an adjit::Error"));
  CHECK(contains(m, "f32[3]"));
  // check_grads with an order it does not take names the range.
  m = what_of<Error>([] { check_grads([](Tensor x) { return x; }, {make({1}, {1}, F64)}, 0); });
  INFO(m);
  CHECK(contains(m, "order must be 1 to 4, got 0"));
  CHECK_THROWS_AS(check_grads([](Tensor x) { return x; }, {make({1}, {1}, F64)}, 5), TraceError);
  // Arguments the function cannot take: named, with the caller's line.
  m = what_of<TraceError>([] {
    check_grads([](Tensor x, Tensor y) { return sum(x * y); }, {make({1}, {1}, F64)});
  });
  INFO(m);
  CHECK(contains(m, "adjit::check_grads: the function cannot be called with 1 Tensor arguments"));
  CHECK(contains(m, "test_compiler_ad_edge.cpp:"));
}

// Regression: vjp/jvp errors pointed at Grad.h instead of the user's call.
TEST_CASE("ad edge: vjp/jvp misuse errors name the user's source line", "[ad][ad-edge]") {
  std::string m = what_of<Error>([] {
    jvp([](Tensor x) { return sin(x); }, make({1, 2}, {2}, F32), make({1, 2, 3}, {3}, F32));
  });
  INFO(m);
  CHECK(contains(m, "test_compiler_ad_edge.cpp"));
  m = what_of<Error>([] {
    auto [y, pullback] = vjp([](Tensor x) { return sin(x); }, make({1, 2}, {2}, F32));
    pullback(make({1, 2, 3}, {3}, F32));
  });
  INFO(m);
  CHECK(contains(m, "test_compiler_ad_edge.cpp"));
  // An error of vjp's own call (not its pullback's), inside a trace.
  Tensor kept;
  auto keep = jit([&](Tensor x) {
    kept = x;
    return x * 2.0;
  });
  keep(make({1, 2}, {2}, F32));
  auto uses_kept = jit([&](Tensor) { return vjp([](Tensor a) { return sin(a); }, kept).first; });
  m = what_of<TraceError>([&] { uses_kept(make({1, 2}, {2}, F32)); });
  INFO(m);
  CHECK(contains(m, "adjit::vjp: an operand"));
  CHECK(contains(m, "test_compiler_ad_edge.cpp"));
}

TEST_CASE("ad edge: vjp and grad with std::vector results and structures", "[ad][ad-edge]") {
  auto f = [](Tensor x) { return std::vector<Tensor>{x * 2.0, sin(x)}; };
  auto [outs, pullback] = vjp(f, make({0.5, 1.0}, {2}, F64));
  REQUIRE(outs.size() == 2);
  CHECK(mismatch(outs[0], F64, {2}, {1, 2}) == "");
  Array g = pullback(std::vector<Array>{make({1, 1}, {2}, F64), make({2, 0}, {2}, F64)});
  CHECK(mismatch(g, F64, {2}, {2 + 2 * std::cos(0.5), 2}) == "");
}

TEST_CASE("ad edge: retracing grad for new shapes and dtypes", "[ad][ad-edge]") {
  auto g = grad([](Tensor x) { return sum(x * x); });
  CHECK(mismatch(g(make({1, 2}, {2}, F32)), F32, {2}, {2, 4}) == "");
  CHECK(mismatch(g(make({1, 2, 3}, {3}, F32)), F32, {3}, {2, 4, 6}) == "");
  CHECK(mismatch(g(make({1, 2}, {2}, F64)), F64, {2}, {2, 4}) == "");
  CHECK(mismatch(g(make({1, 2, 3, 4}, {2, 2}, F64)), F64, {2, 2}, {2, 4, 6, 8}) == "");
  CHECK(g.cache_info().misses == 4);
}

TEST_CASE("ad edge: reverse over forward, jvp inside grad", "[ad][ad-edge]") {
  // d/dx sum(jvp(sin, x, v)) = d/dx sum(cos(x) v) = -sin(x) v.
  auto g = grad<0>([](Tensor x, Tensor v) { return sum(jvp([](Tensor a) { return sin(a); }, x, v).second); });
  Vec xs = {0.3, -0.7};
  CHECK(mismatch(g(make(xs, {2}, F64), make({1, 2}, {2}, F64)), F64, {2},
                 {-std::sin(0.3), -2 * std::sin(-0.7)}) == "");
}

TEST_CASE("ad edge: integer argument first, float argument second", "[ad][ad-edge]") {
  // f = sum(x[idx]) * sum(x) with idx = [0, 0]: 2 x0 S.
  auto g = grad<1>([](Tensor idx, Tensor x) { return sum(take(x, idx, 0)) * sum(x); });
  Array idx = Array::from<int32_t>({0, 0}, {2});
  // (2 x0) * S: d/dx0 = 2 S + 2 x0, d/dx1 = 2 x0.
  CHECK(mismatch(g(idx, make({1, 2}, {2}, F64)), F64, {2}, {2 * 3 + 2, 2}) == "");
}

TEST_CASE("ad edge: grad w.r.t. std::pair, std::array and nested structures", "[ad][ad-edge]") {
  auto f = [](std::pair<Tensor, Tensor> p, std::array<Tensor, 2> a) {
    return sum(p.first * p.second) + sum(a[0] * a[1] * a[1]);
  };
  Array one = make({1, 2}, {2}, F64), two = make({3, 4}, {2}, F64);
  auto [gp, ga] = grad<0, 1>(f)(std::pair{one, two}, std::array<Array, 2>{one, two});
  CHECK(mismatch(gp.first, F64, {2}, {3, 4}) == "");
  CHECK(mismatch(gp.second, F64, {2}, {1, 2}) == "");
  CHECK(mismatch(ga[0], F64, {2}, {9, 16}) == "");
  CHECK(mismatch(ga[1], F64, {2}, {6, 16}) == "");
}

TEST_CASE("ad edge: custom_gradient with a tuple output", "[ad][ad-edge]") {
  auto both = custom_gradient(
      [](Tensor a) { return std::make_tuple(a * 2.0, a * a); },
      [](Tensor a, std::tuple<Tensor, Tensor>, std::tuple<Tensor, Tensor> ct) {
        // True gradient: 2 ct0 + 2 a ct1; scaled by 10 to show it is used.
        return (std::get<0>(ct) * 2.0 + std::get<1>(ct) * a * 2.0) * 10.0;
      });
  auto g = grad([both](Tensor a) {
    auto [p, q] = both(a);
    return sum(p) + sum(q);
  });
  CHECK(mismatch(g(make({1, 2}, {2}, F64)), F64, {2}, {40, 60}) == "");
}

TEST_CASE("ad edge: a custom backward returning the wrong shape is an error", "[ad][ad-edge]") {
  auto bad = custom_gradient([](Tensor a) { return a * 2.0; },
                             [](Tensor, Tensor, Tensor ct) { return sum(ct); });
  std::string m = what_of<Error>([bad] { grad([bad](Tensor a) { return sum(bad(a)); })(make({1, 2}, {2}, F32)); });
  INFO(m);
  CHECK_FALSE(contains(m, "(no exception)"));
  CHECK_FALSE(contains(m, "not an adjit::Error"));
  CHECK(contains(m, "f32[2]"));
}

TEST_CASE("ad edge: a persistent tape differentiating its own gradient", "[ad][ad-edge]") {
  // The gradient computation happens while the persistent tape records, so
  // (as in TensorFlow) differentiating the gradient again gives the second
  // derivative.
  auto f = jit([](Tensor x) {
    GradientTape tape(true);
    tape.watch(x);
    Tensor g = tape.gradient(sum(x * x * x), x);
    return std::make_tuple(g, tape.gradient(sum(g), x));
  });
  auto [g, h] = f(make({1, 2}, {2}, F64));
  CHECK(mismatch(g, F64, {2}, {3, 12}) == "");
  CHECK(mismatch(h, F64, {2}, {6, 12}) == "");
}

TEST_CASE("ad edge: two tapes watching different sources", "[ad][ad-edge]") {
  auto f = jit([](Tensor x, Tensor y) {
    GradientTape tx, ty;
    tx.watch(x);
    ty.watch(y);
    Tensor z = sum(x * y * y);
    return std::make_tuple(tx.gradient(z, x), ty.gradient(z, y));
  });
  auto [gx, gy] = f(make({1, 2}, {2}, F64), make({3, 4}, {2}, F64));
  CHECK(mismatch(gx, F64, {2}, {9, 16}) == "");
  CHECK(mismatch(gy, F64, {2}, {6, 16}) == "");
}

TEST_CASE("ad edge: 16-bit floats", "[ad][ad-edge]") {
  for (DType dtype : {DType::f16, DType::bf16}) {
    Array x = Array::uniform({2, 3}, 3, -1, 1, dtype);
    auto r = check_grads([](Tensor a) { return tanh(a) * a + exp(a); }, {x});
    INFO(dtype_name(dtype) << ": " << r.summary());
    CHECK(r);
    Array g = grad([](Tensor a) { return sum(a * a); })(x);
    CHECK(g.dtype() == dtype);
  }
}

TEST_CASE("ad edge: identity functions (results that are the arguments)", "[ad][ad-edge]") {
  Array x = Array::scalar<double>(1.5);
  CHECK(mismatch(grad([](Tensor a) { return a; })(x), F64, {}, {1}) == "");
  auto [v, g] = value_and_grad([](Tensor a) { return a; })(x);
  CHECK(mismatch(v, F64, {}, {1.5}) == "");
  CHECK(mismatch(g, F64, {}, {1}) == "");
  auto [y, t] = jvp([](Tensor a) { return a; }, make({1, 2}, {2}, F32), make({3, 4}, {2}, F32));
  CHECK(mismatch(y, F32, {2}, {1, 2}) == "");
  CHECK(mismatch(t, F32, {2}, {3, 4}) == "");
  auto [out, pullback] = vjp([](Tensor a) { return a; }, make({1, 2}, {2}, F32));
  CHECK(mismatch(pullback(make({5, 6}, {2}, F32)), F32, {2}, {5, 6}) == "");
  auto tape = jit([](Tensor a) {
    GradientTape tp;
    tp.watch(a);
    return tp.gradient(a, a);  // the sum of a w.r.t. a: ones
  });
  CHECK(mismatch(tape(make({1, 2}, {2}, F32)), F32, {2}, {1, 1}) == "");
}

TEST_CASE("ad edge: non-differentiable integer paths inside the graph", "[ad][ad-edge]") {
  // argmax picks an element (gradient there); casts through i32 cut the path.
  auto g = grad([](Tensor x) { return sum(take(x, argmax(x, 0), 0)); });
  CHECK(mismatch(g(make({1, 5, 2}, {3}, F32)), F32, {3}, {0, 1, 0}) == "");
  auto h = grad([](Tensor x) { return sum(cast(cast(x, I32), F32) * x); });
  CHECK(mismatch(h(make({1.5, -2.5, 3.2}, {3}, F32)), F32, {3}, {1, -2, 3}) == "");
  auto k = grad([](Tensor x) {
    Tensor mask = logical_and(x > 0.0, x < 2.0);
    return sum(where(mask, x * x, x) + cast(arange(3, I32), F32) * x);
  });
  CHECK(mismatch(k(make({1, 3, -1}, {3}, F32)), F32, {3}, {2, 2, 3}) == "");
}

TEST_CASE("ad edge: a tape does not record ops traced before it was created", "[ad][ad-edge]") {
  // `before` is unconnected for the tape (zeros); `after` only through the
  // recorded sum(x * 3).
  auto g = jit([](Tensor x) {
    Tensor before = sum(x * x);
    GradientTape tape(true);
    tape.watch(x);
    Tensor after = before + sum(x * 3.0);
    return std::make_tuple(tape.gradient(before, x), tape.gradient(after, x));
  });
  auto [b, a] = g(make({1, 2}, {2}, F64));
  CHECK(mismatch(b, F64, {2}, {0, 0}) == "");
  CHECK(mismatch(a, F64, {2}, {3, 3}) == "");
}

TEST_CASE("ad edge: check_grads with plain multi-argument lambdas, sampling and options",
          "[ad][ad-edge]") {
  Array a = Array::uniform({2, 3}, 1, -1, 1, F64), b = Array::uniform({3}, 2, -1, 1, F64),
        c = Array::uniform({}, 3, 0.5, 1, F64);
  auto r = check_grads([](Tensor x, Tensor y, Tensor z) { return sin(x * y) * z; }, {a, b, c});
  INFO(r.summary());
  CHECK(r);
  CHECK(r.checked == 2 * (6 + 3 + 1));
  CHECK(contains(r.summary(), "passed"));
  // More elements than max_elements: a sample of them.
  GradCheckOptions few;
  few.max_elements = 5;
  auto big = check_grads([](Tensor x) { return tanh(x) * x; }, {Array::uniform({20, 20}, 4, -1, 1, F64)},
                         1, few);
  INFO(big.summary());
  CHECK(big);
  CHECK(big.checked == 2 * 5);
  auto sampled = check_grads([](Tensor x) { return exp(x) * 0.5; }, {Array::uniform({300}, 5, -1, 1, F32)});
  INFO(sampled.summary());
  CHECK(sampled);
  CHECK(sampled.checked == 2 * 256);
  // A wrong custom gradient is caught in reverse mode (forward mode off:
  // custom gradients have none).
  auto wrong = custom_gradient([](Tensor x) { return exp(x); },
                               [](Tensor, Tensor, Tensor ct) { return ct * 100.0; });
  GradCheckOptions reverse_only;
  reverse_only.forward = false;
  auto caught = check_grads([wrong](Tensor x) { return wrong(x); }, {b}, 1, reverse_only);
  INFO(caught.summary());
  CHECK_FALSE(caught);
  CHECK(contains(caught.summary(), "reverse mode"));
  CHECK(caught.worst_ratio > 1);
  CHECK(caught.checked == 3);
}

TEST_CASE("ad edge: rematerialization keeps what the backward pass compares for equality",
          "[ad][ad-edge][remat]") {
  // max's mask compares its input with the kept maximum. Recomputed, that
  // input came from libm's sin where the forward pass had run a vector sin:
  // a row's mask was all false, its gradient 0 / 0 (NaN). JAX 0.10.2's
  // gradient, below.
  auto f = [](Tensor x) {
    return sum(take(x, arange(3) % 2, 0) + max(abs(sin(transpose(x))), {1}, true));
  };
  const Vec want{2, 2, 0.751559490359, 1, 1.212211605, 1, 1.6209069176, 0, 0};
  for (DType dtype : {DType::f64, DType::f32}) {
    INFO(dtype_name(dtype));
    Array x = make({0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 1.0, 0.1, -0.3}, {3, 3}, dtype);
    double tol = dtype == DType::f64 ? 1e-9 : 1e-5;
    CHECK(mismatch(grad(f)(x), dtype, {3, 3}, want, tol) == "");
    CHECK(mismatch(jit(grad(f), {.rematerialize = false})(x), dtype, {3, 3}, want, tol) == "");
  }
}
