// adjit-write-into-dead-inputs: elementwise results reuse the buffer of an
// input that dies at the op (see Passes.td for the policy).
#include "adjit/Dialect/AdjitDialect.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_WRITEINTODEADINPUTS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// A tensor whose buffer may be overwritten once its last reader is done: a
// loop's carry (in a while loop, as its body receives it: the condition
// only reads the carries it forwards) or a temporary computed by a generic.
bool ownsItsBuffer(Value v) {
  if (auto argument = dyn_cast<BlockArgument>(v)) {
    Operation *loop = argument.getOwner()->getParentOp();
    if (auto whileLoop = dyn_cast<scf::WhileOp>(loop))
      return argument.getOwner() == whileLoop.getAfterBody();
    return isa<scf::ForOp>(loop) && argument.getArgNumber() > 0;
  }
  return v.getDefiningOp<linalg::GenericOp>() != nullptr;
}

// The donated argument (adjit.aliasing_output) whose buffer the function
// returns `result` in, if it returns it.
BlockArgument donatedDestination(Value result) {
  for (OpOperand &use : result.getUses()) {
    auto ret = dyn_cast<func::ReturnOp>(use.getOwner());
    if (!ret)
      continue;
    auto fn = cast<func::FuncOp>(ret->getParentOp());
    for (BlockArgument argument : fn.getArguments())
      if (auto output = fn.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(),
                                                         adjit::kAliasingOutputAttrName);
          output && output.getInt() == use.getOperandNumber())
        return argument;
  }
  return {};
}

// Whether `use` only reads its tensor: an input of a destination-style op
// (a generic), the source of a slice or of an insert_slice.
bool onlyReads(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<tensor::ExtractSliceOp>(user))
    return true;
  if (isa<tensor::InsertSliceOp>(user))
    return use.getOperandNumber() == 0;
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
    return dps.isDpsInput(&use);
  return false;
}

// Whether `v` is read by nothing once `op` runs: its other users (or the
// ops of `op`'s block that contain them) come before `op` and only read it,
// so bufferization can overwrite it in place. Uses for which `exempt` holds
// are not counted.
bool diesAt(Value v, Operation *op, function_ref<bool(OpOperand &)> exempt = nullptr) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (user == op || (exempt && exempt(use)))
      continue;
    Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
    if (!ancestor || ancestor == op || !ancestor->isBeforeInBlock(op) || !onlyReads(use))
      return false;
  }
  return true;
}

// Each output that starts as tensor.empty takes a different dead input of
// its type, read through the same map; a result the function returns in a
// donated argument's buffer takes that argument first.
void writeIntoDeadInputs(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0)
    return;
  llvm::SmallPtrSet<OpOperand *, 4> taken;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!init.get().getDefiningOp<tensor::EmptyOp>())
      continue;
    AffineMap outputMap = op.getMatchingIndexingMap(&init);
    Value donated = donatedDestination(op.getTiedOpResult(&init));
    auto fits = [&](OpOperand *input) {
      Value v = input->get();
      return !taken.contains(input) && v.getType() == init.get().getType() &&
             llvm::count(op->getOperands(), v) == 1 && diesAt(v, op) &&
             op.getMatchingIndexingMap(input) == outputMap;
    };
    SmallVector<OpOperand *> candidates = op.getDpsInputOperands();
    std::stable_partition(candidates.begin(), candidates.end(), [&](OpOperand *input) { return input->get() == donated; });
    for (OpOperand *input : candidates)
      if (fits(input) && (input->get() == donated || ownsItsBuffer(input->get()))) {
        init.set(input->get());
        taken.insert(input);
        break;
      }
  }
}

// A row loop (adjit-tile-and-fuse-rows) that builds a result the function
// returns in a donated argument's buffer, reading that argument row by row
// at the rows it writes: the loop carries the argument itself and reads the
// rows from its carry, each before writing them, so the result is computed
// in the argument's buffer.
void carryDonatedArguments(scf::ForOp loop) {
  for (auto [index, result] : llvm::enumerate(loop.getResults())) {
    BlockArgument donated = donatedDestination(result);
    OpOperand &init = loop.getInitArgsMutable()[index];
    if (!donated || donated.getType() != result.getType() ||
        !init.get().getDefiningOp<tensor::EmptyOp>())
      continue;
    BlockArgument carry = loop.getRegionIterArg(index);
    // The carry changes only by one insert_slice of the rows of this
    // iteration, which the loop yields.
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    auto insert = yield.getOperand(index).getDefiningOp<tensor::InsertSliceOp>();
    if (!insert || insert.getDest() != carry)
      continue;
    auto rowsOfThisIteration = [&](OffsetSizeAndStrideOpInterface slice) {
      return slice.getMixedOffsets() == insert.getMixedOffsets() &&
             slice.getMixedSizes() == insert.getMixedSizes() &&
             slice.getMixedStrides() == insert.getMixedStrides();
    };
    // Reads of the rows about to be written, used only before they are.
    auto readsItsRows = [&](Operation *user) {
      auto read = dyn_cast<tensor::ExtractSliceOp>(user);
      auto usedBeforeInsert = [&](Operation *reader) {
        Operation *ancestor = loop.getBody()->findAncestorOpInBlock(*reader);
        return ancestor && ancestor->isBeforeInBlock(insert);
      };
      return read && read->getBlock() == loop.getBody() && rowsOfThisIteration(read) &&
             llvm::all_of(read->getUsers(), usedBeforeInsert);
    };
    if (!llvm::all_of(carry.getUsers(),
                      [&](Operation *user) { return user == insert || readsItsRows(user); }))
      continue;
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    auto rows = insert.getStaticSizes();
    if (!step || rows.empty() || rows[0] != *step ||
        getAsOpFoldResult(loop.getInductionVar()) != insert.getMixedOffsets()[0])
      continue;
    // Inside the loop the argument is only read through slices of these
    // rows, before they are written; outside it, only before the loop.
    auto insideLoop = [&](OpOperand &use) { return loop->isProperAncestor(use.getOwner()); };
    SmallVector<Operation *> reads;
    for (OpOperand &use : donated.getUses())
      if (insideLoop(use))
        reads.push_back(use.getOwner());
    if (!llvm::all_of(reads, readsItsRows) || !diesAt(donated, loop, insideLoop))
      continue;
    for (Operation *read : reads)
      cast<tensor::ExtractSliceOp>(read).getSourceMutable().set(carry);
    init.set(donated);
  }
}

struct WriteIntoDeadInputsPass
    : adjit::impl::WriteIntoDeadInputsBase<WriteIntoDeadInputsPass> {
  void runOnOperation() override {
    getOperation()->walk(carryDonatedArguments);
    getOperation()->walk(writeIntoDeadInputs);
  }
};

} // namespace
