// adjit-loop-bench: loops whose trip count is known only at run time,
// against bench/peers/loops_jax.py. An RNN cell h = tanh(h W + 0.01) over
// a batch of 32 x 256 (f32), run for `steps` iterations, where `steps` is a
// traced Tensor: a while_loop, its value, its gradient (the loop once, its
// stacks growing) and its gradient when checkpointed every iteration
// (another route: the loop counts its iterations first, then runs again as
// a counted loop). The same cell in a fori_loop with a constant bound is
// what JAX can differentiate (jax.grad refuses while_loop), the reference.
// And a loop bound by memory, not by its arithmetic: Heron's square roots
// x = (x + b / x) / 2 of 2^20 values (f32) for `steps` iterations in a
// while_loop and a fori_loop, which should take the same time.
// First call and median of 20 calls, one JSON line per measurement; run
// with ADJIT_NUM_THREADS=1 to compare with the JAX script, which pins
// itself to one core.
#include "call_timing.h"

#include <adjit/adjit.h>

#include <cmath>
#include <string>
#include <vector>

using adjit::Array;
using adjit::Tensor;

namespace {

constexpr int64_t kBatch = 32, kHidden = 256;

// W = 0.05 sin(i + 2 j): small enough that tanh does not saturate.
Array cell_weights() {
  std::vector<float> w(kHidden * kHidden);
  for (int64_t i = 0; i < kHidden; ++i)
    for (int64_t j = 0; j < kHidden; ++j)
      w[i * kHidden + j] = 0.05f * static_cast<float>(std::sin(static_cast<double>(i + 2 * j)));
  return Array::from<float>(w, {kHidden, kHidden});
}

Tensor cell(const Tensor& h, const Tensor& w) { return adjit::tanh(adjit::matmul(h, w) + 0.01); }

Tensor while_loss(const Tensor& h0, const Tensor& w, const Tensor& steps, int64_t every) {
  auto [h, n] = adjit::while_loop(
      [&](std::pair<Tensor, Tensor> c) { return c.second < steps; },
      [&](std::pair<Tensor, Tensor> c) {
        return std::make_pair(cell(c.first, w), c.second + 1.0f);
      },
      std::make_pair(h0, adjit::zeros_like(steps)), {.checkpoint_every = every});
  return adjit::sum(h * h);
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int reps = smoke ? 1 : 20;
  int64_t trips = smoke ? 10 : 1000;
  Array h0 = Array::randn({kBatch, kHidden}, 1), w = cell_weights();
  Array steps = Array::full({}, static_cast<double>(trips));
  auto value = adjit::jit([](Tensor h0, Tensor w, Tensor steps) {
    return while_loss(h0, w, steps, 0);
  });
  auto gradient = adjit::jit(adjit::grad<0, 1>([](Tensor h0, Tensor w, Tensor steps) {
    return while_loss(h0, w, steps, 0);
  }));
  auto counted_gradient = adjit::jit(adjit::grad<0, 1>([](Tensor h0, Tensor w, Tensor steps) {
    return while_loss(h0, w, steps, 1);
  }));
  auto fori_gradient = adjit::jit(adjit::grad<0, 1>([trips](Tensor h0, Tensor w) {
    Tensor h = adjit::fori_loop(0, trips, [&](Tensor, Tensor h) { return cell(h, w); }, h0);
    return adjit::sum(h * h);
  }));
  std::string shape = std::to_string(trips) + " steps " + std::to_string(kBatch) + "x" +
                      std::to_string(kHidden);
  auto time_calls = [&](const std::string& variant, auto call) {
    adjit::bench::time_calls("loops", variant + " " + shape, reps, call);
  };
  time_calls("while_loop value", [&] { value(h0, w, steps); });
  time_calls("while_loop grad", [&] { gradient(h0, w, steps); });
  time_calls("while_loop grad counted", [&] { counted_gradient(h0, w, steps); });
  time_calls("fori_loop grad", [&] { fori_gradient(h0, w); });

  int64_t n = smoke ? 1024 : int64_t{1} << 20, heron_trips = smoke ? 5 : 50;
  Array x0 = Array::full({n}, 1.0), b = Array::uniform({n}, 2, 1.0, 4.0);
  Array heron_steps = Array::full({}, static_cast<double>(heron_trips));
  auto heron = [](const Tensor& x, const Tensor& b) { return (x + b / x) * 0.5; };
  auto heron_while = adjit::jit([&](Tensor x, Tensor b, Tensor steps) {
    auto [root, k] = adjit::while_loop(
        [&](std::pair<Tensor, Tensor> c) { return c.second < steps; },
        [&](std::pair<Tensor, Tensor> c) {
          return std::make_pair(heron(c.first, b), c.second + 1.0f);
        },
        std::make_pair(x, adjit::zeros_like(steps)));
    return root;
  });
  auto heron_fori = adjit::jit([&](Tensor x, Tensor b) {
    return adjit::fori_loop(0, heron_trips, [&](Tensor, Tensor x) { return heron(x, b); }, x);
  });
  std::string heron_shape = std::to_string(heron_trips) + " steps " + std::to_string(n);
  adjit::bench::time_calls("loops", "heron while_loop " + heron_shape, reps,
                           [&] { heron_while(x0, b, heron_steps); });
  adjit::bench::time_calls("loops", "heron fori_loop " + heron_shape, reps,
                           [&] { heron_fori(x0, b); });
  return 0;
}
