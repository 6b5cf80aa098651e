// numpy's reductions and array routines beyond DESIGN.md §5 (prod, var,
// std, any, all, argmin, isnan, isinf, isfinite, logaddexp, stack, split,
// flip, roll, tile, repeat, tril, triu, diff, outer, cross, eye, argsort,
// sort, take_along_axis, searchsorted, interp, top_k, median, quantile, percentile, nansum,
// nanmean, nanmax, nanmin, linspace, meshgrid, linalg::matrix_rank,
// segment_sum, bincount, isclose, allclose, nan_to_num, count_nonzero,
// average), traced and
// compiled through adjit::jit on fixed random data and compared with plain
// C++ references in double (long double for products); their gradients
// with check_grads in both modes; their errors.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using ad::Fn;

namespace {

// As test_compiler_tracer_ops_jit.cpp's for composites of transcendentals.
Tol composite_tol(DType dt) { return dt == F32 ? Tol{4e-6, 2e-6} : Tol{1e-12, 1e-13}; }

// The element of `v` (row-major, `shape`) at `index`.
double at(const Vec& v, const Shape& shape, const std::vector<int64_t>& index) {
  return v[static_cast<size_t>(ravel(index, shape))];
}

// out[i] = f(index of i) over every index of `shape`.
Vec tabulate(const Shape& shape, const std::function<double(const std::vector<int64_t>&)>& f) {
  Vec out;
  for (int64_t i = 0; i < count(shape); ++i) out.push_back(f(unravel(i, shape)));
  return out;
}

// The reduction of `v` over axis 1 of a [a, b, c] shape, or over axes 0
// and 2, by `combine` from `init`, in long double.
Vec reduce_axis1(const Vec& v, const Shape& s, long double init,
                 const std::function<long double(long double, double)>& combine) {
  return tabulate({s[0], s[2]}, [&](const auto& i) {
    long double acc = init;
    for (int64_t j = 0; j < s[1]; ++j) acc = combine(acc, at(v, s, {i[0], j, i[1]}));
    return static_cast<double>(acc);
  });
}
Vec reduce_axes02(const Vec& v, const Shape& s, long double init,
                  const std::function<long double(long double, double)>& combine) {
  return tabulate({s[1]}, [&](const auto& i) {
    long double acc = init;
    for (int64_t a = 0; a < s[0]; ++a)
      for (int64_t c = 0; c < s[2]; ++c) acc = combine(acc, at(v, s, {a, i[0], c}));
    return static_cast<double>(acc);
  });
}

}  // namespace

TEST_CASE("array routines: prod over axes, empty axes, zeros, integers and bools",
          "[tracer][ops]") {
  const Shape s{3, 7, 5};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    // Values near 1 so that products of 105 stay O(1); some exact zeros.
    Vec v = map(sine_wave(s, 0.37, 0.1), [](double t) { return 1 + 0.3 * t; });
    v[4] = 0;
    v[40] = -0.0;
    Array x = make(v, s, dt);
    auto f = adjit::jit([](Tensor t) {
      return std::vector<Tensor>{prod(t, {1}), prod(t, {0, -1}, true), prod(t),
                                 prod(slice(t, {0, 0, 0}, {3, 0, 5}), {1})};
    });
    std::vector<Array> got = f(x);
    auto times = [](long double acc, double e) { return acc * e; };
    Tol tol = dt == F32 ? Tol{2e-6, 1e-7} : Tol{1e-14, 1e-16};
    CHECK_ARRAY("prod axis 1", got[0], dt, (Shape{3, 5}), reduce_axis1(v, s, 1, times), tol);
    CHECK_ARRAY("prod axes 0, 2", got[1], dt, (Shape{1, 7, 1}), reduce_axes02(v, s, 1, times),
                tol);
    CHECK_ARRAY("prod of all", got[2], dt, Shape{}, (Vec{0.0}), kExact);
    CHECK_ARRAY("prod of an empty axis", got[3], dt, (Shape{3, 5}), Vec(15, 1.0), kExact);
  }
  auto g = adjit::jit([](Tensor i, Tensor b) {
    return std::vector<Tensor>{prod(i, {0}), prod(b, {1}), prod(b)};
  });
  std::vector<Array> got = g(Array::from<int32_t>({3, -2, 5, 7, 11, -1}, {2, 3}),
                             Array::from<bool>({true, true, false, true}, {2, 2}));
  CHECK_EXACT("prod of i32", got[0], I32, (Shape{3}), (Vec{21, -22, -5}));
  CHECK_EXACT("prod of bools (i32)", got[1], I32, (Shape{2}), (Vec{1, 0}));
  CHECK_EXACT("prod of all bools", got[2], I32, Shape{}, (Vec{0}));

  // The gradient of a product is the product of the other elements, also
  // where one or two of them are zero (JAX's; prod / x would be NaN).
  Array w = Array::from<double>({2, 0, 3, -1, 0, 5, 0.5, 4}, {2, 4});
  auto dprod = adjit::jit(adjit::grad([](Tensor t) { return sum(prod(t, {1})); }));
  CHECK_ARRAY("grad prod with zeros", dprod(w), F64, (Shape{2, 4}),
              (Vec{0, -6, 0, 0, 10, 0, 0, 0}), kExact);
  ad::expect_grads("prod", FN(prod(x[0], {0, 2})), {Array::uniform({4, 3, 5}, 7, 0.5, 1.5, F64)});
  ad::expect_grads("prod, 2nd order", FN(prod(x[0])), {Array::uniform({6}, 8, 0.5, 1.5, F64)}, 2);
}

TEST_CASE("array routines: var and std (ddof, keepdims, integers, f16)", "[tracer][ops]") {
  const Shape s{3, 7, 5};
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Vec v = map(sine_wave(s, 0.61, 0.3), [](double t) { return 10 + 3 * t; });
    Array x = make(v, s, dt);
    auto f = adjit::jit([](Tensor t) {
      return std::vector<Tensor>{var(t, {1}), adjit::std(t, {0, 2}, true, 1), var(t), adjit::std(t, {}, false, 105)};
    });
    std::vector<Array> got = f(x);
    // Two passes in long double.
    auto moments = [&](const std::function<Vec(const std::function<long double(long double, double)>&)>&
                           reduce_with,
                       double n, int ddof, bool root) {
      Vec sums = reduce_with([](long double acc, double e) { return acc + e; });
      Vec out;
      for (size_t k = 0; k < sums.size(); ++k) {
        double m = sums[k] / n;
        Vec sq = reduce_with([m](long double acc, double e) { return acc + (e - m) * (e - m); });
        double value = sq[k] / (n - ddof);
        out.push_back(root ? std::sqrt(value) : value);
      }
      return out;
    };
    Tol tol = dt == F32 ? Tol{1e-5, 1e-6} : Tol{1e-12, 1e-13};
    CHECK_ARRAY("var axis 1", got[0], dt, (Shape{3, 5}),
                moments([&](const auto& c) { return reduce_axis1(v, s, 0, c); }, 7, 0, false), tol);
    CHECK_ARRAY("std axes 0, 2, ddof 1", got[1], dt, (Shape{1, 7, 1}),
                moments([&](const auto& c) { return reduce_axes02(v, s, 0, c); }, 15, 1, true),
                tol);
    Vec all_of = moments(
        [&](const auto& c) {
          long double acc = 0;
          for (double e : v) acc = c(acc, e);
          return Vec{static_cast<double>(acc)};
        },
        105, 0, false);
    CHECK_ARRAY("var of all", got[2], dt, Shape{}, all_of, tol);
    CHECK_ARRAY("std with ddof = N", got[3], dt, Shape{}, (Vec{kInf}), kExact);
  }
  auto g = adjit::jit([](Tensor i, Tensor h) { return std::make_pair(var(i), adjit::std(h)); });
  auto [vi, sh] = g(Array::from<int32_t>({1, 2, 3, 4}, {4}), make({1, 2, 3, 4}, {4}, F16));
  CHECK_ARRAY("var of i32 is f32", vi, F32, Shape{}, (Vec{1.25}), kExact);
  CHECK_ARRAY("std of f16 is f16", sh, F16, Shape{}, (Vec{1.1181640625}), kExact);
  ad::expect_grads("var", FN(var(x[0], {1}, false, 1)), {Array::randn({4, 6}, 11, F64)});
  ad::expect_grads("std", FN(adjit::std(x[0], {0}, true)), {Array::randn({5, 3}, 12, F64)}, 2);
}

TEST_CASE("array routines: any, all, argmin (ties, NaN, integer extremes, bools)",
          "[tracer][ops]") {
  auto f = adjit::jit([](Tensor x) {
    return std::vector<Tensor>{any(x, {1}), all(x, {1}), any(x), all(x, {0}, true),
                               any(slice(x, {0, 0}, {3, 0}), {1}), all(slice(x, {0, 0}, {0, 4}))};
  });
  Array x = Array::from<float>({0, 0, 0, 0, 1, 2, -3, 4, 0, NAN, 0, 0}, {3, 4});
  std::vector<Array> got = f(x);
  CHECK_EXACT("any rows", got[0], I1, (Shape{3}), (Vec{0, 1, 1}));
  CHECK_EXACT("all rows", got[1], I1, (Shape{3}), (Vec{0, 1, 0}));
  CHECK_EXACT("any", got[2], I1, Shape{}, (Vec{1}));
  CHECK_EXACT("all columns, keepdims", got[3], I1, (Shape{1, 4}), (Vec{0, 0, 0, 0}));
  CHECK_EXACT("any of empty rows", got[4], I1, (Shape{3}), (Vec{0, 0, 0}));
  CHECK_EXACT("all of nothing", got[5], I1, Shape{}, (Vec{1}));

  auto argmins = adjit::jit([](Tensor v, Tensor i, Tensor b) {
    return std::vector<Tensor>{argmin(v, 1), argmin(v, 0), argmin(i, -1), argmin(b, 0)};
  });
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  Array v = Array::from<float>({3, -1, -1, 2,            // tie: the first
                                0, -0.0f, 5, 1,          // -0 == 0: the first
                                4, NAN, -INFINITY, NAN,  // the first NaN
                                2, 2, 2, 2},
                               {4, 4});
  std::vector<Array> mins =
      argmins(v, Array::from<int32_t>({7, lowest, 0, std::numeric_limits<int32_t>::max(), lowest}, {5}),
              Array::from<bool>({true, true, false, false}, {4}));
  CHECK_EXACT("argmin rows", mins[0], I32, (Shape{4}), (Vec{1, 0, 1, 0}));
  CHECK_EXACT("argmin columns", mins[1], I32, (Shape{4}), (Vec{1, 2, 2, 2}));
  CHECK_EXACT("argmin of i32 with the smallest", mins[2], I32, Shape{}, (Vec{1}));
  CHECK_EXACT("argmin of bools", mins[3], I32, Shape{}, (Vec{2}));
  // A row longer than a vector register, its minimum in the remainder.
  Vec row = sine_wave({3, 37}, 0.29, 0.0);
  row[36] = -5, row[37 + 3] = -5, row[37 + 20] = -5, row[74 + 30] = -kInf;
  std::vector<Array> long_rows = argmins(make(row, {3, 37}, F32), Array::from<int32_t>({1}, {1}),
                                         Array::from<bool>({true}, {1}));
  CHECK_EXACT("argmin of long rows", long_rows[0], I32, (Shape{3}), (Vec{36, 3, 30}));
}

TEST_CASE("array routines: isnan, isinf, isfinite, logaddexp and its gradient", "[tracer][ops]") {
  auto f = adjit::jit([](Tensor x, Tensor i) {
    return std::vector<Tensor>{isnan(x), isinf(x), isfinite(x), isnan(i), isfinite(i)};
  });
  Vec special{0, -1.5, kInf, -kInf, kNaN, -kNaN, 3e38, 1e-45, -0.0};
  for (DType dt : {F16, F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Vec v = special;
    if (dt == F16) v[6] = 6e4, v[7] = 6e-8;
    std::vector<Array> got = f(make(v, {9}, dt), Array::from<int32_t>({1, 2}, {2}));
    CHECK_EXACT("isnan", got[0], I1, (Shape{9}), (Vec{0, 0, 0, 0, 1, 1, 0, 0, 0}));
    CHECK_EXACT("isinf", got[1], I1, (Shape{9}), (Vec{0, 0, 1, 1, 0, 0, 0, 0, 0}));
    CHECK_EXACT("isfinite", got[2], I1, (Shape{9}), (Vec{1, 1, 0, 0, 0, 0, 1, 1, 1}));
    CHECK_EXACT("isnan of integers", got[3], I1, (Shape{2}), (Vec{0, 0}));
    CHECK_EXACT("isfinite of integers", got[4], I1, (Shape{2}), (Vec{1, 1}));
  }

  auto lae = adjit::jit([](Tensor a, Tensor b) {
    return std::vector<Tensor>{logaddexp(a, b), logaddexp(a, 2.0)};
  });
  Vec a{0.5, -3, 800, -800, kInf, -kInf, -kInf, kInf, kNaN, 1, 30, -2e5};
  Vec b{0.5, 2, 799, -801, kInf, -kInf, 1, -kInf, 1, kNaN, -30, 7};
  auto reference = [](double p, double q) -> double {
    if (std::isnan(p) || std::isnan(q)) return kNaN;
    if (p == q) return p + std::log(2.0L) * (std::isinf(p) ? 0 : 1);
    double m = std::max(p, q);
    return static_cast<double>(m + std::log1p(std::exp(-std::fabs(static_cast<long double>(p) - q))));
  };
  for (DType dt : {F32, F64}) {
    INFO("dtype " << dtype_name(dt));
    Vec pa = a, pb = b;
    if (dt == F32) pa[2] = 80, pb[2] = 79, pa[3] = -80, pb[3] = -81, pa[11] = -2e3;
    std::vector<Array> got = lae(make(pa, {12}, dt), make(pb, {12}, dt));
    CHECK_ARRAY("logaddexp", got[0], dt, (Shape{12}), zip(pa, pb, reference), composite_tol(dt));
    CHECK_ARRAY("logaddexp with a number", got[1], dt, (Shape{12}),
                map(pa, [&](double p) { return reference(p, 2.0); }), composite_tol(dt));
  }
  // Its gradient exp(a - r), exp(b - r): a half each where a == b, and no
  // NaN from the branch not taken where both are -inf (JAX gives 1 each).
  auto grads = adjit::jit(adjit::grad<0, 1>([](Tensor p, Tensor q) { return sum(logaddexp(p, q)); }));
  auto [ga, gb] = grads(Array::from<double>({0.5, -kInf, 1, 3}, {4}),
                        Array::from<double>({0.5, -kInf, -kInf, 2}, {4}));
  double e = 1 / (1 + std::exp(-1.0));
  CHECK_ARRAY("d logaddexp / da", ga, F64, (Shape{4}), (Vec{0.5, 1, 1, e}), (Tol{1e-15, 1e-16}));
  CHECK_ARRAY("d logaddexp / db", gb, F64, (Shape{4}), (Vec{0.5, 1, 0, 1 - e}), (Tol{1e-15, 1e-16}));
  ad::expect_grads("logaddexp", FN(logaddexp(x[0], x[1])),
                   {Array::randn({3, 4}, 21, F64), Array::randn({4}, 22, F64)}, 2);
}

TEST_CASE("array routines: stack, split, flip, roll, tile, repeat", "[tracer][ops]") {
  const Shape s{2, 3, 4};
  Vec v = sine_wave(s, 0.43, 0.2);
  Array x = make(v, s, F64);
  auto f = adjit::jit([](Tensor t) {
    std::vector<Tensor> a = split(t, 3, 1), b = split(t, {1, -1, 9}, -1);
    return std::vector<Tensor>{stack({t, t * 2.0}, 1), stack({t, t + 1.0}, -1),
                               a[0] * 1.0,              a[2] * 1.0,
                               b[0] * 1.0,              b[1] * 1.0,
                               b[2] * 1.0,              b[3] * 1.0,
                               flip(t, {0, 2}),         flip(t),
                               roll(t, 5, 2),           roll(t, -7),
                               roll(t, {1, 2}, {0, 1}), tile(t, {2, 1, 3}),
                               tile(t, {2, 1, 1, 1}),   repeat(t, 2, 1),
                               repeat(t, 3)};
  });
  std::vector<Array> got = f(x);
  auto x_at = [&](int64_t i, int64_t j, int64_t k) { return at(v, s, {i, j, k}); };
  CHECK_EXACT("stack axis 1", got[0], F64, (Shape{2, 2, 3, 4}), tabulate({2, 2, 3, 4}, [&](const auto& i) {
                return x_at(i[0], i[2], i[3]) * (i[1] ? 2 : 1);
              }));
  CHECK_EXACT("stack last", got[1], F64, (Shape{2, 3, 4, 2}), tabulate({2, 3, 4, 2}, [&](const auto& i) {
                return x_at(i[0], i[1], i[2]) + i[3];
              }));
  CHECK_EXACT("split in 3, first", got[2], F64, (Shape{2, 1, 4}),
              tabulate({2, 1, 4}, [&](const auto& i) { return x_at(i[0], 0, i[2]); }));
  CHECK_EXACT("split in 3, last", got[3], F64, (Shape{2, 1, 4}),
              tabulate({2, 1, 4}, [&](const auto& i) { return x_at(i[0], 2, i[2]); }));
  // Indices 1, -1 (= 3) and 9 (past the end): x[..., :1], x[..., 1:3], x[..., 3:], empty.
  CHECK_EXACT("split at indices 0", got[4], F64, (Shape{2, 3, 1}),
              tabulate({2, 3, 1}, [&](const auto& i) { return x_at(i[0], i[1], 0); }));
  CHECK_EXACT("split at indices 1", got[5], F64, (Shape{2, 3, 2}),
              tabulate({2, 3, 2}, [&](const auto& i) { return x_at(i[0], i[1], i[2] + 1); }));
  CHECK_EXACT("split at indices 2", got[6], F64, (Shape{2, 3, 1}),
              tabulate({2, 3, 1}, [&](const auto& i) { return x_at(i[0], i[1], 3); }));
  CHECK(got[7].shape() == Shape{2, 3, 0});
  CHECK_EXACT("flip axes 0, 2", got[8], F64, s,
              tabulate(s, [&](const auto& i) { return x_at(1 - i[0], i[1], 3 - i[2]); }));
  CHECK_EXACT("flip all", got[9], F64, s,
              tabulate(s, [&](const auto& i) { return x_at(1 - i[0], 2 - i[1], 3 - i[2]); }));
  CHECK_EXACT("roll 5 along 2", got[10], F64, s,
              tabulate(s, [&](const auto& i) { return x_at(i[0], i[1], (i[2] + 3) % 4); }));
  CHECK_EXACT("roll -7 flattened", got[11], F64, s,
              tabulate(s, [&](const auto& i) { return v[(ravel(i, s) + 7) % 24]; }));
  CHECK_EXACT("roll (1, 2) along (0, 1)", got[12], F64, s, tabulate(s, [&](const auto& i) {
                return x_at((i[0] + 1) % 2, (i[1] + 1) % 3, i[2]);
              }));
  CHECK_EXACT("tile (2, 1, 3)", got[13], F64, (Shape{4, 3, 12}), tabulate({4, 3, 12}, [&](const auto& i) {
                return x_at(i[0] % 2, i[1], i[2] % 4);
              }));
  CHECK_EXACT("tile with more reps than dimensions", got[14], F64, (Shape{2, 2, 3, 4}),
              tabulate({2, 2, 3, 4}, [&](const auto& i) { return x_at(i[1], i[2], i[3]); }));
  CHECK_EXACT("repeat 2 along 1", got[15], F64, (Shape{2, 6, 4}),
              tabulate({2, 6, 4}, [&](const auto& i) { return x_at(i[0], i[1] / 2, i[2]); }));
  CHECK_EXACT("repeat 3 flattened", got[16], F64, (Shape{72}),
              tabulate({72}, [&](const auto& i) { return v[i[0] / 3]; }));

  // Integers and bools keep their dtype.
  auto g = adjit::jit([](Tensor i, Tensor b) {
    return std::vector<Tensor>{flip(i), roll(b, 1), tile(i, {2}), stack({b, logical_not(b)})};
  });
  std::vector<Array> typed = g(Array::from<int32_t>({1, 2, 3}, {3}), Array::from<bool>({true, false, false}, {3}));
  CHECK_EXACT("flip of i32", typed[0], I32, (Shape{3}), (Vec{3, 2, 1}));
  CHECK_EXACT("roll of bools", typed[1], I1, (Shape{3}), (Vec{0, 1, 0}));
  CHECK_EXACT("tile of i32", typed[2], I32, (Shape{6}), (Vec{1, 2, 3, 1, 2, 3}));
  CHECK_EXACT("stack of bools", typed[3], I1, (Shape{2, 3}), (Vec{1, 0, 0, 0, 1, 1}));

  Array y = Array::randn({2, 3, 4}, 31, F64);
  ad::expect_grads("stack", FN(stack({x[0], x[0] * x[0]}, 1)), {y});
  ad::expect_grads("split", FN(split(x[0], {1}, 2)[1] * split(x[0], 4, 2)[0]), {y});
  ad::expect_grads("flip", FN(flip(x[0], {1, 2}) * x[0]), {y});
  ad::expect_grads("roll", FN(roll(x[0], 2) * x[0] + roll(x[0], {-1}, {1})), {y});
  ad::expect_grads("tile", FN(tile(x[0], {2, 1, 1, 2}) * tile(x[0], {2, 1, 1, 2})), {y});
  ad::expect_grads("repeat", FN(repeat(x[0], 3, -1) * repeat(x[0], 3, -1)), {y});
}

TEST_CASE("array routines: results beyond int64 elements are errors, not wrapped sizes",
          "[tracer][ops][errors]") {
  // 2 x 2^62 wrapped to a negative size, 4 x 2^62 to 0 (then a crash).
  const int64_t huge = int64_t{1} << 62;
  auto message = [](std::function<Tensor(Tensor)> f) {
    return what_of<TraceError>([&] { jit([f](Tensor x) { return f(x); })(Array::zeros({2}, I1)); });
  };
  for (const std::string& e :
       {message([huge](Tensor x) { return tile(x, {huge}); }),
        message([huge](Tensor x) { return repeat(x, huge); }),
        message([huge](Tensor x) {
          Tensor big = broadcast_to(slice(x, {0}, {1}), {huge});
          return concat({big, big, big, big}, 0);
        })}) {
    INFO(e);
    CHECK(contains(e, "dimension 0 of the result would have more elements than int64 counts"));
    CHECK(contains(e, "test_compiler_array_routines.cpp:"));
  }
}

TEST_CASE("array routines: tril, triu, eye, diff, outer, cross", "[tracer][ops]") {
  const Shape s{2, 3, 5};
  Array x = make(sine_wave(s, 0.71, 0.4), s, F32);
  Vec v = values(x);
  auto f = adjit::jit([](Tensor t) {
    return std::vector<Tensor>{tril(t),         triu(t),      tril(t, 2),       triu(t, -1),
                               diff(t),         diff(t, 2, 1), diff(t, 0, 0) * 1.0f,
                               diff(t, 7),      outer(t, slice(t, {0, 0, 0}, {1, 1, 4}))};
  });
  std::vector<Array> got = f(x);
  auto x_at = [&](int64_t i, int64_t j, int64_t k) { return at(v, s, {i, j, k}); };
  auto masked = [&](auto keep) {
    return tabulate(s, [&](const auto& i) { return keep(i[1], i[2]) ? x_at(i[0], i[1], i[2]) : 0.0; });
  };
  CHECK_EXACT("tril", got[0], F32, s, masked([](int64_t r, int64_t c) { return c <= r; }));
  CHECK_EXACT("triu", got[1], F32, s, masked([](int64_t r, int64_t c) { return c >= r; }));
  CHECK_EXACT("tril 2", got[2], F32, s, masked([](int64_t r, int64_t c) { return c <= r + 2; }));
  CHECK_EXACT("triu -1", got[3], F32, s, masked([](int64_t r, int64_t c) { return c >= r - 1; }));
  auto float_diff = [](double later, double earlier) {
    return static_cast<double>(static_cast<float>(later) - static_cast<float>(earlier));
  };
  CHECK_EXACT("diff", got[4], F32, (Shape{2, 3, 4}), tabulate({2, 3, 4}, [&](const auto& i) {
                return float_diff(x_at(i[0], i[1], i[2] + 1), x_at(i[0], i[1], i[2]));
              }));
  CHECK_ARRAY("diff 2 along 1", got[5], F32, (Shape{2, 1, 5}), tabulate({2, 1, 5}, [&](const auto& i) {
                return x_at(i[0], 2, i[2]) - 2 * x_at(i[0], 1, i[2]) + x_at(i[0], 0, i[2]);
              }), (Tol{0, 1e-6}));
  CHECK_EXACT("diff 0", got[6], F32, s, v);
  CHECK(got[7].shape() == Shape{2, 3, 0});
  CHECK_ARRAY("outer", got[8], F32, (Shape{30, 4}), tabulate({30, 4}, [&](const auto& i) {
                return v[i[0]] * v[i[1]];
              }), (Tol{0x1p-23, 0}));

  auto g = adjit::jit([](Tensor b, Tensor i) {
    return std::vector<Tensor>{eye(3), eye(2, 4, 1, DType::i32), eye(4, 3, -2, DType::f64),
                               diff(b), tril(b), eye(0)};
  });
  std::vector<Array> built = g(Array::from<bool>({true, true, false, true, true, true}, {2, 3}),
                               Array::from<int32_t>({1}, {1}));
  CHECK_EXACT("eye(3)", built[0], F32, (Shape{3, 3}), (Vec{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  CHECK_EXACT("eye(2, 4, 1)", built[1], I32, (Shape{2, 4}), (Vec{0, 1, 0, 0, 0, 0, 1, 0}));
  CHECK_EXACT("eye(4, 3, -2)", built[2], F64, (Shape{4, 3}), (Vec{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}));
  CHECK_EXACT("diff of bools", built[3], I1, (Shape{2, 2}), (Vec{0, 1, 0, 0}));
  CHECK_EXACT("tril of bools", built[4], I1, (Shape{2, 3}), (Vec{1, 0, 0, 1, 1, 0}));
  CHECK(built[5].shape() == Shape{0, 0});

  // Cross products of 3-vectors: along the last axis with broadcasting, and
  // along axis 0 (the result's vectors along axis 0 too).
  auto c = adjit::jit([](Tensor a, Tensor b, Tensor p, Tensor q) {
    return std::make_pair(cross(a, b), cross(p, q, 0));
  });
  Array a = Array::randn({4, 3}, 41, F64), b = Array::randn({3}, 42, F64);
  Array p = Array::randn({3, 2}, 43, F64), q = Array::randn({3, 1}, 44, F64);
  auto [ab, pq] = c(a, b, p, q);
  Vec A = values(a), B = values(b), P = values(p), Q = values(q);
  auto cross_ref = [](double a0, double a1, double a2, double b0, double b1, double b2) {
    return Vec{a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0};
  };
  Vec want_ab, want_pq(6);
  for (int r = 0; r < 4; ++r) {
    Vec row = cross_ref(A[3 * r], A[3 * r + 1], A[3 * r + 2], B[0], B[1], B[2]);
    want_ab.insert(want_ab.end(), row.begin(), row.end());
  }
  for (int col = 0; col < 2; ++col) {
    Vec r = cross_ref(P[col], P[2 + col], P[4 + col], Q[0], Q[1], Q[2]);
    for (int k = 0; k < 3; ++k) want_pq[2 * k + col] = r[k];
  }
  CHECK_ARRAY("cross, last axis", ab, F64, (Shape{4, 3}), want_ab, (Tol{1e-15, 1e-15}));
  CHECK_ARRAY("cross, axis 0", pq, F64, (Shape{3, 2}), want_pq, (Tol{1e-15, 1e-15}));

  Array y = Array::randn({2, 3, 5}, 51, F64);
  ad::expect_grads("tril", FN(tril(x[0], 1) * x[0]), {y});
  ad::expect_grads("triu", FN(triu(x[0] * x[0], -1)), {y});
  ad::expect_grads("diff", FN(diff(x[0] * x[0], 2, 1)), {y});
  ad::expect_grads("outer", FN(outer(x[0], x[1])), {Array::randn({4}, 52, F64), Array::randn({2, 3}, 53, F64)});
  ad::expect_grads("cross", FN(cross(x[0], x[1])), {a, b}, 2);
}

// The stable ascending (descending) order of `row`: NaN last (first), -0
// equal to +0, as jnp.argsort.
std::vector<int64_t> argsort_ref(const Vec& row, bool descending) {
  std::vector<int64_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  auto rank = [&](double v) { return std::isnan(v) ? (descending ? -kInf : kInf) : v; };
  auto nan_first = [&](double a, double b) { return descending && std::isnan(a) && !std::isnan(b); };
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    double a = row[i], b = row[j];
    if (std::isnan(a) || std::isnan(b)) return descending ? nan_first(a, b) : !std::isnan(a) && std::isnan(b);
    return descending ? rank(a) > rank(b) : rank(a) < rank(b);
  });
  return order;
}

TEST_CASE("array routines: argsort, sort, take_along_axis, top_k, median", "[tracer][ops]") {
  // Rows with ties, signed zeros, NaN and infinities; a row longer than a
  // vector; every dtype of keys.
  Vec special{0.0, -0.0, kNaN, 1.0, -kInf, -0.0, 0.0, 3.0, kNaN, 3.0, kInf, -2.0};
  for (DType dt : {F32, F64, F16, BF16, I32, I64}) {
    INFO("dtype " << dtype_name(dt));
    bool floating = dt != I32 && dt != I64;
    Vec base = floating ? special : Vec{3, -1, 7, 3, 0, -1, 2, 9, 3, -8, 5, 0};
    Vec v = base;
    for (int r = 1; r < 3; ++r)
      for (double e : base) v.push_back(floating ? e * (r + 0.5) : std::fmod(e * 7 + r, 11));
    const Shape s{3, 12};
    Array x = make(v, s, dt);
    auto f = adjit::jit([](Tensor t) {
      return std::vector<Tensor>{argsort(t), argsort(t, -1, true), sort(t), sort(t, -1, true),
                                 argsort(t, 0), sort(t, 0)};
    });
    std::vector<Array> got = f(x);
    Vec want_order, want_desc, want_sorted, want_sorted_desc;
    for (int r = 0; r < 3; ++r) {
      Vec row(v.begin() + 12 * r, v.begin() + 12 * (r + 1));
      for (int64_t i : argsort_ref(row, false)) want_order.push_back(i), want_sorted.push_back(row[i]);
      for (int64_t i : argsort_ref(row, true)) want_desc.push_back(i), want_sorted_desc.push_back(row[i]);
    }
    CHECK_EXACT("argsort", got[0], I32, s, want_order);
    CHECK_EXACT("argsort descending", got[1], I32, s, want_desc);
    CHECK_EXACT("sort", got[2], dt, s, want_sorted);
    CHECK_EXACT("sort descending", got[3], dt, s, want_sorted_desc);
    Vec want_columns(36), want_sorted_columns(36);
    for (int c = 0; c < 12; ++c) {
      Vec column{v[c], v[12 + c], v[24 + c]};
      std::vector<int64_t> order = argsort_ref(column, false);
      for (int k = 0; k < 3; ++k) {
        want_columns[12 * k + c] = static_cast<double>(order[k]);
        want_sorted_columns[12 * k + c] = column[order[k]];
      }
    }
    CHECK_EXACT("argsort along axis 0", got[4], I32, s, want_columns);
    CHECK_EXACT("sort along axis 0", got[5], dt, s, want_sorted_columns);
  }
  // Long rows (heaps many levels deep) of random values with repeats, and
  // bools.
  Array long_rows = Array::uniform({2, 1000}, 61, -20, 20, F32);
  auto rounded = adjit::jit([](Tensor t) { return round(t); });
  Array keys = rounded(long_rows);
  Array order = adjit::jit([](Tensor t) { return argsort(t); })(keys);
  Vec k = values(keys), o;
  for (int r = 0; r < 2; ++r)
    for (int64_t i : argsort_ref(Vec(k.begin() + 1000 * r, k.begin() + 1000 * (r + 1)), false))
      o.push_back(static_cast<double>(i));
  CHECK_EXACT("argsort of long rows with repeats", order, I32, (Shape{2, 1000}), o);
  Array bool_order = adjit::jit([](Tensor t) { return argsort(t); })(
      Array::from<bool>({true, false, true, false}, {4}));
  CHECK_EXACT("argsort of bools", bool_order, I32, (Shape{4}), (Vec{1, 3, 0, 2}));
  // A single row of bf16 keys: its comparator compares bf16 scalars, which
  // LLVM narrowed through __truncsfbf2 (not in GCC 12's libgcc: no link).
  for (DType dt : {BF16, F16}) {
    INFO("dtype " << dtype_name(dt));
    auto sorted = adjit::jit([](Tensor t) { return std::make_tuple(sort(t), argsort(t, 0, true)); });
    auto [row, descending] = sorted(make({3, -1, 2, 0.5, -7, 9, 1, 1, -2}, {9}, dt));
    CHECK_EXACT("sort of one row", row, dt, (Shape{9}), (Vec{-7, -2, -1, 0.5, 1, 1, 2, 3, 9}));
    CHECK_EXACT("argsort of one row, descending", descending, I32, (Shape{9}),
                (Vec{5, 0, 2, 6, 7, 3, 1, 8, 4}));
  }

  // take_along_axis: negative indices, broadcasting of the other axis,
  // clamping; top_k; median over axes (even and odd counts, NaN, integers).
  auto g = adjit::jit([](Tensor t, Tensor i) {
    auto [values, indices] = top_k(t, 2);
    return std::vector<Tensor>{take_along_axis(t, i, 1), values, cast(indices, DType::f32),
                               median(t, {1}), median(t), median(t, {0}, true)};
  });
  Array t = Array::from<double>({4, -1, 9, 2, 7, 7, 0, 3}, {2, 4});
  std::vector<Array> taken = g(t, Array::from<int32_t>({3, -1, 0, 5, -9}, {1, 5}));
  CHECK_EXACT("take_along_axis", taken[0], F64, (Shape{2, 5}), (Vec{2, 2, 4, 2, 4, 3, 3, 7, 3, 7}));
  CHECK_EXACT("top_k values", taken[1], F64, (Shape{2, 2}), (Vec{9, 4, 7, 7}));
  CHECK_EXACT("top_k indices", taken[2], F32, (Shape{2, 2}), (Vec{2, 0, 0, 1}));
  CHECK_EXACT("median of rows", taken[3], F64, (Shape{2}), (Vec{3, 5}));
  CHECK_EXACT("median of all", taken[4], F64, Shape{}, (Vec{3.5}));
  CHECK_EXACT("median of columns", taken[5], F64, (Shape{1, 4}), (Vec{5.5, 3, 4.5, 2.5}));
  Array nan_median = adjit::jit([](Tensor u) { return median(u, {1}); })(
      Array::from<float>({1, NAN, 2, 3, 4, 5}, {2, 3}));
  CHECK_EXACT("median with NaN", nan_median, F32, (Shape{2}), (Vec{kNaN, 4}));
  Array int_median = adjit::jit([](Tensor u) { return median(u); })(Array::from<int32_t>({1, 4}, {2}));
  CHECK_EXACT("median of i32 is f32", int_median, F32, Shape{}, (Vec{2.5}));

  // Gradients: a sort's cotangent goes back to each element's place.
  auto dsort = adjit::jit(adjit::grad([](Tensor u) { return sum(sort(u) * arange(5, DType::f64)); }));
  CHECK_EXACT("grad sort", dsort(Array::from<double>({3, 1, 4, 1.5, 9}, {5})), F64, (Shape{5}),
              (Vec{2, 0, 3, 1, 4}));
  Array y = Array::randn({3, 6}, 62, F64);
  ad::expect_grads("sort", FN(sort(x[0], 0) * sort(x[0], 1, true)), {y});
  ad::expect_grads("take_along_axis", FN(take_along_axis(x[0], argsort(x[0] * x[0]), 1) * x[0]), {y});
  ad::expect_grads("top_k", FN(top_k(x[0] * 2.0, 3).values), {y}, 2);
  ad::expect_grads("median", FN(median(x[0], {1}) + median(x[0], {0, 1})), {y});
}

TEST_CASE("array routines: top_k ranks floats in IEEE totalOrder, as lax.top_k", "[tracer][ops]") {
  // JAX 0.10.2: jax.lax.top_k([-0, 0, -0, 0, 1, nan, -1], 7) is
  // [nan, 1, 0, 0, -0, -0, -1] at [5, 4, 1, 3, 0, 2, 6]; of
  // [1, -nan, 0, nan, -inf, 2], [nan, 2, 1, 0, -inf, -nan] at
  // [3, 5, 0, 2, 4, 1]; jitted, top_k(a / b, 3) of a = [1, 0, 2],
  // b = [1, 0, 1] is [2, 1, nan] at [2, 0, 1] (0/0 is x86's -nan).
  const double negative_nan = -std::numeric_limits<double>::quiet_NaN();
  REQUIRE(std::signbit(negative_nan));
  auto f = adjit::jit([](Tensor z, Tensor n, Tensor a, Tensor b) {
    auto [zv, zi] = top_k(z, 7);
    auto [nv, ni] = top_k(n, 6);
    auto [qv, qi] = top_k(a / b, 3);
    return std::vector<Tensor>{zv, zi, nv, ni, qv, qi};
  });
  for (DType dt : {F32, F64, F16, BF16}) {
    INFO("dtype " << dtype_name(dt));
    std::vector<Array> r = f(make({-0.0, 0.0, -0.0, 0.0, 1, kNaN, -1}, {7}, dt),
                             make({1, negative_nan, 0, kNaN, -kInf, 2}, {6}, dt),
                             make({1, 0, 2}, {3}, dt), make({1, 0, 1}, {3}, dt));
    REQUIRE(r.size() == 6);
    CHECK_EXACT("zeros' values", r[0], dt, (Shape{7}), (Vec{kNaN, 1, 0, 0, 0, 0, -1}));
    CHECK_EXACT("zeros' indices", r[1], I32, (Shape{7}), (Vec{5, 4, 1, 3, 0, 2, 6}));
    Vec signs = map(values(r[0]), [](double v) { return std::signbit(v) ? 1.0 : 0.0; });
    CHECK(signs == (Vec{0, 0, 0, 0, 1, 1, 1}));
    CHECK_EXACT("NaNs' values", r[2], dt, (Shape{6}), (Vec{kNaN, 2, 1, 0, -kInf, kNaN}));
    CHECK_EXACT("NaNs' indices", r[3], I32, (Shape{6}), (Vec{3, 5, 0, 2, 4, 1}));
    CHECK_EXACT("0/0's indices", r[5], I32, (Shape{3}), (Vec{2, 0, 1}));
  }

  // Rows of 40 (many heap levels): zeros of both signs, NaNs of both
  // signs and numbers, against a stable sort by totalOrder, descending.
  auto ranks_before = [](double a, double b) {
    auto rank = [](double v) {  // -NaN, numbers, +NaN
      return std::isnan(v) ? (std::signbit(v) ? 0 : 2) : 1;
    };
    if (rank(a) != rank(b)) return rank(a) > rank(b);
    if (rank(a) != 1) return false;
    if (a == 0 && b == 0) return !std::signbit(a) && std::signbit(b);
    return a > b;
  };
  const Shape shape{3, 40};
  Vec v;
  for (int64_t i = 0; i < count(shape); ++i) {
    int64_t kind = (i * 7) % 9;
    v.push_back(kind == 0 ? kNaN : kind == 1 ? negative_nan : kind < 4 ? 0.0 : kind < 6 ? -0.0
                                                                           : double((i * 5) % 11) - 5);
  }
  // Every k: the whole sort, and the partial sort that keeps a heap of k
  // (later elements replacing its last, ties kept in index order).
  auto top = adjit::jit([](Tensor x, int k) { return top_k(x, k).indices; });
  auto first_k = [](const Vec& sorted, int64_t rows, int64_t n, int64_t k) {
    Vec taken;
    for (int64_t row = 0; row < rows; ++row)
      taken.insert(taken.end(), sorted.begin() + row * n, sorted.begin() + row * n + k);
    return taken;
  };
  for (DType dt : {F32, F16}) {
    INFO("dtype " << dtype_name(dt));
    Vec want;
    for (int64_t row = 0; row < 3; ++row) {
      std::vector<int64_t> order(40);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
        return ranks_before(v[row * 40 + i], v[row * 40 + j]);
      });
      for (int64_t i : order) want.push_back(static_cast<double>(i));
    }
    for (int k : {40, 39, 7, 2, 1, 0}) {
      INFO("k = " << k);
      CHECK_EXACT("rows of 40", top(make(v, shape, dt), k), I32, (Shape{3, k}),
                  first_k(want, 3, 40, k));
    }
  }
  // Rows of 1000 integers with many ties, ascending in places (each
  // element replaces the heap's last) and descending in others (none does).
  const int64_t n = 1000;
  Vec integers;
  for (int64_t i = 0; i < 2 * n; ++i)
    integers.push_back(i < n ? double((i * 37) % 101 / 3) : i < n + 500 ? double((i - n) / 4) : double(2 * n - i));
  Vec want;
  for (int64_t row = 0; row < 2; ++row) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      return integers[row * n + i] > integers[row * n + j];
    });
    for (int64_t i : order) want.push_back(static_cast<double>(i));
  }
  for (DType dt : {I32, I64, F64})
    for (int k : {1, 5, 64}) {
      INFO("dtype " << dtype_name(dt) << ", k = " << k);
      CHECK_EXACT("rows of 1000", top(make(integers, {2, n}, dt), k), I32, (Shape{2, k}),
                  first_k(want, 2, n, k));
    }
}

TEST_CASE("array routines: quantile, percentile, nan-reductions, linspace, meshgrid, matrix_rank",
          "[tracer][ops]") {
  // Against jnp.quantile (linear), jnp.nan*, jnp.linspace, jnp.meshgrid and
  // jnp.linalg.matrix_rank (JAX 0.10.2, f64).
  auto f = adjit::jit([](Tensor t) {
    return std::vector<Tensor>{quantile(t, 0.3, {1}), percentile(t, 90), quantile(t, 0.25, {0}, true),
                               quantile(t, 0), quantile(t, 1, {1})};
  });
  Array t = Array::from<double>({4, -1, 9, 2, 7, 7, 0, 3}, {2, 4});
  std::vector<Array> got = f(t);
  CHECK_ARRAY("quantile 0.3 of rows", got[0], F64, (Shape{2}), (Vec{1.7, 2.7}), (Tol{1e-15, 1e-15}));
  CHECK_ARRAY("percentile 90", got[1], F64, Shape{}, (Vec{7.6}), (Tol{1e-15, 0}));
  CHECK_ARRAY("quantile 0.25 of columns", got[2], F64, (Shape{1, 4}), (Vec{4.75, 1, 2.25, 2.25}),
              (Tol{1e-15, 0}));
  CHECK_EXACT("quantile 0 (the minimum)", got[3], F64, Shape{}, (Vec{-1}));
  CHECK_EXACT("quantile 1 of rows (the maxima)", got[4], F64, (Shape{2}), (Vec{9, 7}));
  auto dq = adjit::jit(adjit::grad([](Tensor u) { return quantile(u, 0.3); }));
  CHECK_ARRAY("grad quantile", dq(Array::from<double>({3, 1, 4, 1.5, 9}, {5})), F64, (Shape{5}),
              (Vec{0.2, 0, 0, 0.8, 0}), (Tol{1e-15, 1e-16}));
  ad::expect_grads("quantile", FN(quantile(x[0], 0.7, {0}) * percentile(x[0], 35)),
                   {Array::randn({5, 3}, 71, F64)});

  auto nans = adjit::jit([](Tensor u) {
    return std::vector<Tensor>{nansum(u, {1}), nanmean(u, {1}), nanmax(u, {1}), nanmin(u, {1}),
                               nanmax(u), nansum(u)};
  });
  Array u = Array::from<float>({1, NAN, 3, NAN, NAN, NAN, -2, 5, -INFINITY}, {3, 3});
  std::vector<Array> n = nans(u);
  CHECK_EXACT("nansum", n[0], F32, (Shape{3}), (Vec{4, 0, -kInf}));
  CHECK_EXACT("nanmean", n[1], F32, (Shape{3}), (Vec{2, kNaN, -kInf}));
  CHECK_EXACT("nanmax", n[2], F32, (Shape{3}), (Vec{3, kNaN, 5}));
  CHECK_EXACT("nanmin", n[3], F32, (Shape{3}), (Vec{1, kNaN, -kInf}));
  CHECK_EXACT("nanmax of all", n[4], F32, Shape{}, (Vec{5}));
  CHECK_EXACT("nansum of all", n[5], F32, Shape{}, (Vec{-kInf}));
  Array ints = adjit::jit([](Tensor i) { return nanmax(i) + nansum(i); })(Array::from<int32_t>({2, 5}, {2}));
  CHECK_EXACT("nan-reductions of integers", ints, I32, Shape{}, (Vec{12}));
  // As JAX's: nothing to NaN elements (nansum(w * w) would give them
  // 0 * NaN, as JAX's does).
  auto dnan = adjit::jit(adjit::grad([](Tensor w) { return nansum(w) + nanmean(w) + nanmax(w); }));
  CHECK_EXACT("grad of nan-reductions", dnan(Array::from<double>({1, kNaN, 3}, {3})), F64, (Shape{3}),
              (Vec{1.5, 0, 2.5}));

  auto built = adjit::jit([](Tensor) {
    std::vector<Tensor> xy = meshgrid({arange(3), arange(2)}), ij = meshgrid({arange(3), arange(2)}, "ij");
    return std::vector<Tensor>{linspace(0, 1, 5), linspace(-1, 2, 4, false, DType::f64),
                               linspace(0.1, 0.7, 7, true, DType::f64), linspace(3, 4, 1),
                               xy[0], xy[1], ij[0], ij[1]};
  })(Array::zeros({1}));
  CHECK_EXACT("linspace(0, 1, 5)", built[0], F32, (Shape{5}), (Vec{0, 0.25, 0.5, 0.75, 1}));
  CHECK_EXACT("linspace without the endpoint", built[1], F64, (Shape{4}), (Vec{-1, -0.25, 0.5, 1.25}));
  CHECK_ARRAY("linspace(0.1, 0.7, 7)", built[2], F64, (Shape{7}), (Vec{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}),
              (Tol{0x1p-52, 0}));
  CHECK(values(built[2])[6] == 0.7);
  CHECK_EXACT("linspace of one", built[3], F32, (Shape{1}), (Vec{3}));
  CHECK_EXACT("meshgrid xy, x", built[4], I32, (Shape{2, 3}), (Vec{0, 1, 2, 0, 1, 2}));
  CHECK_EXACT("meshgrid xy, y", built[5], I32, (Shape{2, 3}), (Vec{0, 0, 0, 1, 1, 1}));
  CHECK_EXACT("meshgrid ij, x", built[6], I32, (Shape{3, 2}), (Vec{0, 0, 1, 1, 2, 2}));
  CHECK_EXACT("meshgrid ij, y", built[7], I32, (Shape{3, 2}), (Vec{0, 1, 0, 1, 0, 1}));

  auto rank = adjit::jit([](Tensor a, Tensor b) {
    return std::vector<Tensor>{linalg::matrix_rank(a), linalg::matrix_rank(b, 1e-6)};
  });
  std::vector<Array> ranks = rank(Array::from<double>({1, 2, 2, 4, 1, 0, 0, 1, 0, 0, 0, 0}, {3, 2, 2}),
                                  Array::from<double>({1, 0, 0, 1e-9}, {2, 2}));
  CHECK_EXACT("matrix_rank of a batch", ranks[0], I32, (Shape{3}), (Vec{1, 2, 0}));
  CHECK_EXACT("matrix_rank with tol", ranks[1], I32, Shape{}, (Vec{1}));
}

TEST_CASE("array routines: sorts and searches in parallel chunks equal at 1 and 2 threads",
          "[tracer][ops]") {
  // 64 rows of 1024 (with ties) and 65536 searched values: enough work for
  // parallel chunks of rows and of values (tests/ir/sort-parallel-rows.mlir).
  const int64_t rows = 64, n = 1024, m = 65536;
  Vec keys = map(sine_wave({rows, n}, 0.37, 0.1), [](double v) { return std::round(v * 200); });
  Vec table = sine_wave({255}, 0.013, 0.0);
  std::sort(table.begin(), table.end());
  Vec queries = sine_wave({m}, 0.7, 0.3);
  std::vector<Array> previous;
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    auto f = jit([](Tensor k, Tensor a, Tensor v) {
      return std::vector<Tensor>{argsort(k), searchsorted(a, v, "right")};
    }, {.threads = threads});
    std::vector<Array> got = f(make(keys, {rows, n}, F32), make(table, {255}, F32),
                               make(queries, {m}, F32));
    Vec order, positions;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int64_t> perm(n);
      std::iota(perm.begin(), perm.end(), 0);
      std::stable_sort(perm.begin(), perm.end(),
                       [&](int64_t i, int64_t j) { return keys[r * n + i] < keys[r * n + j]; });
      for (int64_t i : perm) order.push_back(static_cast<double>(i));
    }
    Vec rounded = values(make(table, {255}, F32)), rounded_queries = values(make(queries, {m}, F32));
    for (double q : rounded_queries)
      positions.push_back(static_cast<double>(
          std::upper_bound(rounded.begin(), rounded.end(), q) - rounded.begin()));
    CHECK_EXACT("argsort", got[0], I32, (Shape{rows, n}), order);
    CHECK_EXACT("searchsorted", got[1], I32, Shape{m}, positions);
    if (!previous.empty())
      for (size_t i = 0; i < got.size(); ++i) CHECK(ad::mismatch(got[i], previous[i], 0) == "");
    previous = got;
  }
}

TEST_CASE("array routines: searchsorted and interp, against JAX", "[tracer][ops]") {
  // Ties, infinities and NaN in the sorted vector and among the values
  // (jnp.searchsorted and jnp.interp, JAX 0.10.2, f64).
  auto f = adjit::jit([](Tensor a, Tensor v) {
    return std::make_pair(searchsorted(a, v), searchsorted(a, v, "right"));
  });
  Array a = Array::from<double>({-kInf, -1, 0, 0, 2, 2, 2, 5, kNaN}, {9});
  Array v = Array::from<double>({-2, 0, 2, 7, kNaN, -kInf, 5, 1.5}, {2, 4});
  auto [left, right] = f(a, v);
  CHECK_EXACT("searchsorted left", left, I32, (Shape{2, 4}), (Vec{1, 2, 4, 8, 8, 0, 7, 4}));
  CHECK_EXACT("searchsorted right", right, I32, (Shape{2, 4}), (Vec{1, 4, 7, 8, 9, 1, 8, 4}));
  // A long vector (many halvings), integers, an empty vector.
  Array knots = adjit::jit([](Tensor u) { return arange(1000, DType::i32) * 3; })(Array::zeros({1}));
  Array queries = Array::from<int32_t>({-5, 0, 1, 2997, 2998, 3000, 1500}, {7});
  auto g = adjit::jit([](Tensor k, Tensor q) {
    return std::vector<Tensor>{searchsorted(k, q), searchsorted(k, q, "right"),
                               searchsorted(slice(k, {0}, {0}), q)};
  });
  std::vector<Array> found = g(knots, queries);
  CHECK_EXACT("searchsorted of i32", found[0], I32, (Shape{7}), (Vec{0, 0, 1, 999, 1000, 1000, 500}));
  CHECK_EXACT("searchsorted of i32, right", found[1], I32, (Shape{7}), (Vec{0, 1, 1, 1000, 1000, 1000, 501}));
  CHECK_EXACT("searchsorted of an empty vector", found[2], I32, (Shape{7}), Vec(7, 0.0));

  auto h = adjit::jit([](Tensor x, Tensor xp, Tensor fp) {
    return std::make_pair(interp(x, xp, fp), interp(x, xp, fp, -5.0, 99.0));
  });
  Array x = Array::from<double>({-1, 0, 0.5, 1, 2, 3, 4}, {7});
  Array xp = Array::from<double>({0, 1, 1, 3}, {4}), fp = Array::from<double>({0, 10, 20, 40}, {4});
  auto [y, y_ends] = h(x, xp, fp);
  CHECK_EXACT("interp", y, F64, (Shape{7}), (Vec{0, 0, 5, 20, 30, 40, 40}));
  CHECK_EXACT("interp with left and right", y_ends, F64, (Shape{7}), (Vec{-5, 0, 5, 20, 30, 40, 99}));
  auto grads = adjit::jit(adjit::grad<0, 1, 2>([](Tensor p, Tensor q, Tensor r) {
    return sum(interp(p, q, r) * arange(7, DType::f64));
  }));
  auto [gx, gxp, gfp] = grads(x, xp, fp);
  CHECK_EXACT("d interp / dx", gx, F64, (Shape{7}), (Vec{0, 10, 20, 30, 40, 50, 0}));
  CHECK_EXACT("d interp / dxp", gxp, F64, (Shape{4}), (Vec{-20, -10, -50, -70}));
  CHECK_EXACT("d interp / dfp", gfp, F64, (Shape{4}), (Vec{2, 1, 5, 13}));
  Array one_point = adjit::jit([](Tensor p) { return interp(p, full({1}, 2.0), full({1}, 7.0)); })(
      Array::from<float>({1, 2, 3}, {3}));
  CHECK_EXACT("interp through one point", one_point, F32, (Shape{3}), (Vec{7, 7, 7}));
  ad::expect_grads("interp", FN(interp(x[0], x[1], x[2])),
                   {Array::from<double>({0.3, 1.7, 2.2, 3.9}, {4}), Array::from<double>({0, 1, 2.5, 3}, {4}),
                    Array::randn({4}, 81, F64)});
}

TEST_CASE("array routines: segment_sum and bincount, ids out of range dropped as JAX's",
          "[tracer][ops]") {
  auto f = adjit::jit([](Tensor data, Tensor ids, Tensor rows, Tensor x, Tensor w) {
    return std::vector<Tensor>{segment_sum(data, ids, 3), segment_sum(rows, ids, 2),
                               cast(bincount(x, 4), DType::f64), bincount(x, w, 4),
                               segment_sum(data, ids, 0)};
  });
  Array data = Array::from<double>({1, 2, 3, 4}, {4}), ids = Array::from<int32_t>({0, 2, -1, 0}, {4});
  Array rows = Array::from<double>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  Array x = Array::from<int64_t>({0, 1, 1, 5, -1, 3}, {6}), w = Array::from<float>({1, 2, 3, 4, 5, 6}, {6});
  std::vector<Array> got = f(data, ids, rows, x, w);
  // jax.ops.segment_sum and jnp.bincount(length=4), JAX 0.10.2.
  CHECK_EXACT("segment_sum", got[0], F64, (Shape{3}), (Vec{5, 0, 2}));
  CHECK_EXACT("segment_sum of rows", got[1], F64, (Shape{2, 2}), (Vec{8, 10, 0, 0}));
  CHECK_EXACT("bincount", got[2], F64, (Shape{4}), (Vec{2, 2, 0, 1}));
  CHECK_EXACT("bincount with weights", got[3], F32, (Shape{4}), (Vec{6, 5, 0, 6}));
  CHECK(got[4].shape() == Shape{0});
  Array counts = adjit::jit([](Tensor b) { return bincount(b, 3); })(Array::from<bool>({true, false, true}, {3}));
  CHECK_EXACT("bincount of bools", counts, I32, (Shape{3}), (Vec{1, 2, 0}));
  // Many ids into few segments (repeats accumulate), and gradients.
  Array many = Array::uniform({500}, 91, 0, 7, DType::i32);
  Array values_many = Array::randn({500, 3}, 92, F64);
  Array sums = adjit::jit([](Tensor d, Tensor i) { return segment_sum(d, i, 7); })(values_many, many);
  Vec want(21, 0.0), d = values(values_many), i = values(many);
  for (int k = 0; k < 500; ++k)
    for (int c = 0; c < 3; ++c) want[static_cast<size_t>(i[k]) * 3 + c] += d[3 * k + c];
  CHECK_ARRAY("segment_sum of 500 rows", sums, F64, (Shape{7, 3}), want, (Tol{1e-13, 1e-13}));
  ad::expect_grads("segment_sum", FN(segment_sum(x[0] * x[0], ad::ints({2, 0, 2, 5, 1}), 3)),
                   {Array::randn({5, 2}, 93, F64)}, 2);
}

TEST_CASE("array routines: segment_max and segment_min against JAX and a scan",
          "[tracer][ops]") {
  auto f = adjit::jit([](Tensor data, Tensor ids, Tensor ints, Tensor bools) {
    return std::vector<Tensor>{segment_max(data, ids, 3), segment_min(data, ids, 3),
                               segment_max(ints, ids, 3), segment_min(ints, ids, 3),
                               segment_max(bools, ids, 3), segment_min(bools, ids, 3),
                               segment_max(data, ids, 0)};
  });
  Array data = Array::from<double>({1, kNaN, -3, 5, 2}, {5});
  Array ids = Array::from<int32_t>({0, 1, 7, 0, -1}, {5});
  Array ints = Array::from<int32_t>({1, -4, 3, 5, 2}, {5});
  Array bools = Array::from<bool>({true, false, true, false, true}, {5});
  std::vector<Array> got = f(data, ids, ints, bools);
  // jax.ops.segment_max / segment_min, JAX 0.10.2: empty segments hold the
  // dtype's lowest (highest) value, ids 7 and -1 are dropped, NaN wins.
  CHECK_EXACT("segment_max", got[0], F64, (Shape{3}), (Vec{5, kNaN, -kInf}));
  CHECK_EXACT("segment_min", got[1], F64, (Shape{3}), (Vec{1, kNaN, kInf}));
  CHECK_EXACT("segment_max of i32", got[2], I32, (Shape{3}), (Vec{5, -4, -2147483648.0}));
  CHECK_EXACT("segment_min of i32", got[3], I32, (Shape{3}), (Vec{1, -4, 2147483647.0}));
  CHECK_EXACT("segment_max of bools", got[4], I1, (Shape{3}), (Vec{1, 0, 0}));
  CHECK_EXACT("segment_min of bools", got[5], I1, (Shape{3}), (Vec{0, 0, 1}));
  CHECK(got[6].shape() == Shape{0});
  Array wide = adjit::jit([](Tensor d, Tensor i) { return segment_min(d, i, 2); })(
      Array::from<int64_t>({4, 9}, {2}), Array::from<int64_t>({0, 0}, {2}));
  CHECK(wide.to_vector<int64_t>() == std::vector<int64_t>{4, std::numeric_limits<int64_t>::max()});
  // Many rows of f32 into few segments, against a scan.
  Array many = Array::uniform({500}, 91, 0, 7, DType::i32);
  Array rows = Array::randn({500, 3}, 92, F32);
  auto extrema = adjit::jit([](Tensor d, Tensor i) {
    return std::make_pair(segment_max(d, i, 7), segment_min(d, i, 7));
  });
  auto [maxima, minima] = extrema(rows, many);
  Vec want_max(21, -kInf), want_min(21, kInf), d = values(rows), i = values(many);
  for (int k = 0; k < 500; ++k)
    for (int c = 0; c < 3; ++c) {
      size_t at = static_cast<size_t>(i[k]) * 3 + c;
      want_max[at] = std::max(want_max[at], d[3 * k + c]);
      want_min[at] = std::min(want_min[at], d[3 * k + c]);
    }
  CHECK_EXACT("segment_max of 500 rows", maxima, F32, (Shape{7, 3}), want_max);
  CHECK_EXACT("segment_min of 500 rows", minima, F32, (Shape{7, 3}), want_min);
  // Rows of 16 (combined a row at a time, in vectors), f64 and f16, and a
  // scatter along axis 1 (take's gradient) with rows after it.
  for (DType dtype : {F64, F16}) {
    INFO(dtype_name(dtype));
    Array wide_rows = make(values(Array::randn({500, 16}, 95, F64)), {500, 16}, dtype);
    auto by_rows = adjit::jit([](Tensor d, Tensor i) {
      return std::vector<Tensor>{segment_sum(d, i, 7), segment_max(d, i, 7), segment_min(d, i, 7)};
    });
    std::vector<Array> got_rows = by_rows(wide_rows, many);
    Vec sum_rows(7 * 16, 0.0), max_rows(7 * 16, -kInf), min_rows(7 * 16, kInf);
    Vec w = values(wide_rows);
    for (int k = 0; k < 500; ++k)
      for (int c = 0; c < 16; ++c) {
        size_t at = static_cast<size_t>(i[k]) * 16 + c;
        // f16 sums round at each addition, in order, as the loop does.
        sum_rows[at] = dtype == F16 ? round_to_format(sum_rows[at] + w[16 * k + c], F16)
                                    : sum_rows[at] + w[16 * k + c];
        max_rows[at] = std::max(max_rows[at], w[16 * k + c]);
        min_rows[at] = std::min(min_rows[at], w[16 * k + c]);
      }
    CHECK_ARRAY("segment_sum of rows of 16", got_rows[0], dtype, (Shape{7, 16}), sum_rows,
                (Tol{1e-12, 1e-12}));
    CHECK_EXACT("segment_max of rows of 16", got_rows[1], dtype, (Shape{7, 16}), max_rows);
    CHECK_EXACT("segment_min of rows of 16", got_rows[2], dtype, (Shape{7, 16}), min_rows);
  }
  ad::expect_grads("take along axis 1, rows of 12",
                   FN(take(x[0], ad::ints({4, 0, 4, 2, 9}), 1) * 3.0),
                   {Array::randn({3, 10, 12}, 96, F64)}, 1);
}

TEST_CASE("ad ops: segment_max and segment_min share a tied extremum's gradient, both modes",
          "[tracer][ops][ad]") {
  // JAX 0.10.2: grad of sum(segment_max(d, [0, 0, 0, 1, 1], 2) * [1, 10]) at
  // d = [3, 3, 1, 2, 5] is [0.5, 0.5, 0, 0, 10]; its jvp along [1, 2, 3, 4, 5]
  // is 51.5 (the tied rows' tangents averaged).
  auto loss = [](Tensor d) {
    return sum(segment_max(d, ad::ints({0, 0, 0, 1, 1}), 2) * (arange(2, F64) * 9.0 + 1.0));
  };
  Array d = Array::from<double>({3, 3, 1, 2, 5}, {5});
  CHECK_EXACT("grad", grad(loss)(d), F64, (Shape{5}), (Vec{0.5, 0.5, 0, 0, 10}));
  auto [value, tangent] = jvp(loss, d, Array::from<double>({1, 2, 3, 4, 5}, {5}));
  CHECK_EXACT("value", value, F64, (Shape{}), (Vec{53}));
  CHECK_EXACT("jvp", tangent, F64, (Shape{}), (Vec{51.5}));
  // Away from ties: check_grads in both modes, to second order, with
  // dropped ids and an empty segment (whose -inf is not differentiated).
  ad::expect_grads("segment_max", Fn([](const std::vector<Tensor>& x) {
                     Tensor m = segment_max(x[0] * x[0], ad::ints({2, 0, 2, 5, 1}), 4);
                     return sum(where(isfinite(m), m, 0.0));
                   }),
                   {Array::randn({5, 2}, 93, F64)}, 2);
  ad::expect_grads("segment_min", FN(segment_min(sin(x[0]), ad::ints({1, 1, 0, 2, 1}), 3)),
                   {Array::randn({5, 3}, 94, F64)}, 2);
}

TEST_CASE("array routines: segment_max's errors name it, the operands and the line",
          "[tracer][ops][errors]") {
  auto bad_ids = adjit::jit([](Tensor d, Tensor i) { return segment_max(d, i, 2); });
  std::string m = what_of<TraceError>(
      [&] { bad_ids(Array::zeros({3}), Array::from<float>({0, 1, 0}, {3})); });
  INFO(m);
  CHECK(contains(m, "adjit::segment_max"));
  CHECK(contains(m, "needs integer ids, got f32[3]"));
  CHECK(contains(m, "test_compiler_array_routines.cpp:" + std::to_string(__LINE__ - 6)));
  auto bad_rows = adjit::jit([](Tensor d, Tensor i) { return segment_min(d, i, -1); });
  std::string n = what_of<TraceError>(
      [&] { bad_rows(Array::zeros({3}), Array::from<int32_t>({0, 1, 0}, {3})); });
  CHECK(contains(n, "adjit::segment_min"));
  CHECK(contains(n, "num_segments = -1 must not be negative"));
  // Too many segments for the result, or for the ids to number: the
  // segment op says so (not an op it is made of).
  auto many = [](int64_t segments) {
    return what_of<TraceError>([&] {
      adjit::jit([segments](Tensor d, Tensor i) { return segment_sum(d, i, segments); })(
          Array::zeros({3}), Array::from<int32_t>({0, 1, 0}, {3}));
    });
  };
  std::string huge = many(std::numeric_limits<int64_t>::max());
  CHECK(contains(huge, "adjit::segment_sum"));
  CHECK(contains(huge, "too large"));
  std::string wide = many(int64_t{1} << 40);
  CHECK(contains(wide, "adjit::segment_sum: cannot number 1099511627776 segments with i32 ids"));
  std::string bins = what_of<TraceError>([] {
    adjit::jit([](Tensor a) { return histogram(a, std::numeric_limits<int64_t>::max()).hist; })(
        Array::ones({3}));
  });
  CHECK(contains(bins, "adjit::histogram: bins = 9223372036854775807 is more than i32 indices count"));
}

TEST_CASE("array routines: isclose, allclose, nan_to_num, count_nonzero, average, against JAX",
          "[tracer][ops]") {
  auto f = adjit::jit([](Tensor a, Tensor b) {
    return std::vector<Tensor>{isclose(a, b), isclose(a, b, 1e-5, 1e-8, true), isclose(a, b, 0, 1e-3),
                               allclose(a, a), allclose(a, b), allclose(a, 1.0)};
  });
  Array a = Array::from<double>({1, 1.00002, kInf, kInf, kNaN, kNaN, 1e-9, 0, 100}, {9});
  Array b = Array::from<double>({1.000001, 1, kInf, -kInf, kNaN, 1, 0, 1e-9, 100.001}, {9});
  std::vector<Array> got = f(a, b);
  CHECK_EXACT("isclose", got[0], I1, (Shape{9}), (Vec{1, 0, 1, 0, 0, 0, 1, 1, 1}));
  CHECK_EXACT("isclose, equal_nan", got[1], I1, (Shape{9}), (Vec{1, 0, 1, 0, 1, 0, 1, 1, 1}));
  CHECK_EXACT("isclose, atol only", got[2], I1, (Shape{9}), (Vec{1, 1, 1, 0, 0, 0, 1, 1, 0}));
  CHECK_EXACT("allclose of itself (NaN is not)", got[3], I1, Shape{}, (Vec{0}));
  CHECK_EXACT("allclose", got[4], I1, Shape{}, (Vec{0}));
  CHECK_EXACT("allclose to a number", got[5], I1, Shape{}, (Vec{0}));
  Array ints_close = adjit::jit([](Tensor i) { return isclose(i, i + 1, 0.0, 1.0); })(
      Array::from<int32_t>({5, 2000000000}, {2}));
  CHECK_EXACT("isclose of integers", ints_close, I1, (Shape{2}), (Vec{1, 1}));

  auto g = adjit::jit([](Tensor x, Tensor y, Tensor m, Tensor w) {
    return std::vector<Tensor>{nan_to_num(x), nan_to_num(y, 7, 8.0, -9.0),
                               count_nonzero(m, {1}), average(m, w, {1}), count_nonzero(m)};
  });
  std::vector<Array> more = g(Array::from<float>({NAN, INFINITY, -INFINITY, 1.5f}, {4}),
                              Array::from<double>({kNaN, kInf, -kInf}, {3}),
                              Array::from<double>({0, 1, kNaN, 0, 0, 2}, {2, 3}),
                              Array::from<double>({3, 1, 0}, {3}));
  double big = std::numeric_limits<float>::max();
  CHECK_EXACT("nan_to_num", more[0], F32, (Shape{4}), (Vec{0, big, -big, 1.5}));
  CHECK_EXACT("nan_to_num with values", more[1], F64, (Shape{3}), (Vec{7, 8, -9}));
  CHECK_EXACT("count_nonzero of rows", more[2], I32, (Shape{2}), (Vec{2, 1}));
  CHECK_EXACT("average with weights", more[3], F64, (Shape{2}), (Vec{kNaN, 0}));
  CHECK_EXACT("count_nonzero", more[4], I32, Shape{}, (Vec{3}));
  Array mean_rows = adjit::jit([](Tensor m, Tensor w) { return average(m, w, {1}); })(
      Array::from<double>({1, 2, 3, 4, 5, 6}, {2, 3}), Array::from<double>({3, 1, 0}, {3}));
  CHECK_EXACT("average of rows", mean_rows, F64, (Shape{2}), (Vec{1.25, 4.25}));
  ad::expect_grads("average", FN(average(x[0] * x[0], x[1], {0})),
                   {Array::randn({4, 3}, 101, F64), Array::uniform({4, 1}, 102, 0.5, 2, F64)});
  ad::expect_grads("nan_to_num", FN(nan_to_num(x[0] * 3.0)), {Array::randn({5}, 103, F64)});
}

TEST_CASE("array routines: errors name the routine, the operands and the line", "[tracer][ops]") {
  Array m = Array::zeros({2, 3});
  check_error([&] { adjit::jit([](Tensor t) { return stack({t, transpose(t)}); })(m); },
              {"stack", "f32[2,3]", "f32[3,2]", "one shape"});
  check_error([&] { adjit::jit([](Tensor t) { return stack({t}, 3); })(m); }, {"stack", "axis 3"});
  check_error([&] { adjit::jit([](Tensor t) { return split(t, 2, 1)[0]; })(m); },
              {"split", "2 sections", "axis 1", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return split(t, 0)[0]; })(m); },
              {"split", "at least one section"});
  check_error([&] { adjit::jit([](Tensor t) { return flip(t, {1, -1}); })(m); },
              {"flip", "repeat an axis", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return roll(t, {1, 2}, {0}); })(m); },
              {"roll", "one shift per axis"});
  check_error([&] { adjit::jit([](Tensor t) { return tile(t, {2, -1}); })(m); },
              {"tile", "negative"});
  check_error([&] { adjit::jit([](Tensor t) { return repeat(t, 2, 2); })(m); },
              {"repeat", "axis 2", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return tril(sum(t, {0})); })(m); },
              {"tril", "2 dimensions", "f32[3]"});
  check_error([&] { adjit::jit([](Tensor t) { return diff(t, -1); })(m); }, {"diff", "n = -1"});
  check_error([&] { adjit::jit([](Tensor t) { return cross(t, t); })(Array::zeros({3, 2})); },
              {"cross", "3 elements", "f32[3,2]"});
  check_error([&] { adjit::jit([](Tensor t) { return cross(t, slice(t, {0, 0}, {2, 3})); })(Array::zeros({4, 3})); },
              {"cross", "f32[4,3]", "f32[2,3]", "broadcast"});
  check_error([&] { adjit::jit([](Tensor t) { return t + eye(-1); })(m); }, {"eye", ">= 0"});
  check_error([&] { adjit::jit([](Tensor t) { return argmin(slice(t, {0, 0}, {2, 0}), 1); })(m); },
              {"argmin", "empty axis 1", "f32[2,0]"});
  check_error([&] { adjit::jit([](Tensor t) { return prod(t, {0, 0}); })(m); },
              {"prod", "repeat an axis"});
  check_error([&] { adjit::jit([](Tensor t) { return var(t, {2}); })(m); }, {"var", "axis 2"});
  check_error([&] { adjit::jit([](Tensor t) { return segment_sum(t, ad::ints({0, 1, 0}), 2); })(m); },
              {"segment_sum", "one id per row", "i32[3]", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return segment_sum(t, t, 2); })(m); },
              {"segment_sum", "integer ids"});
  check_error([&] { adjit::jit([](Tensor t) { return bincount(t, 3); })(m); },
              {"bincount", "integers", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return isclose(t, t, -1.0); })(m); },
              {"isclose", "rtol = -1"});
  check_error([&] { adjit::jit([](Tensor t) { return average(t, sum(t, {1}), {0}); })(m); },
              {"average", "f32[2]", "f32[2,3]", "broadcast"});
  check_error([&] { adjit::jit([](Tensor t) { return searchsorted(t, t); })(m); },
              {"searchsorted", "sorted vector", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return searchsorted(sum(t, {0}), t, "middle"); })(m); },
              {"searchsorted", "\"middle\""});
  check_error([&] { adjit::jit([](Tensor t) { return interp(t, sum(t, {0}), sum(t, {1})); })(m); },
              {"interp", "f32[3]", "f32[2]", "one length"});
  check_error([&] { adjit::jit([](Tensor t) { return quantile(t, 1.5); })(m); },
              {"quantile", "q = 1.5", "[0, 1]"});
  check_error([&] { adjit::jit([](Tensor t) { return t + linspace(0, 1, -1); })(m); },
              {"linspace", "num >= 0"});
  check_error([&] { adjit::jit([](Tensor t) { return meshgrid({t}, "yx")[0]; })(m); },
              {"meshgrid", "\"yx\""});
  check_error([&] { adjit::jit([](Tensor t) { return meshgrid({t})[0]; })(m); },
              {"meshgrid", "vectors", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return linalg::matrix_rank(sum(t, {0})); })(m); },
              {"matrix_rank", "f32[3]"});
  check_error([&] { adjit::jit([](Tensor t) { return argsort(sum(t)); })(m); },
              {"argsort", "1 dimension", "f32[]"});
  check_error([&] { adjit::jit([](Tensor t) { return top_k(t, 4).values; })(m); },
              {"top_k", "k = 4", "[0, 3]", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return take_along_axis(t, t, 1); })(m); },
              {"take_along_axis", "integer indices", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return take_along_axis(t, argsort(sum(t, {0})), 1); })(m); },
              {"take_along_axis", "x's rank", "i32[3]", "f32[2,3]"});
  check_error([&] { adjit::jit([](Tensor t) { return take_along_axis(t, argsort(concat({t, t}, 0)), 1); })(m); },
              {"take_along_axis", "i32[4,3]", "broadcast"});
}
