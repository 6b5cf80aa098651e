// Generator for the ahead-of-time MLP kernels (run at build time by
// adjit_add_aot_library): writes mlp_forward.{o,h} and mlp_train_step.{o,h},
// and jit_reference.txt, what the JIT computes for the run that mlp_aot.c
// makes, which the example's test compares with the C program's output.
#include <adjit/adjit.h>

#include "mlp_model.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using adjit::Array;
using adjit::Tensor;

namespace {

// probabilities = softmax(relu(x w1 + b1) w2 + b2)
Tensor logits(const std::vector<Tensor>& p, const Tensor& x) {
  return adjit::matmul(adjit::relu(adjit::matmul(x, p[0]) + p[1]), p[2]) + p[3];
}

Tensor mlp_forward(const std::vector<Tensor>& p, const Tensor& x) {
  return adjit::softmax(logits(p, x), -1);
}

Tensor loss(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor logp = adjit::log_softmax(logits(p, x), -1);
  return -adjit::mean(adjit::sum(adjit::one_hot(labels, MLP_CLASSES, logp.dtype()) * logp, {1}));
}

// One SGD step: the loss, then the updated w1, b1, w2, b2.
auto mlp_train_step(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  auto [value, grads] = adjit::value_and_grad(loss)(p, x, labels);
  std::vector<Tensor> next;
  for (size_t i = 0; i < p.size(); ++i) next.push_back(p[i] - 0.1 * grads[i]);
  return std::make_tuple(value, next);
}

Array filled(adjit::Shape shape, unsigned seed, float scale) {
  Array a = Array::zeros(shape);
  mlp_fill(a.data<float>(), static_cast<int>(a.size()), seed, scale);
  return a;
}

void print(std::FILE* out, const char* what, const Array& a, int count) {
  std::fprintf(out, "%s", what);
  for (int i = 0; i < count; ++i) std::fprintf(out, " %.9g", a.data<float>()[i]);
  std::fprintf(out, "\n");
}

}  // namespace

int main(int argc, char** argv) try {
  auto options = adjit::aot::AotOptions::from_command_line(argc, argv);

  std::vector<Array> params = {filled({MLP_IN, MLP_HIDDEN}, 1, 0.3f), filled({MLP_HIDDEN}, 2, 0.1f),
                               filled({MLP_HIDDEN, MLP_CLASSES}, 3, 0.3f),
                               filled({MLP_CLASSES}, 4, 0.1f)};
  Array x = filled({MLP_BATCH, MLP_IN}, 5, 2.0f);
  std::vector<int32_t> label_values(MLP_BATCH);
  for (int row = 0; row < MLP_BATCH; ++row) label_values[row] = mlp_label(row);
  Array labels = Array::from<int32_t>(label_values, {MLP_BATCH});

  // Ahead of time: the forward pass alone, and a whole training step.
  adjit::aot::compile(mlp_forward, options.named("mlp_forward"), params, x);
  adjit::aot::compile(mlp_train_step, options.named("mlp_train_step"), params, x, labels);

  // The same run with the JIT, printed as mlp_aot.c prints it.
  std::string reference = (std::filesystem::path(options.output_dir) / "jit_reference.txt").string();
  std::FILE* out = std::fopen(reference.c_str(), "w");
  if (!out) throw adjit::Error("cannot write " + reference);
  auto forward = adjit::jit(mlp_forward);
  auto step = adjit::jit(mlp_train_step);
  print(out, "probabilities of row 0:", forward(params, x), MLP_CLASSES);
  for (int s = 0; s < MLP_STEPS; ++s) {
    auto [value, next] = step(params, x, labels);
    std::fprintf(out, "step %d loss %.9g\n", s, value.data<float>()[0]);
    params = next;
  }
  print(out, "probabilities of row 0 after training:", forward(params, x), MLP_CLASSES);
  print(out, "b2 after training:", params[3], MLP_CLASSES);
  std::fclose(out);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "mlp_generator: %s\n", e.what());
  return 1;
}
