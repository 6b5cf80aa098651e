#include "adjit/runtime/Signature.h"

#include <fmt/format.h>

#include "adjit/runtime/Error.h"

namespace adjit {

void check_entry_arrays(const Signature& signature, const std::vector<Array>& arrays,
                        const std::vector<TensorType>& expected, const char* what, Device device) {
  if (arrays.size() != expected.size())
    throw RuntimeError(fmt::format("entry '{}' takes {} {}s, got {}", signature.name,
                                   expected.size(), what, arrays.size()));
  for (size_t i = 0; i < arrays.size(); ++i) {
    TensorType actual{arrays[i].dtype(), arrays[i].shape()};
    if (!(actual == expected[i]))
      throw RuntimeError(fmt::format("entry '{}': {} {} must be {}, got {}", signature.name, what,
                                     i, expected[i].str(), actual.str()));
    if (arrays[i].device() != device)
      throw RuntimeError(fmt::format(
          "entry '{}' runs on {} but {} {} ({}) is on {}; move it with .to(adjit::Device::{})",
          signature.name, device.str(), what, i, actual.str(), arrays[i].device().str(),
          device.is_cpu() ? std::string("cpu()") : fmt::format("cuda({})", device.index())));
  }
}

}  // namespace adjit
