#pragma once

#include <stdexcept>

namespace adjit {

// Every exception adjit throws at its public boundary derives from Error, so
// callers can catch one type; the subclasses say which phase failed.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~Error() override;
};

// Misuse while tracing (e.g. branching on a symbolic Tensor).
class TraceError : public Error {
 public:
  using Error::Error;
  ~TraceError() override;
};

// A traced program could not be differentiated, lowered or code-generated.
class CompileError : public Error {
 public:
  using Error::Error;
  ~CompileError() override;
};

// Running compiled code failed (bad arguments, device errors, ...).
class RuntimeError : public Error {
 public:
  using Error::Error;
  ~RuntimeError() override;
};

}  // namespace adjit
