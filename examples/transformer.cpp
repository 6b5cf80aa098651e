// Train a one-layer causal transformer (token and position embeddings,
// multi-head self-attention, an MLP with GELU, LayerNorm) with Adam, all in
// one jitted step. Attention's products have two batch dimensions (batch
// and heads), each a GEMM kernel call. The task needs attention: predict,
// at each position, the token two positions back.
// Run: build/examples/adjit-example-transformer
#include <adjit/adjit.h>

#include <cmath>
#include <cstdio>

using adjit::Array;
using adjit::Tensor;

constexpr int64_t kBatch = 16, kTime = 24, kVocab = 16, kModel = 32, kHeads = 2,
                  kDepth = kModel / kHeads, kHidden = 64;

Tensor layernorm(const Tensor& x, const Tensor& gain, const Tensor& bias) {
  Tensor centered = x - adjit::mean(x, {-1}, true);
  Tensor variance = adjit::mean(centered * centered, {-1}, true);
  return centered * adjit::rsqrt(variance + 1e-5) * gain + bias;
}

// [batch * time, model] -> [batch, heads, time, depth]
Tensor split_heads(const Tensor& x) {
  return adjit::transpose(adjit::reshape(x, {kBatch, kTime, kHeads, kDepth}), {0, 2, 1, 3});
}

// Parameters: token and position embeddings, Wq, Wk, Wv, Wo, LayerNorm gain
// and bias, MLP in and out with biases, a final LayerNorm, the readout.
enum { kTokens, kPositions, kQ, kK, kV, kO, kGain1, kBias1, kIn, kInBias, kOut, kOutBias,
       kGain2, kBias2, kReadout, kParameters };

Tensor loss_fn(const std::vector<Tensor>& p, const Tensor& tokens, const Tensor& targets) {
  Tensor x = adjit::reshape(adjit::take(p[kTokens], tokens, 0), {kBatch, kTime, kModel}) +
             p[kPositions];
  x = adjit::reshape(x, {kBatch * kTime, kModel});
  Tensor q = split_heads(adjit::matmul(x, p[kQ])), k = split_heads(adjit::matmul(x, p[kK])),
         v = split_heads(adjit::matmul(x, p[kV]));
  Tensor scores = adjit::matmul(q, adjit::transpose(k, {0, 1, 3, 2})) / std::sqrt(double(kDepth));
  Tensor later = adjit::expand_dims(adjit::arange(kTime), 0) >
                 adjit::expand_dims(adjit::arange(kTime), 1);  // [query, key]
  Tensor weights = adjit::softmax(adjit::where(later, adjit::full({}, -1e9), scores), -1);
  Tensor heads = adjit::transpose(adjit::matmul(weights, v), {0, 2, 1, 3});
  x = x + adjit::matmul(adjit::reshape(heads, {kBatch * kTime, kModel}), p[kO]);
  Tensor hidden = adjit::gelu(adjit::matmul(layernorm(x, p[kGain1], p[kBias1]), p[kIn]) + p[kInBias]);
  x = x + adjit::matmul(hidden, p[kOut]) + p[kOutBias];
  Tensor logits = adjit::matmul(layernorm(x, p[kGain2], p[kBias2]), p[kReadout]);
  Tensor log_probs = adjit::log_softmax(logits, -1);
  return -adjit::mean(adjit::sum(log_probs * adjit::one_hot(targets, kVocab), {1}));
}

int main() {
  auto u = [](adjit::Shape shape, uint64_t seed, double scale) {
    return Array::uniform(shape, seed, -scale, scale);
  };
  std::vector<Array> params = {
      u({kVocab, kModel}, 1, 1.0), u({kTime, kModel}, 2, 1.0),
      u({kModel, kModel}, 3, 0.3), u({kModel, kModel}, 4, 0.3), u({kModel, kModel}, 5, 0.3),
      u({kModel, kModel}, 6, 0.3), Array::ones({kModel}), Array::zeros({kModel}),
      u({kModel, kHidden}, 7, 0.3), Array::zeros({kHidden}), u({kHidden, kModel}, 8, 0.2),
      Array::zeros({kModel}), Array::ones({kModel}), Array::zeros({kModel}),
      u({kModel, kVocab}, 9, 0.3)};
  std::vector<Array> first_moments, second_moments;
  for (const Array& p : params) {
    first_moments.push_back(Array::zeros(p.shape()));
    second_moments.push_back(Array::zeros(p.shape()));
  }

  // One Adam step (learning rate 0.01): the loss, its gradient and the
  // update of every parameter and moment, compiled once.
  auto step = adjit::jit([](std::vector<Tensor> p, std::vector<Tensor> m, std::vector<Tensor> s,
                            Tensor tokens, Tensor targets, Tensor t) {
    auto [loss, grads] = adjit::value_and_grad(loss_fn)(p, tokens, targets);
    std::vector<Tensor> next_p, next_m, next_s;
    for (size_t i = 0; i < p.size(); ++i) {
      next_m.push_back(0.9 * m[i] + 0.1 * grads[i]);
      next_s.push_back(0.999 * s[i] + 0.001 * grads[i] * grads[i]);
      Tensor corrected_m = next_m[i] / (1.0 - adjit::pow(adjit::full({}, 0.9), t));
      Tensor corrected_s = next_s[i] / (1.0 - adjit::pow(adjit::full({}, 0.999), t));
      next_p.push_back(p[i] - 0.01 * corrected_m / (adjit::sqrt(corrected_s) + 1e-8));
    }
    return std::make_tuple(loss, next_p, next_m, next_s);
  });

  float first = 0, last = 0;
  for (int iteration = 1; iteration <= 150; ++iteration) {
    // Random tokens; the target at position i is the token at i - 2 (0 for
    // the first two positions).
    std::vector<int32_t> tokens = Array::uniform({kBatch * kTime}, 1000 + iteration, 0, kVocab,
                                                 adjit::DType::i32).to_vector<int32_t>();
    std::vector<int32_t> targets(tokens.size(), 0);
    for (int64_t b = 0; b < kBatch; ++b)
      for (int64_t i = 2; i < kTime; ++i) targets[b * kTime + i] = tokens[b * kTime + i - 2];
    auto [loss, p, m, s] = step(params, first_moments, second_moments,
                                Array::from(tokens, {kBatch * kTime}),
                                Array::from(targets, {kBatch * kTime}),
                                Array::from<float>({float(iteration)}, {}));
    params = std::move(p);
    first_moments = std::move(m);
    second_moments = std::move(s);
    last = loss.item<float>();
    if (iteration == 1) first = last;
    if (iteration % 50 == 0) std::printf("iteration %3d  loss %.4f\n", iteration, last);
  }
  // Chance is log(16) = 2.77 nats; having learned to look two tokens back,
  // the model is far below it.
  std::printf("loss fell from %.4f to %.4f\n", first, last);
  return last < 0.05f * first ? 0 : 1;
}
