#ifndef ADJIT_COMPILER_DIAGNOSTICS_H
#define ADJIT_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace adjit::detail {

/// "file:line:col" from the first file location inside `loc` (fused, named
/// and call-site locations wrap them), as compilers print positions; empty
/// when there is none.
std::string source_position(mlir::Location loc);

/// Collects MLIR diagnostics as text while alive, so that errors can be
/// thrown after control is back outside MLIR (never across its callbacks).
class DiagnosticCapture {
 public:
  explicit DiagnosticCapture(mlir::MLIRContext& context);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};

}  // namespace adjit::detail

#endif
