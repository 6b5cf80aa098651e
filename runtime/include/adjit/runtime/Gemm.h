#pragma once

#include <cstdint>

// Dense contractions called by compiled code (and by ahead-of-time objects):
//   C[b, i, j] (+)= sum_p A[b, i, p] * B[b, p, j]
// for b < batch, i < m, j < n, p < k. Every operand is addressed through its
// own element strides, so transposed operands (x^T dy, dy W^T) need no copy:
// packing reads them in whatever order they are stored. `accumulate` = 0
// overwrites C, 1 adds to it. Pointers are passed as integers because the
// compiled caller holds them as memref addresses (index values).
//
// The work is split across the calling thread's team (see Threads.h): output
// columns or rows are divided among threads and never a sum, so a result
// does not depend on the thread count.
//
// The kernels belong to the ahead-of-time runtime (adjit_aot_runtime), which
// has no thread runtime: the JIT's runtime lends them its OpenMP team through
// adjit_gemm_set_threading. Without it, contractions run on the calling
// thread.
extern "C" {
typedef struct adjit_gemm_threading {
  int (*team_size)(void);  // threads the calling thread's call may use
  // Runs task(context, t) for t < tasks on `threads` threads, then returns.
  void (*parallel_for)(int64_t tasks, int threads, void (*task)(void* context, int64_t t),
                       void* context);
} adjit_gemm_threading;
void adjit_gemm_set_threading(const adjit_gemm_threading* threading);

void adjit_gemm_f32(int64_t batch, int64_t m, int64_t n, int64_t k,
                    int64_t a, int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
                    int64_t b, int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
                    int64_t c, int64_t c_batch_stride, int64_t c_row_stride, int64_t c_col_stride,
                    int64_t accumulate);
void adjit_gemm_f64(int64_t batch, int64_t m, int64_t n, int64_t k,
                    int64_t a, int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
                    int64_t b, int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
                    int64_t c, int64_t c_batch_stride, int64_t c_row_stride, int64_t c_col_stride,
                    int64_t accumulate);
}

namespace adjit::gemm {

// The vector instruction set the kernels use on this host ("avx512",
// "avx2" or "baseline"), read from the CPU once.
const char* isa();

}  // namespace adjit::gemm
