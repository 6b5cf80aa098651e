#ifndef ADJIT_COMPILER_TRACER_RECORDER_H
#define ADJIT_COMPILER_TRACER_RECORDER_H

#include "TraceContext.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace adjit::detail {

/// Records one user-level op (which may expand to several adjit ops) at the
/// user's source line, and formats its errors.
class Recorder {
 public:
  /// The trace comes from the tensor operands (which must all share one), or
  /// is the current trace when there are none.
  Recorder(const char* op, SourceLocation where, std::initializer_list<const Tensor*> operands);

  [[noreturn]] void fail(const std::string& message) const;
  /// Fails unless `t` is a live Tensor of this trace (an operand beyond the
  /// constructor's).
  void require_operand(const Tensor& t) const;

  TraceContext& trace() { return *trace_; }
  mlir::OpBuilder& builder() { return trace_->builder(); }
  mlir::Location location() { return location_; }
  mlir::Value value(const Tensor& t) const { return trace_->value(t); }

  template <class OpTy, class... Args>
  Tensor emit(Args&&... args) {
    auto op = builder().create<OpTy>(location_, std::forward<Args>(args)...);
    return trace_->wrap(op->getResult(0));
  }

  /// The type of a result; fails unless its size in bytes fits int64.
  mlir::RankedTensorType type(DType dtype, const Shape& shape) {
    check_size(dtype, shape);
    return trace_->tensor_type(dtype, shape);
  }
  void check_size(DType dtype, const Shape& shape) const;
  /// A dimension's size computed exactly (a padded, tiled, repeated or
  /// concatenated one); fails unless it fits int64.
  int64_t extent(__int128 exact, size_t dimension) const;

  Tensor constant(double value, DType dtype, const Shape& shape);
  /// `value` exactly, in an integer dtype (i32 or i64) it fits.
  Tensor integer_constant(int64_t value, DType dtype, const Shape& shape);
  Tensor convert(const Tensor& x, DType dtype);
  /// numpy broadcasting of `x` to `shape` (already known to be compatible).
  Tensor broadcast(const Tensor& x, const Shape& shape);
  Tensor reshape(const Tensor& x, const Shape& shape);

  /// Normalizes a possibly negative axis of a rank-`rank` tensor made from
  /// `operand`, which errors name (`rank` may exceed its own: a new axis).
  int axis(int axis, int rank, const Tensor& operand, const char* what = "axis") const;
  /// `axes` of `operand` normalized, sorted and checked not to repeat;
  /// empty means every axis.
  std::vector<int64_t> axes(const Axes& axes, const Tensor& operand) const;

 private:
  const char* op_;
  SourceLocation where_;
  TraceContext* trace_;
  mlir::Location location_;
};

/// While alive, every op recorded on this thread is placed at `where`: the
/// user's line of a composite op (gelu, softmax, ...) built from other ops
/// and operators, which would otherwise record lines of adjit's own source.
/// The outermost one wins. Never alive while user code runs.
class AtUserLine {
 public:
  explicit AtUserLine(SourceLocation where);
  ~AtUserLine();
  AtUserLine(const AtUserLine&) = delete;
  AtUserLine& operator=(const AtUserLine&) = delete;

 private:
  SourceLocation where_;
  bool outermost_;
};

/// "f32[2,3]"
std::string describe(const Tensor& t);

/// " (at file:line)": how every tracer error names the user's line.
std::string at(SourceLocation where);
/// " (jitted at file:line)": how errors name the line that made a jitted
/// function; empty without a line.
std::string jitted_at(SourceLocation where);

}  // namespace adjit::detail

#endif
