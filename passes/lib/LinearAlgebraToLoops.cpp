// adjit.cholesky, adjit.triangular_solve and adjit.solve -> scf loops on
// tensors: one loop nest over the batch, and in it the textbook algorithm
// on one matrix (LAPACK's potrf, trsm and getrf+getrs, unblocked), element
// by element with tensor.extract/insert, which bufferization turns into
// loads and stores in place.
#include "LinearAlgebraToLoops.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Loops of up to this many iterations are unrolled (matrices up to 8x8 are
// factored by straight-line code).
constexpr int64_t kUnrolledTrips = 8;

// Builds the scalar code of one matrix problem of a batch: indices and
// elements at the batch position `batch`, arithmetic in the element type.
// Sums may be reassociated, so that LLVM vectorizes the dot products.
class MatrixBuilder {
public:
  MatrixBuilder(OpBuilder &b, Location loc, ValueRange batch, Type element)
      : b(b), loc(loc), batch(batch), element(element) {}

  Value index(int64_t i) { return b.create<arith::ConstantIndexOp>(loc, i); }
  Value constant(double value) {
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(element, value));
  }
  Value at(Value tensor, Value row, Value col) {
    return b.create<tensor::ExtractOp>(loc, tensor, position(row, col));
  }
  Value put(Value value, Value tensor, Value row, Value col) {
    return b.create<tensor::InsertOp>(loc, value, tensor, position(row, col));
  }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(loc, x, y, reassociable()); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y, reassociable()); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y, reassociable()); }
  Value div(Value x, Value y) { return b.create<arith::DivFOp>(loc, x, y); }

  // A loop over [lower, upper) carrying `carried`; `body` returns the new
  // carried values. A loop of at most kUnrolledTrips iterations between
  // constant bounds is unrolled: a small matrix's factorization becomes
  // straight-line code that LLVM keeps in registers, and consecutive
  // matrices of a batch overlap in the out-of-order core.
  using Body = function_ref<SmallVector<Value>(Value iv, ValueRange carried)>;
  SmallVector<Value> loop(Value lower, Value upper, ValueRange carried, Body body) {
    std::optional<int64_t> from = getConstantIntValue(lower), to = getConstantIntValue(upper);
    if (from && to && *to - *from <= kUnrolledTrips) {
      SmallVector<Value> values(carried);
      for (int64_t i = *from; i < *to; ++i)
        values = body(index(i), values);
      return values;
    }
    auto forOp = b.create<scf::ForOp>(
        loc, lower, upper, index(1), carried,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          b.create<scf::YieldOp>(loc, body(iv, args));
        });
    return SmallVector<Value>(forOp.getResults());
  }
  // i + offset, folded where i is a constant (in an unrolled loop).
  Value offset(Value i, int64_t offset) {
    return b.createOrFold<arith::AddIOp>(loc, i, index(offset));
  }
  // n - 1 - i: the i-th row from the end.
  Value fromEnd(int64_t n, Value i) {
    return b.createOrFold<arith::SubIOp>(loc, index(n - 1), i);
  }

  // `start` minus the sum of a(k) * c(k) over k in [lower, upper).
  Value minusDot(Value start, Value lower, Value upper,
                 function_ref<std::pair<Value, Value>(Value k)> factors) {
    return loop(lower, upper, start, [&](Value k, ValueRange acc) -> SmallVector<Value> {
      auto [x, y] = factors(k);
      return {sub(acc[0], mul(x, y))};
    })[0];
  }

  OpBuilder &b;
  Location loc;

private:
  arith::FastMathFlagsAttr reassociable() {
    return arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::reassoc |
                                                              arith::FastMathFlags::contract);
  }
  SmallVector<Value> position(Value row, Value col) {
    SmallVector<Value> p(batch);
    p.append({row, col});
    return p;
  }

  ValueRange batch;
  Type element;
};

// Runs `body` once per matrix of the batch dimensions of `type` (all but
// the last two), carrying `tensors` through: the loop nest's results.
SmallVector<Value> forEachMatrix(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange tensors,
    function_ref<SmallVector<Value>(MatrixBuilder &, ValueRange)> body) {
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : type.getShape().drop_back(2)) {
    lbs.push_back(zero);
    ubs.push_back(b.create<arith::ConstantIndexOp>(loc, size));
    steps.push_back(one);
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, tensors,
      [&](OpBuilder &nested, Location l, ValueRange ivs, ValueRange carried) {
        MatrixBuilder m(nested, l, ivs, type.getElementType());
        return scf::ValueVector(body(m, carried));
      });
  return SmallVector<Value>(nest.results);
}

Value zerosOfType(OpBuilder &b, Location loc, RankedTensorType type) {
  Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(type.getElementType(), 0));
  Value empty = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return b.create<linalg::FillOp>(loc, zero, empty).getResult(0);
}

// Column by column (left-looking): L[j][j] = sqrt(s[j][j] - sum L[j][k]^2),
// then L[i][j] = (s[i][j] - sum L[i][k] L[j][k]) / L[j][j] below it, where
// s is the symmetric part of the operand. A pivot that is not positive
// makes the diagonal NaN, which reaches L[n-1][n-1]; the matrix is then
// filled with NaN, as JAX reports a failed factorization.
struct CholeskyToLoops : OpConversionPattern<CholeskyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CholeskyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getShape().back();
    Value a = adaptor.getOperand();
    Value init = zerosOfType(rewriter, loc, type);
    if (n == 0) {
      rewriter.replaceOp(op, init);
      return success();
    }
    auto results = forEachMatrix(
        rewriter, loc, type, init, [&](MatrixBuilder &m, ValueRange carried) {
          Value half = m.constant(0.5), zero = m.constant(0);
          Value nan = m.constant(std::numeric_limits<double>::quiet_NaN());
          auto symmetric = [&](Value i, Value j) {
            return m.mul(m.add(m.at(a, i, j), m.at(a, j, i)), half);
          };
          Value first = m.index(0), size = m.index(n), last = m.index(n - 1);
          Value l = m.loop(first, size, carried, [&](Value j, ValueRange lj) -> SmallVector<Value> {
            Value s = m.minusDot(symmetric(j, j), first, j, [&](Value k) {
              Value ljk = m.at(lj[0], j, k);
              return std::pair{ljk, ljk};
            });
            Value positive = m.b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::OGT, s, zero);
            Value diagonal = m.b.create<arith::SelectOp>(
                m.loc, positive, m.b.create<math::SqrtOp>(m.loc, s), nan);
            Value withDiagonal = m.put(diagonal, lj[0], j, j);
            Value below = m.offset(j, 1);
            return m.loop(below, size, withDiagonal, [&](Value i, ValueRange li) -> SmallVector<Value> {
              Value v = m.minusDot(symmetric(i, j), first, j, [&](Value k) {
                return std::pair{m.at(li[0], i, k), m.at(li[0], j, k)};
              });
              return {m.put(m.div(v, diagonal), li[0], i, j)};
            });
          })[0];
          Value failed = m.b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::UNO,
                                                  m.at(l, last, last), m.at(l, last, last));
          auto ifOp = m.b.create<scf::IfOp>(m.loc, TypeRange{l.getType()}, failed,
                                            /*withElseRegion=*/true);
          OpBuilder::InsertionGuard guard(m.b);
          m.b.setInsertionPointToStart(ifOp.thenBlock());
          Value filled = m.loop(first, size, l, [&](Value i, ValueRange li) -> SmallVector<Value> {
            return m.loop(first, size, li, [&](Value j, ValueRange lij) -> SmallVector<Value> {
              return {m.put(nan, lij[0], i, j)};
            });
          })[0];
          m.b.create<scf::YieldOp>(m.loc, filled);
          m.b.setInsertionPointToStart(ifOp.elseBlock());
          m.b.create<scf::YieldOp>(m.loc, l);
          return SmallVector<Value>{ifOp.getResult(0)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

// Substitution, row by row in the order the triangle allows: X[i][c] =
// (B[i][c] - sum T[i][k] X[k][c]) / T[i][i] over the k solved before i,
// where T = op(A).
struct TriangularSolveToLoops : OpConversionPattern<TriangularSolveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TriangularSolveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getShape().drop_back().back(), cols = type.getShape().back();
    Value a = adaptor.getA();
    bool transposed = op.getTransposeA(), unit = op.getUnitDiagonal();
    // op(A) is lower triangular: solve from the first row down.
    bool forward = op.getLower() != transposed;
    auto results = forEachMatrix(
        rewriter, loc, type, adaptor.getB(), [&](MatrixBuilder &m, ValueRange carried) {
          auto t = [&](Value i, Value k) { return transposed ? m.at(a, k, i) : m.at(a, i, k); };
          Value first = m.index(0), size = m.index(n);
          return SmallVector<Value>(m.loop(first, size, carried, [&](Value step, ValueRange xs) {
            Value i = forward ? step : m.fromEnd(n, step);
            Value after = m.offset(i, 1);
            Value solvedFrom = forward ? first : after, solvedTo = forward ? i : size;
            return SmallVector<Value>(
                m.loop(first, m.index(cols), xs, [&](Value c, ValueRange xc) -> SmallVector<Value> {
                  Value s = m.minusDot(m.at(xc[0], i, c), solvedFrom, solvedTo, [&](Value k) {
                    return std::pair{t(i, k), m.at(xc[0], k, c)};
                  });
                  return {m.put(unit ? s : m.div(s, t(i, i)), xc[0], i, c)};
                }));
          }));
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

// Gaussian elimination with partial pivoting (getrf) applied to the
// right-hand sides as it goes, then back substitution with U (getrs).
struct SolveToLoops : OpConversionPattern<SolveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SolveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getShape().drop_back().back(), cols = type.getShape().back();
    Value init[] = {adaptor.getA(), adaptor.getB()};
    auto results = forEachMatrix(
        rewriter, loc, op.getA().getType(), init, [&](MatrixBuilder &m, ValueRange carried) {
          OpBuilder &b = m.b;
          Value first = m.index(0), size = m.index(n), width = m.index(cols);
          auto magnitude = [&](Value x) { return b.create<math::AbsFOp>(m.loc, x).getResult(); };
          // Swaps rows r and p >= r of `t` over columns [from, to). Where
          // the row loops are unrolled (r a constant), by selects over the
          // rows after r: every address stays a constant, and the matrix
          // in registers.
          auto swapRows = [&](Value t, Value r, Value p, Value from, Value to) {
            if (std::optional<int64_t> row = getConstantIntValue(r); row && n <= kUnrolledTrips)
              return m.loop(from, to, t, [&](Value c, ValueRange tc) -> SmallVector<Value> {
                Value current = tc[0], top = m.at(current, r, c), picked = top;
                for (int64_t i = *row + 1; i < n; ++i) {
                  Value at = m.index(i), v = m.at(current, at, c);
                  Value isPivot = b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::eq, p, at);
                  picked = b.create<arith::SelectOp>(m.loc, isPivot, v, picked);
                  current = m.put(b.create<arith::SelectOp>(m.loc, isPivot, top, v), current, at, c);
                }
                return {m.put(picked, current, r, c)};
              })[0];
            return m.loop(from, to, t, [&](Value c, ValueRange tc) -> SmallVector<Value> {
              Value x = m.at(tc[0], r, c), y = m.at(tc[0], p, c);
              return {m.put(x, m.put(y, tc[0], r, c), p, c)};
            })[0];
          };
          SmallVector<Value> eliminated = m.loop(first, size, carried, [&](Value j, ValueRange state) {
            Value lu = state[0], x = state[1];
            Value below = m.offset(j, 1);
            // The first row of the largest magnitude in column j, from j down.
            Value start[] = {magnitude(m.at(lu, j, j)), j};
            Value pivotRow = m.loop(below, size, start, [&](Value i, ValueRange best) -> SmallVector<Value> {
              Value v = magnitude(m.at(lu, i, j));
              Value larger = b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::OGT, v, best[0]);
              return {b.create<arith::SelectOp>(m.loc, larger, v, best[0]),
                      b.create<arith::SelectOp>(m.loc, larger, i, best[1])};
            })[1];
            // Columns before j are no longer read: the multipliers are
            // applied to x as they are found.
            lu = swapRows(lu, j, pivotRow, j, size);
            x = swapRows(x, j, pivotRow, first, width);
            Value pivot = m.at(lu, j, j);
            Value rows[] = {lu, x};
            return SmallVector<Value>(m.loop(below, size, rows, [&](Value i, ValueRange t) {
              Value factor = m.div(m.at(t[0], i, j), pivot);
              auto update = [&](Value tensor, Value from, Value to) {
                return m.loop(from, to, tensor, [&](Value c, ValueRange tc) -> SmallVector<Value> {
                  Value v = m.sub(m.at(tc[0], i, c), m.mul(factor, m.at(tc[0], j, c)));
                  return {m.put(v, tc[0], i, c)};
                })[0];
              };
              return SmallVector<Value>{update(t[0], below, size), update(t[1], first, width)};
            }));
          });
          Value lu = eliminated[0];
          Value solved = m.loop(first, size, eliminated[1], [&](Value step, ValueRange xs) {
            Value i = m.fromEnd(n, step);
            Value after = m.offset(i, 1);
            return SmallVector<Value>(
                m.loop(first, width, xs, [&](Value c, ValueRange xc) -> SmallVector<Value> {
                  Value s = m.minusDot(m.at(xc[0], i, c), after, size, [&](Value k) {
                    return std::pair{m.at(lu, i, k), m.at(xc[0], k, c)};
                  });
                  return {m.put(m.div(s, m.at(lu, i, i)), xc[0], i, c)};
                }));
          })[0];
          return SmallVector<Value>{lu, solved};
        });
    rewriter.replaceOp(op, results[1]);
    return success();
  }
};

} // namespace

void mlir::adjit::populateLinearAlgebraToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<CholeskyToLoops, TriangularSolveToLoops, SolveToLoops>(patterns.getContext());
}
