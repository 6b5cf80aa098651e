#ifndef ADJIT_COMPILER_TRACER_PROMOTION_H
#define ADJIT_COMPILER_TRACER_PROMOTION_H

#include "adjit/runtime/DType.h"
#include "adjit/runtime/Shape.h"

#include <optional>

namespace adjit::detail {

/// The dtype of a binary op on two tensors: bool < i32 < i64 < floats; among
/// floats the wider wins and f16 with bf16 gives f32 (JAX's lattice).
DType promote(DType a, DType b);

/// What a C++ number is, for promotion: bool, integer or floating point.
enum class NumberKind { boolean, integer, floating };

/// The dtype when a tensor meets a C++ number ("weak" scalar, as in JAX):
/// the tensor's dtype, except that a float number makes integer or bool
/// tensors f32 and an integer number makes bool tensors i32 (a bool number
/// keeps every dtype).
DType promote_with_scalar(DType tensor, NumberKind number);

/// numpy's inexact result of an op on a dtype (a mean, a solve, a
/// histogram's density): floats keep theirs, integers and bools give f32.
DType inexact(DType dtype);

/// numpy broadcasting; nullopt when the shapes are incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace adjit::detail

#endif
