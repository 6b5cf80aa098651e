#include "references.h"

#ifdef ADJIT_HAVE_OPENBLAS
#include <cblas.h>
#endif

void triad(float* a, const float* b, const float* c, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

float read_sum(const float* a, size_t n) {
  // Sixteen partial sums let the compiler vectorize without -ffast-math.
  float partial[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) partial[j] += a[i + j];
  float total = 0;
  for (float p : partial) total += p;
  for (; i < n; ++i) total += a[i];
  return total;
}

bool sgemm(const float* a, const float* b, float* c, int m, int n, int k, int threads) {
#ifdef ADJIT_HAVE_OPENBLAS
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
  return true;
#else
  (void)a, (void)b, (void)c, (void)m, (void)n, (void)k, (void)threads;
  return false;
#endif
}
