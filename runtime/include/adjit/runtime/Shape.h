#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "adjit/runtime/DType.h"

namespace adjit {

using Shape = std::vector<int64_t>;

// Product of the dimensions (1 for a 0-d shape). Throws adjit::Error on a
// negative dimension or when the product overflows int64_t, its message
// prefixed with `caller` ("Array::zeros") where one is given.
int64_t num_elements(const Shape& shape, std::string_view caller = {});

// "[256,784]", "[]" for 0-d.
std::string shape_string(const Shape& shape);
// "f32[256,784]", "i32[]" for 0-d.
std::string type_string(DType dtype, const Shape& shape);

}  // namespace adjit
