#include "adjit/runtime/Gemm.h"

#include "adjit/runtime/AotRuntime.h"

#include "GemmKernels.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

// This file is part of the ahead-of-time runtime, which links with a C
// compiler alone: no C++ library calls (no new, no exceptions, no guarded
// statics) may appear here.

namespace adjit::gemm {

namespace {

enum class Isa { avx512, avx2, baseline };  // widest first

// The widest kernels the CPU runs; ADJIT_GEMM_ISA=avx2|baseline asks for
// narrower ones (so that tests cover every kernel set the host can run),
// never for wider.
Isa detect_isa() {
  Isa best = Isa::baseline;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    best = Isa::avx512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    best = Isa::avx2;
#endif
  const char* requested = std::getenv("ADJIT_GEMM_ISA");
  if (!requested) return best;
  Isa wanted = std::strcmp(requested, "baseline") == 0 ? Isa::baseline
               : std::strcmp(requested, "avx2") == 0   ? Isa::avx2
                                                       : Isa::avx512;
  if (wanted == Isa::avx512 && std::strcmp(requested, "avx512") != 0)
    std::fprintf(stderr,
                 "adjit: ADJIT_GEMM_ISA=%s is not avx512, avx2 or baseline: using the widest "
                 "kernels the CPU runs\n",
                 requested);
  return static_cast<int>(wanted) > static_cast<int>(best) ? wanted : best;
}

// A value computed once per process without a guarded static: racing first
// callers compute the same value.
template <class Compute>
int64_t once(std::atomic<int64_t>& cell, Compute compute) {
  int64_t value = cell.load(std::memory_order_relaxed);
  if (value < 0) {
    value = compute();
    cell.store(value, std::memory_order_relaxed);
  }
  return value;
}

Isa host_isa() {
  static std::atomic<int64_t> isa{-1};
  return static_cast<Isa>(once(isa, [] { return static_cast<int64_t>(detect_isa()); }));
}

template <class T>
Tile tile_of(Isa isa) {
  bool f32 = sizeof(T) == 4;
  switch (isa) {
    case Isa::avx512: return f32 ? avx512::tile_f32() : avx512::tile_f64();
    case Isa::avx2: return f32 ? avx2::tile_f32() : avx2::tile_f64();
    case Isa::baseline: break;
  }
  return f32 ? baseline::tile_f32() : baseline::tile_f64();
}

template <class T>
void run_kernel(Isa isa, const Problem<T>& problem, const Blocking& blocking, T* workspace) {
  switch (isa) {
    case Isa::avx512: return avx512::run(problem, blocking, workspace);
    case Isa::avx2: return avx2::run(problem, blocking, workspace);
    case Isa::baseline: return baseline::run(problem, blocking, workspace);
  }
}

int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }

int64_t cache_bytes(int name, int64_t fallback) {
  long bytes = sysconf(name);
  return bytes > 0 ? bytes : fallback;
}

// kc: one packed sliver of B (kc x nr) fills two thirds of L1, the rest
// holds the sliver of A and the tile of C, but kc is at least 256: with a
// 32 KiB L1 (Zen 4) two thirds make 170, and the passes over C that more
// slices of k take (k = 1024: 7 instead of 4) cost more than reading the
// sliver partly from L2 (W2's five matmuls 2-3% faster at 256); mc: the packed block of A
// (mc x kc) fills an eighth of L2, which leaves room for the panel of B
// and for C. nc bounds the packed panel of B. (On W2's shapes, kc from
// half of L1 and mc from half of L2 were 5% slower.) mc_whole and
// nc_whole: a block of A (rounded up to whole slivers: 256 rows stay
// whole) and a panel of B in a quarter of L2 each. kc_narrow: a narrow
// slice of B (kc_narrow x lanes) fills L1, which A's rows stream through:
// on a classifier's 1024 x 10 B, slices of half of L1 took 1.45x longer
// (A's rows read in two halves).
template <class T>
Blocking blocking_for(const Tile& tile) {
  static std::atomic<int64_t> l1_bytes{-1}, l2_bytes{-1};
  int64_t l1 = once(l1_bytes, [] { return cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 32 << 10); });
  int64_t l2 = once(l2_bytes, [] { return cache_bytes(_SC_LEVEL2_CACHE_SIZE, 1 << 20); });
  int64_t size = sizeof(T);
  int64_t kc = std::clamp<int64_t>(l1 * 2 / 3 / (tile.nr * size), 256, 512);
  int64_t mc = std::max<int64_t>(l2 / 8 / (kc * size) / tile.mr, 1) * tile.mr;
  int64_t nc = 4096 / tile.nr * tile.nr;
  int64_t mc_last = mc + mc / 4 / tile.mr * tile.mr;
  int64_t quarter_l2 = l2 / 4 / (kc * size);
  int64_t mc_whole = ceil_div(quarter_l2, tile.mr) * tile.mr;
  int64_t nc_whole = std::max<int64_t>(quarter_l2 / tile.nr, 1) * tile.nr;
  int64_t kc_narrow = std::clamp<int64_t>(l1 / (tile.lanes * size), 64, 4096);
  return {kc, mc, nc, mc_last, mc_whole, nc_whole, kc_narrow, tile.lanes};
}

// A per-thread, 64-byte aligned scratch area that only grows; a thread's
// area is freed when the thread ends (a pthread key's destructor).
pthread_key_t workspace_key;
pthread_once_t workspace_key_once = PTHREAD_ONCE_INIT;

template <class T>
T* workspace(int64_t elements) {
  struct Buffer {
    void* bytes;
    int64_t capacity;
  };
  thread_local Buffer buffer{nullptr, 0};
  int64_t bytes = (elements * int64_t(sizeof(T)) + 63) / 64 * 64;
  if (buffer.capacity < bytes) {
    pthread_once(&workspace_key_once, [] { pthread_key_create(&workspace_key, std::free); });
    std::free(buffer.bytes);
    buffer.bytes = std::aligned_alloc(64, bytes);
    if (!buffer.bytes) {
      buffer.capacity = 0;
      pthread_setspecific(workspace_key, nullptr);
      adjit_kernel_out_of_memory(static_cast<uint64_t>(bytes), "the GEMM kernels' packing space");
    }
    buffer.capacity = bytes;
    pthread_setspecific(workspace_key, buffer.bytes);
  }
  return static_cast<T*>(buffer.bytes);
}

// Set by the JIT's runtime (OpenMP); none in ahead-of-time programs, whose
// contractions run on the calling thread.
std::atomic<const adjit_gemm_threading*> threading{nullptr};

// Below this many multiply-adds a second thread costs more than it saves.
constexpr int64_t kMinParallelWork = 1 << 18;

template <class T>
void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const T* a, int64_t a_batch,
          int64_t a_row, int64_t a_col, const T* b, int64_t b_batch, int64_t b_row, int64_t b_col,
          T* c, int64_t c_batch, int64_t c_row, int64_t c_col, bool accumulate) {
  if (batch <= 0 || m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int64_t q = 0; q < batch; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) c[q * c_batch + i * c_row + j * c_col] = T(0);
    return;
  }
  Isa isa = host_isa();
  Tile tile = tile_of<T>(isa);
  Blocking blocking = blocking_for<T>(tile);
  // A C of at most a vector's lanes of columns (a classifier's 10) with A
  // stored by rows has kernels of its own (GemmKernels.inc: narrow). So
  // has, transposed, one of at most that many rows whose B is stored
  // transposed (a batch of a few rows times a weight stored out x in, as
  // x W^T reads it): C^T = B^T A^T, whose first operand B^T is stored by
  // rows; with k of at least 16 vectors, over which each element's sums
  // across lanes pay (against the tiles: 8 x 64 x 64 took 2x as long,
  // 8 x 256 x 128 1.1x, 10 x 256 x 256 0.88x, 10 x 4096 x 1024 0.55x).
  // Other C of fewer columns than the register tile's would leave most of
  // each tile's columns idle: compute C^T = B^T A^T instead, whose columns
  // are C's rows.
  bool narrow = n <= tile.lanes && a_col == 1;
  bool narrow_transposed = !narrow && m <= tile.lanes && b_row == 1 && k >= 16 * tile.lanes;
  if (narrow_transposed || (!narrow && n < tile.nr && m > n)) {
    narrow = narrow_transposed;
    std::swap(m, n);
    std::swap(a, b);
    std::swap(a_batch, b_batch);
    std::swap(a_row, b_col);
    std::swap(a_col, b_row);
    std::swap(c_row, c_col);
  }

  // Work is split over the batch and over output columns (or rows, when
  // there are fewer column tiles than threads): never over k, so every
  // element is summed in the same order whatever the thread count.
  const adjit_gemm_threading* team = threading.load(std::memory_order_acquire);
  int threads = team && batch * m * n * k >= kMinParallelWork ? team->team_size() : 1;
  int64_t column_tiles = ceil_div(n, tile.nr), row_tiles = ceil_div(m, tile.mr);
  bool split_columns = column_tiles >= threads || column_tiles >= row_tiles;
  int64_t tiles = split_columns ? column_tiles : row_tiles;
  int64_t extent = split_columns ? n : m;
  int64_t pieces = std::min(tiles, ceil_div(threads, batch));
  int64_t span = ceil_div(tiles, pieces) * (split_columns ? tile.nr : tile.mr);
  int64_t tasks = batch * pieces;

  auto task = [&](int64_t t) {
    int64_t q = t / pieces, first = t % pieces * span;
    if (first >= extent) return;
    int64_t count = std::min(extent - first, span);
    Problem<T> problem{m, n, k, {a + q * a_batch, a_row, a_col}, {b + q * b_batch, b_row, b_col},
                       c + q * c_batch, c_row, c_col, accumulate, narrow};
    if (split_columns) {
      problem.n = count;
      problem.b.data += first * b_col;
      problem.c += first * c_col;
    } else {
      problem.m = count;
      problem.a.data += first * a_row;
      problem.c += first * c_row;
    }
    run_kernel(isa, problem, blocking, workspace<T>(blocking.workspace_elements()));
  };
  if (threads <= 1 || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
    return;
  }
  team->parallel_for(
      tasks, threads, [](void* context, int64_t t) { (*static_cast<decltype(task)*>(context))(t); },
      &task);
}

}  // namespace

const char* isa() {
  switch (host_isa()) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::baseline: break;
  }
  return "baseline";
}

}  // namespace adjit::gemm

namespace {
template <class T>
T* pointer(int64_t address) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(address));
}
}  // namespace

extern "C" {
void adjit_gemm_set_threading(const adjit_gemm_threading* threading) {
  adjit::gemm::threading.store(threading, std::memory_order_release);
}

void adjit_gemm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a, int64_t a_batch,
                    int64_t a_row, int64_t a_col, int64_t b, int64_t b_batch, int64_t b_row,
                    int64_t b_col, int64_t c, int64_t c_batch, int64_t c_row, int64_t c_col,
                    int64_t accumulate) {
  adjit::gemm::gemm<float>(batch, m, n, k, pointer<float>(a), a_batch, a_row, a_col,
                           pointer<float>(b), b_batch, b_row, b_col, pointer<float>(c), c_batch,
                           c_row, c_col, accumulate != 0);
}
void adjit_gemm_f64(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t a, int64_t a_batch,
                    int64_t a_row, int64_t a_col, int64_t b, int64_t b_batch, int64_t b_row,
                    int64_t b_col, int64_t c, int64_t c_batch, int64_t c_row, int64_t c_col,
                    int64_t accumulate) {
  adjit::gemm::gemm<double>(batch, m, n, k, pointer<double>(a), a_batch, a_row, a_col,
                            pointer<double>(b), b_batch, b_row, b_col, pointer<double>(c), c_batch,
                            c_row, c_col, accumulate != 0);
}
}
