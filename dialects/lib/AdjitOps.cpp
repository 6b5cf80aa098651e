// Verifiers: every structural rule of an op, with a message that names the
// offending dimension and sizes.
#include "adjit/Dialect/AdjitOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::adjit;

#include "adjit/Dialect/AdjitOpsEnums.cpp.inc"
#include "adjit/Dialect/AdjitInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "adjit/Dialect/AdjitOps.cpp.inc"

namespace {

RankedTensorType tensorTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

// Checks that `dims` are distinct and lie in [0, rank); `what` names the list.
LogicalResult verifyDimensionList(Operation *op, ArrayRef<int64_t> dims,
                                  int64_t rank, StringRef what) {
  llvm::SmallBitVector seen(rank);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << what << " dimension " << d
                               << " is out of range for rank " << rank;
    if (seen.test(d))
      return op->emitOpError() << what << " dimension " << d
                               << " appears more than once";
    seen.set(d);
  }
  return success();
}

LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected,
                                RankedTensorType result) {
  if (result.getShape() == expected)
    return success();
  return op->emitOpError() << "result type " << result
                           << " does not have the expected shape ["
                           << llvm::make_range(expected.begin(), expected.end())
                           << "]";
}

LogicalResult verifySameElementType(Operation *op, Type a, Type b,
                                    StringRef aName, StringRef bName) {
  if (getElementTypeOrSelf(a) == getElementTypeOrSelf(b))
    return success();
  return op->emitOpError() << aName << " element type "
                           << getElementTypeOrSelf(a) << " differs from "
                           << bName << " element type "
                           << getElementTypeOrSelf(b);
}

} // namespace

LogicalResult IotaOp::verify() {
  // I64Attr getters return uint64_t: read them as signed.
  int64_t rank = getType().getRank(), dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << rank;
  return success();
}

LogicalResult IntegerPowOp::verify() {
  // I64Attr getters return uint64_t: read it as signed.
  int64_t exponent = static_cast<int64_t>(getExponent());
  if (exponent < 0 && !isFloatTensor(getType()))
    return emitOpError() << "cannot raise integers of " << getType()
                         << " to the negative power " << exponent;
  return success();
}

LogicalResult CompareOp::verify() {
  bool isEquality = getDirection() == ComparisonDirection::eq ||
                    getDirection() == ComparisonDirection::ne;
  if (getElementTypeOrSelf(getLhs()).isInteger(1) && !isEquality)
    return emitOpError() << "booleans support only eq and ne, not "
                         << stringifyComparisonDirection(getDirection());
  return success();
}

LogicalResult SelectOp::verify() {
  if (tensorTypeOf(getPred()).getShape() != getType().getShape())
    return emitOpError() << "predicate type " << getPred().getType()
                         << " does not have the shape of the result "
                         << getType();
  return success();
}

LogicalResult ConvertOp::verify() {
  if (getOperand().getType().getShape() != getType().getShape())
    return emitOpError() << "cannot change the shape: " << getOperand().getType()
                         << " to " << getType();
  return success();
}

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operand = getOperand().getType(), result = getType();
  if (failed(verifySameElementType(*this, operand, result, "operand",
                                   "result")))
    return failure();
  if (static_cast<int64_t>(getDims().size()) != operand.getRank())
    return emitOpError() << "dims has " << getDims().size()
                         << " entries but the operand has rank "
                         << operand.getRank();
  if (failed(verifyDimensionList(*this, getDims(), result.getRank(),
                                 "broadcast")))
    return failure();
  for (auto [i, d] : llvm::enumerate(getDims())) {
    int64_t from = operand.getDimSize(i), to = result.getDimSize(d);
    if (from != to && from != 1)
      return emitOpError() << "operand dimension " << i << " (size " << from
                           << ") maps to result dimension " << d << " (size "
                           << to << "): sizes must match or be 1";
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType operand = getOperand().getType(), result = getType();
  if (failed(verifySameElementType(*this, operand, result, "operand",
                                   "result")))
    return failure();
  if (operand.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << operand << " ("
                         << operand.getNumElements() << " elements) to "
                         << result << " (" << result.getNumElements()
                         << " elements)";
  return success();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType operand = getOperand().getType(), result = getType();
  if (failed(verifySameElementType(*this, operand, result, "operand",
                                   "result")))
    return failure();
  if (static_cast<int64_t>(getPerm().size()) != operand.getRank())
    return emitOpError() << "perm has " << getPerm().size()
                         << " entries but the operand has rank "
                         << operand.getRank();
  if (failed(verifyDimensionList(*this, getPerm(), operand.getRank(), "perm")))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t p : getPerm())
    expected.push_back(operand.getDimSize(p));
  return verifyResultShape(*this, expected, result);
}

LogicalResult SliceOp::verify() {
  RankedTensorType operand = getOperand().getType(), result = getType();
  if (failed(verifySameElementType(*this, operand, result, "operand",
                                   "result")))
    return failure();
  int64_t rank = operand.getRank();
  if (static_cast<int64_t>(getStart().size()) != rank ||
      static_cast<int64_t>(getLimit().size()) != rank ||
      static_cast<int64_t>(getStride().size()) != rank)
    return emitOpError() << "start, limit and stride need " << rank
                         << " entries each (the operand rank), got "
                         << getStart().size() << ", " << getLimit().size()
                         << " and " << getStride().size();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t start = getStart()[d], limit = getLimit()[d],
            stride = getStride()[d], size = operand.getDimSize(d);
    if (stride < 1)
      return emitOpError() << "stride " << stride << " in dimension " << d
                           << " must be at least 1";
    if (start < 0 || start > limit || limit > size)
      return emitOpError() << "dimension " << d << " needs 0 <= start <= limit"
                           << " <= " << size << ", got start " << start
                           << " and limit " << limit;
    expected.push_back(sliceLength(start, limit, stride));
  }
  return verifyResultShape(*this, expected, result);
}

LogicalResult ConcatenateOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  RankedTensorType result = getType();
  int64_t rank = result.getRank(), dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << rank;
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = tensorTypeOf(input);
    if (failed(verifySameElementType(*this, type, result,
                                     "input #" + std::to_string(i), "result")))
      return failure();
    if (type.getRank() != rank)
      return emitOpError() << "input #" << i << " has rank " << type.getRank()
                           << " but the result has rank " << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && type.getDimSize(d) != result.getDimSize(d))
        return emitOpError() << "input #" << i << " " << type
                             << " differs from the result " << result
                             << " in dimension " << d
                             << ", which is not the concatenated one";
    std::optional<int64_t> sum = llvm::checkedAdd(total, type.getDimSize(dim));
    if (!sum)
      return emitOpError() << "inputs' sizes in dimension " << dim << " overflow int64";
    total = *sum;
  }
  if (total != result.getDimSize(dim))
    return emitOpError() << "inputs add up to " << total << " in dimension "
                         << dim << " but the result has "
                         << result.getDimSize(dim);
  return success();
}

namespace {
// A block of `block`'s shape at one start per dimension inside `operand`
// (the checks dynamic_slice and dynamic_update_slice share).
LogicalResult verifyBlock(Operation *op, RankedTensorType operand, RankedTensorType block,
                          size_t numStarts, StringRef blockName) {
  if (block.getRank() != operand.getRank())
    return op->emitOpError() << "the " << blockName << " has rank " << block.getRank()
                             << " but the operand " << operand.getRank();
  if (static_cast<int64_t>(numStarts) != operand.getRank())
    return op->emitOpError() << "needs one start per dimension of the operand ("
                             << operand.getRank() << "), got " << numStarts;
  for (int64_t d = 0; d < operand.getRank(); ++d)
    if (block.getDimSize(d) > operand.getDimSize(d))
      return op->emitOpError() << "the " << blockName << " has " << block.getDimSize(d)
                               << " elements in dimension " << d << ", more than the operand's "
                               << operand.getDimSize(d);
  return success();
}
} // namespace

LogicalResult DynamicSliceOp::verify() {
  if (failed(verifySameElementType(*this, getOperand().getType(), getType(), "operand",
                                   "result")))
    return failure();
  return verifyBlock(*this, getOperand().getType(), getType(), getStarts().size(), "result");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  RankedTensorType operand = getOperand().getType();
  if (failed(verifySameElementType(*this, operand, getUpdate().getType(), "operand",
                                   "update")))
    return failure();
  if (getType() != operand)
    return emitOpError() << "the result type " << getType() << " must be the operand's, "
                         << operand;
  return verifyBlock(*this, operand, getUpdate().getType(), getStarts().size(), "update");
}

LogicalResult PadOp::verify() {
  RankedTensorType operand = getOperand().getType(), result = getType();
  if (failed(verifySameElementType(*this, operand, result, "operand",
                                   "result")) ||
      failed(verifySameElementType(*this, getPaddingValue().getType(), result,
                                   "padding value", "result")))
    return failure();
  int64_t rank = operand.getRank();
  if (static_cast<int64_t>(getLow().size()) != rank ||
      static_cast<int64_t>(getHigh().size()) != rank ||
      static_cast<int64_t>(getInterior().size()) != rank)
    return emitOpError() << "low, high and interior need " << rank
                         << " entries each (the operand rank)";
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t low = getLow()[d], high = getHigh()[d], interior = getInterior()[d];
    if (low < 0 || high < 0 || interior < 0)
      return emitOpError() << "padding amounts must be non-negative, got low "
                           << low << ", high " << high << ", interior "
                           << interior << " in dimension " << d;
    int64_t n = operand.getDimSize(d);
    std::optional<int64_t> size = llvm::checkedMul(std::max<int64_t>(n - 1, 0), interior);
    for (int64_t amount : {n, low, high})
      if (size)
        size = llvm::checkedAdd(*size, amount);
    if (!size)
      return emitOpError() << "the padded size of dimension " << d << " overflows int64";
    expected.push_back(*size);
  }
  return verifyResultShape(*this, expected, result);
}

namespace {
// Shape of gather(operand, indices, axis), shared by gather and scatter_add.
SmallVector<int64_t> gatheredShape(RankedTensorType operand,
                                   RankedTensorType indices, int64_t axis) {
  SmallVector<int64_t> shape(operand.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, operand.getShape().drop_front(axis + 1));
  return shape;
}

LogicalResult verifyAxis(Operation *op, uint64_t unsignedAxis, int64_t rank) {
  auto axis = static_cast<int64_t>(unsignedAxis);
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "axis " << axis << " is out of range for rank "
                             << rank;
  return success();
}
} // namespace

LogicalResult GatherOp::verify() {
  RankedTensorType operand = getOperand().getType();
  if (failed(verifySameElementType(*this, operand, getType(), "operand",
                                   "result")) ||
      failed(verifyAxis(*this, getAxis(), operand.getRank())))
    return failure();
  if (operand.getDimSize(getAxis()) == 0 &&
      getIndices().getType().getNumElements() > 0)
    return emitOpError() << "cannot gather from the empty axis " << getAxis()
                         << " of " << operand;
  return verifyResultShape(
      *this, gatheredShape(operand, getIndices().getType(), getAxis()),
      getType());
}

namespace {
// The operands of scatter_add and scatter_extremum: updates of the shape
// that gathering `indices` from `base` along `axis` gives.
LogicalResult verifyScatter(Operation *op, RankedTensorType base, RankedTensorType indices,
                            RankedTensorType updates, uint64_t axis) {
  if (failed(verifySameElementType(op, updates, base, "updates", "base")) ||
      failed(verifyAxis(op, axis, base.getRank())))
    return failure();
  SmallVector<int64_t> expected = gatheredShape(base, indices, axis);
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError() << "updates type " << updates
                             << " does not have the gathered shape ["
                             << llvm::make_range(expected.begin(), expected.end()) << "]";
  return success();
}
} // namespace

LogicalResult ScatterAddOp::verify() {
  return verifyScatter(*this, getBase().getType(), getIndices().getType(),
                       getUpdates().getType(), getAxis());
}

LogicalResult ScatterExtremumOp::verify() {
  if (getKind() == ReduceKind::sum)
    return emitOpError() << "combines by max or min (a sum is adjit.scatter_add)";
  return verifyScatter(*this, getBase().getType(), getIndices().getType(),
                       getUpdates().getType(), getAxis());
}

LogicalResult ReduceOp::verify() {
  RankedTensorType operand = getOperand().getType();
  if (failed(verifySameElementType(*this, operand, getType(), "operand",
                                   "result")) ||
      failed(verifyDimensionList(*this, getDims(), operand.getRank(),
                                 "reduced")))
    return failure();
  if (getIgnoresNan() &&
      (getKind() == ReduceKind::sum || !isa<FloatType>(operand.getElementType())))
    return emitOpError() << "ignores_nan is for a max or min of floats, not a "
                         << stringifyReduceKind(getKind()) << " of " << operand;
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < operand.getRank(); ++d)
    if (!llvm::is_contained(getDims(), d))
      expected.push_back(operand.getDimSize(d));
  return verifyResultShape(*this, expected, getType());
}

LogicalResult ArgMaxOp::verify() {
  RankedTensorType operand = getOperand().getType();
  if (failed(verifyAxis(*this, getAxis(), operand.getRank())))
    return failure();
  if (operand.getDimSize(getAxis()) == 0)
    return emitOpError() << "argmax of the empty axis " << getAxis() << " of "
                         << operand << " is undefined";
  SmallVector<int64_t> expected(operand.getShape());
  expected.erase(expected.begin() + getAxis());
  return verifyResultShape(*this, expected, getType());
}

namespace {
// Whether `largest`, the largest index or position that `result` holds
// (`what`), fits its integer type.
LogicalResult verifyIndicesFit(Operation *op, int64_t largest, RankedTensorType result,
                               StringRef what) {
  unsigned bits = result.getElementType().getIntOrFloatBitWidth();
  if (bits >= 64 || largest < (int64_t{1} << (bits - 1)))
    return success();
  return op->emitOpError() << what << " " << largest << " does not fit "
                           << result.getElementType();
}
} // namespace

LogicalResult ArgsortOp::verify() {
  RankedTensorType operand = getOperand().getType();
  if (operand.getRank() == 0)
    return emitOpError() << "sorts rows along the last dimension, but " << operand
                         << " has none";
  if (failed(verifyIndicesFit(*this, operand.getShape().back() - 1, getType(),
                              "the largest index")))
    return failure();
  // The whole permutation, or its first k positions (a partial sort).
  ArrayRef<int64_t> shape = operand.getShape(), result = getType().getShape();
  if (result.size() == shape.size() && result.drop_back() == shape.drop_back() &&
      result.back() <= shape.back())
    return success();
  return emitOpError() << "result type " << getType() << " is neither the operand's shape ["
                       << llvm::make_range(shape.begin(), shape.end())
                       << "] nor that shape with fewer positions along the last dimension";
}

LogicalResult SearchSortedOp::verify() {
  RankedTensorType sorted = getSorted().getType(), values = getValues().getType();
  if (sorted.getRank() != 1)
    return emitOpError() << "searches a vector, but sorted is " << sorted;
  if (failed(verifySameElementType(*this, sorted, values, "sorted", "values")))
    return failure();
  if (failed(verifyIndicesFit(*this, sorted.getDimSize(0), getType(), "the largest position")))
    return failure();
  return verifyResultShape(*this, values.getShape(), getType());
}

LogicalResult DotGeneralOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  if (failed(verifySameElementType(*this, lhs, rhs, "lhs", "rhs")) ||
      failed(verifySameElementType(*this, lhs, getType(), "lhs", "result")))
    return failure();
  if (getLhsBatch().size() != getRhsBatch().size())
    return emitOpError() << "lhs has " << getLhsBatch().size()
                         << " batch dimensions but rhs has "
                         << getRhsBatch().size();
  if (getLhsContract().size() != getRhsContract().size())
    return emitOpError() << "lhs has " << getLhsContract().size()
                         << " contracting dimensions but rhs has "
                         << getRhsContract().size();
  SmallVector<int64_t> lhsUsed(getLhsBatch()), rhsUsed(getRhsBatch());
  llvm::append_range(lhsUsed, getLhsContract());
  llvm::append_range(rhsUsed, getRhsContract());
  if (failed(verifyDimensionList(*this, lhsUsed, lhs.getRank(),
                                 "lhs batch/contracting")) ||
      failed(verifyDimensionList(*this, rhsUsed, rhs.getRank(),
                                 "rhs batch/contracting")))
    return failure();
  for (auto [l, r] : llvm::zip(lhsUsed, rhsUsed))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError() << "lhs dimension " << l << " (size "
                           << lhs.getDimSize(l) << ") and rhs dimension " << r
                           << " (size " << rhs.getDimSize(r)
                           << ") are paired but differ in size";
  SmallVector<int64_t> expected;
  for (int64_t d : getLhsBatch())
    expected.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < lhs.getRank(); ++d)
    if (!llvm::is_contained(lhsUsed, d))
      expected.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < rhs.getRank(); ++d)
    if (!llvm::is_contained(rhsUsed, d))
      expected.push_back(rhs.getDimSize(d));
  return verifyResultShape(*this, expected, getType());
}

namespace {

// A batch of square matrices: rank >= 2, the last two dimensions equal.
LogicalResult verifySquareMatrices(Operation *op, RankedTensorType type, StringRef what) {
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2))
    return op->emitOpError() << what << " " << type
                             << " is not a (batch of) square matrices";
  return success();
}

// `b`, the right-hand sides of a system with the square `a`: the same
// element type and batch dimensions, and as many rows as `a`.
LogicalResult verifyRightHandSides(Operation *op, RankedTensorType a, RankedTensorType b) {
  if (failed(verifySquareMatrices(op, a, "a")) ||
      failed(verifySameElementType(op, a, b, "a", "b")))
    return failure();
  int64_t rank = a.getRank();
  if (b.getRank() != rank || a.getShape().drop_back(1) != b.getShape().drop_back(1))
    return op->emitOpError() << "b " << b << " is not a batch of right-hand sides for a " << a
                             << " (expected [batch..., " << a.getDimSize(rank - 1)
                             << ", k])";
  return success();
}

} // namespace

LogicalResult CholeskyOp::verify() {
  return verifySquareMatrices(*this, getType(), "operand");
}

LogicalResult TriangularSolveOp::verify() {
  return verifyRightHandSides(*this, getA().getType(), getB().getType());
}

LogicalResult SolveOp::verify() {
  return verifyRightHandSides(*this, getA().getType(), getB().getType());
}

namespace {
// The matrices (`kind`: "matrices" or "square matrices", which the
// verifier checks) that an op whose result types are inferred reads, or
// the error for fewer than two dimensions.
FailureOr<RankedTensorType> matricesOperand(std::optional<Location> loc, StringRef opName,
                                            ValueRange operands, StringRef kind) {
  auto a = cast<RankedTensorType>(operands[0].getType());
  if (a.getRank() < 2)
    return emitOptionalError(loc, "'", opName, "' op operand ", a, " is not a (batch of) ",
                             kind);
  return a;
}
// The shapes [batch..., m, k], [batch..., k] and [batch..., k, n] of a
// factorization of [batch..., m, n] matrices, k = min(m, n).
struct ReducedFactorShapes {
  SmallVector<int64_t> tall, values, wide;
};
ReducedFactorShapes reducedFactorShapes(RankedTensorType a) {
  ArrayRef<int64_t> shape = a.getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
  ReducedFactorShapes shapes{SmallVector<int64_t>(shape.drop_back()),
                             SmallVector<int64_t>(shape.drop_back(2)),
                             SmallVector<int64_t>(shape.drop_back(2))};
  shapes.tall.push_back(k);
  shapes.values.push_back(k);
  shapes.wide.append({k, n});
  return shapes;
}
// The operand of a factorization of [batch..., m, n] matrices and its
// factors' shapes, or the error for fewer than two dimensions.
struct FactoredMatrices {
  RankedTensorType a;
  ReducedFactorShapes shapes;
};
FailureOr<FactoredMatrices> factoredMatrices(std::optional<Location> loc, StringRef opName,
                                             ValueRange operands) {
  FailureOr<RankedTensorType> a = matricesOperand(loc, opName, operands, "matrices");
  if (failed(a))
    return failure();
  return FactoredMatrices{*a, reducedFactorShapes(*a)};
}
FailureOr<RankedTensorType> squareMatricesOperand(std::optional<Location> loc, StringRef opName,
                                                  ValueRange operands) {
  return matricesOperand(loc, opName, operands, "square matrices");
}
} // namespace

// Both results have the operand's batch dimensions.
LogicalResult SlogdetOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          ValueRange operands, DictionaryAttr, OpaqueProperties,
                                          RegionRange, SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> a = squareMatricesOperand(loc, getOperationName(), operands);
  if (failed(a))
    return failure();
  types.assign(2, a->clone(a->getShape().drop_back(2)));
  return success();
}

LogicalResult SlogdetOp::verify() {
  return verifySquareMatrices(*this, getOperand().getType(), "operand");
}

// The eigenvalues [batch..., n] and the eigenvectors [batch..., n, n].
LogicalResult EighOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       ValueRange operands, DictionaryAttr, OpaqueProperties,
                                       RegionRange, SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> a = squareMatricesOperand(loc, getOperationName(), operands);
  if (failed(a))
    return failure();
  types.assign({a->clone(a->getShape().drop_back()), *a});
  return success();
}

LogicalResult EighOp::verify() {
  return verifySquareMatrices(*this, getOperand().getType(), "operand");
}

// Q [batch..., m, k] and R [batch..., k, n], k = min(m, n).
LogicalResult QrOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     ValueRange operands, DictionaryAttr, OpaqueProperties,
                                     RegionRange, SmallVectorImpl<Type> &types) {
  FailureOr<FactoredMatrices> f = factoredMatrices(loc, getOperationName(), operands);
  if (failed(f))
    return failure();
  types.assign({f->a.clone(f->shapes.tall), f->a.clone(f->shapes.wide)});
  return success();
}

// U [batch..., m, k], s [batch..., k] and Vh [batch..., k, n], k = min(m, n).
LogicalResult SvdOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      ValueRange operands, DictionaryAttr, OpaqueProperties,
                                      RegionRange, SmallVectorImpl<Type> &types) {
  FailureOr<FactoredMatrices> f = factoredMatrices(loc, getOperationName(), operands);
  if (failed(f))
    return failure();
  types.assign(
      {f->a.clone(f->shapes.tall), f->a.clone(f->shapes.values), f->a.clone(f->shapes.wide)});
  return success();
}

// LU [batch..., m, n], pivots [batch..., k] and the permutation
// [batch..., m], k = min(m, n).
LogicalResult LuOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                     ValueRange operands, DictionaryAttr, OpaqueProperties,
                                     RegionRange, SmallVectorImpl<Type> &types) {
  FailureOr<FactoredMatrices> f = factoredMatrices(loc, getOperationName(), operands);
  if (failed(f))
    return failure();
  SmallVector<int64_t> rows(f->a.getShape().drop_back());
  auto i32 = IntegerType::get(context, 32);
  types.assign(
      {f->a, RankedTensorType::get(f->shapes.values, i32), RankedTensorType::get(rows, i32)});
  return success();
}

LogicalResult LuPivotsToPermutationOp::verify() {
  RankedTensorType pivots = getPivots().getType(), permutation = getPermutation().getType();
  if (pivots.getRank() == 0)
    return emitOpError() << "pivots " << pivots << " is not a (batch of) vectors";
  int64_t k = pivots.getShape().back(), size = getSize();
  if (size < k)
    return emitOpError() << "size " << size << " is smaller than the " << k
                         << " pivots of each row";
  SmallVector<int64_t> expected(pivots.getShape().drop_back());
  expected.push_back(size);
  return verifyResultShape(*this, expected, permutation);
}

Value mlir::adjit::createSplat(OpBuilder &builder, Location loc, Type type,
                               double value) {
  auto tensor = cast<RankedTensorType>(type);
  Type element = tensor.getElementType();
  Attribute scalar =
      isa<FloatType>(element)
          ? Attribute(builder.getFloatAttr(element, value))
          : Attribute(builder.getIntegerAttr(element, static_cast<int64_t>(value)));
  return builder.create<ConstantOp>(loc, tensor, DenseElementsAttr::get(tensor, scalar));
}

SmallVector<int64_t> mlir::adjit::otherDimensions(int64_t rank, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      others.push_back(d);
  return others;
}

SmallVector<int64_t> mlir::adjit::freeDimensions(int64_t rank, ArrayRef<int64_t> batch,
                                                 ArrayRef<int64_t> contract) {
  SmallVector<int64_t> bound(batch);
  llvm::append_range(bound, contract);
  return otherDimensions(rank, bound);
}

//===----------------------------------------------------------------------===//
// Differentiation requests
//===----------------------------------------------------------------------===//

namespace {
// Checks the callee exists, takes `primals`' types, and that `wrt` names
// distinct arguments; returns the callee's function type.
FailureOr<FunctionType> verifyRequest(Operation *op, SymbolTableCollection &symbols,
                                      StringRef callee, ValueRange primals,
                                      ArrayRef<int64_t> wrt) {
  auto fn = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(
      op, StringAttr::get(op->getContext(), callee));
  if (!fn)
    return op->emitOpError() << "refers to '" << callee
                             << "', which is not a function in scope";
  auto type = cast<FunctionType>(fn.getFunctionType());
  if (type.getInputs() != primals.getTypes())
    return op->emitOpError() << "primals do not match the arguments of '" << callee
                             << "' " << type;
  // wrt lists argument positions, not dimensions of a tensor.
  unsigned arguments = type.getNumInputs();
  llvm::SmallBitVector seen(arguments);
  for (int64_t position : wrt) {
    if (position < 0 || position >= arguments)
      return op->emitOpError() << "wrt argument " << position << " does not exist: '" << callee
                               << "' takes " << arguments
                               << (arguments == 1 ? " argument" : " arguments");
    if (seen.test(position))
      return op->emitOpError() << "wrt argument " << position << " is listed more than once";
    seen.set(position);
  }
  return type;
}
} // namespace

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto type = verifyRequest(*this, symbols, getCallee(), getPrimals(), getWrt());
  if (failed(type))
    return failure();
  auto result = type->getNumResults() == 1
                    ? dyn_cast<RankedTensorType>(type->getResult(0))
                    : RankedTensorType();
  if (!result || result.getRank() != 0 || !isa<FloatType>(result.getElementType()))
    return emitOpError() << "needs '" << getCallee()
                         << "' to return one 0-d float tensor, got " << *type;
  if (getNumResults() != getWrt().size())
    return emitOpError() << "has " << getNumResults() << " results for "
                         << getWrt().size() << " wrt arguments";
  for (auto [i, arg] : llvm::enumerate(getWrt()))
    if (getResult(i).getType() != type->getInput(arg))
      return emitOpError() << "result " << i << " must have the type of argument "
                           << arg << ", " << type->getInput(arg);
  return success();
}

LogicalResult VjpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto type = verifyRequest(*this, symbols, getCallee(), getPrimals(), getWrt());
  if (failed(type))
    return failure();
  if (getCotangents().getTypes() != type->getResults())
    return emitOpError() << "needs one cotangent per result of '" << getCallee()
                         << "' with the result's type " << *type;
  SmallVector<Type> expected(type->getResults());
  for (int64_t arg : getWrt())
    expected.push_back(type->getInput(arg));
  if (getResultTypes() != TypeRange(expected))
    return emitOpError() << "results must be the callee's results and then one "
                            "cotangent per wrt argument, of that argument's type";
  return success();
}

LogicalResult JvpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto type = verifyRequest(*this, symbols, getCallee(), getPrimals(), getWrt());
  if (failed(type))
    return failure();
  SmallVector<Type> tangentTypes;
  for (int64_t arg : getWrt())
    tangentTypes.push_back(type->getInput(arg));
  if (getTangents().getTypes() != TypeRange(tangentTypes))
    return emitOpError() << "needs one tangent per wrt argument, of that argument's type";
  SmallVector<Type> expected(type->getResults());
  llvm::append_range(expected, type->getResults());
  if (getResultTypes() != TypeRange(expected))
    return emitOpError() << "results must be the callee's results and then one "
                            "tangent per result";
  return success();
}

LogicalResult OptimizationBarrierOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &types) {
  llvm::append_range(types, operands.getTypes());
  return success();
}

LogicalResult ReserveRowOp::verify() {
  auto type = cast<RankedTensorType>(getStack().getType());
  if (type.getRank() == 0 || !type.isDynamicDim(0) ||
      ShapedType::isDynamicShape(type.getShape().drop_front()))
    return emitOpError() << "needs a stack of rows, dynamic only in its leading dimension, got "
                         << type;
  return success();
}

LogicalResult ArenaBufferOp::verify() {
  MemRefType arena = getArena().getType(), buffer = getBuffer().getType();
  if (!arena.hasStaticShape() || !arena.getLayout().isIdentity())
    return emitOpError() << "needs a contiguous arena of static size, got " << arena;
  if (!buffer.getLayout().isIdentity())
    return emitOpError() << "makes contiguous buffers (identity layout), got " << buffer;
  Type element = buffer.getElementType();
  if (!element.isIntOrFloat())
    return emitOpError() << "needs integer or float elements, got " << element;
  int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  int64_t offset = getOffset(), bytes = buffer.getNumElements() * elementBytes;
  if (offset % elementBytes != 0)
    return emitOpError() << "offset " << offset << " is not a multiple of the " << elementBytes
                         << "-byte element of " << buffer;
  if (offset + bytes > arena.getNumElements())
    return emitOpError() << "places " << bytes << " bytes (" << buffer << ") at offset "
                         << offset << ", past the end of the " << arena.getNumElements()
                         << "-byte arena";
  return success();
}

LogicalResult ArenaReleaseOp::verify() {
  if (!getBuffer().getDefiningOp<ArenaBufferOp>())
    return emitOpError() << "releases a buffer that no adjit.arena_buffer made";
  return success();
}
