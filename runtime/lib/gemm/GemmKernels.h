#pragma once

// The interface between the GEMM driver (Gemm.cpp) and its kernels, which
// are compiled once per instruction set (GemmAvx512.cpp, GemmAvx2.cpp,
// GemmBaseline.cpp) from GemmKernels.inc. Only plain structs cross it: no
// inline code is shared between files built for different instruction sets.

#include <cstdint>

namespace adjit::gemm {

template <class T>
struct Operand {
  const T* data;
  int64_t row_stride;  // elements between rows (i for A, p for B)
  int64_t col_stride;  // elements between columns (p for A, j for B)
};

// One single-threaded contraction C[m x n] (+)= A[m x k] B[k x n]: a part
// of the caller's (after any transposition C^T = B^T A^T). `narrow`: that
// C has at most a vector's lanes of columns and its A is stored by rows
// (the narrow kernels). Decided for the whole contraction, so that every
// part of it takes the same kernels and sums in the same order whatever
// the thread count.
template <class T>
struct Problem {
  int64_t m, n, k;
  Operand<T> a, b;
  T* c;
  int64_t c_row_stride, c_col_stride;
  bool accumulate;
  bool narrow;
};

// Cache blocking: k is cut into slices of at most kc (one packed sliver
// of B, kc x nr, stays in L1), m into blocks of mc (the packed mc x kc
// block of A stays in L2), n into panels of nc (bounds the packed panel of
// B). mc is a multiple of mr and nc of nr. The driver derives them from the
// host's cache sizes. The rows left for the last block join the one before
// it when they are at most mc_last in all (a multiple of mr, a little above
// mc): a block of a few rows would stream the whole panel of B through L2
// for little work (m = 256 and mc = 252 left 4).
//
// When all of A's rows fit in mc_whole (a block of A in a quarter of L2),
// A is packed once per slice of k and B in panels of nc_whole columns that
// stay in L2 beside it: a panel of nc columns would not fit, and writing
// it back and forth through L3 cost W2's forward matmuls (m = 256) 6%.
//
// A narrow C (at most a vector's lanes of columns) is cut along k into
// slices whose B (kc_narrow x lanes elements at most) stays in L1.
struct Blocking {
  int64_t kc, mc, nc;
  int64_t mc_last;
  int64_t mc_whole, nc_whole;
  int64_t kc_narrow, lanes;

  // The packing space run() needs: the most rows of a packed block of A,
  // then the most columns of a packed panel of B, kc deep each (at least
  // a narrow slice of B).
  int64_t packed_a_rows() const { return mc_last > mc_whole ? mc_last : mc_whole; }
  int64_t packed_b_columns() const { return nc > nc_whole ? nc : nc_whole; }
  int64_t workspace_elements() const {
    int64_t blocks = (packed_a_rows() + packed_b_columns()) * kc;
    int64_t narrow = (kc_narrow + lanes) * lanes;  // B's slice, k rounded up to whole vectors
    return blocks > narrow ? blocks : narrow;
  }
};

// The register tile of a kernel: mr rows of A (broadcast) times nr columns
// of B (whole vectors of `lanes` elements).
struct Tile {
  int64_t mr, nr, lanes;
};

// `workspace` holds the packed block and panel:
// blocking.workspace_elements(), 64-byte aligned.
#define ADJIT_GEMM_DECLARE_ISA(isa)                                                     \
  namespace isa {                                                                       \
  Tile tile_f32();                                                                      \
  Tile tile_f64();                                                                      \
  void run(const Problem<float>& problem, const Blocking& blocking, float* workspace);  \
  void run(const Problem<double>& problem, const Blocking& blocking, double* workspace); \
  }
ADJIT_GEMM_DECLARE_ISA(avx512)
ADJIT_GEMM_DECLARE_ISA(avx2)
ADJIT_GEMM_DECLARE_ISA(baseline)
#undef ADJIT_GEMM_DECLARE_ISA

}  // namespace adjit::gemm
