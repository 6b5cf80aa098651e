// Long programs: a gradient whose loop body is longer than the limit for
// LLVM's optimizing code generation (CpuBackend.h) gets its machine code at
// -O0, one a quarter as long is tuned for generic x86-64, and both compute
// the same numbers as a plain C++ reference.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using namespace adjit;

namespace {

// The number of instructions in the longest basic block of LLVM IR text: a
// block starts at a function's `define` or at a label, and its instructions
// are its indented lines.
size_t longest_block(const std::string& llvm_ir) {
  std::istringstream lines(llvm_ir);
  std::string line;
  size_t longest = 0, current = 0;
  while (std::getline(lines, line)) {
    bool label = !line.empty() && line[0] != ' ' && line.find(':') != std::string::npos &&
                 line.rfind("define", 0) != 0 && line[0] != ';';
    if (line.rfind("define", 0) == 0 || label || line == "}") {
      longest = std::max(longest, current);
      current = 0;
    } else if (line.rfind("  ", 0) == 0 && line.find_first_not_of(' ') != std::string::npos) {
      ++current;
    }
  }
  return std::max(longest, current);
}

}  // namespace

namespace {

// A residual chain of `steps`: every step reads the previous one, so the
// backward pass keeps all forward values, and the derivative of each step,
// 1 + 0.01 cos(y), keeps the gradient well away from 0 and infinity. Its
// gradient's longest block must lie in (`shortest`, `longest`]
// instructions, and its numbers match a plain C++ reference.
void check_long_chain_gradient(int steps, size_t shortest, size_t longest) {
  auto chain = [steps](Tensor x) {
    Tensor y = x;
    for (int i = 0; i < steps; ++i) y = y + sin(y) * 0.01;
    return sum(y);
  };
  std::vector<float> xs(16);
  for (int i = 0; i < 16; ++i) xs[i] = -2.0f + 0.25f * float(i);
  Array x = Array::from(xs, {16});
  auto gradient = jit(grad(chain), {.name = "long_chain_grad"});

  size_t block = longest_block(gradient.lower(x).ir("llvm-ir"));
  CHECK(block > shortest);
  CHECK(block <= longest);

  std::vector<float> got = gradient(x).to_vector<float>();
  for (int i = 0; i < 16; ++i) {
    double y = xs[i], derivative = 1;
    for (int step = 0; step < steps; ++step) {
      derivative *= 1 + 0.01 * std::cos(y);
      y += 0.01 * std::sin(y);
    }
    INFO("element " << i << ": adjit " << got[i] << ", reference " << derivative);
    CHECK(std::abs(got[i] - derivative) <= 1e-3 * std::abs(derivative));
  }
}

}  // namespace

TEST_CASE("long programs: a gradient past the optimizing code generator's block limit",
          "[jit][long]") {
  check_long_chain_gradient(1500, 8000, SIZE_MAX);  // -O0 code generation
}

TEST_CASE("long programs: a gradient tuned for generic x86-64 in code generation",
          "[jit][long]") {
  // Past 2,000 instructions (CpuBackend.h), not 8,000.
  check_long_chain_gradient(400, 2000, 8000);
}

TEST_CASE("long programs: a function of many loop nests runs each nest as a function of its own",
          "[jit][long]") {
  // 30 layers of tanh(h W_i), too small for the GEMM kernels: a loop nest
  // per product in the forward pass and two per layer in the backward pass,
  // far past the 64 nests (adjit-outline-loop-nests) above which each nest
  // gets a function: LLVM's loop passes would take time quadratic in their
  // number in one function. Identical nests share one.
  constexpr int kLayers = 30, kWidth = 8;
  auto network = [](std::vector<Tensor> weights, Tensor x) {
    Tensor h = x;
    for (const Tensor& w : weights) h = tanh(matmul(h, w));
    return sum(h * h);
  };
  std::vector<Array> weights;
  for (int i = 0; i < kLayers; ++i)
    weights.push_back(Array::uniform({kWidth, kWidth}, 100 + i, -0.6, 0.6));
  Array x = Array::uniform({4, kWidth}, 7, -1, 1);
  auto value_and_gradient =
      jit(value_and_grad<1>(network), {.name = "many_loop_nests"});

  std::string llvm_ir = value_and_gradient.lower(weights, x).ir("llvm-ir");
  auto count = [&](const std::string& text) {
    size_t found = 0;
    for (size_t at = llvm_ir.find(text); at != std::string::npos; at = llvm_ir.find(text, at + 1))
      ++found;
    return found;
  };
  CHECK(count("call void @many_loop_nests_nest") + count("call fastcc void @many_loop_nests_nest") >
        64);
  // The layers' nests are alike: one function serves each kind.
  CHECK(count("\ndefine ") < kLayers);
  CHECK(longest_block(llvm_ir) < 8000);  // the optimizing code generator

  // The reference: the forward pass row by row, then the backward pass.
  std::vector<std::vector<double>> h(kLayers + 1, std::vector<double>(4 * kWidth));
  for (int i = 0; i < 4 * kWidth; ++i) h[0][i] = x.to_vector<float>()[i];
  for (int l = 0; l < kLayers; ++l) {
    std::vector<float> w = weights[l].to_vector<float>();
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < kWidth; ++c) {
        double s = 0;
        for (int k = 0; k < kWidth; ++k) s += h[l][r * kWidth + k] * w[k * kWidth + c];
        h[l + 1][r * kWidth + c] = std::tanh(s);
      }
  }
  double value = 0;
  std::vector<double> g(4 * kWidth);
  for (int i = 0; i < 4 * kWidth; ++i) {
    value += h[kLayers][i] * h[kLayers][i];
    g[i] = 2 * h[kLayers][i];
  }
  for (int l = kLayers - 1; l >= 0; --l) {
    std::vector<float> w = weights[l].to_vector<float>();
    std::vector<double> previous(4 * kWidth, 0.0);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < kWidth; ++c) {
        double dy = g[r * kWidth + c] * (1 - h[l + 1][r * kWidth + c] * h[l + 1][r * kWidth + c]);
        for (int k = 0; k < kWidth; ++k) previous[r * kWidth + k] += dy * w[k * kWidth + c];
      }
    g = previous;
  }
  auto [got_value, got_gradient] = value_and_gradient(weights, x);
  CHECK(std::abs(got_value.item<float>() - value) <= 1e-4 * (1 + std::abs(value)));
  std::vector<float> got = got_gradient.to_vector<float>();
  for (int i = 0; i < 4 * kWidth; ++i) {
    INFO("element " << i << ": adjit " << got[i] << ", reference " << g[i]);
    CHECK(std::abs(got[i] - g[i]) <= 1e-4 * (1 + std::abs(g[i])));
  }
}

TEST_CASE("long programs: the nests of a program tiled by rows run as functions of their own",
          "[jit][long]") {
  // A residual chain on 4 rows, differentiated w.r.t. its weights: fusion
  // tiles the whole program by rows, one loop around all of its nests. They
  // must still become functions (a chain of 200 once made one LLVM function
  // of 47,000 lines: 37 s to compile, 15 s now).
  constexpr int kSteps = 70, kWidth = 16, kRows = 4;
  auto chain = [](Tensor w, Tensor x) {
    for (int i = 0; i < kSteps; ++i) x = x + 0.1 * tanh(matmul(x, w) + 0.01 * i);
    return sum(x * x);
  };
  Array w = Array::uniform({kWidth, kWidth}, 3, -0.5, 0.5, DType::f64);
  Array x = Array::uniform({kRows, kWidth}, 4, -1, 1, DType::f64);
  auto gradient = jit(grad(chain), {.name = "row_tiled_chain"});
  std::string llvm_ir = gradient.lower(w, x).ir("llvm-ir");
  size_t calls = 0;
  for (size_t at = llvm_ir.find("@row_tiled_chain_nest"); at != std::string::npos;
       at = llvm_ir.find("@row_tiled_chain_nest", at + 1))
    calls += llvm_ir.compare(llvm_ir.rfind('\n', at) + 1, 6, "define") != 0;
  CHECK(calls > 64);
  CHECK(longest_block(llvm_ir) < 8000);

  // Against central differences of a plain C++ forward pass in f64.
  std::vector<double> ws = w.to_vector<double>(), xs = x.to_vector<double>();
  auto forward = [&](const std::vector<double>& weights) {
    std::vector<double> h = xs;
    for (int i = 0; i < kSteps; ++i) {
      std::vector<double> next = h;
      for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < kWidth; ++c) {
          double s = 0.01 * i;
          for (int k = 0; k < kWidth; ++k) s += h[r * kWidth + k] * weights[k * kWidth + c];
          next[r * kWidth + c] += 0.1 * std::tanh(s);
        }
      h = next;
    }
    double total = 0;
    for (double v : h) total += v * v;
    return total;
  };
  std::vector<double> got = gradient(w, x).to_vector<double>();
  for (int e : {0, 17, 100, 255}) {
    std::vector<double> up = ws, down = ws;
    up[e] += 1e-6;
    down[e] -= 1e-6;
    double want = (forward(up) - forward(down)) / 2e-6;
    INFO("weight " << e << ": adjit " << got[e] << ", central difference " << want);
    CHECK(std::abs(got[e] - want) <= 1e-6 * (1 + std::abs(want)));
  }
}

TEST_CASE("long programs: a long product's gradient fuses past the rewrite driver's rounds",
          "[jit][long]") {
  // A product of 24 rows and its gradient took elementwise fusion more than
  // the greedy driver's default 10 rounds, which failed the compilation
  // ("lowering to the 'llvm' stage failed:", with no reason).
  constexpr int kFactors = 24, kColumns = 37;
  auto product = [](Tensor x) {
    Tensor p = slice(x, {0, 0}, {1, kColumns});
    for (int j = 1; j < kFactors; ++j) p = p * slice(x, {j, 0}, {j + 1, kColumns});
    return sum(p);
  };
  std::vector<double> xs(kFactors * kColumns);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = 1 + 0.1 * std::sin(0.7 * static_cast<double>(i));
  auto [value, gradient] =
      jit(value_and_grad(product))(Array::from<double>(xs, {kFactors, kColumns}));
  double want_value = 0;
  std::vector<double> got = gradient.to_vector<double>();
  for (int c = 0; c < kColumns; ++c) {
    double column = 1;
    for (int j = 0; j < kFactors; ++j) column *= xs[j * kColumns + c];
    want_value += column;
    for (int j = 0; j < kFactors; ++j) {
      double others = 1;
      for (int i = 0; i < kFactors; ++i)
        if (i != j) others *= xs[i * kColumns + c];
      INFO("factor " << j << ", column " << c);
      CHECK(std::abs(got[j * kColumns + c] - others) <= 1e-12 * std::abs(others));
    }
  }
  CHECK(std::abs(value.item<double>() - want_value) <= 1e-12 * std::abs(want_value));
}
