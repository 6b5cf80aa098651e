#include "TraceContext.h"

#include "../Diagnostics.h"

#include "mlir/IR/Verifier.h"

namespace adjit::detail {

namespace {
thread_local TraceContext* innermost_trace = nullptr;
}

TraceContext::TraceContext(std::string function_name)
    : program_(std::make_unique<Program::Impl>()),
      builder_(&program_->context),
      enclosing_(innermost_trace) {
  mlir::MLIRContext& ctx = program_->context;
  program_->module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  builder_.setInsertionPointToEnd(program_->module->getBody());
  function_ = builder_.create<mlir::func::FuncOp>(mlir::UnknownLoc::get(&ctx), function_name,
                                                  builder_.getFunctionType({}, {}));
  builder_.setInsertionPointToStart(function_.addEntryBlock());
  innermost_trace = this;
}

TraceContext::~TraceContext() { innermost_trace = enclosing_; }

TraceContext* TraceContext::current() { return innermost_trace; }

mlir::Location TraceContext::location(const SourceLocation& where) {
  return mlir::FileLineColLoc::get(&program_->context, where.file_name(), where.line(),
                                   where.column());
}

mlir::Type TraceContext::element_type(DType dtype) {
  mlir::MLIRContext* ctx = &program_->context;
  switch (dtype) {
    case DType::f16: return mlir::Float16Type::get(ctx);
    case DType::bf16: return mlir::BFloat16Type::get(ctx);
    case DType::f32: return mlir::Float32Type::get(ctx);
    case DType::f64: return mlir::Float64Type::get(ctx);
    case DType::i1: return mlir::IntegerType::get(ctx, 1);
    case DType::i32: return mlir::IntegerType::get(ctx, 32);
    case DType::i64: return mlir::IntegerType::get(ctx, 64);
  }
  throw_invalid_dtype(dtype);
}

mlir::RankedTensorType TraceContext::tensor_type(DType dtype, const Shape& shape) {
  return mlir::RankedTensorType::get(shape, element_type(dtype));
}

DType dtype_of(mlir::Type type) {
  if (type.isF16()) return DType::f16;
  if (type.isBF16()) return DType::bf16;
  if (type.isF32()) return DType::f32;
  if (type.isF64()) return DType::f64;
  if (type.isSignlessInteger(1)) return DType::i1;
  if (type.isSignlessInteger(32)) return DType::i32;
  return DType::i64;
}

Tensor TraceContext::wrap(mlir::Value value) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  return Tensor(this, value.getAsOpaquePointer(), dtype_of(type.getElementType()),
                Shape(type.getShape().begin(), type.getShape().end()));
}

Tensor TraceContext::add_parameter(DType dtype, const Shape& shape) {
  mlir::Block& entry = function_.getBody().front();
  return wrap(entry.addArgument(tensor_type(dtype, shape), function_.getLoc()));
}

Program TraceContext::finish(const std::vector<Tensor>& results) {
  std::vector<mlir::Value> values;
  for (const Tensor& result : results) {
    if (result.trace() != this)
      throw TraceError(
          "a traced function returned a Tensor that does not belong to its trace "
          "(a Tensor from another trace, or a default-constructed one)");
    values.push_back(unwrap(result));
  }
  builder_.create<mlir::func::ReturnOp>(function_.getLoc(), values);
  mlir::Block& entry = function_.getBody().front();
  function_.setFunctionType(
      builder_.getFunctionType(entry.getArgumentTypes(), mlir::ValueRange(values).getTypes()));
  {
    DiagnosticCapture diagnostics(program_->context);
    if (mlir::failed(mlir::verify(*program_->module)))
      throw CompileError("the traced function is invalid IR (a tracer bug):\n" +
                         diagnostics.text());
  }
  program_->signatures = signatures_of(*program_->module);
  return Program(std::move(program_));
}

}  // namespace adjit::detail
