// Structure-aware fuzz target: the bytes choose a random valid program
// (elementwise math, comparisons and selects, integer powers, relu,
// reductions, broadcasts, contractions, casts, and gradients of the
// result), which is traced, saved as a module, compiled through the module
// path `adjit run` takes, and run twice on random arguments. Both runs,
// and the direct jit call, must give the same bytes; any crash or
// unexpected error is a bug.
#include "adjit/adjit.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using adjit::Array;
using adjit::DType;
using adjit::Tensor;

// Reads choices from the fuzzer's bytes; zeros once they run out.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  unsigned pick(unsigned n) { return n ? next() % n : 0; }
  bool flag() { return next() & 1; }

 private:
  uint8_t next() { return position_ < size_ ? data_[position_++] : 0; }
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// One step of a recipe, replayed identically on every trace.
struct Step {
  unsigned kind, a, b, c;
};

struct Recipe {
  adjit::Shape shape;         // every argument's shape
  std::vector<DType> inputs;  // f32 or f64 floats, then at most one i32
  std::vector<Step> steps;
};

Recipe make_recipe(Choices& choose) {
  Recipe r;
  int rank = static_cast<int>(choose.pick(4));
  for (int d = 0; d < rank; ++d) r.shape.push_back(1 + choose.pick(5));
  DType floating = choose.flag() ? DType::f64 : DType::f32;
  int count = 1 + static_cast<int>(choose.pick(3));
  for (int i = 0; i < count; ++i) r.inputs.push_back(floating);
  if (choose.flag()) r.inputs.push_back(DType::i32);
  int steps = 1 + static_cast<int>(choose.pick(12));
  for (int s = 0; s < steps; ++s)
    r.steps.push_back({choose.pick(16), choose.pick(64), choose.pick(64), choose.pick(64)});
  return r;
}

// Replays the recipe on traced arguments: every value has the arguments'
// shape and floating dtype, so any two combine.
Tensor replay(const Recipe& r, const std::vector<Tensor>& args) {
  std::vector<Tensor> values;
  for (size_t i = 0; i < args.size(); ++i)
    values.push_back(r.inputs[i] == DType::i32 ? adjit::cast(args[i], r.inputs[0]) : args[i]);
  int rank = static_cast<int>(r.shape.size());
  for (const Step& s : r.steps) {
    const Tensor& x = values[s.a % values.size()];
    const Tensor& y = values[s.b % values.size()];
    switch (s.kind) {
      case 0: values.push_back(x + y); break;
      case 1: values.push_back(x * y - 0.5); break;
      case 2: values.push_back(x / (adjit::abs(y) + 1.0)); break;
      case 3: values.push_back(adjit::tanh(x)); break;
      case 4: values.push_back(adjit::exp(-adjit::abs(x))); break;
      case 5: values.push_back(adjit::sin(x) * adjit::cos(y)); break;
      case 6: values.push_back(adjit::sqrt(adjit::abs(x) + 1e-3)); break;
      case 7: values.push_back(adjit::maximum(x, y)); break;
      case 8: values.push_back(adjit::where(x > y, x, y * 2.0)); break;
      case 9: values.push_back(adjit::log(adjit::abs(x) + 1.0)); break;
      case 10:  // a reduction over one dimension, broadcast back
        if (rank > 0) {
          int dim = static_cast<int>(s.c % rank);
          values.push_back(adjit::broadcast_to(adjit::sum(x, {dim}, true), r.shape) + y);
        }
        break;
      case 11:  // a contraction over the last dimension with a transposed copy
        if (rank == 2) {
          Tensor square = adjit::matmul(x, adjit::transpose(y, {1, 0}));
          values.push_back(adjit::broadcast_to(adjit::sum(square, {1}, true), r.shape) * 0.1 + x);
        }
        break;
      case 12:  // through integers and back (bounded: no out-of-range conversion)
        values.push_back(adjit::cast(adjit::cast(adjit::tanh(x) * 3.0, DType::i32), x.dtype()));
        break;
      case 13: values.push_back(adjit::max(x, {}, false) + y); break;
      case 14: values.push_back(adjit::integer_pow(x, s.c % 5)); break;
      case 15:
        values.push_back(adjit::integer_pow(adjit::abs(y) + 1.0, -1 - static_cast<int64_t>(s.c % 2)) +
                         adjit::relu(x));
        break;
    }
  }
  return values.back();
}

bool same_bytes(const std::vector<Array>& a, const std::vector<Array>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype() != b[i].dtype() || a[i].shape() != b[i].shape() ||
        std::memcmp(a[i].raw_data(), b[i].raw_data(), a[i].nbytes()) != 0)
      return false;
  return true;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_programs: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices choose(data, size);
  Recipe recipe = make_recipe(choose);
  // The value and the gradient of its sum w.r.t. the float arguments.
  auto f = [recipe](const std::vector<Tensor>& args) {
    auto total = [&recipe](const std::vector<Tensor>& a) { return adjit::sum(replay(recipe, a)); };
    auto [value, grads] = adjit::value_and_grad(total, adjit::GradOptions{.allow_int = true})(args);
    return std::make_tuple(replay(recipe, args), value, grads);
  };
  std::vector<Array> args;
  for (size_t i = 0; i < recipe.inputs.size(); ++i)
    args.push_back(recipe.inputs[i] == DType::i32
                       ? Array::uniform(recipe.shape, 100 + i, -4, 4, DType::i32)
                       : Array::randn(recipe.shape, 100 + i, recipe.inputs[i]));
  std::string module;
  try {
    module = adjit::jit(f, {.name = "fuzzed"}).lower(args).ir("traced");
  } catch (const adjit::TraceError&) {
    return 0;  // a recipe the front end rejects with a message
  }
  // The module path of `adjit run`, twice, then the direct jit call.
  adjit::Executable executable = adjit::Program::parse(module, "fuzzed.mlir").compile();
  std::vector<Array> first = executable.run("fuzzed", args);
  std::vector<Array> second = executable.run("fuzzed", args);
  if (!same_bytes(first, second)) fail("two runs of one program differ");
  std::vector<Array> direct;
  auto [y, value, grads] = adjit::jit(f)(args);
  direct.push_back(y);
  direct.push_back(value);
  for (const Array& g : grads) direct.push_back(g);
  if (!same_bytes(first, direct)) fail("the module path and the jit call differ");
  return 0;
}
