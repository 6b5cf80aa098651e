// Folders and canonicalization patterns. Every rewrite here is exact in
// IEEE arithmetic: a fold never changes a result bit, including the sign of
// zero and NaN propagation, so `optimized` IR computes what `traced` IR does.
#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Dialect/ScalarRules.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Constant folding materializes every element: past this size a fold would
// bloat the module more than it saves at run time.
constexpr int64_t kMaxFoldedElements = 1 << 16;

using ElementFn = llvm::function_ref<Attribute(ArrayRef<Attribute>)>;

// Applies `fn` element by element to constant operands of one shape.
Attribute foldElementwise(ArrayRef<Attribute> operands, ShapedType resultType,
                          ElementFn fn) {
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute operand : operands) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  SmallVector<Attribute> args(inputs.size());
  if (llvm::all_of(inputs, [](DenseElementsAttr a) { return a.isSplat(); })) {
    for (auto [arg, input] : llvm::zip(args, inputs))
      arg = input.getSplatValue<Attribute>();
    Attribute value = fn(args);
    return value ? DenseElementsAttr::get(resultType, value) : Attribute();
  }
  if (resultType.getNumElements() > kMaxFoldedElements)
    return {};
  SmallVector<SmallVector<Attribute>> columns;
  for (DenseElementsAttr input : inputs)
    columns.emplace_back(input.getValues<Attribute>());
  SmallVector<Attribute> results;
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i) {
    for (auto [arg, column] : llvm::zip(args, columns))
      arg = column.size() == 1 ? column.front() : column[i];
    Attribute value = fn(args);
    if (!value)
      return {};
    results.push_back(value);
  }
  return DenseElementsAttr::get(resultType, results);
}

APFloat roundTo(double value, const llvm::fltSemantics &semantics) {
  APFloat result(value);
  bool losesInfo;
  result.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

// A float function evaluated in double and rounded once to the element type.
Attribute applyInDouble(Attribute element, double (*fn)(double)) {
  auto value = dyn_cast<FloatAttr>(element);
  if (!value)
    return {};
  return FloatAttr::get(value.getType(),
                        roundTo(fn(value.getValueAsDouble()),
                                value.getValue().getSemantics()));
}

template <class FloatFn, class IntFn>
Attribute applyExact(Attribute element, FloatFn floatFn, IntFn intFn) {
  if (auto f = dyn_cast<FloatAttr>(element))
    return FloatAttr::get(f.getType(), floatFn(f.getValue()));
  if (auto i = dyn_cast<IntegerAttr>(element))
    return IntegerAttr::get(i.getType(), intFn(i.getValue()));
  return {};
}

template <class FloatFn, class IntFn>
OpFoldResult foldUnaryExact(Operation *op, ArrayRef<Attribute> operands,
                            FloatFn floatFn, IntFn intFn) {
  return foldElementwise(operands, cast<ShapedType>(op->getResult(0).getType()),
                         [&](ArrayRef<Attribute> x) {
                           return applyExact(x[0], floatFn, intFn);
                         });
}

OpFoldResult foldUnaryInDouble(Operation *op, ArrayRef<Attribute> operands,
                               double (*fn)(double)) {
  return foldElementwise(operands, cast<ShapedType>(op->getResult(0).getType()),
                         [&](ArrayRef<Attribute> x) {
                           return applyInDouble(x[0], fn);
                         });
}

// Binary arithmetic: APFloat ops round once in the element's own format, so
// folding matches what the generated code computes bit for bit.
template <class FloatFn, class IntFn>
OpFoldResult foldBinaryExact(Operation *op, ArrayRef<Attribute> operands,
                             FloatFn floatFn, IntFn intFn) {
  return foldElementwise(
      operands, cast<ShapedType>(op->getResult(0).getType()),
      [&](ArrayRef<Attribute> x) -> Attribute {
        if (auto a = dyn_cast<FloatAttr>(x[0])) {
          std::optional<APFloat> r =
              floatFn(a.getValue(), cast<FloatAttr>(x[1]).getValue());
          return r ? FloatAttr::get(a.getType(), *r) : Attribute();
        }
        auto a = cast<IntegerAttr>(x[0]);
        std::optional<APInt> r =
            intFn(a.getValue(), cast<IntegerAttr>(x[1]).getValue());
        return r ? IntegerAttr::get(a.getType(), *r) : Attribute();
      });
}

// True if `attr` is a splat constant equal to `value`; for floats the sign
// of zero must match too (x + 0.0 is not x when x is -0.0).
bool isSplatOf(Attribute attr, int64_t value) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  if (auto f = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>())) {
    APFloat expected = roundTo(static_cast<double>(value),
                               f.getValue().getSemantics());
    return f.getValue().bitwiseIsEqual(expected);
  }
  return splat.getSplatValue<APInt>().getSExtValue() == value;
}

bool isNegativeZeroSplat(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  auto f = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>());
  return f && f.getValue().isNegZero();
}

// The additive identity that leaves every value unchanged: -0.0 for floats
// (because -0.0 + +0.0 = +0.0), 0 for integers.
bool isAdditiveIdentity(Attribute attr, Value operand) {
  return isFloatTensor(operand.getType()) ? isNegativeZeroSplat(attr) : isSplatOf(attr, 0);
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double rsqrt(double x) { return 1.0 / std::sqrt(x); }
double signOf(double x) {
  return std::isnan(x) || x == 0.0 ? x : (x > 0 ? 1.0 : -1.0);
}

} // namespace

//===----------------------------------------------------------------------===//
// Sources and unary ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldUnaryExact(
      *this, adaptor.getOperands(), [](APFloat x) { return neg(x); },
      [](APInt x) { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnaryExact(
      *this, adaptor.getOperands(), [](APFloat x) { return abs(x); },
      [](APInt x) { return x.abs(); });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  return foldUnaryExact(
      *this, adaptor.getOperands(),
      [](APFloat x) {
        return roundTo(signOf(x.convertToDouble()), x.getSemantics());
      },
      [](APInt x) {
        return APInt(x.getBitWidth(), x.isZero() ? 0 : (x.isNegative() ? -1 : 1),
                     /*isSigned=*/true);
      });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<ReluOp>())
    return inner.getResult();  // relu(relu(x)) = relu(x)
  return foldUnaryExact(
      *this, adaptor.getOperands(),
      [](APFloat x) {
        bool passes = x.isNaN() || (!x.isNegative() && !x.isZero());
        return passes ? x : APFloat::getZero(x.getSemantics());
      },
      [](APInt x) { return x.isNegative() ? APInt::getZero(x.getBitWidth()) : x; });
}

// The products of the scalar rule, in its order, in the type it computes
// in (f32 for f16/bf16, rounded once at the end).
OpFoldResult IntegerPowOp::fold(FoldAdaptor adaptor) {
  int64_t exponent = static_cast<int64_t>(getExponent());
  if (exponent == 1)
    return getOperand();
  if (exponent == 0) {  // 1 for every x, NaN included
    auto type = cast<ShapedType>(getType());
    Type element = type.getElementType();
    if (auto f = dyn_cast<FloatType>(element))
      return DenseElementsAttr::get(type, FloatAttr::get(f, 1.0));
    return DenseElementsAttr::get(type, IntegerAttr::get(element, 1));
  }
  Type computeType = computeTypeOf(getType().getElementType());
  return foldUnaryExact(
      *this, adaptor.getOperands(),
      [&](const APFloat &x) {
        const llvm::fltSemantics &own = x.getSemantics();
        const llvm::fltSemantics &compute = cast<FloatType>(computeType).getFloatSemantics();
        bool losesInfo;
        APFloat wide = x;
        wide.convert(compute, APFloat::rmNearestTiesToEven, &losesInfo);
        APFloat one(compute, 1);
        APFloat power = powerBySquaring(wide, exponent, one, [](APFloat a, const APFloat &b) {
          a.multiply(b, APFloat::rmNearestTiesToEven);
          return a;
        });
        if (exponent < 0) {
          APFloat reciprocal = one;
          reciprocal.divide(power, APFloat::rmNearestTiesToEven);
          power = reciprocal;
        }
        power.convert(own, APFloat::rmNearestTiesToEven, &losesInfo);
        return power;
      },
      [&](const APInt &x) {
        return powerBySquaring(x, exponent, APInt(x.getBitWidth(), 1),
                               [](const APInt &a, const APInt &b) { return a * b; });
      });
}

#define ADJIT_FOLD_IN_DOUBLE(OP, FN)                                           \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldUnaryInDouble(*this, adaptor.getOperands(), FN);                \
  }
ADJIT_FOLD_IN_DOUBLE(ExpOp, [](double x) { return std::exp(x); })
ADJIT_FOLD_IN_DOUBLE(Expm1Op, [](double x) { return std::expm1(x); })
ADJIT_FOLD_IN_DOUBLE(LogOp, [](double x) { return std::log(x); })
ADJIT_FOLD_IN_DOUBLE(Log1pOp, [](double x) { return std::log1p(x); })
ADJIT_FOLD_IN_DOUBLE(SqrtOp, [](double x) { return std::sqrt(x); })
ADJIT_FOLD_IN_DOUBLE(RsqrtOp, rsqrt)
ADJIT_FOLD_IN_DOUBLE(SinOp, [](double x) { return std::sin(x); })
ADJIT_FOLD_IN_DOUBLE(CosOp, [](double x) { return std::cos(x); })
ADJIT_FOLD_IN_DOUBLE(TanhOp, [](double x) { return std::tanh(x); })
ADJIT_FOLD_IN_DOUBLE(LogisticOp, logistic)
ADJIT_FOLD_IN_DOUBLE(ErfOp, [](double x) { return std::erf(x); })
ADJIT_FOLD_IN_DOUBLE(FloorOp, [](double x) { return std::floor(x); })
ADJIT_FOLD_IN_DOUBLE(CeilOp, [](double x) { return std::ceil(x); })
ADJIT_FOLD_IN_DOUBLE(RoundOp, [](double x) { return std::nearbyint(x); })
ADJIT_FOLD_IN_DOUBLE(TanOp, [](double x) { return std::tan(x); })
ADJIT_FOLD_IN_DOUBLE(AsinOp, [](double x) { return std::asin(x); })
ADJIT_FOLD_IN_DOUBLE(AcosOp, [](double x) { return std::acos(x); })
ADJIT_FOLD_IN_DOUBLE(AtanOp, [](double x) { return std::atan(x); })
ADJIT_FOLD_IN_DOUBLE(SinhOp, [](double x) { return std::sinh(x); })
ADJIT_FOLD_IN_DOUBLE(CoshOp, [](double x) { return std::cosh(x); })
ADJIT_FOLD_IN_DOUBLE(AsinhOp, [](double x) { return std::asinh(x); })
ADJIT_FOLD_IN_DOUBLE(AcoshOp, [](double x) { return std::acosh(x); })
ADJIT_FOLD_IN_DOUBLE(AtanhOp, [](double x) { return std::atanh(x); })
ADJIT_FOLD_IN_DOUBLE(CbrtOp, [](double x) { return std::cbrt(x); })
#undef ADJIT_FOLD_IN_DOUBLE

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NotOp>())
    return inner.getOperand();
  return foldUnaryExact(
      *this, adaptor.getOperands(), [](APFloat x) { return x; },
      [](APInt x) { return ~x; });
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isAdditiveIdentity(adaptor.getRhs(), getRhs()))
    return getLhs();
  if (isAdditiveIdentity(adaptor.getLhs(), getLhs()))
    return getRhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](APFloat a, const APFloat &b) -> std::optional<APFloat> {
        a.add(b, APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - (+0.0) == x + (-0.0) == x for every x.
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](APFloat a, const APFloat &b) -> std::optional<APFloat> {
        a.subtract(b, APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1))
    return getRhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](APFloat a, const APFloat &b) -> std::optional<APFloat> {
        a.multiply(b, APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](APFloat a, const APFloat &b) -> std::optional<APFloat> {
        a.divide(b, APFloat::rmNearestTiesToEven);
        return a;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // Total, as the lowering: x / 0 = -1, INT_MIN / -1 = INT_MIN.
        if (b.isZero())
          return APInt::getAllOnes(a.getBitWidth());
        if (a.isMinSignedValue() && b.isAllOnes())
          return a;
        return a.sdiv(b);
      });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](APFloat a, const APFloat &b) -> std::optional<APFloat> {
        a.mod(b); // fmod: exact
        return a;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // Total, as the lowering: x rem 0 = x, INT_MIN rem -1 = 0.
        if (b.isZero())
          return a;
        if (a.isMinSignedValue() && b.isAllOnes())
          return APInt::getZero(a.getBitWidth());
        return a.srem(b);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return roundTo(std::pow(a.convertToDouble(), b.convertToDouble()),
                       a.getSemantics());
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // As the lowering: wrapping powers; a negative exponent gives 1
        // for 1, +-1 for -1, else 0.
        unsigned bits = a.getBitWidth();
        if (b.isNegative()) {
          if (a.isOne())
            return a;
          if (a.isAllOnes())
            return b[0] ? a : APInt(bits, 1);
          return APInt::getZero(bits);
        }
        APInt result(bits, 1), base = a;
        for (APInt e = b; !e.isZero(); e.lshrInPlace(1)) {
          if (e[0])
            result *= base;
          base *= base;
        }
        return result;
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.sge(b) ? a : b;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.sle(b) ? a : b;
      });
}

OpFoldResult Atan2Op::fold(FoldAdaptor adaptor) {
  return foldBinaryExact(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return roundTo(std::atan2(a.convertToDouble(), b.convertToDouble()), a.getSemantics());
      },
      [](const APInt &, const APInt &) -> std::optional<APInt> { return std::nullopt; });
}

// Constants compared as the scalar rule compares them: floats ordered
// (false with a NaN) except ne, integers signed.
OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparisonDirection direction = getDirection();
  Type boolean = getType().getElementType();
  return foldElementwise(
      adaptor.getOperands(), getType(), [&](ArrayRef<Attribute> x) -> Attribute {
        bool less, equal, greater;
        if (auto lhsFloat = dyn_cast<FloatAttr>(x[0])) {
          APFloat::cmpResult order =
              lhsFloat.getValue().compare(cast<FloatAttr>(x[1]).getValue());
          less = order == APFloat::cmpLessThan;
          equal = order == APFloat::cmpEqual;
          greater = order == APFloat::cmpGreaterThan;
        } else {
          const APInt &lhs = cast<IntegerAttr>(x[0]).getValue();
          const APInt &rhs = cast<IntegerAttr>(x[1]).getValue();
          less = lhs.slt(rhs);
          equal = lhs == rhs;
          greater = lhs.sgt(rhs);
        }
        bool result = false;
        switch (direction) {
        case ComparisonDirection::eq: result = equal; break;
        case ComparisonDirection::ne: result = !equal; break; // NaN too
        case ComparisonDirection::lt: result = less; break;
        case ComparisonDirection::le: result = less || equal; break;
        case ComparisonDirection::gt: result = greater; break;
        case ComparisonDirection::ge: result = greater || equal; break;
        }
        return IntegerAttr::get(boolean, result);
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (auto pred = dyn_cast_or_null<SplatElementsAttr>(adaptor.getPred()))
    return pred.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return {};
}

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

namespace {
// One element of adjit.convert, with the semantics its description states.
Attribute convertElement(Attribute element, Type to) {
  if (auto f = dyn_cast<FloatAttr>(element)) {
    const APFloat &x = f.getValue();
    if (auto toFloat = dyn_cast<FloatType>(to))
      return FloatAttr::get(to, roundTo(x.convertToDouble(),
                                        toFloat.getFloatSemantics()));
    unsigned width = to.getIntOrFloatBitWidth();
    if (width == 1)
      return IntegerAttr::get(to, APInt(1, !x.isZero()));
    if (x.isNaN())
      return IntegerAttr::get(to, APInt(width, 0));
    llvm::APSInt result(width, /*isUnsigned=*/false);
    bool isExact;
    // convertToInteger saturates out-of-range values, as the lowering does.
    x.convertToInteger(result, APFloat::rmTowardZero, &isExact);
    return IntegerAttr::get(to, result);
  }
  auto i = cast<IntegerAttr>(element);
  const APInt &x = i.getValue();
  bool fromBool = x.getBitWidth() == 1;
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat result(toFloat.getFloatSemantics());
    result.convertFromAPInt(x, /*isSigned=*/!fromBool,
                            APFloat::rmNearestTiesToEven);
    return FloatAttr::get(to, result);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(to, APInt(1, !x.isZero()));
  return IntegerAttr::get(to, fromBool ? x.zext(width) : x.sextOrTrunc(width));
}
} // namespace

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  Type to = getType().getElementType();
  return foldElementwise(adaptor.getOperands(), getType(),
                         [&](ArrayRef<Attribute> x) {
                           return convertElement(x[0], to);
                         });
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

namespace {
// Row-major strides of a static shape.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

// Builds a constant whose element at each result index is the operand element
// at `sourceIndex(resultIndex)`: the common core of transpose and broadcast.
Attribute gatherConstant(
    DenseElementsAttr operand, ShapedType resultType,
    llvm::function_ref<int64_t(ArrayRef<int64_t>)> sourceOffset) {
  if (operand.isSplat())
    return DenseElementsAttr::get(resultType,
                                  operand.getSplatValue<Attribute>());
  if (resultType.getNumElements() > kMaxFoldedElements)
    return {};
  SmallVector<Attribute> source(operand.getValues<Attribute>());
  SmallVector<Attribute> result;
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0, e = resultType.getNumElements(); n < e; ++n) {
    result.push_back(source[sourceOffset(index)]);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, result);
}
} // namespace

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  // Same type is not enough: dims = [1, 0] on a square tensor transposes.
  if (getOperand().getType() == getType() && llvm::is_sorted(getDims()))
    return getOperand();
  auto operand = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand());
  if (!operand)
    return {};
  ArrayRef<int64_t> operandShape = getOperand().getType().getShape();
  SmallVector<int64_t> strides = stridesOf(operandShape);
  ArrayRef<int64_t> dims = getDims();
  return gatherConstant(operand, getType(), [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (auto [i, d] : llvm::enumerate(dims))
      if (operandShape[i] != 1)
        offset += index[d] * strides[i];
    return offset;
  });
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // reshape(reshape(x)) is one reshape of x.
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto operand = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand()))
    return operand.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
    return static_cast<int64_t>(p.index()) == p.value();
  });
  if (identity)
    return getOperand();
  auto operand = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand());
  if (!operand)
    return {};
  SmallVector<int64_t> strides = stridesOf(getOperand().getType().getShape());
  return gatherConstant(operand, getType(), [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (auto [i, p] : llvm::enumerate(perm))
      offset += index[i] * strides[p];
    return offset;
  });
}

namespace {
// transpose(transpose(x, inner), outer) == transpose(x, inner o outer).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                             inner.getOperand(), perm);
    return success();
  }
};

// transpose(dot_general(a, b)) that puts b's free dimensions before a's,
// batch dimensions in place, is dot_general(b, a): (A B)^T = B^T A^T with
// the same products summed in the same order, and no transposed copy for
// the consumer to read across (a weight gradient in reverse mode).
struct SwapOperandsOfTransposedDot : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto dot = op.getOperand().getDefiningOp<DotGeneralOp>();
    if (!dot || !dot->hasOneUse())
      return failure();
    int64_t batch = dot.getLhsBatch().size();
    int64_t lhsFree = dot.getLhs().getType().getRank() - batch -
                      static_cast<int64_t>(dot.getLhsContract().size());
    int64_t rhsFree = dot.getRhs().getType().getRank() - batch -
                      static_cast<int64_t>(dot.getRhsContract().size());
    SmallVector<int64_t> swapped;
    for (int64_t i = 0; i < batch; ++i)
      swapped.push_back(i);
    for (int64_t i = 0; i < rhsFree; ++i)
      swapped.push_back(batch + lhsFree + i);
    for (int64_t i = 0; i < lhsFree; ++i)
      swapped.push_back(batch + i);
    if (ArrayRef<int64_t>(swapped) != op.getPerm())
      return failure();
    rewriter.replaceOpWithNewOp<DotGeneralOp>(
        op, op.getType(), dot.getRhs(), dot.getLhs(), dot.getRhsBatchAttr(),
        dot.getLhsBatchAttr(), dot.getRhsContractAttr(), dot.getLhsContractAttr());
    return success();
  }
};

// dot_general(transpose(x), y) is dot_general(x, y) over x's own dimensions
// when the transpose keeps x's free dimensions in order (the result's
// layout): the contraction reads x in place, as it reads the operands AD
// builds, instead of a transposed copy (x^T dy written by the user). The
// same products are summed in the same order.
struct FoldTransposeIntoDot : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp dot,
                                PatternRewriter &rewriter) const override {
    for (unsigned side = 0; side < 2; ++side) {
      auto transpose = dot->getOperand(side).getDefiningOp<TransposeOp>();
      if (!transpose)
        continue;
      ArrayRef<int64_t> perm = transpose.getPerm();
      ArrayRef<int64_t> batch = side ? dot.getRhsBatch() : dot.getLhsBatch();
      ArrayRef<int64_t> contract =
          side ? dot.getRhsContract() : dot.getLhsContract();
      auto through = [&](ArrayRef<int64_t> dims) {
        return llvm::to_vector(
            llvm::map_range(dims, [&](int64_t d) { return perm[d]; }));
      };
      // Free dimensions, in the transposed operand's order, must map to
      // increasing dimensions of x.
      int64_t previous = -1;
      bool ordered = true;
      for (int64_t d = 0, e = perm.size(); d < e && ordered; ++d) {
        if (llvm::is_contained(batch, d) || llvm::is_contained(contract, d))
          continue;
        ordered = perm[d] > previous;
        previous = perm[d];
      }
      if (!ordered)
        continue;
      SmallVector<int64_t> newBatch = through(batch),
                           newContract = through(contract);
      rewriter.modifyOpInPlace(dot, [&] {
        dot->setOperand(side, transpose.getOperand());
        if (side == 0) {
          dot.setLhsBatch(newBatch);
          dot.setLhsContract(newContract);
        } else {
          dot.setRhsBatch(newBatch);
          dot.setRhsContract(newContract);
        }
      });
      return success();
    }
    return failure();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ComposeTransposes, SwapOperandsOfTransposedDot>(context);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand(); // same shape means start 0, stride 1, full limit
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getOperand()))
    return splat.resizeSplat(getType());
  return {};
}

namespace {
// slice(f(a, b, ...)) of an elementwise f that only the slice uses is
// f(slice(a), slice(b), ...): only the elements taken are computed, as
// XLA moves slices through elementwise ops (x[5:15] of exp(x) * 2 takes 10
// exponentials, not one per element of x).
struct SliceElementwiseOperands : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    Operation *producer = op.getOperand().getDefiningOp();
    if (!producer || !isa<ElementwiseOpInterface>(producer) || !isPure(producer) ||
        producer->getNumResults() != 1 || !producer->hasOneUse())
      return failure();
    SmallVector<Value> operands;
    for (Value operand : producer->getOperands()) {
      Type element = cast<RankedTensorType>(operand.getType()).getElementType();
      operands.push_back(rewriter.create<SliceOp>(op.getLoc(), op.getType().clone(element),
                                                  operand, op.getStartAttr(), op.getLimitAttr(),
                                                  op.getStrideAttr()));
    }
    OperationState state(producer->getLoc(), producer->getName(), operands, {op.getType()},
                         producer->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

// slice(broadcast_in_dim(x)) is the broadcast of x's part that the slice
// takes (its repeated dimensions whole): the broadcast, and what it
// feeds, shrink with the slice.
struct SliceBroadcast : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto broadcast = op.getOperand().getDefiningOp<BroadcastInDimOp>();
    if (!broadcast)
      return failure();
    RankedTensorType operandType = broadcast.getOperand().getType();
    SmallVector<int64_t> start, limit, stride, shape;
    for (auto [i, dim] : llvm::enumerate(broadcast.getDims())) {
      bool repeated = operandType.getDimSize(i) != broadcast.getType().getDimSize(dim);
      start.push_back(repeated ? 0 : op.getStart()[dim]);
      limit.push_back(repeated ? 1 : op.getLimit()[dim]);
      stride.push_back(repeated ? 1 : op.getStride()[dim]);
      shape.push_back(repeated ? 1 : op.getType().getDimSize(dim));
    }
    Value part = rewriter.create<SliceOp>(op.getLoc(), operandType.clone(shape),
                                          broadcast.getOperand(), start, limit, stride);
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(op, op.getType(), part,
                                                  broadcast.getDimsAttr());
    return success();
  }
};

// slice(iota) is an iota of the slice's shape, counting from the slice's
// start by its stride along the iota's dimension (integers, or floats
// taken from the start with stride 1, which count the same): the numbers
// are made where they are used, not a whole iota first.
struct SliceIota : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    auto iota = op.getOperand().getDefiningOp<IotaOp>();
    if (!iota)
      return failure();
    RankedTensorType type = op.getType();
    int64_t dim = iota.getDim();
    int64_t start = op.getStart()[dim], stride = op.getStride()[dim];
    bool integers = isa<IntegerType>(type.getElementType());
    if (!integers && (start != 0 || stride != 1))
      return failure();
    Location loc = op.getLoc();
    Value counted = rewriter.create<IotaOp>(loc, type, iota.getDimAttr());
    if (stride != 1)
      counted = rewriter.create<MulOp>(loc, counted,
                                       createSplat(rewriter, loc, type, static_cast<double>(stride)));
    if (start != 0)
      counted = rewriter.create<AddOp>(loc, counted,
                                       createSplat(rewriter, loc, type, static_cast<double>(start)));
    rewriter.replaceOp(op, counted);
    return success();
  }
};
} // namespace

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<SliceElementwiseOperands, SliceBroadcast, SliceIota>(context);
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

OpFoldResult ReduceOp::fold(FoldAdaptor) {
  if (getDims().empty())
    return getOperand();
  return {};
}

void DotGeneralOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<FoldTransposeIntoDot>(context);
}
