#include "Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

namespace adjit::detail {

DiagnosticCapture::DiagnosticCapture(mlir::MLIRContext& context)
    : handler_(&context, [this](mlir::Diagnostic& diagnostic) {
        llvm::raw_string_ostream os(text_);
        os << diagnostic.getLocation() << ": ";
        switch (diagnostic.getSeverity()) {
          case mlir::DiagnosticSeverity::Error: os << "error: "; break;
          case mlir::DiagnosticSeverity::Warning: os << "warning: "; break;
          case mlir::DiagnosticSeverity::Note: os << "note: "; break;
          case mlir::DiagnosticSeverity::Remark: os << "remark: "; break;
        }
        os << diagnostic << "\n";
        for (mlir::Diagnostic& note : diagnostic.getNotes())
          os << "  " << note.getLocation() << ": note: " << note << "\n";
        return mlir::success();
      }) {}

}  // namespace adjit::detail
