#pragma once

#include <string>
#include <vector>

#include "adjit/runtime/Array.h"
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
  /// Outputs written in place into an input's buffer (a donated argument,
  /// JitOptions::donate): one input index per output, -1 for none; empty
  /// when no output is. The code then expects that input's buffer as the
  /// output's; Executable passes it so (copying the input into the output
  /// buffer when the caller gave another one).
  std::vector<int> aliased_inputs;

  int aliased_input(size_t output) const {
    return output < aliased_inputs.size() ? aliased_inputs[output] : -1;
  }
};

// Throws adjit::RuntimeError unless `arrays` (an entry's inputs or outputs,
// `what` says which) match `expected` in number, dtype and shape and all
// live on `device`, where the entry runs.
void check_entry_arrays(const Signature& signature, const std::vector<Array>& arrays,
                        const std::vector<TensorType>& expected, const char* what, Device device);

}  // namespace adjit
