// histogram, histogram_bin_edges, cov and corrcoef: against plain C++
// references (a scan over the bins with the same edges, centered sums in
// long double) and JAX 0.10.2's printed results; their gradients with
// check_grads in both modes; errors.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

// Counts (or weight sums) of x in the bins between consecutive edges, the
// last bin closed, values outside dropped.
Vec histogram_ref(const Vec& x, const Vec& edges, const Vec& weights) {
  Vec counts(edges.size() - 1, 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] >= edges.front() && x[i] <= edges.back())) continue;
    size_t bin = std::upper_bound(edges.begin(), edges.end(), x[i]) - edges.begin() - 1;
    counts[std::min(bin, counts.size() - 1)] += weights.empty() ? 1.0 : weights[i];
  }
  return counts;
}

// The covariance of the rows of x [vars, n] with divisor n - ddof.
Vec cov_ref(const Vec& x, int64_t vars, int64_t n, int64_t ddof) {
  std::vector<long double> mean(vars, 0);
  for (int64_t v = 0; v < vars; ++v) {
    for (int64_t i = 0; i < n; ++i) mean[v] += x[v * n + i];
    mean[v] /= n;
  }
  Vec c;
  for (int64_t a = 0; a < vars; ++a)
    for (int64_t b = 0; b < vars; ++b) {
      long double s = 0;
      for (int64_t i = 0; i < n; ++i) s += (x[a * n + i] - mean[a]) * (x[b * n + i] - mean[b]);
      c.push_back(static_cast<double>(s / (n - ddof)));
    }
  return c;
}

}  // namespace

TEST_CASE("statistics: histogram against a scan over its own edges, and JAX's",
          "[tracer][ops][statistics]") {
  for (DType dtype : {F32, F64, I32})
    for (int64_t bins : {1, 4, 7, 32}) {
      INFO(dtype_name(dtype) << " " << bins << " bins");
      Vec x = map(sine_wave({6, 9}, 0.7, 0.2), [&](double v) {
        return dtype == I32 ? std::round(v * 5) : v * 3;
      });
      x = values(make(x, {6, 9}, dtype));  // as rounded to the dtype
      Vec w = sine_wave({6, 9}, 1.3, 0.5);
      auto f = jit([bins](Tensor t, Tensor weights) {
        auto [hist, edges] = histogram(t, bins);
        auto [in_range, range_edges] = histogram(t, bins, std::pair{-1.0, 1.5}, weights);
        auto [density, _] = histogram(t, bins, std::nullopt, std::nullopt, true);
        return std::vector<Tensor>{hist, edges, in_range, range_edges, density,
                                   histogram_bin_edges(t, bins)};
      });
      std::vector<Array> got = f(make(x, {6, 9}, dtype), make(w, {6, 9}, dtype == F64 ? F64 : F32));
      DType edge_dtype = dtype == I32 ? F32 : dtype;
      REQUIRE(got[1].dtype() == edge_dtype);
      Vec edges = values(got[1]);
      REQUIRE(edges.size() == static_cast<size_t>(bins + 1));
      double lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
      CHECK(edges.front() == lo);
      CHECK(edges.back() == hi);
      for (int64_t i = 0; i < bins; ++i) {
        CHECK(edges[i] < edges[i + 1]);
        CHECK(std::fabs(edges[i] - (lo + (hi - lo) * i / bins)) <= 1e-6 * (1 + std::fabs(hi - lo)));
      }
      CHECK_EXACT("counts", got[0], I32, Shape{bins}, histogram_ref(x, edges, {}));
      CHECK(mismatch(got[5], got[1], 0) == "");
      Vec range_edges = values(got[3]);
      CHECK(range_edges.front() == -1);
      CHECK(range_edges.back() == 1.5);
      CHECK(mismatch(got[2], dtype == F64 ? F64 : F32, {bins}, histogram_ref(x, range_edges, w),
                     1e-5) == "");
      // Density: integrates to 1 over the bins.
      Vec density = values(got[4]);
      double integral = 0;
      for (int64_t i = 0; i < bins; ++i) integral += density[i] * (edges[i + 1] - edges[i]);
      CHECK(std::fabs(integral - 1) <= 1e-5);
    }
  // JAX 0.10.2 (f32): jnp.histogram(a, bins=4), with range (-1, 2) and 3
  // bins (the middle edge 2^-24, as jnp.linspace rounds it), weighted with
  // density, with given edges, and of a constant (widened by 0.5).
  Array a = make({0.3, -1.2, 2.5, 0.3, 1.0, 2.5, -0.7, 0.0, 1.9}, {9}, F32);
  Array w = make({0, 1, 2, 3, 4, 5, 6, 7, 8}, {9}, F32);
  auto jax = jit([](Tensor t, Tensor weights) {
    auto [h4, e4] = histogram(t, 4);
    auto [h3, e3] = histogram(t, 3, std::pair{-1.0, 2.0});
    auto [hw, ew] = histogram(t, 5, std::nullopt, weights, true);
    auto [hc, ec] = histogram(full({3}, 2.0), 4);
    return std::vector<Tensor>{h4, e4, h3, e3, hw, ew, hc, ec};
  });
  std::vector<Array> got = jax(a, w);
  CHECK_EXACT("h4", got[0], I32, Shape{4}, (Vec{2, 3, 1, 3}));
  CHECK_EXACT("e4", got[1], F32, Shape{5},
              (Vec{-1.2000000476837158, -0.27500003576278687, 0.6499999761581421, 1.5750000476837158, 2.5}));
  CHECK_EXACT("h3", got[2], I32, Shape{3}, (Vec{2, 2, 2}));
  CHECK_EXACT("e3", got[3], F32, Shape{4}, (Vec{-1.0, 5.960464477539063e-08, 1.0, 2.0}));
  CHECK(mismatch(got[4], F32, {5},
                 {0.26276275515556335, 0.26276275515556335, 0.26276275515556335, 0.0, 0.5630630254745483},
                 1e-6) == "");
  // (Within an ulp: the edges' lo (1 - s) + hi s may round as one FMA.)
  CHECK(mismatch(got[5], F32, {6},
                 {-1.2000000476837158, -0.46000003814697266, 0.2799999713897705, 1.0199999809265137,
                  1.7599999904632568, 2.5},
                 Tol{1.2e-7, 0}) == "");
  CHECK_EXACT("constant input", got[6], I32, Shape{4}, (Vec{0, 0, 3, 0}));
  CHECK_EXACT("constant edges", got[7], F32, Shape{5}, (Vec{1.5, 1.75, 2, 2.25, 2.5}));
  std::vector<Array> given = jit([](Tensor t, Tensor edges) {
    auto [hist, e] = histogram(t, edges);
    return std::vector<Tensor>{hist, e};
  })(a, make({-1.0, 0.0, 0.3, 3.0}, {4}, F32));
  CHECK_EXACT("given edges", given[0], I32, Shape{3}, (Vec{1, 1, 6}));
  // Values outside the range and NaN are not counted.
  Array outside = jit([](Tensor t) { return histogram(t, 2, std::pair{0.0, 1.0}).hist; })(
      make({-0.5, 0.0, 0.5, 1.0, 1.5, kNaN}, {6}, F32));
  CHECK_EXACT("outside", outside, I32, Shape{2}, (Vec{1, 2}));
}

TEST_CASE("statistics: cov and corrcoef against centered sums, and JAX's",
          "[tracer][ops][statistics]") {
  for (DType dtype : {F32, F64, I32}) {
    INFO(dtype_name(dtype));
    Vec x = map(sine_wave({3, 7}, 0.9, 0.1), [&](double v) { return dtype == I32 ? std::round(v * 9) : v; });
    auto f = jit([](Tensor m) {
      return std::vector<Tensor>{cov(m), cov(m, true, true), cov(m, true, false, 2),
                                 cov(transpose(m, {1, 0}), false), corrcoef(m),
                                 corrcoef(transpose(m, {1, 0}), false)};
    });
    std::vector<Array> got = f(make(x, {3, 7}, dtype));
    DType out = dtype == I32 ? F32 : dtype;
    double tol = dtype == F64 ? 1e-12 : 1e-5;
    CHECK(mismatch(got[0], out, {3, 3}, cov_ref(x, 3, 7, 1), tol) == "");
    CHECK(mismatch(got[1], out, {3, 3}, cov_ref(x, 3, 7, 0), tol) == "");
    CHECK(mismatch(got[2], out, {3, 3}, cov_ref(x, 3, 7, 2), tol) == "");
    CHECK(mismatch(got[3], got[0], tol) == "");
    Vec c = cov_ref(x, 3, 7, 1), r;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 3; ++j) r.push_back(c[i * 3 + j] / std::sqrt(c[i * 4] * c[j * 4]));
    CHECK(mismatch(got[4], out, {3, 3}, r, tol) == "");
    CHECK(mismatch(got[5], got[4], tol) == "");
  }
  // JAX 0.10.2 (f32).
  Array m = make({1, 2, 4, 7, 0.5, -1, 3, 2, 2, 2, 1, 0}, {3, 4}, F32);
  auto jax = jit([](Tensor t) {
    return std::vector<Tensor>{cov(t), corrcoef(t), cov(slice(t, {0, 0}, {1, 3})),
                               corrcoef(reshape(slice(t, {0, 0}, {1, 3}), {3}))};
  });
  std::vector<Array> got = jax(m);
  CHECK(mismatch(got[0], F32, {3, 3},
                 {7.0, 2.9166667461395264, -2.5, 2.9166667461395264, 3.0625, -1.2083333730697632,
                  -2.5, -1.2083333730697632, 0.9166666865348816},
                 1e-6) == "");
  CHECK(mismatch(got[1], F32, {3, 3},
                 {1.0, 0.6299408674240112, -0.9869276285171509, 0.629940927028656, 1.0,
                  -0.7211788892745972, -0.9869275689125061, -0.7211788892745972, 1.0},
                 1e-6) == "");
  CHECK(mismatch(got[2], F32, {}, {2.3333333}, 1e-6) == "");  // one variable: 0-d
  CHECK(mismatch(got[3], F32, {}, {1}, 0) == "");
}

TEST_CASE("ad ops: gradients of histogram's weights, cov and corrcoef, both modes",
          "[ad][ad-ops][statistics]") {
  Array samples = make({0.3, -1.2, 2.5, 0.3, 1.0, 2.5, -0.7, 0.0, 1.9}, {9}, F64);
  Array weights = make({0.5, 1, 2, 3, 4, 5, 6, 7, 8}, {9}, F64);
  expect_grads("histogram's weights",
               FN(histogram(x[0], 4, std::nullopt, x[1], true).hist),
               {samples, weights});
  // JAX 0.10.2: grad of sum(histogram(a, 4, weights=w, density=True)[0] *
  // [1, 2, 3, 4]) with respect to w (f32).
  auto g = grad<1>([](Tensor a, Tensor w) {
    return sum(histogram(a, 4, std::nullopt, w, true).hist * (arange(4, DType::f32) + 1.0));
  });
  CHECK(mismatch(g(make(values(samples), {9}, F32), make({0, 1, 2, 3, 4, 5, 6, 7, 8}, {9}, F32)),
                 F32, {9},
                 {-0.02252253144979477, -0.052552562206983566, 0.03753753751516342,
                  -0.02252253144979477, 0.007507495582103729, 0.03753753751516342,
                  -0.052552562206983566, -0.02252253144979477, 0.03753753751516342},
                 1e-6) == "");
  Array data = make(sine_wave({3, 6}, 0.8, 0.3), {3, 6}, F64);
  expect_grads("cov", FN(cov(x[0])), {data}, 2);
  expect_grads("cov of columns", FN(cov(x[0], false, true)), {data});
  expect_grads("corrcoef", FN(corrcoef(x[0])), {data}, 2);
}

TEST_CASE("statistics: errors name the routine, the arguments and the line",
          "[tracer][ops][statistics][errors]") {
  check_error([] { jit([](Tensor t) { return histogram(t, 0).hist; })(Array::zeros({3})); },
         {"histogram", "bins = 0"});
  check_error([] { jit([](Tensor t) { return histogram(t, 3, std::pair{2.0, 1.0}).hist; })(Array::zeros({3})); },
         {"histogram", "range (2, 1)"});
  check_error([] { jit([](Tensor t) { return histogram(t, 3).hist; })(Array::zeros({0})); },
         {"histogram", "empty f32[0]", "range"});
  check_error([] {
    jit([](Tensor t, Tensor w) { return histogram(t, 3, std::nullopt, w).hist; })(
        Array::zeros({3}), Array::zeros({4}));
  }, {"histogram", "weights f32[4]", "f32[3]"});
  check_error([] { jit([](Tensor t, Tensor e) { return histogram(t, e).hist; })(Array::zeros({3}), Array::zeros({1})); },
         {"histogram", "bin_edges", "f32[1]"});
  check_error([] { jit([](Tensor t) { return cov(t); })(Array::zeros({2, 3, 4})); }, {"cov", "f32[2,3,4]"});
  check_error([] { jit([](Tensor t) { return histogram_bin_edges(t, -1); })(Array::zeros({3})); },
         {"histogram_bin_edges", "bins = -1"});
}
