// A small MLP forward pass (784-128-10, ReLU, softmax) under adjit::jit, with
// the weights passed as a std::vector of Arrays.
#include <adjit/adjit.h>

#include <iostream>

using adjit::Tensor;

int main() {
  auto forward = adjit::jit(
      [](Tensor x, std::vector<Tensor> params) {
        Tensor h = adjit::relu(adjit::matmul(x, params[0]) + params[1]);
        Tensor logits = adjit::matmul(h, params[2]) + params[3];
        return std::make_pair(adjit::softmax(logits, 1), adjit::argmax(logits, 1));
      },
      {.name = "mlp_forward"});

  std::vector<adjit::Array> params = {
      adjit::Array::uniform({784, 128}, 1, -0.05, 0.05), adjit::Array::zeros({128}),
      adjit::Array::uniform({128, 10}, 2, -0.2, 0.2), adjit::Array::zeros({10})};
  adjit::Array batch = adjit::Array::uniform({8, 784}, 3);

  auto [probs, labels] = forward(batch, params);
  std::cout << "probabilities " << probs << "\npredicted classes " << labels << "\n";
  std::cout << "trace + compile: " << forward.cache_info().compile_seconds * 1e3 << " ms\n";
}
