#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MATHTOLIBM
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// The libm function for `op` on its scalar type, or "" to leave it to LLVM.
std::string libmName(Operation *op) {
  Type type = op->getResult(0).getType();
  if (!type.isF32() && !type.isF64())
    return "";
  StringRef base = TypeSwitch<Operation *, StringRef>(op)
                       .Case([](math::TanhOp) { return "tanh"; })
                       .Case([](math::ErfOp) { return "erf"; })
                       .Case([](math::ExpM1Op) { return "expm1"; })
                       .Case([](math::Log1pOp) { return "log1p"; })
                       .Case([](math::SinOp) { return "sin"; })
                       .Case([](math::CosOp) { return "cos"; })
                       .Default([](Operation *) { return ""; });
  if (base.empty())
    return "";
  return type.isF32() ? (base + "f").str() : base.str();
}

struct MathToLibmPass : adjit::impl::MathToLibmBase<MathToLibmPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<Operation *> calls;
    module.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && !libmName(op).empty())
        calls.push_back(op);
    });
    for (Operation *op : calls) {
      std::string name = libmName(op);
      Type type = op->getResult(0).getType();
      auto callee = symbols.lookup<func::FuncOp>(name);
      if (!callee) {
        OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
        callee = b.create<func::FuncOp>(op->getLoc(), name,
                                        b.getFunctionType({type}, {type}));
        callee.setPrivate();
        symbols.insert(callee);
      }
      OpBuilder b(op);
      auto call = b.create<func::CallOp>(op->getLoc(), callee, op->getOperands());
      op->replaceAllUsesWith(call.getResults());
      op->erase();
    }
  }
};

} // namespace
