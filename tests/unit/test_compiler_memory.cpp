// Compiled code frees every temporary it allocates (ownership-based buffer
// deallocation), and its temporaries come from the caching allocator.
#include <adjit/adjit.h>
#include <adjit/runtime/Allocator.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <random>


TEST_CASE("compiled code releases every temporary buffer", "[compiler][memory]") {
  // The example MLP keeps intermediate buffers (matmul results) after
  // bufferization besides its output.
  adjit::Executable exe =
      adjit::Program::parse_file(ADJIT_SOURCE_DIR "/examples/mlp.mlir").compile();
  std::vector<adjit::Array> inputs;
  uint64_t seed = 1;
  for (const adjit::TensorType& type : exe.signature("mlp").inputs)
    inputs.push_back(adjit::Array::randn(type.shape, seed++));
  exe.run("mlp", inputs);  // warm up the allocator's size classes
  size_t live_before = adjit::allocator_stats().live_bytes;
  size_t hits_before = adjit::allocator_stats().hits;
  for (int i = 0; i < 50; ++i) exe.run("mlp", inputs);  // outputs are dropped each time
  adjit::AllocatorStats after = adjit::allocator_stats();
  CHECK(after.live_bytes == live_before);
  // Each run's output and temporaries were served from the cache.
  CHECK(after.hits - hits_before >= 50 * 2);
}

// Parallel chunks (a reduction over many rows split into chunks, each with
// its own partial sums) free their temporaries: upstream's deallocation
// skips scf.forall bodies, and W3's gradient lost ~80 KB per call.
TEST_CASE("the temporaries of parallel chunks are released", "[compiler][memory]") {
  using namespace adjit;
  auto loss = [](Tensor x, Tensor gamma, Tensor c) {
    Tensor centered = x - mean(x, {-1}, true);
    return sum(tanh(centered * gamma) * c);
  };
  Array x = Array::randn({1024, 256}, 1), gamma = Array::randn({256}, 2),
        c = Array::randn({1024, 256}, 3);
  auto step = value_and_grad<0, 1>(loss);
  REQUIRE(step.lower(x, gamma, c).ir("bufferized").find("scf.forall") != std::string::npos);
  step(x, gamma, c);
  size_t live_before = allocator_stats().live_bytes;
  for (int i = 0; i < 5; ++i) step(x, gamma, c);
  CHECK(allocator_stats().live_bytes == live_before);
}

// A temporary too large to allocate ends the call with a RuntimeError naming
// its size; the temporaries the call had allocated are freed, and the same
// executable (and the process) keeps working. It used to abort the process.
TEST_CASE("compiled code that cannot allocate a temporary throws RuntimeError",
          "[compiler][memory]") {
  // exp(broadcast(x)) is materialized for the GEMM: 2^36 floats, 256 GiB.
  adjit::Executable exe = adjit::Program::parse(R"(
    func.func @huge(%x: tensor<f32>, %v: tensor<262144x16xf32>) -> tensor<262144x16xf32> {
      %small = adjit.exp %v : tensor<262144x16xf32>
      %b = adjit.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<262144x262144xf32>
      %e = adjit.exp %b : tensor<262144x262144xf32>
      %m = adjit.dot_general %e, %small, batch = [] x [], contract = [1] x [0] : (tensor<262144x262144xf32>, tensor<262144x16xf32>) -> tensor<262144x16xf32>
      return %m : tensor<262144x16xf32>
    }
    func.func @fine(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = adjit.exp %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
  )").compile();
  adjit::Array x = adjit::Array::scalar(1.0f), v = adjit::Array::zeros({262144, 16});
  size_t live_before = adjit::allocator_stats().live_bytes;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      exe.run("huge", {x, v});
      FAIL("a 256 GiB temporary was allocated");
    } catch (const adjit::RuntimeError& e) {
      std::string message = e.what();
      INFO(message);
      CHECK(message.find("could not allocate 274877906944 bytes") != std::string::npos);
    }
  }
  CHECK(adjit::allocator_stats().live_bytes == live_before);
  adjit::Array y = exe.run("fine", {adjit::Array::zeros({4})}).at(0);
  CHECK(y.data<float>()[0] == 1.0f);
}

using namespace adjit;

namespace {

Tensor mlp_loss(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor h = relu(matmul(x, p[0]) + p[1]);
  Tensor logp = log_softmax(matmul(h, p[2]) + p[3], -1);
  return -mean(sum(one_hot(labels, 10, logp.dtype()) * logp, {1}));
}

// One SGD step on mlp_loss, as a training loop jits it.
std::tuple<Tensor, std::vector<Tensor>> sgd_step(const std::vector<Tensor>& p, const Tensor& x,
                                                 const Tensor& labels) {
  auto [loss, g] = value_and_grad(mlp_loss)(p, x, labels);
  std::vector<Tensor> next;
  for (size_t i = 0; i < p.size(); ++i) next.push_back(p[i] - 0.1 * g[i]);
  return std::make_tuple(loss, next);
}

// The step's inputs: a 64-256-10 MLP's parameters, 512 rows, their labels.
struct MlpBatch {
  std::vector<Array> params = {Array::randn({64, 256}, 1), Array::zeros({256}),
                               Array::randn({256, 10}, 2), Array::zeros({10})};
  Array x = Array::randn({512, 64}, 3);
  Array labels = Array::uniform({512}, 4, 0, 10, DType::i32);
};

}  // namespace

// Fault injection: every host buffer allocation of a jitted training step
// (its outputs, its temporaries, the first call's constants) is made to
// fail in turn. Each failure is a clean RuntimeError, leaves no buffer
// behind, and the next call gives the right results.
TEST_CASE("every failed allocation of a training step is a clean RuntimeError",
          "[compiler][memory][fault-injection]") {
  auto [params, x, labels] = MlpBatch();
  auto make_step = [] { return jit(sgd_step); };
  auto reference_step = make_step();
  auto [want_loss, want_params] = reference_step(params, x, labels);

  auto same = [&](const auto& got) {
    const auto& [loss, next] = got;
    bool equal = loss.template item<float>() == want_loss.template item<float>();
    for (size_t i = 0; i < next.size(); ++i)
      equal = equal && std::memcmp(next[i].raw_data(), want_params[i].raw_data(),
                                   next[i].nbytes()) == 0;
    return equal;
  };

  // How many allocations one steady call makes (outputs and temporaries).
  AllocatorStats before = allocator_stats();
  reference_step(params, x, labels);
  AllocatorStats after = allocator_stats();
  size_t per_call = (after.hits + after.misses) - (before.hits + before.misses);
  REQUIRE(per_call >= 5);  // at least the five outputs

  size_t failures = 0;
  for (size_t n = 1; n <= per_call; ++n) {
    INFO("allocation " << n << " of " << per_call);
    size_t live = allocator_stats().live_bytes;
    fail_nth_allocation(n);
    try {
      reference_step(params, x, labels);
      FAIL("the injected failure was not reported");
    } catch (const RuntimeError& e) {
      CHECK(std::string(e.what()).find("injected") != std::string::npos);
      ++failures;
    }
    fail_nth_allocation(0);
    CHECK(allocator_stats().live_bytes == live);
    CHECK(same(reference_step(params, x, labels)));
  }
  CHECK(failures == per_call);

  // The first call (trace, compile, run) fails at its first allocations
  // too, and a retry compiles and runs.
  for (size_t n = 1; n <= 3; ++n) {
    auto step = make_step();
    fail_nth_allocation(n);
    CHECK_THROWS_AS(step(params, x, labels), RuntimeError);
    fail_nth_allocation(0);
    CHECK(same(step(params, x, labels)));
  }
}

namespace {

std::vector<Array> run_traced(const Lowered& lowered, bool plan_buffers,
                              const std::vector<Array>& inputs) {
  CompileOptions options;
  options.plan_buffers = plan_buffers;
  Program program = Program::parse(lowered.ir("traced"), "<traced>", options);
  return program.compile().run(program.signatures().front().name, inputs);
}

}  // namespace

TEST_CASE("the memory plan of a training step: lifetimes, peak and residuals",
          "[compiler][memory][memory-plan]") {
  auto [params, x, labels] = MlpBatch();
  auto step = jit(sgd_step, JitOptions{.name = "train_step"});
  MemoryPlan plan = step.lower(params, x, labels).memory_plan();
  INFO(plan.to_string());
  CHECK(plan.function == "train_step");
  REQUIRE_FALSE(plan.buffers.empty());
  // Freeing each temporary after its last use lowers the peak below the
  // sum of everything that would otherwise live until the end.
  CHECK(plan.peak_bytes > 0);
  CHECK(plan.peak_bytes < plan.peak_bytes_unplanned);
  int64_t largest = 0;
  for (const TemporaryBuffer& buffer : plan.buffers) {
    CHECK_FALSE(buffer.made_by.empty());
    CHECK_FALSE(buffer.type.empty());
    if (!buffer.planned) {
      CHECK_FALSE(buffer.note.empty());
      continue;
    }
    CHECK(0 <= buffer.first_op);
    CHECK(buffer.first_op <= buffer.last_op);
    CHECK(buffer.last_op < plan.op_count);
    CHECK(buffer.bytes > 0);
    largest = std::max(largest, buffer.bytes);
  }
  CHECK(plan.peak_bytes >= largest);
  // Reverse mode keeps the hidden layer's activations (f32[512,256], made
  // by relu's max on this file's mlp_loss line) for the backward pass.
  bool activation_kept = false;
  for (const Residual& residual : plan.residuals)
    activation_kept |= residual.type == "f32[512,256]" && residual.bytes == 512 * 256 * 4 &&
                       residual.made_by == "adjit.max" &&
                       residual.location.find("test_compiler_memory.cpp") != std::string::npos;
  CHECK(activation_kept);
  // Composite ops (log_softmax, mean) record the user's line for the ops
  // they are made of, never adjit's own source.
  for (const Residual& residual : plan.residuals)
    CHECK_THAT(residual.location, Catch::Matchers::Contains("test_compiler_memory.cpp"));
  CHECK(plan.residual_bytes() >= 512 * 256 * 4);
  std::string report = plan.to_string();
  CHECK(report.find("memory plan of @train_step") != std::string::npos);
  CHECK(report.find("residuals kept from the forward pass") != std::string::npos);
  // A function without a gradient has no residuals.
  auto forward = jit(mlp_loss);
  CHECK(forward.lower(params, x, labels).memory_plan().residuals.empty());
}

// Planned lifetimes must not change a result: random programs (chains of
// elementwise ops, contractions, reductions and broadcasts over a few
// inputs, several outputs) give bit-identical outputs with and without.
TEST_CASE("planned temporary lifetimes give identical results on random programs",
          "[compiler][memory][memory-plan]") {
  std::vector<Array> inputs = {Array::randn({32, 48}, 1), Array::randn({48, 32}, 2),
                               Array::randn({32, 32}, 3)};
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    auto program = jit([seed](Tensor a, Tensor b, Tensor c) {
      std::mt19937_64 rng(seed);
      std::vector<Tensor> square = {c, matmul(a, b)};  // all f32[32,32]
      auto pick = [&] { return square[rng() % square.size()]; };
      for (int op = 0; op < 24; ++op) {
        Tensor x = pick(), y = pick();
        switch (rng() % 7) {
          case 0: square.push_back(tanh(x) + y); break;
          case 1: square.push_back(x * y - 0.5); break;
          case 2: square.push_back(matmul(x, y) * 0.03125); break;
          case 3: square.push_back(transpose(x, {1, 0}) + sin(y)); break;
          case 4: square.push_back(sum(x, {1}, true) * 0.01 + y); break;
          case 5: square.push_back(maximum(x, y)); break;
          default: square.push_back(exp(-x * x) * y); break;
        }
      }
      return std::make_tuple(square[square.size() - 1], square[square.size() / 2],
                             sum(square[square.size() - 3]));
    });
    Lowered lowered = program.lower(inputs[0], inputs[1], inputs[2]);
    std::vector<Array> planned = run_traced(lowered, true, inputs);
    std::vector<Array> unplanned = run_traced(lowered, false, inputs);
    INFO("seed " << seed << "\n" << lowered.memory_plan().to_string());
    REQUIRE(planned.size() == unplanned.size());
    for (size_t i = 0; i < planned.size(); ++i)
      CHECK(std::memcmp(planned[i].raw_data(), unplanned[i].raw_data(), planned[i].nbytes()) == 0);
  }
}

TEST_CASE("JitOptions::donate is refused until donation is built", "[compiler][memory]") {
  auto make = [] { return jit([](Tensor x) { return x * 2.0; }, JitOptions{.name = "scale", .donate = {0}}); };
  CHECK_THROWS_WITH(make(), Catch::Matchers::Contains("'scale': JitOptions::donate (argument 0) is not supported yet"));
  CHECK_NOTHROW(jit([](Tensor x) { return x * 2.0; }, JitOptions{.donate = {}}));
}
