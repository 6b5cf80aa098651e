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
  /// `jitted_at`: the user's line that made the jitted function, the
  /// function's location (none: line 0).
  explicit TraceContext(std::string function_name, SourceLocation jitted_at = {});
  ~TraceContext();
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  /// The innermost trace of this thread, or null.
  static TraceContext* current();
  /// The live trace of this thread that `tensor` belongs to, or null (a
  /// default-constructed Tensor, one kept after its trace ended, or one
  /// computed in a function traced for cond, grad... after that returned).
  static TraceContext* owner(const Tensor& tensor);
  /// Why `tensor` cannot be used by `user` (or, with none, by any live
  /// trace): words that complete "an operand is ...".
  static std::string why_unusable(const Tensor& tensor, const TraceContext* user = nullptr);
  /// Whether `trace` runs on this thread with the frame `frame_serial`
  /// (current_frame() when something was made there) still open.
  static bool running(const TraceContext* trace, uint64_t frame_serial);
  uint64_t current_frame() const { return frames_.back().serial; }
  /// What `parameter`, an argument of a function this trace records, is a
  /// parameter of, in the user's words ("the traced function (jitted at
  /// f.cpp:3)", "the body of adjit::while_loop (at f.cpp:5)").
  std::string function_of(mlir::BlockArgument parameter) const;

  Tensor add_parameter(DType dtype, const Shape& shape);
  /// Ends the function with `results` and hands the module to a Program.
  Program finish(const std::vector<Tensor>& results);

  /// A private function traced inside this trace (for grad, vjp, tapes...).
  struct SubFunction {
    mlir::func::FuncOp function;
    /// Values of the enclosing function that the body used: they follow the
    /// declared parameters as extra arguments, in this order.
    std::vector<mlir::Value> captures;
  };
  /// Starts a private function named after `kind` (traced for adjit::kind
  /// at `where`); ops go there until end_subfunction. Parameters come from
  /// add_parameter.
  void begin_subfunction(const std::string& kind, SourceLocation where);
  SubFunction end_subfunction(const std::vector<Tensor>& results);
  /// Drops the function being traced after an error in its body.
  void abandon_subfunction();

  /// The value of `tensor` usable in the function being traced now: a value
  /// of an enclosing function is captured as an extra argument.
  mlir::Value value(const Tensor& tensor);
  mlir::Block& current_block() { return *builder_.getInsertionBlock(); }
  /// "<traced function>_<kind>_<n>", unique in the module.
  std::string next_function_name(const std::string& kind);
  mlir::ModuleOp module() { return *program_->module; }

  mlir::OpBuilder& builder() { return builder_; }
  mlir::MLIRContext& context() { return program_->context; }
  mlir::Location location(const SourceLocation& where);
  mlir::Type element_type(DType dtype);
  mlir::RankedTensorType tensor_type(DType dtype, const Shape& shape);

  Tensor wrap(mlir::Value value);

 private:
  struct Frame {
    mlir::func::FuncOp function;
    mlir::OpBuilder::InsertPoint resume;  // where the enclosing frame continues
    uint64_t serial;                      // carried by the Tensors computed here
    std::string origin;                   // "the function traced for adjit::grad (at f.cpp:3)"
    llvm::DenseMap<mlir::Value, mlir::Value> captured{};  // outer value -> argument
    std::vector<mlir::Value> captures{};                  // outer values, in order
  };
  mlir::Value value_in(size_t frame, mlir::Value v);
  bool is_live(uint64_t frame_serial) const;
  uint64_t frame_serial_of(mlir::Value value) const;
  Frame pop_frame();
  void end_function(mlir::func::FuncOp function, const std::vector<mlir::Value>& results);

  std::unique_ptr<Program::Impl> program_;
  mlir::OpBuilder builder_;
  std::vector<Frame> frames_;  // frames_[0] is the traced function itself
  int subfunction_count_ = 0;
  // Frames that returned (or were abandoned), by serial: their Tensors
  // are no longer usable, and errors say where they came from.
  llvm::DenseMap<uint64_t, std::string> ended_frames_;
  TraceContext* enclosing_;
};

}  // namespace adjit::detail

#endif
