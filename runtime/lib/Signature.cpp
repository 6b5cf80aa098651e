#include "adjit/runtime/Signature.h"

#include "adjit/runtime/Error.h"

namespace adjit {

void check_entry_arrays(const Signature& signature, const std::vector<Array>& arrays,
                        const std::vector<TensorType>& expected, const char* what, Device device) {
  if (arrays.size() != expected.size())
    throw RuntimeError("entry '" + signature.name + "' takes " + std::to_string(expected.size()) +
                       " " + what + "s, got " + std::to_string(arrays.size()));
  for (size_t i = 0; i < arrays.size(); ++i) {
    TensorType actual{arrays[i].dtype(), arrays[i].shape()};
    if (!(actual == expected[i]))
      throw RuntimeError("entry '" + signature.name + "': " + what + " " + std::to_string(i) +
                         " must be " + expected[i].str() + ", got " + actual.str());
    if (arrays[i].device() != device)
      throw RuntimeError("entry '" + signature.name + "' runs on " + device.str() + " but " + what +
                         " " + std::to_string(i) + " (" + actual.str() + ") is on " +
                         arrays[i].device().str() + "; move it with .to(adjit::Device::" +
                         (device.is_cpu() ? std::string("cpu()")
                                          : "cuda(" + std::to_string(device.index()) + ")") +
                         ")");
  }
}

}  // namespace adjit
