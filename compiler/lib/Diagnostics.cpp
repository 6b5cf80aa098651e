#include "Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

namespace adjit::detail {

std::string source_position(mlir::Location loc) {
  std::string text;
  loc->walk([&](mlir::Location inner) {
    if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(inner)) {
      text = fmt::format("{}:{}:{}", file.getFilename().str(), file.getLine(), file.getColumn());
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return text;
}

namespace {
std::string position(mlir::Location loc) {
  std::string text = source_position(loc);
  return text.empty() ? "<unknown location>" : text;
}
}  // namespace

DiagnosticCapture::DiagnosticCapture(mlir::MLIRContext& context)
    : handler_(&context, [this](mlir::Diagnostic& diagnostic) {
        llvm::raw_string_ostream os(text_);
        os << position(diagnostic.getLocation()) << ": ";
        switch (diagnostic.getSeverity()) {
          case mlir::DiagnosticSeverity::Error: os << "error: "; break;
          case mlir::DiagnosticSeverity::Warning: os << "warning: "; break;
          case mlir::DiagnosticSeverity::Note: os << "note: "; break;
          case mlir::DiagnosticSeverity::Remark: os << "remark: "; break;
        }
        os << diagnostic << "\n";
        for (mlir::Diagnostic& note : diagnostic.getNotes())
          os << "  " << position(note.getLocation()) << ": note: " << note << "\n";
        return mlir::success();
      }) {}

}  // namespace adjit::detail
