// The CUDA target without a GPU (what CI checks): every op of the dialect,
// its gradient, W1-W3's value_and_grad, and row groups (softmax, LayerNorm,
// cross-entropy with their gradients) compile to PTX that the CUDA
// toolkit's ptxas accepts for sm_80 and sm_90; what the GPU backend cannot
// run fails with an error naming the operation.
#include "gpu_op_cases.h"

#include <adjit/runtime/GpuProgram.h>

#include <cstdio>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::gpu_cases;

namespace {

// PTX for `arch` from a traced program (its "traced" IR, re-targeted).
std::string ptx_for(const Lowered& lowered, const std::string& arch) {
  CompileOptions options;
  options.target = Device::Kind::cuda;
  options.gpu_arch = arch;
  return Program::parse(lowered.ir("traced"), "<traced>", options).ir("ptx");
}

// ptxas's verdict on `ptx` ("" when it assembles); skipped without a toolkit.
std::string ptxas_errors(const std::string& ptx, const std::string& arch) {
  const std::string ptxas = ADJIT_PTXAS;
  auto dir = std::filesystem::temp_directory_path();
  auto source = dir / ("adjit-test-" + std::to_string(::getpid()) + ".ptx");
  auto log = dir / ("adjit-test-" + std::to_string(::getpid()) + ".log");
  std::ofstream(source) << ptx;
  std::string command = ptxas + " -arch=" + arch + " " + source.string() + " -o /dev/null > " +
                        log.string() + " 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(source);
  std::filesystem::remove(log);
  return status == 0 ? "" : "ptxas -arch=" + arch + " failed:\n" + text;
}

void check_assembles(const std::string& what, const Lowered& lowered) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    std::string ptx;
    try {
      ptx = ptx_for(lowered, arch);
    } catch (const std::exception& e) {
      FAIL_CHECK(what << " for " << arch << ": " << e.what());
      continue;
    }
    CHECK(ptx.find(std::string(".target ") + arch) != std::string::npos);
    CHECK(ptx.find(".entry") != std::string::npos);
    INFO(what);
    CHECK(ptxas_errors(ptx, arch) == "");
  }
}

JitOptions on_gpu(const std::string& name) {
  JitOptions options;
  options.name = name;
  options.device = Device::cuda();
  return options;
}

}  // namespace

// Without the CUDA toolkit there is no libdevice for the kernels' math
// functions (nor ptxas): those tests are skipped with this warning.
#define REQUIRE_CUDA_TOOLKIT()                                                        \
  if (std::string(ADJIT_PTXAS).empty()) {                                             \
    WARN("skipped: no CUDA toolkit (ptxas, libdevice) was found at configure time");  \
    return;                                                                           \
  }

TEST_CASE("gpu codegen: every op and its gradient compile to PTX that ptxas accepts", "[gpu]") {
  REQUIRE_CUDA_TOOLKIT();
  for (const OpCase& c : op_cases()) {
    SECTION(c.name) {
      check_assembles(c.name, jit(c.f, on_gpu(c.name)).lower(c.inputs));
      if (c.differentiable) {
        auto loss = [f = c.f](const std::vector<Tensor>& x) { return sum(f(x) * f(x)); };
        check_assembles(c.name + " gradient",
                        jit(grad(loss, GradOptions{.allow_int = true}), on_gpu(c.name + "_grad"))
                            .lower(c.inputs));
      }
    }
  }
}

TEST_CASE("gpu codegen: W1, W2 and W3 value_and_grad compile to PTX that ptxas accepts", "[gpu]") {
  REQUIRE_CUDA_TOOLKIT();
  auto w1 = [](Tensor x) { return sum(tanh(x) * sigmoid(x) + 0.5 * x * x); };
  check_assembles("W1", jit(value_and_grad(w1), on_gpu("w1")).lower(Array::randn({1024}, 1)));

  auto w2 = [](const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
    Tensor h1 = relu(matmul(x, p[0]) + p[1]);
    Tensor logits = matmul(h1, p[2]) + p[3];
    return -mean(sum(log_softmax(logits, 1) * one_hot(labels, 10), {1}));
  };
  std::vector<Array> params = {Array::randn({32, 24}, 1), Array::zeros({24}),
                               Array::randn({24, 10}, 2), Array::zeros({10})};
  check_assembles("W2", jit(value_and_grad(w2), on_gpu("w2"))
                            .lower(params, Array::randn({16, 32}, 3),
                                   Array::uniform({16}, 4, 0, 10, DType::i32)));

  auto w3 = [](Tensor x, Tensor gamma, Tensor beta, Tensor c) {
    Tensor centered = x - mean(x, {-1}, true);
    Tensor normalized = centered * rsqrt(mean(centered * centered, {-1}, true) + 1e-5);
    return sum(gelu(normalized * gamma + beta, true) * c);
  };
  check_assembles("W3", jit(value_and_grad<0, 1, 2>(w3), on_gpu("w3"))
                            .lower(Array::randn({16, 32}, 1), Array::randn({32}, 2),
                                   Array::randn({32}, 3), Array::randn({16, 32}, 4)));
}

TEST_CASE("gpu codegen: row groups and their gradients run in thread blocks that ptxas accepts",
          "[gpu]") {
  REQUIRE_CUDA_TOOLKIT();
  auto softmax_loss = [](Tensor z, Tensor c) { return sum(softmax(z, 1) * c); };
  auto layernorm_loss = [](Tensor x, Tensor c) {
    Tensor centered = x - mean(x, {-1}, true);
    return sum(centered * rsqrt(mean(centered * centered, {-1}, true) + 1e-5) * c);
  };
  auto cross_entropy = [](Tensor z, Tensor c) { return -sum(log_softmax(z, 1) * c); };
  struct Case {
    std::string name;
    std::function<Tensor(Tensor, Tensor)> f;
  };
  std::vector<Case> cases = {{"softmax", softmax_loss},
                             {"layernorm", layernorm_loss},
                             {"cross_entropy", cross_entropy}};
  // Each function's rows and their gradient are one row group: 2048 rows
  // of 96 make 1024 blocks of 96 threads, 2 rows each; 64 rows of 1000, a
  // block per row, 256 threads with 3 or 4 elements each.
  for (auto [rows, width] : {std::pair{2048, 96}, std::pair{64, 1000}}) {
    for (const Case& c : cases) {
      std::string what = c.name + " " + std::to_string(rows) + "x" + std::to_string(width);
      SECTION(what) {
        Lowered lowered =
            jit(value_and_grad(c.f), on_gpu(c.name))
                .lower(Array::randn({rows, width}, 1), Array::randn({rows, width}, 2));
        std::string blocks = "blocks in (%c" + std::to_string(std::min(rows, 1024));
        INFO(what);
        CHECK(lowered.ir("gpu").find(blocks) != std::string::npos);
        check_assembles(what, lowered);
      }
    }
  }
}

TEST_CASE("gpu codegen: ADJIT_GPU_ROW_BLOCKS and ADJIT_GPU_ROW_THREADS bound a row group's "
          "thread blocks",
          "[gpu]") {
  auto softmax_loss = [](Tensor z) { return sum(softmax(z, 1)); };
  auto gpu_ir = [&](const char* variable, const char* value, int64_t width) {
    ::setenv(variable, value, 1);
    struct Unset {
      const char* variable;
      ~Unset() { ::unsetenv(variable); }
    } unset{variable};
    return jit(softmax_loss, on_gpu("softmax")).lower(Array::randn({2048, width}, 1)).ir("gpu");
  };
  // 2048 rows: 512 blocks of 4 rows, or 2048 of one.
  CHECK(gpu_ir("ADJIT_GPU_ROW_BLOCKS", "512", 96).find("blocks in (%c512,") != std::string::npos);
  CHECK(gpu_ir("ADJIT_GPU_ROW_BLOCKS", "4096", 96).find("blocks in (%c2048,") !=
        std::string::npos);
  // Rows of 1000: 256 threads by default, fewer when asked.
  CHECK(gpu_ir("ADJIT_GPU_ROW_THREADS", "256", 1000).find("threads in (%c256,") !=
        std::string::npos);
  CHECK(gpu_ir("ADJIT_GPU_ROW_THREADS", "64", 1000).find("threads in (%c64,") !=
        std::string::npos);
  for (const char* bad : {"0", "-3", "many", "12x", ""}) {
    INFO(bad);
    CHECK_THROWS_WITH(gpu_ir("ADJIT_GPU_ROW_BLOCKS", bad, 96),
                      Catch::Contains("ADJIT_GPU_ROW_BLOCKS='") &&
                          Catch::Contains("is not a number of thread blocks"));
  }
  for (const char* bad : {"0", "48", "2048", "x"}) {
    INFO(bad);
    CHECK_THROWS_WITH(gpu_ir("ADJIT_GPU_ROW_THREADS", bad, 96),
                      Catch::Contains("ADJIT_GPU_ROW_THREADS='") &&
                          Catch::Contains("from 32 to 1024, a multiple of 32"));
  }
}

TEST_CASE("gpu codegen: the GPU program of a function names its kernels and buffers", "[gpu]") {
  REQUIRE_CUDA_TOOLKIT();  // exp needs libdevice
  auto f = [](Tensor x, Tensor y) { return sum(exp(x) * y, {1}); };
  Lowered lowered = jit(f, on_gpu("f")).lower(Array::randn({4, 8}, 1), Array::randn({4, 8}, 2));
  std::string program = lowered.ir("gpu-program");
  CHECK(program.rfind("adjit-gpu-program 2\narch sm_90\nformat ptx\n", 0) == 0);
  CHECK(program.find("entry f\ninputs 2\ntype f32 2 4 8\ntype f32 2 4 8\noutputs 1\ntype f32 1 4\n") !=
        std::string::npos);
  CHECK(program.find("launch f_kernel") != std::string::npos);
  adjit::gpu::GpuProgram parsed = adjit::gpu::GpuProgram::deserialize(program);
  CHECK(parsed.serialize() == program);
  REQUIRE(parsed.entries.size() == 1);
  CHECK(parsed.entries[0].signature.outputs[0].shape == Shape{4});
  CHECK(parsed.image.find(".visible .entry f_kernel") != std::string::npos);
  // Every stage of the cuda target is shown.
  for (const std::string& stage : stage_names(Device::Kind::cuda)) CHECK_FALSE(lowered.ir(stage).empty());
  CHECK(lowered.ir("gpu").find("gpu.launch_func") != std::string::npos);
  CHECK(lowered.ir("nvvm").find("nvvm.read.ptx.sreg.tid.x") != std::string::npos);
}

TEST_CASE("gpu codegen: malformed GPU programs are rejected with the line", "[gpu]") {
  CHECK_THROWS_WITH(adjit::gpu::GpuProgram::deserialize("hello"),
                    Catch::Contains("not an adjit GPU program"));
  CHECK_THROWS_WITH(adjit::gpu::GpuProgram::deserialize("adjit-gpu-program 7\n"),
                    Catch::Contains("version 7"));
  CHECK_THROWS_WITH(
      adjit::gpu::GpuProgram::deserialize("adjit-gpu-program 2\narch sm_90\nformat ptx\nconstants 0\n"
                                   "entries 1\nentry f\ninputs 0\noutputs 0\nbuffers 0\nsteps 1\n"
                                   "release 3\n"),
      Catch::Contains("line 11): no buffer 3"));
  CHECK_THROWS_WITH(adjit::gpu::GpuProgram::deserialize("adjit-gpu-program 2\narch sm_90\nformat ptx\n"
                                                 "constants 0\nentries 0\nimage 100\nshort"),
                    Catch::Contains("truncated"));
  CHECK_THROWS_WITH(
      adjit::gpu::GpuProgram::deserialize("adjit-gpu-program 2\narch sm_90\nformat ptx\nconstants 0\n"
                                   "entries 1\nentry f\ninputs 0\noutputs 0\nbuffers 0\nsteps 1\n"
                                   "gemm 32 1 2 2 2 sideways\n"),
      Catch::Contains("gemm mode 'sideways' (accumulate or overwrite)"));
}

TEST_CASE("gpu codegen: control flow is not yet run on the GPU and says so", "[gpu]") {
  auto f = [](Tensor x) {
    return fori_loop(0, 3, [](Tensor, Tensor c) { return c * 2.0; }, x);
  };
  CHECK_THROWS_WITH(jit(f, on_gpu("loop")).lower(Array::randn({4}, 1)).ir("gpu-program"),
                    Catch::Contains("the GPU backend cannot run 'scf.for' in the host code of "
                                    "'loop'"));
}

TEST_CASE("gpu codegen: cuda stages are the cuda target's only", "[gpu]") {
  auto f = [](Tensor x) { return x * 2.0; };
  Lowered on_cpu = jit(f).lower(Array::randn({4}, 1));
  CHECK_THROWS_WITH(on_cpu.ir("ptx"), Catch::Contains("stage 'ptx' is not one of the cpu target's"));
  Lowered on_cuda = jit(f, on_gpu("g")).lower(Array::randn({4}, 1));
  CHECK_THROWS_WITH(on_cuda.ir("asm"), Catch::Contains("stage 'asm' is not one of the cuda target's"));
}

TEST_CASE("gpu codegen: contractions become cuBLAS gemm steps when the library is there", "[gpu]") {
  REQUIRE_CUDA_TOOLKIT();  // tanh needs libdevice
  auto step = [](const std::vector<Tensor>& p, const Tensor& x) {
    return grad([](const std::vector<Tensor>& q, const Tensor& v) {
      return sum(tanh(matmul(v, q[0])) * matmul(v, q[1]));
    })(p, x);
  };
  std::vector<Array> params = {Array::randn({64, 32}, 1), Array::randn({64, 32}, 2)};
  Array x = Array::randn({16, 64}, 3);
  ::setenv("ADJIT_GPU_GEMM", "cublas", 1);
  std::string with_library = jit(step, on_gpu("step")).lower(params, x).ir("gpu-program");
  ::setenv("ADJIT_GPU_GEMM", "kernels", 1);
  std::string with_kernels = jit(step, on_gpu("step")).lower(params, x).ir("gpu-program");
  ::unsetenv("ADJIT_GPU_GEMM");
  // Two forward products and their four gradient products (x^T dy per
  // parameter; dy W^T is unused: x is not differentiated).
  auto count = [](const std::string& text, const std::string& word) {
    size_t n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  CHECK(count(with_library, "\ngemm 32 ") >= 4);
  CHECK(count(with_kernels, "\ngemm ") == 0);
  // The forward products write fresh buffers: their zero fills fold in
  // (cuBLAS's beta = 0), with no fill kernel before them.
  CHECK(count(with_library, " overwrite\n") >= 2);
  adjit::gpu::GpuProgram parsed = adjit::gpu::GpuProgram::deserialize(with_library);
  CHECK(parsed.serialize() == with_library);
  bool transposed_operand = false;
  for (const adjit::gpu::Step& s : parsed.entries[0].steps)
    if (s.kind == adjit::gpu::Step::Kind::gemm) {
      CHECK(s.gemm.strides[2][2] == 1);  // C contiguous along its columns
      transposed_operand |= s.gemm.strides[0][1] == 1 && s.gemm.k > 1;  // x^T read in place
    }
  CHECK(transposed_operand);
}
