// Derivative rules of every differentiable op, through check_grads: reverse
// mode (grad) and forward mode (jvp) against f64 central differences, in f32
// and f64, with broadcasting operands, 0-d values and size-1 dims. Inputs
// stay away from the points where an op is not differentiable (abs/relu at
// 0, max/min ties, log/sqrt at 0); the conventions at those points (ties
// split the gradient) are checked with direct grad calls.
//
// Every check goes through one std::function type (Fn) so that check_grads
// and its transforms are instantiated once for the whole file.
#include "test_support.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

// Deterministic samples of U[lo, hi).
Array uniform(const Shape& shape, double lo, double hi, DType dtype, uint64_t seed) {
  return make(values(Array::uniform(shape, seed, lo, hi, F64)), shape, dtype);
}
// Magnitudes in [0.3, 1.5), alternating signs: away from 0.
Array signed_away(const Shape& shape, DType dtype, uint64_t seed) {
  Vec v = values(Array::uniform(shape, seed, 0.3, 1.5, F64));
  for (size_t i = 0; i < v.size(); ++i)
    if (i % 2) v[i] = -v[i];
  return make(v, shape, dtype);
}
// Distinct values on a grid of spacing 0.3 (shuffled), plus `offset`: no
// ties within one array, and none against another array with an offset
// that differs by 0.15.
Array distinct(const Shape& shape, DType dtype, double offset = 0) {
  int64_t n = count(shape);
  Vec v(static_cast<size_t>(n));
  int64_t step = (n % 7) ? 7 : 5;
  for (int64_t i = 0; i < n; ++i) v[i] = 0.3 * static_cast<double>((i * step) % n) - 1.0 + offset;
  return make(v, shape, dtype);
}

std::string str(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "," : "") << s[i];
  return os.str() + "]";
}

const DType kFloatTypes[] = {F32, F64};

struct UnaryCase {
  const char* name;
  Fn f;
  enum Domain { any, positive, away_from_zero, above_minus_one } domain;
};

Array unary_input(UnaryCase::Domain domain, const Shape& shape, DType dtype, uint64_t seed) {
  switch (domain) {
    case UnaryCase::positive: return uniform(shape, 0.4, 2.0, dtype, seed);
    case UnaryCase::away_from_zero: return signed_away(shape, dtype, seed);
    case UnaryCase::above_minus_one: return uniform(shape, -0.6, 1.5, dtype, seed);
    default: return uniform(shape, -1.8, 1.8, dtype, seed);
  }
}

}  // namespace

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

TEST_CASE("ad ops: unary elementwise ops, f32 and f64, shape 2x3, 0-d and size-1 dims", "[ad][ad-ops]") {
  const std::vector<UnaryCase> cases = {
      {"exp", FN(exp(x[0])), UnaryCase::any},
      {"log", FN(log(x[0])), UnaryCase::positive},
      {"log1p", FN(log1p(x[0])), UnaryCase::above_minus_one},
      {"expm1", FN(expm1(x[0])), UnaryCase::any},
      {"sqrt", FN(sqrt(x[0])), UnaryCase::positive},
      {"rsqrt", FN(rsqrt(x[0])), UnaryCase::positive},
      {"square", FN(square(x[0])), UnaryCase::any},
      {"integer_pow 3", FN(integer_pow(x[0], 3)), UnaryCase::any},
      {"integer_pow -2", FN(integer_pow(x[0], -2)), UnaryCase::away_from_zero},
      {"integer_pow 0", FN(integer_pow(x[0], 0) * x[0]), UnaryCase::any},
      {"abs", FN(abs(x[0])), UnaryCase::away_from_zero},
      {"sin", FN(sin(x[0])), UnaryCase::any},
      {"cos", FN(cos(x[0])), UnaryCase::any},
      {"tanh", FN(tanh(x[0])), UnaryCase::any},
      {"sigmoid", FN(sigmoid(x[0])), UnaryCase::any},
      {"relu", FN(relu(x[0])), UnaryCase::away_from_zero},
      {"erf", FN(erf(x[0])), UnaryCase::any},
      {"gelu(tanh)", FN(gelu(x[0], true)), UnaryCase::any},
      {"gelu(exact)", FN(gelu(x[0], false)), UnaryCase::any},
      {"unary -", FN(-x[0]), UnaryCase::any},
  };
  const Shape shapes[] = {{2, 3}, {}, {1, 3}};
  uint64_t seed = 11;
  for (const UnaryCase& c : cases)
    for (DType dtype : kFloatTypes)
      for (const Shape& shape : shapes)
        expect_grads(c.name, c.f, {unary_input(c.domain, shape, dtype, ++seed)});
}

TEST_CASE("ad ops: unary ops composed (chain rule through several rules)", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    expect_grads("sin(exp(tanh x)) * sqrt(x*x+1)",
                 FN(sin(exp(tanh(x[0]))) * sqrt(x[0] * x[0] + 1.0)),
                 {uniform({2, 3}, -1, 1, dtype, 3)});
    expect_grads("log(sigmoid x) + erf(x)^2", FN(log(sigmoid(x[0])) + square(erf(x[0]))),
                 {uniform({3}, -2, 2, dtype, 4)});
  }
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops and operators, with broadcasting
//===----------------------------------------------------------------------===//

TEST_CASE("ad ops: + - * / pow with broadcasting, f32 and f64", "[ad][ad-ops]") {
  struct ShapePair {
    Shape a, b;
  };
  const ShapePair pairs[] = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1}, {1, 3}}, {{}, {2, 3}}, {{2, 3}, {}}, {{1}, {}}};
  uint64_t seed = 100;
  for (DType dtype : kFloatTypes)
    for (const ShapePair& p : pairs) {
      std::string shapes = " " + str(p.a) + " " + str(p.b);
      Array a = uniform(p.a, -1.5, 1.5, dtype, ++seed), b = uniform(p.b, -1.5, 1.5, dtype, ++seed);
      expect_grads("a + b" + shapes, FN(x[0] + x[1]), {a, b});
      expect_grads("a - b" + shapes, FN(x[0] - x[1]), {a, b});
      expect_grads("a * b" + shapes, FN(x[0] * x[1]), {a, b});
      expect_grads("a / b" + shapes, FN(x[0] / x[1]), {a, signed_away(p.b, dtype, ++seed)});
      expect_grads("pow(a, b)" + shapes, FN(pow(x[0], x[1])),
                   {uniform(p.a, 0.5, 2.0, dtype, ++seed), b});
    }
}

TEST_CASE("ad ops: operators with C++ scalars and unary minus", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array a = signed_away({2, 3}, dtype, 7);
    expect_grads("x + 2", FN(x[0] + 2.0), {a});
    expect_grads("2 - x", FN(2.0 - x[0]), {a});
    expect_grads("3 * x", FN(3.0 * x[0]), {a});
    expect_grads("x / 4", FN(x[0] / 4.0), {a});
    expect_grads("2 / x", FN(2.0 / x[0]), {a});
    expect_grads("-(x * x) - x", FN(-(x[0] * x[0]) - x[0]), {a});
    expect_grads("pow(x, 3)", FN(pow(x[0], 3.0)), {a});
    expect_grads("pow(2, x)", FN(pow(2.0, x[0])), {a});
    expect_grads("pow(|x|, 0.5)", FN(pow(abs(x[0]), 0.5)), {a});
  }
  // Mixed precision: f32 * f64 promotes to f64, each input keeps its dtype.
  expect_grads("f32 * f64", FN(x[0] * x[1]),
               {uniform({2, 3}, -1, 1, F32, 1), uniform({3}, -1, 1, F64, 2)});
}

TEST_CASE("ad ops: maximum and minimum away from ties, with broadcasting", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    // Grid values vs. grid + 0.15: never equal.
    Array a = distinct({2, 3}, dtype), b = distinct({3}, dtype, 0.15),
          c = distinct({2, 1}, dtype, 0.15), s = make({0.05}, {}, dtype);
    expect_grads("maximum [2,3] [3]", FN(maximum(x[0], x[1])), {a, b});
    expect_grads("minimum [2,3] [3]", FN(minimum(x[0], x[1])), {a, b});
    expect_grads("maximum [2,1] [2,3]", FN(maximum(x[0], x[1])), {c, a});
    expect_grads("minimum [] [2,3]", FN(minimum(x[0], x[1])), {s, a});
    expect_grads("maximum(x, 0.05)", FN(maximum(x[0], 0.05)), {a});
    expect_grads("minimum(0.05, x)", FN(minimum(0.05, x[0])), {a});
  }
}

TEST_CASE("ad ops: maximum/minimum split the gradient 0.5/0.5 on exact ties", "[ad][ad-ops]") {
  Array a = Array::from<float>({1, 2, 3, -1}, {4});
  Array b = Array::from<float>({1, 5, 0, -1}, {4});  // ties at 0 and 3
  auto max_grads = grad<0, 1>([](Tensor p, Tensor q) { return sum(maximum(p, q)); });
  auto [gmax_a, gmax_b] = max_grads(a, b);
  CHECK(mismatch(gmax_a, F32, {4}, {0.5, 0, 1, 0.5}) == "");
  CHECK(mismatch(gmax_b, F32, {4}, {0.5, 1, 0, 0.5}) == "");
  auto min_grads = grad<0, 1>([](Tensor p, Tensor q) { return sum(minimum(p, q)); });
  auto [gmin_a, gmin_b] = min_grads(a, b);
  CHECK(mismatch(gmin_a, F32, {4}, {0.5, 1, 0, 0.5}) == "");
  CHECK(mismatch(gmin_b, F32, {4}, {0.5, 0, 1, 0.5}) == "");
  // Forward mode agrees: d/dt maximum(a + t, b + t) = 1 everywhere; along
  // (1, 0) it is the lhs share.
  auto [out, tangent] = jvp([](Tensor p, Tensor q) { return maximum(p, q); },
                            std::tuple{a, b}, std::tuple{Array::ones({4}), Array::zeros({4})});
  CHECK(mismatch(out, F32, {4}, {1, 5, 3, -1}) == "");
  CHECK(mismatch(tangent, F32, {4}, {0.5, 0, 1, 0.5}) == "");
  // A tie against a broadcast scalar, f64.
  auto g = grad([](Tensor p) { return sum(maximum(p, 2.0)); });
  CHECK(mismatch(g(Array::from<double>({2, 1, 3}, {3})), F64, {3}, {0.5, 0, 1}) == "");
}

TEST_CASE("ad ops: max/min reductions share the gradient among tied extrema", "[ad][ad-ops]") {
  auto gmax = grad([](Tensor p) { return max(p); });
  CHECK(mismatch(gmax(Array::from<float>({1, 3, 3, 2}, {4})), F32, {4}, {0, 0.5, 0.5, 0}) == "");
  auto gmin_rows = grad([](Tensor p) { return sum(min(p, {1})); });
  CHECK(mismatch(gmin_rows(Array::from<double>({1, 1, 1, 4, 0, 2}, {2, 3})), F64, {2, 3},
                 {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 1, 0}) == "");
}

TEST_CASE("ad ops: where with broadcasting and scalar branches", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array c = signed_away({2, 3}, dtype, 21), b = uniform({3}, -1, 1, dtype, 22),
          s = make({0.7}, {}, dtype);
    expect_grads("where(c > 0, c * b, sin s)", FN(where(x[0] > 0.0, x[0] * x[1], sin(x[2]))),
                 {c, b, s});
    expect_grads("where(c < 0, 0.5, b)", FN(where(x[0] < 0.0, 0.5, x[1])), {c, b});
    expect_grads("where(c > 0, c, 0) (size-1)", FN(where(x[0] > 0.0, x[0], 0.0)),
                 {signed_away({1, 3}, dtype, 23)});
  }
  // The unselected branch gets zero cotangent: with the usual double-where
  // guard, sqrt of a negative number does not leak a nan into the gradient.
  auto g = grad([](Tensor p) {
    Tensor positive = p > 0.0;
    return sum(where(positive, sqrt(where(positive, p, 1.0)), p * 2.0));
  });
  CHECK(mismatch(g(Array::from<double>({4, -1}, {2})), F64, {2}, {0.25, 2}) == "");
}

//===----------------------------------------------------------------------===//
// Reductions and normalizers
//===----------------------------------------------------------------------===//

TEST_CASE("ad ops: sum and mean over axes, keepdims, all axes, 0-d", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array x3 = uniform({2, 3, 2}, -1, 1, dtype, 31);
    expect_grads("sum all", FN(sum(x[0])), {x3});
    expect_grads("sum {1}", FN(sum(x[0], {1})), {x3});
    expect_grads("sum {0,2}", FN(sum(x[0], {0, 2})), {x3});
    expect_grads("sum {-1} keepdims", FN(sum(x[0], {-1}, true)), {x3});
    expect_grads("sum all keepdims", FN(sum(x[0], {}, true)), {x3});
    expect_grads("sum of 0-d", FN(sum(x[0] * x[0])), {make({0.3}, {}, dtype)});
    expect_grads("sum over size-1 dim", FN(sum(x[0], {0})), {uniform({1, 3}, -1, 1, dtype, 32)});
    expect_grads("mean all", FN(mean(x[0])), {x3});
    expect_grads("mean {1}", FN(mean(x[0], {1})), {x3});
    expect_grads("mean {0,2} keepdims", FN(mean(x[0], {0, 2}, true)), {x3});
    expect_grads("mean {-1}", FN(mean(x[0] * x[0], {-1})), {x3});
  }
}

TEST_CASE("ad ops: max and min reductions away from ties", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array x3 = distinct({2, 3, 2}, dtype);
    expect_grads("max all", FN(max(x[0])), {x3});
    expect_grads("max {1}", FN(max(x[0], {1})), {x3});
    expect_grads("max {0,2} keepdims", FN(max(x[0], {0, 2}, true)), {x3});
    expect_grads("max {-1}", FN(max(x[0], {-1})), {x3});
    expect_grads("min all", FN(min(x[0])), {x3});
    expect_grads("min {0}", FN(min(x[0], {0})), {x3});
    expect_grads("min {1} keepdims", FN(min(x[0], {1}, true)), {x3});
    expect_grads("max of 0-d", FN(max(x[0])), {make({0.4}, {}, dtype)});
  }
}

TEST_CASE("ad ops: logsumexp, softmax, log_softmax", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array x3 = uniform({2, 3, 2}, -2, 2, dtype, 41), x2 = uniform({2, 3}, -2, 2, dtype, 42);
    expect_grads("logsumexp all", FN(logsumexp(x[0])), {x3});
    expect_grads("logsumexp {1}", FN(logsumexp(x[0], {1})), {x3});
    expect_grads("logsumexp {0,2} keepdims", FN(logsumexp(x[0], {0, 2}, true)), {x3});
    expect_grads("logsumexp 0-d", FN(logsumexp(x[0])), {make({0.2}, {}, dtype)});
    expect_grads("softmax -1", FN(softmax(x[0])), {x2});
    expect_grads("softmax 0", FN(softmax(x[0], 0)), {x2});
    expect_grads("softmax 1 of [2,3,2]", FN(softmax(x[0], 1)), {x3});
    expect_grads("log_softmax -1", FN(log_softmax(x[0])), {x2});
    expect_grads("log_softmax 0", FN(log_softmax(x[0], 0)), {x2});
    expect_grads("softmax over size-1 axis", FN(softmax(x[0], 0) * x[0]),
                 {uniform({1, 3}, -1, 1, dtype, 43)});
  }
  // Large logits: the gradients stay finite (softmax, not inf/inf).
  auto g = grad([](Tensor p) { return logsumexp(p); });
  CHECK(mismatch(g(Array::from<float>({1000, 1000}, {2})), F32, {2}, {0.5, 0.5}) == "");
}

//===----------------------------------------------------------------------===//
// Contractions and shape ops
//===----------------------------------------------------------------------===//

TEST_CASE("ad ops: matmul 2-D, batched, broadcast batch and 1-D", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    uint64_t seed = 50;
    auto u = [&](Shape s) { return uniform(s, -1, 1, dtype, ++seed); };
    expect_grads("[2,3]@[3,4]", FN(matmul(x[0], x[1])), {u({2, 3}), u({3, 4})});
    expect_grads("[2,2,3]@[2,3,2]", FN(matmul(x[0], x[1])), {u({2, 2, 3}), u({2, 3, 2})});
    expect_grads("[2,2,3]@[3,4]", FN(matmul(x[0], x[1])), {u({2, 2, 3}), u({3, 4})});
    expect_grads("[1,2,3]@[2,3,2]", FN(matmul(x[0], x[1])), {u({1, 2, 3}), u({2, 3, 2})});
    expect_grads("[3]@[3,4]", FN(matmul(x[0], x[1])), {u({3}), u({3, 4})});
    expect_grads("[2,3]@[3]", FN(matmul(x[0], x[1])), {u({2, 3}), u({3})});
    expect_grads("[3]@[3] (0-d)", FN(matmul(x[0], x[1])), {u({3}), u({3})});
    expect_grads("[3]@[2,3,2]", FN(matmul(x[0], x[1])), {u({3}), u({2, 3, 2})});
    expect_grads("x@x (same operand)", FN(matmul(x[0], x[0])), {u({3, 3})});
    // Large enough for the GEMM kernels, with a narrow side: their narrow
    // kernels in the primal (k in registers; A's rows along k) and in the
    // products of the adjoint.
    expect_grads("[700,3]@[3,3] (narrow kernels)", FN(matmul(x[0], x[1])), {u({700, 3}), u({3, 3})});
    expect_grads("[40,64]@[64,10] (narrow kernels)", FN(matmul(x[0], x[1])),
                 {u({40, 64}), u({64, 10})});
    // Attention's scores: batch and heads are two batch loops whose strides
    // do not merge (the kernel takes one, a loop around the call the other).
    expect_grads("q k^T, [batch, time, heads, depth] (two batch loops)",
                 FN(matmul(transpose(x[0], {0, 2, 1, 3}), transpose(x[1], {0, 2, 3, 1}))),
                 {u({2, 24, 3, 8}), u({2, 24, 3, 8})});
  }
}

TEST_CASE("ad ops: transpose, reshape, broadcast_to, expand_dims, squeeze", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array x3 = uniform({2, 3, 2}, -1, 1, dtype, 61), x2 = uniform({2, 3}, -1, 1, dtype, 62);
    expect_grads("transpose {2,0,1}", FN(transpose(x[0], {2, 0, 1})), {x3});
    expect_grads("transpose (reverse)", FN(transpose(x[0]) * 2.0), {x3});
    expect_grads("reshape [3,2]", FN(reshape(x[0], {3, 2})), {x2});
    expect_grads("reshape [-1]", FN(reshape(x[0], {-1})), {x3});
    expect_grads("reshape to 0-d", FN(reshape(x[0], {})), {uniform({1, 1}, -1, 1, dtype, 63)});
    expect_grads("broadcast_to [3]->[2,3]", FN(broadcast_to(x[0], {2, 3})),
                 {uniform({3}, -1, 1, dtype, 64)});
    expect_grads("broadcast_to [2,1]->[2,2,3]", FN(broadcast_to(x[0], {2, 2, 3})),
                 {uniform({2, 1}, -1, 1, dtype, 65)});
    expect_grads("broadcast_to 0-d->[2,3]", FN(broadcast_to(x[0], {2, 3})),
                 {make({0.3}, {}, dtype)});
    expect_grads("expand_dims 0", FN(expand_dims(x[0], 0)), {x2});
    expect_grads("expand_dims -1", FN(expand_dims(x[0], -1)), {x2});
    expect_grads("squeeze 1", FN(squeeze(x[0], 1)), {uniform({2, 1, 3}, -1, 1, dtype, 66)});
    expect_grads("squeeze -1 of [3,1]", FN(squeeze(x[0], -1) * x[0]),
                 {uniform({3, 1}, -1, 1, dtype, 67)});
  }
}

TEST_CASE("ad ops: slice with strides and concat", "[ad][ad-ops]") {
  for (DType dtype : kFloatTypes) {
    Array x2 = uniform({4, 5}, -1, 1, dtype, 71);
    expect_grads("slice [1:3, 0:5]", FN(slice(x[0], {1, 0}, {3, 5})), {x2});
    expect_grads("slice strides [0:4:2, 1:5:3]", FN(slice(x[0], {0, 1}, {4, 5}, {2, 3})), {x2});
    expect_grads("slice strided 1-D", FN(slice(x[0], {1}, {6}, {2})),
                 {uniform({6}, -1, 1, dtype, 72)});
    expect_grads("overlapping slices", FN(slice(x[0], {0, 0}, {3, 5}) * slice(x[0], {1, 0}, {4, 5})),
                 {x2});
    Array a = uniform({2, 3}, -1, 1, dtype, 73), b = uniform({1, 3}, -1, 1, dtype, 74),
          c = uniform({2, 2}, -1, 1, dtype, 75);
    expect_grads("concat axis 0", FN(concat({x[0], x[1], x[0]}, 0)), {a, b});
    expect_grads("concat axis 1", FN(concat({x[0], x[1]}, 1)), {a, c});
    expect_grads("concat axis -1 of 1-D", FN(concat({x[0], x[1] * 2.0}, -1)),
                 {uniform({2}, -1, 1, dtype, 76), uniform({3}, -1, 1, dtype, 77)});
  }
}

namespace {

// A linear stencil over a box of x: value(p) = sum of coefficient * x[p +
// shift] over its terms, for p in [start, start + extent) per dimension.
struct Stencil {
  const char* name;
  Shape start, extent;
  struct Term {
    double coefficient;
    std::vector<int64_t> shift;
  };
  std::vector<Term> terms;

  // sum(value^2), traced: each term a slice of x.
  Tensor loss(const Tensor& x) const {
    auto term = [&](const Term& t) {
      Shape begin, end;
      for (size_t d = 0; d < start.size(); ++d) {
        begin.push_back(start[d] + t.shift[d]);
        end.push_back(begin.back() + extent[d]);
      }
      return slice(x, begin, end) * t.coefficient;
    };
    Tensor value = term(terms.front());
    for (size_t i = 1; i < terms.size(); ++i) value = value + term(terms[i]);
    return sum(value * value);
  }
  // The loss and its gradient 2 L^T (L x), in double.
  std::pair<double, Vec> reference(const Vec& x, const Shape& shape) const {
    Vec grad(x.size(), 0.0);
    double loss = 0;
    std::vector<int64_t> p(start.size(), 0);
    auto flat = [&](const std::vector<int64_t>& shift) {
      int64_t i = 0;
      for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + start[d] + p[d] + shift[d];
      return i;
    };
    for (int64_t n = 0; n < count(extent); ++n) {
      for (int64_t d = static_cast<int64_t>(extent.size()) - 1, rest = n; d >= 0; --d) {
        p[d] = rest % extent[d];
        rest /= extent[d];
      }
      double value = 0;
      for (const Term& t : terms) value += t.coefficient * x[flat(t.shift)];
      loss += value * value;
      for (const Term& t : terms) grad[flat(t.shift)] += 2 * t.coefficient * value;
    }
    return {loss, grad};
  }
};

// Differences along rows and along both dimensions, a 5-point Laplacian
// (its center scaled), and differences along the middle of three
// dimensions: the adjoint of each is a sum of pads, which
// adjit-split-padded-consumers reads in place box by box.
std::vector<std::pair<Stencil, Shape>> stencil_cases() {
  Stencil rows{"rows", {0, 0}, {36, 53}, {{1, {1, 0}}, {-1, {0, 0}}}};
  Stencil laplacian{"laplacian", {1, 1}, {35, 51},
                    {{1, {-1, 0}}, {1, {1, 0}}, {1, {0, -1}}, {1, {0, 1}}, {-4, {0, 0}}}};
  Stencil middle{"middle axis", {0, 0, 0}, {6, 6, 33}, {{2, {0, 1, 0}}, {-1, {0, 0, 0}}}};
  Stencil both_rows{"both, rows", {0, 0}, {127, 40}, {{1, {1, 0}}, {-1, {0, 0}}}};
  // Row loops long enough for adjit-jam-stencil-rows (blocks of 4 rows and
  // the rows left), reading 3 rows of x, and of the value in the gradient.
  Stencil laplacian_jammed{"laplacian, rows jammed", {1, 1}, {298, 201},
                           {{1, {-1, 0}}, {1, {1, 0}}, {1, {0, -1}}, {1, {0, 1}}, {-4, {0, 0}}}};
  Stencil second_difference{"second difference along rows", {1, 0}, {299, 130},
                            {{1, {-1, 0}}, {-2, {0, 0}}, {1, {1, 0}}}};
  return {{rows, {37, 53}},         {laplacian, {37, 53}},
          {middle, {6, 7, 33}},     {both_rows, {128, 40}},
          {laplacian_jammed, {300, 203}}, {second_difference, {301, 130}}};
}

}  // namespace

TEST_CASE("ad ops: stencil gradients against an exact reference, every thread count",
          "[ad][ad-ops][threads]") {
  for (auto [stencil, shape] : stencil_cases()) {
    // Integers: every gradient element is exact in f32 (a few terms of
    // small integers), and so is the f64 loss.
    Vec x = values(Array::uniform(shape, 90, -8, 8, F64));
    for (double& v : x) v = std::round(v);
    auto [want_loss, want_grad] = stencil.reference(x, shape);
    for (DType dtype : kFloatTypes) {
      std::vector<Vec> first;
      for (int threads : {1, 2, 3}) {
        INFO(stencil.name << " " << str(shape) << " " << dtype_name(dtype) << ", " << threads
                          << " threads");
        auto step = jit(
            [stencil](Tensor x) {
              auto [loss, g] = value_and_grad([stencil](Tensor x) { return stencil.loss(x); })(x);
              return std::tuple{loss, g};
            },
            {.threads = threads});
        auto [loss, g] = step(make(x, shape, dtype));
        CHECK_ARRAY("loss", loss, dtype, Shape{}, Vec{want_loss}, (Tol{dtype == F32 ? 1e-6 : 0, 0}));
        CHECK_EXACT("gradient", g, dtype, shape, want_grad);
        if (first.empty())
          first = {values(loss), values(g)};
        else
          CHECK(std::vector<Vec>{values(loss), values(g)} == first);
      }
    }
  }
}

TEST_CASE("ad ops: random stencils' gradients against an exact reference", "[ad][ad-ops]") {
  // Ranks 1-3, 1-5 terms shifted by up to 2 along each dimension, boxes
  // from one element to the whole interior: pads of every placement,
  // several per dimension, and more boxes than are split.
  std::mt19937 random(2026);
  auto below = [&](int64_t n) { return static_cast<int64_t>(random() % n); };
  for (int trial = 0; trial < 24; ++trial) {
    Shape shape;
    for (int64_t d = 0, rank = 1 + below(3); d < rank; ++d) shape.push_back(5 + below(36));
    Stencil stencil{"random", {}, {}, {}};
    for (int64_t extent : shape) {
      stencil.start.push_back(2);
      stencil.extent.push_back(1 + below(extent - 4));
    }
    for (int64_t t = 0, terms = 1 + below(5); t < terms; ++t) {
      Stencil::Term term{static_cast<double>(below(7) - 3), {}};
      for (size_t d = 0; d < shape.size(); ++d) term.shift.push_back(below(5) - 2);
      stencil.terms.push_back(term);
    }
    Vec x = values(Array::uniform(shape, 92 + trial, -8, 8, F64));
    for (double& v : x) v = std::round(v);
    auto [want_loss, want_grad] = stencil.reference(x, shape);
    INFO("trial " << trial << " " << str(shape));
    auto [loss, g] = value_and_grad([stencil](Tensor x) { return stencil.loss(x); })(make(x, shape, F32));
    CHECK_ARRAY("loss", loss, F32, Shape{}, Vec{want_loss}, (Tol{1e-6, 0}));
    CHECK_EXACT("gradient", g, F32, shape, want_grad);
  }
}

TEST_CASE("ad ops: stencil gradients through check_grads (both modes)", "[ad][ad-ops]") {
  Stencil laplacian{"laplacian", {1, 1}, {3, 4},
                    {{1, {-1, 0}}, {1, {1, 0}}, {1, {0, -1}}, {1, {0, 1}}, {-4, {0, 0}}}};
  Stencil both{"both", {0, 0}, {4, 5}, {{1, {1, 0}}, {1, {0, 1}}, {-2, {0, 0}}}};
  for (DType dtype : kFloatTypes)
    for (const Stencil& stencil : {laplacian, both}) {
      Array x = uniform({5, 6}, -1, 1, dtype, 91);
      expect_grads(stencil.name, FN(stencil.loss(x[0]) * 0.1), {x});
    }
}

TEST_CASE("ad ops: take (repeated indices accumulate)", "[ad][ad-ops]") {
  Array rows = Array::from<int32_t>({0, 2, 2, 3, 0, 2}, {6});
  Array cols = Array::from<int32_t>({2, 0, 2}, {3});
  for (DType dtype : kFloatTypes) {
    Array x2 = uniform({4, 3}, -1, 1, dtype, 81);
    // Indices are constants of the trace (integer arguments: below).
    expect_grads("take axis 0, repeated rows",
                 FN(take(x[0], ints({0, 2, 2, 3, 0, 2}), 0)), {x2});
    expect_grads("take axis 1, repeated cols", FN(take(x[0], ints({2, 0, 2}), 1)), {x2});
    expect_grads("take 2-D indices", FN(take(x[0], reshape(ints({1, 1, 0, 3}), {2, 2}), 0)),
                 {x2});
    expect_grads("take of 1-D, chained", FN(take(x[0] * x[0], ints({1, 3, 3}), 0)),
                 {uniform({4}, -1, 1, dtype, 82)});
    expect_grads("take of a slice with strides",
                 FN(take(slice(x[0], {0, 0}, {4, 3}, {2, 2}), ints({1, 0, 1}), 1)), {x2});
  }
  // Direct: each row's gradient counts how often it was taken.
  auto g = grad<0>([](Tensor x, Tensor idx) { return sum(take(x, idx, 0)); });
  CHECK(mismatch(g(Array::ones({4, 2}), rows), F32, {4, 2}, {2, 2, 0, 0, 3, 3, 1, 1}) == "");
  auto gcols = grad<0>([](Tensor x, Tensor idx) { return sum(take(x, idx, 1) * 2.0); });
  CHECK(mismatch(gcols(Array::ones({2, 3}, F64), cols), F64, {2, 3}, {2, 0, 4, 2, 0, 4}) == "");
  // jvp of take gathers the tangent.
  auto [out, t] = jvp([](Tensor x) { return take(x, ints({0, 2, 2, 3, 0, 2}), 0); },
                      Array::from<float>({1, 2, 3, 4}, {4}),
                      Array::from<float>({10, 20, 30, 40}, {4}));
  CHECK(mismatch(out, F32, {6}, {1, 3, 3, 4, 1, 3}) == "");
  CHECK(mismatch(t, F32, {6}, {10, 30, 30, 40, 10, 30}) == "");
}

// Integer arguments reach the function unchanged (not widened to f64) and
// are not perturbed.
TEST_CASE("ad ops: check_grads with an integer index argument", "[ad][ad-ops]") {
  Array rows = Array::from<int32_t>({0, 2, 2, 3, 0, 2}, {6});
  Array labels = Array::from<int32_t>({2, 0, 3}, {3});
  for (DType dtype : kFloatTypes) {
    expect_grads("take with i32 argument", FN(take(x[0], x[1], 0)),
                 {uniform({4, 3}, -1, 1, dtype, 83), rows});
    expect_grads("one_hot with i32 argument",
                 FN(sum(one_hot(x[1], 4, x[0].dtype()) * x[0], {1})),
                 {uniform({3, 4}, -1, 1, dtype, 84), labels});
  }
}

TEST_CASE("ad ops: one_hot values, and gradients through a one_hot product", "[ad][ad-ops]") {
  Array labels = Array::from<int32_t>({2, 0, 3}, {3});
  auto f32_hot = jit([](Tensor idx) { return one_hot(idx, 4) * 1.0; });
  CHECK(mismatch(f32_hot(labels), F32, {3, 4}, {0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1}) == "");
  auto f64_hot = jit([](Tensor idx) { return one_hot(idx, 3, F64) + 0.0; });
  CHECK(mismatch(f64_hot(Array::from<int32_t>({1}, {1})), F64, {1, 3}, {0, 1, 0}) == "");
  for (DType dtype : kFloatTypes)
    expect_grads("sum(one_hot * x, 1)", FN(sum(one_hot(ints({2, 0, 3}), 4, x[0].dtype()) * x[0], {1})),
                 {uniform({3, 4}, -1, 1, dtype, 91)});
  auto g = grad([](Tensor x, Tensor idx) { return sum(one_hot(idx, 4, DType::f64) * x * x); });
  CHECK(mismatch(g(Array::full({3, 4}, 3.0, F64), labels), F64, {3, 4},
                 {0, 0, 6, 0, 6, 0, 0, 0, 0, 0, 0, 6}) == "");
}

TEST_CASE("ad ops: cast between f32 and f64", "[ad][ad-ops]") {
  expect_grads("cast f32->f64", FN(sin(cast(x[0], F64)) * cast(x[0], F64)),
               {uniform({2, 3}, -1, 1, F32, 95)});
  // The f64 input is evaluated through an f32 cast, so the finite differences
  // need a wider step and f32 tolerances.
  GradCheckOptions wide;
  wide.eps = 1e-2;
  wide.atol = wide.rtol = 2e-3;
  expect_grads("cast f64->f32", FN(cast(x[0], F32) * 3.0), {uniform({2, 3}, -1, 1, F64, 96)}, 1,
               wide);
  expect_grads("f64 -> f32 -> f64 round trip", FN(cast(cast(x[0], F32), F64) * x[0]),
               {uniform({3}, -1, 1, F64, 97)}, 1, wide);
  // Gradients come back in the argument's dtype.
  auto g = grad([](Tensor p) { return sum(square(cast(p, DType::f64))); });
  CHECK(mismatch(g(Array::from<float>({1, -2}, {2})), F32, {2}, {2, -4}) == "");
  auto h = grad([](Tensor p) { return sum(cast(p, DType::f32) * 3.0); });
  CHECK(mismatch(h(Array::from<double>({1, -2}, {2})), F64, {2}, {3, 3}) == "");
}

TEST_CASE("ad ops: second-order check_grads through several rules", "[ad][ad-ops]") {
  Array x = uniform({2, 3}, -1, 1, F64, 99);
  expect_grads("tanh(x) * sin(x), order 2", FN(tanh(x[0]) * sin(x[0])), {x}, 2);
  expect_grads("softmax, order 2", FN(softmax(x[0])), {x}, 2);
  expect_grads("x @ w with exp, order 2", FN(exp(matmul(x[0], x[1]) * 0.5)),
               {x, uniform({3, 2}, -1, 1, F64, 100)}, 2);
  expect_grads("pow/sqrt/log, order 2", FN(pow(x[0], 3.0) + sqrt(x[0] + 2.0) * log(x[0] + 3.0)),
               {x}, 2);
  expect_grads("integer_pow and gelu(tanh), order 2",
               FN(integer_pow(x[0], 4) + integer_pow(x[0] + 2.0, -3) + gelu(x[0], true)), {x}, 2);
  expect_grads("gelu exact and erf, order 2", FN(gelu(x[0], false) + erf(x[0]) * sigmoid(x[0])),
               {x}, 2);
  expect_grads("maximum/abs/relu, order 2", FN(maximum(x[0], 0.05) * abs(x[0]) + relu(x[0]) * x[0]),
               {signed_away({2, 3}, F64, 101)}, 2);
  expect_grads("f32 logsumexp, order 2", FN(logsumexp(x[0], {1}, true) * x[0]),
               {uniform({2, 3}, -1, 1, F32, 102)}, 2);
}
