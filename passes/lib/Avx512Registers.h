#ifndef ADJIT_PASSES_AVX512REGISTERS_H
#define ADJIT_PASSES_AVX512REGISTERS_H

// Vectors of f32 as the AVX-512 registers that hold them: the passes that
// call AVX-512 intrinsics (adjit-approximate-math's vscalefps and
// vrcp14ps, adjit-avx512-min-max's vrangeps) take 16 lanes at a time.

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

/// `perRegister` applied to each register's lanes of `operands` (vectors as
/// long as `into`), the results inserted into `into`, whose lanes all get
/// replaced.
Value eachRegister(ImplicitLocOpBuilder &b, Value into, ValueRange operands,
                   function_ref<Value(ArrayRef<Value>)> perRegister);

} // namespace mlir::adjit

#endif
