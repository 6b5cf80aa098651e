// LU factorization (jax.scipy.linalg's lu, lu_factor, lu_solve; lax's
// lu_pivots_to_permutation) and det's derivative, the adjugate: the
// factors against a long-double getrf for tall, square, wide and batched
// matrices in f32 and f64 (in vector lanes and not); JAX 0.10.2's printed
// values; solves in both orientations; gradients in both modes and of
// second order; det's gradient at singular matrices against cofactors
// computed by expansion, where JAX's is zero, and its hessian there
// against the cofactors' exact change; errors.
#include "matrix_reference.h"
#include "test_support.h"

#include <cmath>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;
using namespace adjit::linalg;

namespace {

// getrf in long double: the packed factors, LAPACK's pivots and the
// permutation of the rows.
struct Getrf {
  Matrix lu;
  std::vector<int64_t> pivots, permutation;
};
Getrf getrf_ref(Matrix a) {
  int64_t m = static_cast<int64_t>(a.size()), n = static_cast<int64_t>(a[0].size());
  Getrf out;
  for (int64_t i = 0; i < m; ++i) out.permutation.push_back(i);
  for (int64_t j = 0; j < std::min(m, n); ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < m; ++i)
      if (std::fabs(a[i][j]) > std::fabs(a[p][j])) p = i;
    std::swap(a[j], a[p]);
    std::swap(out.permutation[j], out.permutation[p]);
    out.pivots.push_back(p);
    if (a[j][j] == 0) continue;
    for (int64_t i = j + 1; i < m; ++i) {
      a[i][j] /= a[j][j];
      for (int64_t c = j + 1; c < n; ++c) a[i][c] -= a[i][j] * a[j][c];
    }
  }
  out.lu = a;
  return out;
}

// The cofactor expansion of det: exact for small integer matrices.
long double det_by_expansion(const Matrix& a) {
  size_t n = a.size();
  if (n == 1) return a[0][0];
  long double total = 0;
  for (size_t j = 0; j < n; ++j) {
    Matrix minor;
    for (size_t i = 1; i < n; ++i) {
      std::vector<long double> row;
      for (size_t c = 0; c < n; ++c)
        if (c != j) row.push_back(a[i][c]);
      minor.push_back(row);
    }
    total += (j % 2 ? -1 : 1) * a[0][j] * det_by_expansion(minor);
  }
  return total;
}

// d det / d a[i][j]: the cofactor of (i, j), row-major.
Vec cofactors(const Matrix& a) {
  size_t n = a.size();
  Vec out;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (n == 1) {
        out.push_back(1);
        continue;
      }
      Matrix minor;
      for (size_t r = 0; r < n; ++r) {
        if (r == i) continue;
        std::vector<long double> row;
        for (size_t c = 0; c < n; ++c)
          if (c != j) row.push_back(a[r][c]);
        minor.push_back(row);
      }
      out.push_back(static_cast<double>(((i + j) % 2 ? -1 : 1) * det_by_expansion(minor)));
    }
  return out;
}

double eps_of(DType dtype) { return dtype == F64 ? 0x1p-52 : 0x1p-23; }

}  // namespace

TEST_CASE("lu: factors of tall, square, wide and batched matrices against getrf, in lanes and not",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) {
    auto [p, l, u] = lu(a);
    auto [packed, piv] = lu_factor(a);
    int64_t m = a.shape()[a.rank() - 2];
    return std::vector<Tensor>{p, l, u, packed, piv, lu_pivots_to_permutation(piv, m)};
  });
  // 37 matrices: in vector lanes on a CPU up to 8 rows and columns (whole
  // groups and a remainder), one at a time above.
  const int64_t batch = 37;
  for (DType dtype : {F32, F64})
    for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 3}, {5, 3}, {3, 5}, {8, 8},
                        {9, 9}, {12, 7}, {6, 17}}) {
      INFO(dtype_name(dtype) << " " << m << "x" << n);
      int64_t k = std::min(m, n);
      Vec a = noise(batch * m * n, 0.1 * static_cast<double>(m + 2 * n));
      // A zero column (a zero pivot, left as it is) and a repeated row.
      for (int64_t i = 0; i < m; ++i) a[(5 * m + i) * n + 0] = 0;
      if (m > 1)
        for (int64_t j = 0; j < n; ++j) a[(9 * m + 1) * n + j] = a[(9 * m + 0) * n + j];
      std::vector<Array> got = f(make(a, {batch, m, n}, dtype));
      Vec p = values(got[0]), l = values(got[1]), u = values(got[2]), packed = values(got[3]),
          piv = values(got[4]), perm = values(got[5]);
      REQUIRE(got[0].shape() == Shape{batch, m, m});
      REQUIRE(got[1].shape() == Shape{batch, m, k});
      REQUIRE(got[2].shape() == Shape{batch, k, n});
      REQUIRE(got[4].shape() == Shape{batch, k});
      REQUIRE(got[4].dtype() == I32);
      REQUIRE(got[5].shape() == Shape{batch, m});
      double tol = 40 * eps_of(dtype) * static_cast<double>(std::max(m, n));
      for (int64_t b = 0; b < batch; ++b) {
        INFO("matrix " << b);
        Matrix x = matrix_at(a, b, m, n);
        Getrf want = getrf_ref(matrix_at(values(make(a, {batch, m, n}, dtype)), b, m, n));
        for (int64_t i = 0; i < k; ++i) CHECK(piv[b * k + i] == static_cast<double>(want.pivots[i]));
        for (int64_t i = 0; i < m; ++i) {
          CHECK(perm[b * m + i] == static_cast<double>(want.permutation[i]));
          // p is the permutation's matrix: a = p l u, row i of l u is row
          // perm[i] of a.
          for (int64_t j = 0; j < m; ++j)
            CHECK(p[(b * m + i) * m + j] == (perm[b * m + j] == static_cast<double>(i) ? 1.0 : 0.0));
        }
        long double worst = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            long double lu_ij = 0;
            for (int64_t c = 0; c < k; ++c) lu_ij += l[(b * m + i) * k + c] * u[(b * k + c) * n + j];
            int64_t row = static_cast<int64_t>(perm[b * m + i]);
            worst = std::max(worst, std::fabs(lu_ij - x[row][j]));
            // The packed factors: l below the diagonal, u in and above it.
            double packed_ij = packed[(b * m + i) * n + j];
            if (i > j) CHECK(packed_ij == l[(b * m + i) * k + j]);
            else CHECK(packed_ij == u[(b * k + i) * n + j]);
            if (i > j && j < k) CHECK(std::fabs(packed_ij - static_cast<double>(want.lu[i][j])) <= tol);
          }
        CHECK(static_cast<double>(worst) <= tol);
        // Unit lower triangular with multipliers of magnitude at most 1;
        // upper triangular.
        for (int64_t i = 0; i < m; ++i)
          for (int64_t c = 0; c < k; ++c) {
            double v = l[(b * m + i) * k + c];
            if (i == c) CHECK(v == 1);
            else if (i < c) CHECK(v == 0);
            else CHECK(std::fabs(v) <= 1);
          }
        for (int64_t c = 0; c < k; ++c)
          for (int64_t j = 0; j < c; ++j) CHECK(u[(b * k + c) * n + j] == 0);
      }
    }
}

TEST_CASE("lu: JAX's values, zero pivots, NaN, dtypes and empty matrices", "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) {
    auto [p, l, u] = lu(a);
    return std::vector<Tensor>{p, l, u, lu_factor(a).piv};
  });
  // jax.scipy.linalg.lu and lu_factor (x64) of this matrix print these.
  std::vector<Array> got = f(make({2, 1, 1, 0, 4, 3, 3, 1, 8, 7, 9, 5, 6, 7, 9, 8}, {4, 4}, F64));
  CHECK_EXACT("p", got[0], F64, (Shape{4, 4}), (Vec{0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
  CHECK_ARRAY("l", got[1], F64, (Shape{4, 4}),
              (Vec{1, 0, 0, 0, 0.75, 1, 0, 0, 0.5, -0.28571429, 1, 0, 0.25, -0.42857143,
                   0.33333333, 1}),
              (Tol{1e-8, 1e-8}));
  CHECK_ARRAY("u", got[2], F64, (Shape{4, 4}),
              (Vec{8, 7, 9, 5, 0, 1.75, 2.25, 4.25, 0, 0, -0.85714286, -0.28571429, 0, 0, 0,
                   0.66666667}),
              (Tol{1e-8, 1e-8}));
  CHECK_EXACT("piv", got[3], I32, Shape{4}, (Vec{2, 3, 3, 3}));
  // A zero column is left as it is, without NaN (getf2); integers give f32.
  std::vector<Array> singular = f(make({0, 1, 0, 2}, {2, 2}, I32));
  CHECK_EXACT("p", singular[0], F32, (Shape{2, 2}), (Vec{1, 0, 0, 1}));
  CHECK_EXACT("l", singular[1], F32, (Shape{2, 2}), (Vec{1, 0, 0, 1}));
  CHECK_EXACT("u", singular[2], F32, (Shape{2, 2}), (Vec{0, 1, 0, 2}));
  CHECK_EXACT("piv", singular[3], I32, Shape{2}, (Vec{0, 1}));
  // f16 is factored in f32 and rounded back.
  CHECK_ARRAY("f16", f(make({1, 2, 3, 4}, {2, 2}, F16))[2], F16, (Shape{2, 2}),
              (Vec{3, 4, 0, 2.0 / 3.0}), (Tol{1e-3, 1e-3}));
  Vec with_nan = values(f(make({1, kNaN, 3, 4}, {2, 2}, F64))[2]);
  CHECK(std::isnan(with_nan[3]));
  std::vector<Array> empty = f(Array::zeros({2, 3, 0}));
  CHECK(empty[0].shape() == (Shape{2, 3, 3}));
  CHECK_EXACT("empty p", empty[0], F32, (Shape{2, 3, 3}),
              (Vec{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  CHECK(empty[3].shape() == (Shape{2, 0}));
}

TEST_CASE("lu_solve: both orientations, vectors, batches and broadcasting, against getrs",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a, Tensor b) {
    LuFactorResult factors = lu_factor(a);
    return std::vector<Tensor>{lu_solve(factors, b), lu_solve(factors, b, 1),
                               lu_solve(factors, b, 2)};
  });
  for (DType dtype : {F32, F64})
    for (int64_t n : {1, 3, 8, 13}) {
      INFO(dtype_name(dtype) << " n = " << n);
      const int64_t batch = 19, cols = 2;
      Vec a = noise(batch * n * n, 0.3 * static_cast<double>(n)), b = noise(batch * n * cols, 0.9);
      for (int64_t i = 0; i < batch * n; ++i) a[i * n + (i % n)] += static_cast<double>(n);
      std::vector<Array> got = f(make(a, {batch, n, n}, dtype), make(b, {batch, n, cols}, dtype));
      Vec want, want_transposed;
      for (int64_t m = 0; m < batch; ++m) {
        Matrix x = matrix_at(a, m, n, n), rhs = matrix_at(b, m, n, cols), xt = x;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) xt[i][j] = x[j][i];
        for (const auto& row : solve_ref(x, rhs))
          for (long double v : row) want.push_back(static_cast<double>(v));
        for (const auto& row : solve_ref(xt, rhs))
          for (long double v : row) want_transposed.push_back(static_cast<double>(v));
      }
      Tol tol{100 * eps_of(dtype), 100 * eps_of(dtype)};
      CHECK_ARRAY("a x = b", got[0], dtype, (Shape{batch, n, cols}), want, tol);
      CHECK_ARRAY("a^T x = b", got[1], dtype, (Shape{batch, n, cols}), want_transposed, tol);
      CHECK_ARRAY("trans 2", got[2], dtype, (Shape{batch, n, cols}), want_transposed, tol);
    }
  // A vector b has lu's rank minus one; b's batch broadcasts against lu's.
  auto g = jit([](Tensor a, Tensor b) { return lu_solve(lu_factor(a), b); });
  Array a = make({0, 2, 1, 1}, {2, 2}, F64);
  CHECK_ARRAY("vector", g(a, make({4, 3}, {2}, F64)), F64, Shape{2}, (Vec{1, 2}), (Tol{1e-15, 1e-15}));
  CHECK_ARRAY("batch of b", g(a, make({4, 3, 2, 1}, {2, 2, 1}, F64)), F64, (Shape{2, 2, 1}),
              (Vec{1, 2, 0, 1}), (Tol{1e-15, 1e-15}));
  // Factors given by the caller: those of a above.
  auto h = jit([](Tensor packed, Tensor piv, Tensor b) { return lu_solve({packed, piv}, b); });
  CHECK_ARRAY("given factors", h(make({1, 1, 0, 2}, {2, 2}, F64), make({1, 1}, {2}, I32), make({4, 3}, {2}, F64)),
              F64, Shape{2}, (Vec{1, 2}), (Tol{1e-15, 1e-15}));
}

TEST_CASE("lu_pivots_to_permutation: exchanges in turn, clamped, batched", "[tracer][ops][linalg]") {
  auto f = jit([](Tensor piv) { return lu_pivots_to_permutation(piv, 5); });
  CHECK_EXACT("in turn", f(make({2, 3, 3}, {3}, I32)), I32, Shape{5}, (Vec{2, 3, 1, 0, 4}));
  CHECK_EXACT("batch and i64", f(make({0, 1, 4, 4, 4, 4}, {2, 3}, I64)), I32, (Shape{2, 5}),
              (Vec{0, 1, 4, 3, 2, 4, 0, 1, 3, 2}));
  // Out of [i, size): clamped, as the op's definition says.
  CHECK_EXACT("clamped", f(make({-3, 9}, {2}, I32)), I32, Shape{5}, (Vec{0, 4, 2, 3, 1}));
}

TEST_CASE("ad ops: gradients of lu and lu_solve, both modes and second order",
          "[ad][ad-ops][linalg]") {
  Array square = make(noise(4 * 4, 0.3), {4, 4}, F64);
  Array tall = make(noise(5 * 3, 0.2), {5, 3}, F64), wide = make(noise(3 * 5, 0.4), {3, 5}, F64);
  Array rhs = make(noise(4 * 2, 0.7), {4, 2}, F64);
  for (const Array& matrix : {tall, square, wide}) {
    INFO(matrix.shape()[0] << "x" << matrix.shape()[1]);
    expect_grads("lu's l", FN(lu(x[0]).l), {matrix});
    expect_grads("lu's u", FN(lu(x[0]).u), {matrix});
    expect_grads("lu_factor", FN(lu_factor(x[0]).lu), {matrix});
  }
  expect_grads("lu of a batch", FN(lu_factor(x[0] + x[1]).lu),
               {make(noise(3 * 4 * 4, 0.6), {3, 4, 4}, F64), square});
  expect_grads("lu_solve", FN(lu_solve(lu_factor(x[0]), x[1])), {square, rhs});
  expect_grads("lu_solve transposed", FN(lu_solve(lu_factor(x[0]), x[1], 1)), {square, rhs});
  expect_grads("second order: lu", FN(lu_factor(x[0]).lu), {square}, 2);
  expect_grads("second order: lu of a wide matrix", FN(lu(x[0]).u), {wide}, 2);
  // The permutation matrix has no derivative.
  expect_grads("lu's p", FN(lu(x[0]).p * x[0]), {square});
}

TEST_CASE("det: exact small determinants, and the adjugate as its gradient at singular matrices too",
          "[ad][ad-ops][linalg]") {
  auto f = jit([](Tensor a) { return det(a); });
  CHECK_EXACT("2x2", f(make({3, 8, 4, 6}, {2, 2}, F32)), F32, Shape{}, (Vec{-14}));
  CHECK_EXACT("3x3", f(make({6, 1, 1, 4, -2, 5, 2, 8, 7}, {3, 3}, F32)), F32, Shape{}, (Vec{-306}));
  CHECK_EXACT("1x1 batch", f(make({3, -0.5}, {2, 1, 1}, F64)), F64, Shape{2}, (Vec{3, -0.5}));
  auto gradient = jit(grad([](Tensor a) { return sum(det(a)); }));
  auto tangent = jit([](Tensor a, Tensor t) {
    return std::get<1>(jvp([](Tensor x) { return sum(det(x)); }, std::make_tuple(a), std::make_tuple(t)));
  });
  // Singular matrices of every size: rank n - 1 (a rank-1 adjugate) and
  // lower (a zero one). For n >= 4: a zero pivot last in LU (JAX's
  // formula) and a zero pivot before the last, where JAX's gradient is
  // zero and the true one is not (the SVD then gives it).
  std::vector<Vec> matrices = {
      {0},
      {1, 2, 2, 4},
      {1, 2, 3, 2, 4, 6, 1, 0, 1},
      {1, 2, 3, 2, 4, 6, 3, 6, 9},
      {2, 1, 1, 0, 4, 3, 3, 1, 8, 7, 9, 5, 6, 7, 9, 8},
      {1, 1, 0, 2, 1, 1, 0, 3, 0, 0, 1, 1, 2, 5, 1, 1},
      {1, 2, 3, 4, 2, 4, 6, 8, 1, 0, 1, 0, 0, 1, 1, 5},
      {1, 2, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 3, 1, 0, 0, 1, 0, 2, 0, 1, 1, 1, 1, 1},
  };
  for (DType dtype : {F32, F64})
    for (const Vec& entries : matrices) {
      int64_t n = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(entries.size()))));
      INFO(dtype_name(dtype) << " " << n << "x" << n << " starting " << entries[0] << ", " << entries[1]);
      Matrix a = matrix_at(entries, 0, n, n);
      Vec want = cofactors(a);
      Tol tol{1e3 * eps_of(dtype), 1e3 * eps_of(dtype)};
      CHECK_ARRAY("det", f(make(entries, {n, n}, dtype)), dtype, Shape{},
                  (Vec{static_cast<double>(det_by_expansion(a))}), tol);
      CHECK_ARRAY("gradient", gradient(make(entries, {n, n}, dtype)), dtype, (Shape{n, n}), want, tol);
      // The tangent along each entry's direction is that entry's cofactor.
      for (int64_t e = 0; e < n * n; ++e) {
        Vec direction(n * n, 0.0);
        direction[e] = 1;
        CHECK_ARRAY("tangent", tangent(make(entries, {n, n}, dtype), make(direction, {n, n}, dtype)),
                    dtype, Shape{}, (Vec{want[e]}), tol);
      }
    }
  // A batch mixing regular and singular matrices: each gets its own.
  Vec mixed = {2, 1, 1, 0, 4, 3, 3, 1, 8, 7, 9, 5, 6, 7, 9, 8, 1, 2, 3, 4, 2, 4, 6, 8, 1, 0, 1, 0, 0, 1, 1, 5};
  Vec want = cofactors(matrix_at(mixed, 0, 4, 4));
  Vec second = cofactors(matrix_at(mixed, 1, 4, 4));
  want.insert(want.end(), second.begin(), second.end());
  CHECK_ARRAY("mixed batch", gradient(make(mixed, {2, 4, 4}, F64)), F64, (Shape{2, 4, 4}), want,
              (Tol{1e-12, 1e-12}));
  // check_grads in both modes and to second order (the adjugate's own
  // derivative), at general and at identity matrices (Newton steps on
  // det(F) of a deformation at rest).
  Array identity3 = make({1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3}, F64);
  Array identity5 = make(Vec{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}, {5, 5}, F64);
  for (const Array& matrix : {identity3, identity5, make(noise(25, 0.8), {5, 5}, F64),
                              make(noise(4, 0.2), {2, 2}, F64)}) {
    INFO(matrix.shape()[0] << "x" << matrix.shape()[0]);
    expect_grads("det", FN(det(x[0])), {matrix}, 2);
  }
}

TEST_CASE("det: its second derivative at singular matrices, the cofactors' change",
          "[ad][ad-ops][linalg]") {
  // hessian(det) at (i, j), (k, l) is the change of cofactor (i, j) with
  // a_kl: each cofactor is affine in each single entry, so the central
  // difference of the exact cofactors with step 1 is exact. Rank n - 1 and
  // lower, zero pivots before the last (JAX's hessian is 0 or NaN there),
  // and a regular matrix, alone and in a batch; forward over reverse
  // (hessian) and reverse over forward. (Each compile takes seconds: the
  // SVD, for the singular matrices, is in every rule.)
  std::vector<Vec> matrices = {
      {1, 2, 3, 4, 2, 4, 6, 8, 1, 0, 1, 0, 3, 6, 9, 12.5},  // rank 2
      {1, 2, 3, 4, 2, 4, 6, 8, 1, 0, 1, 0, 0, 1, 1, 5},     // rank 3
      {1, 2, 3, 4, 2, 4, 6, 8, 3, 6, 9, 12, 1, 0, 1, 0},    // rank 2, zero rows in LU
      {2, 1, 1, 0, 4, 3, 3, 1, 8, 7, 9, 5, 6, 7, 9, 8},     // regular
  };
  auto hessian_of_det = jit(hessian([](Tensor a) { return det(a); }));
  auto reverse_over_forward = jit([](Tensor a, Tensor t) {
    return grad([](Tensor x, Tensor d) {
      return std::get<1>(jvp([](Tensor y) { return det(y); }, std::make_tuple(x), std::make_tuple(d)));
    })(a, t);
  });
  auto second = [](const Vec& entries, int64_t n) {
    Vec h(n * n * n * n);
    for (int64_t p = 0; p < n * n; ++p) {
      Vec up = entries, down = entries;
      up[p] += 1;
      down[p] -= 1;
      Vec above = cofactors(matrix_at(up, 0, n, n)), below = cofactors(matrix_at(down, 0, n, n));
      for (int64_t q = 0; q < n * n; ++q) h[q * n * n + p] = (above[q] - below[q]) / 2;
    }
    return h;
  };
  for (const Vec& entries : matrices) {
    int64_t n = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(entries.size()))));
    INFO(n << "x" << n << " starting " << entries[0] << ", " << entries[1] << ", " << entries[2]);
    Vec want = second(entries, n);
    Tol tol{1e-11, 1e-11};
    CHECK_ARRAY("hessian", hessian_of_det(make(entries, {n, n}, F64)), F64, (Shape{n, n, n, n}), want,
                tol);
    // Row p of the hessian: reverse over the tangent along entry p.
    for (int64_t p : {int64_t{0}, n + 2, n * n - 1}) {
      Vec direction(n * n, 0.0);
      direction[p] = 1;
      Vec row(want.begin() + p * n * n, want.begin() + (p + 1) * n * n);
      CHECK_ARRAY("reverse over forward", reverse_over_forward(make(entries, {n, n}, F64),
                                                             make(direction, {n, n}, F64)),
                  F64, (Shape{n, n}), row, tol);
    }
  }
  // A batch of a regular and a singular matrix: each gets its own.
  Vec mixed = matrices[3];
  mixed.insert(mixed.end(), matrices[1].begin(), matrices[1].end());
  auto batched = jit(hessian([](Tensor a) { return sum(det(a)); }));
  Vec want;
  for (int m : {0, 1}) {
    Vec one = second(matrices[m == 0 ? 3 : 1], 4);
    // [2,4,4,2,4,4]: matrix m's block, zeros across matrices.
    for (int64_t q = 0; q < 16; ++q)
      for (int other = 0; other < 2; ++other)
        for (int64_t p = 0; p < 16; ++p) want.push_back(other == m ? one[q * 16 + p] : 0.0);
  }
  CHECK_ARRAY("batch", batched(make(mixed, {2, 4, 4}, F64)), F64, (Shape{2, 4, 4, 2, 4, 4}), want,
              (Tol{1e-11, 1e-11}));
}

TEST_CASE("lu: errors name the op, the shapes and the line", "[tracer][ops][linalg][errors]") {
  check_error([] { jit([](Tensor x) { return lu(x).l; })(Array::zeros({4})); },
              {"lu", "f32[4]", "matrix"});
  check_error([] { jit([](Tensor x) { return lu_factor(x).lu; })(Array::zeros({4})); },
              {"lu_factor", "f32[4]", "matrix"});
  check_error([] {
    jit([](Tensor a, Tensor b) { return lu_solve(lu_factor(a), b); })(Array::zeros({3, 4}),
                                                                     Array::zeros({3}));
  }, {"lu_solve", "f32[3,4]", "square"});
  check_error([] {
    jit([](Tensor a, Tensor p, Tensor b) { return lu_solve({a, p}, b); })(
        Array::zeros({3, 3}), Array::zeros({2}, I32), Array::zeros({3}));
  }, {"lu_solve", "i32[2]", "pivots", "f32[3,3]"});
  check_error([] {
    jit([](Tensor a, Tensor p, Tensor b) { return lu_solve({a, p}, b); })(
        Array::zeros({3, 3}), Array::zeros({3}), Array::zeros({3}));
  }, {"lu_solve", "integer pivots", "f32[3]"});
  check_error([] {
    jit([](Tensor a, Tensor b) { return lu_solve(lu_factor(a), b, 3); })(Array::zeros({3, 3}),
                                                                        Array::zeros({3}));
  }, {"lu_solve", "trans = 3"});
  check_error([] {
    jit([](Tensor a, Tensor b) { return lu_solve(lu_factor(a), b); })(Array::zeros({3, 3}),
                                                                     Array::zeros({4}));
  }, {"lu_solve", "f32[4]", "rows"});
  check_error([] { jit([](Tensor p) { return lu_pivots_to_permutation(p, 2); })(Array::zeros({3}, I32)); },
              {"lu_pivots_to_permutation", "permutation_size = 2", "3 pivots", "i32[3]"});
  check_error([] { jit([](Tensor p) { return lu_pivots_to_permutation(p, 4); })(Array::zeros({3})); },
              {"lu_pivots_to_permutation", "integer", "f32[3]"});
}
