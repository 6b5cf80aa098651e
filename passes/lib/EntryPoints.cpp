// The calling convention of compiled functions: one packed entry point per
// public function, so callers need no per-signature glue.
#include "BufferUses.h"

#include "adjit/Dialect/AdjitDialect.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MARKENTRYPOINTS
#define GEN_PASS_DEF_ELIDEDONATEDCOPIES
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

// A donated argument (adjit.aliasing_output = R) is writable, so that the
// ops computing result R, which adjit-write-into-dead-inputs made write
// into it, are bufferized in place when nothing reads the argument later.
// Result R is marked adjit.aliasing_input for adjit-elide-donated-copies.
void makeDonatedArgumentsWritable(func::FuncOp fn) {
  Builder b(fn.getContext());
  for (BlockArgument argument : fn.getArguments()) {
    auto result = fn.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(),
                                                   adjit::kAliasingOutputAttrName);
    if (!result)
      continue;
    fn->setAttr(adjit::kDonatesBuffersAttrName, b.getUnitAttr());
    fn.removeArgAttr(argument.getArgNumber(), adjit::kAliasingOutputAttrName);
    fn.setArgAttr(argument.getArgNumber(), "bufferization.writable", b.getBoolAttr(true));
    fn.setResultAttr(result.getInt(), adjit::kAliasingInputAttrName,
                     b.getI64IntegerAttr(argument.getArgNumber()));
  }
}

struct MarkEntryPointsPass
    : adjit::impl::MarkEntryPointsBase<MarkEntryPointsPass> {
  void runOnOperation() override {
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        fn.setArgAttr(i, "bufferization.writable", readOnly);
      copyAliasedResults(fn);
      makeDonatedArgumentsWritable(fn);
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(&getContext()));
    }
  }
};

// The memref a cast of `value` starts from.
Value uncast(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return value;
}

struct ElideDonatedCopiesPass
    : adjit::impl::ElideDonatedCopiesBase<ElideDonatedCopiesPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
    OpBuilder b(ret);
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      auto input = fn.getResultAttrOfType<IntegerAttr>(r, adjit::kAliasingInputAttrName);
      if (!input)
        continue;
      fn.removeResultAttr(r, StringAttr::get(&getContext(), adjit::kAliasingInputAttrName));
      Value returned = ret.getOperand(r);
      auto type = dyn_cast<MemRefType>(returned.getType());
      if (!type || !type.hasStaticShape())
        continue;
      if (uncast(returned) == fn.getArgument(input.getInt())) {
        // The caller passes the donated buffer as this result's
        // out-parameter too: an allocation that nothing writes stands for
        // it, and buffer-results-to-out-params replaces it by the
        // out-parameter.
        ret.setOperand(r, b.create<memref::AllocOp>(
                              ret.getLoc(), MemRefType::get(type.getShape(), type.getElementType())));
      } else {
        // Computed in a buffer of its own: that must stay one until the
        // end, where it is copied into the out-parameter. Hoisted (written
        // in place of the out-parameter, which is the donated buffer), it
        // would overwrite the argument while it may still be read. A cast
        // keeps buffer-results-to-out-params from hoisting it.
        ret.setOperand(r, b.create<memref::CastOp>(ret.getLoc(), type, returned));
      }
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
