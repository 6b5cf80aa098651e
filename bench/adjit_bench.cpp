// The benchmark workloads of DESIGN.md §6, written with the public adjit API
// the way a user would, plus the references they are judged against. One
// workload per process (`--workload NAME`) so that peak RSS and W7's
// fresh-process compile latency mean what they say; one JSON object per
// line on stdout. Each workload checks its gradients before it is timed.
#include "references.h"
#include "workloads.h"

#include <adjit/adjit.h>
#include <adjit/runtime/Allocator.h>
#include <adjit/runtime/Gemm.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using adjit::Array;
using adjit::DType;
using adjit::Tensor;
using bench::MlpSizes;
using bench::w1_function;
using bench::w1_size;
using bench::w2_loss;
using bench::w2_params;
using bench::w2_sizes;
using bench::w3_loss;
using bench::w3_sizes;

namespace {

struct Settings {
  bool smoke = false;
  int reps = 10;
  int threads = 1;
  std::string check_dir;
  // W1-W3 run where their inputs live: --device cuda puts them on GPU 0
  // and checks the GPU's results against the CPU's.
  adjit::Device device = adjit::Device::cpu();
  // --memory-plan: W2 and W3 also print their step's MemoryPlan report.
  bool print_memory_plan = false;
};

// One JSON object on one line.
class JsonLine {
 public:
  JsonLine& field(const std::string& key, const std::string& value) {
    return raw(key, "\"" + value + "\"");
  }
  JsonLine& field(const std::string& key, double value) {
    std::ostringstream os;
    os.precision(6);
    os << value;
    return raw(key, os.str());
  }
  JsonLine& raw(const std::string& key, const std::string& json) {
    text_ += (text_.empty() ? "{" : ",") + ("\"" + key + "\":") + json;
    return *this;
  }
  void print() { std::cout << text_ << "}" << std::endl; }

 private:
  std::string text_;
};

struct Timing {
  double median_ms, min_ms, max_ms;
  int reps;
};

// Warm-up, then `reps` timed runs of `body`; each run may repeat it
// `inner` times (for microsecond-scale calls). A run ends when the device
// has finished its work (GPU calls return before their kernels end): with
// inner = 1 that is a call's latency, as JAX's block_until_ready per call;
// with more, the calls queue behind each other and a run measures their
// throughput.
Timing measure(const std::function<void()>& body, const Settings& s, int inner = 1) {
  int reps = s.smoke ? 1 : std::max(10, s.reps);
  for (int i = 0; i < (s.smoke ? 1 : 2); ++i) body();
  s.device.synchronize();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) body();
    s.device.synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count() / inner);
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), reps};
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

void report(const std::string& workload, const std::string& variant, const Timing& t,
            const Settings& s) {
  JsonLine line;
  line.field("workload", workload).field("impl", "adjit").field("variant", variant);
  line.field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms);
  line.field("reps", t.reps).field("peak_rss_mb", peak_rss_mb()).field("threads", s.threads);
  line.field("device", s.device.str());
  line.print();
}

// On a GPU, a workload's value_and_grad called back to back with one wait at
// the end: the time per call when dispatch overlaps the kernels, the GPU's
// throughput (JAX's figure in bench/peers/jax_bench.py is the same).
void report_pipelined(const std::string& workload, const std::function<void()>& call,
                      const Settings& s) {
  if (s.device.is_cuda())
    report(workload, "value_and_grad_pipelined", measure(call, s, s.smoke ? 2 : 50), s);
}

// The compiled step's temporaries (adjit::MemoryPlan): the most bytes live
// at once, beside JAX's memory_analysis().temp_size_in_bytes.
void report_memory(const std::string& workload, const adjit::MemoryPlan& plan,
                   const Settings& s) {
  if (s.print_memory_plan) std::cerr << plan.to_string();
  JsonLine()
      .field("workload", workload).field("impl", "adjit").field("variant", "memory")
      .field("peak_temp_bytes", plan.peak_bytes)
      .field("peak_temp_bytes_unplanned", plan.peak_bytes_unplanned)
      .field("residual_bytes", plan.residual_bytes()).print();
}

void save(const Settings& s, const std::string& workload, const std::string& name,
          const Array& a) {
  if (s.check_dir.empty()) return;
  std::filesystem::path dir = std::filesystem::path(s.check_dir) / workload;
  std::filesystem::create_directories(dir);
  adjit::save_npy(a, (dir / (name + ".npy")).string());
}

[[noreturn]] void check_failed(const std::string& workload, const std::string& what);

// On a GPU: the largest difference between the GPU's and the CPU's results,
// relative to the largest CPU magnitude, must stay within `tolerance`.
void check_same_as_cpu(const std::string& workload, const std::vector<Array>& gpu,
                       const std::vector<Array>& cpu, double tolerance) {
  double worst = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    std::vector<float> a = gpu[i].to_vector<float>(), b = cpu[i].to_vector<float>();
    double error = 0, norm = 1e-30;
    for (size_t j = 0; j < a.size(); ++j) {
      error = std::max(error, static_cast<double>(std::abs(a[j] - b[j])));
      norm = std::max(norm, static_cast<double>(std::abs(b[j])));
    }
    if (!(error <= tolerance * norm))  // NaN fails too
      check_failed(workload, "GPU result " + std::to_string(i) + " differs from the CPU's by " +
                                 std::to_string(error / norm) + " relative to its largest value");
    worst = std::max(worst, error / norm);
  }
  JsonLine().field("workload", workload).field("impl", "adjit").field("check", "pass")
      .field("detail", "GPU results equal the CPU's to " + std::to_string(worst) +
                           " relative to the largest value").print();
}

[[noreturn]] void check_failed(const std::string& workload, const std::string& what) {
  JsonLine().field("workload", workload).field("impl", "adjit").field("check", "fail")
      .field("detail", what).print();
  std::exit(1);
}

// What the first call of a jitted function spent compiling (trace, AD,
// MLIR, LLVM), beside the timings.
template <class Jitted>
void report_compile(const std::string& workload, const std::string& variant,
                    const Jitted& jitted) {
  JsonLine().field("workload", workload).field("impl", "adjit")
      .field("variant", variant + " compile")
      .field("compile_ms", jitted.cache_info().compile_seconds * 1e3).print();
}

void check_passed(const std::string& workload, const std::string& how) {
  JsonLine().field("workload", workload).field("impl", "adjit").field("check", "pass")
      .field("detail", how).print();
}

// ---------------------------------------------------------------- W1 ----

void run_w1(const Settings& s) {
  int64_t n = w1_size(s.smoke);
  Array x = Array::randn({n}, 1);
  auto value = adjit::jit(w1_function, {.name = "w1_value"});
  auto value_and_grad = adjit::value_and_grad(w1_function);
  auto [v_device, g_device] = value_and_grad(x.to(s.device));
  Array v = v_device.to(adjit::Device::cpu()), g = g_device.to(adjit::Device::cpu());
  // Check against the closed form in double, relative to the norms.
  double want_value = 0, error = 0, norm = 0;
  for (int64_t i = 0; i < n; ++i) {
    double xi = x.data<float>()[i], t = std::tanh(xi), sg = 1 / (1 + std::exp(-xi));
    want_value += t * sg + 0.5 * xi * xi;
    double d = (1 - t * t) * sg + t * sg * (1 - sg) + xi;
    error = std::max(error, std::abs(g.data<float>()[i] - d));
    norm = std::max(norm, std::abs(d));
  }
  double value_error = std::abs(v.item<float>() - want_value) / std::abs(want_value);
  if (error > 1e-5 * norm || value_error > 1e-4)
    check_failed("W1", "gradient error " + std::to_string(error) + ", value error " +
                           std::to_string(value_error));
  check_passed("W1", "closed form in double");
  save(s, "W1", "x", x);
  save(s, "W1", "value", v);
  save(s, "W1", "grad", g);
  Array xd = x.to(s.device);
  report("W1", "value_and_grad", measure([&] { value_and_grad(xd); }, s), s);
  report("W1", "value", measure([&] { value(xd); }, s), s);
  report_pipelined("W1", [&] { value_and_grad(xd); }, s);
}

// ---------------------------------------------------------------- W2 ----

// The parameters are donated, as a training loop (and JAX's timed step)
// does: the new ones are computed in the old ones' buffers.
auto w2_jitted_step() {
  return adjit::jit(
      [](std::vector<Tensor> p, Tensor x, Tensor labels) { return bench::w2_step(p, x, labels); },
      {.name = "w2_step", .donate = {0}});
}

std::vector<Array> copies(const std::vector<Array>& arrays) {
  std::vector<Array> copied;
  for (const Array& a : arrays) copied.push_back(a.copy());
  return copied;
}

void check_w2() {
  // Finite differences in f64 on a small instance of the same loss.
  MlpSizes z{6, 8, 7, 4};
  std::vector<Array> args = w2_params(z);
  for (size_t i = 1; i < args.size(); i += 2) args[i] = Array::uniform(args[i].shape(), 20 + i, -0.1, 0.1);
  args.push_back(Array::randn({z.batch, z.in}, 3));
  args.push_back(Array::uniform({z.batch}, 4, 0, static_cast<double>(z.classes), DType::i32));
  auto report = adjit::check_grads(
      [](const std::vector<Tensor>& a) {
        return w2_loss({a[0], a[1], a[2], a[3], a[4], a[5]}, a[6], a[7]);
      },
      args);
  if (!report) check_failed("W2", report.summary());
  check_passed("W2", report.summary());
}

void run_w2(const Settings& s) {
  check_w2();
  MlpSizes z = w2_sizes(s.smoke);
  std::vector<Array> params = w2_params(z);
  Array x = Array::randn({z.batch, z.in}, 1);
  Array labels = Array::uniform({z.batch}, 2, 0, static_cast<double>(z.classes), DType::i32);
  auto step = w2_jitted_step();
  auto loss_only = adjit::jit(w2_loss, {.name = "w2_loss"});
  auto [loss, updated] = step(copies(params), x, labels);
  std::vector<Array> params_d;
  for (const Array& p : params) params_d.push_back(p.to(s.device).copy());
  Array x_d = x.to(s.device), labels_d = labels.to(s.device);
  if (s.device.is_cuda()) {
    auto [loss_gpu, updated_gpu] = step(copies(params_d), x_d, labels_d);
    std::vector<Array> gpu{loss_gpu}, cpu{loss};
    gpu.insert(gpu.end(), updated_gpu.begin(), updated_gpu.end());
    cpu.insert(cpu.end(), updated.begin(), updated.end());
    // TF32 products (ADJIT_GPU_MATMUL=tf32) round their inputs to 10 bits:
    // a gradient summed over 256 rows (the biases') keeps about 2 digits.
    const char* precision = std::getenv("ADJIT_GPU_MATMUL");
    bool tf32 = precision && std::string(precision) == "tf32";
    check_same_as_cpu("W2", gpu, cpu, tf32 ? 5e-2 : 1e-4);
  }
  const char* names[] = {"w1", "b1", "w2", "b2", "w3", "b3"};
  for (size_t i = 0; i < params.size(); ++i) {
    save(s, "W2", names[i], params[i]);
    save(s, "W2", std::string(names[i]) + "_new", updated[i]);
  }
  save(s, "W2", "x", x);
  save(s, "W2", "labels", labels);
  save(s, "W2", "loss", loss);
  // Each step takes the previous one's parameters, as in training.
  report("W2", "value_and_grad", measure([&] { params_d = step(params_d, x_d, labels_d).second; }, s), s);
  report_memory("W2", step.lower(params, x, labels).memory_plan(), s);
  report("W2", "value", measure([&] { loss_only(params_d, x_d, labels_d); }, s), s);
}

// One timed first call (from `start`: trace, compile and one run) and the
// compile part of it.
void report_first_call(const char* workload, const char* variant,
                       std::chrono::steady_clock::time_point start, const adjit::CacheInfo& info,
                       const Settings& s) {
  double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  JsonLine()
      .field("workload", workload).field("impl", "adjit").field("variant", variant)
      .field("median_ms", first_ms).field("min_ms", first_ms).field("max_ms", first_ms)
      .field("reps", 1).field("compile_ms", info.compile_seconds * 1e3)
      .field("peak_rss_mb", peak_rss_mb()).field("threads", s.threads).print();
}

void run_w7(const Settings& s) {
  // The first call of W2's step in a fresh process: trace, AD, optimize,
  // codegen (and one run).
  MlpSizes z = w2_sizes(s.smoke);
  std::vector<Array> params = w2_params(z);
  Array x = Array::randn({z.batch, z.in}, 1);
  Array labels = Array::uniform({z.batch}, 2, 0, static_cast<double>(z.classes), DType::i32);
  auto start = std::chrono::steady_clock::now();
  auto step = w2_jitted_step();
  step(params, x, labels);
  report_first_call("W7", "first_call", start, step.cache_info(), s);
}

// ---------------------------------------------------------------- W3 ----

void check_w3() {
  auto report = adjit::check_grads(
      [](Tensor x, Tensor gamma, Tensor beta, Tensor c) { return w3_loss(x, gamma, beta, c); },
      {Array::randn({3, 8}, 1), Array::randn({8}, 2), Array::randn({8}, 3),
       Array::randn({3, 8}, 4)});
  if (!report) check_failed("W3", report.summary());
  check_passed("W3", report.summary());
}

void run_w3(const Settings& s) {
  check_w3();
  auto [rows, cols] = w3_sizes(s.smoke);
  Array x = Array::randn({rows, cols}, 1), gamma = Array::randn({cols}, 2),
        beta = Array::randn({cols}, 3), c = Array::randn({rows, cols}, 4);
  auto value_and_grad = adjit::value_and_grad<0, 1, 2>(w3_loss);
  auto value = adjit::jit(w3_loss, {.name = "w3_loss"});
  auto [loss, grads] = value_and_grad(x, gamma, beta, c);
  auto [dx, dgamma, dbeta] = grads;
  for (auto [name, a] : {std::pair{"x", x}, {"gamma", gamma}, {"beta", beta}, {"c", c},
                         {"loss", loss}, {"dx", dx}, {"dgamma", dgamma}, {"dbeta", dbeta}})
    save(s, "W3", name, a);
  Array x_d = x.to(s.device), gamma_d = gamma.to(s.device), beta_d = beta.to(s.device),
        c_d = c.to(s.device);
  if (s.device.is_cuda()) {
    auto [loss_gpu, grads_gpu] = value_and_grad(x_d, gamma_d, beta_d, c_d);
    auto [dx_gpu, dgamma_gpu, dbeta_gpu] = grads_gpu;
    check_same_as_cpu("W3", {loss_gpu, dx_gpu, dgamma_gpu, dbeta_gpu}, {loss, dx, dgamma, dbeta},
                      1e-4);
  }
  report("W3", "value_and_grad", measure([&] { value_and_grad(x_d, gamma_d, beta_d, c_d); }, s), s);
  report_memory("W3", value_and_grad.lower(x, gamma, beta, c).memory_plan(), s);
  report("W3", "value", measure([&] { value(x_d, gamma_d, beta_d, c_d); }, s), s);
  report_pipelined("W3", [&] { value_and_grad(x_d, gamma_d, beta_d, c_d); }, s);
}

// ---------------------------------------------------------------- W4 ----

struct RnnSizes {
  int64_t steps, batch, input, hidden;
};

RnnSizes w4_sizes(const Settings& s) {
  return s.smoke ? RnnSizes{8, 4, 8, 16} : RnnSizes{128, 32, 64, 256};
}

// A tanh RNN over xs [steps, batch, input] from h0 = 0; loss = sum(h_T^2).
Tensor w4_loss(const Tensor& wx, const Tensor& wh, const Tensor& b, const Tensor& xs) {
  Tensor h0 = adjit::full({xs.shape()[1], wh.shape()[0]}, 0.0, xs.dtype());
  auto [h, unused] = adjit::scan(
      [&](Tensor h, Tensor x) {
        Tensor next = adjit::tanh(adjit::matmul(x, wx) + adjit::matmul(h, wh) + b);
        return std::make_pair(next, std::tuple<>{});
      },
      h0, xs);
  return adjit::sum(h * h);
}

std::vector<Array> w4_inputs(const RnnSizes& z) {
  auto glorot = [](int64_t in, int64_t out, uint64_t seed) {
    double bound = std::sqrt(6.0 / static_cast<double>(in + out));
    return Array::uniform({in, out}, seed, -bound, bound);
  };
  return {glorot(z.input, z.hidden, 11), glorot(z.hidden, z.hidden, 12),
          Array::uniform({z.hidden}, 13, -0.1, 0.1), Array::randn({z.steps, z.batch, z.input}, 1)};
}

void check_w4() {
  auto report = adjit::check_grads(
      [](Tensor wx, Tensor wh, Tensor b, Tensor xs) { return w4_loss(wx, wh, b, xs); },
      w4_inputs({5, 3, 4, 6}));
  if (!report) check_failed("W4", report.summary());
  check_passed("W4", report.summary());
}

void run_w4(const Settings& s) {
  check_w4();
  std::vector<Array> in = w4_inputs(w4_sizes(s));
  auto value_and_grad = adjit::value_and_grad<0, 1, 2>(w4_loss);
  auto value = adjit::jit(w4_loss, {.name = "w4_loss"});
  auto [loss, grads] = value_and_grad(in[0], in[1], in[2], in[3]);
  report_compile("W4", "value_and_grad", value_and_grad);
  auto [dwx, dwh, db] = grads;
  for (auto [name, a] : {std::pair{"wx", in[0]}, {"wh", in[1]}, {"b", in[2]}, {"xs", in[3]},
                         {"loss", loss}, {"dwx", dwx}, {"dwh", dwh}, {"db", db}})
    save(s, "W4", name, a);
  report("W4", "value_and_grad",
         measure([&] { value_and_grad(in[0], in[1], in[2], in[3]); }, s), s);
  report("W4", "value", measure([&] { value(in[0], in[1], in[2], in[3]); }, s), s);
}

// ---------------------------------------------------------------- W5 ----

struct ChainSizes {
  int64_t masses;
  int steps;
};
constexpr double kW5Dt = 0.01;

ChainSizes w5_sizes(const Settings& s) { return s.smoke ? ChainSizes{16, 20} : ChainSizes{1024, 1000}; }

// `steps` steps of symplectic Euler on a chain of unit masses and springs
// of rest length 1 (free ends); loss = sum(v^2)/2 at the end. Reverse mode
// keeps the carries of every `checkpoint_every`-th step only (0: every step).
Tensor w5_loss(const Tensor& p0, const Tensor& k, const Tensor& v0, int steps,
               int checkpoint_every) {
  int64_t n = p0.shape()[0];
  auto [p, v] = adjit::fori_loop(
      0, steps,
      [&](Tensor, std::tuple<Tensor, Tensor> c) {
        auto [p, v] = c;
        Tensor t = k * (adjit::slice(p, {1}, {n}) - adjit::slice(p, {0}, {n - 1}) - 1.0);
        Tensor zero = adjit::full({1}, 0.0, p.dtype());
        Tensor force = adjit::concat({t, zero}, 0) - adjit::concat({zero, t}, 0);
        Tensor next_v = v + kW5Dt * force;
        return std::make_tuple(p + kW5Dt * next_v, next_v);
      },
      std::make_tuple(p0, v0), {.checkpoint_every = checkpoint_every});
  return 0.5 * adjit::sum(v * v);
}

std::vector<Array> w5_inputs(const ChainSizes& z) {
  Array p0 = Array::randn({z.masses}, 1);
  for (int64_t i = 0; i < z.masses; ++i)
    p0.data<float>()[i] = static_cast<float>(i) + 0.1f * p0.data<float>()[i];
  return {p0, Array::uniform({z.masses - 1}, 2, 0.5, 1.5), Array::zeros({z.masses})};
}

double relative_error(const float* got, const std::vector<float>& want) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i)
    err += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
  return std::sqrt(err / std::max(norm, 1e-30));
}

void run_w5(const Settings& s) {
  ChainSizes z = w5_sizes(s);
  std::vector<Array> in = w5_inputs(z);
  auto value_and_grad = adjit::value_and_grad<0, 1>(w5_loss);
  auto value = adjit::jit(w5_loss, {.name = "w5_loss"});
  auto [loss, grads] = value_and_grad(in[0], in[1], in[2], z.steps, 0);
  report_compile("W5", "value_and_grad", value_and_grad);
  auto [dp0, dk] = grads;
  // The hand-written adjoint is the check, in the same f32.
  std::vector<float> want_dp0(z.masses), want_dk(z.masses - 1);
  auto hand = [&] {
    return w5_hand_adjoint(in[0].data<float>(), in[2].data<float>(), in[1].data<float>(),
                           static_cast<int>(z.masses), z.steps, static_cast<float>(kW5Dt),
                           want_dp0.data(), want_dk.data());
  };
  float want_loss = hand();
  double loss_error = std::abs(loss.item<float>() - want_loss) / std::abs(want_loss);
  double dp0_error = relative_error(dp0.data<float>(), want_dp0);
  double dk_error = relative_error(dk.data<float>(), want_dk);
  if (loss_error > 1e-3 || dp0_error > 1e-3 || dk_error > 1e-3)
    check_failed("W5", "against the hand-written adjoint: loss " + std::to_string(loss_error) +
                           ", dp0 " + std::to_string(dp0_error) + ", dk " +
                           std::to_string(dk_error) + " (norm-relative)");
  check_passed("W5", "hand-written adjoint, norm-relative errors: loss " +
                         std::to_string(loss_error) + ", dp0 " + std::to_string(dp0_error) +
                         ", dk " + std::to_string(dk_error));
  for (auto [name, a] : {std::pair{"p0", in[0]}, {"k", in[1]}, {"v0", in[2]}, {"loss", loss},
                         {"dp0", dp0}, {"dk", dk}})
    save(s, "W5", name, a);
  report("W5", "value_and_grad",
         measure([&] { value_and_grad(in[0], in[1], in[2], z.steps, 0); }, s), s);
  report("W5", "value", measure([&] { value(in[0], in[1], in[2], z.steps, 0); }, s), s);
  // Reverse mode's memory, with every carry kept and with checkpointing
  // every ~sqrt(steps) steps: the most bytes the call holds at once
  // (temporaries and results, from the caching allocator).
  int every = static_cast<int>(std::lround(std::sqrt(z.steps)));
  auto [closs, cgrads] = value_and_grad(in[0], in[1], in[2], z.steps, every);
  double checkpoint_error = relative_error(std::get<1>(cgrads).data<float>(), want_dk);
  if (checkpoint_error > 1e-3)
    check_failed("W5", "checkpointed dk differs: " + std::to_string(checkpoint_error));
  auto peak_mb = [&](int k) {
    value_and_grad(in[0], in[1], in[2], z.steps, k);  // warm
    size_t before = adjit::allocator_stats().live_bytes;
    adjit::reset_allocator_peak();
    value_and_grad(in[0], in[1], in[2], z.steps, k);
    return (adjit::allocator_stats().peak_live_bytes - before) / double(1 << 20);
  };
  for (int k : {0, every}) {
    Timing t = measure([&] { value_and_grad(in[0], in[1], in[2], z.steps, k); }, s);
    JsonLine()
        .field("workload", "W5").field("impl", "adjit")
        .field("variant", k ? "value_and_grad checkpoint_every " + std::to_string(k)
                            : std::string("value_and_grad every carry kept"))
        .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
        .field("reps", t.reps).field("call_peak_mb", peak_mb(k)).field("threads", s.threads)
        .print();
  }
  float sink = 0;
  Timing t = measure([&] { sink += hand(); }, s);
  JsonLine()
      .field("workload", "W5").field("impl", "reference").field("variant", "hand-written adjoint")
      .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
      .field("reps", t.reps).field("threads", s.threads).field("checksum", sink).print();
}

// ---------------------------------------------------------------- W6 ----

void run_w6(const Settings& s) {
  auto f = adjit::jit([](Tensor x) { return adjit::sin(x) * 2.0 + 1.0; }, {.name = "w6"});
  Array x = Array::randn({16}, 1);
  // The first call (trace, optimize, codegen, one run) in this fresh
  // process: a small function must compile fast (issue 8: <= 30 ms).
  auto start = std::chrono::steady_clock::now();
  Array y = f(x);
  report_first_call("W6", "compile", start, f.cache_info(), s);
  for (int i = 0; i < 16; ++i)
    if (std::abs(y.data<float>()[i] - (std::sin(x.data<float>()[i]) * 2 + 1)) > 1e-6)
      check_failed("W6", "wrong value at " + std::to_string(i));
  check_passed("W6", "closed form");
  Timing t = measure([&] { f(x); }, s, s.smoke ? 10 : 10000);
  JsonLine()
      .field("workload", "W6").field("impl", "adjit").field("variant", "call")
      .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
      .field("median_us", t.median_ms * 1e3).field("reps", t.reps)
      .field("peak_rss_mb", peak_rss_mb()).field("threads", s.threads).print();
}

// --------------------------------------------------------- references ----

// Runs body(0) ... body(threads - 1) on as many threads, released together
// once all have started; returns the seconds from the release until the
// last of them returned (thread creation and joins excluded).
double run_together(int threads, const std::function<void(int)>& body) {
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> done(threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
      done[t] = Clock::now();
    });
  while (ready.load() < threads) std::this_thread::yield();
  auto start = Clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& th : pool) th.join();
  return std::chrono::duration<double>(*std::max_element(done.begin(), done.end()) - start).count();
}

// Memory bandwidth, W1's and W3's limit: 32 MiB arrays, W3's x, c and dx
// (96 MiB in all, more than a 32 MiB L3 holds: with 16 MiB arrays the best
// runs of a Zen 5 took a third of them from L3), cut into one slice per
// thread of s.threads, the threads
// started together (run_together); a run moves each array once and its
// throughput is the bytes over the wall time until the last thread is done.
// triad measures plain and nontemporal stores and counts 3 streams either
// way (plain stores also read a's lines first, which nontemporal ones do
// not: adjit streams its large results); the faster variant's best run is
// the bandwidth (as for the FMA peak, a limit is what the hardware did).
void run_bandwidth(const Settings& s, bool write) {
  const size_t n = s.smoke ? (1 << 16) : (8 << 20);
  const int threads = std::max(1, s.threads);
  const int reps = s.smoke ? 1 : std::max(10, s.reps);
  Array arrays = Array::zeros({3, static_cast<int64_t>(n)}, DType::f32);
  float* a = arrays.data<float>();
  float *b = a + n, *c = a + 2 * n;
  std::fill(a, a + n, 1.0f), std::fill(b, b + n, 2.0f), std::fill(c, c + n, 3.0f);
  // Slices of whole cache lines; the last thread takes the rest.
  const size_t slice = n / threads / 16 * 16;
  auto slice_of = [&](int t) {
    size_t begin = t * slice;
    return std::pair{begin, t + 1 == threads ? n - begin : slice};
  };
  const std::vector<std::string> variants =
      write ? std::vector<std::string>{"plain", "nontemporal"} : std::vector<std::string>{"load"};
  const double bytes = static_cast<double>(n) * sizeof(float) * (write ? 3 : 1);
  std::vector<float> sinks(threads);
  std::string best_variant, per_variant;
  std::vector<double> best_ms;
  for (const std::string& variant : variants) {
    auto run = [&] {
      return run_together(threads, [&](int t) {
        auto [begin, count] = slice_of(t);
        if (variant == "plain") triad(a + begin, b + begin, c + begin, 0.5f, count);
        else if (variant == "nontemporal")
          triad_nontemporal(a + begin, b + begin, c + begin, 0.5f, count);
        else sinks[t] += read_sum(a + begin, count);
      });
    };
    run(), run();  // warm-up: pages touched, clocks up
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) ms.push_back(run() * 1e3);
    std::sort(ms.begin(), ms.end());
    std::ostringstream os;
    os.precision(6);
    os << (per_variant.empty() ? "" : ",") << "\"" << variant << "\":" << bytes / ms.front() / 1e6;
    per_variant += os.str();
    if (best_ms.empty() || ms.front() < best_ms.front()) best_variant = variant, best_ms = ms;
  }
  float sink = a[n / 2];
  for (float x : sinks) sink += x;
  JsonLine()
      .field("workload", write ? "triad" : "read").field("impl", "reference")
      .field("variant", best_variant)
      .field("median_ms", best_ms[best_ms.size() / 2]).field("min_ms", best_ms.front())
      .field("max_ms", best_ms.back()).field("reps", reps).field("bytes", bytes)
      .field("gb_per_s", bytes / best_ms.front() / 1e6)
      .field("gb_per_s_median", bytes / best_ms[best_ms.size() / 2] / 1e6)
      .raw("variants_gb_per_s", "{" + per_variant + "}")
      .field("threads", threads).field("checksum", sink).print();
}

void run_sgemm(const Settings& s) {
  int m = s.smoke ? 64 : 1024;
  std::vector<float> a(m * m, 1), b(m * m, 1), c(m * m);
  if (!sgemm(a.data(), b.data(), c.data(), m, m, m, s.threads)) {
    JsonLine().field("workload", "sgemm").field("impl", "reference")
        .field("skipped", "built without OpenBLAS").print();
    return;
  }
  Timing t = measure([&] { sgemm(a.data(), b.data(), c.data(), m, m, m, s.threads); }, s);
  double flops = 2.0 * m * m * m;
  JsonLine()
      .field("workload", "sgemm").field("impl", "reference").field("variant", "openblas")
      .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
      .field("reps", t.reps).field("gflop_per_s", flops / (t.median_ms * 1e-3) / 1e9)
      .field("threads", s.threads).print();
}

// adjit's own contraction kernels (runtime/lib/gemm) on the five matmuls
// of W2's step, in the layouts its compiled code passes them: how much of
// W2's time is GEMM and how close each layout comes to the FMA peak. One
// thread (the kernels run on the caller's thread without the JIT's team).
void run_gemm_w2(const Settings& s) {
  const int64_t batch = s.smoke ? 16 : 256, in = s.smoke ? 32 : 784, hidden = s.smoke ? 24 : 1024;
  struct Contraction {
    std::string name;
    int64_t m, n, k;
    bool a_transposed, b_transposed;  // A read as the transpose of a k x m array, B of n x k
    bool accumulate;                  // the weight gradients are added onto the weights
  };
  const std::vector<Contraction> contractions = {
      {"x@w1", batch, hidden, in, false, false, false},
      {"h1@w2", batch, hidden, hidden, false, false, false},
      {"dy2@w2^T", batch, hidden, hidden, false, true, false},
      {"h1^T@dy2", hidden, hidden, batch, true, false, true},
      {"x^T@dh1", in, hidden, batch, true, false, true},
  };
  double total_flops = 0, total_ms = 0;
  for (const Contraction& g : contractions) {
    Array a = Array::randn({g.a_transposed ? g.k : g.m, g.a_transposed ? g.m : g.k}, 1);
    Array b = Array::randn({g.b_transposed ? g.n : g.k, g.b_transposed ? g.k : g.n}, 2);
    Array c = Array::zeros({g.m, g.n});
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    float* pc = c.data<float>();
    auto address = [](const float* p) { return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p)); };
    int64_t a_row = g.a_transposed ? 1 : g.k, a_col = g.a_transposed ? g.m : 1;
    int64_t b_row = g.b_transposed ? 1 : g.n, b_col = g.b_transposed ? g.k : 1;
    auto call = [&](bool accumulate) {
      adjit_gemm_f32(1, g.m, g.n, g.k, address(pa), 0, a_row, a_col, address(pb), 0, b_row, b_col,
                     address(pc), 0, g.n, 1, accumulate);
    };
    call(false);
    for (int64_t probe = 0; probe < 16; ++probe) {  // spot checks against a double sum
      int64_t i = probe * 7919 % g.m, j = probe * 104729 % g.n;
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        double term = double(pa[i * a_row + p * a_col]) * pb[p * b_row + j * b_col];
        sum += term;
        magnitude += std::abs(term);
      }
      if (std::abs(pc[i * g.n + j] - sum) > 1e-5 * magnitude + 1e-6)
        check_failed("gemm_w2", g.name + ": wrong element (" + std::to_string(i) + ", " +
                                    std::to_string(j) + ")");
    }
    Timing t = measure([&] { call(g.accumulate); }, s);
    double flops = 2.0 * g.m * g.n * g.k;
    total_flops += flops;
    total_ms += t.median_ms;
    JsonLine()
        .field("workload", "gemm_w2").field("impl", "reference").field("variant", g.name)
        .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
        .field("reps", t.reps).field("gflop_per_s", flops / (t.median_ms * 1e-3) / 1e9)
        .field("isa", adjit::gemm::isa()).field("threads", 1).print();
  }
  JsonLine()
      .field("workload", "gemm_w2").field("impl", "reference").field("variant", "all")
      .field("median_ms", total_ms).field("gflop_per_s", total_flops / (total_ms * 1e-3) / 1e9)
      .field("isa", adjit::gemm::isa()).field("threads", 1).print();
}

// The f32 FMA peak, W2's limit: each kernel of fma_peak_variants() on
// s.threads threads at once. The threads start together and each times its
// own kernel, so one descheduled or stalled counts its lost time; a run's
// throughput is the sum of the threads'. The peak is the best run of the
// best variant, not the median: a limit is what the hardware can do.
void run_fma_peak(const Settings& s) {
  const double target_s = s.smoke ? 0.005 : 0.1;  // per kernel call
  const int reps = s.smoke ? 1 : std::max(10, s.reps);
  const int threads = std::max(1, s.threads);
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  float sink = 0;
  std::string best_variant;
  double best = 0, best_median = 0;
  long best_rounds = 0;
  std::vector<double> best_ms;
  std::string per_variant;
  for (const std::string& variant : fma_peak_variants()) {
    // Rounds for target_s on one thread, from a call of at least 20 ms.
    long rounds = 1 << 14;
    double elapsed = 0;
    for (;;) {
      float k = 0;
      auto start = Clock::now();
      fma_peak_kernel(variant, rounds, &k);
      elapsed = seconds(start, Clock::now());
      sink += k;
      if (elapsed >= std::min(0.02, target_s) || rounds > (1L << 40)) break;
      rounds *= 4;
    }
    rounds = std::max(1L, static_cast<long>(rounds * (target_s / elapsed)));

    // One run: (sum of the threads' GFLOP/s, wall milliseconds).
    auto run = [&]() -> std::pair<double, double> {
      std::vector<double> gflops(threads);
      std::vector<float> sinks(threads);
      double wall_s = run_together(threads, [&](int t) {
        auto start = Clock::now();
        double flops = fma_peak_kernel(variant, rounds, &sinks[t]);
        gflops[t] = flops / seconds(start, Clock::now()) / 1e9;
      });
      double total = 0;
      for (int t = 0; t < threads; ++t) total += gflops[t], sink += sinks[t];
      return {total, wall_s * 1e3};
    };
    run();  // warm-up: clocks up, AVX-512 power state
    std::vector<double> gflops, ms;
    for (int r = 0; r < reps; ++r) {
      auto [g, m] = run();
      gflops.push_back(g);
      ms.push_back(m);
    }
    std::sort(gflops.begin(), gflops.end());
    std::sort(ms.begin(), ms.end());
    std::ostringstream os;
    os.precision(6);
    os << (per_variant.empty() ? "" : ",") << "\"" << variant << "\":" << gflops.back();
    per_variant += os.str();
    if (gflops.back() > best) {
      best_variant = variant;
      best = gflops.back();
      best_median = gflops[gflops.size() / 2];
      best_rounds = rounds;
      best_ms = ms;
    }
  }
  JsonLine()
      .field("workload", "fma_peak").field("impl", "reference").field("variant", best_variant)
      .field("median_ms", best_ms[best_ms.size() / 2]).field("min_ms", best_ms.front())
      .field("max_ms", best_ms.back()).field("reps", reps).raw("rounds", std::to_string(best_rounds))
      .field("gflop_per_s", best).field("gflop_per_s_median", best_median)
      .raw("variants_gflop_per_s", "{" + per_variant + "}")
      .field("threads", threads).field("checksum", sink).print();
}

void run_w1_handfused(const Settings& s) {
  int64_t n = s.smoke ? 4096 : 4194304;
  Array x = Array::randn({n}, 1);
  std::vector<float> dx(n);
  float sink = 0;
  Timing t = measure([&] { sink += w1_handfused(x.data<float>(), dx.data(), n); }, s);
  JsonLine()
      .field("workload", "W1").field("impl", "reference").field("variant", "hand-fused C++")
      .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
      .field("reps", t.reps).field("threads", s.threads).field("checksum", sink).print();
}

// ----------------------------------------------------- compile scaling ----

// Compile time of elementwise chains of 1k to 100k ops, plain and under
// grad: every pass must stay near-linear in program size (issue 14: at most
// 1.3x per doubling). The chain alternates ops so that folding cannot
// shorten it.
void run_compile_scaling(const Settings& s) {
  std::vector<int> lengths = s.smoke ? std::vector<int>{250, 500}
                                     : std::vector<int>{1000, 2000, 4000, 8000, 16000};
  if (const char* longest = std::getenv("ADJIT_COMPILE_SCALING_MAX"))
    while (lengths.back() * 2 <= std::atoi(longest)) lengths.push_back(lengths.back() * 2);
  for (bool differentiated : {false, true}) {
    double previous_ms = 0;
    int previous_length = 0;
    for (int length : lengths) {
      auto chain = [length](Tensor x) {
        Tensor y = x;
        for (int i = 0; i < length; ++i) y = (i % 3 == 0) ? y * 1.0001 : (i % 3 == 1) ? y + 0.5 : sin(y);
        return sum(y);
      };
      Array x = Array::randn({16}, 1);
      double ms;
      if (differentiated) {
        auto g = adjit::jit(adjit::grad(chain), {.name = "chain_grad"});
        g(x);
        ms = g.cache_info().compile_seconds * 1e3;
      } else {
        auto f = adjit::jit(chain, {.name = "chain"});
        f(x);
        ms = f.cache_info().compile_seconds * 1e3;
      }
      JsonLine line;
      line.field("workload", "compile_scaling").field("impl", "adjit")
          .field("variant", std::string(differentiated ? "grad " : "") + std::to_string(length) + " ops")
          .field("compile_ms", ms);
      if (previous_ms > 0)
        line.field("growth_per_doubling",
                   std::pow(ms / previous_ms, 1.0 / std::log2(double(length) / previous_length)));
      line.print();
      previous_ms = ms;
      previous_length = length;
    }
  }
}

// ------------------------------------------------------ GPU bandwidth ----

// Device memory bandwidth through a kernel adjit generates (y = 2x: one
// read and one write per element), the traffic limit of W1 and W3 on a GPU.
void run_gpu_bandwidth(const Settings& s) {
  if (!s.device.is_cuda()) {
    JsonLine().field("workload", "gpu_bandwidth").field("impl", "adjit")
        .field("skipped", "runs with --device cuda").print();
    return;
  }
  int64_t n = s.smoke ? 1 << 20 : int64_t{1} << 28;  // 1 GiB in, 1 GiB out
  Array x = Array::ones({n}).to(s.device);
  auto twice = adjit::jit([](Tensor v) { return v * 2.0; }, {.name = "twice"});
  if (twice(x).to_vector<float>()[static_cast<size_t>(n - 1)] != 2.0f)
    check_failed("gpu_bandwidth", "wrong result");
  Timing t = measure([&] { twice(x); }, s);
  double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
  JsonLine().field("workload", "gpu_bandwidth").field("impl", "adjit").field("variant", "2x")
      .field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms)
      .field("reps", t.reps).field("gb_per_s", bytes / (t.min_ms * 1e-3) / 1e9)
      .field("device", s.device.str()).print();
  // The same function on 16 elements: what a call costs beyond its kernel's
  // memory traffic (dispatch, launch, synchronization), the floor under
  // every workload's time on the GPU.
  Array small = Array::ones({16}).to(s.device);
  Timing call = measure([&] { twice(small); }, s);
  JsonLine().field("workload", "gpu_bandwidth").field("impl", "adjit").field("variant", "call")
      .field("median_ms", call.median_ms).field("min_ms", call.min_ms)
      .field("max_ms", call.max_ms).field("reps", call.reps).field("device", s.device.str())
      .print();
  // Back to back, one wait at the end: the host's cost of dispatching a call.
  Timing dispatch = measure([&] { twice(small); }, s, s.smoke ? 2 : 200);
  JsonLine().field("workload", "gpu_bandwidth").field("impl", "adjit")
      .field("variant", "call_pipelined").field("median_ms", dispatch.median_ms)
      .field("min_ms", dispatch.min_ms).field("max_ms", dispatch.max_ms)
      .field("reps", dispatch.reps).field("device", s.device.str()).print();
}

const std::map<std::string, std::function<void(const Settings&)>>& workloads() {
  static const std::map<std::string, std::function<void(const Settings&)>> all = {
      {"W1", run_w1},
      {"W2", run_w2},
      {"W3", run_w3},
      {"W4", run_w4},
      {"W5", run_w5},
      {"W6", run_w6},
      {"W7", run_w7},
      {"triad", [](const Settings& s) { run_bandwidth(s, true); }},
      {"read", [](const Settings& s) { run_bandwidth(s, false); }},
      {"sgemm", run_sgemm},
      {"gemm_w2", run_gemm_w2},
      {"fma_peak", run_fma_peak},
      {"w1_handfused", run_w1_handfused},
      {"gpu_bandwidth", run_gpu_bandwidth},
      {"compile_scaling", run_compile_scaling},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  std::vector<std::string> selected;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw adjit::Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--workload") selected.push_back(value());
    else if (arg == "--all") all = true;
    else if (arg == "--smoke") settings.smoke = true;
    else if (arg == "--reps") settings.reps = std::stoi(value());
    else if (arg == "--threads") settings.threads = std::stoi(value());
    else if (arg == "--check-dir") settings.check_dir = value();
    else if (arg == "--memory-plan") settings.print_memory_plan = true;
    else if (arg == "--device") {
      std::string device = value();
      if (device != "cpu" && device != "cuda") throw adjit::Error("--device is cpu or cuda");
      settings.device = device == "cpu" ? adjit::Device::cpu() : adjit::Device::cuda(0);
    }
    else if (arg == "--list") {
      for (const auto& [name, run] : workloads()) std::cout << name << "\n";
      return 0;
    } else {
      std::cerr << "usage: adjit-bench (--workload NAME)... | --all [--smoke] [--reps N] "
                   "[--threads N] [--check-dir DIR] [--device cpu|cuda] [--memory-plan] | --list\n";
      return 2;
    }
  }
  if (all)
    for (const auto& [name, run] : workloads()) selected.push_back(name);
  // adjit's compiled code (every jit, explicit or implicit) uses --threads.
  setenv("ADJIT_NUM_THREADS", std::to_string(std::max(1, settings.threads)).c_str(), 1);
  try {
    for (const std::string& name : selected) {
      auto it = workloads().find(name);
      if (it == workloads().end()) throw adjit::Error("unknown workload '" + name + "'");
      it->second(settings);
    }
  } catch (const std::exception& e) {
    std::cerr << "adjit-bench: " << e.what() << "\n";
    return 1;
  }
}
