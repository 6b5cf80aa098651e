// The calling convention of compiled functions: one packed entry point per
// public function, so callers need no per-signature glue.
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MARKENTRYPOINTS
#define GEN_PASS_DEF_EMITENTRYPOINTS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
constexpr StringLiteral kCInterfacePrefix = "_mlir_ciface_";

// Each result of an entry point gets its own caller buffer, so a result
// that is an argument, or repeats another result, is returned as a fresh
// copy (which bufferization then writes straight into the caller's buffer).
void copyAliasedResults(func::FuncOp fn) {
  fn.walk([](func::ReturnOp ret) {
    OpBuilder b(ret);
    llvm::SmallDenseSet<Value> returned;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      if (!isa<BlockArgument>(v) && returned.insert(v).second)
        continue;
      operand.set(b.create<bufferization::AllocTensorOp>(
          ret.getLoc(), cast<RankedTensorType>(v.getType()), ValueRange{}, v));
    }
  });
}

struct MarkEntryPointsPass
    : adjit::impl::MarkEntryPointsBase<MarkEntryPointsPass> {
  void runOnOperation() override {
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      copyAliasedResults(fn);
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(&getContext()));
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        fn.setArgAttr(i, "bufferization.writable", readOnly);
    }
  }
};

struct EmitEntryPointsPass
    : adjit::impl::EmitEntryPointsBase<EmitEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    SmallVector<LLVM::LLVMFuncOp> wrappers;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.getName().starts_with(kCInterfacePrefix) && !fn.isExternal())
        wrappers.push_back(fn);
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    for (LLVM::LLVMFuncOp wrapper : wrappers) {
      LLVM::LLVMFunctionType type = wrapper.getFunctionType();
      if (!isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          !llvm::all_of(type.getParams(),
                        [](Type t) { return isa<LLVM::LLVMPointerType>(t); })) {
        wrapper.emitError() << "entry point needs memref arguments and no "
                               "results (run buffer-results-to-out-params), "
                               "got "
                            << type;
        return signalPassFailure();
      }
      std::string name =
          mlir::adjit::entryPointName(wrapper.getName().drop_front(kCInterfacePrefix.size()));
      Location loc = wrapper.getLoc();
      auto entry = builder.create<LLVM::LLVMFuncOp>(
          loc, name,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                      {ptrType}));
      OpBuilder body = OpBuilder::atBlockBegin(entry.addEntryBlock(builder));
      Value descriptors = entry.getArgument(0);
      SmallVector<Value> args;
      for (unsigned i = 0; i < type.getNumParams(); ++i) {
        Value slot = body.create<LLVM::GEPOp>(
            loc, ptrType, ptrType, descriptors,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(body.create<LLVM::LoadOp>(loc, ptrType, slot));
      }
      body.create<LLVM::CallOp>(loc, wrapper, args);
      body.create<LLVM::ReturnOp>(loc, ValueRange{});
    }
  }
};
} // namespace
