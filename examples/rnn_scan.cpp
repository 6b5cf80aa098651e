// Train a tanh RNN (W4 of the benchmarks, smaller) with scan: the loop over
// time steps is one loop in the compiled code, and reverse mode runs it
// backwards (backpropagation through time) from the carries and residuals
// the forward loop kept. The task: predict the running mean of the inputs.
// Run: build/examples/adjit-example-rnn_scan
#include <adjit/adjit.h>

#include <cstdio>

using adjit::Array;
using adjit::Tensor;

constexpr int64_t kSteps = 32, kBatch = 16, kInput = 4, kHidden = 32;

// Mean squared error of a linear readout of every hidden state against the
// running mean of the inputs so far.
Tensor loss_fn(const std::vector<Tensor>& p, const Tensor& xs) {
  Tensor h0 = adjit::full({kBatch, kHidden}, 0.0);
  Tensor sum0 = adjit::full({kBatch, kInput}, 0.0);
  auto [carry, errors] = adjit::scan(
      [&](std::tuple<Tensor, Tensor, Tensor> c, Tensor x) {
        auto [h, total, t] = c;
        Tensor next = adjit::tanh(adjit::matmul(x, p[0]) + adjit::matmul(h, p[1]) + p[2]);
        Tensor running = (total + x) / (t + 1.0);
        Tensor error = adjit::mean(adjit::square(adjit::matmul(next, p[3]) - running));
        return std::make_pair(std::make_tuple(next, total + x, t + 1.0), error);
      },
      std::make_tuple(h0, sum0, adjit::full({}, 0.0)), xs);
  return adjit::mean(errors);
}

int main() {
  std::vector<Array> params = {Array::uniform({kInput, kHidden}, 1, -0.5, 0.5),
                               Array::uniform({kHidden, kHidden}, 2, -0.15, 0.15),
                               Array::zeros({kHidden}),
                               Array::uniform({kHidden, kInput}, 3, -0.3, 0.3)};
  auto step = adjit::jit([](std::vector<Tensor> p, Tensor xs) {
    auto [loss, grads] = adjit::value_and_grad(loss_fn)(p, xs);
    std::vector<Tensor> updated;
    for (size_t i = 0; i < p.size(); ++i) updated.push_back(p[i] - 0.5 * grads[i]);
    return std::make_pair(loss, updated);
  });
  float first = 0, last = 0;
  for (int epoch = 0; epoch <= 300; ++epoch) {
    Array xs = Array::randn({kSteps, kBatch, kInput}, 100 + epoch);
    auto [loss, updated] = step(params, xs);
    params = std::move(updated);
    last = loss.item<float>();
    if (epoch == 0) first = last;
    if (epoch % 50 == 0) std::printf("epoch %3d  loss %.5f\n", epoch, last);
  }
  std::printf("loss fell from %.5f to %.5f\n", first, last);
  return last < 0.5f * first ? 0 : 1;
}
