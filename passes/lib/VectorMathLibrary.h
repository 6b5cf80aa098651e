#ifndef ADJIT_PASSES_VECTORMATHLIBRARY_H
#define ADJIT_PASSES_VECTORMATHLIBRARY_H

// The C math library's functions that adjit calls: libm's one element at a
// time, and glibc's vector math library (libmvec, which libm links as
// needed) for the functions that neither an instruction nor
// adjit-approximate-math's polynomials compute on vectors (every f64
// transcendental; f32 pow, the inverse and hyperbolic trigonometric
// functions, tan). adjit-vectorize makes vector code of those only
// where the pipeline calls the library, and adjit-math-to-libm calls it.

#include "mlir/IR/Operation.h"

namespace mlir::adjit {

/// The C name of `op`'s function on its f32 or f64 element type ("tanh",
/// "powf"), or "" where the C library has none.
std::string libmFunction(Operation *op);

/// Whether adjit-approximate-math computes `op` on f32 by a polynomial.
bool hasF32Polynomial(Operation *op);

/// Whether LLVM 19 has no lowering of `op` at all (no intrinsic): it needs
/// a libm call (libdevice's on a GPU) wherever no polynomial computes it.
bool needsLibrary(Operation *op);

/// libmFunction(op) where libmvec has it and adjit calls it, else "".
std::string vectorMathFunction(Operation *op);

} // namespace mlir::adjit

#endif
