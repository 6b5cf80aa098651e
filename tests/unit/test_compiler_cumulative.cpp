// cumsum, cumprod, cummax, cummin and cumlogsumexp: against a sequential
// reference along every axis, forwards and in reverse, for lengths 1 to 33
// (every shape of the associative scan's recursion), f32, f64, i32 and bool;
// their gradients in both modes; their errors.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

struct Kind {
  std::string name;
  Tensor (*op)(const Tensor&, int, bool, SourceLocation);
  std::function<double(double, double)> combine;
};

std::vector<Kind> kinds() {
  return {
      {"cumsum", cumsum, [](double a, double b) { return a + b; }},
      {"cumprod", cumprod, [](double a, double b) { return a * b; }},
      {"cummax", cummax, [](double a, double b) { return std::max(a, b); }},
      {"cummin", cummin, [](double a, double b) { return std::min(a, b); }},
      {"cumlogsumexp", cumlogsumexp,
       [](double a, double b) {
         double m = std::max(a, b);
         return m == -INFINITY ? m : m + std::log(std::exp(a - m) + std::exp(b - m));
       }},
  };
}

// The sequential scan of `x` (of `shape`) along `axis`.
Vec reference(const Vec& x, const Shape& shape, int axis, bool reverse,
              const std::function<double(double, double)>& combine) {
  Vec out = x;
  int64_t n = shape[axis];
  for (int64_t o = 0; o < count(shape); ++o) {
    std::vector<int64_t> index = unravel(o, shape);
    if (index[axis] != 0) continue;
    double running = 0;
    for (int64_t k = 0; k < n; ++k) {
      index[axis] = reverse ? n - 1 - k : k;
      int64_t at = ravel(index, shape);
      running = k == 0 ? x[at] : combine(running, x[at]);
      out[at] = running;
    }
  }
  return out;
}

Vec values_for(int64_t n, bool small_ints) {
  Vec v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(small_ints ? static_cast<double>((i * 7) % 5) - 2
                           : std::sin(0.9 * static_cast<double>(i)) * 1.3 + 0.1);
  return v;
}

}  // namespace

TEST_CASE("tracer ops: cumulative reductions of every length along the last axis",
          "[tracer][ops][cumulative]") {
  // Lengths 1 to 9 and around 16 and 32 (every shape of the recursion's
  // first levels), in one function a kind, dtype and direction; f32 for
  // cumsum only.
  const std::vector<int64_t> lengths{1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33};
  for (const Kind& kind : kinds())
    for (DType dtype : {F32, F64})
      for (bool reverse : {false, true}) {
        if (dtype == F32 && kind.name != "cumsum") continue;
        INFO(kind.name << " of " << dtype_name(dtype) << (reverse ? " reversed" : ""));
        auto f = jit([&kind, reverse](std::vector<Tensor> xs) {
          std::vector<Tensor> out;
          for (const Tensor& x : xs) out.push_back(kind.op(x, -1, reverse, SourceLocation::current()));
          return out;
        });
        std::vector<Array> xs;
        for (int64_t n : lengths) xs.push_back(make(values_for(n, false), {n}, dtype));
        std::vector<Array> got = f(xs);
        for (size_t i = 0; i < lengths.size(); ++i) {
          int64_t n = lengths[i];
          INFO("length " << n);
          Vec want = reference(values(xs[i]), {n}, 0, reverse, kind.combine);
          CHECK_ARRAY(kind.name, got[i], dtype, Shape{n}, want,
                      (dtype == F32 ? Tol{1e-5, 1e-5} : Tol{1e-13, 1e-13}));
        }
      }
}

TEST_CASE("tracer ops: cumulative reductions along each axis of a 3-d array, and of integers",
          "[tracer][ops][cumulative]") {
  Shape shape{4, 5, 6};
  for (const Kind& kind : kinds())
    for (int axis : {0, 1, 2, -2})
      for (bool reverse : {false, true}) {
        INFO(kind.name << " along " << axis << (reverse ? " reversed" : ""));
        int positive = axis < 0 ? axis + 3 : axis;
        auto f = jit([&kind, axis, reverse](Tensor x) { return kind.op(x, axis, reverse, SourceLocation::current()); });
        Array x = make(values_for(count(shape), false), shape, F64);
        CHECK_ARRAY(kind.name, f(x), F64, shape,
                    reference(values(x), shape, positive, reverse, kind.combine), (Tol{1e-13, 1e-13}));
        if (kind.name == "cumlogsumexp") continue;
        Array ints = make(values_for(count(shape), true), shape, I32);
        CHECK_EXACT(kind.name + " of i32", f(ints), I32, shape,
                    reference(values(ints), shape, positive, reverse, kind.combine));
      }
  // Bools count in i32 for sums and products, as jnp's; max and min stay bool.
  Array flags = Array::from<bool>({true, false, true, true, false}, {5});
  CHECK_EXACT("cumsum of bool", jit([](Tensor x) { return cumsum(x, 0); })(flags), I32, Shape{5},
              (Vec{1, 1, 2, 3, 3}));
  CHECK_EXACT("cummax of bool", jit([](Tensor x) { return cummax(x, 0); })(flags), I1, Shape{5},
              (Vec{1, 1, 1, 1, 1}));
  CHECK_ARRAY("cumlogsumexp of i32 is f32",
              jit([](Tensor x) { return cumlogsumexp(x, 0); })(Array::from<int32_t>({0, 0}, {2})),
              F32, Shape{2}, (Vec{0, std::log(2.0)}), (Tol{1e-7, 0}));
}

TEST_CASE("tracer ops: long axes of short rows are scanned in blocks",
          "[tracer][ops][cumulative]") {
  // 1000 = 40 blocks of 25, 4096 = 64 of 64, 257 is prime (no blocks),
  // [512, 2] along axis 0 = 32 blocks of 16 rows, [3, 400] along axis 1
  // (moved to the front: 20 blocks of 20).
  struct Layout {
    Shape shape;
    int axis;
  };
  for (const Layout& layout : std::vector<Layout>{{{1000}, 0}, {{4096}, 0}, {{257}, 0},
                                                  {{512, 2}, 0}, {{3, 400}, 1}})
    for (const Kind& kind : kinds())
      for (bool reverse : {false, true}) {
        if (reverse && kind.name != "cumsum") continue;
        INFO(kind.name << " of " << type_string(F64, layout.shape) << " along " << layout.axis
                       << (reverse ? " reversed" : ""));
        Vec v = values_for(count(layout.shape), false);
        // Products of thousands of factors: near 1, to stay finite.
        if (kind.name == "cumprod") v = map(v, [](double e) { return 1 + 0.01 * e; });
        Array x = make(v, layout.shape, F64);
        auto f = jit([&kind, &layout, reverse](Tensor x) {
          return kind.op(x, layout.axis, reverse, SourceLocation::current());
        });
        CHECK_ARRAY(kind.name, f(x), F64, layout.shape,
                    reference(v, layout.shape, layout.axis, reverse, kind.combine),
                    (Tol{1e-12, 1e-12}));
      }
}

TEST_CASE("tracer ops: cumulative reductions keep infinities and NaN", "[tracer][ops][cumulative]") {
  Vec x{1, kInf, 2, -kInf, 3};
  Array a = make(x, {5}, F64);
  CHECK_ARRAY("cumsum", jit([](Tensor x) { return cumsum(x, 0); })(a), F64, Shape{5},
              (Vec{1, kInf, kInf, kNaN, kNaN}), kExact);
  CHECK_ARRAY("cummax", jit([](Tensor x) { return cummax(x, 0); })(a), F64, Shape{5},
              (Vec{1, kInf, kInf, kInf, kInf}), kExact);
  Array logs = make({-kInf, -kInf, 0.0, kNaN, 1.0}, {5}, F64);
  CHECK_ARRAY("cumlogsumexp", jit([](Tensor x) { return cumlogsumexp(x, 0); })(logs), F64, Shape{5},
              (Vec{-kInf, -kInf, 0, kNaN, kNaN}), kExact);
}

TEST_CASE("tracer ops: cummax and cummin of f16 and bf16 keep NaN in vectors",
          "[tracer][ops][cumulative]") {
  // Computed widened to f32 in vectors; f16's would be narrowed back by
  // LLVM to a maximum that lost NaN (adjit-widened-f16-min-max). Rows of 40
  // with a NaN at 3 and at 29, -0 and +0 ties; forwards and in reverse.
  const Shape shape{3, 40};
  Vec v = values_for(count(shape), true);
  v[3] = kNaN;
  v[40 + 29] = kNaN;
  for (int64_t c = 0; c < 40; ++c) v[80 + c] = c % 3 ? -0.0 : 0.0;
  auto ieee = [](bool maximum) {
    return [maximum](double a, double b) {
      if (std::isnan(a) || std::isnan(b)) return kNaN;
      if (a == 0 && b == 0) return std::signbit(a) == maximum ? b : a;
      return maximum ? std::max(a, b) : std::min(a, b);
    };
  };
  for (DType dtype : {F16, BF16})
    for (bool reverse : {false, true}) {
      INFO(dtype_name(dtype) << (reverse ? " reversed" : ""));
      auto f = jit([reverse](Tensor x) {
        return std::vector<Tensor>{cummax(x, 1, reverse), cummin(x, 1, reverse)};
      });
      std::vector<Array> r = f(make(v, shape, dtype));
      CHECK_EXACT("cummax", r[0], dtype, shape, reference(v, shape, 1, reverse, ieee(true)));
      CHECK_EXACT("cummin", r[1], dtype, shape, reference(v, shape, 1, reverse, ieee(false)));
    }
}

TEST_CASE("ad ops: gradients of the cumulative reductions, both modes", "[ad][ad-ops][cumulative]") {
  Array x = make(values_for(11, false), {11}, F64);
  Array m = make(values_for(12, false), {3, 4}, F64);
  for (bool reverse : {false, true}) {
    INFO((reverse ? "reversed" : "forwards"));
    expect_grads("cumsum", FN(cumsum(x[0], 0, reverse) * x[0]), {x});
    expect_grads("cumprod", FN(cumprod(x[0], 0, reverse)), {x});
    expect_grads("cummax", FN(cummax(x[0], 0, reverse) * 2.0), {x});
    expect_grads("cummin", FN(cummin(x[0], 0, reverse)), {x});
    expect_grads("cumlogsumexp", FN(cumlogsumexp(x[0] * 3.0, 0, reverse)), {x});
    expect_grads("cumsum of a matrix along rows", FN(cumsum(x[0], 1, reverse) * x[0]), {m});
    expect_grads("cumprod of a matrix along columns", FN(cumprod(x[0], 0, reverse)), {m});
  }
  expect_grads("second order", FN(cumsum(x[0] * x[0], 0) * cumlogsumexp(x[0], 0)), {x}, 2);
  // In blocks (400 = 20 blocks of 20).
  Array long_x = make(values_for(400, false), {400}, F64);
  for (bool reverse : {false, true}) {
    expect_grads("cumsum in blocks", FN(cumsum(x[0], 0, reverse) * x[0]), {long_x});
    expect_grads("cummax in blocks", FN(cummax(x[0], 0, reverse) * x[0]), {long_x});
  }
}

TEST_CASE("tracer ops: cumulative reductions name the op, the axis and the operand",
          "[tracer][ops][cumulative][errors]") {
  std::string message = what_of<TraceError>(
      [] { jit([](Tensor x) { return cumsum(x, 2); })(Array::zeros({3, 4})); });
  INFO(message);
  CHECK(contains(message, "cumsum"));
  CHECK(contains(message, "f32[3,4]"));
  CHECK(contains(message, "test_compiler_cumulative.cpp"));
  std::string scalar = what_of<TraceError>(
      [] { jit([](Tensor x) { return cummax(x, 0); })(Array::scalar<float>(1.0f)); });
  INFO(scalar);
  CHECK(contains(scalar, "cummax"));
  CHECK(contains(scalar, "0-d"));
}
