// adjit.argsort and adjit.search_sorted -> scf loops on tensors. argsort:
// each row's permutation by a heap sort of (value, index) pairs, in place
// in the result and a row of values beside it, rows in parallel chunks;
// only its first k positions wanted (top_k), a partial sort that keeps a
// heap of k. search_sorted: a binary search per value, elementwise
// (linalg.generic). The pairs are totally ordered (indices break ties), so
// the permutation is the one a stable sort gives. Elements are read and written with
// tensor.extract/insert, which bufferization turns into loads and stores;
// every loop body reads the latest value of the result before writing it.
#include "SortToLoops.h"
#include "FloatOrder.h"
#include "ParallelChunks.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Whether value x comes strictly before value y in argsort's order (NaN
// after every number, or before them with `descending`; integers, and the
// order keys that stand for floats sorted in IEEE 754's totalOrder, as
// signed numbers), and whether they tie (NaNs tie).
std::pair<Value, Value> compareValues(OpBuilder &b, Location loc, Value x, Value y,
                                      bool descending) {
  auto both = [&](Value p, Value q) { return b.create<arith::AndIOp>(loc, p, q).getResult(); };
  auto either = [&](Value p, Value q) { return b.create<arith::OrIOp>(loc, p, q).getResult(); };
  if (!isa<FloatType>(x.getType()))
    return {b.create<arith::CmpIOp>(
                loc, descending ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, x, y),
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, y)};
  auto compare = [&](arith::CmpFPredicate predicate, Value p, Value q) {
    return b.create<arith::CmpFOp>(loc, predicate, p, q).getResult();
  };
  Value xNaN = compare(arith::CmpFPredicate::UNO, x, x);
  Value yNaN = compare(arith::CmpFPredicate::UNO, y, y);
  Value ordered =
      compare(descending ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, y);
  Value truth = b.create<arith::ConstantIntOp>(loc, 1, 1);
  Value nanOrder = descending ? both(xNaN, b.create<arith::XOrIOp>(loc, yNaN, truth))
                              : both(yNaN, b.create<arith::XOrIOp>(loc, xNaN, truth));
  return {either(ordered, nanOrder),
          either(compare(arith::CmpFPredicate::OEQ, x, y), both(xNaN, yNaN))};
}

// One element of a row: its value and its index in the row.
struct Element {
  Value value, index;
};

// A row's heap: the elements' indices in `order` and, beside them, their
// values in `values` (so that comparisons read no index first; for a
// totalOrder sort of floats, their order keys, made once per element),
// both [rows, n].
struct Heap {
  Value order, values;
};

// Builds the sort of one row of `keys` [rows, n].
struct RowSorter {
  OpBuilder &b;
  Location loc;
  Value keys, row;
  bool descending, totalOrder;

  Value index(int64_t i) { return b.create<arith::ConstantIndexOp>(loc, i); }
  Element at(Heap h, Value position) {
    Value stored = b.create<tensor::ExtractOp>(loc, h.order, ValueRange{row, position});
    return {b.create<tensor::ExtractOp>(loc, h.values, ValueRange{row, position}),
            b.create<arith::IndexCastOp>(loc, b.getIndexType(), stored)};
  }
  Heap put(Heap h, Value position, Element e) {
    Type stored = cast<RankedTensorType>(h.order.getType()).getElementType();
    Value index = b.create<arith::IndexCastOp>(loc, stored, e.index);
    return {b.create<tensor::InsertOp>(loc, index, h.order, ValueRange{row, position}),
            b.create<tensor::InsertOp>(loc, e.value, h.values, ValueRange{row, position})};
  }
  Value both(Value x, Value y) { return b.create<arith::AndIOp>(loc, x, y); }
  Value either(Value x, Value y) { return b.create<arith::OrIOp>(loc, x, y); }
  Value select(Value c, Value x, Value y) { return b.create<arith::SelectOp>(loc, c, x, y); }
  Element select(Value c, Element x, Element y) {
    return {select(c, x.value, y.value), select(c, x.index, y.index)};
  }
  Value less(Value i, Value j) {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, i, j);
  }

  // Whether x comes before y: by value, then by index.
  Value before(Element x, Element y) {
    auto [strictly, tie] = compareValues(b, loc, x.value, y.value, descending);
    return either(strictly, both(tie, less(x.index, y.index)));
  }

  // Moves the element at `root` down the heap of positions [0, end) (each
  // parent after its children) until it comes after both children. The
  // loop's flag says whether the last step swapped (the body is branch
  // free: without a swap it writes back what it read).
  Heap siftDown(Heap heap, Value root, Value end) {
    Type indexType = b.getIndexType();
    Value start = b.create<arith::ConstantIntOp>(loc, 1, 1);
    auto loop = b.create<scf::WhileOp>(
        loc, TypeRange{heap.order.getType(), heap.values.getType(), indexType},
        ValueRange{heap.order, heap.values, root, start},
        [&](OpBuilder &, Location, ValueRange args) {
          b.create<scf::ConditionOp>(loc, args[3], args.take_front(3));
        },
        [&](OpBuilder &, Location, ValueRange args) {
          Heap h{args[0], args[1]};
          Value node = args[2];
          Value child = b.create<arith::AddIOp>(
              loc, b.create<arith::MulIOp>(loc, node, index(2)), index(1));
          Value hasChild = less(child, end);
          Value left = select(hasChild, child, node);
          Value right = b.create<arith::AddIOp>(loc, child, index(1));
          Value hasRight = less(right, end);
          right = select(hasRight, right, left);
          Element leftElement = at(h, left), rightElement = at(h, right), element = at(h, node);
          Value takesRight = both(hasRight, before(leftElement, rightElement));
          Value pick = select(takesRight, right, left);
          Element picked = select(takesRight, rightElement, leftElement);
          Value swaps = both(hasChild, before(element, picked));
          h = put(h, node, select(swaps, picked, element));
          h = put(h, pick, select(swaps, element, picked));
          b.create<scf::YieldOp>(loc, ValueRange{h.order, h.values, pick, swaps});
        });
    return {loop.getResult(0), loop.getResult(1)};
  }

  // A loop over k in [0, trips) carrying the heap.
  Heap each(int64_t trips, Heap heap, function_ref<Heap(Value k, Heap heap)> body) {
    auto loop = b.create<scf::ForOp>(
        loc, index(0), index(trips), index(1), ValueRange{heap.order, heap.values},
        [&](OpBuilder &, Location, Value k, ValueRange args) {
          Heap h = body(k, {args[0], args[1]});
          b.create<scf::YieldOp>(loc, ValueRange{h.order, h.values});
        });
    return {loop.getResult(0), loop.getResult(1)};
  }

  // Element i of the row (for a totalOrder sort of floats, its order key).
  Element element(Value i) {
    Value value = b.create<tensor::ExtractOp>(loc, keys, ValueRange{row, i});
    if (totalOrder && isa<FloatType>(value.getType()))
      value = floatKey(b, loc, value).key;
    return {value, i};
  }

  // The first k of the row's n elements in order (std::partial_sort): its
  // elements 0, ..., k - 1 are made a heap whose root is the one that
  // comes last; each later element that comes before the root replaces it
  // (most do not, so the expected work is about n comparisons for k much
  // smaller than n); then the root is swapped to the end of a shrinking
  // heap, k - 1 times. With k = n, a heap sort.
  Heap sort(Heap heap, int64_t n, int64_t k) {
    heap = each(k, heap, [&](Value i, Heap h) { return put(h, i, element(i)); });
    heap = each(k / 2, heap, [&](Value j, Heap h) {
      return siftDown(h, b.create<arith::SubIOp>(loc, index(k / 2 - 1), j), index(k));
    });
    if (k < n)
      heap = each(n - k, heap, [&](Value j, Heap h) {
        Element candidate = element(b.create<arith::AddIOp>(loc, index(k), j));
        auto replaces = b.create<scf::IfOp>(
            loc, before(candidate, at(h, index(0))),
            [&](OpBuilder &, Location) {
              Heap replaced = siftDown(put(h, index(0), candidate), index(0), index(k));
              b.create<scf::YieldOp>(loc, ValueRange{replaced.order, replaced.values});
            },
            [&](OpBuilder &, Location) {
              b.create<scf::YieldOp>(loc, ValueRange{h.order, h.values});
            });
        return Heap{replaces.getResult(0), replaces.getResult(1)};
      });
    return each(k - 1, heap, [&](Value j, Heap h) {
      Value end = b.create<arith::SubIOp>(loc, index(k - 1), j);
      Element first = at(h, index(0)), last = at(h, end);
      return siftDown(put(put(h, index(0), last), end, first), index(0), end);
    });
  }
};

struct ArgsortToLoops : OpConversionPattern<ArgsortOp> {
  ArgsortToLoops(MLIRContext *context, bool parallelRows)
      : OpConversionPattern(context), parallelRows(parallelRows) {}
  bool parallelRows;

  LogicalResult matchAndRewrite(ArgsortOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType(), operandType = op.getOperand().getType();
    // Rows of n elements, of which the first k in order are wanted.
    int64_t n = operandType.getShape().back(), k = type.getShape().back();
    int64_t rows = type.getNumElements() / std::max<int64_t>(k, 1);
    if (type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(), type.getElementType());
      return success();
    }
    // Rows of [rows, n] (adjit reshapes, which the conversion lowers).
    Value keys = rewriter.create<ReshapeOp>(loc, operandType.clone({rows, n}),
                                            adaptor.getOperand());
    Value order = rewriter.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{rows, k},
                                                   type.getElementType());
    Type valueType = operandType.getElementType();
    if (op.getTotalOrder() && isa<FloatType>(valueType))
      valueType = rewriter.getIntegerType(valueType.getIntOrFloatBitWidth());
    Value values = rewriter.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{rows, k}, valueType);
    // Rows in parallel chunks where there are enough comparisons.
    int64_t comparisons = rows * n * std::max<int64_t>(1, llvm::Log2_64_Ceil(k));
    SmallVector<Value> sorted = forEachChunk(
        rewriter, loc, rows, parallelRows ? parallelChunks(rows, comparisons) : 1, ValueRange{keys},
        ValueRange{order, values}, [&](int64_t items, ValueRange inputs, ValueRange carried) {
          auto index = [&](int64_t i) { return rewriter.create<arith::ConstantIndexOp>(loc, i); };
          auto loop = rewriter.create<scf::ForOp>(
              loc, index(0), index(items), index(1), carried,
              [&](OpBuilder &b, Location l, Value row, ValueRange args) {
                RowSorter sorter{b, l, inputs[0], row, op.getDescending(), op.getTotalOrder()};
                Heap heap = sorter.sort({args[0], args[1]}, n, k);
                b.create<scf::YieldOp>(l, ValueRange{heap.order, heap.values});
              });
          return SmallVector<Value>(loop.getResults());
        });
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, sorted[0]);
    return success();
  }
};

// The first position (of type `type`, an integer) in [0, n) of the
// ascending vector `sorted` whose element does not come before v
// (`right`: comes after v), or n: a branch-free binary search whose steps
// are known from n alone (halving the length of the range that holds the
// answer). Positions are integers, made indices only to read `sorted`,
// so that the search vectorizes across values (with gathers).
Value searchPosition(OpBuilder &b, Location l, Value sorted, int64_t n, Value v, bool right,
                     Type type) {
  auto constant = [&](int64_t i) {
    return b.create<arith::ConstantOp>(l, b.getIntegerAttr(type, i)).getResult();
  };
  // Whether the element at `position` goes before v's insertion point.
  auto goesLeft = [&](Value position) {
    Value at = b.create<arith::IndexCastOp>(l, b.getIndexType(), position);
    Value element = b.create<tensor::ExtractOp>(l, sorted, ValueRange{at});
    if (!right)
      return compareValues(b, l, element, v, false).first;
    Value after = compareValues(b, l, v, element, false).first;
    return b.create<arith::XOrIOp>(l, after, b.create<arith::ConstantIntOp>(l, 1, 1)).getResult();
  };
  if (n == 0)
    return constant(0);
  Value base = constant(0);
  for (int64_t length = n; length > 1; length -= length / 2) {
    Value probe = b.create<arith::AddIOp>(l, base, constant(length / 2));
    base = b.create<arith::SelectOp>(l, goesLeft(probe), probe, base);
  }
  Value next = b.create<arith::AddIOp>(l, base, constant(1));
  return b.create<arith::SelectOp>(l, goesLeft(base), next, base);
}

// One search per value, as an elementwise linalg.generic over the values
// whose body reads `sorted` (as a gather's does): it vectorizes across
// values and runs in parallel, fused with its neighbours, as elementwise
// work does.
struct SearchSortedToGeneric : OpConversionPattern<SearchSortedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SearchSortedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t n = op.getSorted().getType().getDimSize(0);
    Value sorted = adaptor.getSorted();
    bool right = op.getRight();
    Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{adaptor.getValues()}, ValueRange{init},
        ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          b.create<linalg::YieldOp>(
              l, searchPosition(b, l, sorted, n, args[0], right, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mlir::adjit::populateSortToLoopsPatterns(RewritePatternSet &patterns, bool parallelRows) {
  patterns.add<ArgsortToLoops>(patterns.getContext(), parallelRows);
  patterns.add<SearchSortedToGeneric>(patterns.getContext());
}
