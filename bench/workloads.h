#pragma once

// The traced functions of the workloads of DESIGN.md §6 and their inputs,
// shared by adjit-bench (through the JIT) and adjit-aot-bench's generator
// (ahead of time).

#include <adjit/adjit.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace bench {

// W1: an elementwise function summed, over 4M elements (smoke: 4096).
int64_t w1_size(bool smoke);
adjit::Tensor w1_function(adjit::Tensor x);

// W2: an MLP's mean softmax cross-entropy and its SGD step.
struct MlpSizes {
  int64_t batch, in, hidden, classes;
};
MlpSizes w2_sizes(bool smoke);
adjit::Tensor w2_loss(const std::vector<adjit::Tensor>& p, const adjit::Tensor& x,
                      const adjit::Tensor& labels);
// The loss and the parameters after one step of SGD (learning rate 0.01).
std::pair<adjit::Tensor, std::vector<adjit::Tensor>> w2_step(const std::vector<adjit::Tensor>& p,
                                                              const adjit::Tensor& x,
                                                              const adjit::Tensor& labels);
// Glorot-uniform weights and zero biases.
std::vector<adjit::Array> w2_params(const MlpSizes& z);

// W3: LayerNorm + GELU of rows, weighted and summed.
struct RowsSizes {
  int64_t rows, cols;
};
RowsSizes w3_sizes(bool smoke);
adjit::Tensor w3_loss(const adjit::Tensor& x, const adjit::Tensor& gamma,
                      const adjit::Tensor& beta, const adjit::Tensor& c);

}  // namespace bench
