#include "workloads.h"

#include <cmath>

using adjit::Array;
using adjit::Tensor;

namespace bench {

int64_t w1_size(bool smoke) { return smoke ? 4096 : 4194304; }

Tensor w1_function(Tensor x) { return adjit::sum(adjit::tanh(x) * adjit::sigmoid(x) + 0.5 * x * x); }

MlpSizes w2_sizes(bool smoke) {
  return smoke ? MlpSizes{16, 32, 24, 10} : MlpSizes{256, 784, 1024, 10};
}

Tensor w2_loss(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor h1 = adjit::relu(adjit::matmul(x, p[0]) + p[1]);
  Tensor h2 = adjit::relu(adjit::matmul(h1, p[2]) + p[3]);
  Tensor logits = adjit::matmul(h2, p[4]) + p[5];
  Tensor log_probs = adjit::log_softmax(logits, 1);
  return -adjit::mean(adjit::sum(log_probs * adjit::one_hot(labels, logits.shape()[1]), {1}));
}

std::pair<Tensor, std::vector<Tensor>> w2_step(const std::vector<Tensor>& p, const Tensor& x,
                                               const Tensor& labels) {
  auto [loss, grads] = adjit::value_and_grad(w2_loss)(p, x, labels);
  std::vector<Tensor> updated;
  for (size_t i = 0; i < p.size(); ++i) updated.push_back(p[i] - 0.01 * grads[i]);
  return {loss, updated};
}

std::vector<Array> w2_params(const MlpSizes& z) {
  auto layer = [](int64_t in, int64_t out, uint64_t seed) {
    double bound = std::sqrt(6.0 / static_cast<double>(in + out));  // Glorot
    return Array::uniform({in, out}, seed, -bound, bound);
  };
  return {layer(z.in, z.hidden, 11), Array::zeros({z.hidden}),
          layer(z.hidden, z.hidden, 12), Array::zeros({z.hidden}),
          layer(z.hidden, z.classes, 13), Array::zeros({z.classes})};
}

RowsSizes w3_sizes(bool smoke) { return smoke ? RowsSizes{16, 32} : RowsSizes{8192, 1024}; }

Tensor w3_loss(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& c) {
  Tensor mean = adjit::mean(x, {-1}, true);
  Tensor centered = x - mean;
  Tensor variance = adjit::mean(centered * centered, {-1}, true);
  Tensor normalized = centered * adjit::rsqrt(variance + 1e-5);
  Tensor y = adjit::gelu(normalized * gamma + beta, /*tanh_approx=*/true);
  return adjit::sum(y * c);
}

}  // namespace bench
