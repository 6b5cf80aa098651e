// Gradients of the benchmark workloads (DESIGN.md §6) at test size: W1's
// fused elementwise function, W2's MLP with softmax cross-entropy on integer
// labels (8-16-16-4 instead of 784-1024-1024-10) and W3's LayerNorm + GELU
// loss, checked with check_grads in f64 and f32, against host references,
// and through a few SGD steps.
#include "test_support.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

Array randn(const Shape& shape, uint64_t seed, double scale, DType dtype) {
  Vec v = values(Array::randn(shape, seed, F64));
  for (double& x : v) x *= scale;
  return make(v, shape, dtype);
}

//===----------------------------------------------------------------------===//
// W2: MLP, ReLU, softmax cross-entropy (mean) on integer labels
//===----------------------------------------------------------------------===//

constexpr int kBatch = 5, kIn = 8, kHidden = 16, kClasses = 4;
const std::vector<int> kLabels = {2, 0, 3, 1, 3};

Tensor logits_of(const std::vector<Tensor>& p, const Tensor& x) {
  Tensor h1 = relu(matmul(x, p[0]) + p[1]);
  Tensor h2 = relu(matmul(h1, p[2]) + p[3]);
  return matmul(h2, p[4]) + p[5];
}

// Cross-entropy through one_hot.
Tensor mlp_loss(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor logp = log_softmax(logits_of(p, x), -1);
  return -mean(sum(one_hot(labels, kClasses, logp.dtype()) * logp, {1}));
}

// The same loss through take on the flattened log-probabilities.
Tensor mlp_loss_take(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor logp = log_softmax(logits_of(p, x), -1);
  Tensor flat = labels + arange(kBatch, I32) * kClasses;
  return -mean(take(reshape(logp, {-1}), flat, 0));
}

std::vector<Array> mlp_params(DType dtype) {
  return {randn({kIn, kHidden}, 1, 0.4, dtype),      randn({kHidden}, 2, 0.1, dtype),
          randn({kHidden, kHidden}, 3, 0.3, dtype),  randn({kHidden}, 4, 0.1, dtype),
          randn({kHidden, kClasses}, 5, 0.3, dtype), randn({kClasses}, 6, 0.1, dtype)};
}

// Host reference of the loss, in double.
double mlp_loss_reference(const std::vector<Array>& params, const Array& x) {
  std::vector<Vec> p;
  for (const Array& a : params) p.push_back(values(a));
  Vec xv = values(x);
  auto layer = [](const Vec& in, int n_in, const Vec& w, const Vec& b, int n_out, bool relu) {
    Vec out(kBatch * n_out);
    for (int r = 0; r < kBatch; ++r)
      for (int j = 0; j < n_out; ++j) {
        double s = b[j];
        for (int k = 0; k < n_in; ++k) s += in[r * n_in + k] * w[k * n_out + j];
        out[r * n_out + j] = relu ? std::max(s, 0.0) : s;
      }
    return out;
  };
  Vec h1 = layer(xv, kIn, p[0], p[1], kHidden, true);
  Vec h2 = layer(h1, kHidden, p[2], p[3], kHidden, true);
  Vec logits = layer(h2, kHidden, p[4], p[5], kClasses, false);
  double loss = 0;
  for (int r = 0; r < kBatch; ++r) {
    double top = -INFINITY, total = 0;
    for (int j = 0; j < kClasses; ++j) top = std::max(top, logits[r * kClasses + j]);
    for (int j = 0; j < kClasses; ++j) total += std::exp(logits[r * kClasses + j] - top);
    loss -= logits[r * kClasses + kLabels[r]] - top - std::log(total);
  }
  return loss / kBatch;
}

//===----------------------------------------------------------------------===//
// W3: y = gelu_tanh(layernorm(x, 1e-5) * gamma + beta); loss = sum(y * c)
//===----------------------------------------------------------------------===//

constexpr int kRows = 4, kCols = 8;

Tensor layernorm(const Tensor& x, double eps) {
  Tensor mu = mean(x, {-1}, true);
  Tensor centered = x - mu;
  Tensor var = mean(centered * centered, {-1}, true);
  return centered * rsqrt(var + eps);
}

Tensor w3_loss(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& c) {
  return sum(gelu(layernorm(x, 1e-5) * gamma + beta, /*tanh_approx=*/true) * c);
}

double gelu_tanh_derivative(double z) {
  const double k = std::sqrt(2 / std::numbers::pi);
  double u = k * (z + 0.044715 * z * z * z);
  double t = std::tanh(u);
  return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * k * (1 + 3 * 0.044715 * z * z);
}

// W3's loss and its gamma and beta gradients on the host, in double.
struct W3Reference {
  double loss = 0;
  Vec gamma, beta, x;
};

W3Reference w3_reference(const Array& x, const Array& gamma, const Array& beta, const Array& c) {
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  Vec xv = values(x), gv = values(gamma), bv = values(beta), cv = values(c);
  W3Reference want{0, Vec(cols, 0.0), Vec(cols, 0.0), Vec(rows * cols, 0.0)};
  for (int64_t r = 0; r < rows; ++r) {
    double mu = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mu += xv[r * cols + j] / cols;
    for (int64_t j = 0; j < cols; ++j) var += std::pow(xv[r * cols + j] - mu, 2) / cols;
    double rstd = 1 / std::sqrt(var + 1e-5);
    // LayerNorm's input gradient: rstd (g - mean(g) - xhat mean(g xhat)),
    // g = dL/dxhat.
    Vec xhat(cols), g(cols);
    double mean_g = 0, mean_g_xhat = 0;
    for (int64_t j = 0; j < cols; ++j) {
      xhat[j] = (xv[r * cols + j] - mu) * rstd;
      double z = xhat[j] * gv[j] + bv[j];
      double u = std::sqrt(2 / std::numbers::pi) * (z + 0.044715 * z * z * z);
      want.loss += 0.5 * z * (1 + std::tanh(u)) * cv[r * cols + j];
      double dz = gelu_tanh_derivative(z) * cv[r * cols + j];
      want.beta[j] += dz;
      want.gamma[j] += dz * xhat[j];
      g[j] = dz * gv[j];
      mean_g += g[j] / cols;
      mean_g_xhat += g[j] * xhat[j] / cols;
    }
    for (int64_t j = 0; j < cols; ++j)
      want.x[r * cols + j] = rstd * (g[j] - mean_g - xhat[j] * mean_g_xhat);
  }
  return want;
}

Array to_f32(const Array& a) { return make(values(a), a.shape(), F32); }

}  // namespace

TEST_CASE("ad models: W1 elementwise value and grad", "[ad][ad-models]") {
  auto f = [](Tensor x) { return sum(tanh(x) * sigmoid(x) + 0.5 * x * x); };
  Array x = randn({64}, 7, 1.0, F32);
  auto [v, g] = value_and_grad(f)(x);
  Vec xv = values(x), want;
  double value = 0;
  for (double a : xv) {
    double t = std::tanh(a), s = 1 / (1 + std::exp(-a));
    value += t * s + 0.5 * a * a;
    want.push_back((1 - t * t) * s + t * s * (1 - s) + a);
  }
  CHECK(mismatch(v, F32, {}, {value}, 1e-5) == "");
  CHECK(mismatch(g, F32, {64}, want, 1e-5) == "");
  for (DType dtype : {F32, F64})
    expect_grads("W1", FN(f(x[0])), {randn({16}, 8, 1.0, dtype)});
}

TEST_CASE("ad models: W2 MLP gradients with check_grads (f64, f32)", "[ad][ad-models]") {
  for (DType dtype : {F64, F32}) {
    std::vector<Array> args = mlp_params(dtype);
    args.push_back(randn({kBatch, kIn}, 9, 1.0, dtype));
    Fn one_hot_loss = FN(mlp_loss({x[0], x[1], x[2], x[3], x[4], x[5]}, x[6], ints(kLabels)));
    Fn take_loss = FN(mlp_loss_take({x[0], x[1], x[2], x[3], x[4], x[5]}, x[6], ints(kLabels)));
    expect_grads(std::string("W2 one_hot ") + std::string(dtype_name(dtype)), one_hot_loss, args);
    expect_grads(std::string("W2 take ") + std::string(dtype_name(dtype)), take_loss, args);
    // Integer labels as an argument (not perturbed by check_grads).
    args.push_back(Array::from<int32_t>(std::vector<int32_t>(kLabels.begin(), kLabels.end()),
                                        {kBatch}));
    expect_grads(std::string("W2 i32 labels ") + std::string(dtype_name(dtype)),
                 FN(mlp_loss({x[0], x[1], x[2], x[3], x[4], x[5]}, x[6], x[7])), args);
  }
}

TEST_CASE("ad models: W2 gradients with integer labels, vector params, tape and SGD",
          "[ad][ad-models]") {
  std::vector<Array> params = mlp_params(F64);
  Array x = randn({kBatch, kIn}, 9, 1.0, F64);
  Array labels = Array::from<int32_t>(std::vector<int32_t>(kLabels.begin(), kLabels.end()),
                                      {kBatch});
  // Value against the host reference.
  auto [loss, grads] = value_and_grad(mlp_loss)(params, x, labels);
  CHECK(mismatch(loss, F64, {}, {mlp_loss_reference(params, x)}, 1e-12) == "");
  REQUIRE(grads.size() == 6);
  for (size_t i = 0; i < 6; ++i) CHECK(grads[i].shape() == params[i].shape());
  // The take form and the tape form give the same gradients.
  std::vector<Array> take_grads = grad(mlp_loss_take)(params, x, labels);
  auto tape_grads = jit([](const std::vector<Tensor>& p, Tensor x, Tensor labels) {
    GradientTape tape;
    tape.watch(p);
    return tape.gradient(mlp_loss(p, x, labels), p);
  })(params, x, labels);
  REQUIRE(take_grads.size() == 6);
  REQUIRE(tape_grads.size() == 6);
  for (size_t i = 0; i < 6; ++i) {
    INFO("parameter " << i);
    CHECK(mismatch(take_grads[i], grads[i], 1e-12) == "");
    CHECK(mismatch(tape_grads[i], grads[i], 1e-12) == "");
  }
  // Bias of the last layer: mean over the batch of softmax - one_hot; it
  // sums to zero over classes.
  Vec gb = values(grads[5]);
  double total = 0;
  for (double v : gb) total += v;
  CHECK(std::fabs(total) < 1e-12);

  // A jitted SGD step (lr 0.1) over all weights and biases, f32.
  auto step = jit([](const std::vector<Tensor>& p, Tensor x, Tensor labels) {
    auto [l, g] = value_and_grad(mlp_loss)(p, x, labels);
    std::vector<Tensor> next;
    for (size_t i = 0; i < p.size(); ++i) next.push_back(p[i] - 0.1 * g[i]);
    return std::make_tuple(l, next);
  });
  std::vector<Array> p32 = mlp_params(F32);
  Array x32 = randn({kBatch, kIn}, 9, 1.0, F32);
  std::vector<float> losses;
  for (int i = 0; i < 8; ++i) {
    auto [l, next] = step(p32, x32, labels);
    losses.push_back(l.item<float>());
    p32 = next;
  }
  CHECK(losses.back() < losses.front());
  CHECK(step.cache_info().misses == 1);
}

TEST_CASE("ad models: W3 LayerNorm + GELU gradients with check_grads (f64, f32)",
          "[ad][ad-models]") {
  for (DType dtype : {F64, F32}) {
    Array x = randn({kRows, kCols}, 11, 1.5, dtype), gamma = randn({kCols}, 12, 0.5, dtype),
          beta = randn({kCols}, 13, 0.5, dtype), c = randn({kRows, kCols}, 14, 1.0, dtype);
    // Everything differentiated, c included.
    expect_grads(std::string("W3 ") + std::string(dtype_name(dtype)), FN(w3_loss(x[0], x[1], x[2], x[3])),
                 {x, gamma, beta, c});
  }
  Array x = randn({kRows, kCols}, 11, 1.5, F64), gamma = randn({kCols}, 12, 0.5, F64),
        beta = randn({kCols}, 13, 0.5, F64), c = randn({kRows, kCols}, 14, 1.0, F64);
  expect_grads("W3 order 2", FN(w3_loss(x[0], x[1], x[2], x[3])), {x, gamma, beta, c}, 2);
}

TEST_CASE("ad models: W3 grads w.r.t. x, gamma, beta against host references", "[ad][ad-models]") {
  Array x = randn({kRows, kCols}, 11, 1.5, F64), gamma = randn({kCols}, 12, 0.5, F64),
        beta = randn({kCols}, 13, 0.5, F64), c = randn({kRows, kCols}, 14, 1.0, F64);
  auto [gx, ggamma, gbeta] = grad<0, 1, 2>(w3_loss)(x, gamma, beta, c);
  W3Reference want = w3_reference(x, gamma, beta, c);
  CHECK(mismatch(gbeta, F64, {kCols}, want.beta, 1e-9) == "");
  CHECK(mismatch(ggamma, F64, {kCols}, want.gamma, 1e-9) == "");
  CHECK(mismatch(gx, F64, {kRows, kCols}, want.x, 1e-9) == "");
  // LayerNorm is shift invariant per row: each row of dL/dx sums to zero.
  REQUIRE(gx.shape() == Shape{kRows, kCols});
  Vec g = values(gx);
  for (int r = 0; r < kRows; ++r) {
    double total = 0, scale = 0;
    for (int j = 0; j < kCols; ++j) {
      total += g[r * kCols + j];
      scale += std::fabs(g[r * kCols + j]);
    }
    CHECK(std::fabs(total) <= 1e-10 * (1 + scale));
  }
  // f32 grads agree with f64 to f32 accuracy.
  auto [gx32, ggamma32, gbeta32] =
      grad<0, 1, 2>(w3_loss)(to_f32(x), to_f32(gamma), to_f32(beta), to_f32(c));
  CHECK(mismatch(gx32, F32, gx.shape(), values(gx), 1e-4) == "");
  CHECK(mismatch(ggamma32, F32, {kCols}, want.gamma, 1e-4) == "");
  CHECK(mismatch(gbeta32, F32, {kCols}, want.beta, 1e-4) == "");
}

// Large enough for the fused stage to run W3 block by block in parallel
// chunks (1024 rows), with W3's own rows (1024 columns, whose f32 GELU pass
// adjit-pipeline-loops software-pipelines, as it does at 256), and with a
// row count that leaves a tail block (509, prime): the same numbers as the
// host reference, and the same bits for every thread count since chunks
// do not depend on it.
TEST_CASE("ad models: W3 at blocked sizes, every thread count, against host references",
          "[ad][ad-models][threads]") {
  for (auto [rows, cols] : {std::pair{1024, 256}, std::pair{48, 1024}, std::pair{509, 96}}) {
    CAPTURE(rows, cols);
    Array x = randn({rows, cols}, 21, 1.5, F64), gamma = randn({cols}, 22, 0.5, F64),
          beta = randn({cols}, 23, 0.5, F64), c = randn({rows, cols}, 24, 1.0, F64);
    W3Reference want = w3_reference(x, gamma, beta, c);
    std::vector<Vec> first;
    for (int threads : {1, 2, 3}) {
      CAPTURE(threads);
      auto step = jit(
          [](Tensor x, Tensor gamma, Tensor beta, Tensor c) {
            auto [loss, grads] = value_and_grad<0, 1, 2>(w3_loss)(x, gamma, beta, c);
            auto [gx, ggamma, gbeta] = grads;
            return std::tuple{loss, gx, ggamma, gbeta};
          },
          {.name = "w3_step", .threads = threads});
      auto [loss, gx, ggamma, gbeta] = step(x, gamma, beta, c);
      CHECK(mismatch(loss, F64, {}, {want.loss}, 1e-9) == "");
      CHECK(mismatch(ggamma, F64, {cols}, want.gamma, 1e-9) == "");
      CHECK(mismatch(gbeta, F64, {cols}, want.beta, 1e-9) == "");
      CHECK(mismatch(gx, F64, {rows, cols}, want.x, 1e-9) == "");
      auto [loss32, gx32, ggamma32, gbeta32] =
          step(to_f32(x), to_f32(gamma), to_f32(beta), to_f32(c));
      CHECK(mismatch(gx32, F32, gx.shape(), values(gx), 1e-4) == "");
      // The forward alone: its row loop sums each next row inside the
      // GELU pass (adjit-overlap-row-reductions).
      auto forward = jit(w3_loss, {.name = "w3_forward", .threads = threads});
      CHECK(mismatch(forward(x, gamma, beta, c), F64, {}, {want.loss}, 1e-9) == "");
      Array loss32_forward = forward(to_f32(x), to_f32(gamma), to_f32(beta), to_f32(c));
      CHECK(mismatch(loss32_forward, F32, {}, {want.loss}, 1e-4) == "");
      std::vector<Vec> bits = {values(loss32), values(gx32), values(ggamma32), values(gbeta32),
                               values(loss32_forward)};
      if (first.empty())
        first = bits;
      else
        CHECK(bits == first);
    }
  }
}
