// nonzero, flatnonzero, argwhere, unique and unique_all with JAX's static
// `size`: against plain C++ references (a scan for the nonzero elements, a
// stable sort for the distinct values) for ranks 1 to 3, sizes below, at
// and above the count, every dtype, NaN, -0, empty arrays; against JAX
// 0.10.2's printed results; unique's gradient in both modes; errors.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

// Ints in [0, 4) from a fixed hash: about a quarter are zero, values repeat.
Vec small_ints(int64_t count, int seed) {
  Vec v;
  for (int64_t i = 0; i < count; ++i) v.push_back(static_cast<double>((i * 7 + seed * 13 + (i * i) % 5) % 4));
  return v;
}

// The first `size` indices of each dimension of x's nonzero elements, then
// `fill`.
std::vector<Vec> nonzero_ref(const Vec& x, const Shape& shape, int64_t size, double fill) {
  std::vector<Vec> out(shape.size());
  for (int64_t i = 0; i < count(shape); ++i)
    if (x[i] != 0 && static_cast<int64_t>(out[0].size()) < size) {
      std::vector<int64_t> index = unravel(i, shape);
      for (size_t d = 0; d < shape.size(); ++d) out[d].push_back(static_cast<double>(index[d]));
    }
  for (Vec& indices : out) indices.resize(size, fill);
  return out;
}

// jnp.unique's order: ascending, -0 = +0, NaN last; a stable sort keeps each
// value's first occurrence first.
bool before(double a, double b) {
  if (std::isnan(a)) return false;
  return std::isnan(b) || a < b;
}

struct UniqueRef {
  Vec values, indices, inverse, counts;
  int64_t distinct = 0;  // before padding or truncation to `size`
};

UniqueRef unique_ref(const Vec& x, int64_t size, bool equal_nan) {
  std::vector<int64_t> perm(x.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return before(x[a], x[b]); });
  UniqueRef r;
  r.inverse.assign(x.size(), 0);
  for (size_t k = 0; k < perm.size(); ++k) {
    double v = x[perm[k]];
    bool same = k > 0 && (v == x[perm[k - 1]] ||
                          (equal_nan && std::isnan(v) && std::isnan(x[perm[k - 1]])));
    if (!same) {
      r.values.push_back(v);
      r.indices.push_back(static_cast<double>(perm[k]));
      r.counts.push_back(0);
    }
    r.counts.back() += 1;
    r.inverse[perm[k]] = static_cast<double>(r.values.size() - 1);
  }
  r.distinct = static_cast<int64_t>(r.values.size());
  // Slots past the count: the smallest value and its index (JAX's), count 0.
  double smallest = r.values.empty() ? 0 : r.values[0], first = r.indices.empty() ? 0 : r.indices[0];
  r.values.resize(size, smallest);
  r.indices.resize(size, first);
  r.counts.resize(size, 0);
  return r;
}

}  // namespace

TEST_CASE("static-size routines: nonzero, flatnonzero and argwhere against a scan",
          "[tracer][ops][arrays]") {
  for (Shape shape : {Shape{11}, Shape{3, 5}, Shape{2, 3, 4}})
    for (DType dtype : {F32, F64, I32, I64, I1, F16})
      for (int64_t size : {int64_t{0}, int64_t{3}, count(shape) / 4, count(shape)}) {
        INFO(type_string(dtype, shape) << " size " << size);
        Vec x = small_ints(count(shape), static_cast<int>(size) + 1);
        if (dtype == I1) x = map(x, [](double v) { return v > 1 ? 1.0 : 0.0; });
        auto f = jit([size](Tensor t) {
          std::vector<Tensor> out = nonzero(t, size);
          std::vector<Tensor> filled = nonzero(t, size, -1);
          out.insert(out.end(), filled.begin(), filled.end());
          out.push_back(flatnonzero(t, size, 7));
          out.push_back(argwhere(t, size));
          return out;
        });
        std::vector<Array> got = f(make(x, shape, dtype));
        int rank = static_cast<int>(shape.size());
        std::vector<Vec> zero_filled = nonzero_ref(x, shape, size, 0);
        std::vector<Vec> minus_filled = nonzero_ref(x, shape, size, -1);
        for (int d = 0; d < rank; ++d) {
          CHECK_EXACT("nonzero", got[d], I32, Shape{size}, zero_filled[d]);
          CHECK_EXACT("nonzero, fill -1", got[rank + d], I32, Shape{size}, minus_filled[d]);
        }
        CHECK_EXACT("flatnonzero", got[2 * rank], I32, Shape{size}, nonzero_ref(x, {count(shape)}, size, 7)[0]);
        Vec rows;
        for (int64_t k = 0; k < size; ++k)
          for (int d = 0; d < rank; ++d) rows.push_back(zero_filled[d][k]);
        CHECK_EXACT("argwhere", got[2 * rank + 1], I32, (Shape{size, rank}), rows);
      }
  // NaN is nonzero, -0 is zero; more slots than elements; empty arrays
  // give only fill values (JAX's nonzero ignores fill_value there).
  auto nz = jit([](Tensor t) { return flatnonzero(t, 6, -1); });
  CHECK_EXACT("NaN and -0", nz(make({0, kNaN, -0.0, 1, -kInf}, {5}, F32)), I32, Shape{6},
              (Vec{1, 3, 4, -1, -1, -1}));
  CHECK_EXACT("empty", nz(Array::zeros({0}, F32)), I32, Shape{6}, Vec(6, -1));
  std::vector<Array> empty_2d = jit([](Tensor t) { return nonzero(t, 2); })(Array::zeros({3, 0}, I32));
  REQUIRE(empty_2d.size() == 2);
  CHECK_EXACT("empty, 2-d", empty_2d[1], I32, Shape{2}, (Vec{0, 0}));
  // JAX 0.10.2: jnp.nonzero([[0, 1, 0], [2, 0, 3]], size=5, fill_value=-1).
  std::vector<Array> jax = jit([](Tensor t) { return nonzero(t, 5, -1); })(
      make({0, 1, 0, 2, 0, 3}, {2, 3}, I32));
  CHECK_EXACT("JAX's rows", jax[0], I32, Shape{5}, (Vec{0, 1, 1, -1, -1}));
  CHECK_EXACT("JAX's columns", jax[1], I32, Shape{5}, (Vec{1, 0, 2, -1, -1}));
}

TEST_CASE("static-size routines: unique and unique_all against a stable sort",
          "[tracer][ops][arrays]") {
  for (Shape shape : {Shape{1}, Shape{13}, Shape{4, 6}, Shape{2, 3, 5}})
    for (DType dtype : {F32, F64, I32, I64, F16, I1})
      for (int64_t size : {int64_t{1}, int64_t{3}, int64_t{6}}) {
        INFO(type_string(dtype, shape) << " size " << size);
        Vec x = small_ints(count(shape), static_cast<int>(count(shape)));
        if (dtype == I1) x = map(x, [](double v) { return v > 1 ? 1.0 : 0.0; });
        // Negative values, -0, fractions and NaNs where the dtype has them.
        if (is_floating(dtype))
          for (size_t i = 0; i < x.size(); ++i)
            x[i] = i % 5 == 3 ? kNaN : i % 7 == 2 ? -0.0 : (x[i] - 1.5) * 0.5;
        else if (dtype != I1)
          x = map(x, [](double v) { return v * 3 - 4; });
        auto f = jit([size](Tensor t) {
          auto [values, indices, inverse, counts] = unique_all(t, size);
          return std::vector<Tensor>{unique(t, size), unique(t, size, 9.0),
                                     unique(t, size, std::nullopt, false), values, indices,
                                     inverse, counts};
        });
        std::vector<Array> got = f(make(x, shape, dtype));
        UniqueRef one_nan = unique_ref(x, size, true), nans = unique_ref(x, size, false);
        CHECK_EXACT("unique", got[0], dtype, Shape{size}, one_nan.values);
        Vec filled = one_nan.values;
        for (int64_t k = one_nan.distinct; k < size; ++k) filled[k] = dtype == I1 ? 1 : 9;
        CHECK_EXACT("unique, filled", got[1], dtype, Shape{size}, filled);
        CHECK_EXACT("unique, NaNs distinct", got[2], dtype, Shape{size}, nans.values);
        CHECK_EXACT("unique_all's values", got[3], dtype, Shape{size}, nans.values);
        CHECK_EXACT("unique_all's indices", got[4], I32, Shape{size}, nans.indices);
        CHECK_EXACT("unique_all's inverse", got[5], I32, shape, nans.inverse);
        CHECK_EXACT("unique_all's counts", got[6], I32, Shape{size}, nans.counts);
      }
  // JAX 0.10.2's results, x = [[3, 1], [3, nan], [nan, -0], [0, 2]]:
  // unique(size=7) [-0, 1, 2, 3, nan, -0, -0]; unique_all(size=7):
  // values [-0, 1, 2, 3, nan, nan, -0], indices [5, 1, 7, 0, 3, 4, 5],
  // inverse [[3, 1], [3, 4], [5, 0], [0, 2]], counts [2, 1, 1, 2, 1, 1, 0].
  Array x = make({3, 1, 3, kNaN, kNaN, -0.0, 0, 2}, {4, 2}, F32);
  auto jax = jit([](Tensor t) {
    auto [values, indices, inverse, counts] = unique_all(t, 7);
    return std::vector<Tensor>{unique(t, 7), values, indices, inverse, counts};
  });
  std::vector<Array> got = jax(x);
  CHECK_EXACT("JAX's unique", got[0], F32, Shape{7}, (Vec{-0.0, 1, 2, 3, kNaN, -0.0, -0.0}));
  CHECK(std::signbit(values(got[0])[0]));
  CHECK_EXACT("JAX's values", got[1], F32, Shape{7}, (Vec{-0.0, 1, 2, 3, kNaN, kNaN, -0.0}));
  CHECK_EXACT("JAX's indices", got[2], I32, Shape{7}, (Vec{5, 1, 7, 0, 3, 4, 5}));
  CHECK_EXACT("JAX's inverse", got[3], I32, (Shape{4, 2}), (Vec{3, 1, 3, 4, 5, 0, 0, 2}));
  CHECK_EXACT("JAX's counts", got[4], I32, Shape{7}, (Vec{2, 1, 1, 2, 1, 1, 0}));
  // An empty x: the fill value, zero counts, an empty inverse.
  std::vector<Array> empty = jit([](Tensor t) {
    auto [values, indices, inverse, counts] = unique_all(t, 2, -1.0);
    return std::vector<Tensor>{values, indices, inverse, counts};
  })(Array::zeros({0, 3}, F32));
  CHECK_EXACT("empty values", empty[0], F32, Shape{2}, (Vec{-1, -1}));
  CHECK_EXACT("empty counts", empty[3], I32, Shape{2}, (Vec{0, 0}));
  CHECK(empty[2].shape() == Shape{0, 3});
}

TEST_CASE("ad ops: unique's gradient goes to each value's first occurrence, both modes",
          "[ad][ad-ops][arrays]") {
  Array x = make({0.5, -1.25, 0.5, 2.0, -1.25, 3.5}, {6}, F64);
  // d/dx sum(unique(x, 4) * w): w[k] at the first occurrence of value k
  // (-1.25 at 1, 0.5 at 0, 2.0 at 3, 3.5 at 5).
  auto g = grad<0>([](Tensor t, Tensor w) { return sum(unique(t, 4) * w); });
  CHECK_EXACT("gradient", g(x, make({1, 10, 100, 1000}, {4}, F64)), F64, Shape{6},
              (Vec{10, 1, 0, 100, 0, 1000}));
  // Distinct, well separated values: finite differences keep the order.
  expect_grads("unique", FN(unique(x[0], 5, 0.0)), {make({0.5, -1.25, 2.0, 3.5}, {4}, F64)});
  expect_grads("unique_all's values", FN(unique_all(x[0], 3).values * 2.0),
               {make({3.0, -2.0, 1.0, 7.0}, {2, 2}, F64)});
}

TEST_CASE("static-size routines: errors name the routine, the argument and the line",
          "[tracer][ops][arrays][errors]") {
  check_error([] { jit([](Tensor t) { return nonzero(t, 3)[0]; })(Array::scalar(1.0f)); },
         {"nonzero", "f32[]", "at least one dimension"});
  check_error([] { jit([](Tensor t) { return flatnonzero(t, -2); })(Array::zeros({3})); },
         {"nonzero", "size = -2", "negative"});
  check_error([] { jit([](Tensor t) { return argwhere(t, 3); })(Array::scalar(1.0f)); },
         {"nonzero", "f32[]"});
  check_error([] { jit([](Tensor t) { return unique(t, 2); })(Array::zeros({0})); },
         {"unique", "empty f32[0]", "fill_value"});
  check_error([] { jit([](Tensor t) { return unique_all(t, -1).values; })(Array::zeros({3})); },
         {"unique_all", "size = -1"});
}
