#include "TraceContext.h"

#include "../Diagnostics.h"
#include "Recorder.h"

#include "mlir/IR/Verifier.h"

#include <atomic>

#include <fmt/format.h>

namespace adjit::detail {

namespace {
thread_local TraceContext* innermost_trace = nullptr;
std::atomic<uint64_t> trace_serials{0};
}  // namespace

TraceContext::TraceContext(std::string function_name, SourceLocation jitted_at)
    : program_(std::make_unique<Program::Impl>()),
      builder_(&program_->context),
      enclosing_(innermost_trace) {
  mlir::MLIRContext& ctx = program_->context;
  program_->module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  builder_.setInsertionPointToEnd(program_->module->getBody());
  // The function, and so its parameters, are where the user jitted it.
  mlir::Location where =
      jitted_at.line() == 0
          ? mlir::Location(mlir::UnknownLoc::get(&ctx))
          : mlir::FileLineColLoc::get(&ctx, jitted_at.file_name(), jitted_at.line(),
                                      jitted_at.column());
  auto function =
      builder_.create<mlir::func::FuncOp>(where, function_name, builder_.getFunctionType({}, {}));
  builder_.setInsertionPointToStart(function.addEntryBlock());
  frames_.push_back(
      Frame{function, {}, ++trace_serials,
            fmt::format("the traced function '{}'{}", function_name, detail::jitted_at(jitted_at))});
  innermost_trace = this;
}

TraceContext::~TraceContext() { innermost_trace = enclosing_; }

TraceContext* TraceContext::current() { return innermost_trace; }

TraceContext* TraceContext::owner(const Tensor& tensor) {
  for (TraceContext* t = innermost_trace; t; t = t->enclosing_)
    if (t == tensor.trace() && t->is_live(tensor.trace_serial())) return t;
  return nullptr;
}

// Serials are unique across traces, so a Tensor of an ended trace whose
// TraceContext's address was reused matches no frame of the new one.
bool TraceContext::is_live(uint64_t frame_serial) const {
  for (const Frame& frame : frames_)
    if (frame.serial == frame_serial) return true;
  return false;
}

bool TraceContext::running(const TraceContext* trace, uint64_t frame_serial) {
  for (TraceContext* t = innermost_trace; t; t = t->enclosing_)
    if (t == trace) return t->is_live(frame_serial);
  return false;
}

std::string TraceContext::why_unusable(const Tensor& tensor, const TraceContext* user) {
  if (!tensor.trace()) return "a default-constructed Tensor that belongs to no trace";
  if (TraceContext* live = owner(tensor); live && live != user)
    return "a Tensor of another trace running now (a Tensor is used only in the trace that "
           "made it)";
  for (TraceContext* t = innermost_trace; t; t = t->enclosing_) {
    if (t != tensor.trace()) continue;
    if (auto ended = t->ended_frames_.find(tensor.trace_serial()); ended != t->ended_frames_.end())
      return fmt::format(
          "a Tensor computed inside {}, used after that function returned: a value leaves "
          "such a function only as one of its results (JAX's UnexpectedTracerError)",
          ended->second);
  }
  return "a Tensor kept after its trace ended (or made by a trace running on another thread); "
         "a Tensor is only valid inside the traced call that made it";
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


uint64_t TraceContext::frame_serial_of(mlir::Value value) const {
  mlir::Operation* function = value.getParentRegion()->getParentOp();
  for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame)
    if (mlir::func::FuncOp(frame->function).getOperation() == function) return frame->serial;
  return frames_.back().serial;
}

Tensor TraceContext::wrap(mlir::Value value) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  return Tensor(this, frame_serial_of(value), value.getAsOpaquePointer(),
                *dtype_of(type.getElementType()),
                Shape(type.getShape().begin(), type.getShape().end()));
}

Tensor TraceContext::add_parameter(DType dtype, const Shape& shape) {
  mlir::func::FuncOp function = frames_.back().function;
  return wrap(function.front().addArgument(tensor_type(dtype, shape), function.getLoc()));
}

mlir::Value TraceContext::value(const Tensor& tensor) {
  if (owner(tensor) != this)
    throw TraceError("a Tensor that cannot be used here: " + why_unusable(tensor, this));
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

namespace {
// What a subfunction of `kind` is, in the user's words.
std::string traced_for(const std::string& kind) {
  if (kind == "while_cond") return "the condition function of adjit::while_loop";
  if (kind == "while_body") return "the body of adjit::while_loop";
  if (kind == "custom_fwd") return "the forward function of adjit::custom_gradient";
  if (kind == "custom_bwd") return "the backward function of adjit::custom_gradient";
  return "the function traced for adjit::" + kind;
}
}  // namespace

void TraceContext::begin_subfunction(const std::string& kind, SourceLocation where) {
  mlir::OpBuilder::InsertPoint resume = builder_.saveInsertionPoint();
  builder_.setInsertionPointToEnd(program_->module->getBody());
  std::string name = next_function_name(kind);
  auto function = builder_.create<mlir::func::FuncOp>(
      frames_.back().function.getLoc(), name, builder_.getFunctionType({}, {}));
  function.setPrivate();
  builder_.setInsertionPointToStart(function.addEntryBlock());
  frames_.push_back(Frame{function, resume, ++trace_serials,
                          traced_for(kind) + at(where)});
}

std::string TraceContext::function_of(mlir::BlockArgument parameter) const {
  for (const Frame& frame : frames_) {
    mlir::func::FuncOp function = frame.function;
    if (parameter.getOwner()->getParentOp() == function.getOperation()) return frame.origin;
  }
  return "a function traced here";
}

TraceContext::Frame TraceContext::pop_frame() {
  Frame frame = std::move(frames_.back());
  frames_.pop_back();
  ended_frames_[frame.serial] = frame.origin;
  return frame;
}

// A result that is not a Tensor of this trace is named by its position,
// with the function it was meant to leave (the user's line, for a
// subfunction).
static std::vector<mlir::Value> result_values(TraceContext& trace, const std::string& function,
                                              const std::vector<Tensor>& results) {
  std::vector<mlir::Value> values;
  for (size_t i = 0; i < results.size(); ++i) {
    if (TraceContext::owner(results[i]) != &trace)
      throw TraceError(fmt::format("result {} of {} is {}", i, function,
                                   TraceContext::why_unusable(results[i], &trace)));
    values.push_back(trace.value(results[i]));
  }
  return values;
}

TraceContext::SubFunction TraceContext::end_subfunction(const std::vector<Tensor>& results) {
  std::vector<mlir::Value> values = result_values(*this, frames_.back().origin, results);
  Frame frame = pop_frame();
  end_function(frame.function, values);
  builder_.restoreInsertionPoint(frame.resume);
  return SubFunction{frame.function, std::move(frame.captures)};
}

void TraceContext::abandon_subfunction() {
  Frame frame = pop_frame();
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
  std::vector<mlir::Value> values = result_values(*this, frames_.front().origin, results);
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
