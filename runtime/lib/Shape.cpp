#include "adjit/runtime/Shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adjit/runtime/Error.h"

namespace adjit {

int64_t num_elements(const Shape& shape, std::string_view caller) {
  std::string prefix = caller.empty() ? "" : fmt::format("{}: ", caller);
  int64_t product = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] < 0)
      throw Error(fmt::format("{}invalid shape {}: dimension {} is negative", prefix,
                              shape_string(shape), axis));
    if (__builtin_mul_overflow(product, shape[axis], &product))
      throw Error(fmt::format("{}invalid shape {}: element count overflows int64", prefix,
                              shape_string(shape)));
  }
  return product;
}

std::string shape_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

std::string type_string(DType dtype, const Shape& shape) {
  return fmt::format("{}{}", dtype_name(dtype), shape_string(shape));
}

}  // namespace adjit
