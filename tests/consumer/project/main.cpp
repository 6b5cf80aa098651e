// A program outside the adjit tree: only <adjit/adjit.h> and adjit::adjit.
#include <adjit/adjit.h>

#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) return 2;

  // A module compiled from text.
  adjit::Executable mlp = adjit::Program::parse_file(argv[1]).compile();
  std::vector<adjit::Array> inputs;
  uint64_t seed = 1;
  for (const adjit::TensorType& type : mlp.signature("mlp").inputs)
    inputs.push_back(adjit::Array::randn(type.shape, seed++));
  adjit::Array probs = mlp.run("mlp", inputs).at(0);
  const float* p = probs.data<float>();
  for (int row = 0; row < probs.shape()[0]; ++row) {
    double sum = 0;
    for (int col = 0; col < probs.shape()[1]; ++col) sum += p[row * probs.shape()[1] + col];
    if (std::abs(sum - 1.0) > 1e-5) return 1;
  }
  std::cout << "rows sum to 1\n";

  // The example at the top of DESIGN.md §5: a GradientTape in a jitted step.
  auto step = adjit::jit([](adjit::Tensor w, adjit::Tensor x, adjit::Tensor y) {
    adjit::GradientTape tape;
    tape.watch(w);
    adjit::Tensor loss = adjit::mean(adjit::square(adjit::matmul(x, w) - y));
    adjit::Tensor gw = tape.gradient(loss, w);
    return std::make_tuple(loss, w - 0.1 * gw);
  });
  adjit::Array w = adjit::Array::zeros({3, 1});
  adjit::Array x = adjit::Array::randn({8, 3}, 7), y = adjit::Array::randn({8, 1}, 8);
  auto [loss0, w1] = step(w, x, y);
  auto [loss1, w2] = step(w1, x, y);
  std::cout << "loss " << loss0.item<float>() << " -> " << loss1.item<float>() << "\n";
  if (!(loss1.item<float>() < loss0.item<float>())) return 1;
  // And the functional API.
  adjit::Array g = adjit::grad([](adjit::Tensor v) { return adjit::sum(v * v); })(x);
  if (std::abs(g.data<float>()[0] - 2 * x.data<float>()[0]) > 1e-6) return 1;
  std::cout << "jit works\n";
  return 0;
}
