#include "adjit/runtime/Shape.h"

#include "adjit/runtime/Error.h"

namespace adjit {

int64_t num_elements(const Shape& shape) {
  int64_t product = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] < 0)
      throw Error("invalid shape " + shape_string(shape) + ": dimension " + std::to_string(axis) +
                  " is negative");
    if (__builtin_mul_overflow(product, shape[axis], &product))
      throw Error("invalid shape " + shape_string(shape) + ": element count overflows int64");
  }
  return product;
}

std::string shape_string(const Shape& shape) {
  std::string text = "[";
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (axis) text += ',';
    text += std::to_string(shape[axis]);
  }
  return text + ']';
}

std::string type_string(DType dtype, const Shape& shape) {
  return std::string(dtype_name(dtype)) + shape_string(shape);
}

}  // namespace adjit
