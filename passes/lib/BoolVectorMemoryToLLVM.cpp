// adjit-convert-bool-vector-memory-to-llvm: vectors of i1 read and written
// a byte per element, as adjit lays out tensors of i1 (and as LLVM itself
// stores a scalar i1). Upstream's lowering of vector.load and vector.store
// would load and store LLVM's <N x i1>, which memory packs into bits.
#include "adjit/Passes/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <type_traits>

namespace mlir::adjit {
#define GEN_PASS_DEF_CONVERTBOOLVECTORMEMORYTOLLVM
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool isBool(Type type) { return type.isInteger(1); }

bool accessesBoolMemory(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return memref && isBool(memref.getElementType());
  });
}

// What the patterns below lower: a 1-D vector.load or vector.store of i1
// memory (the vector's elements are the memref's).
bool isBoolLoadOrStore(Operation *op) {
  VectorType type;
  if (auto load = dyn_cast<vector::LoadOp>(op))
    type = load.getVectorType();
  else if (auto store = dyn_cast<vector::StoreOp>(op))
    type = store.getVectorType();
  return type && type.getRank() == 1 && isBool(type.getElementType());
}

// The same vector with a byte per element.
VectorType asBytes(VectorType type) {
  return type.clone(IntegerType::get(type.getContext(), 8));
}

// A 1-D vector.load or vector.store of i1 memory: the element's address as
// upstream computes it, then bytes. A load truncates what it reads (a
// stored bool is 0 or 1, so its low bit is its value); a store extends
// first.
template <class AccessOp>
struct BoolVectorAccess : ConvertOpToLLVMPattern<AccessOp> {
  using ConvertOpToLLVMPattern<AccessOp>::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(AccessOp op, typename AccessOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isBoolLoadOrStore(op))
      return rewriter.notifyMatchFailure(op, "not a 1-D vector of i1");
    VectorType type = op.getVectorType();
    Location loc = op.getLoc();
    Value address = this->getStridedElementPtr(loc, op.getMemRefType(), adaptor.getBase(),
                                               adaptor.getIndices(), rewriter);
    if constexpr (std::is_same_v<AccessOp, vector::LoadOp>) {
      Value bytes = rewriter.create<LLVM::LoadOp>(loc, asBytes(type), address, /*alignment=*/1,
                                                  /*isVolatile=*/false, op.getNontemporal());
      rewriter.replaceOpWithNewOp<LLVM::TruncOp>(op, type, bytes);
    } else {
      Value bytes = rewriter.create<LLVM::ZExtOp>(loc, asBytes(type), op.getValueToStore());
      rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, bytes, address, /*alignment=*/1,
                                                 /*isVolatile=*/false, op.getNontemporal());
    }
    return success();
  }
};

struct ConvertBoolVectorMemoryToLLVMPass
    : adjit::impl::ConvertBoolVectorMemoryToLLVMBase<ConvertBoolVectorMemoryToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // Every vector op with a memref operand accesses memory.
    auto isBoolVectorAccess = [](Operation *op) {
      return isa<vector::VectorDialect>(op->getDialect()) && accessesBoolMemory(op);
    };
    if (!module.walk([&](Operation *op) {
                 return isBoolVectorAccess(op) ? WalkResult::interrupt() : WalkResult::advance();
               }).wasInterrupted())
      return;

    // In-bounds 1-D transfers become plain loads and stores first, as
    // convert-vector-to-llvm would make them.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
      if (failed(applyPatternsAndFoldGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }

    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    patterns.add<BoolVectorAccess<vector::LoadOp>, BoolVectorAccess<vector::StoreOp>>(converter);
    ConversionTarget target(*context);
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addDynamicallyLegalOp<vector::LoadOp, vector::StoreOp>(
        [](Operation *op) { return !isBoolLoadOrStore(op); });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Any other vector access of bool memory (masked, gathered, a transfer
    // out of bounds, more than one dimension) would be lowered bit-packed:
    // refuse it.
    WalkResult unsupported = module.walk([&](Operation *op) {
      if (!isBoolVectorAccess(op))
        return WalkResult::advance();
      op->emitOpError("accesses memory of i1 (a byte per element) in a form that only "
                      "a 1-D in-bounds vector.load or vector.store can lower");
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
