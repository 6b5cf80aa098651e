// adjit-convert-arena-to-llvm: arena buffers become calls that LLVM treats
// as allocations, so that buffers sharing one arena keep their alias
// information (see adjit-plan-buffers).
#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_CONVERTARENATOLLVM
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {

// The runtime's functions (runtime/include/adjit/runtime/ArenaBuffers.h).
constexpr StringLiteral kArenaBufferFn = "adjit_arena_buffer";
constexpr StringLiteral kArenaReleaseFn = "adjit_arena_release";

// Both act on memory only they reach (the arena's bookkeeping, as malloc's
// is), so they stay in order with each other; the release also reads and
// writes its argument's memory, so the buffer's accesses stay before it.
void declareRuntimeFunctions(ModuleOp module) {
  MLIRContext *context = module.getContext();
  auto pointer = LLVM::LLVMPointerType::get(context);
  using LLVM::ModRefInfo;
  LLVM::LLVMFuncOp buffer = LLVM::lookupOrCreateFn(
      module, kArenaBufferFn, {pointer, IntegerType::get(context, 64)}, pointer);
  buffer.setMemoryAttr(LLVM::MemoryEffectsAttr::get(
      context, ModRefInfo::NoModRef, ModRefInfo::NoModRef, ModRefInfo::ModRef));
  buffer.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(context));
  LLVM::LLVMFuncOp release = LLVM::lookupOrCreateFn(module, kArenaReleaseFn, {pointer},
                                                    LLVM::LLVMVoidType::get(context));
  release.setMemoryAttr(LLVM::MemoryEffectsAttr::get(
      context, ModRefInfo::NoModRef, ModRefInfo::ModRef, ModRefInfo::ModRef));
  for (LLVM::LLVMFuncOp function : {buffer, release}) {
    function.setNoUnwind(true);
    function.setWillReturn(true);
  }
}

LLVM::LLVMFuncOp runtimeFunction(Operation *op, StringRef name) {
  return op->getParentOfType<ModuleOp>().lookupSymbol<LLVM::LLVMFuncOp>(name);
}

struct ArenaBufferLowering : ConvertOpToLLVMPattern<ArenaBufferOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(ArenaBufferOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The arena has an identity layout (the verifier's word): its data
    // starts at the aligned pointer.
    Value base = MemRefDescriptor(adaptor.getArena()).alignedPtr(rewriter, loc);
    Value offset = rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI64Type(),
                                                     op.getOffsetAttr());
    Value buffer = rewriter
                       .create<LLVM::CallOp>(loc, runtimeFunction(op, kArenaBufferFn),
                                             ValueRange{base, offset})
                       .getResult();
    rewriter.replaceOp(op, Value(MemRefDescriptor::fromStaticShape(
                               rewriter, loc, *getTypeConverter(), op.getType(), buffer)));
    return success();
  }
};

struct ArenaReleaseLowering : ConvertOpToLLVMPattern<ArenaReleaseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(ArenaReleaseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value buffer = MemRefDescriptor(adaptor.getBuffer()).allocatedPtr(rewriter, op.getLoc());
    rewriter.create<LLVM::CallOp>(op.getLoc(), runtimeFunction(op, kArenaReleaseFn),
                                  ValueRange{buffer});
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertArenaToLLVMPass
    : adjit::impl::ConvertArenaToLLVMBase<ConvertArenaToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.walk([](ArenaBufferOp) { return WalkResult::interrupt(); }).wasInterrupted())
      return;
    declareRuntimeFunctions(module);
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    patterns.add<ArenaBufferLowering, ArenaReleaseLowering>(converter);
    ConversionTarget target(*context);
    target.addIllegalOp<ArenaBufferOp, ArenaReleaseOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
