#include "adjit/runtime/Gemm.h"

#include "GemmKernels.h"
#include "adjit/runtime/Threads.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace adjit::gemm {

namespace {

enum class Isa { avx512, avx2, baseline };

Isa host_isa() {
  static const Isa isa = [] {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
    return Isa::baseline;
  }();
  return isa;
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

// kc: one packed sliver of B (kc x nr) fills half of L1; mc: the packed
// block of A (mc x kc) fills half of L2; nc bounds the packed panel of B.
template <class T>
Blocking blocking_for(const Tile& tile) {
  static const int64_t l1 = cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 32 << 10);
  static const int64_t l2 = cache_bytes(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
  int64_t size = sizeof(T);
  int64_t kc = std::clamp<int64_t>(l1 / 2 / (tile.nr * size), 64, 512);
  int64_t mc = std::max<int64_t>(l2 / 2 / (kc * size) / tile.mr, 1) * tile.mr;
  int64_t nc = 4096 / tile.nr * tile.nr;
  return {kc, mc, nc};
}

// A per-thread, 64-byte aligned scratch area that only grows.
template <class T>
T* workspace(int64_t elements) {
  struct Buffer {
    std::unique_ptr<char[]> bytes;
    int64_t capacity = 0;
  };
  thread_local Buffer buffer;
  int64_t bytes = elements * int64_t(sizeof(T)) + 64;
  if (buffer.capacity < bytes) {
    buffer.bytes.reset(new char[bytes]);
    buffer.capacity = bytes;
  }
  auto address = reinterpret_cast<uintptr_t>(buffer.bytes.get());
  return reinterpret_cast<T*>((address + 63) / 64 * 64);
}

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

  // Work is split over the batch and over output columns (or rows, when
  // there are fewer column tiles than threads): never over k, so every
  // element is summed in the same order whatever the thread count.
  int threads = batch * m * n * k >= kMinParallelWork ? threads::current() : 1;
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
                       c + q * c_batch, c_row, c_col, accumulate};
    if (split_columns) {
      problem.n = count;
      problem.b.data += first * b_col;
      problem.c += first * c_col;
    } else {
      problem.m = count;
      problem.a.data += first * a_row;
      problem.c += first * c_row;
    }
    run_kernel(isa, problem, blocking, workspace<T>((blocking.mc + blocking.nc) * blocking.kc));
  };
  if (threads <= 1 || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t t = 0; t < tasks; ++t) task(t);
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
