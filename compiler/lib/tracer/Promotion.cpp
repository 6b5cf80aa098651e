#include "Promotion.h"

#include <algorithm>

namespace adjit::detail {

namespace {
int integer_rank(DType t) { return t == DType::i1 ? 0 : t == DType::i32 ? 1 : 2; }
int float_width(DType t) { return t == DType::f64 ? 64 : t == DType::f32 ? 32 : 16; }
}  // namespace

DType promote(DType a, DType b) {
  if (a == b) return a;
  bool a_float = is_floating(a), b_float = is_floating(b);
  if (a_float != b_float) return a_float ? a : b;
  if (!a_float) return integer_rank(a) > integer_rank(b) ? a : b;
  int wa = float_width(a), wb = float_width(b);
  if (wa == wb) return DType::f32;  // f16 with bf16: neither holds the other
  return wa > wb ? a : b;
}

DType promote_with_scalar(DType tensor, NumberKind number) {
  switch (number) {
    case NumberKind::boolean: return tensor;
    case NumberKind::integer: return tensor == DType::i1 ? DType::i32 : tensor;
    case NumberKind::floating: break;
  }
  return inexact(tensor);
}

DType inexact(DType dtype) { return is_floating(dtype) ? dtype : DType::f32; }

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    result[i] = da == 1 ? db : da;
  }
  return result;
}

}  // namespace adjit::detail
