// Derivative rules of the linear algebra ops (cholesky, triangular_solve,
// solve, slogdet), as JAX's: each written with the ops themselves, batched matrix
// products and triangle masks, so that they differentiate again.
#include "Emit.h"
#include "adjit/Dialect/AdjitOps.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Batched matrix algebra on [batch..., rows, cols] tensors.
class MatrixEmit : public Emit {
public:
  using Emit::Emit;

  static RankedTensorType typeOf(Value x) { return cast<RankedTensorType>(x.getType()); }

  // x^T: the last two dimensions swapped.
  Value swapLast(Value x) {
    int64_t rank = typeOf(x).getRank();
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      perm.push_back(d);
    std::swap(perm[rank - 1], perm[rank - 2]);
    return transpose(x, perm);
  }

  // x @ y for x [batch..., m, k] and y [batch..., k, n].
  Value matmul(Value x, Value y) {
    RankedTensorType xt = typeOf(x), yt = typeOf(y);
    int64_t rank = xt.getRank();
    SmallVector<int64_t> batch, shape(xt.getShape().drop_back(1));
    for (int64_t d = 0; d < rank - 2; ++d)
      batch.push_back(d);
    shape.push_back(yt.getDimSize(rank - 1));
    return b.create<DotGeneralOp>(loc, xt.clone(shape), x, y, batch, batch,
                                  ArrayRef<int64_t>{rank - 1}, ArrayRef<int64_t>{rank - 2});
  }

  // The lower (i > j) or upper (i < j) triangle of the square matrices x,
  // with the diagonal times `diagonal` (1 keeps it, 0 drops it); zeros
  // elsewhere.
  Value triangle(Value x, bool lower, double diagonal) {
    Value zeros = zerosLike(x);
    Value onDiagonal = diagonal == 0 ? zeros : diagonal == 1 ? x : mulScalar(x, diagonal);
    Value inside = rowsVersusColumns(x, lower ? ComparisonDirection::gt : ComparisonDirection::lt);
    return select(inside, x, select(rowsVersusColumns(x, ComparisonDirection::eq), onDiagonal, zeros));
  }

  // The identity matrices of x's shape, times `scale` ([batch...], one
  // factor per matrix) where given.
  Value diagonalMatrices(Value x, Value scale = {}) {
    RankedTensorType type = typeOf(x);
    Value diagonal = splatLike(x, 1);
    if (scale) {
      SmallVector<int64_t> batch;
      for (int64_t d = 0; d < type.getRank() - 2; ++d)
        batch.push_back(d);
      diagonal = broadcast(scale, type, batch);
    }
    return select(rowsVersusColumns(x, ComparisonDirection::eq), diagonal, zerosLike(x));
  }
  // The traces of the square matrices x.
  Value trace(Value x) {
    int64_t rank = typeOf(x).getRank();
    return reduce(ReduceKind::sum, mul(x, diagonalMatrices(x)), {rank - 2, rank - 1});
  }

  Value triangularSolve(Value a, Value rhs, bool lower, bool transposeA, bool unitDiagonal) {
    auto op = b.create<TriangularSolveOp>(loc, rhs.getType(), a, rhs);
    op.setLower(lower);
    op.setTransposeA(transposeA);
    op.setUnitDiagonal(unitDiagonal);
    return op;
  }
  Value solve(Value a, Value rhs) { return b.create<SolveOp>(loc, rhs.getType(), a, rhs); }

private:
  // Where (row index `direction` column index) holds, x's shape.
  Value rowsVersusColumns(Value x, ComparisonDirection direction) {
    RankedTensorType type = typeOf(x);
    int64_t rank = type.getRank();
    auto indexType = type.clone(b.getI32Type());
    return compare(direction, b.create<IotaOp>(loc, indexType, rank - 2),
                   b.create<IotaOp>(loc, indexType, rank - 1));
  }
};

} // namespace

// With S = (A + A^T) / 2 and L = chol(S): dL = L Phi(L^-1 dS L^-T), and
// L^-1 dS L^-T is two triangular solves, the second on the first's
// transpose (dS is symmetric).
LogicalResult CholeskyOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                   DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value l = getResult();
  Value ds = e.mulScalar(e.add(t[0], e.swapLast(t[0])), 0.5);
  Value half = e.triangularSolve(l, ds, /*lower=*/true, false, false);
  Value inner = e.triangularSolve(l, e.swapLast(half), /*lower=*/true, false, false);
  out.push_back(e.matmul(l, e.triangle(inner, /*lower=*/true, 0.5)));
  return success();
}
// The adjoint of the JVP above: G = L^-T Phi(L^T Lbar) L^-1, symmetrized
// (S's two triangles share each entry).
LogicalResult CholeskyOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                   DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value l = getResult();
  Value phi = e.triangle(e.matmul(e.swapLast(l), ct[0]), /*lower=*/true, 0.5);
  Value left = e.triangularSolve(l, phi, /*lower=*/true, /*transposeA=*/true, false);
  Value gTransposed = e.triangularSolve(l, e.swapLast(left), true, true, false);
  out.push_back(e.mulScalar(e.add(gTransposed, e.swapLast(gTransposed)), 0.5));
  return success();
}

namespace {
// The part of `m` that a triangular solve reads of its matrix.
Value readTriangle(MatrixEmit &e, TriangularSolveOp op, Value m) {
  return e.triangle(m, op.getLower(), op.getUnitDiagonal() ? 0 : 1);
}
} // namespace

// X = op(A)^-1 B: dX = op(A)^-1 (dB - op(dA) X).
LogicalResult TriangularSolveOp::buildJVP(OpBuilder &b, ValueRange t,
                                          SmallVectorImpl<Value> &out, DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value rhs = t[1];
  if (t[0]) {
    Value da = readTriangle(e, *this, t[0]);
    Value product = e.matmul(getTransposeA() ? e.swapLast(da) : da, getResult());
    rhs = rhs ? e.sub(rhs, product) : e.neg(product);
  }
  out.push_back(
      e.triangularSolve(getA(), rhs, getLower(), getTransposeA(), getUnitDiagonal()));
  return success();
}
LogicalResult TriangularSolveOp::buildVJP(OpBuilder &b, ValueRange ct,
                                          SmallVectorImpl<Value> &out, DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value x = getResult();
  Value bBar =
      e.triangularSolve(getA(), ct[0], getLower(), !getTransposeA(), getUnitDiagonal());
  Value outer = getTransposeA() ? e.matmul(x, e.swapLast(bBar)) : e.matmul(bBar, e.swapLast(x));
  out.append({e.neg(readTriangle(e, *this, outer)), bBar});
  return success();
}

// X = A^-1 B: dX = A^-1 (dB - dA X).
LogicalResult SolveOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value rhs = t[1];
  if (t[0]) {
    Value product = e.matmul(t[0], getResult());
    rhs = rhs ? e.sub(rhs, product) : e.neg(product);
  }
  out.push_back(e.solve(getA(), rhs));
  return success();
}
LogicalResult SolveOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value bBar = e.solve(e.swapLast(getA()), ct[0]);
  out.append({e.neg(e.matmul(bBar, e.swapLast(getResult()))), bBar});
  return success();
}

// d log|det A| = tr(A^-1 dA); the sign's derivative is zero where defined.
LogicalResult SlogdetOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                                  DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  out.append({Value(), e.trace(e.solve(getOperand(), t[0]))});
  return success();
}
// Abar = logabsdetbar A^-T: one solve with A^T of the scaled identities.
LogicalResult SlogdetOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                                  DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  if (!ct[1]) {
    out.push_back(Value());
    return success();
  }
  Value a = getOperand();
  out.push_back(e.solve(e.swapLast(a), e.diagonalMatrices(a, ct[1])));
  return success();
}
