#ifndef ADJIT_COMPILER_TRACER_TRACECONTEXT_H
#define ADJIT_COMPILER_TRACER_TRACECONTEXT_H

#include "../ProgramImpl.h"

#include "adjit/Tensor.h"

#include "adjit/Dialect/AdjitOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <memory>
#include <string>
#include <string_view>

namespace adjit::detail {

/// The function being recorded while a lambda runs on Tensors. Traces nest
/// per thread (a trace started inside another is innermost until it ends).
class TraceContext {
 public:
  explicit TraceContext(std::string function_name);
  ~TraceContext();
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  /// The innermost trace of this thread, or null.
  static TraceContext* current();

  Tensor add_parameter(DType dtype, const Shape& shape);
  /// Ends the function with `results` and hands the module to a Program.
  Program finish(const std::vector<Tensor>& results);

  mlir::OpBuilder& builder() { return builder_; }
  mlir::MLIRContext& context() { return program_->context; }
  mlir::Location location(const SourceLocation& where);
  mlir::Type element_type(DType dtype);
  mlir::RankedTensorType tensor_type(DType dtype, const Shape& shape);

  Tensor wrap(mlir::Value value);
  static mlir::Value unwrap(const Tensor& tensor) {
    return mlir::Value::getFromOpaquePointer(tensor.value());
  }

 private:
  std::unique_ptr<Program::Impl> program_;
  mlir::OpBuilder builder_;
  mlir::func::FuncOp function_;
  TraceContext* enclosing_;
};

DType dtype_of(mlir::Type element_type);

}  // namespace adjit::detail

#endif
