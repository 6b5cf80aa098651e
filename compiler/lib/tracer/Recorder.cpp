#include "Recorder.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace adjit::detail {

namespace {
// The live trace that owns operand t of op; throws unless there is one and
// it is `expected` (where given).
TraceContext* owner_of_operand(const char* op, SourceLocation where, const Tensor& t,
                               const TraceContext* expected) {
  TraceContext* owner = TraceContext::owner(t);
  if (!owner)
    throw TraceError(fmt::format("adjit::{}: an operand{} is {}{}", op,
                                 t.trace() ? ", " + describe(t) + "," : "",
                                 TraceContext::why_unusable(t), at(where)));
  if (expected && owner != expected)
    throw TraceError(fmt::format(
        "adjit::{}: operands come from different traces ({} is from another); a Tensor is only "
        "valid inside the traced call that created it{}",
        op, describe(t), at(where)));
  return owner;
}

TraceContext* trace_for(const char* op, SourceLocation where,
                        std::initializer_list<const Tensor*> operands) {
  TraceContext* trace = nullptr;
  for (const Tensor* t : operands)
    if (t) trace = owner_of_operand(op, where, *t, trace);
  if (!trace) trace = TraceContext::current();
  if (!trace)
    throw TraceError(fmt::format(
        "adjit::{} creates a Tensor, which only exists inside a traced function (adjit::jit, "
        "adjit::grad, ...){}",
        op, at(where)));
  return trace;
}
}  // namespace

namespace {
// The line of the composite op being recorded on this thread, if any.
thread_local const SourceLocation* composite_line = nullptr;
}  // namespace

AtUserLine::AtUserLine(SourceLocation where) : where_(where), outermost_(!composite_line) {
  if (outermost_) composite_line = &where_;
}
AtUserLine::~AtUserLine() {
  if (outermost_) composite_line = nullptr;
}

Recorder::Recorder(const char* op, SourceLocation where,
                   std::initializer_list<const Tensor*> operands)
    : op_(op), where_(composite_line ? *composite_line : where),
      trace_(trace_for(op, where_, operands)), location_(trace_->location(where_)) {}

void Recorder::require_operand(const Tensor& t) const { owner_of_operand(op_, where_, t, trace_); }

void Recorder::fail(const std::string& message) const {
  throw TraceError(fmt::format("adjit::{}: {}{}", op_, message, at(where_)));
}

namespace {
// A double as a `bits`-bit integer the way adjit.convert (cast) turns a
// float into one, and JAX's full does: toward zero, saturated, NaN as 0.
int64_t saturated(double value, unsigned bits) {
  if (std::isnan(value)) return 0;
  double limit = std::ldexp(1.0, static_cast<int>(bits) - 1);  // 2^(bits-1)
  if (value >= limit) return static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
  if (value <= -limit) return -static_cast<int64_t>(uint64_t{1} << (bits - 1));
  return static_cast<int64_t>(value);
}
}  // namespace

void Recorder::check_size(DType dtype, const Shape& shape) const {
  if (static_cast<unsigned>(dtype) > static_cast<unsigned>(DType::i64))
    fail(fmt::format("invalid dtype {}: not a value of adjit::DType", static_cast<int>(dtype)));
  int64_t bytes = static_cast<int64_t>(dtype_size(dtype));
  for (int64_t extent : shape) {
    if (extent < 0) fail(fmt::format("negative dimension in {}", shape_string(shape)));
    if (__builtin_mul_overflow(bytes, extent, &bytes))
      fail(fmt::format("a tensor of {} is too large: its size in bytes overflows int64",
                       type_string(dtype, shape)));
  }
}

int64_t Recorder::extent(__int128 exact, size_t dimension) const {
  if (exact > std::numeric_limits<int64_t>::max())
    fail(fmt::format("dimension {} of the result would have more elements than int64 counts",
                     dimension));
  return static_cast<int64_t>(exact);
}

Tensor Recorder::constant(double value, DType dtype, const Shape& shape) {
  mlir::RankedTensorType t = type(dtype, shape);
  mlir::Type element = t.getElementType();
  mlir::Attribute scalar;
  if (mlir::isa<mlir::FloatType>(element))
    scalar = mlir::FloatAttr::get(element, value);
  else if (dtype == DType::i1)
    scalar = mlir::IntegerAttr::get(element, value != 0);
  else
    scalar = mlir::IntegerAttr::get(element, saturated(value, element.getIntOrFloatBitWidth()));
  return emit<mlir::adjit::ConstantOp>(t, mlir::DenseElementsAttr::get(t, scalar));
}

Tensor Recorder::integer_constant(int64_t value, DType dtype, const Shape& shape) {
  mlir::RankedTensorType t = type(dtype, shape);
  auto scalar = mlir::IntegerAttr::get(t.getElementType(), value);
  return emit<mlir::adjit::ConstantOp>(t, mlir::DenseElementsAttr::get(t, scalar));
}

Tensor Recorder::convert(const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return emit<mlir::adjit::ConvertOp>(type(dtype, x.shape()), value(x));
}

Tensor Recorder::broadcast(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  std::vector<int64_t> dims;
  size_t offset = shape.size() - x.shape().size();
  for (size_t i = 0; i < x.shape().size(); ++i) dims.push_back(static_cast<int64_t>(offset + i));
  return emit<mlir::adjit::BroadcastInDimOp>(type(x.dtype(), shape), value(x), dims);
}

Tensor Recorder::reshape(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  return emit<mlir::adjit::ReshapeOp>(type(x.dtype(), shape), value(x));
}

int Recorder::axis(int axis, int rank, const Tensor& operand, const char* what) const {
  if (axis < -rank || axis >= rank)
    fail(fmt::format("{} {} is out of range for rank {} (the operand is {})", what, axis, rank,
                     describe(operand)));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> Recorder::axes(const Axes& axes, const Tensor& operand) const {
  std::vector<int64_t> dims;
  if (axes.empty()) {
    for (int d = 0; d < operand.rank(); ++d) dims.push_back(d);
    return dims;
  }
  for (int a : axes) dims.push_back(axis(a, operand.rank(), operand));
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end())
    fail(fmt::format("axes [{}] repeat an axis of {}", fmt::join(axes, ","), describe(operand)));
  return dims;
}

std::string describe(const Tensor& t) { return type_string(t.dtype(), t.shape()); }

std::string at(SourceLocation where) {
  return fmt::format(" (at {}:{})", where.file_name(), where.line());
}

std::string jitted_at(SourceLocation where) {
  if (where.line() == 0) return "";
  return fmt::format(" (jitted at {}:{})", where.file_name(), where.line());
}

}  // namespace adjit::detail
