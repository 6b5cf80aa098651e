// adjit-linalg-bench: linear algebra against bench/peers/linalg_jax.py,
// which defines the same problems: batches of 16384 small SPD matrices
// (6x6, the size of a rigid body's or a 6-joint arm's systems) and of
// 4096 3x3 ones (f32), factored and solved (also by lu_factor, then
// lu_solve), their log-determinants,
// eigendecompositions, QR factors and SVDs, and the gradients of a
// Cholesky solve, of the log-determinants, of the eigenvalues, of the QR
// factors, of the singular values and of the determinants (the
// adjugates) over the batch, matrix exponentials and their gradients; one
// 256 x 256
// system. First call and
// median of 20 calls, one JSON line per measurement. Run with
// ADJIT_NUM_THREADS=1 to compare with the JAX script, which pins itself to
// one core.
#include "call_timing.h"

#include <adjit/adjit.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using adjit::Array;
using adjit::Tensor;
namespace linalg = adjit::linalg;

namespace {

// batch n x n matrices, 6 on the diagonal and 0.1 sin(b + (i+1)(j+1))
// elsewhere: symmetric, diagonally dominant, positive definite.
Array spd_batch(int64_t batch, int n) {
  std::vector<float> values(batch * n * n);
  for (int64_t b = 0; b < batch; ++b)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        values[(b * n + i) * n + j] =
            i == j ? 6.0f : 0.1f * static_cast<float>(std::sin(static_cast<double>(b + (i + 1) * (j + 1))));
  return Array::from<float>(values, {batch, n, n});
}

void time_calls(const std::string& variant, int reps, const std::function<void()>& call) {
  adjit::bench::time_calls("linalg", variant, reps, call);
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int reps = smoke ? 1 : 20;
  for (auto [batch, n] : {std::pair<int64_t, int>{smoke ? 64 : 16384, 6}, {smoke ? 64 : 4096, 3}}) {
    std::string shape = std::to_string(batch) + "x" + std::to_string(n) + "x" + std::to_string(n);
    Array a = spd_batch(batch, n), b = Array::randn({batch, n, 1}, 1);
    auto cholesky = adjit::jit([](Tensor x) { return linalg::cholesky(x); });
    auto solve = adjit::jit([](Tensor x, Tensor y) { return linalg::solve(x, y); });
    auto gradient = adjit::jit(adjit::grad<0, 1>([](Tensor x, Tensor y) {
      Tensor z = linalg::cho_solve(linalg::cholesky(x), y);
      return adjit::sum(z * z);
    }));
    auto slogdet = adjit::jit([](Tensor x) { return linalg::slogdet(x).logabsdet; });
    auto logdet_gradient =
        adjit::jit(adjit::grad([](Tensor x) { return adjit::sum(linalg::slogdet(x).logabsdet); }));
    time_calls("cholesky " + shape, reps, [&] { cholesky(a); });
    time_calls("solve " + shape, reps, [&] { solve(a, b); });
    time_calls("grad cho_solve " + shape, reps, [&] { gradient(a, b); });
    time_calls("slogdet " + shape, reps, [&] { slogdet(a); });
    time_calls("grad logdet " + shape, reps, [&] { logdet_gradient(a); });
    auto lu_factor = adjit::jit([](Tensor x) {
      auto [lu, piv] = linalg::lu_factor(x);
      return std::vector<Tensor>{lu, piv};
    });
    auto lu_solve = adjit::jit(
        [](Tensor lu, Tensor piv, Tensor y) { return linalg::lu_solve({lu, piv}, y); });
    auto det_gradient =
        adjit::jit(adjit::grad([](Tensor x) { return adjit::sum(linalg::det(x)); }));
    std::vector<Array> factors = lu_factor(a);
    time_calls("lu_factor " + shape, reps, [&] { lu_factor(a); });
    time_calls("lu_solve " + shape, reps, [&] { lu_solve(factors[0], factors[1], b); });
    time_calls("grad det " + shape, reps, [&] { det_gradient(a); });
    auto expm = adjit::jit([](Tensor x) { return linalg::expm(x); });
    auto expm_gradient =
        adjit::jit(adjit::grad([](Tensor x) { return adjit::sum(linalg::expm(x)); }));
    time_calls("expm " + shape, reps, [&] { expm(a); });
    time_calls("grad expm " + shape, reps, [&] { expm_gradient(a); });
    auto eigh = adjit::jit([](Tensor x) {
      auto [w, v] = linalg::eigh(x);
      return std::vector<Tensor>{w, v};
    });
    auto eigvalsh_gradient =
        adjit::jit(adjit::grad([](Tensor x) { return adjit::sum(linalg::eigvalsh(x) * linalg::eigvalsh(x)); }));
    time_calls("eigh " + shape, reps, [&] { eigh(a); });
    time_calls("grad eigvalsh " + shape, reps, [&] { eigvalsh_gradient(a); });
    auto qr = adjit::jit([](Tensor x) {
      auto [q, r] = linalg::qr(x);
      return std::vector<Tensor>{q, r};
    });
    auto qr_gradient = adjit::jit(adjit::grad([](Tensor x) {
      auto [q, r] = linalg::qr(x);
      return adjit::sum(q) + adjit::sum(r);
    }));
    time_calls("qr " + shape, reps, [&] { qr(a); });
    time_calls("grad qr " + shape, reps, [&] { qr_gradient(a); });
    auto svd = adjit::jit([](Tensor x) {
      auto [u, s, vh] = linalg::svd(x);
      return std::vector<Tensor>{u, s, vh};
    });
    auto nuclear_norm_gradient = adjit::jit(adjit::grad([](Tensor x) { return adjit::sum(linalg::svdvals(x)); }));
    time_calls("svd " + shape, reps, [&] { svd(a); });
    time_calls("grad sum svdvals " + shape, reps, [&] { nuclear_norm_gradient(a); });
  }
  const int64_t m = smoke ? 32 : 256;
  std::vector<float> values(m * m);
  for (int64_t i = 0; i < m * m; ++i)
    values[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i))) + (i % (m + 1) == 0 ? 4.0f : 0.0f);
  Array system = Array::from<float>(values, {m, m}), rhs = Array::randn({m}, 2);
  auto solve = adjit::jit([](Tensor x, Tensor y) { return linalg::solve(x, y); });
  time_calls("solve " + std::to_string(m) + "x" + std::to_string(m), reps, [&] { solve(system, rhs); });
}
