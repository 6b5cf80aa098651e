// adjit-map-to-gpu: each structured op of a bufferized function becomes one
// gpu.launch (see Passes.td for the mapping).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MAPTOGPU
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// Threads per block: a multiple of the warp size that keeps enough blocks
// per multiprocessor resident for the simple one-point-per-thread kernels.
constexpr int64_t kThreadsPerBlock = 256;

SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map,
                             ValueRange loopIndices) {
  SmallVector<Value> indices;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    indices.push_back(b.create<affine::AffineApplyOp>(loc, map.getSubMap({r}),
                                                      loopIndices));
  return indices;
}

// Whether an output is indexed by the parallel loops alone: then one thread
// owns each of its elements for the whole reduction and keeps it in a
// register.
bool isAccumulator(linalg::LinalgOp op, OpOperand *init) {
  AffineMap map = op.getMatchingIndexingMap(init);
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction && map.isFunctionOfDim(dim))
      return false;
  return true;
}

class LaunchBuilder {
public:
  explicit LaunchBuilder(linalg::LinalgOp op) : op_(op) {}

  LogicalResult build() {
    if (!op_.hasPureBufferSemantics())
      return op_.emitOpError("reached GPU mapping on tensors; it runs after bufferization");
    ranges_ = op_.getStaticLoopRanges();
    if (llvm::any_of(ranges_, ShapedType::isDynamic))
      return op_.emitOpError("has dynamic loop bounds; GPU kernels are built for static shapes");
    int64_t points = 1;
    for (auto [dim, iterator] : llvm::enumerate(op_.getIteratorTypesArray())) {
      if (iterator == utils::IteratorType::parallel) {
        parallelDims_.push_back(dim);
        points *= ranges_[dim];
      } else {
        reductionDims_.push_back(dim);
      }
    }
    if (points == 0) {
      op_->erase();
      return success();
    }
    OpBuilder b(op_);
    Location loc = op_.getLoc();
    int64_t threads = std::min<int64_t>(kThreadsPerBlock, llvm::alignTo(points, 32));
    auto constant = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
    Value one = constant(1);
    auto launch = b.create<gpu::LaunchOp>(loc, constant(llvm::divideCeil(points, threads)), one,
                                          one, constant(threads), one, one);
    b.setInsertionPointToEnd(&launch.getBody().front());
    Value point = b.create<arith::AddIOp>(
        loc, b.create<arith::MulIOp>(loc, launch.getBlockIds().x, constant(threads)),
        launch.getThreadIds().x);
    Value inRange =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, point, constant(points));
    auto ifOp = b.create<scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
    b.create<gpu::TerminatorOp>(loc);

    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    loopIndices_.assign(ranges_.size(), Value());
    // The last parallel dimension varies fastest across neighbouring
    // threads, so their loads and stores coalesce.
    for (unsigned dim : llvm::reverse(parallelDims_)) {
      Value extent = constant(ranges_[dim]);
      loopIndices_[dim] = b.create<arith::RemUIOp>(loc, point, extent);
      point = b.create<arith::DivUIOp>(loc, point, extent);
    }
    emitReductionLoops(b, loc);
    op_->erase();
    return success();
  }

private:
  void emitReductionLoops(OpBuilder &b, Location loc) {
    SmallVector<Value> lbs, ubs, steps, initialValues;
    for (unsigned dim : reductionDims_) {
      lbs.push_back(b.create<arith::ConstantIndexOp>(loc, 0));
      ubs.push_back(b.create<arith::ConstantIndexOp>(loc, ranges_[dim]));
      steps.push_back(b.create<arith::ConstantIndexOp>(loc, 1));
    }
    // Accumulators are indexed by the parallel loops alone: outside the
    // reduction loops, those loops' indices are a placeholder 0.
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    for (unsigned dim : reductionDims_)
      loopIndices_[dim] = zero;
    SmallVector<OpOperand *> accumulators;
    for (OpOperand &init : op_.getDpsInitsMutable())
      if (isAccumulator(op_, &init)) {
        accumulators.push_back(&init);
        initialValues.push_back(load(b, loc, &init));
      }
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, initialValues,
        [&](OpBuilder &nb, Location nloc, ValueRange ivs, ValueRange carried) {
          for (auto [dim, iv] : llvm::zip(reductionDims_, ivs))
            loopIndices_[dim] = iv;
          return emitBody(nb, nloc, accumulators, carried);
        });
    for (unsigned dim : reductionDims_)
      loopIndices_[dim] = zero;
    for (auto [init, value] : llvm::zip(accumulators, nest.results))
      store(b, loc, value, init);
  }

  // One point of the op: loads its operands, runs the payload, stores the
  // outputs that are not carried; returns the carried ones.
  scf::ValueVector emitBody(OpBuilder &b, Location loc, ArrayRef<OpOperand *> accumulators,
                            ValueRange carried) {
    Block &payload = *op_.getBlock();
    IRMapping mapping;
    for (OpOperand &operand : op_->getOpOperands()) {
      BlockArgument argument = op_.getMatchingBlockArgument(&operand);
      if (!isa<MemRefType>(operand.get().getType())) {
        mapping.map(argument, operand.get());  // a scalar input (linalg.fill)
        continue;
      }
      auto carriedAt = llvm::find(accumulators, &operand);
      if (carriedAt != accumulators.end())
        mapping.map(argument, carried[carriedAt - accumulators.begin()]);
      else if (!argument.use_empty())
        mapping.map(argument, load(b, loc, &operand));
    }
    for (Operation &inner : payload.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), loopIndices_[index.getDim()]);
        continue;
      }
      b.clone(inner, mapping);
    }
    auto yield = cast<linalg::YieldOp>(payload.getTerminator());
    scf::ValueVector next(accumulators.size());
    for (auto [position, value] : llvm::enumerate(yield.getValues())) {
      OpOperand *init = op_.getDpsInitOperand(position);
      Value result = mapping.lookupOrDefault(value);
      auto carriedAt = llvm::find(accumulators, init);
      if (carriedAt != accumulators.end())
        next[carriedAt - accumulators.begin()] = result;
      else
        store(b, loc, result, init);
    }
    return next;
  }

  Value load(OpBuilder &b, Location loc, OpOperand *operand) {
    return b.create<memref::LoadOp>(
        loc, operand->get(),
        indicesAt(b, loc, op_.getMatchingIndexingMap(operand), loopIndices_));
  }

  void store(OpBuilder &b, Location loc, Value value, OpOperand *init) {
    b.create<memref::StoreOp>(
        loc, value, init->get(),
        indicesAt(b, loc, op_.getMatchingIndexingMap(init), loopIndices_));
  }

  linalg::LinalgOp op_;
  SmallVector<int64_t> ranges_;
  SmallVector<unsigned> parallelDims_, reductionDims_;
  SmallVector<Value> loopIndices_;
};

struct MapToGpuPass : adjit::impl::MapToGpuBase<MapToGpuPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops)
      if (failed(LaunchBuilder(op).build()))
        return signalPassFailure();
  }
};

} // namespace
