// Long programs: a gradient whose loop body is longer than the limit for
// LLVM's optimizing code generation (CpuBackend.h) gets its machine code at
// -O0, and computes the same numbers as a plain C++ reference.
#include "test_support.h"

#include <algorithm>
#include <cmath>
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

TEST_CASE("long programs: a gradient past the optimizing code generator's block limit",
          "[jit][long]") {
  // A residual chain: every step reads the previous one, so the backward
  // pass keeps all 1,500 forward values, and the derivative of each step,
  // 1 + 0.01 cos(y), keeps the gradient well away from 0 and infinity.
  constexpr int kSteps = 1500;
  auto chain = [](Tensor x) {
    Tensor y = x;
    for (int i = 0; i < kSteps; ++i) y = y + sin(y) * 0.01;
    return sum(y);
  };
  std::vector<float> xs(16);
  for (int i = 0; i < 16; ++i) xs[i] = -2.0f + 0.25f * float(i);
  Array x = Array::from(xs, {16});
  auto gradient = jit(grad(chain), {.name = "long_chain_grad"});

  // The case under test: the block is past the limit (8,000 instructions).
  CHECK(longest_block(gradient.lower(x).ir("llvm-ir")) > 8000);

  std::vector<float> got = gradient(x).to_vector<float>();
  for (int i = 0; i < 16; ++i) {
    double y = xs[i], derivative = 1;
    for (int step = 0; step < kSteps; ++step) {
      derivative *= 1 + 0.01 * std::cos(y);
      y += 0.01 * std::sin(y);
    }
    INFO("element " << i << ": adjit " << got[i] << ", reference " << derivative);
    CHECK(std::abs(got[i] - derivative) <= 1e-3 * std::abs(derivative));
  }
}
