// adjit-conv-bench: convolution layers (channels last) against
// bench/peers/conv_jax.py, which defines the same layers: a 3 x 3 layer of
// 64 channels, an RGB input layer, a strided layer, a 1 x 1 layer and a
// depthwise one, each as the forward pass and the value and gradient of
// sum(conv(x, w) * c) w.r.t. x and w; then a max and an average pool. First call and median of 15 calls,
// one JSON line per measurement. Run with ADJIT_NUM_THREADS=1 to compare
// with the JAX script, which pins itself to one core.
#include "call_timing.h"

#include <adjit/adjit.h>

#include <string>
#include <utility>
#include <vector>

using adjit::Array;
using adjit::ConvOptions;
using adjit::Padding;
using adjit::Tensor;

namespace {

struct Layer {
  const char* name;
  adjit::Shape x, w;
  ConvOptions options;
};

template <class F>
void time_calls(const std::string& variant, int reps, F&& call) {
  adjit::bench::time_calls("conv", variant, reps, std::forward<F>(call));
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int64_t b = smoke ? 2 : 16;
  std::vector<Layer> layers = {
      {"3x3 64->64 32x32", {b, 32, 32, 64}, {3, 3, 64, 64}, {.padding = Padding::same}},
      {"3x3 3->32 64x64", {b, 64, 64, 3}, {3, 3, 3, 32}, {.padding = Padding::same}},
      {"3x3 stride 2 64->128 32x32", {b, 32, 32, 64}, {3, 3, 64, 128},
       {.strides = {2, 2}, .padding = Padding::same}},
      {"1x1 128->256 16x16", {b, 16, 16, 128}, {1, 1, 128, 256}, {}},
      {"depthwise 3x3 128 16x16", {b, 16, 16, 128}, {3, 3, 1, 128},
       {.padding = Padding::same, .feature_group_count = 128}},
  };
  int reps = smoke ? 1 : 15;
  for (const Layer& layer : layers) {
    ConvOptions options = layer.options;
    auto forward = adjit::jit([options](Tensor x, Tensor w) { return adjit::conv(x, w, options); });
    auto value_and_grad = adjit::jit(adjit::value_and_grad<0, 1>(
        [options](Tensor x, Tensor w, Tensor c) { return adjit::sum(adjit::conv(x, w, options) * c); }));
    Array x = Array::randn(layer.x, 1), w = Array::randn(layer.w, 2);
    time_calls(std::string(layer.name) + " forward", reps, [&] { forward(x, w); });
    Array c = Array::randn(forward(x, w).shape(), 3);
    time_calls(std::string(layer.name) + " value_and_grad", reps, [&] { value_and_grad(x, w, c); });
  }
  // Pooling: a ResNet stem's 3 x 3 max pool of stride 2, a 2 x 2 average
  // pool, a 7 x 7 average (a blur) and a global max pool over 32 x 32.
  struct Pool {
    const char* name;
    bool take_max;
    adjit::Shape window;
    adjit::PoolOptions options;
  };
  std::vector<Pool> pools = {
      {"max_pool 3x3 stride 2 64 32x32", true, {3, 3}, {.strides = {2, 2}, .padding = Padding::same}},
      {"avg_pool 2x2 stride 2 64 32x32", false, {2, 2}, {.strides = {2, 2}}},
      {"avg_pool 7x7 same 64 32x32", false, {7, 7}, {.padding = Padding::same}},
      {"max_pool 32x32 global 64 32x32", true, {32, 32}, {}},
  };
  Array x = Array::randn({b, 32, 32, 64}, 4);
  for (const Pool& p : pools) {
    auto pool = [p](Tensor x) {
      return p.take_max ? adjit::max_pool(x, p.window, p.options) : adjit::avg_pool(x, p.window, p.options);
    };
    auto forward = adjit::jit(pool);
    auto value_and_grad = adjit::jit(adjit::value_and_grad(
        [pool](Tensor x, Tensor c) { return adjit::sum(pool(x) * c); }));
    time_calls(std::string(p.name) + " forward", reps, [&] { forward(x); });
    Array c = Array::randn(forward(x).shape(), 5);
    time_calls(std::string(p.name) + " value_and_grad", reps, [&] { value_and_grad(x, c); });
  }
}
