// The CUDA runtime and the GPU path end to end. Without a driver or a GPU
// (CI), the error paths are checked and the rest is skipped with a message;
// on a GPU (scripts/gpu-check.sh) every op, its gradients in both modes, the
// tape, custom gradients and check_grads run on the device and are compared
// with the CPU.
#include "gpu_op_cases.h"

#include <algorithm>
#include <sstream>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::gpu_cases;

namespace {

bool have_gpu() { return Device::cuda_device_count() > 0; }

std::vector<Array> on(const std::vector<Array>& arrays, Device device) {
  std::vector<Array> moved;
  for (const Array& a : arrays) moved.push_back(a.to(device));
  return moved;
}

// Same dtype and shape as the CPU's result, values within tol * (1 + |cpu|).
void check_same(const std::string& what, const Array& gpu_result, const Array& cpu_result,
                double tol = 2e-5) {
  INFO(what);
  CHECK(gpu_result.device() == Device::cuda());
  CHECK(ad::mismatch(gpu_result.to(Device::cpu()), cpu_result, tol) == "");
}

// Catch2 v2 has no SKIP: the test passes with this warning in its output.
#define REQUIRE_GPU()                                                                    \
  if (!have_gpu()) {                                                                     \
    WARN("skipped: no CUDA driver or device here; scripts/gpu-check.sh runs this on a GPU"); \
    return;                                                                              \
  }

}  // namespace

TEST_CASE("gpu runtime: without a driver or device, asking for a GPU is a clear error", "[gpu]") {
  if (have_gpu()) {
    WARN("skipped: this machine has a GPU");
    return;
  }
  Array x = Array::ones({4});
  CHECK_THROWS_AS(x.to(Device::cuda()), RuntimeError);
  CHECK_THROWS_WITH(x.to(Device::cuda()),
                    Catch::Contains("no CUDA driver found") || Catch::Contains("no CUDA device"));
  // The message names what asked for the GPU: the copy, the jitted function.
  CHECK_THROWS_WITH(x.to(Device::cuda()),
                    Catch::Contains("Array::to") && Catch::Contains("f32[4] from cpu to cuda:0"));
  auto f = jit([](Tensor t) { return t * 2.0; }, {.name = "f", .device = Device::cuda()});
  CHECK_THROWS_WITH(f(x), Catch::Contains("no CUDA driver found") ||
                              Catch::Contains("no CUDA device"));
  CHECK_THROWS_WITH(f(x), Catch::Contains("adjit::jit 'f' (JitOptions::device = cuda:0): array 0"));
  CHECK_THROWS_WITH(Device::cuda().synchronize(),
                    Catch::Contains("no CUDA driver found") || Catch::Contains("no CUDA device"));
  // The process and the CPU path stay usable.
  CHECK(jit([](Tensor t) { return t * 2.0; })(x).to_vector<float>() == std::vector<float>(4, 2.0f));
}

TEST_CASE("gpu runtime: Device names", "[gpu]") {
  CHECK(Device::cpu().str() == "cpu");
  CHECK(Device::cuda(1).str() == "cuda:1");
  std::ostringstream printed;
  printed << Device::cpu() << " " << Device::cuda(1);
  CHECK(printed.str() == "cpu cuda:1");
  CHECK(Device::cuda() == Device::cuda(0));
  CHECK_THROWS_WITH(Device::cuda(-1), Catch::Contains("must be >= 0"));
  CHECK(Array::ones({2}).device() == Device::cpu());
}

TEST_CASE("gpu runtime: arrays move to the GPU and back unchanged", "[gpu]") {
  REQUIRE_GPU();
  for (DType dtype : {F32, F64, F16, BF16, I32, I64, I1}) {
    Array host = dtype == I1 ? jit([](Tensor t) { return t > 0.0; })(Array::randn({3, 7}, 1))
                             : Array::uniform({3, 7}, 1, 0, 2, dtype);
    Array device = host.to(Device::cuda());
    CHECK(device.device() == Device::cuda());
    CHECK(device.to(Device::cpu()).device() == Device::cpu());
    CHECK(values(device.to(Device::cpu())) == values(host));
    CHECK(values(device.copy().to(Device::cpu())) == values(host));
  }
  Array device = Array::ones({2}).to(Device::cuda());
  CHECK(device.to_vector<float>() == std::vector<float>{1, 1});
  CHECK_THROWS_WITH(device.data<float>(), Catch::Contains("is on cuda:0; copy it to the host"));
  CHECK(to_string(device) == "cuda:0 f32[2] [1, 1]");
  CHECK_THROWS_WITH(Array::ones({2}).to(Device::cuda(99)), Catch::Contains("no CUDA device cuda:99"));
}

TEST_CASE("gpu runtime: every op computes what the CPU computes", "[gpu]") {
  REQUIRE_GPU();
  for (const OpCase& c : op_cases()) {
    SECTION(c.name) {
      Array cpu = jit(c.f)(c.inputs);
      Array gpu = jit(c.f)(on(c.inputs, Device::cuda()));
      check_same(c.name, gpu, cpu);
    }
  }
}

TEST_CASE("gpu runtime: gradients of every op in both modes equal the CPU's", "[gpu]") {
  REQUIRE_GPU();
  for (const OpCase& c : op_cases()) {
    if (!c.differentiable) continue;
    SECTION(c.name) {
      auto loss = [f = c.f](const std::vector<Tensor>& x) { return sum(f(x) * f(x)); };
      auto reverse = jit(grad(loss, GradOptions{.allow_int = true}));  // indices ride along
      std::vector<Array> cpu = reverse(c.inputs), gpu = reverse(on(c.inputs, Device::cuda()));
      REQUIRE(cpu.size() == gpu.size());
      for (size_t i = 0; i < cpu.size(); ++i)
        if (is_floating(c.inputs[i].dtype())) check_same(c.name + " reverse " + std::to_string(i), gpu[i], cpu[i]);
      std::vector<Array> tangents;
      for (const Array& a : c.inputs) tangents.push_back(Array::ones(a.shape(), a.dtype()));
      if (!std::all_of(c.inputs.begin(), c.inputs.end(),
                       [](const Array& a) { return is_floating(a.dtype()); }))
        continue;
      auto forward = [f = c.f](const std::vector<Tensor>& x, const std::vector<Tensor>& t) {
        return jvp(f, x, t);
      };
      auto [value_cpu, tangent_cpu] = jit(forward)(c.inputs, tangents);
      auto [value_gpu, tangent_gpu] =
          jit(forward)(on(c.inputs, Device::cuda()), on(tangents, Device::cuda()));
      check_same(c.name + " jvp value", value_gpu, value_cpu);
      check_same(c.name + " jvp tangent", tangent_gpu, tangent_cpu);
    }
  }
}

TEST_CASE("gpu runtime: value_and_grad, tape, custom_gradient, hvp and check_grads run on the GPU",
          "[gpu]") {
  REQUIRE_GPU();
  // A sum and its gradient over one input (W1's shape): on the GPU one
  // kernel folds the sum and writes the gradient, 4 points per thread at a
  // time.
  auto w1_like = [](Tensor a) { return sum(tanh(a) * sigmoid(a) + a * a * 0.5); };
  Array big = Array::randn({(1 << 20) + 37}, 4);
  auto [value_gpu, grad_gpu] = value_and_grad(w1_like)(big.to(Device::cuda()));
  auto [value_cpu, grad_cpu] = value_and_grad(w1_like)(big);
  check_same("value_and_grad value", value_gpu, value_cpu, 1e-4);
  check_same("value_and_grad gradient", grad_gpu, grad_cpu);

  Array x = Array::randn({4, 3}, 1), w = Array::randn({3, 2}, 2);
  auto step = [](Tensor x, Tensor w) {
    GradientTape tape;
    tape.watch(w);
    Tensor loss = sum(tanh(matmul(x, w)));
    return tape.gradient(loss, w);
  };
  check_same("tape", jit(step)(x.to(Device::cuda()), w.to(Device::cuda())), jit(step)(x, w));

  auto clipped = custom_gradient(
      [](Tensor v) { return v * v; },
      [](Tensor v, Tensor, Tensor g) { return g * 2.0 * minimum(v, 1.0); });
  auto f = [clipped](Tensor v) { return sum(clipped(v)); };
  Array v = Array::randn({5}, 3);
  check_same("custom_gradient", grad(f)(v.to(Device::cuda())), grad(f)(v));

  auto g = [](Tensor v) { return sum(exp(v) * v); };
  check_same("hvp", hvp(g, v.to(Device::cuda()), v.to(Device::cuda())), hvp(g, v, v));

  GradCheckReport report = check_grads([](Tensor a) { return sum(sin(a) * a); },
                                       std::vector<Array>{v.to(Device::cuda())});
  INFO(report.summary());
  CHECK(report);
}

TEST_CASE("gpu runtime: arguments on different devices are an error naming them", "[gpu]") {
  REQUIRE_GPU();
  auto f = jit([](Tensor a, Tensor b) { return a + b; }, {.name = "mixed"});
  CHECK_THROWS_WITH(f(Array::ones({2}), Array::ones({2}).to(Device::cuda())),
                    Catch::Contains("adjit::jit 'mixed': its array arguments live on different "
                                    "devices: array 0 (f32[2]) on cpu, array 1 (f32[2]) on cuda:0"));
  // JitOptions::device moves them.
  auto forced = jit([](Tensor a, Tensor b) { return a + b; }, {.device = Device::cuda()});
  Array sum_ = forced(Array::ones({2}), Array::ones({2}).to(Device::cuda()));
  CHECK(sum_.device() == Device::cuda());
  CHECK(sum_.to_vector<float>() == std::vector<float>{2, 2});
}

TEST_CASE("gpu runtime: synchronizing the CPU waits for nothing and keeps the handle", "[gpu]") {
  Device::cpu().synchronize();
  Array a = Array::ones({3});
  const Array& ready = a.block_until_ready();
  CHECK(&ready == &a);
  CHECK(ready.raw_data() == a.raw_data());
}

TEST_CASE("gpu runtime: calls queue without waiting, reads and block_until_ready wait for them",
          "[gpu]") {
  REQUIRE_GPU();
  // Each call's input is dropped at once, so its block returns to the cache
  // while the kernel that reads it is still queued, and the next call's
  // output may reuse it: the stream's order must make that safe.
  auto step = jit([](Tensor t) { return t + 1.0; }, {.name = "step"});
  Array x = Array::zeros({1 << 20}).to(Device::cuda());
  for (int i = 0; i < 200; ++i) x = step(x);
  CHECK(&x.block_until_ready() == &x);
  std::vector<float> counted = x.to_vector<float>();
  CHECK(std::all_of(counted.begin(), counted.end(), [](float v) { return v == 200.0f; }));

  // Gradient descent with temporaries in every call, 50 steps queued back
  // to back, against the same steps on the CPU.
  auto loss = [](Tensor v) { return sum(tanh(v) * v + 0.5 * v * v); };
  auto descend = [&](Array v) {
    auto value_and_gradient = value_and_grad(loss);
    for (int i = 0; i < 50; ++i) {
      auto [value, gradient] = value_and_gradient(v);
      v = jit([](Tensor p, Tensor g) { return p - 0.01 * g; })(v, gradient);
    }
    return v;
  };
  Array start = Array::randn({4096, 33}, 3);
  Array cpu = descend(start);
  Array gpu = descend(start.to(Device::cuda()));
  Device::cuda().synchronize();
  check_same("50 queued descent steps", gpu, cpu, 1e-4);
}
