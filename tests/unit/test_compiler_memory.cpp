// Compiled code frees every temporary it allocates (ownership-based buffer
// deallocation), and its temporaries come from the caching allocator.
#include <adjit/adjit.h>
#include <adjit/runtime/Allocator.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>


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
      // The temporary lies in the call's arena, which holds it and more.
      std::string::size_type at = message.find("could not allocate ");
      REQUIRE(at != std::string::npos);
      CHECK(std::stoll(message.substr(at + 19)) >= 274877906944);
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
  // by adjit.relu on this file's mlp_loss line) for the backward pass.
  bool activation_kept = false;
  for (const Residual& residual : plan.residuals)
    activation_kept |= residual.type == "f32[512,256]" && residual.bytes == 512 * 256 * 4 &&
                       residual.made_by == "adjit.relu" &&
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
  // A while_loop's stack of carries has a size known at run time only: not
  // counted in residual_bytes() (it once counted -1), named in the report.
  auto loop_loss = [](Tensor a) {
    Tensor r = while_loop([](const Tensor& c) { return sum(c) < 100.0; },
                          [](const Tensor& c) { return sin(c) * 1.5 + c; }, a);
    return sum(r * r);
  };
  MemoryPlan looped = jit(grad(loop_loss)).lower(Array::uniform({8}, 9, 1.0, 2.0)).memory_plan();
  int64_t sized = 0, unsized = 0;
  for (const Residual& residual : looped.residuals) {
    if (residual.bytes < 0) ++unsized;
    else sized += residual.bytes;
  }
  CHECK(unsized >= 1);
  CHECK(looped.residual_bytes() == sized);
  CHECK_THAT(looped.to_string(),
             Catch::Matchers::Contains("and " + std::to_string(unsized) + " of run-time size"));
}

// adjit-rematerialize: an MLP with a tanh-GELU written out in ops between its
// matmuls keeps, without recomputation, the pre-activation, the tanh and the
// GELU output for its backward pass; with it, the tanh (and what else is
// elementwise) is recomputed from the pre-activation, so fewer bytes are
// kept and the peak of temporaries drops. The gradients are the same.
// (adjit::gelu's own derivative rule reads only the pre-activation.)
// The arena's buffers are calls in the LLVM IR that LLVM optimizes (so that
// it keeps them apart as allocations) and plain addresses in the machine
// code: the calls did nothing else, and a deep model made thousands.
TEST_CASE("arena buffers are calls for LLVM's optimizer and addresses in machine code",
          "[compiler][memory]") {
  auto [params, x, labels] = MlpBatch();
  auto step = jit(sgd_step, JitOptions{.name = "arena_step"});
  auto lowered = step.lower(params, x, labels);
  REQUIRE_FALSE(lowered.memory_plan().buffers.empty());
  CHECK_THAT(lowered.ir("llvm-ir"), Catch::Contains("@adjit_arena_buffer("));
  std::string assembly = lowered.ir("asm");
  CHECK_THAT(assembly, !Catch::Contains("adjit_arena_buffer"));
  CHECK_THAT(assembly, !Catch::Contains("adjit_arena_release"));
}

TEST_CASE("rematerialization keeps fewer residuals with the same gradients",
          "[compiler][memory][remat]") {
  auto loss = [](Tensor x, Tensor w1, Tensor w2) {
    Tensor a = matmul(x, w1);
    Tensor h = 0.5 * a * (1.0 + tanh(0.7978845608 * (a + 0.044715 * integer_pow(a, 3))));
    return mean(square(matmul(h, w2)));
  };
  Array x = Array::randn({64, 32}, 1, DType::f64), w1 = Array::randn({32, 48}, 2, DType::f64),
        w2 = Array::randn({48, 8}, 3, DType::f64);
  auto kept = jit(grad<1, 2>(loss), {.rematerialize = false});
  auto recomputed = jit(grad<1, 2>(loss));
  MemoryPlan without = kept.lower(x, w1, w2).memory_plan();
  MemoryPlan with = recomputed.lower(x, w1, w2).memory_plan();
  INFO("without:\n" << without.to_string() << "with:\n" << with.to_string());
  CHECK(with.residual_bytes() < without.residual_bytes());
  CHECK(with.peak_bytes < without.peak_bytes);
  // adjit::gelu's derivative rule reads only the pre-activation: the op
  // keeps the pre-activation and its output, as the written-out GELU does
  // with recomputation, and without recomputation keeps less than the
  // written-out GELU does.
  auto gelu_loss = [](Tensor x, Tensor w1, Tensor w2) {
    return mean(square(matmul(gelu(matmul(x, w1), /*tanh_approx=*/true), w2)));
  };
  MemoryPlan op = jit(grad<1, 2>(gelu_loss)).lower(x, w1, w2).memory_plan();
  MemoryPlan op_kept =
      jit(grad<1, 2>(gelu_loss), {.rematerialize = false}).lower(x, w1, w2).memory_plan();
  INFO("adjit::gelu:\n" << op.to_string());
  CHECK(op.residual_bytes() == with.residual_bytes());
  CHECK(op_kept.residual_bytes() < without.residual_bytes());
  // The recomputation starts from a barrier on the kept values.
  CHECK(recomputed.lower(x, w1, w2).ir("differentiated").find("adjit.optimization_barrier") !=
        std::string::npos);
  CHECK(kept.lower(x, w1, w2).ir("differentiated").find("adjit.optimization_barrier") ==
        std::string::npos);
  auto [a1, a2] = kept(x, w1, w2);
  auto [b1, b2] = recomputed(x, w1, w2);
  std::vector<double> va1 = a1.to_vector<double>(), vb1 = b1.to_vector<double>(),
                      va2 = a2.to_vector<double>(), vb2 = b2.to_vector<double>();
  for (size_t i = 0; i < va1.size(); ++i) CHECK(vb1[i] == Approx(va1[i]).epsilon(1e-12).margin(1e-14));
  for (size_t i = 0; i < va2.size(); ++i) CHECK(vb2[i] == Approx(va2[i]).epsilon(1e-12).margin(1e-14));
  // Both modes and second order agree with finite differences.
  GradCheckReport report = check_grads(
      [&](Tensor a, Tensor b, Tensor c) { return loss(a, b, c); }, {x, w1, w2}, 2);
  INFO(report.summary());
  CHECK(report);
}

namespace {

// A random program (seeded) of chains of elementwise ops, contractions,
// reductions and broadcasts over a, b (f32[32,48], f32[48,32]) and c
// (f32[32,32]), with several outputs.
std::vector<Tensor> random_program(uint64_t seed, Tensor a, Tensor b, Tensor c) {
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
  return {square[square.size() - 1], square[square.size() / 2], sum(square[square.size() - 3])};
}

// The arena's buffers of `plan` never overlap while both are live, lie
// inside the arena, aligned, and the arena is at least the most bytes of
// them live at once; returns the sum of their sizes.
int64_t check_arena(const MemoryPlan& plan) {
  INFO(plan.to_string());
  std::vector<const TemporaryBuffer*> placed;
  for (const TemporaryBuffer& buffer : plan.buffers)
    if (buffer.offset >= 0) placed.push_back(&buffer);
  int64_t total = 0;
  std::vector<int64_t> live(plan.op_count, 0);
  for (const TemporaryBuffer* buffer : placed) {
    CHECK(buffer->planned);
    CHECK(buffer->bytes > 0);
    // On a cache line, or for a smaller buffer at its size rounded up to a
    // power of two.
    int64_t alignment = 1;
    while (alignment < 64 && alignment < buffer->bytes) alignment *= 2;
    CHECK(buffer->offset % alignment == 0);
    CHECK(buffer->offset + buffer->bytes <= plan.arena_bytes);
    for (int op = buffer->first_op; op <= buffer->last_op; ++op) live[op] += buffer->bytes;
    total += buffer->bytes;
  }
  for (size_t i = 0; i < placed.size(); ++i)
    for (size_t j = i + 1; j < placed.size(); ++j) {
      const TemporaryBuffer &x = *placed[i], &y = *placed[j];
      bool live_together = x.first_op <= y.last_op && y.first_op <= x.last_op;
      bool overlap = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
      INFO("buffers " << i << " and " << j);
      CHECK_FALSE((live_together && overlap));
    }
  int64_t most_live = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  CHECK(plan.arena_bytes >= most_live);
  CHECK(plan.peak_bytes >= plan.arena_bytes);
  return total;
}

void check_same_results_planned_or_not(const Lowered& lowered, const std::vector<Array>& inputs) {
  std::vector<Array> planned = run_traced(lowered, true, inputs);
  std::vector<Array> unplanned = run_traced(lowered, false, inputs);
  REQUIRE(planned.size() == unplanned.size());
  for (size_t i = 0; i < planned.size(); ++i)
    CHECK(std::memcmp(planned[i].raw_data(), unplanned[i].raw_data(), planned[i].nbytes()) == 0);
}

}  // namespace

// Plan correctness on random programs, their values and their gradients:
// no two buffers of the arena overlap while both are live, and the outputs
// are bit-identical with and without planning.
TEST_CASE("the arena plan of random programs never overlaps live buffers",
          "[compiler][memory][memory-plan]") {
  std::vector<Array> inputs = {Array::randn({32, 48}, 1), Array::randn({48, 32}, 2),
                               Array::randn({32, 32}, 3)};
  bool reused = false;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    auto values = jit([seed](Tensor a, Tensor b, Tensor c) {
      std::vector<Tensor> outputs = random_program(seed, a, b, c);
      return std::make_tuple(outputs[0], outputs[1], outputs[2]);
    });
    auto gradients = jit(grad<0, 1, 2>([seed](Tensor a, Tensor b, Tensor c) {
      std::vector<Tensor> outputs = random_program(seed, a, b, c);
      return sum(outputs[0] * outputs[1]) + outputs[2];
    }));
    auto check = [&](const Lowered& lowered) {
      MemoryPlan plan = lowered.memory_plan();
      int64_t placed_bytes = check_arena(plan);
      reused |= plan.arena_bytes < placed_bytes;
      check_same_results_planned_or_not(lowered, inputs);
    };
    check(values.lower(inputs[0], inputs[1], inputs[2]));
    check(gradients.lower(inputs[0], inputs[1], inputs[2]));
  }
  // The bytes of dead buffers serve later ones.
  CHECK(reused);
}

namespace {

bool bytes_equal(const Array& a, const Array& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

}  // namespace

// Donation (JitOptions::donate, JAX's donate_argnums): the step's new
// parameters are computed in the old ones' buffers.
TEST_CASE("donated parameters are updated in place", "[compiler][memory][donate]") {
  auto [params, x, labels] = MlpBatch();
  auto reference_step = jit(sgd_step);
  auto donating_step = jit(sgd_step, JitOptions{.name = "sgd", .donate = {0}});

  std::vector<Array> expected = params, donated;
  for (const Array& p : params) donated.push_back(p.copy());
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    std::vector<const void*> buffers;
    for (const Array& p : donated) buffers.push_back(p.raw_data());
    std::vector<Array> old = donated;  // more handles of the donated arrays
    auto [want_loss, want] = reference_step(expected, x, labels);
    auto [loss, next] = donating_step(donated, x, labels);
    CHECK(loss.item<float>() == want_loss.item<float>());
    for (size_t i = 0; i < next.size(); ++i) {
      CHECK(next[i].raw_data() == buffers[i]);  // written in place
      CHECK(bytes_equal(next[i], want[i]));
      CHECK(donated[i].is_donated());
      CHECK(old[i].is_donated());  // every handle of a donated buffer
    }
    expected = want;
    donated = next;
  }
  CHECK(donating_step.cache_info().misses == 1);
  // lower() shows what a call compiles: the parameters hold the new ones.
  std::string traced = donating_step.lower(expected, x, labels).ir();
  for (int output = 1; output <= 4; ++output)
    CHECK(traced.find("adjit.aliasing_output = " + std::to_string(output)) != std::string::npos);
  CHECK(traced.find("adjit.aliasing_output = 0") == std::string::npos);  // the loss
  CHECK_FALSE(expected[0].is_donated());  // lowering donates nothing
}

TEST_CASE("using a donated array is a RuntimeError naming the call", "[compiler][memory][donate]") {
  auto scale = jit([](Tensor x) { return x * 2.0; }, JitOptions{.name = "scale", .donate = {0}});
  Array x = Array::from<float>({1, 2, 3}, {3});
  Array kept = x;
  Array y = scale(x);
  CHECK(y.to_vector<float>() == std::vector<float>{2, 4, 6});
  for (const Array* a : {&x, &kept}) {
    CHECK(a->is_donated());
    CHECK_THROWS_AS(a->data<float>(), RuntimeError);
    CHECK_THROWS_WITH(a->to_vector<float>(),
                      Catch::Matchers::Contains("f32[3]) was donated to adjit::jit 'scale'"));
    CHECK_THROWS_AS(a->copy(), RuntimeError);
    CHECK_THROWS_AS(scale(*a), RuntimeError);
  }
  CHECK_FALSE(y.is_donated());
  // A call given a donated array fails before it donates anything else.
  auto both = jit([](Tensor a, Tensor b) { return std::make_tuple(a * 2.0, b * 2.0); },
                  JitOptions{.donate = {0, 1}});
  Array fresh = Array::ones({3});
  CHECK_THROWS_AS(both(fresh, kept), RuntimeError);
  CHECK_FALSE(fresh.is_donated());
  CHECK(fresh.to_vector<float>() == std::vector<float>{1, 1, 1});
}

TEST_CASE("a call that cannot allocate its outputs leaves donated arrays as they were",
          "[compiler][memory][donate]") {
  // x * 2 is written in place into x; the sum needs a buffer of its own,
  // which is allocated before x is taken.
  auto f = jit([](Tensor x) { return std::make_tuple(x * 2.0, adjit::sum(x)); },
               JitOptions{.donate = {0}});
  f(Array::ones({3}));  // compiles
  Array x = Array::from<float>({1, 2, 3}, {3});
  fail_nth_allocation(1);
  CHECK_THROWS_AS(f(x), RuntimeError);
  fail_nth_allocation(0);
  CHECK_FALSE(x.is_donated());
  CHECK(x.to_vector<float>() == std::vector<float>{1, 2, 3});
  auto [doubled, total] = f(x);
  CHECK(doubled.to_vector<float>() == std::vector<float>{2, 4, 6});
  CHECK(total.item<float>() == 6);
  CHECK(x.is_donated());
}

TEST_CASE("donated arrays that cannot be reused are copied, then invalidated",
          "[compiler][memory][donate]") {
  auto axpy = [](Tensor a, Tensor b) { return a * 3.0 + b; };
  auto plain = jit(axpy);
  auto donating = jit(axpy, JitOptions{.name = "axpy", .donate = {0}});
  Array a = Array::randn({1000}, 1), b = Array::randn({1000}, 2);
  Array want = plain(a, b);

  SECTION("an array passed twice") {
    Array twice = a.copy();
    Array got = donating(twice, twice);
    CHECK(bytes_equal(got, plain(a, a)));
    CHECK(twice.is_donated());
  }
  SECTION("a view of caller memory") {
    std::vector<float> memory = a.to_vector<float>();
    Array view = Array::view(memory.data(), {1000}, DType::f32);
    Array got = donating(view, b);
    CHECK(bytes_equal(got, want));
    CHECK(got.raw_data() != memory.data());
    CHECK(std::memcmp(memory.data(), a.raw_data(), a.nbytes()) == 0);  // untouched
    CHECK(view.is_donated());
  }
  SECTION("no output of its type") {
    auto total = jit([](Tensor v) { return sum(v); }, JitOptions{.donate = {0}});
    Array v = a.copy();
    CHECK(total(v).item<float>() == jit([](Tensor v) { return sum(v); })(a).item<float>());
    CHECK(v.is_donated());
  }
  SECTION("call_into writes into the caller's outputs") {
    Array donated = a.copy(), out = Array::empty({1000}, DType::f32);
    donating.call_into(out, donated, b);
    CHECK(bytes_equal(out, want));
    CHECK(donated.is_donated());
  }
}

// The compiled code may only overwrite a donated argument once nothing
// reads it any more: results computed while it is still read (here in the
// same row loop) get their own buffer and are copied into it at the end.
TEST_CASE("donation gives the results of the undonated function", "[compiler][memory][donate]") {
  auto read_later = [](Tensor w, Tensor g) {
    Tensor n = w - g;
    return std::make_tuple(n, exp(n) * w, sum(w * n));
  };
  auto swap = [](Tensor a, Tensor b) { return std::make_tuple(b * 2.0, a + 1.0); };
  auto rows = [](Tensor w, Tensor x) { return w - sum(x, {1}, true) * w; };
  Array w = Array::randn({256, 64}, 1), g = Array::randn({256, 64}, 2);
  auto expect_same = [](auto f, std::vector<int> donate, const Array& a, const Array& b) {
    auto want = jit(f)(a, b);
    Array a_copy = a.copy(), b_copy = b.copy();
    auto got = jit(f, JitOptions{.donate = donate})(a_copy, b_copy);
    std::vector<Array> want_all = std::apply([](auto&... r) { return std::vector<Array>{r...}; }, want);
    std::vector<Array> got_all = std::apply([](auto&... r) { return std::vector<Array>{r...}; }, got);
    for (size_t i = 0; i < want_all.size(); ++i) CHECK(bytes_equal(got_all[i], want_all[i]));
  };
  expect_same(read_later, {0}, w, g);
  expect_same(swap, {0, 1}, w, g);
  auto want = jit(rows)(w, g);
  Array w_copy = w.copy();
  CHECK(bytes_equal(jit(rows, JitOptions{.donate = {0}})(w_copy, g), want));
}

// `w - lr * x^T dy` runs as one GEMM accumulating onto w (its smaller
// operand scaled by -lr): the same numbers as the update written out.
TEST_CASE("an SGD update folded into its GEMM matches the plain computation",
          "[compiler][memory][donate]") {
  Array w = Array::randn({64, 128}, 1), x = Array::randn({256, 64}, 2),
        dy = Array::randn({256, 128}, 3);
  auto update = [](Tensor w, Tensor x, Tensor dy) {
    return w - 0.1 * matmul(transpose(x, {1, 0}), dy);
  };
  std::vector<float> want(64 * 128);
  const float *wv = w.data<float>(), *xv = x.data<float>(), *dyv = dy.data<float>();
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 128; ++j) {
      double g = 0;
      for (int r = 0; r < 256; ++r) g += double(xv[r * 64 + i]) * dyv[r * 128 + j];
      want[i * 128 + j] = static_cast<float>(wv[i * 128 + j] - 0.1 * g);
    }
  for (std::vector<int> donate : {std::vector<int>{}, std::vector<int>{0}}) {
    Array w_copy = w.copy();
    std::vector<float> got = jit(update, JitOptions{.donate = donate})(w_copy, x, dy).to_vector<float>();
    for (size_t k = 0; k < got.size(); ++k) REQUIRE(got[k] == Approx(want[k]).epsilon(1e-4).margin(1e-4));
  }
}

TEST_CASE("an Array donated by two threads at once goes to one call",
          "[compiler][memory][donate]") {
  // Each call reserves its donated inputs before it runs: of two calls
  // donating one Array at the same moment, the second is refused (it used
  // to take the same bytes too, and free them twice).
  auto update = jit([](Tensor w) { return w + 1.0; }, {.name = "update", .donate = {0}});
  update(Array::ones({16}));  // compiled before the race
  constexpr int kArrays = 300;
  std::vector<Array> arrays;
  for (int i = 0; i < kArrays; ++i) arrays.push_back(Array::full({16}, 1.0));
  std::vector<Array> first(kArrays), second(kArrays);
  std::atomic<int> step{0};
  auto donate_all = [&](std::vector<Array>& results) {
    for (int i = 0; i < kArrays; ++i) {
      Array handle = arrays[i];
      ++step;
      while (step.load() < 2 * (i + 1)) {}  // both threads at array i
      try {
        results[i] = update(handle);
      } catch (const RuntimeError&) {
      }
    }
  };
  std::thread a(donate_all, std::ref(first)), b(donate_all, std::ref(second));
  a.join();
  b.join();
  for (int i = 0; i < kArrays; ++i) {
    INFO(i);
    CHECK((first[i].size() == 0) != (second[i].size() == 0));  // exactly one call took it
    const Array& taken = first[i].size() ? first[i] : second[i];
    CHECK(taken.to_vector<float>() == std::vector<float>(16, 2.0f));
    CHECK(arrays[i].is_donated());
  }
}

TEST_CASE("JitOptions::donate names arguments that exist", "[compiler][memory][donate]") {
  CHECK_THROWS_WITH(jit([](Tensor x) { return x; }, JitOptions{.name = "f", .donate = {-1}}),
                    Catch::Matchers::Contains("'f': JitOptions::donate names argument -1"));
  auto f = jit([](Tensor x) { return x * 2.0; }, JitOptions{.name = "f", .donate = {3}});
  Array x = Array::ones({2});
  CHECK_THROWS_WITH(f(x), Catch::Matchers::Contains(
                              "JitOptions::donate names argument 3, but the call has 1 arguments"));
  CHECK_THROWS_WITH(f(x), Catch::Matchers::Contains("(jitted at ") &&
                              Catch::Matchers::Contains("test_compiler_memory.cpp:"));
  CHECK_THROWS_AS(f(x), TraceError);
  CHECK_FALSE(x.is_donated());
  auto scaled = jit([](Tensor x, int k) { return x * double(k); },
                    JitOptions{.name = "scaled", .donate = {1}});
  CHECK_THROWS_WITH(scaled(x, 2), Catch::Matchers::Contains(
                                      "'scaled': JitOptions::donate names argument 1, a static "
                                      "value (part of the cache key)"));
  CHECK_FALSE(x.is_donated());
}

// A module that says an output is computed in an input's buffer runs
// correctly when the caller gives separate buffers (Executable copies).
TEST_CASE("an entry with an aliased output runs on separate buffers", "[compiler][memory][donate]") {
  Program program = Program::parse(R"(
    func.func @step(%w: tensor<4xf32> {adjit.aliasing_output = 0 : i64}, %g: tensor<4xf32>)
        -> tensor<4xf32> {
      %c = adjit.constant dense<0.5> : tensor<4xf32>
      %s = adjit.mul %c, %g : tensor<4xf32>
      %n = adjit.sub %w, %s : tensor<4xf32>
      return %n : tensor<4xf32>
    })");
  REQUIRE(program.signatures().front().aliased_inputs == std::vector<int>{0});
  Executable exe = program.compile();
  Array w = Array::from<float>({1, 2, 3, 4}, {4}), g = Array::from<float>({2, 2, 2, 2}, {4});
  std::vector<Array> out = exe.run("step", {w, g});
  CHECK(out[0].to_vector<float>() == std::vector<float>{0, 1, 2, 3});
  CHECK(w.to_vector<float>() == std::vector<float>{1, 2, 3, 4});  // not written
  // Ahead-of-time functions take separate buffers: such an entry is refused.
  CHECK_THROWS_WITH(aot::write(program, aot::AotOptions{.name = "step", .output_dir = "unused"}, {}),
                    Catch::Matchers::Contains("writes output 0 into its input 0"));
  // So is a jitted function with donated arguments given to aot::compile
  // (its donation is not quietly dropped).
  auto donating = jit([](Tensor w, Tensor g) { return w - 0.5 * g; }, {.donate = {0}});
  CHECK_THROWS_WITH(aot::compile(donating, aot::AotOptions{.name = "step", .output_dir = "unused"},
                                 w, g),
                    Catch::Matchers::Contains("writes output 0 into its input 0"));
}
