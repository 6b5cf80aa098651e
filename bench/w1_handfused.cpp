#include "references.h"

#include <cmath>

// -ffast-math lets GCC vectorize expf through glibc's libmvec, as a
// performance-minded hand-written loop would.
float w1_handfused(const float* x, float* dx, size_t n) {
  float total = 0;
  for (size_t i = 0; i < n; ++i) {
    float v = x[i];
    float e2 = std::exp(2 * v);
    float t = 1 - 2 / (e2 + 1);
    float s = 1 / (1 + std::exp(-v));
    total += t * s + 0.5f * v * v;
    dx[i] = (1 - t * t) * s + t * s * (1 - s) + v;
  }
  return total;
}
