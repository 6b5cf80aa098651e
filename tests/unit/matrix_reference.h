#ifndef ADJIT_TESTS_MATRIX_REFERENCE_H
#define ADJIT_TESTS_MATRIX_REFERENCE_H

// Plain long-double matrices for the linear algebra tests' references:
// deterministic entries, a batch's matrix, substitution and Gaussian
// elimination.

#include "test_support.h"

#include <cmath>
#include <utility>
#include <vector>

namespace adjit::test {

using Matrix = std::vector<std::vector<long double>>;

// Deterministic entries in [-1, 1] with no structure (a sine wave's
// matrices have rank 2: sin(a + b) = sin a cos b + cos a sin b).
inline Vec noise(int64_t count, double seed) {
  Vec v;
  for (int64_t i = 0; i < count; ++i) {
    double x = std::sin(12.9898 * static_cast<double>(i) + 78.233 * seed) * 43758.5453;
    v.push_back(2 * (x - std::floor(x)) - 1);
  }
  return v;
}

inline Matrix matrix_at(const Vec& flat, int64_t batch, int64_t rows, int64_t cols) {
  Matrix m(rows, std::vector<long double>(cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m[i][j] = flat[(batch * rows + i) * cols + j];
  return m;
}

// x with op(a) x = b, op(a) triangular as the flags say.
inline Matrix triangular_ref(const Matrix& a, Matrix x, bool lower, bool transpose, bool unit) {
  int64_t n = static_cast<int64_t>(a.size());
  auto t = [&](int64_t i, int64_t k) { return transpose ? a[k][i] : a[i][k]; };
  bool forward = lower != transpose;
  for (int64_t step = 0; step < n; ++step) {
    int64_t i = forward ? step : n - 1 - step;
    for (size_t c = 0; c < x[i].size(); ++c) {
      long double s = x[i][c];
      for (int64_t k = forward ? 0 : i + 1; k < (forward ? i : n); ++k) s -= t(i, k) * x[k][c];
      x[i][c] = unit ? s : s / t(i, i);
    }
  }
  return x;
}

// Gaussian elimination with partial pivoting.
inline Matrix solve_ref(Matrix a, Matrix x) {
  size_t n = a.size();
  for (size_t j = 0; j < n; ++j) {
    size_t p = j;
    for (size_t i = j + 1; i < n; ++i)
      if (std::fabs(a[i][j]) > std::fabs(a[p][j])) p = i;
    std::swap(a[j], a[p]);
    std::swap(x[j], x[p]);
    for (size_t i = j + 1; i < n; ++i) {
      long double f = a[i][j] / a[j][j];
      for (size_t c = j; c < n; ++c) a[i][c] -= f * a[j][c];
      for (size_t c = 0; c < x[i].size(); ++c) x[i][c] -= f * x[j][c];
    }
  }
  return triangular_ref(a, x, /*lower=*/false, false, false);
}

}  // namespace adjit::test

#endif
