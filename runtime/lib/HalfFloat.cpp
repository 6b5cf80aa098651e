// Conversions between float and the 16-bit float formats, done on the bit
// patterns so they are exact, portable and independent of the FPU rounding mode.
#include <bit>

#include "adjit/runtime/DType.h"

namespace adjit {
namespace {

// value >> shift, rounded to nearest with ties to even (1 <= shift <= 31).
uint32_t shift_right_round_even(uint32_t value, int shift) {
  uint32_t quotient = value >> shift;
  uint32_t remainder = value & ((uint32_t{1} << shift) - 1);
  uint32_t halfway = uint32_t{1} << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (quotient & 1))) ++quotient;
  return quotient;
}

constexpr uint32_t kFloatInfinity = 0x7f800000;

}  // namespace

half half::from_float(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > kFloatInfinity)  // NaN: keep the top payload bits, force quiet
    return {static_cast<uint16_t>(sign | 0x7e00 | ((magnitude >> 13) & 0x3ff))};
  if (magnitude >= 0x47800000)  // >= 2^16 (or inf) is beyond rounding range
    return {static_cast<uint16_t>(sign | 0x7c00)};
  if (magnitude >= 0x38800000) {
    // Normal half: rebias the exponent (127 -> 15) and drop 13 mantissa bits.
    // A carry out of the mantissa correctly bumps the exponent, up to inf.
    uint32_t rebiased = magnitude - (uint32_t{127 - 15} << 23);
    return {static_cast<uint16_t>(sign | shift_right_round_even(rebiased, 13))};
  }
  // Subnormal half or zero: count units of 2^-24. Rounding up into the
  // smallest normal (0x0400) falls out of the bit layout.
  int exponent = static_cast<int>(magnitude >> 23);
  int shift = 126 - exponent;
  if (shift > 24) return {sign};  // below half of the smallest subnormal
  uint32_t significand = (magnitude & 0x7fffff) | 0x800000;
  return {static_cast<uint16_t>(sign | shift_right_round_even(significand, shift))};
}

float half::to_float() const {
  uint32_t sign = uint32_t{bits & 0x8000u} << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | kFloatInfinity | (mantissa << 13));
  if (exponent != 0)
    return std::bit_cast<float>(sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13));
  float magnitude = static_cast<float>(mantissa) * 0x1p-24f;  // subnormal or zero, exact
  return sign ? -magnitude : magnitude;
}

bfloat16 bfloat16::from_float(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffff) > kFloatInfinity)  // NaN: truncating could yield inf
    return {static_cast<uint16_t>((bits >> 16) | 0x0040)};
  // The largest finite float rounds to inf, never into the sign bit.
  return {static_cast<uint16_t>(shift_right_round_even(bits, 16))};
}

float bfloat16::to_float() const { return std::bit_cast<float>(uint32_t{bits} << 16); }

}  // namespace adjit
