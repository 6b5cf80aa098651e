#include "adjit/runtime/Shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adjit/runtime/Error.h"

namespace adjit {

int64_t num_elements(const Shape& shape, std::string_view caller) {
  // Formatted only on failure: every allocation of a call's outputs comes here.
  auto invalid = [&](std::string_view why) {
    return Error(fmt::format("{}{}invalid shape {}: {}", caller, caller.empty() ? "" : ": ",
                             shape_string(shape), why));
  };
  int64_t product = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] < 0) throw invalid(fmt::format("dimension {} is negative", axis));
    if (__builtin_mul_overflow(product, shape[axis], &product))
      throw invalid("element count overflows int64");
  }
  return product;
}

std::string shape_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

std::string type_string(DType dtype, const Shape& shape) {
  return fmt::format("{}{}", dtype_name(dtype), shape_string(shape));
}

}  // namespace adjit
