#ifndef ADJIT_PASSES_AVX512REGISTERS_H
#define ADJIT_PASSES_AVX512REGISTERS_H

// Vectors as the registers that hold them: the passes that call AVX-512
// intrinsics (adjit-approximate-math's vscalefps and vrcp14ps,
// adjit-avx512-min-max's vrangeps) take a zmm register's lanes at a time,
// adjit-math-to-libm's calls of libmvec a register of the target's.

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::adjit {

/// The f32 lanes of one zmm register.
constexpr int64_t kZmmF32Lanes = 16;

/// The lanes of one zmm register of `element`s.
int64_t zmmLanes(Type element);

/// Whether `type` is a 1-D vector of f32 of whole registers.
bool isRegistersOfF32(Type type);
/// Whether `type` is a 1-D vector of f32 or f64 of whole registers.
bool isRegistersOfF32OrF64(Type type);

/// `perRegister` applied to each register's lanes of `operands` (1-D
/// vectors as long as `into`; a zmm register's unless `registerLanes` is
/// given), the results inserted into `into`, whose lanes all get replaced.
/// Without `padding` (a register's vector) the operands are whole
/// registers; with it, a last part shorter than a register fills the first
/// lanes of `padding`, and only those lanes of its result are kept.
Value eachRegister(ImplicitLocOpBuilder &b, Value into, ValueRange operands,
                   function_ref<Value(ArrayRef<Value>)> perRegister,
                   int64_t registerLanes = 0, Value padding = {});

} // namespace mlir::adjit

#endif
