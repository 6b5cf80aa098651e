// A tf.function-style training step: a GradientTape inside a jitted
// function, as in TensorFlow. Linear regression with known weights.
#include <adjit/adjit.h>

#include <iostream>

using adjit::Array;
using adjit::Tensor;

int main() {
  auto step = adjit::jit([](Tensor w, Tensor b, Tensor x, Tensor y) {
    adjit::GradientTape tape;
    tape.watch(w);
    tape.watch(b);
    Tensor prediction = adjit::matmul(x, w) + b;
    Tensor loss = adjit::mean(adjit::square(prediction - y));
    auto [gw, gb] = tape.gradient(loss, w, b);
    return std::make_tuple(loss, w - 0.1 * gw, b - 0.1 * gb);
  });

  // y = x @ [2, -3, 0.5] + 1
  Array x = Array::randn({64, 3}, 11);
  std::vector<float> ys;
  const float* xs = x.data<float>();
  for (int i = 0; i < 64; ++i) ys.push_back(2 * xs[3 * i] - 3 * xs[3 * i + 1] + 0.5f * xs[3 * i + 2] + 1);
  Array y = Array::from(ys, {64, 1});

  Array w = Array::zeros({3, 1}), b = Array::zeros({1});
  for (int i = 0; i <= 200; ++i) {
    auto [loss, w2, b2] = step(w, b, x, y);
    w = w2;
    b = b2;
    if (i % 50 == 0) std::cout << "step " << i << "  loss " << loss << "\n";
  }
  std::cout << "learned w = " << w << ", b = " << b << " (true: [2, -3, 0.5], 1)\n";
}
