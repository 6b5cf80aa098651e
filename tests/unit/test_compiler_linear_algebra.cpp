// cholesky, triangular_solve, cho_solve, solve, inv, slogdet, det, eigh,
// eigvalsh, qr, svd, svdvals and norm: against plain long-double references
// (Cholesky, substitution, Gaussian elimination with partial pivoting,
// Jacobi rotations, Householder reflections) for sizes 1 to 17, batched and broadcast, vectors
// and matrices of right-hand sides, f32/f64/f16/i32; the triangle a solve
// must not read holding NaN; failures as JAX reports them; gradients in
// both modes and of second order; errors.
#include "matrix_reference.h"
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;
using namespace adjit::linalg;

namespace {

// Deterministic entries in [-1, 1].
Vec wave(int64_t count, double phase) {
  Vec v;
  for (int64_t i = 0; i < count; ++i) v.push_back(std::sin(1.7 * static_cast<double>(i) + phase));
  return v;
}

void append(Vec& flat, const Matrix& m) {
  for (const auto& row : m)
    for (long double x : row) flat.push_back(static_cast<double>(x));
}

// batch x n x n symmetric positive definite: M M^T + n I.
Vec spd(int64_t batch, int64_t n, double phase) {
  Vec m = wave(batch * n * n, phase), out;
  for (int64_t b = 0; b < batch; ++b) {
    Matrix a(n, std::vector<long double>(n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        long double s = i == j ? n : 0;
        for (int64_t k = 0; k < n; ++k) s += m[(b * n + i) * n + k] * m[(b * n + j) * n + k];
        a[i][j] = s;
      }
    append(out, a);
  }
  return out;
}

Matrix cholesky_ref(const Matrix& a) {
  size_t n = a.size();
  Matrix l(n, std::vector<long double>(n, 0));
  for (size_t j = 0; j < n; ++j) {
    long double s = a[j][j];
    for (size_t k = 0; k < j; ++k) s -= l[j][k] * l[j][k];
    l[j][j] = std::sqrt(s);
    for (size_t i = j + 1; i < n; ++i) {
      long double v = a[i][j];
      for (size_t k = 0; k < j; ++k) v -= l[i][k] * l[j][k];
      l[i][j] = v / l[j][j];
    }
  }
  return l;
}

// The determinant's sign and log|det| by elimination with partial pivoting.
std::pair<long double, long double> slogdet_ref(Matrix a) {
  size_t n = a.size();
  long double sign = 1, log_abs = 0;
  for (size_t j = 0; j < n; ++j) {
    size_t p = j;
    for (size_t i = j + 1; i < n; ++i)
      if (std::fabs(a[i][j]) > std::fabs(a[p][j])) p = i;
    if (p != j) std::swap(a[j], a[p]), sign = -sign;
    if (a[j][j] == 0) return {0, -INFINITY};
    sign *= a[j][j] < 0 ? -1 : 1;
    log_abs += std::log(std::fabs(a[j][j]));
    for (size_t i = j + 1; i < n; ++i) {
      long double f = a[i][j] / a[j][j];
      for (size_t c = j; c < n; ++c) a[i][c] -= f * a[j][c];
    }
  }
  return {sign, log_abs};
}

// The eigenvalues (ascending) and eigenvectors (columns) of the symmetric
// part of a, by Jacobi rotations in long double until the off-diagonal
// part vanishes, each time on the largest off-diagonal entry (classical
// Jacobi, where adjit sweeps cyclically).
std::pair<std::vector<long double>, Matrix> eigh_ref(Matrix a) {
  size_t n = a.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j) a[i][j] = a[j][i] = (a[i][j] + a[j][i]) / 2;
  Matrix v(n, std::vector<long double>(n, 0));
  for (size_t i = 0; i < n; ++i) v[i][i] = 1;
  for (int rotation = 0; rotation < 100000; ++rotation) {
    size_t p = 0, q = 1;
    long double largest = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (std::fabs(a[i][j]) > largest) largest = std::fabs(a[i][j]), p = i, q = j;
    if (largest < 1e-30L) break;
    long double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
    long double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
    long double c = 1 / std::sqrt(t * t + 1), s = t * c;
    for (size_t r = 0; r < n; ++r) {
      long double rp = c * a[r][p] - s * a[r][q], rq = s * a[r][p] + c * a[r][q];
      a[r][p] = rp, a[r][q] = rq;
    }
    for (size_t r = 0; r < n; ++r) {
      long double pr = c * a[p][r] - s * a[q][r], qr = s * a[p][r] + c * a[q][r];
      a[p][r] = pr, a[q][r] = qr;
    }
    for (size_t r = 0; r < n; ++r) {
      long double rp = c * v[r][p] - s * v[r][q], rq = s * v[r][p] + c * v[r][q];
      v[r][p] = rp, v[r][q] = rq;
    }
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return a[x][x] < a[y][y]; });
  std::vector<long double> w;
  Matrix sorted(n, std::vector<long double>(n));
  for (size_t k = 0; k < n; ++k) {
    w.push_back(a[order[k]][order[k]]);
    for (size_t r = 0; r < n; ++r) sorted[r][k] = v[r][order[k]];
  }
  return {w, sorted};
}

// The reduced QR of the m x n a by Householder reflections in long double,
// with LAPACK's signs (beta opposite to the diagonal entry; no reflection
// of a column already zero below it): Q is m x k, R k x n.
std::pair<Matrix, Matrix> qr_ref(Matrix a) {
  size_t m = a.size(), n = a[0].size(), k = std::min(m, n);
  std::vector<std::vector<long double>> reflectors;
  std::vector<long double> taus;
  for (size_t j = 0; j < k; ++j) {
    long double tail = 0;
    for (size_t i = j + 1; i < m; ++i) tail += a[i][j] * a[i][j];
    std::vector<long double> v(m, 0);
    v[j] = 1;
    long double tau = 0;
    if (tail > 0) {
      long double alpha = a[j][j], beta = -std::copysign(std::sqrt(alpha * alpha + tail), alpha);
      tau = (beta - alpha) / beta;
      for (size_t i = j + 1; i < m; ++i) v[i] = a[i][j] / (alpha - beta);
    }
    for (size_t c = j; c < n; ++c) {
      long double w = 0;
      for (size_t i = j; i < m; ++i) w += v[i] * a[i][c];
      for (size_t i = j; i < m; ++i) a[i][c] -= tau * v[i] * w;
    }
    reflectors.push_back(v);
    taus.push_back(tau);
  }
  Matrix q(m, std::vector<long double>(k, 0)), r(k, std::vector<long double>(n, 0));
  for (size_t i = 0; i < k; ++i) {
    q[i][i] = 1;
    for (size_t c = i; c < n; ++c) r[i][c] = a[i][c];
  }
  for (size_t j = k; j-- > 0;)
    for (size_t c = 0; c < k; ++c) {
      long double w = 0;
      for (size_t i = j; i < m; ++i) w += reflectors[j][i] * q[i][c];
      for (size_t i = j; i < m; ++i) q[i][c] -= taus[j] * reflectors[j][i] * w;
    }
  return {q, r};
}

// The singular values (descending) and right singular vectors (columns) of
// a, from the eigendecomposition of a^T a in long double: accurate to
// about 1e-19 |a|^2 / s, far below f64's rounding for the matrices below.
std::pair<std::vector<long double>, Matrix> svd_ref(const Matrix& a) {
  size_t m = a.size(), n = a[0].size();
  Matrix gram(n, std::vector<long double>(n, 0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t r = 0; r < m; ++r) gram[i][j] += a[r][i] * a[r][j];
  auto [w, v] = eigh_ref(gram);
  std::vector<long double> s;
  Matrix vectors(n, std::vector<long double>(n));
  for (size_t k = 0; k < n; ++k) {
    s.push_back(std::sqrt(std::max(0.0L, w[n - 1 - k])));
    for (size_t r = 0; r < n; ++r) vectors[r][k] = v[r][n - 1 - k];
  }
  return {s, vectors};
}

// A general matrix that needs pivoting: small (or zero) leading entries.
Vec general(int64_t batch, int64_t n, double phase) {
  Vec v = wave(batch * n * n, phase);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i) {
      v[(b * n + i) * n + i] *= 0.01;
      v[(b * n + i) * n + (n - 1 - i)] += 2;
    }
  return v;
}

// The m x n shapes that qr and svd are tested on: tall, square and wide, in
// vector lanes on a CPU up to 8 x 8 and one matrix at a time beyond.
const std::pair<int64_t, int64_t> kFactorShapes[] = {{1, 1}, {2, 2}, {3, 2},  {2, 3},  {5, 3},
                                                     {3, 5}, {6, 6}, {8, 8},  {8, 1},  {1, 8},
                                                     {9, 9}, {17, 5}, {5, 17}, {12, 12}};

Tol tolerance(DType dtype) { return dtype == F64 ? Tol{1e-11, 1e-11} : Tol{2e-4, 2e-4}; }

}  // namespace

TEST_CASE("linear algebra: cholesky of sizes 1 to 17 against the reference",
          "[tracer][ops][linalg]") {
  for (DType dtype : {F32, F64})
    for (int64_t n : {1, 2, 3, 4, 5, 8, 17}) {
      INFO(dtype_name(dtype) << " n = " << n);
      const int64_t batch = 3;
      Vec a = spd(batch, n, 0.3 * n);
      Vec want;
      for (int64_t b = 0; b < batch; ++b) append(want, cholesky_ref(matrix_at(a, b, n, n)));
      Array got = jit([](Tensor x) { return cholesky(x); })(make(a, {batch, n, n}, dtype));
      CHECK_ARRAY("L", got, dtype, (Shape{batch, n, n}), want, tolerance(dtype));
    }
}

TEST_CASE("linear algebra: cholesky symmetrizes its input and reports failures with NaN",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor x) { return cholesky(x); });
  // Only the symmetric part counts: adding an antisymmetric part changes nothing.
  Vec a = spd(1, 4, 0.5), skewed = a;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < i; ++j) skewed[i * 4 + j] += 0.25, skewed[j * 4 + i] -= 0.25;
  Array l = f(make(a, {4, 4}, F64));
  CHECK(mismatch(f(make(skewed, {4, 4}, F64)), l, 1e-14) == "");
  // Indefinite, semidefinite and NaN matrices give NaN in the lower
  // triangle and zeros above it, as JAX's; the other matrices of the batch
  // are unaffected.
  Vec batch = spd(1, 2, 0.1);
  append(batch, Matrix{{1, 2}, {2, 1}});
  append(batch, Matrix{{1, 1}, {1, 1}});
  append(batch, Matrix{{NAN, 0}, {0, 1}});
  Array got = f(make(batch, {4, 2, 2}, F64));
  Vec want;
  append(want, cholesky_ref(matrix_at(batch, 0, 2, 2)));
  for (int m = 1; m < 4; ++m) append(want, Matrix{{kNaN, 0}, {kNaN, kNaN}});
  CHECK_ARRAY("batch", got, F64, (Shape{4, 2, 2}), want, (Tol{1e-14, 1e-14}));
  // 3 x 3, indefinite at the second pivot (JAX 0.10.2: NaN below, 0 above).
  CHECK_EXACT("3x3", f(make({4, 2, 1, 2, -1, 0, 1, 0, 3}, {3, 3}, F64)), F64, (Shape{3, 3}),
              (Vec{kNaN, 0, 0, kNaN, kNaN, 0, kNaN, kNaN, kNaN}));
  // Integers give f32; f16 is computed in f32 and rounded back; 0x0 is empty.
  Array ints = jit([](Tensor x) { return cholesky(x); })(make({4, 2, 2, 5}, {2, 2}, I32));
  CHECK_ARRAY("i32", ints, F32, (Shape{2, 2}), (Vec{2, 0, 1, 2}), (Tol{1e-6, 1e-6}));
  Array halves = f(make({4, 2, 2, 5}, {2, 2}, F16));
  CHECK_ARRAY("f16", halves, F16, (Shape{2, 2}), (Vec{2, 0, 1, 2}), kExact);
  CHECK(f(Array::zeros({0, 0})).shape() == Shape{0, 0});
}

TEST_CASE("linear algebra: triangular_solve in every orientation, never reading the other triangle",
          "[tracer][ops][linalg]") {
  const int64_t n = 6, k = 3, batch = 2;
  for (bool lower : {true, false})
    for (bool transpose : {false, true})
      for (bool unit : {false, true}) {
        INFO((lower ? "lower" : "upper") << (transpose ? " transposed" : "")
                                         << (unit ? " unit diagonal" : ""));
        // The unread triangle (and a unit diagonal) hold NaN.
        Vec a = wave(batch * n * n, 0.7), clean = a;
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double& x = a[(b * n + i) * n + j];
              bool read = i == j ? !unit : (lower ? i > j : i < j);
              if (i == j && !unit) x += 3;
              clean[(b * n + i) * n + j] = x;
              if (!read) x = NAN;
            }
        Vec rhs = wave(batch * n * k, 2.1);
        auto f = jit([=](Tensor x, Tensor y) { return triangular_solve(x, y, lower, transpose, unit); });
        for (DType dtype : {F32, F64}) {
          Array got = f(make(a, {batch, n, n}, dtype), make(rhs, {batch, n, k}, dtype));
          Vec want;
          for (int64_t b = 0; b < batch; ++b)
            append(want, triangular_ref(matrix_at(clean, b, n, n), matrix_at(rhs, b, n, k), lower,
                                        transpose, unit));
          CHECK_ARRAY(dtype_name(dtype), got, dtype, (Shape{batch, n, k}), want, tolerance(dtype));
        }
        // Vectors (rank one less than a's, jax.scipy.linalg's rule).
        Vec v = wave(batch * n, 0.2);
        Array got = f(make(a, {batch, n, n}, F64), make(v, {batch, n}, F64));
        Vec want;
        for (int64_t b = 0; b < batch; ++b)
          append(want, triangular_ref(matrix_at(clean, b, n, n), matrix_at(v, b, n, 1), lower,
                                      transpose, unit));
        CHECK_ARRAY("vector", got, F64, (Shape{batch, n}), want, tolerance(F64));
      }
}

TEST_CASE("linear algebra: solve with pivoting for sizes 1 to 17, vectors and batches",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a, Tensor b) { return solve(a, b); });
  for (DType dtype : {F32, F64})
    for (int64_t n : {1, 2, 3, 4, 7, 9, 17}) {
      INFO(dtype_name(dtype) << " n = " << n);
      const int64_t batch = 2, k = 3;
      Vec a = general(batch, n, 0.1 * n), b = wave(n * k, 1.3);
      // b [n, k] broadcasts over a's batch.
      Array got = f(make(a, {batch, n, n}, dtype), make(b, {n, k}, dtype));
      Vec want;
      for (int64_t i = 0; i < batch; ++i)
        append(want, solve_ref(matrix_at(a, i, n, n), matrix_at(b, 0, n, k)));
      CHECK_ARRAY("X", got, dtype, (Shape{batch, n, k}), want, tolerance(dtype));
      // A vector b: rank 1 only (numpy 2's rule).
      Vec v = wave(n, 0.4);
      Array x = f(make(a, {batch, n, n}, dtype), make(v, {n}, dtype));
      Vec want_v;
      for (int64_t i = 0; i < batch; ++i)
        append(want_v, solve_ref(matrix_at(a, i, n, n), matrix_at(v, 0, n, 1)));
      CHECK_ARRAY("x", x, dtype, (Shape{batch, n}), want_v, tolerance(dtype));
    }
  // A zero first pivot needs a row exchange.
  Array swap = f(make({0, 1, 1, 0}, {2, 2}, F64), make({3, 5}, {2}, F64));
  CHECK_EXACT("permutation", swap, F64, Shape{2}, (Vec{5, 3}));
  // Singular: not finite, as LAPACK's getrs gives.
  Array singular = f(make({1, 2, 2, 4}, {2, 2}, F64), make({1, 1}, {2}, F64));
  for (double x : values(singular)) CHECK(!std::isfinite(x));
  // Integers give f32; bf16 is computed in f32.
  CHECK_ARRAY("i32", f(make({2, 0, 0, 4}, {2, 2}, I32), make({2, 2}, {2}, I32)), F32, Shape{2},
              (Vec{1, 0.5}), kExact);
  CHECK_ARRAY("bf16", f(make({2, 0, 0, 4}, {2, 2}, BF16), make({2, 2}, {2}, BF16)), BF16,
              Shape{2}, (Vec{1, 0.5}), kExact);
}

TEST_CASE("linear algebra: slogdet and det of sizes 0 to 17, in lanes and not",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) {
    auto [sign, logabsdet] = slogdet(a);
    return std::vector<Tensor>{sign, logabsdet, det(a)};
  });
  // 37 matrices: in vector lanes on a CPU up to 8 rows (whole groups and a
  // remainder), one at a time above.
  const int64_t batch = 37;
  for (DType dtype : {F32, F64})
    for (int64_t n : {1, 2, 3, 5, 8, 9, 17}) {
      INFO(dtype_name(dtype) << " n = " << n);
      Vec a = general(batch, n, 0.2 * n);
      // Negated rows flip the sign; a repeated row makes a singular matrix.
      for (int64_t j = 0; j < n; ++j) a[(3 * n + 0) * n + j] *= -1;
      if (n > 1)
        for (int64_t j = 0; j < n; ++j) a[(7 * n + 1) * n + j] = a[(7 * n + 0) * n + j];
      std::vector<Array> got = f(make(a, {batch, n, n}, dtype));
      Vec sign, log_abs, determinant;
      for (int64_t b = 0; b < batch; ++b) {
        auto [s, l] = slogdet_ref(matrix_at(a, b, n, n));
        sign.push_back(static_cast<double>(s));
        log_abs.push_back(static_cast<double>(l));
        determinant.push_back(static_cast<double>(s * std::exp(l)));
      }
      CHECK_ARRAY("sign", got[0], dtype, Shape{batch}, sign, kExact);
      Vec got_log = values(got[1]);
      for (int64_t b = 0; b < batch; ++b) {
        INFO("matrix " << b);
        if (std::isinf(log_abs[b]))
          // Elimination in floating point may leave a rounding error for a
          // zero pivot: very negative, or -inf.
          CHECK(got_log[b] < (dtype == F64 ? -25 : -8));
        else
          CHECK(std::fabs(got_log[b] - log_abs[b]) <= tolerance(dtype).abs * (1 + std::fabs(log_abs[b])));
      }
      if (n > 1) CHECK(sign[7] == 0);
      CHECK(std::count(sign.begin(), sign.end(), -1.0) > 0);
      Vec got_det = values(got[2]);
      for (int64_t b = 0; b < batch; ++b)
        if (sign[b] != 0)
          CHECK(std::fabs(got_det[b] - determinant[b]) <=
                tolerance(dtype).abs * 10 * (1 + std::fabs(determinant[b])));
    }
  // Exact for small integers, -inf for a singular matrix, NaN in NaN out;
  // integers give f32; 0x0 has determinant 1.
  // A zero column does not divide by its zero pivot (LAPACK's getf2).
  std::vector<Array> exact = f(make({2, 1, 1, 3, 0, 1, 1, 0, 1, 2, 2, 4, 0, 1, 0, 0, NAN, 0, 0, 1},
                                    {5, 2, 2}, F64));
  CHECK_EXACT("sign", exact[0], F64, Shape{5}, (Vec{1, -1, 0, 0, kNaN}));
  CHECK_ARRAY("log|det|", exact[1], F64, Shape{5},
              (Vec{std::log(5.0), 0, -INFINITY, -INFINITY, kNaN}), (Tol{1e-15, 1e-15}));
  CHECK_ARRAY("det", exact[2], F64, Shape{5}, (Vec{5, -1, 0, 0, kNaN}), (Tol{1e-15, 1e-15}));
  CHECK_ARRAY("i32", f(make({2, 1, 1, 3}, {2, 2}, I32))[2], F32, Shape{}, (Vec{5}), (Tol{1e-6, 1e-6}));
  CHECK_EXACT("0x0", f(Array::zeros({2, 0, 0}))[2], F32, Shape{2}, (Vec{1, 1}));
  // log|det| of a matrix whose determinant overflows f32 (1e4^17).
  Vec big = general(1, 17, 0.3);
  for (double& x : big) x *= 1e4;
  auto [big_sign, big_log] = slogdet_ref(matrix_at(big, 0, 17, 17));
  std::vector<Array> huge = f(make(big, {17, 17}, F32));
  CHECK(values(huge[1])[0] == Approx(static_cast<double>(big_log)).epsilon(1e-5));
  CHECK(values(huge[0])[0] == static_cast<double>(big_sign));
  CHECK(std::isinf(values(huge[2])[0]));
}

TEST_CASE("linear algebra: eigh of sizes 1 to 17 against the reference, in lanes and not",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) {
    auto [w, v] = eigh(a);
    return std::vector<Tensor>{w, v, eigvalsh(a)};
  });
  // 37 matrices: in vector lanes on a CPU up to 8 rows, one at a time above.
  const int64_t batch = 37;
  for (DType dtype : {F32, F64})
    for (int64_t n : {1, 2, 3, 4, 6, 8, 9, 17}) {
      INFO(dtype_name(dtype) << " n = " << n);
      // Not symmetric: eigh reads its symmetric part.
      Vec a = noise(batch * n * n, 0.3 * n);
      // A diagonal matrix (no rotation at all) and a zero matrix.
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          a[(2 * n + i) * n + j] = i == j ? std::cos(3.0 * i) : 0, a[(4 * n + i) * n + j] = 0;
      std::vector<Array> got = f(make(a, {batch, n, n}, dtype));
      Vec got_w = values(got[0]), got_v = values(got[1]);
      CHECK(mismatch(got[2], got[0], 0) == "");
      double tol = dtype == F64 ? 1e-12 : 2e-5;
      for (int64_t b = 0; b < batch; ++b) {
        INFO("matrix " << b);
        auto [w, v] = eigh_ref(matrix_at(a, b, n, n));
        for (int64_t k = 0; k < n; ++k) {
          CHECK(std::fabs(got_w[b * n + k] - static_cast<double>(w[k])) <= tol * (1 + std::fabs(w[k])));
          if (k > 0) CHECK(got_w[b * n + k] >= got_w[b * n + k - 1]);
          // Each eigenvector up to its sign, within the bound of its
          // eigenvalue's distance to the others (Davis-Kahan): rounding
          // of the order of epsilon |S| turns it by that over the gap.
          // The zero matrix's vectors need only be orthonormal.
          if (b == 4) continue;
          long double gap = INFINITY;
          for (int64_t j = 0; j < n; ++j)
            if (j != k) gap = std::min(gap, std::fabs(w[j] - w[k]));
          long double dot = 0;
          for (int64_t r = 0; r < n; ++r) dot += got_v[(b * n + r) * n + k] * v[r][k];
          for (int64_t r = 0; r < n; ++r)
            CHECK(std::fabs(got_v[(b * n + r) * n + k] - static_cast<double>((dot < 0 ? -1 : 1) * v[r][k])) <=
                  tol * n / std::min(1.0L, gap));
        }
        // V^T V = I.
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double d = 0;
            for (int64_t r = 0; r < n; ++r) d += got_v[(b * n + r) * n + i] * got_v[(b * n + r) * n + j];
            CHECK(std::fabs(d - (i == j)) <= 10 * tol);
          }
      }
    }
  // NaN and infinite entries give NaN matrices of results, the others of the
  // batch unaffected; entries near f32's largest are scaled, not squared;
  // integers give f32; 0x0 is empty.
  Vec bad{1, 2, 2, 1, NAN, 0, 0, 1, INFINITY, 0, 0, 1, 3e37, 1e37, 1e37, 3e37};
  std::vector<Array> got = f(make(bad, {4, 2, 2}, F32));
  Vec w = values(got[0]), v = values(got[1]);
  CHECK(w[0] == Approx(-1).epsilon(1e-6));
  CHECK(w[1] == Approx(3).epsilon(1e-6));
  for (int i = 2; i < 6; ++i) CHECK(std::isnan(w[i]));
  for (int i = 4; i < 12; ++i) CHECK(std::isnan(v[i]));
  CHECK(w[6] == Approx(2e37).epsilon(1e-6));
  CHECK(w[7] == Approx(4e37).epsilon(1e-6));
  CHECK(std::fabs(std::fabs(v[12]) - std::sqrt(0.5)) < 1e-6);
  CHECK_ARRAY("i32", f(make({2, 0, 0, 1}, {2, 2}, I32))[0], F32, Shape{2}, (Vec{1, 2}), kExact);
  CHECK(f(Array::zeros({3, 0, 0}))[1].shape() == Shape{3, 0, 0});
}

TEST_CASE("linear algebra: qr of tall, square and wide matrices against the reference, in lanes and not",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) {
    auto [q, r] = qr(a);
    return std::vector<Tensor>{q, r};
  });
  const int64_t batch = 37;
  for (DType dtype : {F32, F64})
    for (auto [m, n] : kFactorShapes) {
      INFO(dtype_name(dtype) << " " << m << "x" << n);
      int64_t k = std::min(m, n);
      Vec a = noise(batch * m * n, 0.1 * m + 0.7 * n);
      // A zero matrix, and one whose first column is zero below its diagonal
      // (no reflection: R keeps its sign).
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          a[(2 * m + i) * n + j] = 0;
          if (j == 0 && i > 0) a[(3 * m + i) * n + j] = 0;
        }
      a[3 * m * n] = -std::fabs(a[3 * m * n]) - 0.5;
      std::vector<Array> got = f(make(a, {batch, m, n}, dtype));
      REQUIRE(got[0].shape() == Shape{batch, m, k});
      REQUIRE(got[1].shape() == Shape{batch, k, n});
      Vec got_q = values(got[0]), got_r = values(got[1]);
      double tol = dtype == F64 ? 1e-12 : 3e-5;
      for (int64_t b = 0; b < batch; ++b) {
        INFO("matrix " << b);
        Matrix input = matrix_at(a, b, m, n);
        auto [q, r] = qr_ref(input);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j)
            CHECK(std::fabs(got_q[(b * m + i) * k + j] - static_cast<double>(q[i][j])) <= tol * std::max<int64_t>(m, n));
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double entry = got_r[(b * k + i) * n + j];
            if (j < i)
              CHECK(entry == 0);
            else
              CHECK(std::fabs(entry - static_cast<double>(r[i][j])) <= tol * std::max<int64_t>(m, n));
          }
        // Q^T Q = I and Q R = A.
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < k; ++j) {
            double d = 0;
            for (int64_t row = 0; row < m; ++row) d += got_q[(b * m + row) * k + i] * got_q[(b * m + row) * k + j];
            CHECK(std::fabs(d - (i == j)) <= 10 * tol);
          }
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double product = 0;
            for (int64_t c = 0; c < k; ++c) product += got_q[(b * m + i) * k + c] * got_r[(b * k + c) * n + j];
            CHECK(std::fabs(product - static_cast<double>(input[i][j])) <= 10 * tol);
          }
      }
      CHECK(got_r[3 * k * n] == Approx(a[3 * m * n]).epsilon(1e-6));
    }
  // A NaN reaches the factors of its own matrix only; entries near f32's
  // largest are scaled, not squared; integers give f32; empty shapes.
  Vec bad{3, 4, NAN, 1, 3e37, 4e37};
  std::vector<Array> got = f(make(bad, {3, 2, 1}, F32));
  Vec q = values(got[0]), r = values(got[1]);
  CHECK(q[0] == Approx(-0.6).epsilon(1e-6));
  CHECK(q[1] == Approx(-0.8).epsilon(1e-6));
  CHECK(r[0] == Approx(-5).epsilon(1e-6));
  CHECK((std::isnan(q[2]) && std::isnan(q[3]) && std::isnan(r[1])));
  CHECK(q[4] == Approx(-0.6).epsilon(1e-6));
  CHECK(r[2] == Approx(-5e37).epsilon(1e-6));
  CHECK_ARRAY("i32", f(make({0, 2, 3, 0}, {2, 2}, I32))[1], F32, (Shape{2, 2}), (Vec{-3, 0, 0, -2}), kExact);
  CHECK(f(Array::zeros({3, 0, 4}))[0].shape() == Shape{3, 0, 0});
  CHECK(f(Array::zeros({3, 0, 4}))[1].shape() == Shape{3, 0, 4});
  CHECK(f(Array::zeros({4, 0}))[0].shape() == Shape{4, 0});
  CHECK(f(Array::zeros({0, 5, 3}))[1].shape() == Shape{0, 3, 3});
}

TEST_CASE("linear algebra: svd of tall, square and wide matrices against the reference, in lanes and not",
          "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) {
    auto [u, s, vh] = svd(a);
    return std::vector<Tensor>{u, s, vh, svdvals(a)};
  });
  const int64_t batch = 37;
  for (DType dtype : {F32, F64})
    for (auto [m, n] : kFactorShapes) {
      INFO(dtype_name(dtype) << " " << m << "x" << n);
      int64_t k = std::min(m, n);
      Vec a = noise(batch * m * n, 0.3 * m + 0.1 * n);
      // A zero matrix and one of rank 1 (a repeated row): zero singular
      // values, whose singular vectors are completed.
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          a[(2 * m + i) * n + j] = 0, a[(3 * m + i) * n + j] = a[3 * m * n + j] * (1 + i);
      std::vector<Array> got = f(make(a, {batch, m, n}, dtype));
      REQUIRE(got[0].shape() == Shape{batch, m, k});
      REQUIRE(got[1].shape() == Shape{batch, k});
      REQUIRE(got[2].shape() == Shape{batch, k, n});
      CHECK(mismatch(got[3], got[1], 0) == "");
      Vec u = values(got[0]), sv = values(got[1]), vh = values(got[2]);
      double tol = dtype == F64 ? 1e-12 : 3e-5;
      for (int64_t b = 0; b < batch; ++b) {
        INFO("matrix " << b);
        Matrix input = matrix_at(a, b, m, n);
        // The reference from the side with fewer columns: a or a^T.
        Matrix narrow = input;
        if (m < n) {
          narrow.assign(n, std::vector<long double>(m));
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) narrow[j][i] = input[i][j];
        }
        auto [s_ref, vectors] = svd_ref(narrow);
        for (int64_t j = 0; j < k; ++j) {
          // (The reference's zero singular values are the square roots of
          // rounding errors: the rank-1 matrix's are checked below.)
          if (b != 3 || j == 0)
            CHECK(std::fabs(sv[b * k + j] - static_cast<double>(s_ref[j])) <= tol * (1 + s_ref[0]));
          if (j > 0) CHECK(sv[b * k + j] <= sv[b * k + j - 1]);
          // The singular vector of the narrow side (v, or u where m < n)
          // up to its sign, within the bound of its gap to the others.
          if (b == 2 || b == 3) continue;
          long double gap = INFINITY;
          for (int64_t i = 0; i < k; ++i)
            if (i != j) gap = std::min(gap, std::fabs(s_ref[i] - s_ref[j]));
          auto got_vector = [&](int64_t r) {
            return m < n ? u[(b * m + r) * k + j] : vh[(b * k + j) * n + r];
          };
          long double dot = 0;
          for (int64_t r = 0; r < k; ++r) dot += got_vector(r) * vectors[r][j];
          for (int64_t r = 0; r < k; ++r)
            CHECK(std::fabs(got_vector(r) - static_cast<double>((dot < 0 ? -1 : 1) * vectors[r][j])) <=
                  tol * k / std::min(1.0L, gap));
        }
        // Orthonormal u's columns and vh's rows, zero singular values
        // included; u diag(s) vh = a.
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < k; ++j) {
            double uu = 0, vv = 0;
            for (int64_t r = 0; r < m; ++r) uu += u[(b * m + r) * k + i] * u[(b * m + r) * k + j];
            for (int64_t r = 0; r < n; ++r) vv += vh[(b * k + i) * n + r] * vh[(b * k + j) * n + r];
            CHECK(std::fabs(uu - (i == j)) <= 10 * tol);
            CHECK(std::fabs(vv - (i == j)) <= 10 * tol);
          }
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double product = 0;
            for (int64_t c = 0; c < k; ++c) product += u[(b * m + i) * k + c] * sv[b * k + c] * vh[(b * k + c) * n + j];
            CHECK(std::fabs(product - static_cast<double>(input[i][j])) <= 10 * tol * (1 + s_ref[0]));
          }
      }
      for (int64_t j = 0; j < k; ++j) CHECK(sv[2 * k + j] == 0);
      for (int64_t j = 1; j < k; ++j) CHECK(std::fabs(sv[3 * k + j]) <= 10 * tol * sv[3 * k]);
    }
  // NaN and infinite entries give NaN results for their matrix only;
  // entries near f32's largest are scaled, not squared; integers give f32;
  // empty shapes.
  Vec bad{3, 0, 0, 4, NAN, 0, 0, 1, 0, INFINITY, 1, 0, 3e37, 0, 0, 4e37};
  std::vector<Array> got = f(make(bad, {4, 2, 2}, F32));
  Vec sv = values(got[1]), u = values(got[0]);
  CHECK(sv[0] == Approx(4).epsilon(1e-6));
  CHECK(sv[1] == Approx(3).epsilon(1e-6));
  for (int i = 2; i < 6; ++i) CHECK(std::isnan(sv[i]));
  for (int i = 4; i < 12; ++i) CHECK(std::isnan(u[i]));
  CHECK(sv[6] == Approx(4e37).epsilon(1e-6));
  CHECK(sv[7] == Approx(3e37).epsilon(1e-6));
  CHECK_ARRAY("i32", f(make({0, 2, 3, 0}, {2, 2}, I32))[1], F32, Shape{2}, (Vec{3, 2}), kExact);
  CHECK(f(Array::zeros({3, 0, 4}))[2].shape() == Shape{3, 0, 4});
  CHECK(f(Array::zeros({4, 0}))[0].shape() == Shape{4, 0});
  CHECK(f(Array::zeros({0, 5, 3}))[1].shape() == Shape{0, 3});
}

TEST_CASE("linear algebra: norm of vectors and matrices for every order, over any axes",
          "[tracer][ops][linalg]") {
  const Tol tol{1e-12, 1e-12};
  // A vector with zeros and signs: its norms from their definitions.
  Vec v{3, -4, 0, 1.5, -0.25, 0};
  auto vector_norm = [&](double p) {
    long double acc = 0;
    for (double x : v) acc += std::pow(std::fabs(static_cast<long double>(x)), p);
    return static_cast<double>(std::pow(acc, 1 / static_cast<long double>(p)));
  };
  Array vec = make(v, {6}, F64);
  auto at = [](const Array& a) { return values(a)[0]; };
  CHECK(at(jit([](Tensor x) { return norm(x); })(vec)) == Approx(vector_norm(2)).epsilon(1e-14));
  CHECK(at(jit([](Tensor x) { return norm(x, 2.0); })(vec)) == Approx(vector_norm(2)).epsilon(1e-14));
  CHECK(at(jit([](Tensor x) { return norm(x, 1.0); })(vec)) == Approx(8.75).epsilon(1e-15));
  CHECK(at(jit([](Tensor x) { return norm(x, 3.0); })(vec)) == Approx(vector_norm(3)).epsilon(1e-14));
  CHECK(at(jit([](Tensor x) { return norm(x, 0.5); })(vec)) == Approx(vector_norm(0.5)).epsilon(1e-14));
  CHECK(at(jit([](Tensor x) { return norm(x, INFINITY); })(vec)) == 4);
  CHECK(at(jit([](Tensor x) { return norm(x, -INFINITY); })(vec)) == 0);
  CHECK(at(jit([](Tensor x) { return norm(x, 0.0); })(vec)) == 4);
  // A 3x4 matrix whose singular values are 3, 2 and 0.5 (a signed
  // permutation of a diagonal): nuclear 5.5, spectral 3, smallest 0.5;
  // column sums of |a| 3, 2, 0.5, 0 and row sums 2, 3, 0.5.
  Array m = make({0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 0.5, 0}, {3, 4}, F64);
  auto matrix = [&](auto f) { return at(jit(f)(m)); };
  CHECK(matrix([](Tensor x) { return norm(x, "fro"); }) == Approx(std::sqrt(13.25)).epsilon(1e-15));
  CHECK(matrix([](Tensor x) { return norm(x); }) == Approx(std::sqrt(13.25)).epsilon(1e-15));
  CHECK(matrix([](Tensor x) { return norm(x, "nuc"); }) == Approx(5.5).epsilon(1e-14));
  CHECK(matrix([](Tensor x) { return norm(x, 2.0); }) == Approx(3).epsilon(1e-14));
  CHECK(matrix([](Tensor x) { return norm(x, -2.0); }) == Approx(0.5).epsilon(1e-14));
  CHECK(matrix([](Tensor x) { return norm(x, 1.0); }) == 3);
  CHECK(matrix([](Tensor x) { return norm(x, -1.0); }) == 0);
  CHECK(matrix([](Tensor x) { return norm(x, INFINITY); }) == 3);
  CHECK(matrix([](Tensor x) { return norm(x, -INFINITY); }) == 0.5);
  // Over chosen axes of a batch, in any order, with keepdims; integers.
  Vec batch = noise(2 * 3 * 4, 0.4);
  Array b = make(batch, {2, 3, 4}, F64);
  Vec rows_fro, columns_one;
  for (int i = 0; i < 2; ++i) {
    long double f = 0, best = 0;
    for (int c = 0; c < 4; ++c) {
      long double column = 0;
      for (int r = 0; r < 3; ++r) column += std::fabs(static_cast<long double>(batch[(i * 3 + r) * 4 + c]));
      best = std::max(best, column);
    }
    for (int k = 0; k < 12; ++k) f += static_cast<long double>(batch[i * 12 + k]) * batch[i * 12 + k];
    rows_fro.push_back(static_cast<double>(std::sqrt(f)));
    columns_one.push_back(static_cast<double>(best));
  }
  CHECK_ARRAY("fro over {1, 2}", jit([](Tensor x) { return norm(x, "fro", {1, 2}); })(b), F64, Shape{2}, rows_fro, tol);
  CHECK_ARRAY("1 over {-2, -1}, keepdims", jit([](Tensor x) { return norm(x, 1.0, {-2, -1}, true); })(b), F64,
              (Shape{2, 1, 1}), columns_one, tol);
  // Rows and columns swapped: the 1-norm of the transpose is the inf-norm.
  Array swapped = jit([](Tensor x) { return norm(x, 1.0, {2, 1}); })(b);
  Array rows_inf = jit([](Tensor x) { return norm(x, INFINITY, {1, 2}); })(b);
  CHECK(mismatch(swapped, rows_inf, 0) == "");
  Array nuclear = jit([](Tensor x) { return norm(x, "nuc", {2, 0}, true); })(b);
  CHECK(nuclear.shape() == Shape{1, 3, 1});
  Array nuclear_t = jit([](Tensor x) { return norm(transpose(x, {1, 2, 0}), "nuc", {1, 2}); })(b);
  CHECK_ARRAY("nuc over {2, 0}", nuclear, F64, (Shape{1, 3, 1}), values(nuclear_t), tol);
  CHECK_ARRAY("i32", jit([](Tensor x) { return norm(x); })(make({3, 4}, {2}, I32)), F32, Shape{}, (Vec{5}), kExact);
  // Gradients, both modes (no ties among the entries a max or min picks).
  Array g = make(general(1, 4, 0.5), {4, 4}, F64);
  Array w = make(wave(5, 0.3), {5}, F64);
  expect_grads("vector 2-norm", FN(norm(x[0])), {w});
  expect_grads("vector 3-norm", FN(norm(x[0], 3.0)), {w});
  expect_grads("vector inf-norm", FN(norm(x[0], INFINITY)), {w});
  expect_grads("nuclear norm", FN(norm(x[0], "nuc")), {g});
  expect_grads("spectral norm", FN(norm(x[0], 2.0)), {g});
  expect_grads("matrix 1-norm", FN(norm(x[0], 1.0)), {g});
  expect_grads("frobenius over a batch", FN(norm(x[0], "fro", {0, 2})), {b});
}

TEST_CASE("linear algebra: inv and cho_solve, at 1 and 2 threads", "[tracer][ops][linalg]") {
  // 2048 matrices of 7x7: on a CPU, groups of 8 f64 lanes in parallel chunks.
  const int64_t batch = 2048, n = 7;
  Vec a = general(batch, n, 0.9), s = spd(batch, n, 0.2), rhs = wave(batch * n, 0.6);
  std::vector<Array> previous;
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    auto f = jit(
        [](Tensor x, Tensor spd_matrix, Tensor b) {
          return std::vector<Tensor>{matmul(x, inv(x)), cho_solve(cholesky(spd_matrix), b)};
        },
        {.threads = threads});
    std::vector<Array> got =
        f(make(a, {batch, n, n}, F64), make(s, {batch, n, n}, F64), make(rhs, {batch, n}, F64));
    Vec identity;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) identity.push_back(i == j);
    CHECK_ARRAY("a inv(a)", got[0], F64, (Shape{batch, n, n}), identity, (Tol{0, 1e-12}));
    Vec want;
    for (int64_t b = 0; b < batch; ++b)
      append(want, solve_ref(matrix_at(s, b, n, n), matrix_at(rhs, b, n, 1)));
    CHECK_ARRAY("cho_solve", got[1], F64, (Shape{batch, n}), want, tolerance(F64));
    if (!previous.empty())
      for (size_t i = 0; i < got.size(); ++i) CHECK(mismatch(got[i], previous[i], 0) == "");
    previous = got;
  }
}

TEST_CASE("linear algebra: batches of small matrices, a matrix per vector lane",
          "[tracer][ops][linalg]") {
  // 37 matrices: whole groups of 16 (f32) or 8 (f64) lanes and a remainder
  // that the vector transfers mask; up to 8 rows run in lanes on a CPU.
  const int64_t batch = 37, k = 2;
  for (DType dtype : {F32, F64})
    for (int64_t n : {1, 2, 3, 6, 8}) {
      INFO(dtype_name(dtype) << " n = " << n);
      Vec s = spd(batch, n, 0.2 * n), g = general(batch, n, 0.3 * n), rhs = wave(batch * n * k, 0.9);
      // Two matrices that cannot be factored, among good ones.
      for (int64_t i = 0; i < n * n; ++i) s[5 * n * n + i] = -s[5 * n * n + i], s[36 * n * n + i] = NAN;
      // Triangles far from singular (g's own need pivoting).
      Vec t = g;
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < n; ++i) t[(b * n + i) * n + i] += 3;
      std::vector<Array> got = jit([](Tensor a, Tensor spd_matrices, Tensor tri, Tensor b) {
        return std::vector<Tensor>{cholesky(spd_matrices), solve(a, b),
                                   triangular_solve(tri, b, /*lower=*/true),
                                   triangular_solve(tri, b, /*lower=*/false, /*transpose_a=*/true)};
      })(make(g, {batch, n, n}, dtype), make(s, {batch, n, n}, dtype), make(t, {batch, n, n}, dtype),
         make(rhs, {batch, n, k}, dtype));
      Vec chol, solved, lower, upper_transposed;
      for (int64_t b = 0; b < batch; ++b) {
        if (b == 5 || b == 36)
          for (int64_t i = 0; i < n * n; ++i) chol.push_back(i % n <= i / n ? kNaN : 0.0);
        else
          append(chol, cholesky_ref(matrix_at(s, b, n, n)));
        Matrix r = matrix_at(rhs, b, n, k), tri = matrix_at(t, b, n, n);
        append(solved, solve_ref(matrix_at(g, b, n, n), r));
        append(lower, triangular_ref(tri, r, true, false, false));
        append(upper_transposed, triangular_ref(tri, r, false, true, false));
      }
      Vec got_chol = values(got[0]);
      for (size_t i = 0; i < chol.size(); ++i) {
        INFO("cholesky entry " << i);
        if (std::isnan(chol[i]))
          CHECK(std::isnan(got_chol[i]));
        else
          CHECK(std::fabs(got_chol[i] - chol[i]) <= tolerance(dtype).abs * (1 + std::fabs(chol[i])));
      }
      CHECK_ARRAY("solve", got[1], dtype, (Shape{batch, n, k}), solved, tolerance(dtype));
      CHECK_ARRAY("lower", got[2], dtype, (Shape{batch, n, k}), lower, tolerance(dtype));
      CHECK_ARRAY("upper transposed", got[3], dtype, (Shape{batch, n, k}), upper_transposed,
                  tolerance(dtype));
    }
  // Gradients through the lanes, both modes.
  Array a = make(general(20, 3, 0.4), {20, 3, 3}, F64), b = make(wave(20 * 3, 0.1), {20, 3}, F64);
  Array s = make(spd(20, 3, 0.6), {20, 3, 3}, F64);
  expect_grads("solve in lanes", FN(solve(x[0], expand_dims(x[1], -1))), {a, b});
  expect_grads("cholesky in lanes", FN(cholesky(x[0])), {s});
  expect_grads("slogdet in lanes", FN(slogdet(x[0]).logabsdet), {a});
  expect_grads("eigh in lanes", FN(eigh(x[0]).eigenvectors * eigh(x[0]).eigenvectors + expand_dims(eigh(x[0]).eigenvalues, -1)), {a});
  expect_grads("qr in lanes", FN(qr(x[0]).q + qr(x[0]).r), {a});
  expect_grads("svd in lanes", FN(svd(x[0]).u * svd(x[0]).u + expand_dims(svd(x[0]).s, -1) + svd(x[0]).vh * svd(x[0]).vh), {a});
}

TEST_CASE("ad ops: gradients of the linear algebra ops, both modes", "[ad][ad-ops][linalg]") {
  const int64_t n = 4;
  Array m = make(wave(n * n, 0.3), {n, n}, F64);
  Array g = make(general(1, n, 0.5), {n, n}, F64);
  // Triangles far from singular: finite differences stay accurate.
  Vec dominant = wave(n * n, 0.5);
  for (int64_t i = 0; i < n; ++i) dominant[i * n + i] += 3;
  Array t = make(dominant, {n, n}, F64);
  Array b = make(wave(n * 2, 1.1), {n, 2}, F64);
  Array v = make(wave(n, 0.8), {n}, F64);
  Array spd_matrix = make(spd(1, n, 0.4), {n, n}, F64);
  Array four_identity = make({4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4}, {n, n}, F64);
  // Positive definite for every perturbation: x x^T + 4 I.
  expect_grads("cholesky", FN(cholesky(matmul(x[0], transpose(x[0])) + x[1])), {m, four_identity});
  expect_grads("cholesky of a non-symmetric input", FN(cholesky(x[0]) * x[0]), {spd_matrix});
  for (bool lower : {true, false})
    for (bool transpose : {false, true})
      for (bool unit : {false, true}) {
        INFO((lower ? "lower" : "upper") << (transpose ? " transposed" : "")
                                         << (unit ? " unit diagonal" : ""));
        expect_grads("triangular_solve",
                     FN(triangular_solve(x[0], x[1], lower, transpose, unit)), {t, b});
      }
  expect_grads("triangular_solve of a vector", FN(triangular_solve(x[0], x[1], true)), {t, v});
  expect_grads("solve", FN(solve(x[0], x[1])), {g, b});
  expect_grads("solve of a vector", FN(solve(x[0], x[1])), {g, v});
  expect_grads("inv", FN(inv(x[0])), {g});
  expect_grads("cho_solve", FN(cho_solve(cholesky(x[0]), x[1])), {spd_matrix, b});
  expect_grads("slogdet", FN(slogdet(x[0]).logabsdet), {g});
  expect_grads("slogdet's sign", FN(slogdet(x[0]).sign * x[0]), {g});
  expect_grads("det", FN(det(x[0])), {g});
  expect_grads("det of a batch", FN(det(x[0] + x[1])), {make(general(3, n, 0.2), {3, n, n}, F64), g});
  expect_grads("second order: slogdet", FN(slogdet(x[0]).logabsdet), {g}, 2);
  // Functions of the eigenvectors that do not depend on their signs.
  // Distinct eigenvalues (spd's repeat: its M M^T has rank 2).
  Array symmetric = make(noise(n * n, 0.7), {n, n}, F64);
  expect_grads("eigh's eigenvalues", FN(eigh(x[0]).eigenvalues * x[1]),
               {m, make({1, 2, 3, 4}, {4}, F64)});
  expect_grads("eigh's eigenvectors", FN(eigh(x[0]).eigenvectors * eigh(x[0]).eigenvectors), {m});
  expect_grads("eigh of a batch", FN(eigh(x[0] + x[1]).eigenvalues), {make(general(3, n, 0.2), {3, n, n}, F64), symmetric});
  expect_grads("second order: eigvalsh", FN(eigvalsh(x[0])), {symmetric}, 2);
  // Tall (JAX's rule), square and wide (PyTorch's) matrices.
  Array tall = make(noise(5 * 3, 0.2), {5, 3}, F64), wide = make(noise(3 * 5, 0.4), {3, 5}, F64);
  expect_grads("qr's q of a tall matrix", FN(qr(x[0]).q), {tall});
  expect_grads("qr's r of a tall matrix", FN(qr(x[0]).r), {tall});
  expect_grads("qr of a square matrix", FN(qr(x[0]).q * x[0] + qr(x[0]).r), {g});
  expect_grads("qr's q of a wide matrix", FN(qr(x[0]).q), {wide});
  expect_grads("qr's r of a wide matrix", FN(qr(x[0]).r), {wide});
  expect_grads("qr of a batch", FN(matmul(qr(x[0]).q, qr(x[0]).r)),
               {make(noise(2 * 4 * 2, 0.9), {2, 4, 2}, F64)});
  expect_grads("second order: qr", FN(qr(x[0]).r), {tall}, 2);
  expect_grads("second order: qr of a wide matrix", FN(qr(x[0]).q), {wide}, 2);
  // Functions of the singular vectors that do not depend on their signs.
  expect_grads("svd's singular values", FN(svdvals(x[0]) * svdvals(x[0])), {g});
  for (const Array& matrix : {tall, g, wide}) {
    INFO(matrix.shape()[0] << "x" << matrix.shape()[1]);
    expect_grads("svd's u", FN(svd(x[0]).u * svd(x[0]).u), {matrix});
    expect_grads("svd's vh", FN(svd(x[0]).vh * svd(x[0]).vh), {matrix});
    expect_grads("svd's s", FN(svd(x[0]).s), {matrix});
  }
  expect_grads("svd of a batch", FN(svdvals(x[0] + x[1])), {make(general(3, n, 0.2), {3, n, n}, F64), g});
  expect_grads("second order: svdvals", FN(svdvals(x[0])), {tall}, 2);
  expect_grads("second order: solve", FN(solve(x[0], x[1]) * solve(x[0], x[1])), {g, b}, 2);
  expect_grads("second order: cholesky", FN(cholesky(x[0])), {spd_matrix}, 2);
}

TEST_CASE("linear algebra: errors name the op, the shapes and the line",
          "[tracer][ops][linalg][errors]") {
  check_error([] { jit([](Tensor x) { return cholesky(x); })(Array::zeros({3, 4})); },
         {"cholesky", "f32[3,4]", "square"});
  check_error([] { jit([](Tensor x) { return inv(x); })(Array::zeros({3})); }, {"inv", "f32[3]"});
  check_error([] { jit([](Tensor a, Tensor b) { return solve(a, b); })(Array::zeros({3, 3}), Array::zeros({4})); },
         {"solve", "f32[4]", "4 rows", "f32[3,3]"});
  check_error([] {
    jit([](Tensor a, Tensor b) { return solve(a, b); })(Array::zeros({2, 3, 3}),
                                                         Array::zeros({4, 3, 1}));
  }, {"solve", "f32[2,3,3]", "f32[4,3,1]", "broadcast"});
  check_error([] {
    jit([](Tensor a, Tensor b) { return triangular_solve(a, b, true); })(Array::zeros({3, 3}),
                                                                        Array::zeros({2, 5}));
  }, {"triangular_solve", "f32[2,5]", "rows"});
  check_error([] { jit([](Tensor x) { return det(x); })(Array::zeros({2, 3})); },
         {"det", "f32[2,3]", "square"});
  check_error([] { jit([](Tensor x) { return eigvalsh(x); })(Array::zeros({4})); },
         {"eigvalsh", "f32[4]", "square"});
  check_error([] { jit([](Tensor x) { return qr(x).q; })(Array::zeros({4})); },
         {"qr", "f32[4]", "matrix"});
  check_error([] { jit([](Tensor x) { return svdvals(x); })(Array::zeros({4})); },
         {"svd", "f32[4]", "matrix"});
  check_error([] { jit([](Tensor x) { return norm(x, 2.0); })(Array::zeros({2, 3, 4})); },
         {"norm", "f32[2,3,4]", "ord 2"});
  check_error([] { jit([](Tensor x) { return norm(x, "fro"); })(Array::zeros({4})); },
         {"norm", "'fro'", "two axes"});
  check_error([] { jit([](Tensor x) { return norm(x, 3.0, {0, 1}); })(Array::zeros({3, 3})); },
         {"norm", "ord 3", "not a matrix norm"});
  check_error([] { jit([](Tensor x) { return norm(x, "max"); })(Array::zeros({3, 3})); },
         {"norm", "'max'"});
  check_error([] { jit([](Tensor x) { return norm(x, 1.0, {1, -1}); })(Array::zeros({3, 3})); },
         {"norm", "both axis 1"});
  // Three axes given: neither a vector nor a matrix norm (numpy and JAX
  // refuse them too); with none given, all axes flattened are fine.
  check_error([] {
    jit([](Tensor x) { return norm(x, std::nullopt, {0, 1, 2}); })(Array::zeros({2, 3, 4}));
  }, {"norm", "a norm over given axes needs one or two axes, got 3", "f32[2,3,4]"});
  CHECK(jit([](Tensor x) { return norm(x); })(Array::ones({2, 3, 4})).item<float>() ==
        Approx(std::sqrt(24.0)));
  // A vector b has a's rank minus one (jax.scipy.linalg's rule).
  check_error([] {
    jit([](Tensor a, Tensor b) { return triangular_solve(a, b, true); })(Array::zeros({2, 3, 3}),
                                                                        Array::zeros({3}));
  }, {"triangular_solve", "f32[3]", "rank 2"});
}
