#pragma once

#include <string>
#include <vector>

#include "adjit/runtime/Shape.h"

namespace adjit {

// The type of an array that a compiled entry takes or returns.
struct TensorType {
  DType dtype;
  Shape shape;
  std::string str() const { return type_string(dtype, shape); }
  bool operator==(const TensorType&) const = default;
};

/// What one compiled entry takes and returns.
struct Signature {
  std::string name;
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;
};

}  // namespace adjit
