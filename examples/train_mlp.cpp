// Train a small MLP on a synthetic 3-class problem with jit(value_and_grad)
// and plain SGD. Run: ./scripts/demo.sh (or build/examples/adjit-example-train_mlp)
#include <adjit/adjit.h>

#include <cmath>
#include <iostream>

using adjit::Array;
using adjit::Tensor;

// Softmax cross-entropy (mean over the batch) of a 2-32-32-3 MLP.
Tensor loss_fn(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor h1 = adjit::tanh(adjit::matmul(x, p[0]) + p[1]);
  Tensor h2 = adjit::relu(adjit::matmul(h1, p[2]) + p[3]);
  Tensor logits = adjit::matmul(h2, p[4]) + p[5];
  Tensor log_probs = adjit::log_softmax(logits, 1);
  return -adjit::mean(adjit::sum(log_probs * adjit::one_hot(labels, 3), {1}));
}

// Three interleaved spirals: 2-D points, labels 0..2.
std::pair<Array, Array> spirals(int per_class, uint64_t seed) {
  Array noise = Array::randn({3 * per_class, 2}, seed);
  std::vector<float> points;
  std::vector<int32_t> labels;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < per_class; ++i) {
      float r = static_cast<float>(i) / per_class;
      float angle = 4.0f * r + 2.094f * c;
      int k = c * per_class + i;
      points.push_back(r * std::sin(angle) + 0.05f * noise.data<float>()[2 * k]);
      points.push_back(r * std::cos(angle) + 0.05f * noise.data<float>()[2 * k + 1]);
      labels.push_back(c);
    }
  return {Array::from(points, {3 * per_class, 2}), Array::from(labels, {3 * per_class})};
}

int main() {
  auto [x, y] = spirals(100, 7);
  std::vector<Array> params = {
      Array::uniform({2, 32}, 1, -1, 1), Array::zeros({32}),
      Array::uniform({32, 32}, 2, -0.3, 0.3), Array::zeros({32}),
      Array::uniform({32, 3}, 3, -0.3, 0.3), Array::zeros({3})};

  // One SGD step, compiled once: value_and_grad gives the loss and the
  // gradient of every parameter; the update happens in the same kernel.
  auto step = adjit::jit(
      [](std::vector<Tensor> p, Tensor x, Tensor labels, double lr) {
        auto [loss, grads] = adjit::value_and_grad(loss_fn)(p, x, labels);
        std::vector<Tensor> updated;
        for (size_t i = 0; i < p.size(); ++i) updated.push_back(p[i] - lr * grads[i]);
        return std::make_pair(loss, updated);
      },
      {.name = "sgd_step"});

  float first = 0, last = 0;
  for (int epoch = 0; epoch <= 2000; ++epoch) {
    auto [loss, updated] = step(params, x, y, 0.5);
    params = std::move(updated);
    last = loss.item<float>();
    if (epoch == 0) first = last;
    if (epoch % 250 == 0) std::cout << "epoch " << epoch << "  loss " << last << "\n";
  }
  adjit::CacheInfo info = step.cache_info();
  std::cout << "compiled once (" << info.misses << " trace, " << info.compile_seconds * 1e3
            << " ms), ran " << info.hits + info.misses << " steps\n";
  if (!(last < 0.5f * first)) {
    std::cerr << "the loss did not fall: " << first << " -> " << last << "\n";
    return 1;
  }
  std::cout << "loss fell from " << first << " to " << last << "\n";
}
