// adjit-carry-bf16-as-i16: after adjit-expand-bf16, bf16 values are only
// moved (loaded, stored, selected, passed between blocks), never computed
// on. LLVM's x86 backend keeps a bf16 that lives across blocks in an f32
// register and narrows it back with a call to __truncsfbf2 unless the CPU
// has AVX512-BF16: a call that libgcc before GCC 13 does not define (the
// JIT could not link, an ahead-of-time object would not either) and a
// conversion that moving 16 bits does not need. Carried as i16, the same
// bits move with no conversion on any CPU.
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_CARRYBFLOAT16ASI16
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// bf16 or a vector of bf16 -> i16 or a vector of i16; any other type -> null.
Type carrierOf(Type type) {
  auto i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto vector = dyn_cast<VectorType>(type); vector && vector.getElementType().isBF16())
    return vector.clone(i16);
  return {};
}

// The inverse of carrierOf.
Type bfloat16Of(Type carrier) {
  auto bf16 = BFloat16Type::get(carrier.getContext());
  if (auto vector = dyn_cast<VectorType>(carrier))
    return vector.clone(bf16);
  return bf16;
}

// Ops that only move their values: they take the same bits as i16 as they
// do as bf16, in their results and in these operands.
bool movesValues(Operation *op) {
  return isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::SelectOp, LLVM::ExtractElementOp,
             LLVM::InsertElementOp, LLVM::ShuffleVectorOp, LLVM::UndefOp, LLVM::PoisonOp,
             LLVM::ZeroOp, LLVM::FreezeOp, LLVM::BrOp, LLVM::CondBrOp, LLVM::SwitchOp,
             LLVM::MaskedLoadOp, LLVM::MaskedStoreOp, LLVM::masked_gather,
             LLVM::masked_scatter>(op);
}

// A bf16 constant as the i16 constant of its bits, or null for an attribute
// of another kind.
Attribute bitsOf(Attribute value, Type carrier) {
  if (auto scalar = dyn_cast<FloatAttr>(value))
    return IntegerAttr::get(carrier, scalar.getValue().bitcastToAPInt());
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.bitcast(cast<VectorType>(carrier).getElementType());
  return {};
}

// Gives the module's private functions (outlined loop nests), which no one
// outside calls, i16 in place of their bf16 parameters and results: a bf16
// passed in a register would be narrowed through __truncsfbf2 as well.
// Returns their names.
DenseSet<StringAttr> carryInSignatures(ModuleOp module) {
  DenseSet<StringAttr> retyped;
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    if (function.isExternal() ||
        !(function.isPrivate() || function.getLinkage() == LLVM::Linkage::Internal ||
          function.getLinkage() == LLVM::Linkage::Private))
      continue;
    LLVM::LLVMFunctionType type = function.getFunctionType();
    auto carried = [](Type t) {
      Type carrier = carrierOf(t);
      return carrier ? carrier : t;
    };
    SmallVector<Type> parameters = llvm::map_to_vector(type.getParams(), carried);
    Type result = carried(type.getReturnType());
    if (ArrayRef(parameters) == type.getParams() && result == type.getReturnType())
      continue;
    function.setFunctionType(LLVM::LLVMFunctionType::get(result, parameters, type.isVarArg()));
    retyped.insert(function.getSymNameAttr());
  }
  return retyped;
}

struct CarryBFloat16AsI16Pass
    : adjit::impl::CarryBFloat16AsI16Base<CarryBFloat16AsI16Pass> {
  void runOnOperation() override {
    DenseSet<StringAttr> retyped = carryInSignatures(getOperation());
    // Calls of retyped functions, and their returns, take i16 as it is.
    auto takesCarriers = [&](Operation *op) {
      if (auto call = dyn_cast<LLVM::CallOp>(op))
        return call.getCalleeAttr() && retyped.contains(call.getCalleeAttr().getAttr());
      if (isa<LLVM::ReturnOp>(op))
        return retyped.contains(op->getParentOfType<LLVM::LLVMFuncOp>().getSymNameAttr());
      return false;
    };
    auto isRetypedFunction = [&](Operation *op) {
      auto function = dyn_cast<LLVM::LLVMFuncOp>(op);
      return function && retyped.contains(function.getSymNameAttr());
    };
    SmallVector<Operation *> ops;
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Operation *op) {
      ops.push_back(op);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          blocks.push_back(&block);
    });
    // Every bf16 value becomes an i16 one: retyped in place where its
    // definition only moves bits, else a bitcast of it (right after the
    // definition, so that only the i16 leaves the block).
    DenseSet<Value> carried;
    OpBuilder b(&getContext());
    auto carryInPlace = [&](Value value, Type carrier) {
      value.setType(carrier);
      carried.insert(value);
    };
    auto bitcastAfterDefinition = [&](Value value, Type carrier) {
      Value bits = b.create<LLVM::BitcastOp>(value.getLoc(), carrier, value);
      value.replaceAllUsesExcept(bits, bits.getDefiningOp());
      carried.insert(bits);
    };
    for (Block *block : blocks)
      for (BlockArgument argument : block->getArguments()) {
        Type carrier = carrierOf(argument.getType());
        if (!carrier)
          continue;
        // A region's entry arguments are the function's or the op's own
        // (a retyped function's take i16); the others come from branches,
        // which only move values.
        if (block->isEntryBlock() && !isRetypedFunction(block->getParentOp())) {
          b.setInsertionPointToStart(block);
          bitcastAfterDefinition(argument, carrier);
        } else {
          carryInPlace(argument, carrier);
        }
      }
    for (Operation *op : ops)
      for (OpResult result : op->getResults()) {
        Type carrier = carrierOf(result.getType());
        if (!carrier)
          continue;
        if (auto constant = dyn_cast<LLVM::ConstantOp>(op))
          if (Attribute bits = bitsOf(constant.getValue(), carrier)) {
            b.setInsertionPoint(op);
            auto replacement = b.create<LLVM::ConstantOp>(op->getLoc(), carrier, bits);
            result.replaceAllUsesWith(replacement);
            carried.insert(replacement);
            continue;
          }
        if (movesValues(op) || isa<LLVM::BitcastOp>(op) || takesCarriers(op)) {
          carryInPlace(result, carrier);
        } else {
          b.setInsertionPointAfter(op);
          bitcastAfterDefinition(result, carrier);
        }
      }
    // Users that compute on bf16 (none after adjit-expand-bf16, unless a
    // call takes or returns one) get it back as bf16 right before them.
    for (Operation *op : ops) {
      if (movesValues(op) || isa<LLVM::BitcastOp>(op) || takesCarriers(op))
        continue;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!carried.contains(operand.get()))
          continue;
        b.setInsertionPoint(op);
        operand.set(b.create<LLVM::BitcastOp>(op->getLoc(), bfloat16Of(operand.get().getType()),
                                              operand.get()));
      }
    }
    // What became i16 to i16, and the bf16 constants replaced above.
    for (Operation *op : ops) {
      if (auto bitcast = dyn_cast<LLVM::BitcastOp>(op);
          bitcast && bitcast.getArg().getType() == bitcast.getType()) {
        bitcast.replaceAllUsesWith(bitcast.getArg());
        bitcast.erase();
      } else if (isa<LLVM::ConstantOp>(op) && op->use_empty() &&
                 carrierOf(op->getResult(0).getType())) {
        op->erase();
      }
    }
  }
};
} // namespace
