// Ahead-of-time objects (adjit::aot, `adjit aot`): linked into C programs by
// the system C compiler with the AOT runtime alone, their outputs equal the
// JIT's bit for bit, they fail with statuses, and bad requests are errors.

#include "adjit/adjit.h"
#include "scratch_dir.h"
#include "test_support.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace {

using namespace adjit;
using namespace adjit::test;
using adjit::test::ad::mismatch;
using adjit::aot::AotOptions;
using adjit::aot::AotResult;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs a shell command; its exit status and output (stdout and stderr).
std::pair<int, std::string> shell(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// A C program that reads the inputs of function NAME from a file, calls it
// through NAME_call on `threads` threads at once (each with its own
// outputs), checks that every thread got the same bytes and status 0, and
// writes the outputs. Built by the system C compiler with the AOT runtime.
std::string driver_source(const AotResult& aot) {
  const Signature& s = aot.functions.at(0);
  auto byte_list = [](const std::vector<TensorType>& types) {
    std::string list;
    for (const TensorType& t : types) {
      int64_t n = static_cast<int64_t>(dtype_size(t.dtype));
      for (int64_t extent : t.shape) n *= extent;
      list += std::to_string(n) + ", ";
    }
    return list + "0";
  };
  std::ostringstream c;
  c << "#include \"" << s.name << ".h\"\n"
    << R"(#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NI )" << s.inputs.size() << "\n#define NO " << s.outputs.size() << R"(
static const size_t in_bytes[] = {)" << byte_list(s.inputs) << R"(};
static const size_t out_bytes[] = {)" << byte_list(s.outputs) << R"(};
static void* inputs[NI + 1];
struct job { void* outputs[NO + 1]; int status; };
static void* run(void* p) {
  struct job* j = p;
  j->status = )" << s.name << R"(_call((const void* const*)inputs, j->outputs);
  return NULL;
}
int main(int argc, char** argv) {
  if (argc != 4) return 10;
  int threads = atoi(argv[3]);
  FILE* in = fopen(argv[1], "rb");
  if (!in) return 11;
  for (int i = 0; i < NI; ++i) {
    inputs[i] = malloc(in_bytes[i] + 1);
    if (fread(inputs[i], 1, in_bytes[i], in) != in_bytes[i]) return 12;
  }
  fclose(in);
  struct job jobs[8];
  pthread_t ids[8];
  for (int t = 0; t < threads; ++t)
    for (int o = 0; o < NO; ++o) jobs[t].outputs[o] = calloc(1, out_bytes[o] + 1);
  for (int t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, run, &jobs[t]);
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  for (int t = 0; t < threads; ++t) {
    if (jobs[t].status != ADJIT_AOT_OK) { printf("status %d\n", jobs[t].status); return 13; }
    for (int o = 0; o < NO; ++o)
      if (memcmp(jobs[t].outputs[o], jobs[0].outputs[o], out_bytes[o])) return 14;
  }
  FILE* out = fopen(argv[2], "wb");
  for (int o = 0; o < NO; ++o) fwrite(jobs[0].outputs[o], 1, out_bytes[o], out);
  fclose(out);
  return 0;
}
)";
  return c.str();
}

// Options that write `name` into `dir`.
AotOptions options_in(const ScratchDir& dir, const std::string& name) {
  AotOptions options;
  options.name = name;
  options.output_dir = dir.path();
  return options;
}

// Builds the C program `source` with the system C compiler, linked with
// `objects` (AOT objects or -l flags) and the AOT runtime alone; its path.
std::string link_c_program(const ScratchDir& dir, const std::string& name,
                           const std::string& source, const std::string& objects) {
  std::string program = dir.file(name);
  auto [status, output] =
      shell(std::string(ADJIT_C_COMPILER) + " -std=c11 -Wall -Werror -O1 -I" + dir.path() + " " +
            dir.write(name + ".c", source) + " " + objects + " " + ADJIT_AOT_RUNTIME_LIBRARY +
            " -lm -lpthread -o " + program);
  INFO(output);
  REQUIRE(status == 0);
  return program;
}

// Links the driver of `aot` with the C compiler and runs it on `inputs`.
std::vector<Array> run_aot(const ScratchDir& dir, const AotResult& aot,
                           const std::vector<Array>& inputs, int threads = 1) {
  const Signature& s = aot.functions.at(0);
  std::string program = link_c_program(dir, s.name + "_driver", driver_source(aot), aot.object_path);
  std::string bytes;
  for (const Array& input : inputs)
    bytes.append(static_cast<const char*>(input.raw_data()), input.nbytes());
  std::string in = dir.write(s.name + ".in", bytes), out = dir.file(s.name + ".out");
  auto [ran, run_output] = shell(program + " " + in + " " + out + " " + std::to_string(threads));
  INFO(run_output);
  REQUIRE(ran == 0);
  std::string results = read_file(out);
  std::vector<Array> outputs;
  size_t offset = 0;
  for (const TensorType& type : s.outputs) {
    Array a = Array::empty(type.shape, type.dtype);
    REQUIRE(offset + a.nbytes() <= results.size());
    std::memcpy(a.raw_data(), results.data() + offset, a.nbytes());
    offset += a.nbytes();
    outputs.push_back(std::move(a));
  }
  CHECK(offset == results.size());
  return outputs;
}

// A C program ran and printed each of `lines`.
void check_printed(const std::pair<int, std::string>& run, std::initializer_list<const char*> lines) {
  INFO(run.second);
  CHECK(run.first == 0);
  for (const char* line : lines) CHECK(contains(run.second, line));
}

bool same_bytes(const Array& a, const Array& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// The JIT's results as a flat list (a Tensor, a tuple, a vector of them).
template <class R>
void flatten(const R& result, std::vector<Array>& out) {
  if constexpr (std::is_same_v<R, Array>) {
    out.push_back(result);
  } else if constexpr (requires { result.size(); result.begin(); }) {
    for (const auto& item : result) flatten(item, out);
  } else {
    std::apply([&](const auto&... items) { (flatten(items, out), ...); }, result);
  }
}

// Compiles `f` ahead of time and with the JIT at `args`; both results
// agree bit for bit, also with 4 threads calling the AOT code at once, and
// from code whose calls run on teams of 3 threads (AotOptions::threads).
template <class F, class... Args>
AotResult expect_aot_equals_jit(const ScratchDir& dir, const std::string& name, F f,
                                const Args&... args) {
  std::vector<Array> want;
  flatten(jit(f)(args...), want);
  std::vector<Array> inputs;
  (flatten(args, inputs), ...);
  AotResult serial;
  for (int team : {1, 3}) {
    AotOptions options = options_in(dir, team == 1 ? name : name + "_team");
    options.threads = team;
    AotResult aot = aot::compile(f, options, args...);
    if (team == 1) serial = aot;
    for (int callers : {1, 4}) {
      std::vector<Array> got = run_aot(dir, aot, inputs, callers);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        INFO(name << " output " << i << " with teams of " << team << ", " << callers
                  << " callers");
        CHECK(same_bytes(got[i], want[i]));
      }
    }
  }
  return serial;
}

Tensor w1_loss(const Tensor& x) { return sum(tanh(x) * sigmoid(x) + 0.5 * x * x); }

Tensor mlp_loss(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  Tensor h = relu(matmul(x, p[0]) + p[1]);
  Tensor logp = log_softmax(matmul(h, p[2]) + p[3], -1);
  return -mean(sum(one_hot(labels, 10, logp.dtype()) * logp, {1}));
}

}  // namespace

TEST_CASE("aot: outputs equal the JIT's bit for bit, from a C program", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  SECTION("value_and_grad of a long elementwise sum (parallel chunks in the JIT)") {
    Array x = Array::randn({300000}, 1);
    AotResult aot = expect_aot_equals_jit(dir, "w1_value_and_grad", value_and_grad(w1_loss), x);
    std::string header = read_file(aot.header_path);
    CHECK(contains(header, "int w1_value_and_grad(const float* in0, float* out0, float* out1);"));
    CHECK(contains(header, "#define w1_value_and_grad_OUT1_SHAPE {300000}"));
  }
  SECTION("value_and_grad of a function without loops (LLVM inlines and cleans up only)") {
    Array x = Array::randn({16}, 10);
    expect_aot_equals_jit(dir, "small_value_and_grad", value_and_grad(w1_loss), x);
  }
  SECTION("an MLP training step with a GradientTape (GEMM kernels, integer labels)") {
    std::vector<Array> p = {Array::randn({64, 128}, 2), Array::zeros({128}),
                            Array::randn({128, 10}, 3), Array::zeros({10})};
    Array x = Array::randn({96, 64}, 4);
    std::vector<int32_t> labels(96);
    for (int i = 0; i < 96; ++i) labels[i] = (i * 7) % 10;
    Array y = Array::from<int32_t>(labels, {96});
    auto step = [](const std::vector<Tensor>& p, Tensor x, Tensor labels) {
      GradientTape tape;
      tape.watch(p);
      Tensor loss = mlp_loss(p, x, labels);
      std::vector<Tensor> g = tape.gradient(loss, p);
      std::vector<Tensor> next;
      for (size_t i = 0; i < p.size(); ++i) next.push_back(p[i] - 0.01 * g[i]);
      return std::make_tuple(loss, next);
    };
    AotResult aot = expect_aot_equals_jit(dir, "mlp_step", step, p, x, y);
    CHECK(contains(read_file(aot.header_path), "const int32_t* in5"));
  }
  SECTION("LayerNorm + GELU gradients over row blocks") {
    Array x = Array::randn({512, 256}, 5), gamma = Array::randn({256}, 6),
          beta = Array::randn({256}, 7), c = Array::randn({512, 256}, 8);
    auto loss = [](Tensor x, Tensor gamma, Tensor beta, Tensor c) {
      Tensor centered = x - mean(x, {-1}, true);
      Tensor normalized = centered * rsqrt(mean(centered * centered, {-1}, true) + 1e-5);
      return sum(gelu(normalized * gamma + beta, true) * c);
    };
    expect_aot_equals_jit(dir, "w3_grad", grad<0, 1, 2>(loss), x, gamma, beta, c);
  }
  SECTION("a loop, a comparison (bool output) and f64") {
    Array v = Array::randn({16}, 9, DType::f64);
    auto f = [](Tensor v) {
      Tensor y = fori_loop(0, 5, [](Tensor, Tensor c) { return sin(c) * 1.5 + 0.25; }, v);
      return std::make_tuple(y, y > 0.0);
    };
    AotResult aot = expect_aot_equals_jit(dir, "loop_f64", f, v);
    CHECK(contains(read_file(aot.header_path), "int loop_f64(const double* in0, double* out0, bool* out1);"));
  }
  SECTION("30 layers: loop nests called as functions, one per kind (adjit-outline-loop-nests)") {
    std::vector<Array> weights;
    for (int i = 0; i < 30; ++i) weights.push_back(Array::uniform({8, 8}, 100 + i, -0.6, 0.6));
    Array x = Array::uniform({4, 8}, 7, -1, 1);
    auto network = [](std::vector<Tensor> weights, Tensor x) {
      Tensor h = x;
      for (const Tensor& w : weights) h = tanh(matmul(h, w));
      return sum(h * h);
    };
    AotResult aot = expect_aot_equals_jit(dir, "deep_value_and_grad",
                                          value_and_grad<0, 1>(network), weights, x);
    CHECK(contains(read_file(aot.header_path), "#define deep_value_and_grad_ALLOCATES_WITH_WORKSPACE 0\n"));
  }
  SECTION("a convolution layer's gradient (gathered patches, a pool), and a loop filling rows") {
    Array x = Array::randn({2, 8, 8, 16}, 11), w = Array::randn({3, 3, 16, 4}, 12);
    auto cnn = [](Tensor x, Tensor w) {
      Tensor h = relu(conv(x, w, {.padding = Padding::same}));
      return sum(max_pool(h, {2, 2}, {.strides = {2, 2}}) * 0.5) + sum(avg_pool(h, {3, 3}));
    };
    expect_aot_equals_jit(dir, "conv_value_and_grad", value_and_grad<0, 1>(cnn), x, w);
    Array h0 = Array::randn({8}, 13);
    auto fill = [](Tensor h0) {
      auto [h, rows] = fori_loop(
          0, 6,
          [](Tensor i, std::tuple<Tensor, Tensor> c) {
            auto [h, b] = c;
            Tensor next = tanh(h * 1.5 - 0.2);
            return std::make_tuple(next, dynamic_update_slice(b, expand_dims(next, 0), {i, 0}));
          },
          std::make_tuple(h0, full({6, 8}, 0.0)));
      return sum(rows * rows) + sum(dynamic_slice(rows, {3, 2}, {2, 4}));
    };
    expect_aot_equals_jit(dir, "fill_rows_grad", value_and_grad(fill), h0);
  }
  SECTION("inverse and hyperbolic trigonometry, atan2: libmvec's f32 and f64 variants") {
    auto f = [](Tensor x, Tensor y) {
      return sum(asin(x) * acos(x) + atanh(x) + atan2(y, x) + asinh(y) * cosh(y) + tan(x) +
                 sinh(y) + atan(y) + cbrt(y) + acosh(y * y + 1.0) + round(y * 4.0) + ceil(y));
    };
    for (DType dtype : {DType::f32, DType::f64}) {
      Array x = Array::uniform({1000}, 14, -0.95, 0.95, dtype);
      Array y = Array::uniform({1000}, 15, -2, 2, dtype);
      expect_aot_equals_jit(dir, dtype == DType::f32 ? "trigonometry_f32" : "trigonometry_f64",
                            value_and_grad<0, 1>(f), x, y);
    }
  }
  SECTION("linear algebra: a batch of Cholesky factors, solves, determinants, eigenvectors, QR factors, singular values and their gradients, in lanes") {
    auto f = [](Tensor a, Tensor b) {
      Tensor identity = cast(equal(reshape(arange(5), {5, 1}), arange(5)), DType::f64);
      Tensor l = linalg::cholesky(matmul(a, transpose(a, {0, 2, 1})) + 3.0 * identity);
      return sum(linalg::cho_solve(l, b) +
                 linalg::solve(a + 4.0 * identity, b) * linalg::triangular_solve(l, b, true, true)) +
             sum(linalg::slogdet(a + 4.0 * identity).logabsdet + linalg::det(a)) +
             sum(linalg::eigvalsh(a) * linalg::eigvalsh(a)) +
             sum(linalg::eigh(a).eigenvectors * linalg::eigh(a).eigenvectors * identity) +
             sum(linalg::qr(a).q * a) + sum(linalg::qr(b).r) + sum(linalg::svdvals(a)) +
             sum(linalg::svd(b).u * linalg::svd(b).u);
    };
    // 19 matrices: two groups of 8 in vector lanes, and 3 of padding.
    Array a = Array::uniform({19, 5, 5}, 16, -1, 1, DType::f64);
    Array b = Array::uniform({19, 5, 2}, 17, -1, 1, DType::f64);
    expect_aot_equals_jit(dir, "linear_algebra", value_and_grad<0, 1>(f), a, b);
  }
  SECTION("f32 sin and cos: vectors reduced in the code, and vectors with a lane for libm") {
    std::vector<float> values(1024);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<float>(i) * 0.37f - 150.0f;
    values[700] = 3.0e6f;  // its vector goes to the runtime's libm lanes
    values[900] = -INFINITY;
    Array x = Array::from<float>(values, {1024});
    auto f = [](Tensor x) { return sin(x) * 2.0 + cos(x); };
    expect_aot_equals_jit(dir, "sin_cos_f32", f, x);
    Array y = jit(f)(x);
    CHECK(y.data<float>()[700] == 2 * std::sin(3.0e6f) + std::cos(3.0e6f));
    CHECK(std::isnan(y.data<float>()[900]));
    for (size_t i = 0; i < values.size(); ++i)
      if (i != 900) {
        INFO("x = " << values[i]);
        CHECK(std::abs(y.data<float>()[i] - (2 * std::sin(double(values[i])) + std::cos(double(values[i])))) < 1e-5);
      }
    // A lane's result depends on its own input only, not on a neighbour
    // that took libm's path.
    std::vector<float> calm = values;
    calm[700] = calm[900] = 0.0f;
    Array y_calm = jit(f)(Array::from<float>(calm, {1024}));
    for (size_t i = 0; i < values.size(); ++i)
      if (i != 700 && i != 900) {
        INFO("lane " << i);
        CHECK(std::memcmp(y.data<float>() + i, y_calm.data<float>() + i, sizeof(float)) == 0);
      }
  }
}

TEST_CASE("aot: threads from ADJIT_NUM_THREADS at run time", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  Array x = Array::randn({300000}, 1);
  AotOptions options = options_in(dir, "w1_cores");
  options.threads = 0;
  AotResult aot = aot::compile(value_and_grad(w1_loss), options, x);
  CHECK(contains(read_file(aot.header_path), "keeps: up to ADJIT_NUM_THREADS threads, else one per"));
  // Its parallel regions call the AOT runtime's team, never an OpenMP
  // runtime the program may also link.
  auto [listed, symbols] = shell("nm -u " + aot.object_path);
  CHECK(listed == 0);
  CHECK(contains(symbols, "adjit_aot_kmpc_fork_call"));
  CHECK(contains(symbols, "adjit_aot_call_parallel"));
  CHECK_FALSE(contains(symbols, "__kmpc"));
  std::vector<Array> want;
  flatten(jit(value_and_grad(w1_loss))(x), want);
  std::string program = link_c_program(dir, "driver", driver_source(aot), aot.object_path);
  std::string in = dir.write("w1.in", std::string(static_cast<const char*>(x.raw_data()), x.nbytes()));
  for (const char* setting : {"3", "1", "many"}) {
    INFO("ADJIT_NUM_THREADS=" << setting);
    std::string out = dir.file(std::string("w1.") + setting + ".out");
    auto [ran, output] = shell(std::string("ADJIT_NUM_THREADS=") + setting + " " + program + " " +
                               in + " " + out + " 2");
    CHECK(ran == 0);
    CHECK(contains(output, "ADJIT_NUM_THREADS must be an integer") == (setting == std::string("many")));
    std::string results = read_file(out);
    REQUIRE(results.size() == want[0].nbytes() + want[1].nbytes());
    CHECK(std::memcmp(results.data(), want[0].raw_data(), want[0].nbytes()) == 0);
    CHECK(std::memcmp(results.data() + want[0].nbytes(), want[1].raw_data(), want[1].nbytes()) == 0);
  }
}

TEST_CASE("aot: a caller's workspace holds the temporaries", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  int team = GENERATE(1, 2);
  INFO("teams of " << team);
  std::vector<Array> p = {Array::randn({64, 128}, 2), Array::zeros({128}),
                          Array::randn({128, 10}, 3), Array::zeros({10})};
  std::vector<int32_t> labels(96);
  for (int i = 0; i < 96; ++i) labels[i] = (i * 7) % 10;
  AotOptions options = options_in(dir, "mlp_grad");
  options.threads = team;
  AotResult aot = aot::compile(value_and_grad(mlp_loss), options, p, Array::randn({96, 64}, 4),
                               Array::from<int32_t>(labels, {96}));
  std::string header = read_file(aot.header_path);
  CHECK(contains(header, "#define mlp_grad_WORKSPACE_ALIGNMENT 64\n"));
  CHECK(contains(header, "#define mlp_grad_ALLOCATES_WITH_WORKSPACE 0\n"));
  CHECK(contains(header, "int mlp_grad_with_workspace(const float* in0, const float* in1, "
                         "const float* in2, const float* in3, const float* in4, "
                         "const int32_t* in5, float* out0, float* out1, float* out2, "
                         "float* out3, float* out4, void* workspace);"));
  // The C program counts the allocations of a call with and without a
  // workspace (after a first call, which makes the GEMM kernels' packing
  // space), and compares their outputs.
  std::string program = link_c_program(dir, "main", R"(
#include "mlp_grad.h"
#include <malloc.h>
#include <stdio.h>
#include <string.h>
static int allocations = 0;
void* aligned_alloc(size_t alignment, size_t size) { ++allocations; return memalign(alignment, size); }
static float p0[mlp_grad_IN0_ELEMENTS], p1[mlp_grad_IN1_ELEMENTS], p2[mlp_grad_IN2_ELEMENTS],
    p3[mlp_grad_IN3_ELEMENTS], x[mlp_grad_IN4_ELEMENTS];
static int labels[mlp_grad_IN5_ELEMENTS];
struct outputs { float loss, g0[mlp_grad_OUT1_ELEMENTS], g1[mlp_grad_OUT2_ELEMENTS],
                 g2[mlp_grad_OUT3_ELEMENTS], g3[mlp_grad_OUT4_ELEMENTS]; };
static struct outputs a, b;
_Alignas(64) static unsigned char workspace[mlp_grad_WORKSPACE_BYTES + 64];
static int with(unsigned char* w) {
  return mlp_grad_with_workspace(p0, p1, p2, p3, x, labels, &b.loss, b.g0, b.g1, b.g2, b.g3, w);
}
int main(void) {
  for (int i = 0; i < mlp_grad_IN0_ELEMENTS; ++i) p0[i] = (i % 7) * 0.1f - 0.3f;
  for (int i = 0; i < mlp_grad_IN2_ELEMENTS; ++i) p2[i] = (i % 5) * 0.1f - 0.2f;
  for (int i = 0; i < mlp_grad_IN4_ELEMENTS; ++i) x[i] = (i % 11) * 0.1f - 0.5f;
  for (int i = 0; i < mlp_grad_IN5_ELEMENTS; ++i) labels[i] = i % 10;
  int first = mlp_grad(p0, p1, p2, p3, x, labels, &a.loss, a.g0, a.g1, a.g2, a.g3);
  allocations = 0;
  int plain = mlp_grad(p0, p1, p2, p3, x, labels, &a.loss, a.g0, a.g1, a.g2, a.g3);
  int allocated = allocations;
  allocations = 0;
  int lent = with(workspace);
  printf("statuses %d %d %d\n", first, plain, lent);
  printf("allocations %d %d\n", allocated, allocations);
  printf("same %d\n", memcmp(&a, &b, sizeof a) == 0);
  printf("misaligned %d null %d\n", with(workspace + 4), with(NULL));
  return 0;
}
)", aot.object_path);
  check_printed(shell(program), {"statuses 0 0 0\n", "allocations 1 0\n", "same 1\n",
                                 "misaligned 3 null 1\n"});
}

TEST_CASE("aot: workspace sizes of functions without an arena or with stacks sized at run time",
          "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  // No temporaries: no workspace needed (NULL is accepted).
  AotResult small = aot::compile([](Tensor x) { return x * 2.0 + 1.0; }, options_in(dir, "affine"),
                                 Array::randn({8}, 1));
  CHECK(contains(read_file(small.header_path), "#define affine_WORKSPACE_BYTES 0\n"));
  CHECK(contains(read_file(small.header_path), "#define affine_ALLOCATES_WITH_WORKSPACE 0\n"));
  std::string program = link_c_program(dir, "affine_main", R"(
#include "affine.h"
#include <stdio.h>
int main(void) {
  float x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[8] = {0};
  int status = affine_with_workspace(x, y, NULL);
  printf("status %d %.1f\n", status, y[7]);
  return 0;
}
)", small.object_path);
  check_printed(shell(program), {"status 0 15.0\n"});
  // The reverse mode of a while_loop stacks as many carries as it ran
  // iterations (here the adjoint of c * (c + 1) reads c): allocated during
  // the call, workspace or not.
  auto loss = [](Tensor x) {
    Tensor y = while_loop([](Tensor c) { return sum(c) < 100.0; },
                          [](Tensor c) { return c * (c + 1.0); }, x);
    return sum(y);
  };
  AotResult stacks = aot::compile(grad(loss), options_in(dir, "while_grad"), Array::ones({4}));
  CHECK(contains(read_file(stacks.header_path), "#define while_grad_ALLOCATES_WITH_WORKSPACE 1\n"));
}

TEST_CASE("aot: statuses for NULL pointers and failed allocations", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  // A 256 GiB temporary: the call returns ADJIT_AOT_OUT_OF_MEMORY and frees
  // what it held; the next call of another function works. So does a GEMM
  // whose packing space cannot be allocated.
  Program program = Program::parse(
      read_file(std::string(ADJIT_SOURCE_DIR) + "/tests/fuzz/regressions/huge-intermediate.mlir") +
      R"(
    func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = adjit.exp %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    func.func @product(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<64x96xf32> {
      %c = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0]
          : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
      return %c : tensor<64x96xf32>
    }
  )");
  // With teams of 2 threads, the product's tiles run on both, and each
  // thread fails to allocate its own packing space.
  int team = GENERATE(1, 2);
  INFO("teams of " << team);
  AotOptions options = options_in(dir, "statuses");
  options.threads = team;
  aot::write(program, options);
  std::string main_program = link_c_program(dir, "main", R"(
#include "statuses.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
/* While `starved`, aligned_alloc fails from 1 MiB on: the GEMM kernels'
   packing space (MiBs) cannot be had. */
static int starved = 0;
void* aligned_alloc(size_t alignment, size_t size) {
  return starved && size >= (1u << 20) ? NULL : memalign(alignment, size);
}
int main(void) {
  static float x = 1, y[4], v[262144 * 16], m[262144 * 16];
  static float a[product_IN0_ELEMENTS], b[product_IN1_ELEMENTS], c[product_OUT0_ELEMENTS];
  float small_in[4] = {0, 1, 2, 3};
  printf("huge %d\n", huge(&x, v, m));
  printf("null %d\n", small(NULL, y));
  int status = small(small_in, y);
  printf("small %d %.6f\n", status, y[1]);
  for (int i = 0; i < product_IN0_ELEMENTS; ++i) a[i] = 1;
  for (int i = 0; i < product_IN1_ELEMENTS; ++i) b[i] = 0.5f;
  starved = 1;
  printf("starved %d\n", product(a, b, c));
  starved = 0;
  status = product(a, b, c);
  printf("fed %d %.1f\n", status, c[0]);
  return 0;
}
)", dir.file("statuses.o"));
  check_printed(shell(main_program), {"huge 2\n", "null 1\n", "small 0 2.718282\n",
                                      "starved 2\n", "fed 0 64.0\n"});
}

TEST_CASE("aot: a static library, several entries, and no LLVM at run time", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  Program program = Program::parse_file(std::string(ADJIT_SOURCE_DIR) + "/examples/mlp.mlir");
  AotOptions options = options_in(dir, "mlp");
  options.static_library = true;
  AotResult result = aot::write(program, options, {"mlp"});
  CHECK(result.object_path == dir.file("libmlp.a"));
  std::string main_program = link_c_program(dir, "main", R"(
#include "mlp.h"
#include <stdio.h>
int main(void) {
  float x[mlp_IN0_ELEMENTS] = {0}, w1[mlp_IN1_ELEMENTS] = {0}, b1[mlp_IN2_ELEMENTS] = {0},
        w2[mlp_IN3_ELEMENTS] = {0}, b2[mlp_IN4_ELEMENTS] = {0}, y[mlp_OUT0_ELEMENTS];
  int status = mlp(x, w1, b1, w2, b2, y);
  printf("%d %.6f\n", status, y[0]);  /* softmax of zeros: 1/3 */
  return 0;
}
)", "-L" + dir.path() + " -lmlp");
  auto [ran, output] = shell(main_program);
  CHECK(output == "0 0.333333\n");
  // The include guard keeps the library name's case, as C names do: two
  // libraries "mlp" and "MLP" have two guards.
  CHECK(contains(read_file(dir.file("mlp.h")), "#ifndef ADJIT_AOT_mlp_"));
  auto [listed, libraries] = shell("ldd " + main_program);
  INFO(libraries);
  CHECK(listed == 0);
  CHECK(!contains(libraries, "LLVM"));
  CHECK(!contains(libraries, "MLIR"));
  CHECK(!contains(libraries, "libadjit"));
  CHECK(!contains(libraries, "libstdc++"));
  CHECK(!contains(libraries, "libomp"));
}

TEST_CASE("aot: objects link into static executables", "[compiler][aot]") {
  // The small code model of C compilers: the JIT's large one (a .ltext
  // section, GOT64 relocations) did not link with -static where the code
  // calls memset, an IFUNC in a static glibc.
  ScratchDir dir("adjit-aot");
  auto row_sums = [](Tensor x) { return sum(tanh(x), {1}); };
  std::vector<float> xs(64 * 48);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
  Array x = Array::from<float>(xs, {64, 48});
  std::vector<float> want = jit(row_sums)(x).to_vector<float>();
  for (int threads : {1, 0}) {
    INFO("threads " << threads);
    AotOptions options = options_in(dir, threads == 1 ? "rows_alone" : "rows_team");
    options.threads = threads;
    AotResult aot = aot::compile(row_sums, options, x);
    std::string name = options.name;
    std::string source = "#include \"" + name + R"(.h"
#include <math.h>
#include <stdio.h>
static float x[NAME_IN0_ELEMENTS], y[NAME_OUT0_ELEMENTS];
int main(void) {
  for (int i = 0; i < NAME_IN0_ELEMENTS; ++i) x[i] = (float)sin(0.37 * i);
  int status = NAME(x, y);
  for (int i = 0; i < NAME_OUT0_ELEMENTS; ++i) printf("%.9g\n", y[i]);
  return status;
}
)";
    for (size_t at; (at = source.find("NAME")) != std::string::npos;) source.replace(at, 4, name);
    std::string program = link_c_program(dir, name + "_static", source, "-static " + aot.object_path);
    auto [ran, output] = shell(program);
    INFO(output);
    REQUIRE(ran == 0);
    auto [described, description] = shell("file " + program);
    INFO(description);
    CHECK((described != 0 || contains(description, "statically linked")));
    std::istringstream lines(output);
    for (float value : want) {
      float got = 0;
      lines >> got;
      CHECK(got == value);
    }
  }
}

TEST_CASE("aot: forward-only export contains no gradient code", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  // The forward function uses a custom gradient: its backward rule must
  // not reach the exported code.
  auto scaled_exp = custom_gradient(
      [](Tensor x) { return exp(x); },
      [](Tensor, Tensor y, Tensor cotangent) { return tanh(y) * cotangent; });
  auto forward = [&](Tensor x) { return sum(scaled_exp(x) * 2.0); };
  AotOptions options = options_in(dir, "forward_only");
  options.dump_dir = dir.file("stages");
  aot::compile(forward, options, Array::randn({8}, 1));
  std::string traced = read_file(dir.file("stages/01-traced.mlir"));
  std::string llvm_ir = read_file(dir.file("stages/aot.ll"));
  INFO(traced);
  CHECK(contains(traced, "exp"));
  // The backward rule is dropped with the forward function's call when it is
  // inlined (the optimized stage); nothing of it reaches the object.
  CHECK(contains(read_file(dir.file("stages/02-differentiated.mlir")), "custom_bwd"));
  for (const std::string& text : {read_file(dir.file("stages/03-optimized.mlir")), llvm_ir}) {
    CHECK(!contains(text, "custom_bwd"));
    CHECK(!contains(text, "tanh"));
    CHECK(!contains(text, "adjit.grad"));
    CHECK(!contains(text, "adjit.vjp"));
  }
  // Only the three exported functions are visible.
  auto [status, symbols] = shell("nm -g --defined-only " + dir.file("forward_only.o"));
  INFO(symbols);
  CHECK(contains(symbols, " T forward_only\n"));
  CHECK(contains(symbols, " T forward_only_call\n"));
  CHECK(contains(symbols, " T forward_only_with_workspace\n"));
  size_t lines = std::count(symbols.begin(), symbols.end(), '\n');
  CHECK(lines == 3);
}

TEST_CASE("aot: ADJIT_DUMP_DIR gets the stages of an export, named after it", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  std::string shared = dir.file("shared");
  {
    ScopedEnvironment dump("ADJIT_DUMP_DIR", shared);
    aot::compile([](Tensor x) { return sum(exp(x)); }, options_in(dir, "env_dumped"),
                 Array::randn({8}, 1));
  }
  CHECK(contains(read_file(shared + "/aot-env_dumped-01-traced.mlir"), "adjit.exp"));
  CHECK(contains(read_file(shared + "/aot-env_dumped-aot.ll"), "define i32 @env_dumped("));
  // AotOptions::dump_dir, when set, wins and keeps its plain names.
  AotOptions options = options_in(dir, "explicit_dump");
  options.dump_dir = dir.file("own");
  {
    ScopedEnvironment dump("ADJIT_DUMP_DIR", shared);
    aot::compile([](Tensor x) { return sum(x * x); }, options, Array::randn({8}, 1));
  }
  CHECK(contains(read_file(dir.file("own/01-traced.mlir")), "adjit.mul"));
  CHECK(!std::filesystem::exists(shared + "/aot-explicit_dump-aot.ll"));
}

TEST_CASE("aot: target CPU and features", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  Array x = Array::randn({1000}, 3);
  AotOptions options = options_in(dir, "portable");
  options.target_cpu = "x86-64";  // SSE2 only
  options.dump_dir = dir.file("stages");
  AotResult aot = aot::compile(value_and_grad(w1_loss), options, x);
  std::string assembly = read_file(dir.file("stages/aot.ll"));
  CHECK(contains(assembly, "\"target-cpu\"=\"x86-64\""));
  auto [v, g] = value_and_grad(w1_loss)(x);
  std::vector<Array> got = run_aot(dir, aot, {x});
  CHECK(mismatch(got[0], v, 1e-5) == "");
  CHECK(mismatch(got[1], g, 1e-6) == "");

  options.target_cpu = "not-a-cpu";
  std::string unknown_cpu = what_of<CompileError>([&] { aot::compile(w1_loss, options, x); });
  CHECK(contains(unknown_cpu, "unknown target CPU 'not-a-cpu'"));
  CHECK(contains(unknown_cpu, "skylake-avx512"));
  options.target_cpu = "";
  options.target_features = "+avx9000";
  CHECK(contains(what_of<CompileError>([&] { aot::compile(w1_loss, options, x); }),
                 "unknown target feature '+avx9000'"));
}

// f64 transcendentals call glibc's libmvec in the variant of the target's
// widest registers, with the vector function ABI's registers (xmm, ymm,
// zmm), and link through -lm; a 37-lane vector's last lanes run padded.
TEST_CASE("aot: f64 math calls libmvec's variant of the target CPU", "[compiler][aot]") {
#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
  ScratchDir dir("adjit-aot");
  auto f = [](Tensor x, Tensor y) { return tanh(x) + exp(x) * sin(x) + pow(y, x); };
  Array x = Array::uniform({37}, 3, -8, 8, DType::f64), y = Array::uniform({37}, 4, 0.5, 4, DType::f64);
  Array want = jit(f)(x, y);
  using Variant = std::pair<const char*, const char*>;  // a target CPU, libmvec's prefix
  for (auto [cpu, variant] : {Variant{"x86-64", "_ZGVbN2v"}, Variant{"sandybridge", "_ZGVcN4v"},
                              Variant{"x86-64-v3", "_ZGVdN4v"},
                              Variant{"skylake-avx512", "_ZGVeN8v"}}) {
    INFO(cpu);
    AotOptions options = options_in(dir, std::string("libmvec_") + variant[4]);
    options.target_cpu = cpu;
    options.dump_dir = dir.file(options.name);
    AotResult aot = aot::compile(f, options, x, y);
    std::string ir = read_file(dir.file(options.name + "/aot.ll"));
    for (const char* function : {"_tanh", "_exp", "_sin", "v_pow"})
      CHECK(contains(ir, "@" + std::string(variant) + function));
    // Only where this CPU runs the target's instructions.
    if (std::string(cpu) == "skylake-avx512" && !__builtin_cpu_supports("avx512f")) continue;
    if (std::string(cpu) == "x86-64-v3" && !__builtin_cpu_supports("avx2")) continue;
    CHECK(mismatch(run_aot(dir, aot, {x, y}).at(0), want, 1e-14) == "");
  }
  AotOptions options = options_in(dir, "libm_per_element");
  options.dump_dir = dir.file("libm_per_element");
  aot::compile(jit(f, {.vector_math_library = false}), options, x, y);
  CHECK_FALSE(contains(read_file(dir.file("libm_per_element/aot.ll")), "@_ZGV"));
#else
  WARN("skipped: no x86-64 glibc 2.35 or later, whose libmvec the code would call");
#endif
}

// Tuning chooses among code for the same functions: W1's tanh and sigmoid
// of one operand share one division when tuned for an Intel core (slow
// division), keep two for Zen; with AVX-512's table and without it (AVX2
// code), all run on this machine and agree with the JIT.
TEST_CASE("aot: tuning CPU", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  Array x = Array::randn({1000}, 5);
  auto [v, g] = value_and_grad(w1_loss)(x);
  std::map<std::string, size_t> divisions;
  for (std::string features : {"", "-avx512f"})
    for (std::string tune_cpu : {"znver4", "sapphirerapids"}) {
      std::string name = "tuned_" + tune_cpu + (features.empty() ? "" : "_avx2");
      INFO(name);
      AotOptions options = options_in(dir, name);
      options.tune_cpu = tune_cpu;
      options.target_features = features;
      options.dump_dir = dir.file("stages-" + name);
      AotResult aot = aot::compile(value_and_grad(w1_loss), options, x);
      std::string ir = read_file(dir.file("stages-" + name + "/aot.ll"));
      CHECK(contains(ir, "\"tune-cpu\"=\"" + tune_cpu + "\""));
      for (size_t at = ir.find(" fdiv "); at != std::string::npos; at = ir.find(" fdiv ", at + 1))
        ++divisions[name];
      std::vector<Array> got = run_aot(dir, aot, {x});
      CHECK(mismatch(got[0], v, 1e-5) == "");
      CHECK(mismatch(got[1], g, 1e-6) == "");
    }
  for (const char* isa : {"", "_avx2"}) {
    INFO("isa" << isa);
    CHECK(divisions[std::string("tuned_sapphirerapids") + isa] > 0);
    CHECK(divisions[std::string("tuned_sapphirerapids") + isa] <
          divisions[std::string("tuned_znver4") + isa]);
  }

  AotOptions options = options_in(dir, "badly_tuned");
  options.tune_cpu = "not-a-cpu";
  std::string unknown = what_of<CompileError>([&] { aot::compile(w1_loss, options, x); });
  CHECK(contains(unknown, "unknown tuning CPU 'not-a-cpu'"));
  CHECK(contains(unknown, "znver4"));
}

TEST_CASE("aot: clear errors for bad requests", "[compiler][aot]") {
  ScratchDir dir("adjit-aot");
  Program program = Program::parse_file(std::string(ADJIT_SOURCE_DIR) + "/examples/mlp.mlir");
  AotOptions options = options_in(dir, "lib");
  CHECK(contains(what_of<CompileError>([&] { aot::write(program, options, {"mpl"}); }),
                 "unknown entry 'mpl'; the module defines: mlp"));
  options.name = "2fast";
  CHECK(contains(what_of<CompileError>([&] { aot::write(program, options); }),
                 "'2fast' cannot name a C function"));
  options.name = "main";  // the C program's own
  CHECK(contains(what_of<CompileError>([&] { aot::write(program, options); }),
                 "'main' cannot name a C function"));
  // Keywords of C23 and C++ (the header is read by both), reserved names,
  // and the header's own.
  for (const char* bad : {"_Bool", "virtual", "typeof", "and", "__x", "_Entry", "int32_t",
                          "ADJIT_AOT_OK", "adjit_gemm_f32"}) {
    options.name = bad;
    std::string message = what_of<CompileError>([&] { aot::write(program, options); });
    CHECK(contains(message, "'" + std::string(bad) + "' cannot name a C function"));
    CHECK(contains(message, "not C or C++ keywords"));
  }
  // The C library's macros and its headers' names (NAME.h would be
  // included in their place).
  for (const char* taken : {"assert", "NULL", "EOF", "I", "signbit", "INFINITY", "INT32_MAX",
                            "UINT64_C", "FLT_EPSILON", "string", "stdint", "math", "pthread"}) {
    options.name = taken;
    std::string message = what_of<CompileError>([&] { aot::write(program, options); });
    CHECK(contains(message, "'" + std::string(taken) + "' cannot name a C function"));
    CHECK(contains(message, "not a macro of the C library"));
  }
  // The C library's and libm's functions and variables: the object would
  // replace them in every program it links into.
  for (const char* taken : {"memcpy", "malloc", "free", "exit", "sin", "expf", "time", "environ"}) {
    options.name = taken;
    std::string message = what_of<CompileError>([&] { aot::write(program, options); });
    CHECK(contains(message, "'" + std::string(taken) + "' cannot name a C function"));
    CHECK(contains(message, "the C library or libm"));
  }
  // No name: said so before tracing (the trace said JitOptions::name was empty).
  options.name.clear();
  CHECK(contains(what_of<CompileError>(
                     [&] { aot::compile([](Tensor x) { return x * 2.0; }, options, Array::zeros({3})); }),
                 "AotOptions::name is empty"));
  // An entry named as another's macro.
  Program clashing = Program::parse(R"(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      return %x : tensor<4xf32>
    }
    func.func @f_NUM_INPUTS(%x: tensor<4xf32>) -> tensor<4xf32> {
      return %x : tensor<4xf32>
    }
  )");
  options.name = "clash";
  CHECK(contains(what_of<CompileError>([&] { aot::write(clashing, options); }),
                 "entries 'f' and 'f_NUM_INPUTS' both define the C name 'f_NUM_INPUTS'"));
  // A dump that cannot be written fails before the outputs are.
  options.name = "lib";
  options.dump_dir = "/proc/adjit-no-dump";
  CHECK_THROWS_AS(aot::write(program, options), Error);
  options.dump_dir.clear();
  options.name = "lib";
  Program renamed = Program::parse(R"(
    func.func @"my.fn"(%x: tensor<4xf32>) -> tensor<4xf32> {
      return %x : tensor<4xf32>
    }
  )");
  CHECK(contains(what_of<CompileError>([&] { aot::write(renamed, options); }),
                 "entry 'my.fn' cannot be a C function name"));
  options.threads = -2;
  CHECK(contains(what_of<CompileError>([&] { aot::write(program, options); }),
                 "AotOptions::threads (adjit aot --threads) of 'lib' is -2; it must be 0"));
  options.threads = 1;
  CompileOptions cuda;
  cuda.target = Device::Kind::cuda;
  program.set_options(cuda);
  CHECK(contains(what_of<CompileError>([&] { aot::write(program, options); }),
                 "supports the cpu target only"));
  // A function jitted for a GPU is not quietly exported as CPU code.
  auto on_gpu = jit([](Tensor x) { return x * 2.0; }, {.device = Device::cuda()});
  CHECK(contains(what_of<CompileError>(
                     [&] { aot::compile(on_gpu, options, Array::randn({4}, 1)); }),
                 "supports the cpu target only"));
  // A trace's error names the line that made the options (compile's
  // arguments are variadic: no line of its own).
  std::string mismatch = what_of<TraceError>([&] {
    aot::compile([](Tensor x, Tensor y) { return x + y; }, options, Array::zeros({3}),
                 Array::zeros({4}));
  });
  CHECK(contains(mismatch, "test_compiler_aot.cpp:"));
  CHECK(dir.files().empty());  // nothing written by a failed request
  // Names that are the user's own are fine: step, loss, forward.
  for (const char* fine : {"step", "loss", "forward"})
    CHECK(aot::write(Program::parse_file(std::string(ADJIT_SOURCE_DIR) + "/examples/mlp.mlir"),
                     options_in(dir, fine))
              .object_path.ends_with(std::string(fine) + ".o"));
}

TEST_CASE("aot: generator command lines", "[compiler][aot]") {
  std::vector<std::string> words = {"gen", "-o", "out", "--target-cpu=znver4", "--mattr",
                                    "+avx2", "--tune-cpu", "znver5", "--static-library",
                                    "--threads=3"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  AotOptions options = AotOptions::from_command_line(static_cast<int>(argv.size()), argv.data());
  CHECK(options.output_dir == "out");
  CHECK(options.target_cpu == "znver4");
  CHECK(options.target_features == "+avx2");
  CHECK(options.tune_cpu == "znver5");
  CHECK(options.static_library);
  CHECK(options.threads == 3);
  CHECK(AotOptions{}.threads == 1);
  CHECK(options.named("f").name == "f");
  // named() records its own line: default-constructed options hold only
  // Aot.h's, which a trace error of compile() would name.
  AotOptions plain;
  int line = __LINE__ + 1;
  AotOptions renamed = plain.named("g");
  CHECK(std::string(renamed.location.file_name()).ends_with("test_compiler_aot.cpp"));
  CHECK(static_cast<int>(renamed.location.line()) == line);
  std::vector<std::string> bad = {"gen", "--output", "x"};
  std::vector<char*> bad_argv;
  for (std::string& w : bad) bad_argv.push_back(w.data());
  CHECK(contains(what_of<RuntimeError>([&] {
                   AotOptions::from_command_line(static_cast<int>(bad_argv.size()), bad_argv.data());
                 }),
                 "unknown generator argument '--output'"));
  for (const char* threads : {"--threads=-1", "--threads=many", "--threads="}) {
    std::vector<std::string> words = {"gen", threads};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    CHECK(contains(what_of<RuntimeError>([&] {
                     AotOptions::from_command_line(static_cast<int>(argv.size()), argv.data());
                   }),
                   "--threads must be an integer from 0 to 4096, got '"));
  }
}
