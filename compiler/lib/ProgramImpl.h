#ifndef ADJIT_COMPILER_PROGRAMIMPL_H
#define ADJIT_COMPILER_PROGRAMIMPL_H

#include "adjit/compiler/Program.h"

#include "adjit/Dialect/AdjitDialect.h"
#include "adjit/Passes/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace adjit {

// Shared by the parser and the tracer, which both build a Program's module.
struct Program::Impl {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  CompileOptions options;
  std::vector<Signature> signatures;

  Impl() : context(registry(), mlir::MLIRContext::Threading::DISABLED) {
    // Only what the parser and the tracer build directly; each pass loads the
    // dialects it creates, so a program pays for the dialects its stages use.
    context.loadDialect<mlir::adjit::AdjitDialect, mlir::func::FuncDialect,
                        mlir::arith::ArithDialect>();
  }

  static const mlir::DialectRegistry& registry() {
    static const mlir::DialectRegistry registry = [] {
      mlir::DialectRegistry r;
      mlir::adjit::registerPipelineDialects(r);
      return r;
    }();
    return registry;
  }
};

namespace detail {
// What the library's other back ends (ahead-of-time) need of a Program.
struct ProgramInternals {
  static Program::Impl& impl(const Program& program) { return program.impl(); }
  /// A clone of the program's module lowered to `stage` with `options`.
  static mlir::OwningOpRef<mlir::ModuleOp> lower(const Program& program,
                                                 const CompileOptions& options,
                                                 mlir::adjit::Stage stage);
  /// Program::dump with other options.
  static void dump(const Program& program, const CompileOptions& options,
                   const std::string& dir, const std::string& prefix = "");
};
}  // namespace detail

/// The DType of an MLIR element type, if it is one of ours.
std::optional<DType> dtype_of(mlir::Type element_type);
/// The MLIR element type of a DType (the inverse of dtype_of).
mlir::Type element_type_of(mlir::MLIRContext& context, DType dtype);

/// Entry signatures of the public functions; throws CompileError for
/// parameters or results that are not static-shape tensors of our dtypes.
std::vector<Signature> signatures_of(mlir::ModuleOp module);

}  // namespace adjit

#endif
