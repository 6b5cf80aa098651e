// Emit: the vocabulary of adjit ops that the derivative rules and the
// composite ops' expansions are written in, at one location.
#ifndef ADJIT_DIALECT_LIB_EMIT_H
#define ADJIT_DIALECT_LIB_EMIT_H

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::adjit {

class Emit {
public:
  Emit(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value splatLike(Value like, double value) {
    return createSplat(b, loc, like.getType(), value);
  }
  Value zerosLike(Value like) { return splatLike(like, 0); }
  Value add(Value x, Value y) { return b.create<AddOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<SubOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<MulOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<DivOp>(loc, x, y); }
  Value neg(Value x) { return b.create<NegOp>(loc, x); }
  Value abs(Value x) { return b.create<AbsOp>(loc, x); }
  Value exp(Value x) { return b.create<ExpOp>(loc, x); }
  Value log(Value x) { return b.create<LogOp>(loc, x); }
  Value sin(Value x) { return b.create<SinOp>(loc, x); }
  Value cos(Value x) { return b.create<CosOp>(loc, x); }
  Value tanh(Value x) { return b.create<TanhOp>(loc, x); }
  Value sinh(Value x) { return b.create<SinhOp>(loc, x); }
  Value cosh(Value x) { return b.create<CoshOp>(loc, x); }
  Value rsqrt(Value x) { return b.create<RsqrtOp>(loc, x); }
  Value sign(Value x) { return b.create<SignOp>(loc, x); }
  Value floor(Value x) { return b.create<FloorOp>(loc, x); }
  Value pow(Value x, Value y) { return b.create<PowOp>(loc, x, y); }
  Value integerPow(Value x, int64_t n) {
    return b.create<IntegerPowOp>(loc, x, b.getI64IntegerAttr(n));
  }
  Value select(Value p, Value x, Value y) { return b.create<SelectOp>(loc, x.getType(), p, x, y); }
  Value compare(ComparisonDirection d, Value x, Value y) {
    return b.create<CompareOp>(loc, d, x, y);
  }
  Value mulScalar(Value x, double c) { return mul(x, splatLike(x, c)); }

  // x + y where either may be null (zero).
  Value addOrNull(Value x, Value y) { return !x ? y : !y ? x : add(x, y); }
  Value orZeros(Value x, Value like) { return x ? x : zerosLike(like); }

  Value convert(Value x, Type element) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType() == element)
      return x;
    return b.create<ConvertOp>(loc, type.clone(element), x);
  }
  Value reshape(Value x, Type type) {
    return x.getType() == type ? x : b.create<ReshapeOp>(loc, type, x).getResult();
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    if (llvm::is_sorted(perm))
      return x;
    return b.create<TransposeOp>(loc, type.clone(shape), x, perm);
  }
  Value broadcast(Value x, RankedTensorType to, ArrayRef<int64_t> dims) {
    return x.getType() == to ? x : b.create<BroadcastInDimOp>(loc, to, x, dims).getResult();
  }
  Value reduce(ReduceKind kind, Value x, ArrayRef<int64_t> dims) {
    if (dims.empty())
      return x;
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : otherDimensions(type.getRank(), dims))
      shape.push_back(type.getDimSize(d));
    return b.create<ReduceOp>(loc, type.clone(shape), kind, x, dims);
  }
  Value sumAll(Value x) {
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < cast<RankedTensorType>(x.getType()).getRank(); ++d)
      all.push_back(d);
    return reduce(ReduceKind::sum, x, all);
  }

  static Type elementType(Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType();
  }

  OpBuilder &b;
  Location loc;
};

} // namespace mlir::adjit

#endif // ADJIT_DIALECT_LIB_EMIT_H
