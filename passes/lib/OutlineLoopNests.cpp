// adjit-outline-loop-nests: each outermost loop nest of a long function
// becomes a call, and identical nests share one function (see the pass
// description in Passes.td).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_OUTLINELOOPNESTS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool isLoopNest(Operation &op) { return isa<LoopLikeOpInterface>(op); }

// A nest as a function: the values it reads from outside become arguments,
// except constants, which are cloned in (the same constants make the same
// function, and LLVM sees their values).
func::FuncOp buildFunction(Operation *nest, StringRef name, SmallVectorImpl<Value> &arguments) {
  llvm::SetVector<Value> captured;
  captured.insert(nest->operand_begin(), nest->operand_end());
  getUsedValuesDefinedAbove(nest->getRegions(), captured);
  SmallVector<Operation *> constants;
  SmallVector<Type> argumentTypes;
  for (Value value : captured) {
    Operation *definition = value.getDefiningOp();
    if (definition && matchPattern(definition, m_Constant())) {
      constants.push_back(definition);
    } else {
      arguments.push_back(value);
      argumentTypes.push_back(value.getType());
    }
  }
  OpBuilder b(nest->getContext());
  auto function = func::FuncOp::create(
      nest->getLoc(), name, b.getFunctionType(argumentTypes, nest->getResultTypes()));
  function.setPrivate();
  // Not inlined back by LLVM (FuncToLLVM passes the attribute on).
  function->setAttr("no_inline", b.getUnitAttr());
  Block *body = function.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(arguments, body->getArguments()))
    mapping.map(value, argument);
  for (Operation *constant : constants)
    b.clone(*constant, mapping);
  Operation *clone = b.clone(*nest, mapping);
  b.create<func::ReturnOp>(nest->getLoc(), clone->getResults());
  return function;
}

// Functions of nests, by what they compute: nests alike up to their
// operands share one.
class NestFunctions {
public:
  explicit NestFunctions(ModuleOp module) : symbols(module) {}

  // `candidate` (not yet in the module) or an existing function that
  // computes the same; the candidate is erased in the second case, and
  // placed after `insertAfter` in the first (which it then becomes).
  func::FuncOp intern(func::FuncOp candidate, Operation *&insertAfter) {
    llvm::hash_code key = structuralHash(candidate);
    for (func::FuncOp existing : byHash[key])
      if (existing.getFunctionType() == candidate.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &existing.getBody(), &candidate.getBody(),
              OperationEquivalence::Flags::IgnoreLocations)) {
        candidate.erase();
        return existing;
      }
    symbols.insert(candidate, std::next(Block::iterator(insertAfter)));
    insertAfter = candidate;
    byHash[key].push_back(candidate);
    return candidate;
  }

private:
  static llvm::hash_code structuralHash(func::FuncOp function) {
    llvm::hash_code hash = hash_value(function.getFunctionType());
    function.getBody().walk([&](Operation *op) {
      hash = llvm::hash_combine(
          hash, OperationEquivalence::computeHash(
                    op, OperationEquivalence::ignoreHashValue,
                    OperationEquivalence::ignoreHashValue,
                    OperationEquivalence::Flags::IgnoreLocations));
    });
    return hash;
  }

  SymbolTable symbols;
  DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> byHash;
};

struct OutlineLoopNestsPass : adjit::impl::OutlineLoopNestsBase<OutlineLoopNestsPass> {
  using OutlineLoopNestsBase::OutlineLoopNestsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto isLong = [&](Block &block) {
      return llvm::count_if(block, isLoopNest) > static_cast<long>(minNests);
    };
    // The blocks holding many nests: a function's body, or a loop's (a
    // program of a few rows, tiled by rows, is one loop around all of
    // it). Inner blocks first, before the loops holding them move.
    SmallVector<std::pair<func::FuncOp, Block *>> longBlocks;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      function.walk([&](Operation *op) {
        if (isLoopNest(*op))
          for (Region &region : op->getRegions())
            for (Block &block : region)
              if (isLong(block))
                longBlocks.push_back({function, &block});
      });
      for (Block &block : function.getBody())
        if (isLong(block))
          longBlocks.push_back({function, &block});
    }
    NestFunctions functions(module);
    llvm::DenseMap<Operation *, unsigned> outlinedFrom;
    for (auto [function, block] : longBlocks) {
      SmallVector<Operation *> nests;
      for (Operation &op : *block)
        if (isLoopNest(op))
          nests.push_back(&op);
      Operation *insertAfter = function;
      for (Operation *nest : nests) {
        SmallVector<Value> arguments;
        unsigned index = outlinedFrom[function]++;
        func::FuncOp outlined = functions.intern(
            buildFunction(nest, (function.getName() + "_nest" + Twine(index)).str(), arguments),
            insertAfter);
        OpBuilder b(nest);
        auto call = b.create<func::CallOp>(nest->getLoc(), outlined, arguments);
        nest->replaceAllUsesWith(call.getResults());
        nest->erase();
      }
    }
  }
};

} // namespace
