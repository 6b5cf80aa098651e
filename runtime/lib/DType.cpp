#include "adjit/runtime/DType.h"

#include <fmt/format.h>

#include "adjit/runtime/Error.h"

namespace adjit {

void throw_invalid_dtype(DType dtype) {
  throw Error(fmt::format("invalid DType value {}", static_cast<int>(dtype)));
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i1: return "i1";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
  }
  throw_invalid_dtype(dtype);
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType dtype : all_dtypes)
    if (dtype_name(dtype) == name) return dtype;
  return std::nullopt;
}

std::string_view cpp_type_name(DType dtype) {
  switch (dtype) {
    case DType::f16: return "adjit::half";
    case DType::bf16: return "adjit::bfloat16";
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::i1: return "bool";
    case DType::i32: return "int32_t";
    case DType::i64: return "int64_t";
  }
  throw_invalid_dtype(dtype);
}

size_t dtype_size(DType dtype) {
  return visit_dtype(dtype, []<class T>(std::type_identity<T>) { return sizeof(T); });
}

bool is_floating(DType dtype) {
  switch (dtype) {
    case DType::f16:
    case DType::bf16:
    case DType::f32:
    case DType::f64: return true;
    case DType::i1:
    case DType::i32:
    case DType::i64: return false;
  }
  throw_invalid_dtype(dtype);
}

}  // namespace adjit
