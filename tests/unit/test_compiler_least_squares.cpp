// pinv and lstsq: the four Moore-Penrose conditions (which determine the
// pseudo-inverse) for tall, square, wide, rank-deficient, zero and batched
// matrices in f32 and f64; least squares against the normal equations and
// the minimum-norm solution; JAX 0.10.2's values where the rank is
// deficient (x64, printed); gradients in both modes, of second order, and
// finite where svd's are not; errors.
#include "matrix_reference.h"
#include "test_support.h"

#include <cmath>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;
using namespace adjit::linalg;

namespace {

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix c(a.size(), std::vector<long double>(b[0].size()));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t k = 0; k < b.size(); ++k)
      for (size_t j = 0; j < b[0].size(); ++j) c[i][j] += a[i][k] * b[k][j];
  return c;
}

Matrix transpose_of(const Matrix& a) {
  Matrix t(a[0].size(), std::vector<long double>(a.size()));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[0].size(); ++j) t[j][i] = a[i][j];
  return t;
}

// The largest |x - y| over the entries.
long double distance(const Matrix& x, const Matrix& y) {
  long double d = 0;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = 0; j < x[0].size(); ++j) d = std::max(d, std::fabs(x[i][j] - y[i][j]));
  return d;
}

// "" when p is the pseudo-inverse of a: a p a = a, p a p = p, a p and p a
// symmetric, within tol times the sizes involved.
std::string penrose_violation(const Matrix& a, const Matrix& p, long double tol) {
  Matrix ap = product(a, p), pa = product(p, a);
  long double scale_p = 0;
  for (const auto& row : p)
    for (long double v : row) scale_p = std::max(scale_p, std::fabs(v));
  std::string out;
  auto check = [&](const char* what, long double d, long double bound) {
    if (!(d <= bound)) out += std::string(what) + " off by " + std::to_string(static_cast<double>(d)) + "; ";
  };
  check("a p a = a", distance(product(ap, a), a), tol);
  check("p a p = p", distance(product(pa, p), p), tol * (1 + scale_p * scale_p));
  check("(a p)^T = a p", distance(transpose_of(ap), ap), tol * (1 + scale_p));
  check("(p a)^T = p a", distance(transpose_of(pa), pa), tol * (1 + scale_p));
  return out;
}

}  // namespace

TEST_CASE("least squares: pinv satisfies the Moore-Penrose conditions at every shape and rank",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) { return pinv(a); });
  const int64_t batch = 5;
  const std::vector<std::pair<int64_t, int64_t>> shapes{{1, 1}, {3, 3}, {5, 3}, {3, 5},
                                                        {8, 2}, {2, 9}, {9, 9}, {1, 6}};
  for (DType dtype : {F32, F64})
    for (auto [m, n] : shapes) {
      INFO(dtype_name(dtype) << " " << m << "x" << n);
      Vec a = noise(batch * m * n, 0.3 * m + 0.7 * n);
      // Matrix 1 is zero, matrix 2 of rank 1 (rows multiples of one row),
      // matrix 3 has two equal columns (rank min(m, n - 1)).
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          a[(m + i) * n + j] = 0;
          a[(2 * m + i) * n + j] = a[2 * m * n + j] * (1 + 0.5 * i);
          if (j == n - 1 && n > 1) a[(3 * m + i) * n + j] = a[(3 * m + i) * n];
        }
      Array got = f(make(a, {batch, m, n}, dtype));
      REQUIRE(got.dtype() == dtype);
      REQUIRE(got.shape() == Shape{batch, n, m});
      Vec p = values(got);
      long double tol = dtype == F64 ? 1e-12 : 2e-5;
      for (int64_t b = 0; b < batch; ++b) {
        INFO("matrix " << b);
        CHECK(penrose_violation(matrix_at(a, b, m, n), matrix_at(p, b, n, m), tol * (m + n)) == "");
      }
      for (int64_t i = 0; i < n * m; ++i) CHECK(p[n * m + i] == 0);  // the zero matrix's
    }
}

TEST_CASE("least squares: pinv's cutoff, dtypes, broadcasting of batches and empty matrices",
          "[tracer][ops][linalg]") {
  // diag(1, 1e-3, 1e-9): the default rtol (10 max(m, n) eps) keeps 1e-9 in
  // f64 and drops it in f32; rtol = 1e-2 drops 1e-3 too.
  Vec diag{1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-9};
  CHECK(mismatch(jit([](Tensor a) { return pinv(a); })(make(diag, {3, 3}, F64)), F64, {3, 3},
                 {1, 0, 0, 0, 1e3, 0, 0, 0, 1e9}, 1e-9) == "");
  CHECK(mismatch(jit([](Tensor a) { return pinv(a); })(make(diag, {3, 3}, F32)), F32, {3, 3},
                 {1, 0, 0, 0, 1e3, 0, 0, 0, 0}, 1e-5) == "");
  CHECK(mismatch(jit([](Tensor a) { return pinv(a, 1e-2); })(make(diag, {3, 3}, F64)), F64,
                 {3, 3}, {1, 0, 0, 0, 0, 0, 0, 0, 0}, 1e-12) == "");
  // Integers give f32, f16 is computed in f32 and rounded back.
  Array ints_pinv = jit([](Tensor a) { return pinv(a); })(make({2, 0, 0, 4}, {2, 2}, I32));
  CHECK(mismatch(ints_pinv, F32, {2, 2}, {0.5, 0, 0, 0.25}, 0) == "");
  Array half = jit([](Tensor a) { return pinv(a); })(make({2, 0, 0, 4}, {2, 2}, F16));
  CHECK(mismatch(half, F16, {2, 2}, {0.5, 0, 0, 0.25}, 0) == "");
  // Empty matrices: an empty pseudo-inverse of the transposed shape.
  Array empty = jit([](Tensor a) { return pinv(a); })(Array::zeros({2, 0, 3}));
  CHECK(empty.shape() == Shape{2, 3, 0});
  Array empty_wide = jit([](Tensor a) { return pinv(a); })(Array::zeros({3, 0}));
  CHECK(empty_wide.shape() == Shape{0, 3});
  // Rank 1 [[1, 2], [2, 4], [0, 0]]: a^T / 25 (JAX: [[0.04, 0.08, 0], [0.08, 0.16, 0]]).
  CHECK(mismatch(jit([](Tensor a) { return pinv(a); })(make({1, 2, 2, 4, 0, 0}, {3, 2}, F64)),
                 F64, {2, 3}, {0.04, 0.08, 0, 0.08, 0.16, 0}, 1e-14) == "");
}

TEST_CASE("least squares: lstsq against the normal equations, minimum norm and numpy",
          "[tracer][ops][linalg]") {
  auto solve_ls = jit([](Tensor a, Tensor b) {
    auto [x, residuals, rank, s] = lstsq(a, b);
    return std::vector<Tensor>{x, residuals, rank, s};
  });
  for (DType dtype : {F32, F64})
    for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {6, 3, 2}, {3, 6, 1}, {4, 4, 3}, {9, 2, 1}}) {
      INFO(dtype_name(dtype) << " " << m << "x" << n << ", " << k << " right-hand sides");
      Vec a = noise(m * n, 0.1 * m + n), b = noise(m * k, 2.5 + k);
      std::vector<Array> got = solve_ls(make(a, {m, n}, dtype), make(b, {m, k}, dtype));
      REQUIRE(got[0].shape() == Shape{n, k});
      REQUIRE(got[1].shape() == Shape{k});
      REQUIRE(got[2].dtype() == I32);
      REQUIRE(got[2].shape() == Shape{});
      REQUIRE(got[3].shape() == Shape{std::min(m, n)});
      CHECK(values(got[2])[0] == std::min(m, n));
      Matrix am = matrix_at(a, 0, m, n), bm = matrix_at(b, 0, m, k), x = matrix_at(values(got[0]), 0, n, k);
      Matrix misfit = product(am, x);
      Vec residuals(k, 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j) {
          misfit[i][j] -= bm[i][j];
          residuals[j] += static_cast<double>(misfit[i][j] * misfit[i][j]);
        }
      double tol = dtype == F64 ? 1e-11 : 2e-4;
      // The normal equations a^T (a x - b) = 0 hold at the minimum ...
      Matrix normal = product(transpose_of(am), misfit);
      CHECK(distance(normal, Matrix(n, std::vector<long double>(k))) <= tol);
      CHECK(mismatch(got[1], dtype, {k}, residuals, tol) == "");
      // ... and where m < n, a x = b and x is the minimum-norm solution:
      // in a's row space, orthogonal to its null space, so x = a^T y with
      // y = (a a^T)^-1 b, i.e. a^T (a a^T)^-1 a x = x.
      if (m < n) {
        CHECK(distance(misfit, Matrix(m, std::vector<long double>(k))) <= tol);
        Matrix y = solve_ref(product(am, transpose_of(am)), product(am, x));
        CHECK(distance(product(transpose_of(am), y), x) <= tol);
      }
    }
  // Rank 2 of 3, two right-hand sides: numpy.linalg.lstsq's and JAX's x,
  // rank and singular values (JAX's residuals, [0.8, 0.2]; numpy gives none
  // where the rank is deficient).
  std::vector<Array> got = solve_ls(make({1, 2, 3, 2, 4, 6, 1, 1, 1}, {3, 3}, F64),
                                    make({1, 0, 0, 1, 2, 3}, {3, 2}, F64));
  CHECK(mismatch(got[0], F64, {3, 2},
                 {2.5666666666666667, 3.8, 0.6666666666666667, 1.0, -1.2333333333333333, -1.8},
                 1e-12) == "");
  CHECK(mismatch(got[1], F64, {2}, {0.8, 0.2}, 1e-12) == "");
  CHECK(values(got[2])[0] == 2);
  CHECK(mismatch(got[3], F64, {3}, {8.51978293e+00, 6.42883231e-01, 0}, 1e-8) == "");
  // A vector b gives a vector x and one residual; a zero matrix rank 0 and
  // x = 0 (numpy's; JAX's is NaN), an empty one x = 0 of its width.
  std::vector<Array> vector_b = solve_ls(make({1, 0, 0, 1, 1, 1}, {3, 2}, F32), make({1, 2, 0}, {3}, F32));
  // (a^T a = [[2, 1], [1, 2]], a^T b = [1, 2]: x = [0, 1], a x - b = [-1, -1, 1].)
  CHECK(mismatch(vector_b[0], F32, {2}, {0, 1}, 1e-6) == "");
  CHECK(mismatch(vector_b[1], F32, {1}, {3}, 1e-5) == "");
  std::vector<Array> zero = solve_ls(Array::zeros({3, 2}), make({1, 2, 3}, {3}, F32));
  CHECK(mismatch(zero[0], F32, {2}, {0, 0}, 0) == "");
  CHECK(mismatch(zero[1], F32, {1}, {14}, 0) == "");
  CHECK(values(zero[2])[0] == 0);
  std::vector<Array> empty = solve_ls(Array::zeros({3, 0}), make({1, 2, 3}, {3, 1}, F32));
  CHECK(empty[0].shape() == Shape{0, 1});
  CHECK(mismatch(empty[1], F32, {1}, {14}, 0) == "");
  CHECK(values(empty[2])[0] == 0);
  CHECK(empty[3].shape() == Shape{0});
}

TEST_CASE("ad ops: gradients of pinv and lstsq, both modes and second order",
          "[ad][ad-ops][linalg]") {
  Array tall = make(noise(5 * 3, 0.2), {5, 3}, F64), wide = make(noise(3 * 5, 0.4), {3, 5}, F64);
  Array square = make(noise(4 * 4, 0.6), {4, 4}, F64);
  for (const Array& matrix : {tall, square, wide}) {
    INFO(matrix.shape()[0] << "x" << matrix.shape()[1]);
    expect_grads("pinv", FN(pinv(x[0])), {matrix});
  }
  expect_grads("pinv of a broadcast batch", FN(pinv(x[0] + x[1])),
               {make(noise(2 * 5 * 3, 0.8), {2, 5, 3}, F64), tall});
  expect_grads("pinv of f32", FN(pinv(x[0])), {make(noise(4 * 2, 0.5), {4, 2}, F32)});
  expect_grads("second order: pinv", FN(pinv(x[0])), {tall}, 2);
  expect_grads("second order: pinv of a wide matrix", FN(pinv(x[0]) * pinv(x[0])), {wide}, 2);
  Array b = make(noise(5 * 2, 1.3), {5, 2}, F64), short_b = make(noise(3, 1.9), {3}, F64);
  expect_grads("lstsq's x", FN(lstsq(x[0], x[1]).x), {tall, b});
  expect_grads("lstsq's x, underdetermined", FN(lstsq(x[0], x[1]).x), {wide, short_b});
  expect_grads("lstsq's residuals", FN(lstsq(x[0], x[1]).residuals), {tall, b});
  expect_grads("lstsq's singular values", FN(lstsq(x[0], x[1]).s), {tall, b});
  expect_grads("second order: lstsq", FN(lstsq(x[0], x[1]).residuals), {tall, b}, 2);
}

TEST_CASE("ad ops: pinv's gradients are JAX's where the rank is deficient, never NaN",
          "[ad][ad-ops][linalg]") {
  // Rank 1: finite differences would change the rank, so JAX 0.10.2's
  // (x64) grad and jvp of the same functions are the reference. Through
  // svd both would be NaN (a repeated zero singular value).
  Array a = make({1, 2, 2, 4, 0, 0}, {3, 2}, F64);
  Array c = make({0.5, -1, 2, 1.5, 0.25, -0.75}, {2, 3}, F64);
  auto weighted = [](Tensor a, Tensor c) { return sum(pinv(a) * c); };
  CHECK(mismatch(grad(weighted)(a, c), F64, {3, 2}, {0.004, 0.048, -0.052, -0.024, 0.004, 0.008},
                 1e-14) == "");
  Array t = make({0.3, -0.2, 0.1, 0.7, -0.4, 0.5}, {3, 2}, F64);
  auto [p, dp] = jvp([](Tensor a) { return pinv(a); }, a, t);
  CHECK(mismatch(dp, F64, {2, 3}, {-0.01072, -0.00784, 0.0048, -0.01984, -0.01248, 0.0096},
                 1e-14) == "");
  // The zero matrix: a zero gradient (JAX's).
  CHECK(mismatch(grad(weighted)(Array::zeros({2, 3}, F64), make(values(c), {3, 2}, F64)), F64,
                 {2, 3}, Vec(6, 0.0), 0) == "");
  // lstsq of rank 2 of 3: the gradient of sum(x) is JAX's of sum(pinv(a) b).
  Array deficient = make({1, 2, 3, 2, 4, 6, 1, 1, 1}, {3, 3}, F64);
  Array rhs = make({1, 0, 0, 1, 2, 3}, {3, 2}, F64);
  auto total = [](Tensor a, Tensor b) { return sum(lstsq(a, b).x); };
  CHECK(mismatch(grad(total)(deficient, rhs), F64, {3, 3},
                 {0.5333333333333333, 0.13333333333333333, -0.26666666666666667,
                  -0.26666666666666667, -0.06666666666666667, 0.13333333333333333,
                  -6.366666666666667, -1.6666666666666667, 3.0333333333333333},
                 1e-11) == "");
}

TEST_CASE("least squares: errors name the op, the shapes and the line",
          "[tracer][ops][linalg][errors]") {
  check_error([] { jit([](Tensor x) { return pinv(x); })(Array::zeros({4})); },
         {"pinv", "f32[4]", "matrix"});
  check_error([] { jit([](Tensor x) { return pinv(x, -1.0); })(Array::zeros({2, 2})); },
         {"pinv", "rtol = -1", "negative"});
  check_error([] { jit([](Tensor a, Tensor b) { return lstsq(a, b).x; })(Array::zeros({2, 3, 3}), Array::zeros({3})); },
         {"lstsq", "f32[2,3,3]", "matrix a [m, n]"});
  check_error([] { jit([](Tensor a, Tensor b) { return lstsq(a, b).x; })(Array::zeros({3, 2}), Array::zeros({3, 1, 1})); },
         {"lstsq", "f32[3,1,1]", "vector [m] or a matrix [m, k]"});
  check_error([] { jit([](Tensor a, Tensor b) { return lstsq(a, b).x; })(Array::zeros({3, 2}), Array::zeros({4})); },
         {"lstsq", "f32[4]", "4 rows", "f32[3,2]", "has 3"});
}
