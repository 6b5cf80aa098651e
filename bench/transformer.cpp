// adjit-transformer-bench: a transformer block (attention with batch and
// heads as two batch dimensions, LayerNorm, tanh-GELU MLP) against
// bench/peers/transformer_jax.py, which defines the same programs.
//
//   adjit-transformer-bench --block [--smoke]
//       batch 8, 256 tokens, width 512, 8 heads of 64, MLP 2048; the
//       forward pass and the value and gradient of sum(y * c) w.r.t. all 12
//       weights: first call and median of 7 calls.
//   adjit-transformer-bench --layers L [--smoke]
//       L blocks of width 128 (batch 2, 64 tokens, 4 heads, MLP 512) in one
//       jitted SGD step (value and gradient of 12 L weights): the first
//       call, what a deep model's compilation costs.
//
// One JSON line per measurement. Run with ADJIT_NUM_THREADS=1 and
// ADJIT_PROCESS_CACHE_MB=0 to compare with the JAX script pinned to a core.
#include "call_timing.h"

#include <adjit/adjit.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

using adjit::Array;
using adjit::Tensor;

namespace {

struct Dims {
  int64_t batch, time, width, heads, hidden;
};

Tensor layernorm(const Tensor& x, const Tensor& gain, const Tensor& bias) {
  Tensor centered = x - adjit::mean(x, {-1}, true);
  Tensor variance = adjit::mean(centered * centered, {-1}, true);
  return centered * adjit::rsqrt(variance + 1e-5) * gain + bias;
}

// p: Wq Wk Wv Wo, LayerNorm 1 gain and bias, MLP in and its bias, MLP out
// and its bias, LayerNorm 2 gain and bias. x: [batch * time, width].
Tensor block(const Dims& d, const Tensor* p, const Tensor& x) {
  int64_t depth = d.width / d.heads;
  auto heads = [&](const Tensor& w) {
    return adjit::transpose(adjit::reshape(adjit::matmul(x, w), {d.batch, d.time, d.heads, depth}),
                            {0, 2, 1, 3});
  };
  Tensor q = heads(p[0]), k = heads(p[1]), v = heads(p[2]);
  Tensor weights = adjit::softmax(
      adjit::matmul(q, adjit::transpose(k, {0, 1, 3, 2})) / std::sqrt(double(depth)), -1);
  Tensor attended = adjit::reshape(adjit::transpose(adjit::matmul(weights, v), {0, 2, 1, 3}),
                                   {d.batch * d.time, d.width});
  Tensor h = x + adjit::matmul(attended, p[3]);
  Tensor mlp = adjit::matmul(adjit::gelu(adjit::matmul(layernorm(h, p[4], p[5]), p[6]) + p[7]),
                             p[8]) + p[9];
  return layernorm(h + mlp, p[10], p[11]);
}

std::vector<Array> block_parameters(const Dims& d, uint64_t seed) {
  auto u = [&](adjit::Shape shape, uint64_t s, double scale) {
    return Array::uniform(shape, seed + s, -scale, scale);
  };
  double w = 1 / std::sqrt(double(d.width)), h = 1 / std::sqrt(double(d.hidden));
  return {u({d.width, d.width}, 1, w), u({d.width, d.width}, 2, w), u({d.width, d.width}, 3, w),
          u({d.width, d.width}, 4, w), Array::ones({d.width}), Array::zeros({d.width}),
          u({d.width, d.hidden}, 5, w), Array::zeros({d.hidden}), u({d.hidden, d.width}, 6, h),
          Array::zeros({d.width}), Array::ones({d.width}), Array::zeros({d.width})};
}

template <class F>
void time_calls(const std::string& variant, int reps, F&& call) {
  adjit::bench::time_calls("transformer", variant, reps, std::forward<F>(call));
}

void run_block(bool smoke) {
  Dims d = smoke ? Dims{2, 16, 64, 4, 128} : Dims{8, 256, 512, 8, 2048};
  std::vector<Array> p = block_parameters(d, 0);
  Array x = Array::randn({d.batch * d.time, d.width}, 7), c = Array::randn({d.batch * d.time, d.width}, 8);
  auto forward = adjit::jit([d](std::vector<Tensor> p, Tensor x) { return block(d, p.data(), x); },
                            {.name = "block"});
  auto value_and_grad = adjit::jit(
      adjit::value_and_grad([d](std::vector<Tensor> p, Tensor x, Tensor c) {
        return adjit::sum(block(d, p.data(), x) * c);
      }),
      {.name = "block_value_and_grad"});
  int reps = smoke ? 1 : 7;
  time_calls("block forward", reps, [&] { forward(p, x); });
  time_calls("block value_and_grad", reps, [&] { value_and_grad(p, x, c); });
}

void run_layers(int layers, bool smoke) {
  Dims d = smoke ? Dims{2, 8, 32, 2, 64} : Dims{2, 64, 128, 4, 512};
  std::vector<Array> p;
  for (int l = 0; l < layers; ++l)
    for (Array& a : block_parameters(d, 100 * l)) p.push_back(std::move(a));
  Array x = Array::randn({d.batch * d.time, d.width}, 7);
  auto step = adjit::jit(
      [d, layers](std::vector<Tensor> p, Tensor x) {
        auto loss = [d, layers](std::vector<Tensor> p, Tensor x) {
          Tensor h = x;
          for (int l = 0; l < layers; ++l) h = block(d, &p[12 * l], h);
          return adjit::sum(h * h);
        };
        auto [value, grads] = adjit::value_and_grad(loss)(p, x);
        std::vector<Tensor> updated;
        for (size_t i = 0; i < p.size(); ++i) updated.push_back(p[i] - 0.01 * grads[i]);
        return std::make_pair(value, updated);
      },
      {.name = "deep_step"});
  time_calls(std::to_string(layers) + " layers step", smoke ? 0 : 3, [&] { step(p, x); });
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false, block_mode = false;
  int layers = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--smoke") smoke = true;
    else if (arg == "--block") block_mode = true;
    else if (arg == "--layers" && i + 1 < argc) layers = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: adjit-transformer-bench (--block | --layers L) [--smoke]\n");
      return 2;
    }
  }
  if (!block_mode && layers <= 0) {
    std::fprintf(stderr, "usage: adjit-transformer-bench (--block | --layers L) [--smoke]\n");
    return 2;
  }
  if (block_mode) run_block(smoke);
  if (layers > 0) run_layers(layers, smoke);
}
