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
/// `overwrites`: C = A * B instead, C's zero fill folded in (the BLAS's
/// beta = 0; absorbZeroFillIntoLibraryGemm).
struct LibraryGemm {
  int64_t batch, m, n, k;
  std::array<int64_t, 3> offsets;
  std::array<std::array<int64_t, 3>, 3> strides;
  unsigned elementBits;  // 32 or 64
  bool overwrites;
};

/// The library form of a generic that adjit-select-kernels marked, or
/// nothing: static shapes and strides, each of A and B contiguous along
/// one of its matrix dimensions, and C along its columns (what a
/// column-major BLAS expresses with transposes and leading dimensions).
std::optional<LibraryGemm> matchLibraryGemm(linalg::GenericOp op);

/// Whether the op before `op` zero-fills its output (a linalg.fill of zero,
/// or a copy from a buffer that only ever holds zeros); if so, erases it, so
/// that the contraction must overwrite its output instead of accumulating.
bool absorbZeroFill(linalg::GenericOp op);

/// For a generic that matchLibraryGemm serves: absorbZeroFill, and the
/// generic's library call becomes the overwriting one (its `overwrites`).
bool absorbZeroFillIntoLibraryGemm(linalg::GenericOp op);

} // namespace mlir::adjit

#endif
