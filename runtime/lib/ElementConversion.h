#pragma once

// Conversions between double and every element type, shared by the code that
// fills, generates, parses and prints arrays. Internal to the runtime.

#include <cmath>
#include <limits>
#include <type_traits>

#include "adjit/runtime/DType.h"

namespace adjit::detail {

template <class T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_reduced_float_v<T>;
// i32 and i64; i1 (bool) is not arithmetic in adjit.
template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Rounds to nearest. For half/bfloat16 the detour through float rounds twice,
// which is harmless: float has more than 2p+2 bits for either format.
// Integer targets must hold the value exactly (see holds_exactly).
template <class T>
T from_double(double value) {
  if constexpr (is_reduced_float_v<T>) return T::from_float(static_cast<float>(value));
  else if constexpr (std::is_same_v<T, bool>) return value != 0;
  else return static_cast<T>(value);
}

template <class T>
double to_double(T value) {
  if constexpr (is_reduced_float_v<T>) return value.to_float();
  else return static_cast<double>(value);
}

// Whether the integer type T represents `value` exactly.
template <class T>
bool holds_exactly(double value) {
  static_assert(is_integer_v<T>);
  // -min() is 2^31 or 2^63: exact in double, one past max().
  constexpr double lowest = static_cast<double>(std::numeric_limits<T>::min());
  return value == std::trunc(value) && value >= lowest && value < -lowest;
}

}  // namespace adjit::detail
