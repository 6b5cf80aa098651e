// adjit-op-bench: the throughput of common single ops at a few MiB, each
// as a fraction of the bound the hardware sets for it, measured in the same
// run: the bytes it must move (its inputs and outputs, once) at a triad's
// bandwidth, or its flops at the f32 FMA peak, whichever takes longer (a
// classifier's matmul is bound by its FMAs, not by reading A). Workloads
// (adjit-bench) show how programs do; this shows the ops one by one, so
// that an op left far from its bound (a transpose at 1/20 of the
// bandwidth, an argmax one element at a time) stands out.
//
//   adjit-op-bench [--smoke] [--reps N] [--filter TEXT]
//
// One line per op: its median time, what it moved (GB/s) or computed
// (GFLOP/s), and that as a fraction of the bound. 1 thread.
#include "references.h"

#include <adjit/adjit.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using adjit::Array;
using adjit::DType;
using adjit::Tensor;

namespace {

struct Options {
  bool smoke = false;
  int reps = 30;
  std::string filter;
};

double median_seconds(const std::function<void()>& body, int reps) {
  body();  // compiles, and warms the caches
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Bytes per second of a triad over three arrays of `n` floats: 4 streams
// (the stored line is read first), as an op's output is.
double triad_bandwidth(size_t n, int reps) {
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  double s = median_seconds([&] { triad(a.data(), b.data(), c.data(), 0.5f, n); }, reps);
  return 4.0 * sizeof(float) * n / s;
}

double fma_peak(int reps) {
  double best = 0;
  for (const std::string& variant : fma_peak_variants()) {
    float sink = 0;
    long rounds = 1 << 22;
    double flops = 0;
    double s = median_seconds([&] { flops = fma_peak_kernel(variant, rounds, &sink); }, reps);
    best = std::max(best, flops / s);
  }
  return best;
}

// An op's bound is the larger of two times: the bytes it must move at the
// triad's bandwidth, and its flops at the FMA peak (0 where they are not a
// bound: the flops of a transcendental function depend on its formula).
struct Op {
  std::string name;
  double bytes, flops;
  std::function<void()> run;
};

template <class F, class... Args>
std::function<void()> jitted_with(adjit::JitOptions options, F f, Args... args) {
  options.threads = 1;  // the bounds are one core's
  auto compiled = adjit::jit(f, options);
  return [compiled, args...]() mutable { compiled(args...); };
}

template <class F, class... Args>
std::function<void()> jitted(F f, Args... args) {
  return jitted_with({}, f, args...);
}

// sum(L(x)^2) for the 5-point Laplacian L over x's interior: its gradient
// sums five pads of L(x), which must not be written out one by one.
Tensor laplacian_energy(Tensor x) {
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  auto shifted = [&](int64_t dr, int64_t dc) {
    return adjit::slice(x, {1 + dr, 1 + dc}, {rows - 1 + dr, cols - 1 + dc});
  };
  Tensor l = shifted(-1, 0) + shifted(1, 0) + shifted(0, -1) + shifted(0, 1) - 4.0 * shifted(0, 0);
  return adjit::sum(l * l);
}

std::vector<Op> ops(int64_t n) {
  // n x n f32 matrices (4 MiB at n = 1024), and shapes derived from n.
  const double bytes = 4.0 * n * n;
  Array x = Array::randn({n, n}, 1), y = Array::randn({n, n}, 2), row = Array::randn({n}, 3);
  Array rows = Array::uniform({n}, 4, 0, static_cast<double>(n), DType::i32);
  Array narrow = Array::randn({n * n / 16, 16}, 5), tall = Array::randn({4 * n, n / 4}, 6);
  Array classes = Array::randn({n * n / 16, 10}, 8);  // rows of 10: not whole cache lines
  const double classes_bytes = 4.0 * (n * n / 16) * 10;
  Array batch = Array::randn({n / 16, 128, 128}, 7);
  Array points = Array::randn({n * n / 3, 3}, 9);  // rows of 3 coordinates
  const double points_bytes = 4.0 * (n * n / 3) * 3;
  Array rotation = Array::randn({3, 3}, 10), classifier = Array::randn({n, 10}, 11);
  Array doubles = Array::randn({n, n / 2}, 12, DType::f64);  // as many bytes as x
  const double k = 4.0 * n, m = n / 4.0;  // tall's rows and columns
  // Attention's projections as their reshape leaves them: [batch 8, time
  // n / 4, heads 8, depth 64] (4 MiB at n = 1024).
  const int64_t time = n / 4;
  Array queries = Array::randn({8, time, 8, 64}, 13), keys = Array::randn({8, time, 8, 64}, 14);
  const double attention_flops = 2.0 * 8 * 8 * time * time * 64;
  // n^2/64 symmetric positive definite 6x6 matrices (diagonally dominant),
  // their right-hand sides, and an n/4 x n/4 system.
  const int64_t small_batch = n * n / 64, big = n / 4;
  std::vector<float> spd_values(small_batch * 36), system_values(big * big);
  for (int64_t b = 0; b < small_batch; ++b)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        spd_values[b * 36 + i * 6 + j] =
            i == j ? 6.0f : 0.1f * std::sin(static_cast<float>(b + (i + 1) * (j + 1)));
  for (int64_t i = 0; i < big * big; ++i)
    system_values[i] = std::sin(0.37f * static_cast<float>(i)) + (i % (big + 1) == 0 ? 4.0f : 0.0f);
  Array small_spd = Array::from<float>(spd_values, {small_batch, 6, 6});
  Array small_rhs = Array::randn({small_batch, 6}, 15);
  Array system = Array::from<float>(system_values, {big, big}), system_rhs = Array::randn({big}, 16);
  const double small_spd_bytes = 4.0 * small_batch * 36;
  // A sorted table of 4096 entries that searchsorted looks x's values up in.
  Array table = adjit::jit([](Tensor t) { return adjit::sort(t, 0); })(Array::randn({4096}, 17));
  return {
      {"x * 2 + 1", 2 * bytes, 0, jitted([](Tensor a) { return a * 2.0 + 1.0; }, x)},
      {"x + y", 3 * bytes, 0, jitted([](Tensor a, Tensor b) { return a + b; }, x, y)},
      {"x + row (broadcast)", 2 * bytes, 0,
       jitted([](Tensor a, Tensor b) { return a + b; }, x, row)},
      {"sum along rows", bytes, 0, jitted([](Tensor a) { return adjit::sum(a, {1}); }, x)},
      {"sum along columns", bytes, 0,
       jitted([](Tensor a) { return adjit::sum(a, {0}); }, x)},
      {"argmax along rows", bytes, 0,
       jitted([](Tensor a) { return adjit::argmax(a, 1); }, x)},
      // The input, and an i32 index per row of 16.
      {"argmax along rows of 16", bytes * 17 / 16, 0,
       jitted([](Tensor a) { return adjit::argmax(a, 1); }, narrow)},
      {"argmax along columns", bytes, 0,
       jitted([](Tensor a) { return adjit::argmax(a, 0); }, x)},
      {"softmax along rows", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::softmax(a, -1); }, x)},
      {"softmax along columns", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::softmax(a, 0); }, x)},
      {"log_softmax along rows of 10", 2 * classes_bytes, 0,
       jitted([](Tensor a) { return adjit::log_softmax(a, -1); }, classes)},
      {"tanh", 2 * bytes, 0, jitted([](Tensor a) { return adjit::tanh(a); }, x)},
      // f64 transcendentals call glibc's libmvec a register at a time, or
      // libm an element at a time (JitOptions::vector_math_library).
      {"f64 tanh", 2 * bytes, 0, jitted([](Tensor a) { return adjit::tanh(a); }, doubles)},
      {"f64 tanh, libm per element", 2 * bytes, 0,
       jitted_with({.vector_math_library = false}, [](Tensor a) { return adjit::tanh(a); },
                   doubles)},
      {"f64 exp", 2 * bytes, 0, jitted([](Tensor a) { return adjit::exp(a); }, doubles)},
      {"f64 sin", 2 * bytes, 0, jitted([](Tensor a) { return adjit::sin(a); }, doubles)},
      // Functions LLVM cannot lower call libmvec's variants (f32 and f64).
      {"asin", 2 * bytes, 0, jitted([](Tensor a) { return adjit::asin(adjit::tanh(a)); }, x)},
      {"atan2", 3 * bytes, 0,
       jitted([](Tensor a, Tensor b) { return adjit::atan2(a, b); }, x, y)},
      {"f64 atan2", 3 * bytes, 0,
       jitted([](Tensor a, Tensor b) { return adjit::atan2(a, b); }, doubles, doubles)},
      // An associative scan of log2(n) levels (Cumulative.cpp).
      {"cumsum along rows", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::cumsum(a, 1); }, x)},
      {"cumsum along columns", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::cumsum(a, 0); }, x)},
      {"cumsum of a vector", 2 * bytes, 0,
       jitted([n](Tensor a) { return adjit::cumsum(adjit::reshape(a, {n * n}), 0); }, x)},
      // Batches of small systems, as robotics and simulation solve them
      // (a matrix per vector lane), and one larger one (loops over the
      // matrix; LinearAlgebraToLoops.cpp). Flops: n^3/3 (Cholesky),
      // 2n^3/3 + 2n^2 (LU and substitution for one right-hand side).
      {"cholesky of 6x6 matrices", 2 * small_spd_bytes, small_batch * 6 * 6 * 6 / 3.0,
       jitted([](Tensor a) { return adjit::linalg::cholesky(a); }, small_spd)},
      {"solve of 6x6 systems", small_spd_bytes * 8 / 6, small_batch * (144.0 + 72.0),
       jitted([](Tensor a, Tensor b) { return adjit::linalg::solve(a, adjit::expand_dims(b, -1)); },
              small_spd, small_rhs)},
      // slogdet: LU's 2n^3/3 (plus a log per row); reads the matrices and
      // writes two numbers per matrix.
      {"slogdet of 6x6 matrices", small_spd_bytes * 38 / 36, small_batch * 144.0,
       jitted([](Tensor a) { return adjit::linalg::slogdet(a).logabsdet; }, small_spd)},
      // eigh: Jacobi sweeps, each n(n-1)/2 rotations of two rows and
      // columns of S and two rows of V (12n flops each, 1080 per 6x6
      // sweep); counted for 4 sweeps, a lower bound for a few more.
      {"eigh of 6x6 matrices", small_spd_bytes * (2 + 6.0 / 36), small_batch * 4 * 1080.0,
       jitted([](Tensor a) { return adjit::linalg::eigh(a).eigenvectors; }, small_spd)},
      // qr: Householder's 4n^3/3 flops for R and as many for Q; reads the
      // matrices and writes Q and R.
      {"qr of 6x6 matrices", 3 * small_spd_bytes, small_batch * 8 * 216 / 3.0,
       jitted([](Tensor a) {
         auto [q, r] = adjit::linalg::qr(a);
         return std::vector<Tensor>{q, r};
       }, small_spd)},
      // svd: one-sided Jacobi sweeps, each n(n-1)/2 pairs of columns: three
      // dot products and the rotation of two columns of G and of V (14n
      // flops, 1260 per 6x6 sweep); counted for 4 sweeps.
      {"svd of 6x6 matrices", 4 * small_spd_bytes, small_batch * 4 * 1260.0,
       jitted([](Tensor a) {
         auto [u, s, vh] = adjit::linalg::svd(a);
         return std::vector<Tensor>{u, s, vh};
       }, small_spd)},
      {"solve of one n/4 x n/4 system", bytes / 16, 2.0 * m * m * m / 3 + 2 * m * m,
       jitted([](Tensor a, Tensor b) { return adjit::linalg::solve(a, b); }, system, system_rhs)},
      {"exp over rows of 3", 2 * points_bytes, 0,
       jitted([](Tensor a) { return adjit::exp(a); }, points)},
      {"transpose", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::transpose(a); }, x)},
      {"transpose of a tall matrix", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::transpose(a); }, tall)},
      {"batched transpose [0, 2, 1]", 2 * bytes, 0,
       jitted([](Tensor a) { return adjit::transpose(a, {0, 2, 1}); }, batch)},
      {"concat along columns", 4 * bytes, 0,
       jitted([](Tensor a, Tensor b) { return adjit::concat({a, b}, 1); }, x, y)},
      // Every line of the input is read (its odd columns share them), and
      // the half-size result written.
      {"slice of every other column", 1.5 * bytes, 0,
       jitted([n](Tensor a) { return adjit::slice(a, {0, 0}, {n, n}, {1, 2}); }, x)},
      // Sorting and searching are bound by their comparisons, not by
      // memory: the fraction shows how far they are from the bandwidth.
      {"sort along rows", 2 * bytes, 0, jitted([](Tensor a) { return adjit::sort(a, 1); }, x)},
      // top_k reads x and writes k values and indices per row.
      {"top_k, k = 8 along rows", bytes + 2 * 8 * 4.0 * n, 0,
       jitted([](Tensor a) { return adjit::top_k(a, 8).values; }, x)},
      {"searchsorted in 4096", 2 * bytes, 0,
       jitted([](Tensor t, Tensor v) { return adjit::searchsorted(t, v); }, table, x)},
      {"take rows", 2 * bytes, 0,
       jitted([](Tensor a, Tensor i) { return adjit::take(a, i, 0); }, x, rows)},
      {"cast to bf16", 1.5 * bytes, 0,
       jitted([](Tensor a) { return adjit::cast(a, DType::bf16); }, x)},
      {"Laplacian energy and gradient", 2 * bytes, 0,
       jitted(adjit::value_and_grad(laplacian_energy), x)},
      {"matrix-vector product", bytes, 2.0 * n * n,
       jitted([](Tensor a, Tensor v) { return adjit::matmul(a, v); }, x, row)},
      {"points times a 3 x 3 matrix", 2 * points_bytes, 2.0 * (n * n / 3) * 9,
       jitted([](Tensor a, Tensor r) { return adjit::matmul(a, r); }, points, rotation)},
      {"matmul to 10 columns (a classifier)", bytes, 2.0 * n * n * 10,
       jitted([](Tensor a, Tensor w) { return adjit::matmul(a, w); }, x, classifier)},
      {"matmul", 0, 2.0 * n * n * n,
       jitted([](Tensor a, Tensor b) { return adjit::matmul(a, b); }, x, y)},
      {"matmul a^T b, k = 4n", 0, 2.0 * m * k * m,
       jitted([](Tensor a) { return adjit::matmul(adjit::transpose(a), a); }, tall)},
      // Batch and heads are two batch loops whose strides do not merge.
      {"attention scores q k^T", 0, attention_flops,
       jitted(
           [](Tensor q, Tensor k) {
             return adjit::matmul(adjit::transpose(q, {0, 2, 1, 3}),
                                  adjit::transpose(k, {0, 2, 3, 1}));
           },
           queries, keys)},
  };
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--smoke") options.smoke = true;
    else if (arg == "--reps" && i + 1 < argc) options.reps = std::max(3, std::atoi(argv[++i]));
    else if (arg == "--filter" && i + 1 < argc) options.filter = argv[++i];
    else {
      std::fprintf(stderr, "usage: adjit-op-bench [--smoke] [--reps N] [--filter TEXT]\n");
      return 2;
    }
  }
  int64_t n = options.smoke ? 64 : 1024;
  int reps = options.smoke ? 1 : options.reps;
  double bandwidth = triad_bandwidth(static_cast<size_t>(n * n), reps);
  double peak = fma_peak(reps);
  std::printf("triad %.1f GB/s, f32 FMA peak %.1f GFLOP/s (1 thread, n = %lld)\n", bandwidth / 1e9,
              peak / 1e9, static_cast<long long>(n));
  std::printf("%-30s %10s %14s %9s\n", "op", "median", "rate", "of bound");
  for (const Op& op : ops(n)) {
    if (!options.filter.empty() && op.name.find(options.filter) == std::string::npos) continue;
    double s = median_seconds(op.run, reps);
    bool bytes = op.bytes / bandwidth >= op.flops / peak;  // the binding resource
    double rate = (bytes ? op.bytes : op.flops) / s;
    std::printf("%-30s %8.1f us %8.2f %s %9.2f\n", op.name.c_str(), s * 1e6, rate / 1e9,
                bytes ? "GB/s   " : "GFLOP/s", rate / (bytes ? bandwidth : peak));
  }
}
