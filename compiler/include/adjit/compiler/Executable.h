#ifndef ADJIT_COMPILER_EXECUTABLE_H
#define ADJIT_COMPILER_EXECUTABLE_H

#include "adjit/runtime/Array.h"
#include "adjit/runtime/Signature.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace adjit {

/// Native code for every public function of a Program, loaded in this
/// process. Thread-safe to call; keeps its code alive while it exists.
class Executable {
 public:
  Executable(Executable&&) noexcept;
  Executable& operator=(Executable&&) noexcept;
  ~Executable();

  const std::vector<Signature>& entries() const;
  /// Where the code runs; inputs and outputs must live there.
  Device device() const;
  /// Throws adjit::Error naming the known entries if `name` is not one.
  const Signature& signature(std::string_view name) const;

  /// Checks the inputs against the signature, runs, and returns fresh outputs
  /// (on device()).
  std::vector<Array> run(std::string_view entry, const std::vector<Array>& inputs) const;
  /// Runs into caller-provided outputs (checked against the signature).
  void run_into(std::string_view entry, const std::vector<Array>& inputs,
                std::vector<Array>& outputs) const;

  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace adjit

#endif
