#ifndef ADJIT_COMPILER_EXECUTABLE_H
#define ADJIT_COMPILER_EXECUTABLE_H

#include "adjit/runtime/Array.h"
#include "adjit/runtime/Signature.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace adjit {

namespace detail {
class LoadedCode;
}

/// Native code for every public function of a Program, loaded in this
/// process. Thread-safe to call; keeps its code alive while it exists.
class Executable {
 public:
  Executable(Executable&&) noexcept;
  Executable& operator=(Executable&&) noexcept;
  ~Executable();

  const std::vector<Signature>& entries() const { return entries_; }
  /// Where the code runs; inputs and outputs must live there.
  Device device() const { return device_; }
  /// The position of entry `name` in entries(), for calling it repeatedly
  /// without looking it up; throws adjit::Error naming the known entries if
  /// `name` is not one.
  size_t entry_index(std::string_view name) const;
  const Signature& signature(std::string_view name) const { return entries_[entry_index(name)]; }

  /// Checks the inputs against the signature, runs, and returns fresh outputs
  /// (on device()).
  std::vector<Array> run(std::string_view entry, const std::vector<Array>& inputs) const;
  /// Runs into caller-provided outputs (checked against the signature, and
  /// for sharing memory with an input or another output); the Arrays are
  /// handles, so their storage is written through them.
  void run_into(std::string_view entry, const std::vector<Array>& inputs,
                const std::vector<Array>& outputs) const {
    size_t index = entry_index(entry);
    check_outputs_apart(index, inputs, outputs);
    run_into(index, inputs, outputs);
  }
  /// The same without the check for shared memory (for callers that made
  /// the outputs themselves).
  void run_into(size_t entry, const std::vector<Array>& inputs,
                const std::vector<Array>& outputs) const;
  /// Throws adjit::RuntimeError where an output shares memory with an input
  /// (but the one it is written in place into, as the same buffer) or with
  /// another output: compiled code may read an input after writing an
  /// output.
  void check_outputs_apart(size_t entry, const std::vector<Array>& inputs,
                           const std::vector<Array>& outputs) const;

  /// Made by the back ends: `code` runs `entries` on `device`.
  Executable(std::vector<Signature> entries, Device device,
             std::unique_ptr<detail::LoadedCode> code);

 private:
  /// Throws adjit::RuntimeError for a moved-from Executable.
  void check_not_moved_from() const;
  /// Entry `entry`'s signature; throws adjit::Error out of range.
  const Signature& entry_signature(size_t entry) const;
  std::vector<Signature> entries_;
  Device device_;
  std::unique_ptr<detail::LoadedCode> code_;
};

}  // namespace adjit

#endif
