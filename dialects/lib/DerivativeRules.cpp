// Derivative rules of the adjit ops: one buildVJP and one buildJVP per op,
// written in adjit ops so that derivatives can be differentiated again.
// Conventions (DifferentiableOpInterface): null cotangents/tangents are zero.
#include "Emit.h"
#include "GeluFormula.h"
#include "adjit/Dialect/AdjitOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <numbers>

using namespace mlir;
using namespace mlir::adjit;

Value mlir::adjit::orZeros(OpBuilder &builder, Location loc, Value derivative, Type type) {
  return derivative ? derivative : createSplat(builder, loc, type, 0);
}

namespace {

// Unary elementwise ops: f'(x) times the cotangent or the tangent.
template <class OpTy>
LogicalResult unaryVJP(OpTy op, Value derivative, ValueRange cotangents,
                       SmallVectorImpl<Value> &out, Emit &e) {
  out.push_back(derivative ? e.mul(cotangents[0], derivative) : Value());
  return success();
}
template <class OpTy>
LogicalResult unaryJVP(OpTy op, Value derivative, ValueRange tangents,
                       SmallVectorImpl<Value> &out, Emit &e) {
  out.push_back(derivative ? e.mul(tangents[0], derivative) : Value());
  return success();
}

} // namespace

// (1 - x)(1 + x), the 1 - x^2 of asin, acos and atanh.
static Value oneMinusSquare(Value x, Emit &e) {
  Value one = e.splatLike(x, 1);
  return e.mul(e.sub(one, x), e.add(one, x));
}

// One local derivative f'(x) per unary op; null means zero almost everywhere.
#define ADJIT_UNARY_RULE(OP, DERIVATIVE)                                        \
  static Value localDerivative(OP op, Emit &e) {                               \
    Value x = op.getOperand(), y = op.getResult();                             \
    (void)x;                                                                   \
    (void)y;                                                                   \
    return DERIVATIVE;                                                         \
  }                                                                            \
  LogicalResult OP::buildVJP(OpBuilder &b, ValueRange cotangents,              \
                             SmallVectorImpl<Value> &out, DerivativeContext &) { \
    Emit e(b, getLoc());                                                       \
    return unaryVJP(*this, localDerivative(*this, e), cotangents, out, e);     \
  }                                                                            \
  LogicalResult OP::buildJVP(OpBuilder &b, ValueRange tangents,                \
                             SmallVectorImpl<Value> &out, DerivativeContext &) { \
    Emit e(b, getLoc());                                                       \
    return unaryJVP(*this, localDerivative(*this, e), tangents, out, e);       \
  }

ADJIT_UNARY_RULE(NegOp, e.splatLike(x, -1))
ADJIT_UNARY_RULE(AbsOp, e.sign(x))
ADJIT_UNARY_RULE(SignOp, Value())
ADJIT_UNARY_RULE(FloorOp, Value())
ADJIT_UNARY_RULE(ExpOp, y)
ADJIT_UNARY_RULE(Expm1Op, e.add(y, e.splatLike(y, 1)))
ADJIT_UNARY_RULE(LogOp, e.div(e.splatLike(x, 1), x))
ADJIT_UNARY_RULE(Log1pOp, e.div(e.splatLike(x, 1), e.add(e.splatLike(x, 1), x)))
ADJIT_UNARY_RULE(SqrtOp, e.div(e.splatLike(y, 0.5), y))
ADJIT_UNARY_RULE(RsqrtOp, e.div(e.mulScalar(y, -0.5), x))
ADJIT_UNARY_RULE(SinOp, e.cos(x))
ADJIT_UNARY_RULE(CosOp, e.neg(e.sin(x)))
ADJIT_UNARY_RULE(TanhOp, e.sub(e.splatLike(y, 1), e.mul(y, y)))
ADJIT_UNARY_RULE(LogisticOp, e.mul(y, e.sub(e.splatLike(y, 1), y)))
// n x^(n-1), as JAX's integer_pow; x^0 is constant.
static Value integerPowDerivative(IntegerPowOp op, Emit &e) {
  int64_t n = static_cast<int64_t>(op.getExponent());
  if (n == 0)
    return Value();
  return e.mulScalar(e.integerPow(op.getOperand(), n - 1), static_cast<double>(n));
}
ADJIT_UNARY_RULE(IntegerPowOp, integerPowDerivative(op, e))
// In closed form, from x alone (GeluFormula.h).
ADJIT_UNARY_RULE(GeluOp, gelu::derivative(e, x, op.getApproximate()))
ADJIT_UNARY_RULE(ErfOp, e.mulScalar(e.exp(e.neg(e.mul(x, x))),
                                    2.0 / std::sqrt(std::numbers::pi)))
ADJIT_UNARY_RULE(CeilOp, Value())
ADJIT_UNARY_RULE(RoundOp, Value())
ADJIT_UNARY_RULE(TanOp, e.add(e.splatLike(y, 1), e.mul(y, y)))
// (1 - x)(1 + x) rather than 1 - x^2: exact near |x| = 1, where it matters.
ADJIT_UNARY_RULE(AsinOp, e.rsqrt(oneMinusSquare(x, e)))
ADJIT_UNARY_RULE(AcosOp, e.neg(e.rsqrt(oneMinusSquare(x, e))))
ADJIT_UNARY_RULE(AtanOp, e.div(e.splatLike(x, 1), e.add(e.splatLike(x, 1), e.mul(x, x))))
ADJIT_UNARY_RULE(SinhOp, e.cosh(x))
ADJIT_UNARY_RULE(CoshOp, e.sinh(x))
ADJIT_UNARY_RULE(AsinhOp, e.rsqrt(e.add(e.mul(x, x), e.splatLike(x, 1))))
ADJIT_UNARY_RULE(AcoshOp, e.rsqrt(e.mul(e.sub(x, e.splatLike(x, 1)), e.add(x, e.splatLike(x, 1)))))
ADJIT_UNARY_RULE(AtanhOp, e.div(e.splatLike(x, 1), oneMinusSquare(x, e)))
// From the result, as JAX: 1 / (3 y^2), infinite at 0.
ADJIT_UNARY_RULE(CbrtOp, e.div(e.splatLike(y, 1.0 / 3.0), e.mul(y, y)))
#undef ADJIT_UNARY_RULE

// relu passes the cotangent (tangent) where its result is positive: a
// select, not a product with a 0/1 mask, so an infinite cotangent where
// relu is off gives 0, not NaN.
static Value whereReluIsOn(ReluOp op, Value passed, Emit &e) {
  Value y = op.getResult(), zeros = e.zerosLike(y);
  return e.select(e.compare(ComparisonDirection::gt, y, zeros), passed, zeros);
}
LogicalResult ReluOp::buildVJP(OpBuilder &b, ValueRange cotangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(whereReluIsOn(*this, cotangents[0], e));
  return success();
}
LogicalResult ReluOp::buildJVP(OpBuilder &b, ValueRange tangents, SmallVectorImpl<Value> &out,
                               DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(tangents[0] ? whereReluIsOn(*this, tangents[0], e) : Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult AddOp::buildVJP(OpBuilder &, ValueRange ct, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  out.append({ct[0], ct[0]});
  return success();
}
LogicalResult AddOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.addOrNull(t[0], t[1]));
  return success();
}

LogicalResult SubOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  out.append({ct[0], e.neg(ct[0])});
  return success();
}
LogicalResult SubOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(!t[1] ? t[0] : !t[0] ? e.neg(t[1]) : e.sub(t[0], t[1]));
  return success();
}

LogicalResult MulOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  Value toLhs = e.mul(ct[0], getRhs());
  out.append({toLhs, e.mul(getLhs(), ct[0])});
  return success();
}
LogicalResult MulOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  // Locals fix the order of the emitted ops (argument order is unspecified).
  Value fromLhs = t[0] ? e.mul(t[0], getRhs()) : Value();
  Value fromRhs = t[1] ? e.mul(getLhs(), t[1]) : Value();
  out.push_back(e.addOrNull(fromLhs, fromRhs));
  return success();
}

// d(a/b) = da / b - (a/b) db / b
LogicalResult DivOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  Value ga = e.div(ct[0], getRhs());
  out.append({ga, e.neg(e.mul(ga, getResult()))});
  return success();
}
LogicalResult DivOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  Value numerator =
      !t[1] ? t[0] : e.sub(e.orZeros(t[0], getLhs()), e.mul(getResult(), t[1]));
  out.push_back(e.div(numerator, getRhs()));
  return success();
}

namespace {
// d(a^b)/da = b a^(b-1) (0 where b == 0); d(a^b)/db = a^b log(a) (0 where
// a == 0, the limit for b > 0), as JAX does.
std::pair<Value, Value> powPartials(PowOp op, Emit &e) {
  Value a = op.getLhs(), bExp = op.getRhs(), y = op.getResult();
  Value zeros = e.zerosLike(a);
  Value da = e.mul(bExp, e.pow(a, e.sub(bExp, e.splatLike(bExp, 1))));
  da = e.select(e.compare(ComparisonDirection::eq, bExp, zeros), zeros, da);
  Value aIsZero = e.compare(ComparisonDirection::eq, a, zeros);
  Value safeA = e.select(aIsZero, e.splatLike(a, 1), a);
  Value db = e.select(aIsZero, zeros, e.mul(y, e.log(safeA)));
  return {da, db};
}

// atan2(a, b) = the angle of (b, a): d/da = b / (a^2 + b^2), d/db = -a /
// (a^2 + b^2), NaN at the origin as in JAX.
std::pair<Value, Value> atan2Partials(Atan2Op op, Emit &e) {
  Value a = op.getLhs(), bArg = op.getRhs();
  Value radius2 = e.add(e.mul(a, a), e.mul(bArg, bArg));
  return {e.div(bArg, radius2), e.div(e.neg(a), radius2)};
}

// x rem y = x - trunc(x / y) y: d/dx = 1, d/dy = -trunc(x / y), as JAX.
std::pair<Value, Value> remPartials(RemOp op, Emit &e) {
  Value quotient = e.div(op.getLhs(), op.getRhs());
  Value truncated = e.mul(e.sign(quotient), e.floor(e.abs(quotient)));
  return {e.splatLike(quotient, 1), e.neg(truncated)};
}

// The share of max/min's cotangent that goes to operand `own` against
// `other`: 1 where it alone is selected, 1/2 on ties (split
// deterministically), 0 otherwise, so that where either is NaN (the
// result is NaN) neither gets any, as in JAX.
Value share(Value own, Value other, ComparisonDirection wins, Emit &e) {
  Value one = e.splatLike(own, 1), half = e.splatLike(own, 0.5), zero = e.zerosLike(own);
  return e.select(e.compare(wins, own, other), one,
                  e.select(e.compare(ComparisonDirection::eq, own, other), half, zero));
}
std::pair<Value, Value> maxPartials(MaxOp op, Emit &e) {
  return {share(op.getLhs(), op.getRhs(), ComparisonDirection::gt, e),
          share(op.getRhs(), op.getLhs(), ComparisonDirection::gt, e)};
}
std::pair<Value, Value> minPartials(MinOp op, Emit &e) {
  return {share(op.getLhs(), op.getRhs(), ComparisonDirection::lt, e),
          share(op.getRhs(), op.getLhs(), ComparisonDirection::lt, e)};
}
} // namespace

// Binary ops with local partials (d/da, d/db): the cotangent times each,
// or the tangents' sum weighted by them.
#define ADJIT_PARTIALS_RULE(OP, PARTIALS)                                      \
  LogicalResult OP::buildVJP(OpBuilder &b, ValueRange ct,                      \
                             SmallVectorImpl<Value> &out, DerivativeContext &) { \
    Emit e(b, getLoc());                                                       \
    auto [da, db] = PARTIALS(*this, e);                                        \
    Value toLhs = e.mul(ct[0], da);                                            \
    out.append({toLhs, e.mul(ct[0], db)});                                     \
    return success();                                                          \
  }                                                                            \
  LogicalResult OP::buildJVP(OpBuilder &b, ValueRange t,                       \
                             SmallVectorImpl<Value> &out, DerivativeContext &) { \
    Emit e(b, getLoc());                                                       \
    auto [da, db] = PARTIALS(*this, e);                                        \
    Value fromLhs = t[0] ? e.mul(t[0], da) : Value();                          \
    Value fromRhs = t[1] ? e.mul(t[1], db) : Value();                          \
    out.push_back(e.addOrNull(fromLhs, fromRhs));                              \
    return success();                                                          \
  }
ADJIT_PARTIALS_RULE(PowOp, powPartials)
ADJIT_PARTIALS_RULE(Atan2Op, atan2Partials)
ADJIT_PARTIALS_RULE(RemOp, remPartials)
ADJIT_PARTIALS_RULE(MaxOp, maxPartials)
ADJIT_PARTIALS_RULE(MinOp, minPartials)
#undef ADJIT_PARTIALS_RULE

LogicalResult SelectOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                 DerivativeContext &) {
  Emit e(b, getLoc());
  Value zeros = e.zerosLike(ct[0]);
  out.append({Value(), e.select(getPred(), ct[0], zeros), e.select(getPred(), zeros, ct[0])});
  return success();
}
LogicalResult SelectOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                 DerivativeContext &) {
  Emit e(b, getLoc());
  if (!t[1] && !t[2]) {
    out.push_back(Value());
    return success();
  }
  out.push_back(e.select(getPred(), e.orZeros(t[1], getOnTrue()), e.orZeros(t[2], getOnFalse())));
  return success();
}

//===----------------------------------------------------------------------===//
// Conversion and shape ops
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                  DerivativeContext &) {
  Emit e(b, getLoc());
  bool floatToFloat = isFloatTensor(getOperand().getType()) && isFloatTensor(getResult().getType());
  out.push_back(floatToFloat ? e.convert(ct[0], Emit::elementType(getOperand())) : Value());
  return success();
}
LogicalResult ConvertOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                  DerivativeContext &) {
  Emit e(b, getLoc());
  bool floatToFloat = isFloatTensor(getOperand().getType()) && isFloatTensor(getResult().getType());
  out.push_back(floatToFloat ? e.convert(t[0], Emit::elementType(getResult())) : Value());
  return success();
}

// The adjoint of a broadcast sums over the repeated dimensions.
LogicalResult BroadcastInDimOp::buildVJP(OpBuilder &b, ValueRange ct,
                                         SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  RankedTensorType operand = getOperand().getType(), result = getType();
  SmallVector<int64_t> summed;
  for (int64_t d = 0; d < result.getRank(); ++d) {
    auto it = llvm::find(getDims(), d);
    bool kept = it != getDims().end() &&
                operand.getDimSize(it - getDims().begin()) == result.getDimSize(d);
    if (!kept)
      summed.push_back(d);
  }
  Value reduced = e.reduce(ReduceKind::sum, ct[0], summed);
  // The surviving dims are in result order; put them in operand order.
  SmallVector<int64_t> survivingOperandDims;  // operand dim of each survivor
  for (int64_t d : otherDimensions(result.getRank(), summed))
    survivingOperandDims.push_back(llvm::find(getDims(), d) - getDims().begin());
  SmallVector<int64_t> perm(survivingOperandDims.size());
  for (size_t i = 0; i < perm.size(); ++i)
    perm[i] = i;
  llvm::sort(perm, [&](int64_t x, int64_t y) {
    return survivingOperandDims[x] < survivingOperandDims[y];
  });
  out.push_back(e.reshape(e.transpose(reduced, perm), operand));
  return success();
}
LogicalResult BroadcastInDimOp::buildJVP(OpBuilder &b, ValueRange t,
                                         SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.broadcast(t[0], getType(), getDims()));
  return success();
}

LogicalResult ReshapeOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                  DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.reshape(ct[0], getOperand().getType()));
  return success();
}
LogicalResult ReshapeOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                  DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.reshape(t[0], getType()));
  return success();
}

LogicalResult TransposeOp::buildVJP(OpBuilder &b, ValueRange ct,
                                    SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  SmallVector<int64_t> inverse(getPerm().size());
  for (auto [i, p] : llvm::enumerate(getPerm()))
    inverse[p] = i;
  out.push_back(e.transpose(ct[0], inverse));
  return success();
}
LogicalResult TransposeOp::buildJVP(OpBuilder &b, ValueRange t,
                                    SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(e.transpose(t[0], getPerm()));
  return success();
}

// The adjoint of a strided slice scatters back with (interior) zero padding.
LogicalResult SliceOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                DerivativeContext &) {
  Emit e(b, getLoc());
  RankedTensorType operand = getOperand().getType(), result = getType();
  SmallVector<int64_t> low, high, interior;
  for (int64_t d = 0; d < operand.getRank(); ++d) {
    int64_t n = result.getDimSize(d), stride = getStride()[d], size = operand.getDimSize(d);
    int64_t covered = n == 0 ? 0 : (n - 1) * stride + 1;
    low.push_back(n == 0 ? size : getStart()[d]);
    interior.push_back(n == 0 ? 0 : stride - 1);
    high.push_back(size - low.back() - covered);
  }
  Value zero = createSplat(b, getLoc(), RankedTensorType::get({}, operand.getElementType()), 0);
  out.push_back(e.b.create<PadOp>(e.loc, operand, ct[0], zero, low, high, interior));
  return success();
}
LogicalResult SliceOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                DerivativeContext &) {
  out.push_back(b.create<SliceOp>(getLoc(), getType(), t[0], getStart(), getLimit(), getStride()));
  return success();
}

LogicalResult PadOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  RankedTensorType operand = getOperand().getType();
  SmallVector<int64_t> start, limit, stride;
  for (int64_t d = 0; d < operand.getRank(); ++d) {
    int64_t n = operand.getDimSize(d), step = getInterior()[d] + 1;
    start.push_back(getLow()[d]);
    limit.push_back(getLow()[d] + (n == 0 ? 0 : (n - 1) * step + 1));
    stride.push_back(step);
  }
  Value operandCt = b.create<SliceOp>(getLoc(), operand, ct[0], start, limit, stride);
  // Every padded position takes the padding value.
  Value valueCt = e.sub(e.sumAll(ct[0]), e.sumAll(operandCt));
  out.append({operandCt, valueCt});
  return success();
}
LogicalResult PadOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(b.create<PadOp>(getLoc(), getType(), e.orZeros(t[0], getOperand()),
                                e.orZeros(t[1], getPaddingValue()), getLow(), getHigh(),
                                getInterior()));
  return success();
}

LogicalResult ConcatenateOp::buildVJP(OpBuilder &b, ValueRange ct,
                                      SmallVectorImpl<Value> &out, DerivativeContext &) {
  RankedTensorType result = getType();
  SmallVector<int64_t> start(result.getRank(), 0), limit(result.getShape()),
      stride(result.getRank(), 1);
  int64_t dim = getDim();
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    limit[dim] = start[dim] + type.getDimSize(dim);
    out.push_back(b.create<SliceOp>(getLoc(), type, ct[0], start, limit, stride));
    start[dim] = limit[dim];
  }
  return success();
}
LogicalResult ConcatenateOp::buildJVP(OpBuilder &b, ValueRange t,
                                      SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  SmallVector<Value> tangents;
  for (auto [tangent, input] : llvm::zip(t, getInputs()))
    tangents.push_back(e.orZeros(tangent, input));
  out.push_back(b.create<ConcatenateOp>(getLoc(), getType(), tangents, getDim()));
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                 DerivativeContext &) {
  Emit e(b, getLoc());
  Value scattered = b.create<ScatterAddOp>(getLoc(), getOperand().getType(),
                                           e.zerosLike(getOperand()), getIndices(), ct[0],
                                           getAxis());
  out.append({scattered, Value()});
  return success();
}
LogicalResult GatherOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                 DerivativeContext &) {
  out.push_back(t[0] ? b.create<GatherOp>(getLoc(), getType(), t[0], getIndices(), getAxis())
                           .getResult()
                     : Value());
  return success();
}

LogicalResult DynamicSliceOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                       DerivativeContext &) {
  Emit e(b, getLoc());
  out.push_back(b.create<DynamicUpdateSliceOp>(getLoc(), getOperand().getType(),
                                               e.zerosLike(getOperand()), getStarts(), ct[0]));
  out.append(getStarts().size(), Value());
  return success();
}
LogicalResult DynamicSliceOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                       DerivativeContext &) {
  out.push_back(t[0] ? b.create<DynamicSliceOp>(getLoc(), getType(), t[0], getStarts()).getResult()
                     : Value());
  return success();
}

LogicalResult DynamicUpdateSliceOp::buildVJP(OpBuilder &b, ValueRange ct,
                                             SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  // The block was overwritten: the operand's cotangent there is zero.
  out.push_back(b.create<DynamicUpdateSliceOp>(getLoc(), getType(), ct[0], getStarts(),
                                               e.zerosLike(getUpdate())));
  out.append(getStarts().size(), Value());
  out.push_back(b.create<DynamicSliceOp>(getLoc(), getUpdate().getType(), ct[0], getStarts()));
  return success();
}
LogicalResult DynamicUpdateSliceOp::buildJVP(OpBuilder &b, ValueRange t,
                                             SmallVectorImpl<Value> &out, DerivativeContext &) {
  Value operandTangent = t[0], updateTangent = t.back();
  if (!operandTangent && !updateTangent) {
    out.push_back(Value());
    return success();
  }
  Emit e(b, getLoc());
  out.push_back(b.create<DynamicUpdateSliceOp>(getLoc(), getType(),
                                               e.orZeros(operandTangent, getOperand()),
                                               getStarts(), e.orZeros(updateTangent, getUpdate())));
  return success();
}

LogicalResult ScatterAddOp::buildVJP(OpBuilder &b, ValueRange ct,
                                     SmallVectorImpl<Value> &out, DerivativeContext &) {
  Value updatesCt = b.create<GatherOp>(getLoc(), getUpdates().getType(), ct[0], getIndices(),
                                       getAxis());
  out.append({ct[0], Value(), updatesCt});
  return success();
}
LogicalResult ScatterAddOp::buildJVP(OpBuilder &b, ValueRange t,
                                     SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  if (!t[2]) {
    out.push_back(t[0]);
    return success();
  }
  out.push_back(b.create<ScatterAddOp>(getLoc(), getType(), e.orZeros(t[0], getBase()),
                                       getIndices(), t[2], getAxis()));
  return success();
}

namespace {
// JAX's rule for a scatter's extrema: the base elements and the updates
// equal to the result they reach (as 0/1 of the result's type), and how
// many reach each result element (at least 1 unless it is NaN).
struct Extremal {
  Value retained, chosen, count;

  static Extremal of(ScatterExtremumOp op, Emit &e, OpBuilder &b) {
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    Value reached = b.create<GatherOp>(loc, op.getUpdates().getType(), op.getResult(),
                                       op.getIndices(), op.getAxis());
    Value retained =
        e.convert(e.compare(ComparisonDirection::eq, op.getBase(), op.getResult()), element);
    Value chosen =
        e.convert(e.compare(ComparisonDirection::eq, op.getUpdates(), reached), element);
    Value reaching = b.create<ScatterAddOp>(loc, op.getType(), e.zerosLike(op.getBase()),
                                            op.getIndices(), chosen, op.getAxis());
    Value count = e.add(retained, reaching);
    return {retained, chosen, count};
  }
};
} // namespace

LogicalResult ScatterExtremumOp::buildVJP(OpBuilder &b, ValueRange ct,
                                          SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  Extremal extremal = Extremal::of(*this, e, b);
  Value shared = e.div(ct[0], extremal.count);
  Value updatesCt = b.create<GatherOp>(getLoc(), getUpdates().getType(), shared, getIndices(),
                                       getAxis());
  out.append({e.mul(shared, extremal.retained), Value(), e.mul(updatesCt, extremal.chosen)});
  return success();
}
LogicalResult ScatterExtremumOp::buildJVP(OpBuilder &b, ValueRange t,
                                          SmallVectorImpl<Value> &out, DerivativeContext &) {
  if (!t[0] && !t[2]) {
    out.push_back(Value());
    return success();
  }
  Emit e(b, getLoc());
  Extremal extremal = Extremal::of(*this, e, b);
  Value sum = e.mul(e.orZeros(t[0], getBase()), extremal.retained);
  if (t[2])
    sum = b.create<ScatterAddOp>(getLoc(), getType(), sum, getIndices(),
                                 e.mul(t[2], extremal.chosen), getAxis());
  out.push_back(e.div(sum, extremal.count));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

namespace {
// For max/min: 1/(number of extremal elements) at each extremal element, 0
// elsewhere, so ties share the cotangent equally.
Value extremalShare(ReduceOp op, Emit &e) {
  RankedTensorType operand = op.getOperand().getType();
  SmallVector<int64_t> kept = otherDimensions(operand.getRank(), op.getDims());
  Value extremum = e.broadcast(op.getResult(), operand, kept);
  Value hits = e.convert(e.compare(ComparisonDirection::eq, op.getOperand(), extremum),
                         operand.getElementType());
  Value count = e.broadcast(e.reduce(ReduceKind::sum, hits, op.getDims()), operand, kept);
  return e.div(hits, count);
}
} // namespace

LogicalResult ReduceOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                 DerivativeContext &) {
  Emit e(b, getLoc());
  RankedTensorType operand = getOperand().getType();
  Value spread = e.broadcast(ct[0], operand, otherDimensions(operand.getRank(), getDims()));
  out.push_back(getKind() == ReduceKind::sum ? spread : e.mul(spread, extremalShare(*this, e)));
  return success();
}
LogicalResult ReduceOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                 DerivativeContext &) {
  Emit e(b, getLoc());
  Value weighted = getKind() == ReduceKind::sum ? t[0] : e.mul(t[0], extremalShare(*this, e));
  out.push_back(e.reduce(ReduceKind::sum, weighted, getDims()));
  return success();
}

namespace {

// Transposes `x`, whose dims correspond to `order` (operand dims), into the
// operand's own dim order.
Value toOperandOrder(Emit &e, Value x, ArrayRef<int64_t> order) {
  SmallVector<int64_t> perm(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    perm[order[i]] = i;
  return e.transpose(x, perm);
}

// The cotangent of one dot_general operand: contract the result cotangent
// with the other operand over the other's free dims.
Value dotOperandCotangent(Emit &e, Value ct, Value other, int64_t numBatch,
                          ArrayRef<int64_t> otherBatch, ArrayRef<int64_t> otherContract,
                          ArrayRef<int64_t> ctOtherFree, ArrayRef<int64_t> mineBatch,
                          ArrayRef<int64_t> mineFree, ArrayRef<int64_t> mineContract,
                          RankedTensorType mineType) {
  auto otherType = cast<RankedTensorType>(other.getType());
  SmallVector<int64_t> otherFree =
      freeDimensions(otherType.getRank(), otherBatch, otherContract);
  SmallVector<int64_t> ctBatch;
  for (int64_t i = 0; i < numBatch; ++i)
    ctBatch.push_back(i);
  // Result dims: batch, my free dims, then other's contracting dims in
  // ascending other-dim order (each paired with one of my contract dims).
  SmallVector<int64_t> shape, order(mineBatch);
  for (int64_t d : mineBatch)
    shape.push_back(mineType.getDimSize(d));
  for (int64_t d : mineFree) {
    shape.push_back(mineType.getDimSize(d));
    order.push_back(d);
  }
  SmallVector<int64_t> otherContractSorted(otherContract);
  llvm::sort(otherContractSorted);
  for (int64_t d : otherContractSorted) {
    int64_t pair = llvm::find(otherContract, d) - otherContract.begin();
    shape.push_back(mineType.getDimSize(mineContract[pair]));
    order.push_back(mineContract[pair]);
  }
  Value product = e.b.create<DotGeneralOp>(
      e.loc, mineType.clone(shape), ct, other, ctBatch, otherBatch, ctOtherFree, otherFree);
  return toOperandOrder(e, product, order);
}
} // namespace

LogicalResult DotGeneralOp::buildVJP(OpBuilder &b, ValueRange ct,
                                     SmallVectorImpl<Value> &out, DerivativeContext &) {
  Emit e(b, getLoc());
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  int64_t numBatch = getLhsBatch().size();
  SmallVector<int64_t> lhsFree = freeDimensions(lhs.getRank(), getLhsBatch(), getLhsContract());
  SmallVector<int64_t> rhsFree = freeDimensions(rhs.getRank(), getRhsBatch(), getRhsContract());
  // Positions of each operand's free dims in the result.
  SmallVector<int64_t> ctLhsFree, ctRhsFree;
  for (size_t i = 0; i < lhsFree.size(); ++i)
    ctLhsFree.push_back(numBatch + i);
  for (size_t i = 0; i < rhsFree.size(); ++i)
    ctRhsFree.push_back(numBatch + lhsFree.size() + i);
  Value lhsCt = dotOperandCotangent(e, ct[0], getRhs(), numBatch, getRhsBatch(),
                                    getRhsContract(), ctRhsFree, getLhsBatch(), lhsFree,
                                    getLhsContract(), lhs);
  Value rhsCt = dotOperandCotangent(e, ct[0], getLhs(), numBatch, getLhsBatch(),
                                    getLhsContract(), ctLhsFree, getRhsBatch(), rhsFree,
                                    getRhsContract(), rhs);
  out.append({lhsCt, rhsCt});
  return success();
}
LogicalResult DotGeneralOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                     DerivativeContext &) {
  Emit e(b, getLoc());
  auto dot = [&](Value l, Value r) -> Value {
    return b.create<DotGeneralOp>(getLoc(), getType(), l, r, getLhsBatch(), getRhsBatch(),
                                  getLhsContract(), getRhsContract());
  };
  Value fromLhs = t[0] ? dot(t[0], getRhs()) : Value();
  Value fromRhs = t[1] ? dot(getLhs(), t[1]) : Value();
  out.push_back(e.addOrNull(fromLhs, fromRhs));
  return success();
}

// The barrier is the identity: derivatives pass through it.
LogicalResult OptimizationBarrierOp::buildVJP(OpBuilder &b, ValueRange cotangents,
                                              SmallVectorImpl<Value> &out, DerivativeContext &) {
  llvm::append_range(out, cotangents);
  return success();
}
LogicalResult OptimizationBarrierOp::buildJVP(OpBuilder &b, ValueRange tangents,
                                              SmallVectorImpl<Value> &out, DerivativeContext &) {
  llvm::append_range(out, tangents);
  return success();
}
