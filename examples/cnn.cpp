// Train a small convolutional network to tell stripes apart (horizontal,
// vertical, diagonal; random phase and noise) with jit(value_and_grad) and
// SGD: a 3x3 convolution, a 2x2 max pool, a strided convolution, a
// depthwise one, global average pooling and a dense layer. Run: build/examples/adjit-example-cnn
#include <adjit/adjit.h>

#include <cmath>
#include <iostream>

using adjit::Array;
using adjit::ConvOptions;
using adjit::Padding;
using adjit::Tensor;

constexpr int kSize = 16, kClasses = 3;

// Logits of images [batch, 16, 16, 1] (channels last).
Tensor logits_of(const std::vector<Tensor>& p, const Tensor& images) {
  Tensor h = adjit::relu(adjit::conv(images, p[0], {.padding = Padding::same}) + p[1]);
  h = adjit::max_pool(h, {2, 2}, {.strides = {2, 2}});  // 8 x 8
  h = adjit::relu(adjit::conv(h, p[2], {.strides = {2, 2}, .padding = Padding::same}) + p[3]);
  // Depthwise: each of the 16 channels filtered on its own.
  h = adjit::relu(adjit::conv(h, p[4], {.padding = Padding::same, .feature_group_count = 16}));
  Tensor pooled = adjit::mean(h, {1, 2});  // [batch, 16]
  return adjit::matmul(pooled, p[5]) + p[6];
}

Tensor loss_fn(const std::vector<Tensor>& p, const Tensor& images, const Tensor& labels) {
  Tensor log_probs = adjit::log_softmax(logits_of(p, images), 1);
  return -adjit::mean(adjit::sum(log_probs * adjit::one_hot(labels, kClasses), {1}));
}

// Stripes of period 4 along rows (class 0), columns (1) or diagonals (2).
std::pair<Array, Array> stripes(int count, uint64_t seed) {
  Array noise = Array::randn({count, kSize, kSize, 1}, seed);
  Array phases = Array::uniform({count}, seed + 1, 0, 6.2832);
  std::vector<float> pixels;
  std::vector<int32_t> labels;
  for (int n = 0; n < count; ++n) {
    int label = n % kClasses;
    for (int i = 0; i < kSize; ++i)
      for (int j = 0; j < kSize; ++j) {
        float along = label == 0 ? i : label == 1 ? j : 0.7071f * (i + j);
        pixels.push_back(std::sin(1.5708f * along + phases.data<float>()[n]) +
                         0.3f * noise.data<float>()[(n * kSize + i) * kSize + j]);
      }
    labels.push_back(label);
  }
  return {Array::from(pixels, {count, kSize, kSize, 1}), Array::from(labels, {count})};
}

int main() {
  auto [images, labels] = stripes(96, 11);
  std::vector<Array> params = {
      Array::uniform({3, 3, 1, 8}, 1, -0.5, 0.5),   Array::zeros({8}),
      Array::uniform({3, 3, 8, 16}, 2, -0.2, 0.2),  Array::zeros({16}),
      Array::uniform({3, 3, 1, 16}, 3, -0.5, 0.5),
      Array::uniform({16, kClasses}, 4, -0.3, 0.3), Array::zeros({kClasses})};

  auto step = adjit::jit(
      [](std::vector<Tensor> p, Tensor x, Tensor y, double lr) {
        auto [loss, grads] = adjit::value_and_grad(loss_fn)(p, x, y);
        std::vector<Tensor> updated;
        for (size_t i = 0; i < p.size(); ++i) updated.push_back(p[i] - lr * grads[i]);
        return std::make_pair(loss, updated);
      },
      {.name = "cnn_sgd_step"});

  float first = 0, last = 0;
  for (int epoch = 0; epoch <= 300; ++epoch) {
    auto [loss, updated] = step(params, images, labels, 0.1);
    params = std::move(updated);
    last = loss.item<float>();
    if (epoch == 0) first = last;
    if (epoch % 50 == 0) std::cout << "epoch " << epoch << "  loss " << last << "\n";
  }

  // Accuracy on images the network has not seen.
  auto [test_images, test_labels] = stripes(60, 99);
  auto predict = adjit::jit([](std::vector<Tensor> p, Tensor x) {
    return adjit::argmax(logits_of(p, x), 1);
  });
  std::vector<int32_t> predicted = predict(params, test_images).to_vector<int32_t>();
  std::vector<int32_t> truth = test_labels.to_vector<int32_t>();
  int correct = 0;
  for (size_t i = 0; i < truth.size(); ++i) correct += predicted[i] == truth[i];
  std::cout << "test accuracy " << correct << "/" << truth.size() << "\n";
  bool learned = last < 0.25f * first && correct >= 54;
  std::cout << (learned ? "learned the stripes\n" : "FAILED to learn\n");
  return learned ? 0 : 1;
}
