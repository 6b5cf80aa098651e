#ifndef ADJIT_PASSES_FLOATORDER_H
#define ADJIT_PASSES_FLOATORDER_H

// Floats compared through their bits, where float compares would not do:
// IEEE 754's totalOrder (lax.top_k's order), and compares that LLVM must
// not narrow (adjit-widened-f16-min-max).

#include "mlir/IR/Builders.h"

namespace mlir::adjit {

/// A float's bits as signed integers, and its order key: those bits with
/// the magnitude bits flipped where the sign is set. Keys compare as
/// IEEE 754's totalOrder orders the floats: -NaN < -inf < ... < -0 < +0 <
/// ... < +inf < +NaN. For a scalar or a vector of floats.
struct FloatKey {
  Value bits, key;
};
FloatKey floatKey(OpBuilder &b, Location loc, Value floats);

/// An integer constant of `like`'s type (scalar or vector, splat).
Value integerConstantLike(OpBuilder &b, Location loc, Value like, const APInt &value);

} // namespace mlir::adjit

#endif
