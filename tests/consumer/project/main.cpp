// A program outside the adjit tree: only <adjit/adjit.h> and adjit::adjit.
#include <adjit/adjit.h>

#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  adjit::Executable mlp = adjit::Program::parse_file(argv[1]).compile();
  std::vector<adjit::Array> inputs;
  uint64_t seed = 1;
  for (const adjit::TensorType& type : mlp.signature("mlp").inputs)
    inputs.push_back(adjit::Array::randn(type.shape, seed++));
  adjit::Array probs = mlp.run("mlp", inputs).at(0);
  std::cout << probs << "\n";
  const float* p = probs.data<float>();
  for (int row = 0; row < probs.shape()[0]; ++row) {
    double sum = 0;
    for (int col = 0; col < probs.shape()[1]; ++col) sum += p[row * probs.shape()[1] + col];
    if (std::abs(sum - 1.0) > 1e-5) return 1;
  }
  std::cout << "rows sum to 1\n";
  return 0;
}
