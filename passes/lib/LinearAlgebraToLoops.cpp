// adjit.cholesky, adjit.triangular_solve, adjit.solve, adjit.slogdet,
// adjit.lu, adjit.eigh, adjit.qr and adjit.svd -> scf loops on tensors: one
// loop nest over the batch, and in it the textbook algorithm on one matrix
// (LAPACK's potrf, trsm, getrf+getrs, getrf and geqr2+org2r, unblocked; cyclic
// Jacobi, two-sided and one-sided),
// element by element with tensor.extract/insert, which bufferization turns
// into loads and stores in place. On a CPU, a batch of small matrices (up
// to kUnrolledTrips rows and columns) runs a matrix per vector lane
// instead: the batch is rearranged in groups of `lanes` matrices with the
// lane innermost, and each group is loaded into registers, factored by
// straight-line vector code and stored.
#include "LinearAlgebraToLoops.h"
#include "LoopNests.h"
#include "ParallelChunks.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Loops of up to this many iterations are unrolled where matrices sit in
// vector lanes (matrices up to 8x8 are factored by straight-line code in
// registers); a matrix at a time, in tensors, only up to
// kUnrolledTensorTrips: unrolled code there is a chain of tensor.insert
// ops, whose bufferization analysis grows faster than quadratically with
// its length (an 8x8 solve took 23 s to compile).
constexpr int64_t kUnrolledTrips = 8;
constexpr int64_t kUnrolledTensorTrips = 4;

// Builds the code of one matrix problem of a batch: indices and elements at
// the batch position `batch` of tensors, arithmetic in the element type;
// or, with `lanes`, of a group of `lanes` matrices held in registers as
// vector<rows x cols x lanes> values, each element a vector of one entry
// of each matrix of the group.
// Sums may be reassociated, so that LLVM vectorizes the dot products.
class MatrixBuilder {
public:
  MatrixBuilder(OpBuilder &b, Location loc, ValueRange batch, Type element, int64_t lanes = 0)
      : b(b), loc(loc), batch(batch), element(element), lanes(lanes) {}

  Value index(int64_t i) { return b.create<arith::ConstantIndexOp>(loc, i); }
  Value constant(double value) {
    TypedAttr scalar = b.getFloatAttr(element, value);
    if (!lanes)
      return b.create<arith::ConstantOp>(loc, scalar);
    return b.create<arith::ConstantOp>(
        loc, SplatElementsAttr::get(VectorType::get({lanes}, element), scalar));
  }
  // A boolean per lane (one without lanes).
  Value boolean(bool value) {
    if (!lanes)
      return b.create<arith::ConstantIntOp>(loc, value, 1);
    return b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(VectorType::get({lanes}, b.getI1Type()), value));
  }
  Value at(Value matrix, Value row, Value col) {
    if (!lanes)
      return b.create<tensor::ExtractOp>(loc, matrix, position(row, col));
    return b.create<vector::ExtractOp>(loc, matrix, lanePosition(row, col));
  }
  Value put(Value value, Value matrix, Value row, Value col) {
    if (!lanes)
      return b.create<tensor::InsertOp>(loc, value, matrix, position(row, col));
    return b.create<vector::InsertOp>(loc, value, matrix, lanePosition(row, col));
  }
  // A row index, as a vector of one per lane where rows differ by matrix
  // (the pivot rows of LU).
  Value rowIndex(Value i) {
    if (!lanes || isa<VectorType>(i.getType()))
      return i;
    return b.create<vector::BroadcastOp>(loc, VectorType::get({lanes}, b.getIndexType()), i);
  }
  // The index i (or one per lane) as a value of the element type: LU's
  // pivots and permutation are carried in the matrices' own tensors.
  Value indexAsElement(Value i) {
    i = rowIndex(i);
    Type integer = b.getI32Type(), real = element;
    if (lanes) {
      integer = VectorType::get({lanes}, integer);
      real = VectorType::get({lanes}, element);
    }
    return b.create<arith::SIToFPOp>(loc, real, b.create<arith::IndexCastOp>(loc, integer, i));
  }
  bool perLane() const { return lanes > 0; }
  // Whether `condition` holds for any matrix (of the lanes).
  Value anyLane(Value condition) {
    if (!lanes)
      return condition;
    return b.create<vector::ReductionOp>(loc, vector::CombiningKind::OR, condition);
  }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(loc, x, y, reassociable()); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y, reassociable()); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y, reassociable()); }
  Value div(Value x, Value y) { return b.create<arith::DivFOp>(loc, x, y); }

  // Whether loops of `trips` iterations are unrolled.
  bool unrolls(int64_t trips) const {
    return trips <= (lanes ? kUnrolledTrips : kUnrolledTensorTrips);
  }

  // A loop over [lower, upper) carrying `carried`; `body` returns the new
  // carried values. A short loop between constant bounds is unrolled: a
  // small matrix's factorization becomes straight-line code that LLVM
  // keeps in registers.
  using Body = function_ref<SmallVector<Value>(Value iv, ValueRange carried)>;
  SmallVector<Value> loop(Value lower, Value upper, ValueRange carried, Body body,
                          bool unrollable = true) {
    std::optional<int64_t> from = getConstantIntValue(lower), to = getConstantIntValue(upper);
    if (from && to && (unrollable || lanes) && unrolls(*to - *from)) {
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
  // loop() with one carried value.
  Value each(Value lower, Value upper, Value state, function_ref<Value(Value i, Value state)> body,
             bool unrollable = true) {
    return loop(
        lower, upper, state,
        [&](Value i, ValueRange s) -> SmallVector<Value> { return {body(i, s[0])}; },
        unrollable)[0];
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
  // Where matrices sit in lanes, every loop is unrolled: rows and columns
  // are constants.
  SmallVector<int64_t> lanePosition(Value row, Value col) {
    return {*getConstantIntValue(row), *getConstantIntValue(col)};
  }

  ValueRange batch;
  Type element;
  int64_t lanes;
};

using MatrixBody =
    function_ref<SmallVector<Value>(MatrixBuilder &, ValueRange inputs, ValueRange carried)>;

// The lanes of a vector of `element`s in `vectorBits` (0 without vectors).
int64_t lanesOf(int64_t vectorBits, Type element) {
  return vectorBits / element.getIntOrFloatBitWidth();
}

// [batch..., rows, cols] -> [groups, rows, cols, lanes] and back: the
// batch, padded with zero matrices to whole groups, in groups of `lanes`
// matrices, each group contiguous (a batch-innermost layout of the whole
// batch would put a matrix's entries a power of two apart, in one cache
// set). adjit ops, which the conversion lowers like any others.
struct LaneGroups {
  int64_t count, lanes;
  int64_t groups() const { return (count + lanes - 1) / lanes; }
};

// A tensor that only holds a fill (the zeros that results start from) is
// filled in the groups' layout instead: no pass over it.
Value toLaneGroups(OpBuilder &b, Location loc, Value tensor, LaneGroups g) {
  auto type = cast<RankedTensorType>(tensor.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  if (auto fill = tensor.getDefiningOp<linalg::FillOp>()) {
    Value empty = b.create<tensor::EmptyOp>(
        loc, ArrayRef<int64_t>{g.groups(), rows, cols, g.lanes}, type.getElementType());
    return b.create<linalg::FillOp>(loc, fill.getInputs()[0], empty).getResult(0);
  }
  Value flat = b.create<ReshapeOp>(loc, type.clone({g.count, rows, cols}), tensor);
  if (int64_t extra = g.groups() * g.lanes - g.count) {
    Value zero = createSplat(b, loc, RankedTensorType::get({}, type.getElementType()), 0);
    flat = b.create<PadOp>(loc, type.clone({g.count + extra, rows, cols}), flat, zero,
                           ArrayRef<int64_t>{0, 0, 0}, ArrayRef<int64_t>{extra, 0, 0},
                           ArrayRef<int64_t>{0, 0, 0});
  }
  Value grouped = b.create<ReshapeOp>(loc, type.clone({g.groups(), g.lanes, rows, cols}), flat);
  return b.create<TransposeOp>(loc, type.clone({g.groups(), rows, cols, g.lanes}), grouped,
                               ArrayRef<int64_t>{0, 2, 3, 1});
}
Value fromLaneGroups(OpBuilder &b, Location loc, Value tensor, RankedTensorType original,
                     LaneGroups g) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t rows = type.getDimSize(1), cols = type.getDimSize(2);
  Value grouped = b.create<TransposeOp>(loc, type.clone({g.groups(), g.lanes, rows, cols}),
                                        tensor, ArrayRef<int64_t>{0, 3, 1, 2});
  Value flat =
      b.create<ReshapeOp>(loc, type.clone({g.groups() * g.lanes, rows, cols}), grouped);
  if (g.groups() * g.lanes != g.count)
    flat = b.create<SliceOp>(loc, type.clone({g.count, rows, cols}), flat,
                             ArrayRef<int64_t>{0, 0, 0}, ArrayRef<int64_t>{g.count, rows, cols},
                             ArrayRef<int64_t>{1, 1, 1});
  return b.create<ReshapeOp>(loc, original, flat);
}

// The loop over `count` groups of `lanes` matrices ([groups, rows, cols,
// lanes] tensors). Each group's matrices are loaded into registers first
// and stored last: the tensors are never read after a write in one
// iteration (which would make bufferization copy them).
SmallVector<Value> buildGroupLoop(OpBuilder &b, Location loc, int64_t count, int64_t lanes,
                                  Type element, ValueRange inputs, ValueRange carried,
                                  MatrixBody body) {
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  auto loop = b.create<scf::ForOp>(
      loc, zero, b.create<arith::ConstantIndexOp>(loc, count), one, carried,
      [&](OpBuilder &nested, Location l, Value group, ValueRange args) {
        auto entryAt = [&](int64_t row, int64_t col) {
          auto indexAt = [&](int64_t i) { return nested.create<arith::ConstantIndexOp>(l, i); };
          return SmallVector<Value>{group, indexAt(row), indexAt(col), indexAt(0)};
        };
        auto load = [&](Value tensor) {
          auto tensorType = cast<RankedTensorType>(tensor.getType());
          int64_t rows = tensorType.getDimSize(1), cols = tensorType.getDimSize(2);
          Value matrix = nested.create<arith::ConstantOp>(
              l, SplatElementsAttr::get(VectorType::get({rows, cols, lanes}, element),
                                        nested.getFloatAttr(element, 0)));
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
              Value entry = nested.create<vector::TransferReadOp>(
                  l, VectorType::get({lanes}, element), tensor, entryAt(i, j),
                  ArrayRef<bool>{true});
              matrix = nested.create<vector::InsertOp>(l, entry, matrix,
                                                       ArrayRef<int64_t>{i, j});
            }
          return matrix;
        };
        auto store = [&](Value matrix, Value tensor) {
          auto tensorType = cast<RankedTensorType>(tensor.getType());
          for (int64_t i = 0; i < tensorType.getDimSize(1); ++i)
            for (int64_t j = 0; j < tensorType.getDimSize(2); ++j) {
              Value entry =
                  nested.create<vector::ExtractOp>(l, matrix, ArrayRef<int64_t>{i, j});
              tensor = nested
                           .create<vector::TransferWriteOp>(l, entry, tensor, entryAt(i, j),
                                                            ArrayRef<bool>{true})
                           ->getResult(0);
            }
          return tensor;
        };
        SmallVector<Value> loadedInputs, loadedCarried, stored;
        for (Value v : inputs)
          loadedInputs.push_back(load(v));
        for (Value v : args)
          loadedCarried.push_back(load(v));
        MatrixBuilder m(nested, l, {}, element, lanes);
        SmallVector<Value> results = body(m, loadedInputs, loadedCarried);
        for (auto [result, tensor] : llvm::zip(results, args))
          stored.push_back(store(result, tensor));
        nested.create<scf::YieldOp>(l, stored);
      });
  return SmallVector<Value>(loop.getResults());
}

// forEachMatrix for `groups.lanes` matrices at a time, in parallel chunks
// of groups where there is enough work (n^3 multiply-adds per matrix).
SmallVector<Value> forEachLaneGroup(OpBuilder &b, Location loc, LaneGroups groups,
                                    ValueRange inputs, ValueRange carried, MatrixBody body) {
  auto type = cast<RankedTensorType>(carried[0].getType());
  Type element = type.getElementType();
  SmallVector<Value> groupedInputs, groupedCarried, results;
  for (Value v : inputs)
    groupedInputs.push_back(toLaneGroups(b, loc, v, groups));
  for (Value v : carried)
    groupedCarried.push_back(toLaneGroups(b, loc, v, groups));
  int64_t rows = type.getShape().drop_back().back();
  int64_t chunks =
      parallelChunks(groups.groups(), groups.groups() * groups.lanes * rows * rows * rows);
  SmallVector<Value> grouped = forEachChunk(
      b, loc, groups.groups(), chunks, groupedInputs, groupedCarried,
      [&](int64_t items, ValueRange chunkInputs, ValueRange chunkCarried) {
        return buildGroupLoop(b, loc, items, groups.lanes, element, chunkInputs, chunkCarried,
                              body);
      });
  for (auto [result, original] : llvm::zip(grouped, carried))
    results.push_back(fromLaneGroups(b, loc, result,
                                     cast<RankedTensorType>(original.getType()), groups));
  return results;
}

// Runs `body` on every matrix of a batch: `inputs` (read) and `carried`
// (updated, the results) are [batch..., rows, cols] alike in their batch
// dimensions. With `lanes` (> 1), matrices of at most kUnrolledTrips rows
// and columns run `lanes` matrices at a time, however few (a lone matrix
// in a group of padding compiles far faster than its unrolled code in
// tensors, and runs as fast); otherwise a loop nest runs one matrix at a
// time.
SmallVector<Value> forEachMatrix(OpBuilder &b, Location loc, int64_t lanes, ValueRange inputs,
                                 ValueRange carried, MatrixBody body) {
  auto type = cast<RankedTensorType>(carried[0].getType());
  ArrayRef<int64_t> batchShape = type.getShape().drop_back(2);
  int64_t count = 1;
  for (int64_t size : batchShape)
    count *= size;
  // Every loop of a matrix is unrolled where rows and columns are few.
  auto isSmall = [](Value v) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
    return shape[shape.size() - 2] <= kUnrolledTrips && shape.back() <= kUnrolledTrips;
  };
  bool small = llvm::all_of(inputs, isSmall) && llvm::all_of(carried, isSmall);
  if (lanes > 1 && small && count > 0)
    return forEachLaneGroup(b, loc, LaneGroups{count, lanes}, inputs, carried, body);
  SmallVector<Value> inputValues(inputs);
  return loopNestOver(b, loc, batchShape, carried,
                      [&](OpBuilder &nested, Location l, ValueRange ivs, ValueRange args) {
                        MatrixBuilder m(nested, l, ivs, type.getElementType());
                        return scf::ValueVector(body(m, inputValues, args));
                      });
}

// A pattern that knows the CPU's vector width (0: one matrix at a time).
template <class OpTy>
struct MatrixPattern : OpConversionPattern<OpTy> {
  MatrixPattern(MLIRContext *context, int64_t vectorBits)
      : OpConversionPattern<OpTy>(context), vectorBits(vectorBits) {}
  int64_t lanes(Type element) const { return lanesOf(vectorBits, element); }
  int64_t vectorBits;
};

Value zerosOfType(OpBuilder &b, Location loc, RankedTensorType type) {
  Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(type.getElementType(), 0));
  Value empty = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return b.create<linalg::FillOp>(loc, zero, empty).getResult(0);
}

// The matrices x (any batch) transposed: the last two dimensions swapped.
Value transposeMatrices(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm, shape(type.getShape());
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  std::swap(shape[rank - 1], shape[rank - 2]);
  return b.create<TransposeOp>(loc, type.clone(shape), x, perm);
}

// The machine epsilon of the float type `element` (2^-23 for f32).
double epsilonOf(Type element) {
  return std::ldexp(1.0, 1 - static_cast<int>(llvm::APFloat::semanticsPrecision(
                                 cast<FloatType>(element).getFloatSemantics())));
}

// Column by column (left-looking): L[j][j] = sqrt(s[j][j] - sum L[j][k]^2),
// then L[i][j] = (s[i][j] - sum L[i][k] L[j][k]) / L[j][j] below it, where
// s is the symmetric part of the operand. A pivot that is not positive
// makes the diagonal NaN, which reaches L[n-1][n-1]; the lower triangle is
// then filled with NaN, as JAX reports a failed factorization.
struct CholeskyToLoops : MatrixPattern<CholeskyOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(CholeskyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getShape().back();
    Value init = zerosOfType(rewriter, loc, type);
    if (n == 0) {
      rewriter.replaceOp(op, init);
      return success();
    }
    auto results = forEachMatrix(
        rewriter, loc, lanes(type.getElementType()), adaptor.getOperand(), init,
        [&](MatrixBuilder &m, ValueRange inputs, ValueRange carried) {
          Value a = inputs[0];
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
          // The lower triangle (with the diagonal) of a failed matrix
          // becomes NaN; its strict upper triangle stays zero, as JAX's.
          auto fill = [&](Value l, function_ref<Value(Value)> entry) {
            return m.loop(first, size, l, [&](Value i, ValueRange li) -> SmallVector<Value> {
              return m.loop(first, m.offset(i, 1), li,
                            [&](Value j, ValueRange lij) -> SmallVector<Value> {
                              return {m.put(entry(m.at(lij[0], i, j)), lij[0], i, j)};
                            });
            })[0];
          };
          // Matrices side by side in lanes fail or not each on its own.
          if (m.perLane())
            return SmallVector<Value>{fill(l, [&](Value x) -> Value {
              return m.b.create<arith::SelectOp>(m.loc, failed, nan, x);
            })};
          auto ifOp = m.b.create<scf::IfOp>(m.loc, TypeRange{l.getType()}, failed,
                                            /*withElseRegion=*/true);
          OpBuilder::InsertionGuard guard(m.b);
          m.b.setInsertionPointToStart(ifOp.thenBlock());
          m.b.create<scf::YieldOp>(m.loc, fill(l, [&](Value) { return nan; }));
          m.b.setInsertionPointToStart(ifOp.elseBlock());
          m.b.create<scf::YieldOp>(m.loc, l);
          return SmallVector<Value>{ifOp.getResult(0)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

// Substitution with the triangular T (t(i, k) its entries), row by row in
// the order the triangle allows: X[i][c] = (X[i][c] - sum T[i][k] X[k][c])
// / T[i][i] over the k solved before i, in place in the n x cols `x`.
Value substitute(MatrixBuilder &m, Value x, int64_t n, int64_t cols, bool forward, bool unit,
                 function_ref<Value(Value i, Value k)> t) {
  Value first = m.index(0), size = m.index(n);
  return m.loop(first, size, x, [&](Value step, ValueRange xs) {
    Value i = forward ? step : m.fromEnd(n, step);
    Value after = m.offset(i, 1);
    Value solvedFrom = forward ? first : after, solvedTo = forward ? i : size;
    return m.loop(first, m.index(cols), xs, [&](Value c, ValueRange xc) -> SmallVector<Value> {
      Value s = m.minusDot(m.at(xc[0], i, c), solvedFrom, solvedTo, [&](Value k) {
        return std::pair{t(i, k), m.at(xc[0], k, c)};
      });
      return {m.put(unit ? s : m.div(s, t(i, i)), xc[0], i, c)};
    });
  })[0];
}

// Substitution with T = op(A), from B.
struct TriangularSolveToLoops : MatrixPattern<TriangularSolveOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(TriangularSolveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getShape().drop_back().back(), cols = type.getShape().back();
    bool transposed = op.getTransposeA(), unit = op.getUnitDiagonal();
    // op(A) is lower triangular: solve from the first row down.
    bool forward = op.getLower() != transposed;
    auto results = forEachMatrix(
        rewriter, loc, lanes(type.getElementType()), adaptor.getA(), adaptor.getB(),
        [&](MatrixBuilder &m, ValueRange inputs, ValueRange carried) {
          Value a = inputs[0];
          auto t = [&](Value i, Value k) { return transposed ? m.at(a, k, i) : m.at(a, i, k); };
          return SmallVector<Value>{substitute(m, carried[0], n, cols, forward, unit, t)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

// The first row i in [from, n) whose key(i) is the largest (or, with
// `smallest`, the smallest): an index, or a vector of one per lane.
Value bestRow(MatrixBuilder &m, Value from, int64_t n, function_ref<Value(Value i)> key,
              bool smallest) {
  OpBuilder &b = m.b;
  Value start[] = {key(from), m.rowIndex(from)};
  return m.loop(m.offset(from, 1), m.index(n), start,
                [&](Value i, ValueRange best) -> SmallVector<Value> {
                  Value v = key(i);
                  Value better = b.create<arith::CmpFOp>(
                      m.loc, smallest ? arith::CmpFPredicate::OLT : arith::CmpFPredicate::OGT, v,
                      best[0]);
                  return {b.create<arith::SelectOp>(m.loc, better, v, best[0]),
                          b.create<arith::SelectOp>(m.loc, better, m.rowIndex(i), best[1])};
                })[1];
}

// Swaps rows r and p >= r of `t` (of n rows) over columns [from, to).
// Where the row loops are unrolled (r a constant), by selects over the rows
// after r: every address stays a constant, and the matrix in registers.
Value swapRows(MatrixBuilder &m, Value t, int64_t n, Value r, Value p, Value from, Value to) {
  OpBuilder &b = m.b;
  if (std::optional<int64_t> row = getConstantIntValue(r); row && m.unrolls(n))
    return m.loop(from, to, t, [&](Value c, ValueRange tc) -> SmallVector<Value> {
      Value current = tc[0], top = m.at(current, r, c), picked = top;
      for (int64_t i = *row + 1; i < n; ++i) {
        Value at = m.index(i), v = m.at(current, at, c);
        Value isPivot =
            b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::eq, p, m.rowIndex(at));
        picked = b.create<arith::SelectOp>(m.loc, isPivot, v, picked);
        current = m.put(b.create<arith::SelectOp>(m.loc, isPivot, top, v), current, at, c);
      }
      return {m.put(picked, current, r, c)};
    })[0];
  assert(!m.perLane() && "matrices in lanes are small: their rows are unrolled");
  return m.loop(from, to, t, [&](Value c, ValueRange tc) -> SmallVector<Value> {
    Value v = m.at(tc[0], r, c), w = m.at(tc[0], p, c);
    return {m.put(v, m.put(w, tc[0], r, c), p, c)};
  })[0];
}

// Gaussian elimination with partial pivoting (getrf) of the rows x cols
// `lu`, min(rows, cols) steps, whose row operations are applied as it goes
// to the rows x xCols `x` where there is one. The result's `lu` holds U in
// and above its diagonal; `sign` is the sign of the row permutation, where
// asked for. With `record` (adjit.lu), L's multipliers are kept below the
// diagonal, the exchanges cover whole rows, and step j's pivot row goes
// into row j of the k x 1 `record.pivots`, its exchange into the rows x 1
// `record.permutation` (indices as values of the element type); without
// it the multipliers are applied at once and not stored.
struct Elimination {
  Value lu, x, sign, pivots, permutation;
};
Elimination eliminate(MatrixBuilder &m, Value lu, int64_t rows, int64_t cols, Value x,
                      int64_t xCols, bool withSign, Elimination record = {}) {
  OpBuilder &b = m.b;
  bool keep = bool(record.pivots);
  Value first = m.index(0), height = m.index(rows), width = m.index(cols);
  // The state carried from column to column, in this order where present:
  // lu, x, pivots, permutation, sign.
  SmallVector<Value> start{lu};
  if (x)
    start.push_back(x);
  if (keep)
    start.append({record.pivots, record.permutation});
  if (withSign)
    start.push_back(m.constant(1));
  int64_t xAt = 1, pivotsAt = x ? 2 : 1, permutationAt = pivotsAt + 1;
  SmallVector<Value> eliminated =
      m.loop(first, m.index(std::min(rows, cols)), start, [&](Value j, ValueRange state) {
        SmallVector<Value> next(state);
        Value below = m.offset(j, 1);
        // The first row of the largest magnitude in column j, from j down.
        Value pivotRow = bestRow(
            m, j, rows,
            [&](Value i) {
              return b.create<math::AbsFOp>(m.loc, m.at(state[0], i, j)).getResult();
            },
            /*smallest=*/false);
        // Without `keep`, columns before j are no longer read: the
        // multipliers are applied to x as they are found.
        next[0] = swapRows(m, state[0], rows, j, pivotRow, keep ? first : j, width);
        if (x)
          next[xAt] = swapRows(m, state[xAt], rows, j, pivotRow, first, m.index(xCols));
        if (keep) {
          next[pivotsAt] = m.put(m.indexAsElement(pivotRow), state[pivotsAt], j, first);
          next[permutationAt] =
              swapRows(m, state[permutationAt], rows, j, pivotRow, first, m.index(1));
        }
        if (withSign) {
          Value swapped =
              b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::ne, pivotRow, m.rowIndex(j));
          Value sign = next.back();
          next.back() =
              b.create<arith::SelectOp>(m.loc, swapped, m.sub(m.constant(0), sign), sign);
        }
        // A zero pivot leaves its column as it is (LAPACK's getf2): the
        // column is zero from j down, and dividing by it would make NaN of
        // the rows below, and of the determinant.
        Value pivot = m.at(next[0], j, j), zero = m.constant(0);
        Value zeroPivot = b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::OEQ, pivot, zero);
        SmallVector<Value> updatedRows(ValueRange(next).take_front(x ? 2 : 1));
        SmallVector<Value> updated = m.loop(below, height, updatedRows, [&](Value i, ValueRange t) {
          Value factor = b.create<arith::SelectOp>(m.loc, zeroPivot, zero,
                                                   m.div(m.at(t[0], i, j), pivot));
          auto update = [&](Value tensor, Value from, Value to) {
            return m.loop(from, to, tensor, [&](Value c, ValueRange tc) -> SmallVector<Value> {
              Value v = m.sub(m.at(tc[0], i, c), m.mul(factor, m.at(tc[0], j, c)));
              return {m.put(v, tc[0], i, c)};
            })[0];
          };
          Value luRow = keep ? m.put(factor, t[0], i, j) : t[0];
          SmallVector<Value> done{update(luRow, below, width)};
          if (x)
            done.push_back(update(t[1], first, m.index(xCols)));
          return done;
        });
        llvm::copy(updated, next.begin());
        return next;
      });
  Elimination result{eliminated[0], x ? eliminated[xAt] : Value(),
                     withSign ? eliminated.back() : Value()};
  if (keep) {
    result.pivots = eliminated[pivotsAt];
    result.permutation = eliminated[permutationAt];
  }
  return result;
}

// getrf, then back substitution with U (getrs).
struct SolveToLoops : MatrixPattern<SolveOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(SolveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = type.getShape().drop_back().back(), cols = type.getShape().back();
    Value init[] = {adaptor.getA(), adaptor.getB()};
    auto results = forEachMatrix(
        rewriter, loc, lanes(type.getElementType()), {}, init,
        [&](MatrixBuilder &m, ValueRange, ValueRange carried) {
          Elimination e = eliminate(m, carried[0], n, n, carried[1], cols, /*withSign=*/false);
          Value solved = substitute(m, e.x, n, cols, /*forward=*/false, /*unit=*/false,
                                    [&](Value i, Value k) { return m.at(e.lu, i, k); });
          return SmallVector<Value>{e.lu, solved};
        });
    rewriter.replaceOp(op, results[1]);
    return success();
  }
};

// getrf, then the product of U's diagonal as a sign and a sum of logs, with
// the permutation's sign. Each matrix's pair is a 1 x 2 matrix of a
// [batch..., 1, 2] tensor, which forEachMatrix carries like any other.
struct SlogdetToLoops : MatrixPattern<SlogdetOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(SlogdetOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType matrices = op.getOperand().getType(), type = op.getSign().getType();
    int64_t n = matrices.getShape().back();
    if (n == 0) {
      // The empty product: det = 1.
      rewriter.replaceOp(op, {createSplat(rewriter, loc, type, 1),
                              createSplat(rewriter, loc, type, 0)});
      return success();
    }
    SmallVector<int64_t> pairShape(type.getShape());
    pairShape.append({1, 2});
    RankedTensorType pairType = matrices.clone(pairShape);
    Value init[] = {adaptor.getOperand(), zerosOfType(rewriter, loc, pairType)};
    auto results = forEachMatrix(
        rewriter, loc, lanes(type.getElementType()), {}, init,
        [&](MatrixBuilder &m, ValueRange, ValueRange carried) {
          OpBuilder &b = m.b;
          Elimination e = eliminate(m, carried[0], n, n, Value(), 0, /*withSign=*/true);
          Value one = m.constant(1), minusOne = m.constant(-1), zero = m.constant(0);
          Value start[] = {e.sign, zero};
          SmallVector<Value> product =
              m.loop(m.index(0), m.index(n), start, [&](Value j, ValueRange acc) {
                Value u = m.at(e.lu, j, j);
                auto is = [&](arith::CmpFPredicate predicate) {
                  return b.create<arith::CmpFOp>(m.loc, predicate, u, zero);
                };
                // 1 or -1 by u's sign; u itself where it is 0 or NaN.
                Value signOfU = b.create<arith::SelectOp>(
                    m.loc, is(arith::CmpFPredicate::OGT), one,
                    b.create<arith::SelectOp>(m.loc, is(arith::CmpFPredicate::OLT), minusOne, u));
                Value logOfU =
                    b.create<math::LogOp>(m.loc, b.create<math::AbsFOp>(m.loc, u));
                return SmallVector<Value>{m.mul(acc[0], signOfU), m.add(acc[1], logOfU)};
              });
          Value row = m.index(0);
          Value pair = m.put(product[1], m.put(product[0], carried[1], row, m.index(0)), row,
                             m.index(1));
          return SmallVector<Value>{e.lu, pair};
        });
    // The pairs' two columns, without the pair dimensions.
    auto column = [&](int64_t c) -> Value {
      SmallVector<int64_t> starts(pairShape.size(), 0), limits(pairShape),
          strides(pairShape.size(), 1);
      starts.back() = c;
      limits.back() = c + 1;
      SmallVector<int64_t> one(type.getShape());
      one.append({1, 1});
      Value slice = rewriter.create<SliceOp>(loc, matrices.clone(one), results[1], starts,
                                             limits, strides);
      return rewriter.create<ReshapeOp>(loc, type, slice);
    };
    rewriter.replaceOp(op, {column(0), column(1)});
    return success();
  }
};

// getrf with its multipliers, pivots and permutation kept. The pivots and
// the permutation are carried as k x 1 and m x 1 matrices of the element
// type beside the factors (exact: far fewer rows than 2^24) and converted
// to i32 after.
struct LuToLoops : MatrixPattern<LuOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(LuOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getLu().getType();
    RankedTensorType pivotsType = op.getPivots().getType();
    RankedTensorType permutationType = op.getPermutation().getType();
    int64_t rank = type.getRank(), rows = type.getDimSize(rank - 2),
            cols = type.getDimSize(rank - 1);
    Value identity = rewriter.create<IotaOp>(loc, permutationType, rank - 2);
    if (std::min(rows, cols) == 0) {
      rewriter.replaceOp(op, {adaptor.getOperand(), createSplat(rewriter, loc, pivotsType, 0),
                              identity});
      return success();
    }
    auto column = [&](RankedTensorType indices) {
      SmallVector<int64_t> shape(indices.getShape());
      shape.push_back(1);
      return type.clone(shape);
    };
    Value init[] = {adaptor.getOperand(), zerosOfType(rewriter, loc, column(pivotsType)),
                    rewriter.create<ConvertOp>(
                        loc, column(permutationType),
                        rewriter.create<ReshapeOp>(loc, column(permutationType).clone(
                                                            rewriter.getI32Type()),
                                                   identity))};
    auto results = forEachMatrix(
        rewriter, loc, lanes(type.getElementType()), {}, init,
        [&](MatrixBuilder &m, ValueRange, ValueRange carried) {
          Elimination e = eliminate(m, carried[0], rows, cols, Value(), 0, /*withSign=*/false,
                                    {Value(), Value(), Value(), carried[1], carried[2]});
          return SmallVector<Value>{e.lu, e.pivots, e.permutation};
        });
    auto indices = [&](Value carried, RankedTensorType indicesType) -> Value {
      Value flat = rewriter.create<ReshapeOp>(loc, indicesType.clone(type.getElementType()),
                                              carried);
      return rewriter.create<ConvertOp>(loc, indicesType, flat);
    };
    rewriter.replaceOp(op, {results[0], indices(results[1], pivotsType),
                            indices(results[2], permutationType)});
    return success();
  }
};

// Each row's exchanges applied in turn to 0, 1, ..., size - 1.
struct LuPivotsToPermutationToLoops : OpConversionPattern<LuPivotsToPermutationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LuPivotsToPermutationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getPermutation().getType();
    int64_t rank = type.getRank(), size = op.getSize();
    int64_t steps = op.getPivots().getType().getShape().back();
    Value identity = rewriter.create<IotaOp>(loc, type, rank - 1);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    Value last = rewriter.create<arith::ConstantIndexOp>(loc, size - 1);
    Value pivots = adaptor.getPivots();
    SmallVector<Value> results = loopNestOver(
        rewriter, loc, type.getShape().drop_back(), ValueRange{identity},
        [&](OpBuilder &b, Location l, ValueRange batch, ValueRange args) -> scf::ValueVector {
          auto at = [&](Value i) {
            SmallVector<Value> position(batch);
            position.push_back(i);
            return position;
          };
          auto step = b.create<scf::ForOp>(
              l, zero, b.create<arith::ConstantIndexOp>(l, steps), one, args[0],
              [&](OpBuilder &nb, Location nl, Value j, ValueRange perm) {
                Value pivot = nb.create<arith::IndexCastOp>(
                    nl, nb.getIndexType(), nb.create<tensor::ExtractOp>(nl, pivots, at(j)));
                // Into [j, size): an exchange only with a row not yet fixed.
                pivot = nb.create<arith::MinSIOp>(nl, nb.create<arith::MaxSIOp>(nl, pivot, j),
                                                  last);
                Value here = nb.create<tensor::ExtractOp>(nl, perm[0], at(j));
                Value there = nb.create<tensor::ExtractOp>(nl, perm[0], at(pivot));
                Value swapped = nb.create<tensor::InsertOp>(nl, there, perm[0], at(j));
                swapped = nb.create<tensor::InsertOp>(nl, here, swapped, at(pivot));
                nb.create<scf::YieldOp>(nl, swapped);
              });
          return {step.getResult(0)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

// The cyclic Jacobi method (Golub and Van Loan, 8.5.3) on S = (A + A^T) / 2:
// sweeps of plane rotations J, S <- J^T S J, each zeroing one off-diagonal
// entry in turn, while the off-diagonal part is above the element type's
// epsilon relative to S. Off-diagonal entries only ever combine with other
// off-diagonal entries, so their sum of squares falls (quadratically near
// the end) to that bound: a few sweeps. The eigenvectors are accumulated
// as the rows of W = V^T (rotations then exchange rows, as do the sorting
// exchanges); the eigenvalues, S's diagonal, are then sorted ascending, a
// column matrix, by selection.
constexpr int64_t kMaxSweeps = 40;

struct EighToLoops : MatrixPattern<EighOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(EighOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType matrices = op.getOperand().getType();
    RankedTensorType valuesType = op.getEigenvalues().getType();
    Type element = matrices.getElementType();
    int64_t n = matrices.getShape().back();
    SmallVector<int64_t> columnShape(valuesType.getShape());
    columnShape.push_back(1);
    RankedTensorType columnType = matrices.clone(columnShape);
    if (n == 0) {
      rewriter.replaceOp(op, {zerosOfType(rewriter, loc, valuesType),
                              zerosOfType(rewriter, loc, matrices)});
      return success();
    }
    double epsilon = epsilonOf(element);
    Value init[] = {adaptor.getOperand(), zerosOfType(rewriter, loc, matrices),
                    zerosOfType(rewriter, loc, columnType)};
    auto results = forEachMatrix(
        rewriter, loc, lanes(element), {}, init,
        [&](MatrixBuilder &m, ValueRange, ValueRange carried) {
          OpBuilder &b = m.b;
          Value first = m.index(0), size = m.index(n), one = m.constant(1);
          // S, symmetrized in place; W = I; and the largest magnitude in S,
          // which scales the convergence test (squares of large entries
          // would overflow).
          Value a = m.each(first, size, carried[0], [&](Value i, Value ai) {
            return m.each(first, i, ai, [&](Value j, Value aij) {
              Value v = m.mul(m.add(m.at(aij, i, j), m.at(aij, j, i)), m.constant(0.5));
              return m.put(v, m.put(v, aij, i, j), j, i);
            });
          });
          Value w = m.each(first, size, carried[1], [&](Value i, Value wi) { return m.put(one, wi, i, i); });
          auto magnitude = [&](Value x) { return b.create<math::AbsFOp>(m.loc, x).getResult(); };
          Value largest = m.each(first, size, m.constant(0), [&](Value i, Value li) {
            return m.each(first, size, li, [&](Value j, Value lij) -> Value {
              return b.create<arith::MaximumFOp>(m.loc, lij, magnitude(m.at(a, i, j)));
            });
          });
          // An infinite or NaN entry: NaN results, as LAPACK's (no sweeps).
          Value failed = b.create<arith::CmpFOp>(
              m.loc, arith::CmpFPredicate::UGE, largest,
              m.constant(std::numeric_limits<double>::infinity()));
          Value scale = m.div(one, largest);
          // The sum of squares of S's scaled entries, all or off the diagonal.
          auto sumOfSquares = [&](Value s, bool offDiagonal) {
            return m.each(first, size, m.constant(0), [&](Value i, Value acc) {
              return m.each(first, size, acc, [&](Value j, Value accj) -> Value {
                Value x = m.mul(m.at(s, i, j), scale), square = m.add(accj, m.mul(x, x));
                if (!offDiagonal)
                  return square;
                Value onDiagonal = b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::eq, i, j);
                return b.create<arith::SelectOp>(m.loc, onDiagonal, accj, square);
              });
            });
          };
          Value bound = m.mul(sumOfSquares(a, false), m.constant(epsilon * epsilon));
          // A rotation in the (p, q) plane zeroing S[p][q].
          auto rotate = [&](Value p, Value q, Value s, Value wt) -> std::pair<Value, Value> {
            Value spp = m.at(s, p, p), sqq = m.at(s, q, q), spq = m.at(s, p, q);
            Value zero = m.constant(0);
            Value theta = m.div(m.sub(sqq, spp), m.add(spq, spq));
            Value positive = b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::OGE, theta, zero);
            Value root = b.create<math::SqrtOp>(m.loc, m.add(m.mul(theta, theta), one));
            Value t = m.div(b.create<arith::SelectOp>(m.loc, positive, one, m.constant(-1)),
                            m.add(magnitude(theta), root));
            // Nothing to zero: no rotation (theta would be NaN or infinite).
            Value nothing = b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::OEQ, spq, zero);
            t = b.create<arith::SelectOp>(m.loc, nothing, zero, t);
            Value c = m.div(one, b.create<math::SqrtOp>(m.loc, m.add(m.mul(t, t), one)));
            Value sine = m.mul(t, c);
            // Columns (and, S being symmetric, rows) p and q of S; rows p
            // and q of W. S's four entries at p and q are set after.
            s = m.each(first, size, s, [&](Value r, Value sr) {
              Value srp = m.at(sr, r, p), srq = m.at(sr, r, q);
              Value rp = m.sub(m.mul(c, srp), m.mul(sine, srq));
              Value rq = m.add(m.mul(sine, srp), m.mul(c, srq));
              sr = m.put(rp, m.put(rp, sr, r, p), p, r);
              return m.put(rq, m.put(rq, sr, r, q), q, r);
            });
            s = m.put(m.sub(spp, m.mul(t, spq)), s, p, p);
            s = m.put(m.add(sqq, m.mul(t, spq)), s, q, q);
            s = m.put(zero, m.put(zero, s, p, q), q, p);
            wt = m.each(first, size, wt, [&](Value r, Value wr) {
              Value wpr = m.at(wr, p, r), wqr = m.at(wr, q, r);
              wr = m.put(m.sub(m.mul(c, wpr), m.mul(sine, wqr)), wr, p, r);
              return m.put(m.add(m.mul(sine, wpr), m.mul(c, wqr)), wr, q, r);
            });
            return {s, wt};
          };
          Value sweeps = m.index(0);
          Value start[] = {a, w, sweeps};
          auto loop = b.create<scf::WhileOp>(
              m.loc, ValueRange(start).getTypes(), start,
              [&](OpBuilder &nested, Location, ValueRange args) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                Value unconverged = m.anyLane(b.create<arith::CmpFOp>(
                    m.loc, arith::CmpFPredicate::OGT, sumOfSquares(args[0], true), bound));
                Value more = b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::slt, args[2],
                                                     m.index(kMaxSweeps));
                b.create<scf::ConditionOp>(
                    m.loc, b.create<arith::AndIOp>(m.loc, unconverged, more), args);
              },
              [&](OpBuilder &nested, Location, ValueRange args) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                Value pair[] = {args[0], args[1]};
                SmallVector<Value> swept =
                    m.loop(first, m.index(n - 1), pair, [&](Value p, ValueRange sp) {
                      return m.loop(m.offset(p, 1), size, sp, [&](Value q, ValueRange sq) {
                        auto [s, wt] = rotate(p, q, sq[0], sq[1]);
                        return SmallVector<Value>{s, wt};
                      });
                    });
                b.create<scf::YieldOp>(m.loc, ValueRange{swept[0], swept[1], m.offset(args[2], 1)});
              });
          Value diagonalized = loop.getResult(0);
          Value values = m.each(first, size, carried[2], [&](Value i, Value d) {
            return m.put(m.at(diagonalized, i, i), d, i, first);
          });
          Value sorted[] = {values, loop.getResult(1)};
          SmallVector<Value> done =
              m.loop(first, m.index(n - 1), sorted, [&](Value i, ValueRange state) {
                Value smallest = bestRow(
                    m, i, n, [&](Value k) { return m.at(state[0], k, first); }, /*smallest=*/true);
                return SmallVector<Value>{
                    swapRows(m, state[0], n, i, smallest, first, m.index(1)),
                    swapRows(m, state[1], n, i, smallest, first, size)};
              });
          // Matrices side by side in lanes fail or not each on its own.
          Value nan = m.constant(std::numeric_limits<double>::quiet_NaN());
          auto orNaN = [&](Value t, int64_t cols) {
            return m.each(first, size, t, [&](Value i, Value ti) {
              return m.each(first, m.index(cols), ti, [&](Value j, Value tij) {
                return m.put(b.create<arith::SelectOp>(m.loc, failed, nan, m.at(tij, i, j)), tij,
                             i, j);
              });
            });
          };
          return SmallVector<Value>{diagonalized, orNaN(done[1], n), orNaN(done[0], 1)};
        });
    // V = W^T; the eigenvalues without their column dimension.
    Value vectors = transposeMatrices(rewriter, loc, results[1]);
    rewriter.replaceOp(op, {rewriter.create<ReshapeOp>(loc, valuesType, results[2]).getResult(),
                            vectors});
    return success();
  }
};

// Column c of x, rows j.., times the reflection H_j = I - tau v v^T, where
// v[j] = 1 and v's entries below are those of column j of `reflectors`
// (of x itself where null: its column j is not changed).
Value reflectColumn(MatrixBuilder &m, Value x, Value reflectors, Value j, Value c, Value tau,
                    int64_t rows) {
  Value below = m.offset(j, 1), end = m.index(rows);
  auto v = [&](Value current, Value i) { return m.at(reflectors ? reflectors : current, i, j); };
  Value w = m.each(below, end, m.at(x, j, c), [&](Value i, Value acc) {
    return m.add(acc, m.mul(v(x, i), m.at(x, i, c)));
  });
  Value scaled = m.mul(tau, w);
  x = m.put(m.sub(m.at(x, j, c), scaled), x, j, c);
  return m.each(below, end, x, [&](Value i, Value xi) {
    return m.put(m.sub(m.at(xi, i, c), m.mul(scaled, v(xi, i))), xi, i, c);
  });
}

// Householder QR, as LAPACK's geqr2 then org2r: for each column j < k the
// reflection H_j that maps A[j:, j] onto beta e_j, beta = -sign(A[j][j])
// ||A[j:, j]||, is applied to the columns on its right, its v kept below
// A's diagonal and its tau in a k x 1 column; a column already zero below
// the diagonal gets none (tau = 0). R is A's upper triangle, and Q =
// H_0 ... H_{k-1} I[:, :k], accumulated from the last reflection back
// (H_j then changes rows and columns from j only). Norms are scaled by
// the column's largest magnitude, so that no square overflows.
struct QrToLoops : MatrixPattern<QrOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(QrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType matrices = op.getOperand().getType(), qType = op.getQ().getType(),
                     rType = op.getR().getType();
    int64_t rows = qType.getShape().drop_back().back(), cols = rType.getShape().back(),
            k = rType.getShape().drop_back().back();
    if (k == 0) {
      rewriter.replaceOp(op, {zerosOfType(rewriter, loc, qType), zerosOfType(rewriter, loc, rType)});
      return success();
    }
    SmallVector<int64_t> tauShape(rType.getShape().drop_back());
    tauShape.push_back(1);
    Value init[] = {adaptor.getOperand(), zerosOfType(rewriter, loc, matrices.clone(tauShape)),
                    zerosOfType(rewriter, loc, qType), zerosOfType(rewriter, loc, rType)};
    auto results = forEachMatrix(
        rewriter, loc, lanes(matrices.getElementType()), {}, init,
        [&](MatrixBuilder &m, ValueRange, ValueRange carried) {
          OpBuilder &b = m.b;
          Value first = m.index(0), end = m.index(rows), width = m.index(cols),
                rank = m.index(k), zero = m.constant(0), one = m.constant(1);
          auto magnitude = [&](Value x) { return b.create<math::AbsFOp>(m.loc, x).getResult(); };
          auto select = [&](Value condition, Value x, Value y) {
            return b.create<arith::SelectOp>(m.loc, condition, x, y).getResult();
          };
          Value start[] = {carried[0], carried[1]};
          SmallVector<Value> factored =
              m.loop(first, rank, start, [&](Value j, ValueRange state) -> SmallVector<Value> {
                Value a = state[0], below = m.offset(j, 1);
                Value alpha = m.at(a, j, j);
                Value tailLargest = m.each(below, end, zero, [&](Value i, Value acc) -> Value {
                  return b.create<arith::MaximumFOp>(m.loc, acc, magnitude(m.at(a, i, j)));
                });
                Value none = b.create<arith::CmpFOp>(m.loc, arith::CmpFPredicate::OEQ,
                                                     tailLargest, zero);
                Value scale = b.create<arith::MaximumFOp>(m.loc, tailLargest, magnitude(alpha));
                Value inverse = m.div(one, scale);
                Value scaledAlpha = m.mul(alpha, inverse);
                Value squares =
                    m.each(below, end, m.mul(scaledAlpha, scaledAlpha), [&](Value i, Value acc) {
                      Value x = m.mul(m.at(a, i, j), inverse);
                      return m.add(acc, m.mul(x, x));
                    });
                Value norm = m.mul(scale, b.create<math::SqrtOp>(m.loc, squares));
                Value beta = select(
                    none, alpha,
                    b.create<math::CopySignOp>(m.loc, norm, b.create<arith::NegFOp>(m.loc, alpha)));
                Value tau = select(none, zero, m.div(m.sub(beta, alpha), beta));
                Value vScale = select(none, zero, m.div(one, m.sub(alpha, beta)));
                a = m.each(below, end, a, [&](Value i, Value ai) {
                  return m.put(m.mul(m.at(ai, i, j), vScale), ai, i, j);
                });
                a = m.put(beta, a, j, j);
                a = m.each(below, width, a, [&](Value c, Value ac) {
                  return reflectColumn(m, ac, Value(), j, c, tau, rows);
                });
                return {a, m.put(tau, state[1], j, first)};
              });
          Value a = factored[0], taus = factored[1];
          Value r = m.each(first, rank, carried[3], [&](Value i, Value ri) {
            return m.each(i, width, ri, [&](Value c, Value ric) {
              return m.put(m.at(a, i, c), ric, i, c);
            });
          });
          Value q = m.each(first, rank, carried[2], [&](Value i, Value qi) {
            return m.put(one, qi, i, i);
          });
          q = m.each(first, rank, q, [&](Value step, Value qs) {
            Value j = m.fromEnd(k, step);
            Value tau = m.at(taus, j, first);
            return m.each(j, rank, qs, [&](Value c, Value qc) {
              return reflectColumn(m, qc, a, j, c, tau, rows);
            });
          });
          return SmallVector<Value>{a, taus, q, r};
        });
    rewriter.replaceOp(op, {results[2], results[3]});
    return success();
  }
};

// The one-sided Jacobi method (Hestenes; Demmel and Veselic 1992) on the
// columns of G = A, or A^T where m < n (k columns of max(m, n) rows),
// scaled by its largest magnitude: sweeps of plane rotations G <- G J,
// V <- V J, each making one pair of columns orthogonal, until every pair
// is orthogonal to epsilon relative to their norms (quadratic convergence:
// a few sweeps). Then G = U diag(s): the singular values are the columns'
// norms, sorted descending by selection. The columns are scaled by their
// largest entries, one whose norm is negligible (numpy's rank tolerance:
// it holds rounding errors, possibly in the span of the others) replaced
// by the unit vector least covered by the columns before it, each made
// orthogonal to those before it (twice, Gram-Schmidt: for the others a
// correction of the order of epsilon), and normalized. As in eigh, G's
// and V's columns are kept as the rows of Ut = G^T and Vt = V^T (rotations
// and sorting exchange rows); A = U S V^T, or V S U^T where m < n.
struct SvdToLoops : MatrixPattern<SvdOp> {
  using MatrixPattern::MatrixPattern;
  LogicalResult matchAndRewrite(SvdOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType matrices = op.getOperand().getType(), uType = op.getU().getType(),
                     sType = op.getS().getType(), vhType = op.getVh().getType();
    Type element = matrices.getElementType();
    int64_t rank = matrices.getRank(), m = matrices.getDimSize(rank - 2),
            n = matrices.getDimSize(rank - 1), k = std::min(m, n), rows = std::max(m, n);
    if (k == 0) {
      rewriter.replaceOp(op, {zerosOfType(rewriter, loc, uType), zerosOfType(rewriter, loc, sType),
                              zerosOfType(rewriter, loc, vhType)});
      return success();
    }
    auto transposed = [&](Value x) { return transposeMatrices(rewriter, loc, x); };
    bool wide = m < n;
    SmallVector<int64_t> square(sType.getShape()), column(sType.getShape());
    square.push_back(k);
    column.push_back(1);
    double epsilon = epsilonOf(element);
    Value init[] = {wide ? adaptor.getOperand() : transposed(adaptor.getOperand()),
                    zerosOfType(rewriter, loc, matrices.clone(square)),
                    zerosOfType(rewriter, loc, matrices.clone(column))};
    auto results = forEachMatrix(
        rewriter, loc, lanes(element), {}, init,
        [&](MatrixBuilder &mb, ValueRange, ValueRange carried) {
          OpBuilder &b = mb.b;
          Value first = mb.index(0), size = mb.index(k), length = mb.index(rows);
          Value zero = mb.constant(0), one = mb.constant(1);
          auto select = [&](Value condition, Value x, Value y) {
            return b.create<arith::SelectOp>(mb.loc, condition, x, y).getResult();
          };
          auto compare = [&](arith::CmpFPredicate predicate, Value x, Value y) {
            return b.create<arith::CmpFOp>(mb.loc, predicate, x, y).getResult();
          };
          auto sqrt = [&](Value x) { return b.create<math::SqrtOp>(mb.loc, x).getResult(); };
          auto magnitude = [&](Value x) { return b.create<math::AbsFOp>(mb.loc, x).getResult(); };
          // Rows p and q of t: their dot product.
          auto dot = [&](Value t, Value p, Value q) {
            return mb.each(first, length, zero, [&](Value r, Value acc) {
              return mb.add(acc, mb.mul(mb.at(t, p, r), mb.at(t, q, r)));
            });
          };
          // Every entry of the k x `width` t mapped.
          auto map = [&](Value t, int64_t width, function_ref<Value(Value)> f) {
            return mb.each(first, size, t, [&](Value i, Value ti) {
              return mb.each(first, mb.index(width), ti, [&](Value r, Value tir) {
                return mb.put(f(mb.at(tir, i, r)), tir, i, r);
              });
            });
          };
          Value largest = mb.each(first, size, zero, [&](Value i, Value li) {
            return mb.each(first, length, li, [&](Value r, Value lir) -> Value {
              return b.create<arith::MaximumFOp>(mb.loc, lir, magnitude(mb.at(carried[0], i, r)));
            });
          });
          // A NaN or infinite entry: NaN results.
          Value failed = compare(arith::CmpFPredicate::UGE, largest,
                                 mb.constant(std::numeric_limits<double>::infinity()));
          Value scale = select(compare(arith::CmpFPredicate::OGT, largest, zero),
                               mb.div(one, largest), one);
          Value g = map(carried[0], rows, [&](Value x) { return mb.mul(x, scale); });
          Value v = mb.each(first, size, carried[1], [&](Value i, Value vi) { return mb.put(one, vi, i, i); });
          // Rows p and q of t (of `width` columns) turned by the rotation (c, s).
          auto rotateRows = [&](Value t, Value p, Value q, Value c, Value sine, int64_t width) {
            return mb.each(first, mb.index(width), t, [&](Value r, Value tr) {
              Value tp = mb.at(tr, p, r), tq = mb.at(tr, q, r);
              tr = mb.put(mb.sub(mb.mul(c, tp), mb.mul(sine, tq)), tr, p, r);
              return mb.put(mb.add(mb.mul(sine, tp), mb.mul(c, tq)), tr, q, r);
            });
          };
          // Sweeps while a pair of columns was not yet orthogonal (in any
          // lane), at most kMaxSweeps.
          Value start[] = {g, v, mb.index(0), b.create<arith::ConstantIntOp>(mb.loc, 1, 1)};
          auto loop = b.create<scf::WhileOp>(
              mb.loc, ValueRange(start).getTypes(), start,
              [&](OpBuilder &nested, Location, ValueRange args) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                Value more = b.create<arith::CmpIOp>(mb.loc, arith::CmpIPredicate::slt, args[2],
                                                     mb.index(kMaxSweeps));
                b.create<scf::ConditionOp>(mb.loc, b.create<arith::AndIOp>(mb.loc, args[3], more),
                                           args);
              },
              [&](OpBuilder &nested, Location, ValueRange args) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                Value state[] = {args[0], args[1], mb.boolean(false)};
                SmallVector<Value> swept = mb.loop(
                    first, mb.index(k - 1), state,
                    [&](Value p, ValueRange sp) {
                      return mb.loop(mb.offset(p, 1), size, sp, [&](Value q, ValueRange sq) {
                        Value alpha = dot(sq[0], p, p), beta = dot(sq[0], q, q),
                              gamma = dot(sq[0], p, q);
                        Value rotates =
                            compare(arith::CmpFPredicate::OGT, magnitude(gamma),
                                    mb.mul(mb.constant(epsilon), sqrt(mb.mul(alpha, beta))));
                        Value zeta = mb.div(mb.sub(beta, alpha), mb.add(gamma, gamma));
                        Value sign = select(compare(arith::CmpFPredicate::OGE, zeta, zero), one,
                                            mb.constant(-1));
                        Value t = mb.div(
                            sign, mb.add(magnitude(zeta), sqrt(mb.add(mb.mul(zeta, zeta), one))));
                        t = select(rotates, t, zero);
                        Value c = mb.div(one, sqrt(mb.add(mb.mul(t, t), one)));
                        Value sine = mb.mul(t, c);
                        return SmallVector<Value>{
                            rotateRows(sq[0], p, q, c, sine, rows),
                            rotateRows(sq[1], p, q, c, sine, k),
                            b.create<arith::OrIOp>(mb.loc, sq[2], rotates).getResult()};
                      }, /*unrollable=*/false);
                    },
                    /*unrollable=*/false);
                b.create<scf::YieldOp>(mb.loc, ValueRange{swept[0], swept[1],
                                                          mb.offset(args[2], 1),
                                                          mb.anyLane(swept[2])});
              });
          // The largest magnitude in row i of t.
          auto rowLargest = [&](Value t, Value i) {
            return mb.each(first, length, zero, [&](Value r, Value acc) -> Value {
              return b.create<arith::MaximumFOp>(mb.loc, acc, magnitude(mb.at(t, i, r)));
            });
          };
          // The columns' norms, scaled by their largest entries (the columns
          // of zero singular values hold rounding errors, whose squares
          // would underflow), sorted descending with their rows of Ut and Vt.
          Value norms = mb.each(first, size, carried[2], [&](Value i, Value d) {
            Value t = loop.getResult(0), rowScale = rowLargest(t, i);
            Value inverse = mb.div(one, rowScale);
            Value squares = mb.each(first, length, zero, [&](Value r, Value acc) {
              Value x = mb.mul(mb.at(t, i, r), inverse);
              return mb.add(acc, mb.mul(x, x));
            });
            Value norm = select(compare(arith::CmpFPredicate::OGT, rowScale, zero),
                                mb.mul(rowScale, sqrt(squares)), zero);
            return mb.put(norm, d, i, first);
          });
          Value unsorted[] = {norms, loop.getResult(0), loop.getResult(1)};
          SmallVector<Value> sorted =
              mb.loop(first, mb.index(k - 1), unsorted, [&](Value i, ValueRange state) {
                Value best = bestRow(
                    mb, i, k, [&](Value r) { return mb.at(state[0], r, first); },
                    /*smallest=*/false);
                return SmallVector<Value>{swapRows(mb, state[0], k, i, best, first, mb.index(1)),
                                          swapRows(mb, state[1], k, i, best, first, length),
                                          swapRows(mb, state[2], k, i, best, first, size)};
              }, /*unrollable=*/false);
          Value values = sorted[0];
          // numpy's rank tolerance: below it a column is rounding errors
          // (which may lie in the span of the columns before it).
          Value negligible = mb.mul(mb.at(values, first, first), mb.constant(rows * epsilon));
          Value u = mb.each(first, size, sorted[1], [&](Value j, Value uj) {
            Value rowScale = rowLargest(uj, j);
            Value empty = compare(arith::CmpFPredicate::OLE, mb.at(values, j, first), negligible);
            Value leastCovered = bestRow(
                mb, first, rows,
                [&](Value r) {
                  return mb.each(first, j, zero, [&](Value i, Value acc) {
                    Value x = mb.at(uj, i, r);
                    return mb.add(acc, mb.mul(x, x));
                  });
                },
                /*smallest=*/true);
            uj = mb.each(first, length, uj, [&](Value r, Value ujr) {
              Value unit = select(b.create<arith::CmpIOp>(mb.loc, arith::CmpIPredicate::eq,
                                                          leastCovered, mb.rowIndex(r)),
                                  one, zero);
              return mb.put(select(empty, unit, mb.div(mb.at(ujr, j, r), rowScale)), ujr, j, r);
            });
            for (int pass = 0; pass < 2; ++pass)
              uj = mb.each(first, j, uj, [&](Value i, Value uji) {
                Value projection = dot(uji, i, j);
                return mb.each(first, length, uji, [&](Value r, Value ujir) {
                  return mb.put(mb.sub(mb.at(ujir, j, r), mb.mul(projection, mb.at(ujir, i, r))),
                                ujir, j, r);
                });
              });
            Value inverse = mb.div(one, sqrt(dot(uj, j, j)));
            return mb.each(first, length, uj, [&](Value r, Value ujr) {
              return mb.put(mb.mul(mb.at(ujr, j, r), inverse), ujr, j, r);
            });
          }, /*unrollable=*/false);
          Value nan = mb.constant(std::numeric_limits<double>::quiet_NaN());
          auto orNaN = [&](Value t, int64_t width) {
            return map(t, width, [&](Value x) { return select(failed, nan, x); });
          };
          Value unscaled = map(values, 1, [&](Value x) { return mb.mul(x, largest); });
          return SmallVector<Value>{orNaN(u, rows), orNaN(sorted[2], k), orNaN(unscaled, 1)};
        });
    // A = U S V^T where m >= n; else A^T = U S V^T, so A = V S U^T.
    Value uOfG = results[0], vt = results[1];
    Value u = wide ? transposed(vt) : transposed(uOfG);
    Value vh = wide ? uOfG : vt;
    rewriter.replaceOp(op, {u, rewriter.create<ReshapeOp>(loc, sType, results[2]).getResult(), vh});
    return success();
  }
};

} // namespace

void mlir::adjit::populateLinearAlgebraToLoopsPatterns(RewritePatternSet &patterns,
                                                       int64_t vectorBits) {
  patterns.add<CholeskyToLoops, TriangularSolveToLoops, SolveToLoops, SlogdetToLoops,
               LuToLoops, EighToLoops, QrToLoops, SvdToLoops>(patterns.getContext(), vectorBits);
  patterns.add<LuPivotsToPermutationToLoops>(patterns.getContext());
}
