#ifndef ADJIT_PASSES_CONTRACTIONKERNELS_H
#define ADJIT_PASSES_CONTRACTIONKERNELS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <array>
#include <optional>

namespace mlir::adjit {

/// A contraction C[b, i, j] += A[b, i, p] * B[b, p, j] on buffers, as a
/// GEMM library (cuBLAS) runs it in place: extents, and per operand (A, B,
/// C) its element offset and element strides along its batch, row and
/// column loops (0 where the operand does not vary along one).
struct LibraryGemm {
  int64_t batch, m, n, k;
  std::array<int64_t, 3> offsets;
  std::array<std::array<int64_t, 3>, 3> strides;
  unsigned elementBits;  // 32 or 64
};

/// The library form of a generic that adjit-select-kernels marked, or
/// nothing: static shapes and strides, each of A and B contiguous along
/// one of its matrix dimensions, and C along its columns (what a
/// column-major BLAS expresses with transposes and leading dimensions).
std::optional<LibraryGemm> matchLibraryGemm(linalg::GenericOp op);

} // namespace mlir::adjit

#endif
