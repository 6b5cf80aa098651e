#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace adjit {

enum class DType { f16, bf16, f32, f64, i1, i32, i64 };

inline constexpr DType all_dtypes[] = {DType::f16, DType::bf16, DType::f32, DType::f64,
                                       DType::i1,  DType::i32,  DType::i64};

// The short name used in IR, type strings and specs: "f32", "i1", ...
std::string_view dtype_name(DType dtype);
std::optional<DType> parse_dtype(std::string_view name);
// The C++ element type that stores the dtype: "float", "adjit::half", ...
std::string_view cpp_type_name(DType dtype);
// Bytes per element; i1 is stored as one byte holding 0 or 1 (a bool).
size_t dtype_size(DType dtype);
bool is_floating(DType dtype);

// Thrown by switches over DType when handed a value outside the enum.
[[noreturn]] void throw_invalid_dtype(DType dtype);

// IEEE 754 binary16 as raw bits. Conversions are explicit because narrowing
// loses precision; arithmetic happens in float.
struct half {
  uint16_t bits;
  static half from_float(float value);  // round to nearest, ties to even
  float to_float() const;               // exact
};

// bfloat16: the upper half of a binary32 (8 exponent bits, 7 mantissa bits).
struct bfloat16 {
  uint16_t bits;
  static bfloat16 from_float(float value);  // round to nearest, ties to even
  float to_float() const;                   // exact
};

static_assert(sizeof(bool) == 1, "i1 storage assumes a one-byte bool");

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, half>) return DType::f16;
  else if constexpr (std::is_same_v<T, bfloat16>) return DType::bf16;
  else if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, bool>) return DType::i1;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::i32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::i64;
  else static_assert(!sizeof(T), "no adjit DType stores this C++ type");
}

// Calls visitor(std::type_identity<T>{}) with T the element type of `dtype`,
// turning a run-time dtype into a compile-time type once per operation.
template <class Visitor>
decltype(auto) visit_dtype(DType dtype, Visitor&& visitor) {
  switch (dtype) {
    case DType::f16: return visitor(std::type_identity<half>{});
    case DType::bf16: return visitor(std::type_identity<bfloat16>{});
    case DType::f32: return visitor(std::type_identity<float>{});
    case DType::f64: return visitor(std::type_identity<double>{});
    case DType::i1: return visitor(std::type_identity<bool>{});
    case DType::i32: return visitor(std::type_identity<int32_t>{});
    case DType::i64: return visitor(std::type_identity<int64_t>{});
  }
  throw_invalid_dtype(dtype);
}

}  // namespace adjit
