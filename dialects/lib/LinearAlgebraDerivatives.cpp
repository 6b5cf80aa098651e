// Derivative rules of the linear algebra ops (cholesky, triangular_solve,
// solve, slogdet, eigh, qr, svd, lu), as JAX's: each written with the ops themselves, batched matrix
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

  // Matrices of `type` with `entries` on their diagonals and zeros
  // elsewhere: entries [batch...] (the same on a matrix's diagonal),
  // [batch..., n] (one per diagonal entry), or none (identities).
  Value diagonalMatrices(RankedTensorType type, Value entries = {}) {
    int64_t rank = type.getRank();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank - 2; ++d)
      dims.push_back(d);
    if (entries && typeOf(entries).getRank() == rank - 1)
      dims.push_back(rank - 1);
    Value zeros = createSplat(b, loc, type, 0);
    Value diagonal = entries ? broadcast(entries, type, dims) : createSplat(b, loc, type, 1);
    return select(rowsVersusColumns(zeros, ComparisonDirection::eq), diagonal, zeros);
  }
  // The diagonals [batch..., n] of the square matrices x.
  Value diagonalOf(Value x) {
    return reduce(ReduceKind::sum, mul(x, diagonalMatrices(typeOf(x))), {typeOf(x).getRank() - 1});
  }
  // The traces of the square matrices x.
  Value trace(Value x) {
    return reduce(ReduceKind::sum, diagonalOf(x), {typeOf(x).getRank() - 2});
  }
  // (x + x^T) / 2.
  Value symmetricPart(Value x) { return mulScalar(add(x, swapLast(x)), 0.5); }

  Value triangularSolve(Value a, Value rhs, bool lower, bool transposeA, bool unitDiagonal) {
    auto op = b.create<TriangularSolveOp>(loc, rhs.getType(), a, rhs);
    op.setLower(lower);
    op.setTransposeA(transposeA);
    op.setUnitDiagonal(unitDiagonal);
    return op;
  }
  Value solve(Value a, Value rhs) { return b.create<SolveOp>(loc, rhs.getType(), a, rhs); }

  // Square matrices of `type` with ones on the diagonal from row `first`
  // on and zeros elsewhere.
  Value identityFrom(RankedTensorType type, int64_t first) {
    Value zeros = createSplat(b, loc, type, 0), ones = createSplat(b, loc, type, 1);
    Value rows = b.create<IotaOp>(loc, type.clone(b.getI32Type()), type.getRank() - 2);
    Value from = compare(ComparisonDirection::ge, rows, splatLike(rows, first));
    return select(rowsVersusColumns(zeros, ComparisonDirection::eq),
                  select(from, ones, zeros), zeros);
  }

  // The rows of the matrices x [batch..., m, n] taken in the order of
  // `permutation` [batch..., m] (row i of the result is row permutation[i]
  // of x), or, with `inverse`, put back where they came from: one gather
  // (scatter_add) of the batch's rows, each permutation offset by its
  // matrix's first row.
  Value permuteRows(Value x, Value permutation, bool inverse) {
    RankedTensorType type = typeOf(x);
    int64_t rank = type.getRank(), m = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
    int64_t matrices = 1;
    for (int64_t size : type.getShape().drop_back(2))
      matrices *= size;
    auto positionsType = RankedTensorType::get({matrices, m}, b.getI32Type());
    Value matrix = b.create<IotaOp>(loc, positionsType, 0);
    Value firstRows = mul(matrix, splatLike(matrix, m));
    Value rows = reshape(add(reshape(permutation, positionsType), firstRows),
                         positionsType.clone({matrices * m}));
    auto flatType = type.clone({matrices * m, n});
    Value flat = reshape(x, flatType);
    Value moved = inverse ? b.create<ScatterAddOp>(loc, flatType, zerosLike(flat), rows, flat, 0)
                                .getResult()
                          : b.create<GatherOp>(loc, flatType, flat, rows, 0).getResult();
    return reshape(moved, type);
  }

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
  Value ds = e.symmetricPart(t[0]);
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
  out.push_back(e.symmetricPart(gTransposed));
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
  out.push_back(e.solve(e.swapLast(a), e.diagonalMatrices(e.typeOf(a), ct[1])));
  return success();
}

namespace {
// F[i][j] = 1 / (w[j] - w[i]) off the diagonal and 0 on it, for the
// eigenvalues w of `matrices` (JAX's reciprocal(I + w_j - w_i) - I).
Value reciprocalGaps(MatrixEmit &e, Value w, RankedTensorType matrices) {
  int64_t rank = matrices.getRank();
  SmallVector<int64_t> byColumn, byRow;
  for (int64_t d = 0; d < rank - 2; ++d)
    byColumn.push_back(d), byRow.push_back(d);
  byColumn.push_back(rank - 1);
  byRow.push_back(rank - 2);
  Value identity = e.diagonalMatrices(matrices);
  Value gaps = e.sub(e.broadcast(w, matrices, byColumn), e.broadcast(w, matrices, byRow));
  return e.sub(e.div(e.splatLike(gaps, 1), e.add(identity, gaps)), identity);
}
} // namespace

// With M = V^T dS V: dw = diag(M), dV = V (F * M).
LogicalResult EighOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                               DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value v = getEigenvectors();
  Value m = e.matmul(e.swapLast(v), e.matmul(e.symmetricPart(t[0]), v));
  Value gaps = reciprocalGaps(e, getEigenvalues(), e.typeOf(v));
  out.append({e.diagonalOf(m), e.matmul(v, e.mul(gaps, m))});
  return success();
}
// The adjoint: Sbar = V (diag(wbar) + F * (V^T Vbar)) V^T, symmetrized.
LogicalResult EighOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                               DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value v = getEigenvectors();
  RankedTensorType type = e.typeOf(v);
  Value inner;
  if (ct[0])
    inner = e.diagonalMatrices(type, ct[0]);
  if (ct[1]) {
    Value gaps = reciprocalGaps(e, getEigenvalues(), type);
    inner = e.addOrNull(inner, e.mul(gaps, e.matmul(e.swapLast(v), ct[1])));
  }
  out.push_back(e.symmetricPart(e.matmul(v, e.matmul(inner, e.swapLast(v)))));
  return success();
}

namespace {
// Z R^-1, or Z R^-T where `transposed`: the transpose of a solve with R^T
// (or R) from the left.
Value timesInverseOfR(MatrixEmit &e, Value z, Value r, bool transposed) {
  return e.swapLast(
      e.triangularSolve(r, e.swapLast(z), /*lower=*/false, /*transposeA=*/!transposed, false));
}

// The columns [from, to) of the matrices x, and x and y side by side.
Value columns(MatrixEmit &e, Value x, int64_t from, int64_t to) {
  RankedTensorType type = e.typeOf(x);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts(rank, 0), limits(type.getShape()), strides(rank, 1), shape(limits);
  starts.back() = from;
  limits.back() = to;
  shape.back() = to - from;
  return e.b.create<SliceOp>(e.loc, type.clone(shape), x, starts, limits, strides);
}
Value sideBySide(MatrixEmit &e, Value x, Value y) {
  RankedTensorType type = e.typeOf(x);
  SmallVector<int64_t> shape(type.getShape());
  shape.back() += e.typeOf(y).getShape().back();
  return e.b.create<ConcatenateOp>(e.loc, type.clone(shape), ValueRange{x, y},
                                   type.getRank() - 1);
}

// The rows and columns of `op`'s operand matrices.
std::pair<int64_t, int64_t> rowsAndColumns(QrOp op) {
  ArrayRef<int64_t> shape = op.getOperand().getType().getShape();
  return {shape[shape.size() - 2], shape.back()};
}

// Of A = Q R with m >= n (R square and invertible): with X = dA R^-1,
// C = Q^T X and W = tril(C, -1) - tril(C, -1)^T (skew-symmetric),
// dQ = Q (W - C) + X and dR = (C - W) R.
std::pair<Value, Value> tallQrJVP(MatrixEmit &e, Value da, Value q, Value r) {
  Value x = timesInverseOfR(e, da, r, /*transposed=*/false);
  Value c = e.matmul(e.swapLast(q), x);
  Value below = e.triangle(c, /*lower=*/true, 0);
  Value w = e.sub(below, e.swapLast(below));
  return {e.add(e.matmul(q, e.sub(w, c)), x), e.matmul(e.sub(c, w), r)};
}
// Its adjoint: Abar = (Qbar + Q N) R^-T, N the symmetric matrix with the
// upper triangle of M = Rbar R^T - Q^T Qbar (the inner products with C and
// with W's two triangles of C fold into it). Null cotangents are zeros.
Value tallQrVJP(MatrixEmit &e, Value qBar, Value rBar, Value q, Value r) {
  Value m;
  if (rBar)
    m = e.matmul(rBar, e.swapLast(r));
  if (qBar) {
    Value fromQ = e.matmul(e.swapLast(q), qBar);
    m = m ? e.sub(m, fromQ) : e.neg(fromQ);
  }
  if (!m)
    return Value();
  Value n = e.add(e.triangle(m, /*lower=*/false, 1), e.swapLast(e.triangle(m, false, 0)));
  Value z = e.matmul(q, n);
  return timesInverseOfR(e, qBar ? e.add(qBar, z) : z, r, /*transposed=*/true);
}
} // namespace

// m >= n: the rule above. m < n: A = [X Y] with X square, whose QR gives Q
// and R's first m columns, and the rest of R is Q^T Y: dR's rest is
// dQ^T Y + Q^T dY (PyTorch's rule; JAX has none).
LogicalResult QrOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                             DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value a = getOperand(), q = getQ(), r = getR();
  auto [m, n] = rowsAndColumns(*this);
  if (m >= n) {
    auto [dq, dr] = tallQrJVP(e, t[0], q, r);
    out.append({dq, dr});
    return success();
  }
  auto [dq, drSquare] = tallQrJVP(e, columns(e, t[0], 0, m), q, columns(e, r, 0, m));
  Value drRest = e.add(e.matmul(e.swapLast(dq), columns(e, a, m, n)),
                       e.matmul(e.swapLast(q), columns(e, t[0], m, n)));
  out.append({dq, sideBySide(e, drSquare, drRest)});
  return success();
}
// The adjoints: Ybar = Q Rbar's rest, and X's as above with Qbar + Y
// (Rbar's rest)^T.
LogicalResult QrOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                             DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  Value a = getOperand(), q = getQ(), r = getR();
  auto [m, n] = rowsAndColumns(*this);
  if (m >= n) {
    out.push_back(tallQrVJP(e, ct[0], ct[1], q, r));
    return success();
  }
  Value qBar = ct[0], rBarSquare, yBar;
  if (ct[1]) {
    Value rBarRest = columns(e, ct[1], m, n);
    rBarSquare = columns(e, ct[1], 0, m);
    yBar = e.matmul(q, rBarRest);
    qBar = e.addOrNull(qBar, e.matmul(columns(e, a, m, n), e.swapLast(rBarRest)));
  }
  Value xBar = tallQrVJP(e, qBar, rBarSquare, q, columns(e, r, 0, m));
  if (!xBar && !yBar) {
    out.push_back(Value());
    return success();
  }
  out.push_back(sideBySide(e, e.orZeros(xBar, columns(e, a, 0, m)),
                           e.orZeros(yBar, columns(e, a, m, n))));
  return success();
}

namespace {
// The SVD's factors and the matrices its rules need: V = Vh^T, and the
// singular values along the rows or the columns of a matrix of `type`
// (entry (i, j) = s[j], or s[i]).
struct SvdFactors {
  Value u, s, v;
  Value alongRows(MatrixEmit &e, RankedTensorType type) const { return along(e, type, true); }
  Value alongColumns(MatrixEmit &e, RankedTensorType type) const { return along(e, type, false); }
  // (I - X X^T) Y S^-1: Y's part outside the columns of X (U or V).
  Value outside(MatrixEmit &e, Value x, Value y) const {
    return e.div(e.sub(y, e.matmul(x, e.matmul(e.swapLast(x), y))),
                 alongRows(e, MatrixEmit::typeOf(y)));
  }
  // Whether x (U or V) has more rows than columns.
  static bool tall(Value x) {
    ArrayRef<int64_t> shape = MatrixEmit::typeOf(x).getShape();
    return shape[shape.size() - 2] > shape.back();
  }

private:
  Value along(MatrixEmit &e, RankedTensorType type, bool rows) const {
    int64_t rank = type.getRank();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank - 2; ++d)
      dims.push_back(d);
    dims.push_back(rows ? rank - 1 : rank - 2);
    return e.broadcast(s, type, dims);
  }
};

SvdFactors factorsOf(MatrixEmit &e, SvdOp op) {
  return {op.getU(), op.getS(), e.swapLast(op.getVh())};
}

// [batch..., k, k] for U [batch..., rows, k].
RankedTensorType squareType(Value u) {
  RankedTensorType type = MatrixEmit::typeOf(u);
  SmallVector<int64_t> shape(type.getShape());
  shape[shape.size() - 2] = shape.back();
  return type.clone(shape);
}
} // namespace

// With dS = U^T dA V and F[i][j] = 1 / (s[j]^2 - s[i]^2) off the diagonal:
// ds = diag(dS), dU = U (F * (dS S + S dS^T)) + (I - U U^T) dA V S^-1 and
// dV = V (F * (S dS + dS^T S)) + (I - V V^T) dA^T U S^-1 (the last terms
// where U, or V, is not square).
LogicalResult SvdOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  SvdFactors f = factorsOf(e, *this);
  RankedTensorType square = squareType(f.u);
  Value ds = e.matmul(e.swapLast(f.u), e.matmul(t[0], f.v));
  Value gaps = reciprocalGaps(e, e.mul(f.s, f.s), square);
  Value dsS = e.mul(ds, f.alongRows(e, square)), sdS = e.mul(f.alongColumns(e, square), ds);
  Value du = e.matmul(f.u, e.mul(gaps, e.add(dsS, e.swapLast(dsS))));
  Value dv = e.matmul(f.v, e.mul(gaps, e.add(sdS, e.swapLast(sdS))));
  if (SvdFactors::tall(f.u))
    du = e.add(du, f.outside(e, f.u, e.matmul(t[0], f.v)));
  if (SvdFactors::tall(f.v))
    dv = e.add(dv, f.outside(e, f.v, e.matmul(e.swapLast(t[0]), f.u)));
  out.append({du, e.diagonalOf(ds), e.swapLast(dv)});
  return success();
}
// The adjoint: Abar = U (diag(sbar) + (Y + Y^T) S + S (Z + Z^T)) V^T with
// Y = F * (U^T Ubar) and Z = F * (V^T Vbar), plus (I - U U^T) Ubar S^-1
// V^T and U S^-1 Vbar^T (I - V V^T) where U, or V, is not square.
LogicalResult SvdOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                              DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  SvdFactors f = factorsOf(e, *this);
  RankedTensorType square = squareType(f.u);
  Value uBar = ct[0], sBar = ct[1], vBar = ct[2] ? e.swapLast(ct[2]) : Value();
  Value gaps = (uBar || vBar) ? reciprocalGaps(e, e.mul(f.s, f.s), square) : Value();
  auto symmetrized = [&](Value x, Value bar) {
    Value y = e.mul(gaps, e.matmul(e.swapLast(x), bar));
    return e.add(y, e.swapLast(y));
  };
  Value inner;
  if (sBar)
    inner = e.diagonalMatrices(square, sBar);
  if (uBar)
    inner = e.addOrNull(inner, e.mul(symmetrized(f.u, uBar), f.alongRows(e, square)));
  if (vBar)
    inner = e.addOrNull(inner, e.mul(f.alongColumns(e, square), symmetrized(f.v, vBar)));
  if (!inner) {
    out.push_back(Value());
    return success();
  }
  Value aBar = e.matmul(f.u, e.matmul(inner, e.swapLast(f.v)));
  if (uBar && SvdFactors::tall(f.u))
    aBar = e.add(aBar, e.matmul(f.outside(e, f.u, uBar), e.swapLast(f.v)));
  if (vBar && SvdFactors::tall(f.v))
    aBar = e.add(aBar, e.matmul(f.u, e.swapLast(f.outside(e, f.v, vBar))));
  out.push_back(aBar);
  return success();
}

namespace {
// The matrices x cut or padded with zeros to `rows` x `cols`.
Value resized(MatrixEmit &e, Value x, int64_t rows, int64_t cols) {
  RankedTensorType type = e.typeOf(x);
  int64_t rank = type.getRank();
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> kept(shape), zeros(rank, 0), ones(rank, 1), high(rank, 0);
  kept[rank - 2] = std::min(rows, shape[rank - 2]);
  kept[rank - 1] = std::min(cols, shape[rank - 1]);
  Value cut = x;
  if (ArrayRef<int64_t>(kept) != shape)
    cut = e.b.create<SliceOp>(e.loc, type.clone(kept), x, zeros, kept, ones);
  high[rank - 2] = rows - kept[rank - 2];
  high[rank - 1] = cols - kept[rank - 1];
  if (llvm::all_of(high, [](int64_t h) { return h == 0; }))
    return cut;
  SmallVector<int64_t> padded(kept);
  padded[rank - 2] = rows;
  padded[rank - 1] = cols;
  Value zero = createSplat(e.b, e.loc, type.clone(ArrayRef<int64_t>{}), 0);
  return e.b.create<PadOp>(e.loc, type.clone(padded), cut, zero, zeros, high, zeros);
}

// P A = L U of m x n matrices, with L completed to an m x m unit lower
// triangular matrix and U to an n x n upper triangular one by the identity
// (JAX's), so that both are invertible where U's first k rows are.
struct LuFactors {
  Value l, u, permutation;
};
LuFactors factorsOf(MatrixEmit &e, LuOp op) {
  RankedTensorType type = op.getLu().getType();
  int64_t rank = type.getRank(), m = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
  SmallVector<int64_t> lShape(type.getShape()), uShape(type.getShape());
  lShape[rank - 1] = m;
  uShape[rank - 2] = n;
  Value l = e.add(e.triangle(resized(e, op.getLu(), m, m), /*lower=*/true, 0),
                  e.identityFrom(type.clone(lShape), 0));
  Value u = e.add(e.triangle(resized(e, op.getLu(), n, n), /*lower=*/false, 1),
                  e.identityFrom(type.clone(uShape), std::min(m, n)));
  return {l, u, op.getPermutation()};
}
} // namespace

// With X = L^-1 P dA U^-1: d lu = L tril(X, -1) + triu(X) U (dL below the
// diagonal, dU in and above it).
LogicalResult LuOp::buildJVP(OpBuilder &b, ValueRange t, SmallVectorImpl<Value> &out,
                             DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  LuFactors f = factorsOf(e, *this);
  Value la = e.triangularSolve(f.l, e.permuteRows(t[0], f.permutation, /*inverse=*/false),
                               /*lower=*/true, false, /*unitDiagonal=*/true);
  Value x = timesInverseOfR(e, la, f.u, /*transposed=*/false);
  out.append({e.add(e.matmul(f.l, e.triangle(x, /*lower=*/true, 0)),
                    e.matmul(e.triangle(x, /*lower=*/false, 1), f.u)),
              Value(), Value()});
  return success();
}
// The adjoint of each step above, in reverse.
LogicalResult LuOp::buildVJP(OpBuilder &b, ValueRange ct, SmallVectorImpl<Value> &out,
                             DerivativeContext &) {
  MatrixEmit e(b, getLoc());
  if (!ct[0]) {
    out.push_back(Value());
    return success();
  }
  LuFactors f = factorsOf(e, *this);
  Value xBar = e.add(e.triangle(e.matmul(e.swapLast(f.l), ct[0]), /*lower=*/true, 0),
                     e.triangle(e.matmul(ct[0], e.swapLast(f.u)), /*lower=*/false, 1));
  Value laBar = timesInverseOfR(e, xBar, f.u, /*transposed=*/true);
  Value pdaBar = e.triangularSolve(f.l, laBar, /*lower=*/true, /*transposeA=*/true,
                                   /*unitDiagonal=*/true);
  out.push_back(e.permuteRows(pdaBar, f.permutation, /*inverse=*/true));
  return success();
}
