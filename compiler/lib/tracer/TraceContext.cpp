#include "TraceContext.h"

#include "../Diagnostics.h"

#include "mlir/IR/Verifier.h"

#include <atomic>

#include <fmt/format.h>

namespace adjit::detail {

namespace {
thread_local TraceContext* innermost_trace = nullptr;
std::atomic<uint64_t> trace_serials{0};
}  // namespace

TraceContext::TraceContext(std::string function_name)
    : program_(std::make_unique<Program::Impl>()),
      builder_(&program_->context),
      serial_(++trace_serials),
      enclosing_(innermost_trace) {
  mlir::MLIRContext& ctx = program_->context;
  program_->module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  builder_.setInsertionPointToEnd(program_->module->getBody());
  auto function = builder_.create<mlir::func::FuncOp>(
      mlir::UnknownLoc::get(&ctx), function_name, builder_.getFunctionType({}, {}));
  builder_.setInsertionPointToStart(function.addEntryBlock());
  frames_.push_back(Frame{function, {}});
  innermost_trace = this;
}

TraceContext::~TraceContext() { innermost_trace = enclosing_; }

TraceContext* TraceContext::current() { return innermost_trace; }

TraceContext* TraceContext::owner(const Tensor& tensor) {
  for (TraceContext* t = innermost_trace; t; t = t->enclosing_)
    if (t == tensor.trace() && t->serial_ == tensor.trace_serial()) return t;
  return nullptr;
}

mlir::Location TraceContext::location(const SourceLocation& where) {
  return mlir::FileLineColLoc::get(&program_->context, where.file_name(), where.line(),
                                   where.column());
}

mlir::Type TraceContext::element_type(DType dtype) {
  return element_type_of(program_->context, dtype);
}

mlir::RankedTensorType TraceContext::tensor_type(DType dtype, const Shape& shape) {
  return mlir::RankedTensorType::get(shape, element_type(dtype));
}


Tensor TraceContext::wrap(mlir::Value value) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  return Tensor(this, serial_, value.getAsOpaquePointer(), *dtype_of(type.getElementType()),
                Shape(type.getShape().begin(), type.getShape().end()));
}

Tensor TraceContext::add_parameter(DType dtype, const Shape& shape) {
  mlir::func::FuncOp function = frames_.back().function;
  return wrap(function.front().addArgument(tensor_type(dtype, shape), function.getLoc()));
}

mlir::Value TraceContext::value(const Tensor& tensor) {
  if (owner(tensor) != this)
    throw TraceError(
        "a Tensor from another trace (or a default-constructed one) was used; a Tensor is "
        "only valid inside the traced call that created it");
  return value_in(frames_.size() - 1, mlir::Value::getFromOpaquePointer(tensor.value()));
}

// Values flow into nested functions as extra arguments, through every
// frame between their definition and their use.
mlir::Value TraceContext::value_in(size_t frame, mlir::Value v) {
  Frame& f = frames_[frame];
  if (v.getParentRegion()->getParentOp() == f.function.getOperation()) return v;
  if (frame == 0)
    throw TraceError("a Tensor escaped the function that computed it (a tracer bug)");
  if (auto it = f.captured.find(v); it != f.captured.end()) return it->second;
  mlir::Value outer = value_in(frame - 1, v);
  mlir::Value argument = f.function.front().addArgument(v.getType(), f.function.getLoc());
  f.captured[v] = argument;
  f.captures.push_back(outer);
  return argument;
}

std::string TraceContext::next_function_name(const std::string& kind) {
  return fmt::format("{}_{}_{}", frames_.front().function.getSymName().str(), kind,
                     subfunction_count_++);
}

void TraceContext::begin_subfunction(const std::string& kind) {
  mlir::OpBuilder::InsertPoint resume = builder_.saveInsertionPoint();
  builder_.setInsertionPointToEnd(program_->module->getBody());
  std::string name = next_function_name(kind);
  auto function = builder_.create<mlir::func::FuncOp>(
      frames_.back().function.getLoc(), name, builder_.getFunctionType({}, {}));
  function.setPrivate();
  builder_.setInsertionPointToStart(function.addEntryBlock());
  frames_.push_back(Frame{function, resume});
}

TraceContext::SubFunction TraceContext::end_subfunction(const std::vector<Tensor>& results) {
  std::vector<mlir::Value> values;
  for (const Tensor& result : results) values.push_back(value(result));
  Frame frame = std::move(frames_.back());
  frames_.pop_back();
  end_function(frame.function, values);
  builder_.restoreInsertionPoint(frame.resume);
  return SubFunction{frame.function, std::move(frame.captures)};
}

void TraceContext::abandon_subfunction() {
  Frame frame = std::move(frames_.back());
  frames_.pop_back();
  frame.function.erase();
  builder_.restoreInsertionPoint(frame.resume);
}

void TraceContext::end_function(mlir::func::FuncOp function,
                                const std::vector<mlir::Value>& results) {
  builder_.setInsertionPointToEnd(&function.front());
  builder_.create<mlir::func::ReturnOp>(function.getLoc(), results);
  function.setFunctionType(builder_.getFunctionType(function.front().getArgumentTypes(),
                                                    mlir::ValueRange(results).getTypes()));
}

Program TraceContext::finish(const std::vector<Tensor>& results) {
  std::vector<mlir::Value> values;
  for (const Tensor& result : results) values.push_back(value(result));
  end_function(frames_.front().function, values);
  {
    DiagnosticCapture diagnostics(program_->context);
    if (mlir::failed(mlir::verify(*program_->module)))
      throw CompileError(
          fmt::format("the traced function is invalid IR (a tracer bug):\n{}", diagnostics.text()));
  }
  program_->signatures = signatures_of(*program_->module);
  return Program(std::move(program_));
}

}  // namespace adjit::detail
