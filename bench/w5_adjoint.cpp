// W5's limit: the spring chain and its adjoint written by hand, as a careful
// C++ programmer would (the positions of every step kept for the backward
// sweep, no recomputation).
#include "references.h"

#include <vector>

namespace {
// force_i = k_i (p_{i+1} - p_i - 1) - k_{i-1} (p_i - p_{i-1} - 1), free ends.
void forces(const float* p, const float* k, float* f, int n) {
  for (int i = 0; i < n; ++i) f[i] = 0;
  for (int j = 0; j + 1 < n; ++j) {
    float t = k[j] * (p[j + 1] - p[j] - 1);
    f[j] += t;
    f[j + 1] -= t;
  }
}
}  // namespace

float w5_hand_adjoint(const float* p0, const float* v0, const float* k, int n, int steps, float dt,
                      float* dp0, float* dk) {
  std::vector<float> ps(static_cast<size_t>(steps + 1) * n), v(v0, v0 + n), f(n);
  std::copy(p0, p0 + n, ps.begin());
  for (int s = 0; s < steps; ++s) {
    const float* p = &ps[static_cast<size_t>(s) * n];
    float* next = &ps[static_cast<size_t>(s + 1) * n];
    forces(p, k, f.data(), n);
    for (int i = 0; i < n; ++i) {
      v[i] += dt * f[i];
      next[i] = p[i] + dt * v[i];
    }
  }
  float loss = 0;
  for (int i = 0; i < n; ++i) loss += 0.5f * v[i] * v[i];

  // Backward: lp, lv are the adjoints of p_{s+1} and v_{s+1}.
  std::vector<float> lp(n, 0), lv(v), lf(n);
  for (int j = 0; j + 1 < n; ++j) dk[j] = 0;
  for (int s = steps - 1; s >= 0; --s) {
    const float* p = &ps[static_cast<size_t>(s) * n];
    for (int i = 0; i < n; ++i) {
      lv[i] += dt * lp[i];  // p_{s+1} = p_s + dt v_{s+1}
      lf[i] = dt * lv[i];   // v_{s+1} = v_s + dt f(p_s)
    }
    for (int j = 0; j + 1 < n; ++j) {
      float lt = lf[j] - lf[j + 1];
      dk[j] += lt * (p[j + 1] - p[j] - 1);
      lp[j + 1] += lt * k[j];
      lp[j] -= lt * k[j];
    }
  }
  std::copy(lp.begin(), lp.end(), dp0);
  return loss;
}
