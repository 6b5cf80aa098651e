// Software pipelining of vector loops whose dependence chains outlast the
// core's scheduler: see the pass description in Passes.td.

#include "BufferUses.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Transforms/RegionUtils.h"

#include <map>

namespace mlir::adjit {
#define GEN_PASS_DEF_PIPELINELOOPS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// Latency of an op's result in units of a vector FMA's (about 4 cycles):
// what the chains are measured in. Scalar (index) arithmetic is free.
int64_t latency(Operation *op) {
  if (!llvm::any_of(op->getResultTypes(), [](Type t) { return isa<VectorType>(t); }))
    return 0;
  if (isa<arith::DivFOp, math::SqrtOp>(op))
    return 3;
  return 1;
}

// One read or write of memory in the loop, and the loop-level op (stage)
// it belongs to.
struct Access {
  Operation *top;
  Value memref;
  SmallVector<Value> indices;
  int64_t extent; // elements along the last dimension
  bool write;
};

// The read or write that `op` is, if it is one of the kinds this pass can
// place; nullopt for anything else.
std::optional<Access> accessOf(Operation *op, Operation *top) {
  auto lastExtent = [](VectorType type) { return type.getShape().back(); };
  if (auto transfer = dyn_cast<VectorTransferOpInterface>(op)) {
    if (!isa<MemRefType>(transfer.getSource().getType()) ||
        !transfer.getPermutationMap().isMinorIdentity())
      return std::nullopt;
    return Access{top, transfer.getSource(), llvm::to_vector(transfer.getIndices()),
                  lastExtent(transfer.getVectorType()), isa<vector::TransferWriteOp>(op)};
  }
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return Access{top, load.getBase(), llvm::to_vector(load.getIndices()),
                  lastExtent(load.getVectorType()), false};
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return Access{top, store.getBase(), llvm::to_vector(store.getIndices()),
                  lastExtent(store.getVectorType()), true};
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return Access{top, load.getMemRef(), llvm::to_vector(load.getIndices()), 1, false};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return Access{top, store.getMemRef(), llvm::to_vector(store.getIndices()), 1, true};
  return std::nullopt;
}

// Whether `op` may read or write memory in a way accessOf does not describe.
bool hasOtherMemoryEffects(Operation *op) {
  if (isa<memref::PrefetchOp>(op)) // a hint: reordering it changes no result
    return false;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
    });
  }
  return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
}

// Whether two different buffers are known not to overlap. A public
// function's arguments are separate buffers unless one was donated: its
// output is written into that input (kDonatesBuffersAttrName).
bool separateBuffers(Value a, Value b, func::FuncOp function) {
  // Arena buffers used together are live together, and adjit-plan-buffers
  // never lets those share a byte.
  if (adjit::allocationOf(a) || adjit::allocationOf(b))
    return true;
  auto isArgument = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &function.getBody().front();
  };
  return isArgument(a) && isArgument(b) && function.isPublic() &&
         !function->hasAttr(adjit::kDonatesBuffersAttrName);
}

// Whether each iteration of `loop` touches its own part of the memref that
// both accesses address identically: the induction variable is their last
// index, they cover at most one step there, and their other indices are
// fixed in the loop.
bool ownSlicePerIteration(const Access &a, const Access &b, scf::ForOp loop,
                          int64_t step) {
  if (a.memref != b.memref || a.indices != b.indices || a.indices.empty() ||
      a.indices.back() != loop.getInductionVar() || a.extent > step || b.extent > step)
    return false;
  return llvm::all_of(ArrayRef(a.indices).drop_back(),
                      [&](Value index) { return loop.isDefinedOutsideOfLoop(index); });
}

// A step through this many registers already interleaves as many chains
// (adjit-vectorize's four registers per step): W1's loop, pipelined as
// well, spilled and ran slower.
constexpr int64_t kInterleavedRegisters = 4;
constexpr int64_t kMinVectorBits = 256;

class LoopPipeliner {
public:
  LoopPipeliner(scf::ForOp loop, int64_t vectorBits, int64_t maxStages, int64_t minChain,
                int64_t chainPerStage)
      : loop(loop), vectorBits(vectorBits), maxStages(maxStages), minChain(minChain),
        chainPerStage(chainPerStage) {}

  // The schedule (each op of the body with its stage, in the kernel's
  // order), or an empty one when the loop is better left as it is.
  std::vector<std::pair<Operation *, unsigned>> schedule() {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0)
      return {};
    Block *body = loop.getBody();
    bool nestedLoop = false;
    body->walk([&](LoopLikeOpInterface) { nestedLoop = true; });
    if (nestedLoop || registersPerStep(body) >= kInterleavedRegisters)
      return {};
    // Constants and other invariants, hoisted, neither take a stage nor
    // lengthen the chains.
    moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
    for (Value yielded : body->getTerminator()->getOperands())
      if (!yielded.getDefiningOp() || yielded.getDefiningOp()->getBlock() != body)
        return {}; // the pipeliner carries only values the body computes
    for (Operation &op : body->without_terminator())
      ops.push_back(&op);
    int64_t chain = measureChains();
    if (chain < minChain)
      return {};
    int64_t stages = std::clamp<int64_t>((chain + chainPerStage / 2) / chainPerStage, 2, maxStages);
    if (llvm::divideCeil(*upper - *lower, *step) < 2 * stages)
      return {};
    assignStages(chain, stages);
    if (!memoryOrderKept(*step))
      return {};
    reloadPerStage();
    keepContractions();
    return interleave(stages);
  }

private:
  scf::ForOp loop;
  int64_t vectorBits, maxStages, minChain, chainPerStage;
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int64_t> depth, stage;

  // The registers the widest vector of the body fills.
  int64_t registersPerStep(Block *body) {
    int64_t widest = 0;
    body->walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (auto vector = dyn_cast<VectorType>(type);
            vector && vector.getElementType().isIntOrFloat())
          widest = std::max(widest, vector.getNumElements() *
                                        vector.getElementType().getIntOrFloatBitWidth());
    });
    return llvm::divideCeil(widest, vectorBits);
  }

  // The ops of the body that define values `op` uses (inside its regions too).
  SmallVector<Operation *> producers(Operation *op) {
    SmallVector<Operation *> result;
    auto add = [&](Value v) {
      if (Operation *def = v.getDefiningOp(); def && def->getBlock() == loop.getBody())
        result.push_back(def);
    };
    for (Value operand : op->getOperands())
      add(operand);
    visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *use) { add(use->get()); });
    return result;
  }

  // Each op's depth (the latency from the iteration's start to its
  // operands), and the longest chain.
  int64_t measureChains() {
    int64_t longest = 0;
    for (Operation *op : ops) {
      int64_t d = 0;
      for (Operation *def : producers(op))
        d = std::max(d, depth[def] + latency(def));
      depth[op] = d;
      longest = std::max(longest, d + latency(op));
    }
    return longest;
  }

  // Stages cut the chains into equal spans of latency. Loads and index
  // arithmetic then move down to the first stage that uses them, so that
  // what crosses stages is mostly the chains' values, not their inputs;
  // so do comparisons, whose selects then see them in the same stage
  // (x86 makes a clamp's compare and select one vmaxps, where a mask
  // carried across stages takes a compare, mask moves and a blend).
  void assignStages(int64_t chain, int64_t stages) {
    for (Operation *op : ops)
      stage[op] = std::min(stages - 1, depth[op] * stages / chain);
    for (Operation *op : llvm::reverse(ops)) {
      bool movable = isMemoryEffectFree(op)
                         ? latency(op) == 0 || isa<arith::CmpFOp, arith::CmpIOp>(op)
                         : isa<vector::TransferReadOp, vector::LoadOp, memref::LoadOp>(op);
      if (!movable || op->use_empty())
        continue;
      int64_t firstUse = stages - 1;
      for (Operation *user : op->getUsers()) {
        Operation *top = loop.getBody()->findAncestorOpInBlock(*user);
        if (top == loop.getBody()->getTerminator())
          firstUse = stage[op]; // yielded: stays where it is
        else
          firstUse = std::min(firstUse, stage[top]);
      }
      stage[op] = std::max(stage[op], firstUse);
    }
  }

  // A load of a buffer that the loop does not write, used in several
  // stages, is repeated in each of them: carried instead, the values of
  // three iterations at once spill (W3's GELU pass carried x and gamma
  // from its first stage to its last).
  void reloadPerStage() {
    SmallVector<Value> written;
    for (Operation *top : ops)
      top->walk([&](Operation *op) {
        if (std::optional<Access> access = accessOf(op, top); access && access->write)
          written.push_back(adjit::viewedBuffer(access->memref));
      });
    auto func = loop->getParentOfType<func::FuncOp>();
    auto readOnly = [&](Value memref) {
      Value buffer = adjit::viewedBuffer(memref);
      return func && llvm::all_of(written, [&](Value w) {
               return w != buffer && separateBuffers(w, buffer, func);
             });
    };
    Block *body = loop.getBody();
    for (Operation *load : SmallVector<Operation *>(ops)) {
      std::optional<Access> access = accessOf(load, load);
      if (!access || access->write || !readOnly(access->memref))
        continue;
      // The uses of each later stage, in the order of their users.
      std::map<int64_t, SmallVector<OpOperand *>> laterUses;
      for (OpOperand &use : load->getUses()) {
        Operation *top = body->findAncestorOpInBlock(*use.getOwner());
        if (top != body->getTerminator() && stage[top] > stage[load])
          laterUses[stage[top]].push_back(&use);
      }
      for (auto &[later, uses] : laterUses) {
        Operation *first = body->findAncestorOpInBlock(*uses.front()->getOwner());
        for (OpOperand *use : uses) {
          Operation *top = body->findAncestorOpInBlock(*use->getOwner());
          if (top->isBeforeInBlock(first))
            first = top;
        }
        OpBuilder builder(first);
        Operation *reload = builder.clone(*load);
        stage[reload] = later;
        depth[reload] = depth[load];
        for (OpOperand *use : uses)
          use->set(reload->getResult(0));
      }
    }
    ops.clear();
    for (Operation &op : body->without_terminator())
      ops.push_back(&op);
  }

  // LLVM fuses a multiply into the add or subtract that is its only use
  // (fp-contract=fast) where both are in one block. Stages put them in
  // different iterations of the kernel, where the product would be
  // rounded on its own and formulas written for the fused form lose
  // accuracy (the exact gelu's P + x (-x / 2) failed its bound). Such a
  // pair becomes, in the add's stage, the fused multiply-add the loop
  // computed unpipelined; of two single-use products LLVM fuses the left.
  void keepContractions() {
    Block *body = loop.getBody();
    auto fusable = [&](Value v) -> arith::MulFOp {
      auto mul = v.getDefiningOp<arith::MulFOp>();
      Type element = getElementTypeOrSelf(v.getType());
      if (!mul || mul->getBlock() != body || !mul->hasOneUse() ||
          !(element.isF32() || element.isF64()))
        return {};
      return mul;
    };
    bool changed = false;
    for (Operation *op : ops) {
      if (!isa<arith::AddFOp, arith::SubFOp>(op))
        continue;
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      arith::MulFOp mul = fusable(lhs);
      bool left = bool(mul);
      if (!left)
        mul = fusable(rhs);
      if (!mul || stage[mul] == stage[op])
        continue;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value a = mul.getLhs(), factor = mul.getRhs(), addend = left ? rhs : lhs;
      if (isa<arith::SubFOp>(op)) {
        Value &negated = left ? addend : a; // p - c = a b + (-c); c - p = (-a) b + c
        negated = b.create<arith::NegFOp>(loc, negated);
        stage[negated.getDefiningOp()] = stage[op];
      }
      auto fused = b.create<math::FmaOp>(loc, a, factor, addend);
      stage[fused] = stage[op];
      op->getResult(0).replaceAllUsesWith(fused.getResult());
      op->erase();
      mul->erase();
      changed = true;
    }
    if (!changed)
      return;
    ops.clear();
    for (Operation &op : body->without_terminator())
      ops.push_back(&op);
  }

  // Whether every pair of accesses that end up in different stages, one of
  // them a write, provably keeps its order: separate buffers, or the same
  // slice of one buffer per iteration, first access in the earlier stage.
  bool memoryOrderKept(int64_t step) {
    SmallVector<Access> accesses;
    auto func = loop->getParentOfType<func::FuncOp>();
    for (Operation *top : ops) {
      WalkResult result = top->walk([&](Operation *op) {
        if (std::optional<Access> access = accessOf(op, top)) {
          accesses.push_back(*access);
          return WalkResult::advance();
        }
        return hasOtherMemoryEffects(op) ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (result.wasInterrupted())
        return false;
    }
    DenseMap<Operation *, size_t> position;
    for (auto [i, op] : llvm::enumerate(ops))
      position[op] = i;
    for (const Access &a : accesses) {
      for (const Access &b : accesses) {
        if (!a.write || stage[a.top] == stage[b.top])
          continue;
        Value bufferA = adjit::viewedBuffer(a.memref), bufferB = adjit::viewedBuffer(b.memref);
        if (bufferA != bufferB && func && separateBuffers(bufferA, bufferB, func))
          continue;
        const Access &first = position[a.top] < position[b.top] ? a : b;
        const Access &second = &first == &a ? b : a;
        if (ownSlicePerIteration(a, b, loop, step) && stage[first.top] <= stage[second.top])
          continue;
        return false;
      }
    }
    return true;
  }

  // The kernel's order: one op of each stage in turn (each stage's ops in
  // their original order), so that the core's scheduler, which sees a
  // window of the instruction stream, always holds independent chains of
  // several iterations.
  std::vector<std::pair<Operation *, unsigned>> interleave(int64_t stages) {
    SmallVector<SmallVector<Operation *>> byStage(stages);
    for (Operation *op : ops)
      byStage[stage[op]].push_back(op);
    std::vector<std::pair<Operation *, unsigned>> order;
    SmallVector<size_t> next(stages, 0);
    while (order.size() < ops.size())
      for (int64_t s = 0; s < stages; ++s)
        if (next[s] < byStage[s].size())
          order.emplace_back(byStage[s][next[s]++], static_cast<unsigned>(s));
    return order;
  }
};

struct PipelineLoopsPass : adjit::impl::PipelineLoopsBase<PipelineLoopsPass> {
  using PipelineLoopsBase::PipelineLoopsBase;

  void runOnOperation() override {
    int64_t bits = vectorBits > 0 ? vectorBits : adjit::hostVectorBits();
    // Without FMA hardware the kept contractions would be calls to fmaf.
    if (bits < kMinVectorBits || (vectorBits == 0 && !adjit::hostHasFusedMultiplyAdd()))
      return;
    // Three stages' values fill AVX-512's 32 vector registers; in AVX2's 16
    // they spill, two stages' fit.
    int64_t stages = maxStages > 0 ? maxStages : bits >= 512 ? 3 : 2;
    if (stages < 2)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getBody()->getOperations(), [](Operation &op) {
            return llvm::any_of(op.getResultTypes(), [](Type t) { return isa<VectorType>(t); });
          }))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      std::vector<std::pair<Operation *, unsigned>> schedule =
          LoopPipeliner(loop, bits, stages, minChain, chainPerStage).schedule();
      if (schedule.empty())
        continue;
      scf::PipeliningOption options;
      options.getScheduleFn = [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) {
        s = schedule;
      };
      rewriter.setInsertionPoint(loop);
      bool modified = false;
      if (failed(scf::pipelineForLoop(rewriter, loop, options, &modified)) && modified) {
        loop.emitError("software pipelining failed after changing the loop");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
