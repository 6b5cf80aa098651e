#include "adjit/compiler/Executable.h"

#include "LoadedCode.h"

#include "adjit/runtime/Error.h"

#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace adjit {

Executable::Executable(std::vector<Signature> entries, Device device,
                       std::unique_ptr<detail::LoadedCode> code)
    : entries_(std::move(entries)), device_(device), code_(std::move(code)) {}
Executable::Executable(Executable&&) noexcept = default;
Executable& Executable::operator=(Executable&&) noexcept = default;
Executable::~Executable() = default;

void Executable::check_not_moved_from() const {
  if (!code_)
    throw RuntimeError("this Executable was moved from (std::move) and holds no code; use the "
                       "Executable it was moved into");
}

const Signature& Executable::entry_signature(size_t entry) const {
  check_not_moved_from();
  if (entry >= entries_.size())
    throw Error(fmt::format("entry index {} is out of range: the module defines {} entries", entry,
                            entries_.size()));
  return entries_[entry];
}

size_t Executable::entry_index(std::string_view name) const {
  check_not_moved_from();
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].name == name) return i;
  std::vector<std::string_view> known;
  for (const Signature& s : entries_) known.push_back(s.name);
  throw Error(fmt::format("unknown entry '{}'; the module defines: {}", name,
                          known.empty() ? "(no public functions)"
                                        : fmt::format("{}", fmt::join(known, ", "))));
}

std::vector<Array> Executable::run(std::string_view entry,
                                   const std::vector<Array>& inputs) const {
  size_t index = entry_index(entry);
  std::vector<Array> outputs;
  outputs.reserve(entries_[index].outputs.size());
  for (const TensorType& type : entries_[index].outputs)
    outputs.push_back(Array::empty(type.shape, type.dtype, device_));
  run_into(index, inputs, outputs);
  return outputs;
}

void Executable::check_outputs_apart(size_t entry, const std::vector<Array>& inputs,
                                     const std::vector<Array>& outputs) const {
  const Signature& signature = entry_signature(entry);
  for (size_t o = 0; o < outputs.size(); ++o) {
    int in_place = signature.aliased_input(o);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (detail::overlap(outputs[o], inputs[i]) &&
          !(static_cast<int>(i) == in_place && outputs[o].raw_data() == inputs[i].raw_data() &&
            outputs[o].nbytes() == inputs[i].nbytes()))
        throw RuntimeError(fmt::format(
            "entry '{}': output {} shares memory with input {}; compiled code may read an "
            "input after writing an output, so use separate buffers (e.g. alternate two sets)",
            signature.name, o, i));
    for (size_t other = 0; other < o; ++other)
      if (detail::overlap(outputs[o], outputs[other]))
        throw RuntimeError(fmt::format(
            "entry '{}': outputs {} and {} share memory; each output needs a buffer of its own",
            signature.name, other, o));
  }
}

void Executable::run_into(size_t entry, const std::vector<Array>& inputs,
                          const std::vector<Array>& outputs) const {
  const Signature& signature = entry_signature(entry);
  if (signature.aliased_inputs.empty()) return code_->run(signature, entry, inputs, outputs);
  // An output written in place into an input's buffer: the code gets the
  // output's buffer for both, holding the input's values (a donation passes
  // one buffer already, and nothing is copied).
  check_entry_arrays(signature, inputs, signature.inputs, "input", device_);
  check_entry_arrays(signature, outputs, signature.outputs, "output", device_);
  std::vector<Array> in_place(inputs);
  for (size_t o = 0; o < outputs.size(); ++o) {
    int i = signature.aliased_input(o);
    if (i < 0 || outputs[o].raw_data() == inputs[i].raw_data()) continue;
    if (!device_.is_cpu())
      throw RuntimeError(fmt::format("entry '{}' writes output {} into input {}, which only "
                                     "compiled code for the CPU does",
                                     signature.name, o, i));
    Array target = outputs[o];  // a handle: its bytes are the caller's output
    std::memcpy(target.raw_data(), inputs[i].raw_data(), inputs[i].nbytes());
    in_place[i] = outputs[o];
  }
  code_->run(signature, entry, in_place, outputs);
}

}  // namespace adjit
