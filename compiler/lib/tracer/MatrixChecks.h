#ifndef ADJIT_COMPILER_TRACER_MATRIXCHECKS_H
#define ADJIT_COMPILER_TRACER_MATRIXCHECKS_H

// The operand checks of the linear algebra routines: (batches of) matrices
// and square matrices, failing with the recorder's op and the operand.

#include "Recorder.h"

#include <fmt/format.h>

namespace adjit::detail {

inline void check_square(Recorder& r, const Tensor& a) {
  int rank = a.rank();
  if (rank < 2 || a.shape()[rank - 1] != a.shape()[rank - 2])
    r.fail(fmt::format("needs a square matrix or a batch of them ([..., n, n]), got {}",
                       describe(a)));
}

inline void check_matrices(Recorder& r, const Tensor& a) {
  if (a.rank() < 2)
    r.fail(fmt::format("needs a matrix or a batch of them ([..., m, n]), got {}", describe(a)));
}

}  // namespace adjit::detail

#endif
