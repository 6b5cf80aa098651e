// The traced ops of DESIGN.md §5: numpy broadcasting and type promotion in
// front of the strict adjit ops. One function per user-level op.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace adjit {

using detail::describe;
using detail::Recorder;
namespace ir = mlir::adjit;

Tensor::operator bool() const {
  // The user's line is where the condition was computed (an if has no
  // location of its own to report).
  std::string where;
  if (detail::TraceContext* trace = detail::TraceContext::owner(*this)) {
    // The value where it was made, not the argument that carries it into
    // a nested function (a loop's body).
    mlir::Value value = mlir::Value::getFromOpaquePointer(this->value());
    if (auto parameter = mlir::dyn_cast<mlir::BlockArgument>(value))
      where = fmt::format(" (the condition {} is a parameter of {})", describe(*this),
                          trace->function_of(parameter));
    else if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(value.getLoc()))
      where = fmt::format(" (the condition {} was computed at {}:{})", describe(*this),
                          file.getFilename().str(), file.getLine());
  }
  throw TraceError(
      "use adjit::cond / where: a traced adjit::Tensor has no value while tracing, so it cannot "
      "be used as a C++ condition (if, ?:, &&, ||): adjit::where(cond, a, b) chooses "
      "elementwise, adjit::cond(pred, then_fn, else_fn, operands...) runs one of two functions, "
      "and adjit::while_loop / fori_loop / scan make loops; "
      "shapes and dtypes are known while tracing, as t.shape() and t.dtype()" + where);
}

namespace {

// A weak number as a constant of `dtype`. An integer becomes an integer
// tensor exactly, and only if it fits, as JAX raises OverflowError rather
// than wrap 3000000000 into an i32.
Tensor number_constant(Recorder& r, const Operand& o, DType dtype, const Shape& shape) {
  if (!o.is_integer || (dtype != DType::i32 && dtype != DType::i64))
    return r.constant(o.number, dtype, shape);
  if (o.beyond_int64)
    r.fail(fmt::format("the integer {} does not fit the operand's dtype {}",
                       static_cast<uint64_t>(o.integer), dtype_name(dtype)));
  if (dtype == DType::i32 && (o.integer < std::numeric_limits<int32_t>::min() ||
                              o.integer > std::numeric_limits<int32_t>::max()))
    r.fail(fmt::format("the integer {} does not fit the operand's dtype i32", o.integer));
  return r.integer_constant(o.integer, dtype, shape);
}

// Two operands (tensors or weak numbers) promoted to one dtype and
// broadcast to one shape.
struct PromotedPair {
  Tensor a, b;
};

// The shape two operands broadcast to (a number takes the other's); at
// least one is a Tensor.
Shape broadcast_shape(Recorder& r, const Operand& a, const Operand& b) {
  if (!a.tensor && !b.tensor) r.fail("needs at least one Tensor operand");
  if (!a.tensor || !b.tensor) return (a.tensor ? a.tensor : b.tensor)->shape();
  auto common = detail::broadcast_shapes(a.tensor->shape(), b.tensor->shape());
  if (!common)
    r.fail(fmt::format("shapes {} and {} cannot be broadcast together", describe(*a.tensor),
                       describe(*b.tensor)));
  return *common;
}

detail::NumberKind kind_of(const Operand& number) {
  return number.is_bool      ? detail::NumberKind::boolean
         : number.is_integer ? detail::NumberKind::integer
                             : detail::NumberKind::floating;
}

PromotedPair promote_and_broadcast(Recorder& r, const Operand& a, const Operand& b) {
  Shape shape = broadcast_shape(r, a, b);
  DType dtype;
  if (a.tensor && b.tensor) dtype = detail::promote(a.tensor->dtype(), b.tensor->dtype());
  else if (a.tensor) dtype = detail::promote_with_scalar(a.tensor->dtype(), kind_of(b));
  else dtype = detail::promote_with_scalar(b.tensor->dtype(), kind_of(a));
  auto materialize = [&](const Operand& o) {
    if (!o.tensor) return number_constant(r, o, dtype, shape);
    return r.broadcast(r.convert(*o.tensor, dtype), shape);
  };
  return {materialize(a), materialize(b)};
}

const Tensor* tensor_of(const Operand& o) { return o.tensor; }

// x as a bool tensor: itself, or numpy's truth, x != 0 (NaN is true).
Tensor truth(Recorder& r, const Tensor& x) {
  if (x.dtype() == DType::i1) return x;
  Tensor zero = r.constant(0, x.dtype(), x.shape());
  return r.emit<ir::CompareOp>(ir::ComparisonDirection::ne, r.value(x), r.value(zero));
}

template <class OpTy>
Tensor arithmetic(const char* name, const Operand& a, const Operand& b, SourceLocation loc) {
  Recorder r(name, loc, {tensor_of(a), tensor_of(b)});
  PromotedPair x = promote_and_broadcast(r, a, b);
  if (x.a.dtype() == DType::i1) {
    // As numpy and JAX: + and maximum of bools are or, * and minimum and.
    if constexpr (std::is_same_v<OpTy, ir::AddOp> || std::is_same_v<OpTy, ir::MaxOp>)
      return r.emit<ir::OrOp>(r.value(x.a), r.value(x.b));
    else if constexpr (std::is_same_v<OpTy, ir::MulOp> || std::is_same_v<OpTy, ir::MinOp>)
      return r.emit<ir::AndOp>(r.value(x.a), r.value(x.b));
    r.fail(fmt::format("is not defined for bool tensors ({} and {}); cast them first "
                       "(adjit::cast)",
                       describe(x.a), describe(x.b)));
  }
  return r.emit<OpTy>(r.value(x.a), r.value(x.b));
}

Tensor compare(const char* name, ir::ComparisonDirection direction, const Operand& a,
               const Operand& b, SourceLocation loc) {
  Recorder r(name, loc, {tensor_of(a), tensor_of(b)});
  PromotedPair x = promote_and_broadcast(r, a, b);
  bool equality =
      direction == ir::ComparisonDirection::eq || direction == ir::ComparisonDirection::ne;
  if (x.a.dtype() == DType::i1 && !equality)  // false < true, as numpy
    x = {r.convert(x.a, DType::i32), r.convert(x.b, DType::i32)};
  return r.emit<ir::CompareOp>(direction, r.value(x.a), r.value(x.b));
}

// Transcendental ops compute in floating point: integer inputs become f32.
template <class OpTy>
Tensor float_unary(const char* name, const Tensor& x, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  Tensor input = is_floating(x.dtype()) ? x : r.convert(x, DType::f32);
  return r.emit<OpTy>(r.value(input));
}

template <class OpTy>
Tensor numeric_unary(const char* name, const Tensor& x, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  if (x.dtype() == DType::i1) r.fail("is not defined for bool tensors");
  return r.emit<OpTy>(r.value(x));
}

std::string axes_string(const Axes& axes) { return fmt::format("[{}]", fmt::join(axes, ",")); }

// Whether reducing `dims` of `x` combines no elements at all (an empty axis).
bool reduces_nothing(const Tensor& x, const std::vector<int64_t>& dims) {
  return std::any_of(dims.begin(), dims.end(), [&](int64_t d) { return x.shape()[d] == 0; });
}

Shape reduced_shape(const Tensor& x, const std::vector<int64_t>& dims, bool keepdims) {
  Shape shape;
  for (int d = 0; d < x.rank(); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) shape.push_back(x.shape()[d]);
    else if (keepdims) shape.push_back(1);
  }
  return shape;
}

// `ignores_nan`: a float max or min that skips NaN (adjit.reduce's
// ignores_nan), for shifts whose NaN reaches the result another way.
Tensor reduce(const char* name, ir::ReduceKind kind, const Tensor& x, const Axes& axes,
              bool keepdims, SourceLocation loc, bool ignores_nan = false) {
  Recorder r(name, loc, {&x});
  std::vector<int64_t> dims = r.axes(axes, x);
  // Bools reduce as integers: sum counts, max/min are any/all.
  Tensor input = x.dtype() == DType::i1 ? r.convert(x, DType::i32) : x;
  if (kind != ir::ReduceKind::sum) {
    for (int64_t d : dims)
      if (x.shape()[d] == 0)
        r.fail(fmt::format("cannot take the {} of an empty axis {} of {}", name, d, describe(x)));
  }
  Tensor reduced = r.emit<ir::ReduceOp>(r.type(input.dtype(), reduced_shape(x, dims, false)), kind,
                                        r.value(input), dims,
                                        ignores_nan && is_floating(input.dtype()));
  if (x.dtype() == DType::i1 && kind != ir::ReduceKind::sum) reduced = r.convert(reduced, DType::i1);
  return r.reshape(reduced, reduced_shape(x, dims, keepdims));
}

}  // namespace

// Operators ------------------------------------------------------------------

Tensor operator+(Operand a, Operand b) {
  return arithmetic<ir::AddOp>("add", a, b, a.tensor ? a.location : b.location);
}
Tensor operator-(Operand a, Operand b) {
  return arithmetic<ir::SubOp>("subtract", a, b, a.tensor ? a.location : b.location);
}
Tensor operator*(Operand a, Operand b) {
  return arithmetic<ir::MulOp>("multiply", a, b, a.tensor ? a.location : b.location);
}
Tensor operator/(Operand a, Operand b) {
  SourceLocation loc = a.tensor ? a.location : b.location;
  Recorder r("divide", loc, {tensor_of(a), tensor_of(b)});
  PromotedPair x = promote_and_broadcast(r, a, b);
  if (!is_floating(x.a.dtype())) {
    x.a = r.convert(x.a, DType::f32);
    x.b = r.convert(x.b, DType::f32);
  }
  return r.emit<ir::DivOp>(r.value(x.a), r.value(x.b));
}
Tensor operator%(Operand a, Operand b) {
  return remainder(a, b, a.tensor ? a.location : b.location);
}
Tensor operator-(Operand a) {
  if (!a.tensor) throw TraceError("adjit::negative needs a Tensor operand");
  return numeric_unary<ir::NegOp>("negative", *a.tensor, a.location);
}
Tensor operator<(Operand a, Operand b) {
  return compare("less", ir::ComparisonDirection::lt, a, b, a.tensor ? a.location : b.location);
}
Tensor operator<=(Operand a, Operand b) {
  return compare("less_equal", ir::ComparisonDirection::le, a, b,
                 a.tensor ? a.location : b.location);
}
Tensor operator>(Operand a, Operand b) {
  return compare("greater", ir::ComparisonDirection::gt, a, b,
                 a.tensor ? a.location : b.location);
}
Tensor operator>=(Operand a, Operand b) {
  return compare("greater_equal", ir::ComparisonDirection::ge, a, b,
                 a.tensor ? a.location : b.location);
}

// Elementwise ----------------------------------------------------------------

Tensor exp(const Tensor& x, SourceLocation loc) { return float_unary<ir::ExpOp>("exp", x, loc); }
Tensor log(const Tensor& x, SourceLocation loc) { return float_unary<ir::LogOp>("log", x, loc); }
Tensor log1p(const Tensor& x, SourceLocation loc) {
  return float_unary<ir::Log1pOp>("log1p", x, loc);
}
Tensor expm1(const Tensor& x, SourceLocation loc) {
  return float_unary<ir::Expm1Op>("expm1", x, loc);
}
Tensor sqrt(const Tensor& x, SourceLocation loc) {
  return float_unary<ir::SqrtOp>("sqrt", x, loc);
}
Tensor rsqrt(const Tensor& x, SourceLocation loc) {
  return float_unary<ir::RsqrtOp>("rsqrt", x, loc);
}
Tensor sin(const Tensor& x, SourceLocation loc) { return float_unary<ir::SinOp>("sin", x, loc); }
Tensor cos(const Tensor& x, SourceLocation loc) { return float_unary<ir::CosOp>("cos", x, loc); }
Tensor tanh(const Tensor& x, SourceLocation loc) {
  return float_unary<ir::TanhOp>("tanh", x, loc);
}
Tensor sigmoid(const Tensor& x, SourceLocation loc) {
  return float_unary<ir::LogisticOp>("sigmoid", x, loc);
}
Tensor erf(const Tensor& x, SourceLocation loc) { return float_unary<ir::ErfOp>("erf", x, loc); }
namespace {
// Rounding keeps an integer or bool as it is, as jnp.floor, ceil and round
// do.
template <class OpTy>
Tensor rounding(const char* name, const Tensor& x, SourceLocation loc) {
  if (!is_floating(x.dtype())) return x;
  return float_unary<OpTy>(name, x, loc);
}
}  // namespace
Tensor floor(const Tensor& x, SourceLocation loc) { return rounding<ir::FloorOp>("floor", x, loc); }
Tensor ceil(const Tensor& x, SourceLocation loc) { return rounding<ir::CeilOp>("ceil", x, loc); }
Tensor round(const Tensor& x, SourceLocation loc) { return rounding<ir::RoundOp>("round", x, loc); }
#define ADJIT_FLOAT_UNARY(NAME, OP) \
  Tensor NAME(const Tensor& x, SourceLocation loc) { return float_unary<ir::OP>(#NAME, x, loc); }
ADJIT_FLOAT_UNARY(tan, TanOp)
ADJIT_FLOAT_UNARY(asin, AsinOp)
ADJIT_FLOAT_UNARY(acos, AcosOp)
ADJIT_FLOAT_UNARY(atan, AtanOp)
ADJIT_FLOAT_UNARY(sinh, SinhOp)
ADJIT_FLOAT_UNARY(cosh, CoshOp)
ADJIT_FLOAT_UNARY(asinh, AsinhOp)
ADJIT_FLOAT_UNARY(acosh, AcoshOp)
ADJIT_FLOAT_UNARY(atanh, AtanhOp)
ADJIT_FLOAT_UNARY(cbrt, CbrtOp)
#undef ADJIT_FLOAT_UNARY
namespace {
// As jnp.log2 and jnp.log10: ln(x) divided by ln(base).
Tensor log_base(const char* name, const Tensor& x, double ln_base, SourceLocation loc) {
  return arithmetic<ir::DivOp>(name, log(x, loc), ln_base, loc);
}
}  // namespace
Tensor log2(const Tensor& x, SourceLocation loc) {
  return log_base("log2", x, std::numbers::ln2, loc);
}
Tensor log10(const Tensor& x, SourceLocation loc) {
  return log_base("log10", x, std::numbers::ln10, loc);
}
Tensor abs(const Tensor& x, SourceLocation loc) {
  if (x.dtype() == DType::i1) return x;  // as jnp.abs
  return numeric_unary<ir::AbsOp>("abs", x, loc);
}
Tensor sign(const Tensor& x, SourceLocation loc) {
  return numeric_unary<ir::SignOp>("sign", x, loc);
}
Tensor square(const Tensor& x, SourceLocation loc) {
  Recorder r("square", loc, {&x});
  // As jnp.square: a bool counts as the integer 0 or 1, its own square.
  if (x.dtype() == DType::i1) return r.convert(x, DType::i32);
  return r.emit<ir::MulOp>(r.value(x), r.value(x));
}
Tensor relu(const Tensor& x, SourceLocation loc) {
  Recorder r("relu", loc, {&x});
  // As jax.nn.relu: max(x, 0) of a bool is the integer 0 or 1.
  if (x.dtype() == DType::i1) return r.convert(x, DType::i32);
  return r.emit<ir::ReluOp>(r.value(x));
}
Tensor integer_pow(const Tensor& x, int64_t exponent, SourceLocation loc) {
  Recorder r("integer_pow", loc, {&x});
  if (x.dtype() == DType::i1) r.fail("is not defined for bool tensors");
  if (exponent < 0 && !is_floating(x.dtype()))
    r.fail(fmt::format("cannot raise the integer tensor {} to the negative power {}", describe(x),
                       exponent));
  return r.emit<ir::IntegerPowOp>(r.value(x), r.builder().getI64IntegerAttr(exponent));
}
Tensor gelu(const Tensor& x, bool tanh_approx, SourceLocation loc) {
  Recorder r("gelu", loc, {&x});
  Tensor input = is_floating(x.dtype()) ? x : r.convert(x, DType::f32);
  return r.emit<ir::GeluOp>(r.value(input), tanh_approx);
}
Tensor stop_gradient(const Tensor& x, SourceLocation loc) {
  Recorder r("stop_gradient", loc, {&x});
  return r.emit<ir::StopGradientOp>(r.value(x));
}
Tensor logical_not(const Tensor& x, SourceLocation loc) {
  Recorder r("logical_not", loc, {&x});
  return r.emit<ir::NotOp>(r.value(truth(r, x)));
}
Tensor zeros_like(const Tensor& x, SourceLocation loc) {
  Recorder r("zeros_like", loc, {&x});
  return r.constant(0, x.dtype(), x.shape());
}
Tensor ones_like(const Tensor& x, SourceLocation loc) {
  Recorder r("ones_like", loc, {&x});
  return r.constant(1, x.dtype(), x.shape());
}

Tensor pow(Operand a, Operand b, SourceLocation loc) {
  // As numpy and JAX: an integer base has no negative integer powers (a
  // negative exponent in a Tensor is only known at run time, and gives 0).
  if (a.tensor && !b.tensor && b.is_integer && b.integer < 0 && !is_floating(a.tensor->dtype()))
    Recorder("pow", loc, {a.tensor})
        .fail(fmt::format("cannot raise the integer tensor {} to the negative power {}",
                          describe(*a.tensor), b.integer));
  return arithmetic<ir::PowOp>("pow", a, b, loc);
}
Tensor atan2(Operand a, Operand b, SourceLocation loc) {
  Recorder r("atan2", loc, {tensor_of(a), tensor_of(b)});
  PromotedPair x = promote_and_broadcast(r, a, b);
  // As numpy: integers and bools give f32 angles.
  if (!is_floating(x.a.dtype())) x = {r.convert(x.a, DType::f32), r.convert(x.b, DType::f32)};
  return r.emit<ir::Atan2Op>(r.value(x.a), r.value(x.b));
}
Tensor clip(const Tensor& x, Operand lo, Operand hi, SourceLocation loc) {
  return minimum(maximum(x, lo, loc), hi, loc);
}
Tensor maximum(Operand a, Operand b, SourceLocation loc) {
  return arithmetic<ir::MaxOp>("maximum", a, b, loc);
}
Tensor minimum(Operand a, Operand b, SourceLocation loc) {
  return arithmetic<ir::MinOp>("minimum", a, b, loc);
}
Tensor equal(Operand a, Operand b, SourceLocation loc) {
  return compare("equal", ir::ComparisonDirection::eq, a, b, loc);
}
Tensor not_equal(Operand a, Operand b, SourceLocation loc) {
  return compare("not_equal", ir::ComparisonDirection::ne, a, b, loc);
}

namespace {
template <class OpTy>
Tensor logical(const char* name, const Operand& a, const Operand& b, SourceLocation loc) {
  Recorder r(name, loc, {tensor_of(a), tensor_of(b)});
  Shape shape = broadcast_shape(r, a, b);
  // Each operand's truth, as numpy's: nonzero.
  auto truth_of = [&](const Operand& o) {
    if (!o.tensor) return r.constant(o.number != 0, DType::i1, shape);
    return r.broadcast(truth(r, *o.tensor), shape);
  };
  Tensor x = truth_of(a), y = truth_of(b);
  return r.emit<OpTy>(r.value(x), r.value(y));
}
}  // namespace

Tensor logical_and(Operand a, Operand b, SourceLocation loc) {
  return logical<ir::AndOp>("logical_and", a, b, loc);
}
Tensor logical_or(Operand a, Operand b, SourceLocation loc) {
  return logical<ir::OrOp>("logical_or", a, b, loc);
}

Tensor logaddexp(Operand a, Operand b, SourceLocation loc) {
  Recorder r("logaddexp", loc, {tensor_of(a), tensor_of(b)});
  PromotedPair x = promote_and_broadcast(r, a, b);
  if (!is_floating(x.a.dtype())) x = {r.convert(x.a, DType::f32), r.convert(x.b, DType::f32)};
  detail::AtUserLine at_user(loc);
  // The larger plus log1p(exp(-|a - b|)), as JAX's. Where a - b is NaN
  // (a NaN, or infinities of one sign) a + b is the result; the tail then
  // sees 0 instead, so that no NaN reaches the gradient from the branch
  // not taken.
  Tensor delta = x.a - x.b;
  Tensor undefined = isnan(delta, loc);
  Tensor tail = log1p(exp(-abs(where(undefined, 0.0, delta, loc), loc), loc), loc);
  return where(undefined, x.a + x.b, maximum(x.a, x.b, loc) + tail, loc);
}

namespace {
// The operands of a division that keeps integers (bools divide as i32),
// and their truncated remainder. With `by_zero_as_one`, an integer
// divisor of 0 divides by 1 instead (JAX's fmod and remainder: 0, as
// numpy's), and the operands hold that divisor.
struct Division {
  PromotedPair x;
  Tensor truncated_remainder;
};
Division divide(Recorder& r, const Operand& a, const Operand& b, bool by_zero_as_one) {
  PromotedPair x = promote_and_broadcast(r, a, b);
  if (x.a.dtype() == DType::i1) x = {r.convert(x.a, DType::i32), r.convert(x.b, DType::i32)};
  if (by_zero_as_one && !is_floating(x.b.dtype())) {
    Tensor zero = r.constant(0, x.b.dtype(), x.b.shape()), one = r.constant(1, x.b.dtype(), x.b.shape());
    Tensor by_zero = r.emit<ir::CompareOp>(ir::ComparisonDirection::eq, r.value(x.b), r.value(zero));
    x.b = r.emit<ir::SelectOp>(r.value(by_zero), r.value(one), r.value(x.b));
  }
  return {x, r.emit<ir::RemOp>(r.value(x.a), r.value(x.b))};
}
}  // namespace

Tensor fmod(Operand a, Operand b, SourceLocation loc) {
  Recorder r("fmod", loc, {tensor_of(a), tensor_of(b)});
  return divide(r, a, b, /*by_zero_as_one=*/true).truncated_remainder;
}
Tensor remainder(Operand a, Operand b, SourceLocation loc) {
  Recorder r("remainder", loc, {tensor_of(a), tensor_of(b)});
  auto [x, mod] = divide(r, a, b, /*by_zero_as_one=*/true);
  detail::AtUserLine at_user(loc);
  // As JAX: a nonzero remainder whose sign differs from b's moves by b.
  Tensor moves = logical_and(not_equal(mod < 0, x.b < 0, loc), not_equal(mod, 0, loc), loc);
  return where(moves, mod + x.b, mod, loc);
}
Tensor floor_divide(Operand a, Operand b, SourceLocation loc) {
  Recorder r("floor_divide", loc, {tensor_of(a), tensor_of(b)});
  auto [x, mod] = divide(r, a, b, /*by_zero_as_one=*/false);
  detail::AtUserLine at_user(loc);
  if (!is_floating(x.a.dtype())) {
    // The truncated quotient, one less where it was rounded up.
    Tensor quotient = r.emit<ir::DivOp>(r.value(x.a), r.value(x.b));
    Tensor up = logical_and(not_equal(sign(x.a, loc), sign(x.b, loc), loc), not_equal(mod, 0, loc),
                            loc);
    return where(up, quotient - 1, quotient, loc);
  }
  // As JAX (CPython's float_divmod): (a - fmod(a, b)) / b, an integer but
  // for rounding (a / 0 where b is 0), one less where the remainder's sign
  // differs from b's, then rounded.
  Tensor quotient = where(equal(x.b, 0, loc), x.a, x.a - mod, loc) / x.b;
  Tensor up = logical_and(not_equal(mod, 0, loc), not_equal(sign(x.b, loc), sign(mod, loc), loc),
                          loc);
  return round(where(up, quotient - 1, quotient, loc), loc);
}

namespace {
// A bool tensor: whether x's elements are NaN (`kind` 'n'), infinite
// ('i') or finite ('f'). Integers are finite.
Tensor classify(const char* name, char kind, const Tensor& x, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  if (!is_floating(x.dtype())) return r.constant(kind == 'f', DType::i1, x.shape());
  if (kind == 'n')
    return r.emit<ir::CompareOp>(ir::ComparisonDirection::ne, r.value(x), r.value(x));
  Tensor magnitude = r.emit<ir::AbsOp>(r.value(x));
  Tensor infinity = r.constant(std::numeric_limits<double>::infinity(), x.dtype(), x.shape());
  return r.emit<ir::CompareOp>(
      kind == 'i' ? ir::ComparisonDirection::eq : ir::ComparisonDirection::lt,
      r.value(magnitude), r.value(infinity));
}
}  // namespace

Tensor isnan(const Tensor& x, SourceLocation loc) { return classify("isnan", 'n', x, loc); }
Tensor isinf(const Tensor& x, SourceLocation loc) { return classify("isinf", 'i', x, loc); }
Tensor isfinite(const Tensor& x, SourceLocation loc) { return classify("isfinite", 'f', x, loc); }

Tensor isclose(Operand a, Operand b, double rtol, double atol, bool equal_nan,
               SourceLocation loc) {
  Recorder r("isclose", loc, {tensor_of(a), tensor_of(b)});
  if (!(rtol >= 0) || !(atol >= 0))
    r.fail(fmt::format("rtol = {} and atol = {} must not be negative", rtol, atol));
  PromotedPair x = promote_and_broadcast(r, a, b);
  if (!is_floating(x.a.dtype())) {
    if (x.a.dtype() == DType::i1) x = {r.convert(x.a, DType::i32), r.convert(x.b, DType::i32)};
    x = {r.convert(x.a, DType::f64), r.convert(x.b, DType::f64)};  // exact for i32, as numpy's
  }
  detail::AtUserLine at_user(loc);
  Tensor near = abs(x.a - x.b, loc) <= abs(x.b, loc) * rtol + atol;
  // Infinities: close only to themselves (their difference is inf or NaN).
  Tensor infinite = logical_or(isinf(x.a, loc), isinf(x.b, loc), loc);
  Tensor close = where(infinite, adjit::equal(x.a, x.b, loc), near, loc);
  if (equal_nan) close = logical_or(close, logical_and(isnan(x.a, loc), isnan(x.b, loc), loc), loc);
  return close;
}
Tensor allclose(Operand a, Operand b, double rtol, double atol, bool equal_nan,
                SourceLocation loc) {
  detail::AtUserLine at_user(loc);
  return all(isclose(a, b, rtol, atol, equal_nan, loc), {}, false, loc);
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf,
                  std::optional<double> neginf, SourceLocation loc) {
  Recorder r("nan_to_num", loc, {&x});
  if (!is_floating(x.dtype())) return x;
  detail::AtUserLine at_user(loc);
  double largest = x.dtype() == DType::f64   ? std::numeric_limits<double>::max()
                   : x.dtype() == DType::f32 ? std::numeric_limits<float>::max()
                   : x.dtype() == DType::f16 ? 65504.0
                                             : 0x1.fep127;  // bf16
  double infinity = std::numeric_limits<double>::infinity();
  Tensor y = where(isnan(x, loc), nan, x, loc);
  y = where(adjit::equal(x, infinity, loc), posinf.value_or(largest), y, loc);
  return where(adjit::equal(x, -infinity, loc), neginf.value_or(-largest), y, loc);
}

Tensor where(const Tensor& cond, Operand a, Operand b, SourceLocation loc) {
  Recorder r("where", loc, {&cond, tensor_of(a), tensor_of(b)});
  Tensor chosen = truth(r, cond);
  // Two numbers: bool if both are bools, i32 if both are integers (JAX's
  // where(c, 1, 0)), else f32.
  DType numbers = a.is_bool && b.is_bool         ? DType::i1
                  : a.is_integer && b.is_integer ? DType::i32
                                                 : DType::f32;
  PromotedPair x = a.tensor || b.tensor ? promote_and_broadcast(r, a, b)
                                   : PromotedPair{number_constant(r, a, numbers, {}),
                                             number_constant(r, b, numbers, {})};
  auto shape = detail::broadcast_shapes(cond.shape(), x.a.shape());
  if (!shape)
    r.fail(fmt::format("the condition {} and the values {} cannot be broadcast together",
                       describe(cond), describe(x.a)));
  return r.emit<ir::SelectOp>(r.value(r.broadcast(chosen, *shape)),
                              r.value(r.broadcast(x.a, *shape)),
                              r.value(r.broadcast(x.b, *shape)));
}

// Reductions -----------------------------------------------------------------

Tensor sum(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return reduce("sum", ir::ReduceKind::sum, x, axes, keepdims, loc);
}
Tensor max(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return reduce("max", ir::ReduceKind::max, x, axes, keepdims, loc);
}
Tensor min(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return reduce("min", ir::ReduceKind::min, x, axes, keepdims, loc);
}
Tensor prod(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("prod", loc, {&x});
  std::vector<int64_t> dims = r.axes(axes, x);
  Tensor v = x.dtype() == DType::i1 ? r.convert(x, DType::i32) : x;
  Shape result = reduced_shape(x, dims, keepdims);
  if (reduces_nothing(x, dims)) return r.constant(1, v.dtype(), result);
  detail::AtUserLine at_user(loc);
  // The reduced axes first, flattened into rows: each level multiplies
  // the first half of the rows by the second (an odd row count gets a row
  // of ones), whole rows at a time.
  std::vector<int> perm(dims.begin(), dims.end());
  Shape rows_shape{1};
  for (int64_t d : dims) rows_shape[0] *= x.shape()[d];
  for (int d = 0; d < x.rank(); ++d)
    if (!std::binary_search(dims.begin(), dims.end(), int64_t{d}))
      perm.push_back(d), rows_shape.push_back(x.shape()[d]);
  Tensor rows = r.reshape(transpose(v, perm, loc), rows_shape);
  for (int64_t n = rows_shape[0]; n > 1; n = (n + 1) / 2) {
    Shape zeros(rows.rank(), 0), one_more = zeros, starts = zeros, limits = rows.shape();
    if (n % 2) {
      one_more[0] = 1;
      rows = pad(rows, zeros, one_more, 1, {}, loc);
    }
    int64_t half = (n + 1) / 2;
    limits[0] = half;
    Tensor first = slice(rows, starts, limits, {}, loc);
    starts[0] = half;
    limits[0] = 2 * half;
    rows = first * slice(rows, starts, limits, {}, loc);
  }
  return r.reshape(rows, result);
}
Tensor mean(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("mean", loc, {&x});
  detail::AtUserLine at_user(loc);
  std::vector<int64_t> dims = r.axes(axes, x);
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape()[d];
  // f16 and bf16 sum and divide in f32 and round once, as JAX does: in
  // f16 a count from 65520 on is inf, and so is a sum beyond 65504.
  bool narrow = x.dtype() == DType::f16 || x.dtype() == DType::bf16;
  Tensor v = is_floating(x.dtype()) && !narrow ? x : r.convert(x, DType::f32);
  Tensor average = sum(v, axes, keepdims, loc) / static_cast<double>(count);
  return narrow ? r.convert(average, x.dtype()) : average;
}
Tensor argmax(const Tensor& x, int axis, SourceLocation loc) {
  Recorder r("argmax", loc, {&x});
  int a = r.axis(axis, x.rank(), x);
  if (x.shape()[a] == 0) r.fail(fmt::format("argmax of the empty axis {} of {}", a, describe(x)));
  Tensor input = x.dtype() == DType::i1 ? r.convert(x, DType::i32) : x;
  return r.emit<ir::ArgMaxOp>(r.type(DType::i32, reduced_shape(x, {a}, false)), r.value(input),
                              static_cast<int64_t>(a));
}
namespace {
// jnp.var, or its square root (`root`) as jnp.std. f16 and bf16 compute
// in f32 and round once, as mean does.
Tensor variance(const char* name, const Tensor& x, const Axes& axes, bool keepdims, int ddof,
                bool root, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  std::vector<int64_t> dims = r.axes(axes, x);
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape()[d];
  detail::AtUserLine at_user(loc);
  bool narrow = x.dtype() == DType::f16 || x.dtype() == DType::bf16;
  Tensor v = is_floating(x.dtype()) && !narrow ? x : r.convert(x, DType::f32);
  Tensor centered = v - mean(v, axes, true, loc);
  // As numpy: no fewer than 0 degrees of freedom (0 gives inf or NaN).
  double freedom = static_cast<double>(std::max<int64_t>(count - ddof, 0));
  Tensor result = sum(centered * centered, axes, keepdims, loc) / freedom;
  if (root) result = sqrt(result, loc);
  return narrow ? r.convert(result, x.dtype()) : result;
}

// jnp.any (`kind` max) and jnp.all (min) of x's truth.
Tensor truth_reduce(const char* name, ir::ReduceKind kind, const Tensor& x, const Axes& axes,
                    bool keepdims, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  std::vector<int64_t> dims = r.axes(axes, x);
  if (reduces_nothing(x, dims))
    return r.constant(kind == ir::ReduceKind::min, DType::i1, reduced_shape(x, dims, keepdims));
  return reduce(name, kind, truth(r, x), axes, keepdims, loc);
}
}  // namespace

Tensor nansum(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("nansum", loc, {&x});
  detail::AtUserLine at_user(loc);
  if (!is_floating(x.dtype())) return sum(x, axes, keepdims, loc);
  return sum(where(isnan(x, loc), 0, x, loc), axes, keepdims, loc);
}
Tensor nanmean(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("nanmean", loc, {&x});
  detail::AtUserLine at_user(loc);
  if (!is_floating(x.dtype())) return mean(x, axes, keepdims, loc);
  // f16 and bf16 count and divide in f32, as mean does.
  bool narrow = x.dtype() == DType::f16 || x.dtype() == DType::bf16;
  Tensor v = narrow ? r.convert(x, DType::f32) : x;
  Tensor numbers = logical_not(isnan(v, loc), loc);
  Tensor average = sum(where(numbers, v, 0, loc), axes, keepdims, loc) /
                   sum(cast(numbers, v.dtype(), loc), axes, keepdims, loc);
  return narrow ? r.convert(average, x.dtype()) : average;
}
namespace {
// nanmax (`kind` max) or nanmin: the reduction that skips NaN, NaN where
// every element is NaN (the skipping reduction gives -inf or +inf there).
Tensor nan_extremum(const char* name, ir::ReduceKind kind, const Tensor& x, const Axes& axes,
                    bool keepdims, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  if (!is_floating(x.dtype())) return reduce(name, kind, x, axes, keepdims, loc);
  Tensor extremum = reduce(name, kind, x, axes, keepdims, loc, /*ignores_nan=*/true);
  detail::AtUserLine at_user(loc);
  return where(all(isnan(x, loc), axes, keepdims, loc), std::numeric_limits<double>::quiet_NaN(),
               extremum, loc);
}
}  // namespace
Tensor nanmax(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return nan_extremum("nanmax", ir::ReduceKind::max, x, axes, keepdims, loc);
}
Tensor nanmin(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return nan_extremum("nanmin", ir::ReduceKind::min, x, axes, keepdims, loc);
}
Tensor count_nonzero(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("count_nonzero", loc, {&x});
  r.axes(axes, x);
  detail::AtUserLine at_user(loc);
  return sum(cast(truth(r, x), DType::i32, loc), axes, keepdims, loc);
}
Tensor average(const Tensor& x, const Tensor& weights, Axes axes, bool keepdims,
               SourceLocation loc) {
  Recorder r("average", loc, {&x, &weights});
  auto shape = detail::broadcast_shapes(x.shape(), weights.shape());
  if (!shape)
    r.fail(fmt::format("the weights {} and {} cannot be broadcast together", describe(weights),
                       describe(x)));
  detail::AtUserLine at_user(loc);
  Tensor v = is_floating(x.dtype()) ? x : r.convert(x, DType::f32);
  Tensor w = broadcast_to(weights, *shape, loc);
  return sum(v * w, axes, keepdims, loc) / sum(w, axes, keepdims, loc);
}
Tensor var(const Tensor& x, Axes axes, bool keepdims, int ddof, SourceLocation loc) {
  return variance("var", x, axes, keepdims, ddof, false, loc);
}
Tensor std(const Tensor& x, Axes axes, bool keepdims, int ddof, SourceLocation loc) {
  return variance("std", x, axes, keepdims, ddof, true, loc);
}
Tensor any(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return truth_reduce("any", ir::ReduceKind::max, x, axes, keepdims, loc);
}
Tensor all(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return truth_reduce("all", ir::ReduceKind::min, x, axes, keepdims, loc);
}
Tensor argmin(const Tensor& x, int axis, SourceLocation loc) {
  Recorder r("argmin", loc, {&x});
  int a = r.axis(axis, x.rank(), x);
  if (x.shape()[a] == 0) r.fail(fmt::format("argmin of the empty axis {} of {}", a, describe(x)));
  // The first maximum of an order-reversing map: -x for floats (NaN stays
  // NaN, the first of which argmax finds), -1 - x for integers (no
  // overflow at the smallest one).
  Tensor input = x.dtype() == DType::i1 ? r.convert(x, DType::i32) : x;
  Tensor reversed =
      is_floating(input.dtype())
          ? r.emit<ir::NegOp>(r.value(input))
          : r.emit<ir::SubOp>(r.value(r.integer_constant(-1, input.dtype(), input.shape())),
                              r.value(input));
  return r.emit<ir::ArgMaxOp>(r.type(DType::i32, reduced_shape(x, {a}, false)),
                              r.value(reversed), static_cast<int64_t>(a));
}
Tensor logsumexp(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("logsumexp", loc, {&x});
  detail::AtUserLine at_user(loc);
  std::vector<int64_t> dims = r.axes(axes, x);
  Tensor v = is_floating(x.dtype()) ? x : r.convert(x, DType::f32);
  // An empty reduction has no max to shift by: log(0) = -inf, as in JAX.
  if (reduces_nothing(x, dims))
    return r.reshape(log(sum(exp(v, loc), axes, true, loc), loc), reduced_shape(x, dims, keepdims));
  // Shift by the max for stability; an infinite max shifts by 0 so that
  // all -inf inputs give -inf rather than NaN. A NaN reaches the result
  // through the sum, so the max may skip it.
  Tensor m = reduce("max", ir::ReduceKind::max, v, axes, /*keepdims=*/true, loc,
                    /*ignores_nan=*/true);
  Tensor finite = abs(m, loc) < std::numeric_limits<double>::infinity();
  Tensor shift = stop_gradient(where(finite, m, 0.0, loc), loc);
  Tensor result = log(sum(exp(v - shift, loc), axes, true, loc), loc) + shift;
  return r.reshape(result, reduced_shape(x, dims, keepdims));
}
namespace {
// v minus its max along `axis` (a constant to AD), so that exp cannot
// overflow; an empty axis has no max to shift by (and the result is empty).
// The max skips NaN: softmax and log_softmax take a NaN of a row to all of
// it through the row's sum of exps.
Tensor minus_max(const Tensor& v, int axis, SourceLocation loc) {
  if (v.shape()[axis] == 0) return v;
  Tensor m = reduce("max", ir::ReduceKind::max, v, {axis}, true, loc, /*ignores_nan=*/true);
  return v - stop_gradient(m, loc);
}
}  // namespace

Tensor softmax(const Tensor& x, int axis, SourceLocation loc) {
  Recorder r("softmax", loc, {&x});
  detail::AtUserLine at_user(loc);
  Axes a{r.axis(axis, x.rank(), x)};
  Tensor v = is_floating(x.dtype()) ? x : r.convert(x, DType::f32);
  Tensor e = exp(minus_max(v, a[0], loc), loc);
  // One division per row, and a product per element: a vector division
  // holds the divider 10 cycles per 16 lanes on Intel (half of softmax's
  // time over rows of 1024). The sum is at least 1 (the max's exp), so
  // its reciprocal is finite; the product differs from e / sum by at most
  // an ulp, as PyTorch's softmax (which multiplies the same way).
  return e * (1.0 / sum(e, a, true, loc));
}
Tensor log_softmax(const Tensor& x, int axis, SourceLocation loc) {
  Recorder r("log_softmax", loc, {&x});
  detail::AtUserLine at_user(loc);
  Axes a{r.axis(axis, x.rank(), x)};
  Tensor v = is_floating(x.dtype()) ? x : r.convert(x, DType::f32);
  Tensor shifted = minus_max(v, a[0], loc);
  return shifted - log(sum(exp(shifted, loc), a, true, loc), loc);
}

// Shapes ---------------------------------------------------------------------

Tensor matmul(const Tensor& a, const Tensor& b, SourceLocation loc) {
  Recorder r("matmul", loc, {&a, &b});
  if (a.rank() == 0 || b.rank() == 0)
    r.fail(fmt::format("needs operands of rank >= 1, got {} and {}", describe(a), describe(b)));
  DType dtype = detail::promote(a.dtype(), b.dtype());
  // As jnp.matmul: of bools, whether any product (and) is true, from the
  // products counted in i32.
  bool logical = dtype == DType::i1;
  if (logical) dtype = DType::i32;
  // numpy: a vector is a 1-row (lhs) or 1-column (rhs) matrix, dropped after.
  Tensor lhs = a.rank() == 1 ? r.reshape(a, {1, a.shape()[0]}) : a;
  Tensor rhs = b.rank() == 1 ? r.reshape(b, {b.shape()[0], 1}) : b;
  int64_t m = lhs.shape()[lhs.rank() - 2], k = lhs.shape()[lhs.rank() - 1];
  int64_t k2 = rhs.shape()[rhs.rank() - 2], n = rhs.shape()[rhs.rank() - 1];
  if (k != k2)
    r.fail(fmt::format("contracting dimensions differ: {} @ {} ({} vs {})", describe(a),
                       describe(b), k, k2));
  Shape lhs_batch(lhs.shape().begin(), lhs.shape().end() - 2);
  Shape rhs_batch(rhs.shape().begin(), rhs.shape().end() - 2);
  auto batch = detail::broadcast_shapes(lhs_batch, rhs_batch);
  if (!batch)
    r.fail(fmt::format("batch dimensions of {} and {} cannot be broadcast together", describe(a),
                       describe(b)));
  auto with_batch = [&](int64_t rows, int64_t cols) {
    Shape s = *batch;
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  lhs = r.broadcast(r.convert(lhs, dtype), with_batch(m, k));
  rhs = r.broadcast(r.convert(rhs, dtype), with_batch(k, n));
  int64_t nb = static_cast<int64_t>(batch->size());
  std::vector<int64_t> batch_dims(nb);
  std::iota(batch_dims.begin(), batch_dims.end(), 0);
  Tensor product = r.emit<ir::DotGeneralOp>(
      r.type(dtype, with_batch(m, n)), r.value(lhs), r.value(rhs), batch_dims, batch_dims,
      std::vector<int64_t>{nb + 1}, std::vector<int64_t>{nb});
  Shape result = *batch;
  if (a.rank() > 1) result.push_back(m);
  if (b.rank() > 1) result.push_back(n);
  Tensor reshaped = r.reshape(product, result);
  return logical ? truth(r, reshaped) : reshaped;
}

Tensor transpose(const Tensor& x, std::vector<int> perm, SourceLocation loc) {
  Recorder r("transpose", loc, {&x});
  if (perm.empty())
    for (int d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
  if (static_cast<int>(perm.size()) != x.rank())
    r.fail(fmt::format("perm {} has {} entries but the operand {} has rank {}", axes_string(perm),
                       perm.size(), describe(x), x.rank()));
  std::vector<int64_t> p;
  std::vector<bool> seen(x.rank(), false);
  Shape shape;
  for (int axis : perm) {
    int a = r.axis(axis, x.rank(), x, "perm entry");
    if (seen[a])
      r.fail(fmt::format("perm {} is not a permutation of the axes of {}", axes_string(perm),
                         describe(x)));
    seen[a] = true;
    p.push_back(a);
    shape.push_back(x.shape()[a]);
  }
  return r.emit<ir::TransposeOp>(r.type(x.dtype(), shape), r.value(x), p);
}

Tensor reshape(const Tensor& x, Shape shape, SourceLocation loc) {
  Recorder r("reshape", loc, {&x});
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        r.fail(fmt::format("only one dimension can be -1, got {}", shape_string(shape)));
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      r.fail(fmt::format("negative dimension in {}", shape_string(shape)));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      r.fail(fmt::format("the shape {} has more elements than int64 counts", shape_string(shape)));
    }
  }
  if (inferred >= 0) {
    if (known == 0 || x.size() % known != 0)
      r.fail(fmt::format("cannot reshape {} to {}", describe(x), shape_string(shape)));
    shape[inferred] = x.size() / known;
  }
  if (num_elements(shape) != x.size())
    r.fail(fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", describe(x),
                       x.size(), shape_string(shape), num_elements(shape)));
  return r.reshape(x, shape);
}

Tensor broadcast_to(const Tensor& x, Shape shape, SourceLocation loc) {
  Recorder r("broadcast_to", loc, {&x});
  auto common = detail::broadcast_shapes(x.shape(), shape);
  if (!common || *common != shape)
    r.fail(fmt::format("cannot broadcast {} to {}", describe(x), shape_string(shape)));
  return r.broadcast(x, shape);
}

Tensor expand_dims(const Tensor& x, int axis, SourceLocation loc) {
  Recorder r("expand_dims", loc, {&x});
  int a = r.axis(axis, x.rank() + 1, x, "new axis");
  Shape shape = x.shape();
  shape.insert(shape.begin() + a, 1);
  return r.reshape(x, shape);
}

Tensor squeeze(const Tensor& x, int axis, SourceLocation loc) {
  Recorder r("squeeze", loc, {&x});
  int a = r.axis(axis, x.rank(), x);
  if (x.shape()[a] != 1)
    r.fail(fmt::format("axis {} of {} has size {}, not 1", a, describe(x), x.shape()[a]));
  Shape shape = x.shape();
  shape.erase(shape.begin() + a);
  return r.reshape(x, shape);
}

Tensor slice(const Tensor& x, Shape starts, Shape limits, Shape strides, SourceLocation loc) {
  Recorder r("slice", loc, {&x});
  size_t rank = x.shape().size();
  if (strides.empty()) strides.assign(rank, 1);
  if (starts.size() != rank || limits.size() != rank || strides.size() != rank)
    r.fail(fmt::format("starts, limits and strides need {} entries for {}", rank, describe(x)));
  Shape shape;
  for (size_t d = 0; d < rank; ++d) {
    if (strides[d] < 1) r.fail(fmt::format("stride {} must be >= 1", strides[d]));
    if (starts[d] < 0 || starts[d] > limits[d] || limits[d] > x.shape()[d])
      r.fail(fmt::format("dimension {} of {} needs 0 <= start <= limit <= {}, got {}:{}", d,
                         describe(x), x.shape()[d], starts[d], limits[d]));
    shape.push_back(mlir::adjit::sliceLength(starts[d], limits[d], strides[d]));
  }
  return r.emit<ir::SliceOp>(r.type(x.dtype(), shape), r.value(x), starts, limits, strides);
}

namespace {
// The two axes moved last and flattened: the diagonal is then every
// (n2 + 1)-th element from its first, one strided slice. Errors name
// `op_name`, the user's op.
Tensor diagonal_of(const char* op_name, const Tensor& x, int offset, int axis1, int axis2,
                   SourceLocation loc) {
  Recorder r(op_name, loc, {&x});
  if (x.rank() < 2) r.fail(fmt::format("needs at least 2 dimensions, got {}", describe(x)));
  int a1 = r.axis(axis1, x.rank(), x, "axis1"), a2 = r.axis(axis2, x.rank(), x, "axis2");
  if (a1 == a2) r.fail(fmt::format("axis1 and axis2 are both axis {} of {}", a1, describe(x)));
  detail::AtUserLine at_user(loc);
  std::vector<int> perm;
  Shape shape;
  for (int d = 0; d < x.rank(); ++d)
    if (d != a1 && d != a2) perm.push_back(d), shape.push_back(x.shape()[d]);
  perm.insert(perm.end(), {a1, a2});
  int64_t rows = x.shape()[a1], cols = x.shape()[a2];
  int64_t first_row = offset < 0 ? -int64_t{offset} : 0, first_col = offset > 0 ? offset : 0;
  int64_t length = std::max<int64_t>(0, std::min(rows - first_row, cols - first_col));
  Shape flat_shape = shape, starts(shape.size(), 0), limits = shape, strides(shape.size(), 1);
  flat_shape.push_back(rows * cols);
  int64_t start = length ? first_row * cols + first_col : 0;
  starts.push_back(start);
  limits.push_back(length ? start + (length - 1) * (cols + 1) + 1 : 0);
  strides.push_back(cols + 1);
  return slice(reshape(transpose(x, perm, loc), flat_shape, loc), starts, limits, strides, loc);
}
}  // namespace

Tensor diagonal(const Tensor& x, int offset, int axis1, int axis2, SourceLocation loc) {
  return diagonal_of("diagonal", x, offset, axis1, axis2, loc);
}

Tensor trace(const Tensor& x, int offset, int axis1, int axis2, SourceLocation loc) {
  detail::AtUserLine at_user(loc);
  return sum(diagonal_of("trace", x, offset, axis1, axis2, loc), {-1}, false, loc);
}

Tensor concat(const std::vector<Tensor>& xs, int axis, SourceLocation loc) {
  Recorder r("concat", loc, {xs.empty() ? nullptr : &xs.front()});
  if (xs.empty()) r.fail("needs at least one tensor");
  DType dtype = xs.front().dtype();
  for (const Tensor& t : xs) {
    r.require_operand(t);
    dtype = detail::promote(dtype, t.dtype());
  }
  int a = r.axis(axis, xs.front().rank(), xs.front());
  Shape shape = xs.front().shape();
  shape[a] = 0;
  std::vector<mlir::Value> values;
  for (const Tensor& t : xs) {
    Shape expected = xs.front().shape();
    expected[a] = t.rank() == xs.front().rank() ? t.shape()[a] : -1;
    if (t.shape() != expected)
      r.fail(fmt::format("all tensors must match except along axis {}: {} vs {}", a,
                         describe(xs.front()), describe(t)));
    shape[a] = r.extent(static_cast<__int128>(shape[a]) + t.shape()[a], a);
    values.push_back(r.value(r.convert(t, dtype)));
  }
  return r.emit<ir::ConcatenateOp>(r.type(dtype, shape), values, static_cast<int64_t>(a));
}

Tensor pad(const Tensor& x, Shape low, Shape high, Operand value, Shape interior,
           SourceLocation loc) {
  Recorder r("pad", loc, {&x, tensor_of(value)});
  size_t rank = x.shape().size();
  if (interior.empty()) interior.assign(rank, 0);
  if (low.size() != rank || high.size() != rank || interior.size() != rank)
    r.fail(fmt::format("low, high and interior need {} entries for {}, got {}, {} and {}", rank,
                       describe(x), low.size(), high.size(), interior.size()));
  if (value.tensor && value.tensor->rank() != 0)
    r.fail(fmt::format("the padding value must be a number or a 0-d tensor, got {}",
                       describe(*value.tensor)));
  // The non-negative amounts pad; the negative ones crop what that made.
  Shape padded_shape, starts, limits;
  std::vector<int64_t> pad_low, pad_high;
  for (size_t d = 0; d < rank; ++d) {
    if (interior[d] < 0)
      r.fail(fmt::format("interior padding must be non-negative, got {} in dimension {}",
                         interior[d], d));
    __int128 n = x.shape()[d];
    int64_t size = r.extent(n + std::max<__int128>(n - 1, 0) * interior[d] +
                                std::max<int64_t>(low[d], 0) + std::max<int64_t>(high[d], 0),
                            d);
    __int128 crop_low = std::max<__int128>(-static_cast<__int128>(low[d]), 0),
             crop_high = std::max<__int128>(-static_cast<__int128>(high[d]), 0);
    if (crop_low + crop_high > size)
      r.fail(fmt::format("dimension {} of {} would have {} elements (low {}, high {}, interior "
                         "{})", d, describe(x),
                         size - crop_low - crop_high, low[d], high[d], interior[d]));
    pad_low.push_back(std::max<int64_t>(low[d], 0));
    pad_high.push_back(std::max<int64_t>(high[d], 0));
    padded_shape.push_back(size);
    starts.push_back(crop_low);
    limits.push_back(size - crop_high);
  }
  Tensor padded = x;
  if (padded_shape != x.shape()) {
    Tensor fill = value.tensor ? r.convert(*value.tensor, x.dtype())
                               : number_constant(r, value, x.dtype(), {});
    padded = r.emit<ir::PadOp>(r.type(x.dtype(), padded_shape), r.value(x), r.value(fill),
                               pad_low, pad_high, std::vector<int64_t>(interior));
  }
  if (starts == Shape(rank, 0) && limits == padded_shape) return padded;
  Shape shape;
  for (size_t d = 0; d < rank; ++d) shape.push_back(limits[d] - starts[d]);
  return r.emit<ir::SliceOp>(r.type(x.dtype(), shape), r.value(padded), starts, limits,
                             Shape(rank, 1));
}

namespace {
// The starts of a block in x: one 0-d integer tensor per dimension, C++
// integers as i64 constants. A negative start counts from the end, as in
// jax.lax.dynamic_slice (-1 is the last index); the ops then clamp each
// start so that the block lies inside x, as XLA's.
std::vector<mlir::Value> block_starts(Recorder& r, const Tensor& x,
                                      const std::vector<Operand>& starts, SourceLocation loc) {
  if (starts.size() != x.shape().size())
    r.fail(fmt::format("needs one start per dimension of {}, got {}", describe(x), starts.size()));
  std::vector<mlir::Value> values;
  for (size_t d = 0; d < starts.size(); ++d) {
    const Operand& s = starts[d];
    int64_t size = x.shape()[d];
    if (!s.tensor) {
      if (!s.is_integer || s.is_bool)
        r.fail(fmt::format("start {} must be an integer, got {}", d, s.number));
      Operand wrapped = s;
      if (!s.beyond_int64 && s.integer < 0) {
        wrapped.integer += size;
        wrapped.number = static_cast<double>(wrapped.integer);
      }
      values.push_back(r.value(number_constant(r, wrapped, DType::i64, {})));
      continue;
    }
    r.require_operand(*s.tensor);
    if (s.tensor->rank() != 0 || (s.tensor->dtype() != DType::i32 && s.tensor->dtype() != DType::i64))
      r.fail(fmt::format("start {} must be a 0-d i32 or i64 tensor, got {}", d, describe(*s.tensor)));
    const Tensor& start = *s.tensor;
    values.push_back(r.value(where(start < 0, start + size, start, loc)));
  }
  return values;
}
}  // namespace

Tensor dynamic_slice(const Tensor& x, const std::vector<Operand>& starts, Shape sizes,
                     SourceLocation loc) {
  Recorder r("dynamic_slice", loc, {&x});
  std::vector<mlir::Value> values = block_starts(r, x, starts, loc);
  if (sizes.size() != x.shape().size())
    r.fail(fmt::format("sizes {} need {} entries for {}", shape_string(sizes), x.shape().size(),
                       describe(x)));
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < 0 || sizes[d] > x.shape()[d])
      r.fail(fmt::format("sizes {} do not fit in {} (dimension {})", shape_string(sizes),
                         describe(x), d));
  return r.emit<ir::DynamicSliceOp>(r.type(x.dtype(), sizes), r.value(x), values);
}

Tensor dynamic_update_slice(const Tensor& x, const Tensor& update,
                            const std::vector<Operand>& starts, SourceLocation loc) {
  Recorder r("dynamic_update_slice", loc, {&x, &update});
  std::vector<mlir::Value> values = block_starts(r, x, starts, loc);
  if (update.rank() != x.rank())
    r.fail(fmt::format("the update {} needs the rank of {}", describe(update), describe(x)));
  for (int d = 0; d < x.rank(); ++d)
    if (update.shape()[d] > x.shape()[d])
      r.fail(fmt::format("the update {} does not fit in {} (dimension {})", describe(update),
                         describe(x), d));
  return r.emit<ir::DynamicUpdateSliceOp>(r.type(x.dtype(), x.shape()), r.value(x), values,
                                          r.value(r.convert(update, x.dtype())));
}

Tensor take(const Tensor& x, const Tensor& indices_given, int axis, SourceLocation loc) {
  Recorder r("take", loc, {&x, &indices_given});
  DType index_type = indices_given.dtype();
  if (index_type != DType::i32 && index_type != DType::i64 && index_type != DType::i1)
    r.fail(fmt::format("indices must be integers (i32, i64, or bool as 0 and 1), got {}",
                       describe(indices_given)));
  // As jnp.take: bool indices pick index 0 or 1.
  Tensor indices =
      index_type == DType::i1 ? r.convert(indices_given, DType::i32) : indices_given;
  int a = r.axis(axis, x.rank(), x);
  if (x.shape()[a] == 0 && indices.size() > 0)
    r.fail(fmt::format("cannot take from the empty axis {} of {}", a, describe(x)));
  Shape shape(x.shape().begin(), x.shape().begin() + a);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + a + 1, x.shape().end());
  // A negative index counts from the end, as in numpy.take and jnp.take
  // (-1 is the last); what is still out of range is clamped by the gather
  // (jnp.take's default gives NaN there, and its mode="clip" clamps before
  // counting from the end).
  Tensor zeros = r.constant(0, indices.dtype(), indices.shape());
  Tensor negative = r.emit<ir::CompareOp>(ir::ComparisonDirection::lt, r.value(indices),
                                          r.value(zeros));
  Tensor from_end = r.emit<ir::AddOp>(
      r.value(indices), r.value(r.constant(x.shape()[a], indices.dtype(), indices.shape())));
  Tensor wrapped = r.emit<ir::SelectOp>(r.value(negative), r.value(from_end), r.value(indices));
  return r.emit<ir::GatherOp>(r.type(x.dtype(), shape), r.value(x), r.value(wrapped),
                              static_cast<int64_t>(a));
}

Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype, SourceLocation loc) {
  Recorder r("one_hot", loc, {&indices});
  if (indices.dtype() != DType::i32 && indices.dtype() != DType::i64)
    r.fail(fmt::format("indices must be i32 or i64, got {}", describe(indices)));
  if (depth < 0) r.fail(fmt::format("depth must be non-negative, got {}", depth));
  Shape shape = indices.shape();
  shape.push_back(depth);
  Tensor positions = r.emit<ir::IotaOp>(r.type(indices.dtype(), shape),
                                        static_cast<int64_t>(shape.size() - 1));
  Shape column = indices.shape();
  column.push_back(1);
  Tensor expanded = r.broadcast(r.reshape(indices, column), shape);
  Tensor hot = r.emit<ir::CompareOp>(ir::ComparisonDirection::eq, r.value(expanded),
                                     r.value(positions));
  return r.convert(hot, dtype);
}

Tensor cast(const Tensor& x, DType dtype, SourceLocation loc) {
  Recorder r("cast", loc, {&x});
  return r.convert(x, dtype);
}

Tensor full(Shape shape, double value, DType dtype, SourceLocation loc) {
  Recorder r("full", loc, {});
  return r.constant(value, dtype, shape);  // its type checks the shape
}

Tensor arange(int64_t n, DType dtype, SourceLocation loc) {
  Recorder r("arange", loc, {});
  if (dtype == DType::i1) r.fail("cannot count in bool");
  // No numbers below a negative n, as numpy's and JAX's arange.
  mlir::RankedTensorType type = r.type(dtype, {std::max<int64_t>(n, 0)});
  // Numbers past i32's largest would wrap (JAX's do, with a warning).
  if (dtype == DType::i32 && n - 1 > std::numeric_limits<int32_t>::max())
    r.fail(fmt::format("n = {} counts beyond i32's largest value; use i64", n));
  return r.emit<ir::IotaOp>(type, int64_t{0});
}

}  // namespace adjit
