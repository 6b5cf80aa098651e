// Verifiers of the control-flow ops: region signatures, yields and stacked
// shapes, each message naming the region and both types.
#include "adjit/Dialect/AdjitOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

std::string typeList(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  llvm::interleaveComma(types, os);
  os << ")";
  return text;
}

// The entry block of `region` takes `expected`, and its yield hands over
// `yielded`; `what` names the region in messages.
LogicalResult verifyRegion(Operation *op, Region &region, StringRef what, TypeRange expected,
                           TypeRange yielded) {
  Block &block = region.front();
  if (block.getArgumentTypes() != expected)
    return op->emitOpError() << what << " takes " << typeList(block.getArgumentTypes())
                             << " but must take " << typeList(expected);
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << what << " must end with adjit.yield";
  if (yield.getValues().getTypes() != yielded)
    return op->emitOpError() << what << " yields " << typeList(yield.getValues().getTypes())
                             << " but must yield " << typeList(yielded);
  return success();
}

// `type` without its leading dimension: one row of a stacked value.
RankedTensorType rowType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return tensor.clone(tensor.getShape().drop_front());
}

std::optional<int64_t> constantCounter(Value v) {
  DenseIntElementsAttr value;
  if (!matchPattern(v, m_Constant(&value)))
    return std::nullopt;
  return (*value.begin()).getSExtValue();
}

} // namespace

LogicalResult CondOp::verify() {
  TypeRange inputs = getInputs().getTypes(), results = getResultTypes();
  if (failed(verifyRegion(*this, getThenRegion(), "the then branch", inputs, results)))
    return failure();
  return verifyRegion(*this, getElseRegion(), "the else branch", inputs, results);
}

std::optional<int64_t> ForOp::getConstantTripCount() {
  std::optional<int64_t> lower = constantCounter(getLower()), upper = constantCounter(getUpper());
  if (!lower || !upper)
    return std::nullopt;
  return std::max<int64_t>(*upper - *lower, 0);
}

LogicalResult ForOp::verify() {
  unsigned numCarries = getNumCarries();
  if (getNumResults() < numCarries)
    return emitOpError() << "has " << getNumResults() << " results for " << numCarries
                         << " carries";
  for (unsigned i = 0; i < numCarries; ++i)
    if (getResult(i).getType() != getInits()[i].getType())
      return emitOpError() << "carry #" << i << " is " << getInits()[i].getType()
                           << " but result #" << i << " is " << getResult(i).getType();
  ResultRange stackedResults = getStackedResults();
  // The leading dimension of a stacked value is the trip count: static
  // with constant bounds, else dynamic.
  std::optional<int64_t> trips = getConstantTripCount();
  int64_t leading = trips ? *trips : ShapedType::kDynamic;
  auto checkStacked = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = cast<RankedTensorType>(type);
    if (tensor.getRank() == 0 || tensor.getDimSize(0) != leading ||
        ShapedType::isDynamicShape(tensor.getShape().drop_front()))
      return emitOpError() << what << " #" << index << " is " << type
                           << ", whose leading dimension must be the trip count "
                           << (trips ? std::to_string(*trips) : std::string("(dynamic: ?)"))
                           << " and whose other dimensions must be static";
    return success();
  };
  SmallVector<Type> arguments{getLower().getType()}, yielded;
  llvm::append_range(arguments, getInits().getTypes());
  llvm::append_range(yielded, getInits().getTypes());
  for (auto [i, x] : llvm::enumerate(getStacked())) {
    if (failed(checkStacked(x.getType(), "stacked input", i)))
      return failure();
    arguments.push_back(rowType(x.getType()));
  }
  for (auto [i, y] : llvm::enumerate(stackedResults)) {
    if (failed(checkStacked(y.getType(), "stacked output", i)))
      return failure();
    yielded.push_back(rowType(y.getType()));
  }
  llvm::append_range(arguments, getInvariants().getTypes());
  return verifyRegion(*this, getBody(), "the body", arguments, yielded);
}

LogicalResult WhileOp::verify() {
  TypeRange carries = getInits().getTypes();
  if (getNumResults() < carries.size() ||
      TypeRange(getResultTypes()).take_front(carries.size()) != carries)
    return emitOpError() << "results " << typeList(getResultTypes())
                         << " must start with the carries " << typeList(carries);
  // A stacked output has a row per iteration: its leading dimension is
  // only known at run time.
  SmallVector<Type> yielded(carries);
  for (auto [i, y] : llvm::enumerate(getStackedResults())) {
    auto tensor = cast<RankedTensorType>(y.getType());
    if (tensor.getRank() == 0 || !tensor.isDynamicDim(0) ||
        ShapedType::isDynamicShape(tensor.getShape().drop_front()))
      return emitOpError() << "stacked output #" << i << " is " << y.getType()
                           << ", whose leading dimension must be the number of iterations "
                              "(dynamic: ?) and whose other dimensions must be static";
    yielded.push_back(rowType(tensor));
  }
  SmallVector<Type> arguments(carries);
  llvm::append_range(arguments, getInvariants().getTypes());
  Builder b(getContext());
  Type predicate = RankedTensorType::get({}, b.getI1Type());
  if (failed(verifyRegion(*this, getCondRegion(), "the condition", arguments, predicate)))
    return failure();
  return verifyRegion(*this, getBodyRegion(), "the body", arguments, yielded);
}
