#include "adjit/Passes/Pipelines.h"

#include "ReserveRowBufferization.h"
#include "TransferWriteBufferization.h"

#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/Passes.h"
#include "adjit/Passes/SharedCanonicalizer.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Target/LLVMIR/Dialect/X86Vector/X86VectorToLLVMIRTranslation.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mlir::adjit {

StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::traced:
    return "traced";
  case Stage::differentiated:
    return "differentiated";
  case Stage::optimized:
    return "optimized";
  case Stage::linalg:
    return "linalg";
  case Stage::fused:
    return "fused";
  case Stage::bufferized:
    return "bufferized";
  case Stage::gpu:
    return "gpu";
  case Stage::nvvm:
    return "nvvm";
  case Stage::llvm:
    return "llvm";
  case Stage::llvmIR:
    return "llvm-ir";
  case Stage::assembly:
    return "asm";
  case Stage::object:
    return "obj";
  case Stage::ptx:
    return "ptx";
  case Stage::gpuProgram:
    return "gpu-program";
  case Stage::cubin:
    return "cubin";
  }
  llvm_unreachable("unknown stage");
}

std::optional<Stage> parseStage(StringRef name) {
  for (Stage stage : kAllStages)
    if (stageName(stage) == name)
      return stage;
  return std::nullopt;
}

namespace {
void addCleanup(OpPassManager &pm, const CanonicalizerFactory &canonicalizer) {
  pm.addPass(canonicalizer.create());
  pm.addPass(createCSEPass());
}

// Copies between buffers become linalg.copy, which lowers to plain loops:
// memref.copy of strided views would need MLIR's C runner library.
LogicalResult copyWithLinalg(OpBuilder &b, Location loc, Value from,
                             Value to) {
  b.create<linalg::CopyOp>(loc, from, to);
  return success();
}

void addBufferization(OpPassManager &pm, const PipelineOptions &options,
                      const CanonicalizerFactory &canonicalizer) {
  pm.addPass(createEraseOptimizationBarriers());
  pm.addPass(createSplitSharedInits());
  pm.addPass(createSinkInsertSlices());
  pm.addPass(createBoundInsertChains());
  pm.addPass(createMarkEntryPoints());
  bufferization::OneShotBufferizationOptions bufferize;
  bufferize.memCpyFn = copyWithLinalg;
  bufferize.bufferizeFunctionBoundaries = true;
  // A loop body (adjit.for / adjit.while) may yield fresh tensors.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A block's temporaries are allocated once per loop (per chunk when the
  // loop runs in parallel chunks), not once per block.
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  // Loops carry buffers that they update in place; forwarding them lets
  // results be written straight into the caller's buffers below.
  pm.addPass(canonicalizer.create());
  // Callers own the result buffers (the runtime's caching allocator), so
  // functions write results in place instead of returning fresh memory.
  bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.hoistStaticAllocs = true;
  outParams.memCpyFn = copyWithLinalg;
  pm.addNestedPass<func::FuncOp>(createAllocateReshapedResults());
  pm.addNestedPass<func::FuncOp>(createElideDonatedCopies());
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // Upstream's deallocation pipeline (buildBufferDeallocationPipeline),
  // with temporaries that are distinct allocations freed one by one before
  // its simplification compares every pair of them.
  pm.addPass(memref::createExpandReallocPass(/*emitDeallocs=*/false));
  pm.addPass(canonicalizer.create());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(canonicalizer.create());
  pm.addNestedPass<func::FuncOp>(createSplitDeallocations());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(canonicalizer.create());
  pm.addNestedPass<func::FuncOp>(createFreeChunkTemporaries());
  // On a GPU, temporaries are device memory that the launch plan allocates.
  if (options.target == Target::cpu && options.planBuffers)
    pm.addNestedPass<func::FuncOp>(createPlanBuffers());
  addCleanup(pm, canonicalizer);
}

void addMappingToGpu(OpPassManager &pm, const PipelineOptions &options,
                     const CanonicalizerFactory &canonicalizer) {
  MapToGpuOptions mapping;
  mapping.gemmLibrary = options.gpuGemmLibrary;
  mapping.rowThreads = options.gpuRowThreads;
  pm.addPass(createMapToGpu(mapping));
  pm.addPass(createLowerAffinePass());
  addCleanup(pm, canonicalizer);
  // Constants move into the kernels instead of becoming kernel parameters.
  pm.addPass(createGpuLauchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createLowerGpuAllReduce());
  pm.addPass(createMergeGpuModules());
  addCleanup(pm, canonicalizer);
}

void addLoweringToNVVM(OpPassManager &pm, const PipelineOptions &options,
                       const CanonicalizerFactory &canonicalizer) {
  GpuNVVMAttachTargetOptions target;
  target.chip = options.gpuChip;
  // PTX ISA 8.0 (CUDA 12.0): every architecture from sm_50 to sm_90.
  target.features = "+ptx80";
  target.optLevel = 3;
  SmallVector<std::string> libraries;
  if (!options.libdevice.empty())
    libraries.push_back(options.libdevice);
  target.linkLibs = libraries;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views inside kernels (a row group's rows) become address arithmetic.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createConvertSCFToCFPass());
  MathToLibmOptions libdevice;
  libdevice.deviceLibrary = true;
  kernels.addPass(createMathToLibm(libdevice));
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(canonicalizer.create());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

// The x86-64 vector function ABI's ISA letter of libmvec's variant for the
// target's widest registers, or "" without the library.
std::string vectorMathIsa(const PipelineOptions &options) {
  if (!options.vectorMathLibrary)
    return "";
  int64_t bits = options.vectorBits > 0 ? options.vectorBits : hostVectorBits();
  if (bits >= 512)
    return "e";
  if (bits >= 256)
    return options.avx2.value_or(hostHasAvx2()) ? "d" : "c";
  return "b";
}

void addLoweringToLLVM(OpPassManager &pm, const PipelineOptions &options,
                       const CanonicalizerFactory &canonicalizer) {
  pm.addPass(createContractionsToCalls());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToAffineLoopsPass());
  pm.addNestedPass<func::FuncOp>(createPromoteAccumulators());
  pm.addNestedPass<func::FuncOp>(createOverlapRowStores());
  pm.addNestedPass<func::FuncOp>(createOverlapRowReductions());
  pm.addNestedPass<func::FuncOp>(createPrefetchNextRows());
  pm.addNestedPass<func::FuncOp>(createStreamStores());
  pm.addNestedPass<func::FuncOp>(createJamStencilRows());
  pm.addPass(createOutlineLoopNests());
  // Parallel chunks run on the calling thread's OpenMP team
  // (runtime/include/adjit/runtime/Threads.h), or in order.
  if (options.threads) {
    pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
    pm.addPass(createConvertSCFToOpenMPPass());
  } else {
    pm.addNestedPass<func::FuncOp>(createForallToForLoopPass());
  }
  // Inlines the alloca scopes around loop bodies that allocate nothing
  // (control flow inside one would not lower).
  pm.addPass(canonicalizer.create());
  // Vector reads along a strided dimension (a strided slice) become gathers
  // through unit-stride views; strided writes, loops of scalar stores; the
  // others, vector loads and stores (convert-vector-to-llvm).
  pm.addNestedPass<func::FuncOp>(createUnitStrideGathers());
  pm.addPass(createConvertVectorToSCFPass());
  ApproximateMathOptions approximations;
  approximations.avx512 =
      (options.vectorBits > 0 ? options.vectorBits : hostVectorBits()) >= 512;
  approximations.oneDivision = dividesSlowly(options.cpu);
  approximations.reciprocalByNewtonStep = approximations.avx512 && approximations.oneDivision;
  pm.addPass(createApproximateMath(approximations));
  if (approximations.avx512 && options.avx512dq.value_or(hostHasAvx512Dq()))
    pm.addPass(createAvx512MinMax());
  pm.addPass(createWidenedHalfMinMax());
  pm.addPass(createConvertMathToFuncs());
  MathToLibmOptions libm;
  libm.vectorIsa = vectorMathIsa(options);
  pm.addPass(createMathToLibm(libm));
  // After the last canonicalizer: a flat row loop of thousands of ops made
  // its dead-op checks, which walk the loop on every change, quadratic.
  pm.addNestedPass<func::FuncOp>(createPromoteSingleIterationLoops());
  pm.addPass(createLowerAffinePass());
  PipelineLoopsOptions pipelining;
  pipelining.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(createPipelineLoops(pipelining));
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createExpandBFloat16());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // adjit-vectorize reduces floats across lanes only where the program
  // allowed reassociation.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  vectorToLLVM.x86Vector = true; // adjit-approximate-math's scalef
  pm.addPass(createConvertBoolVectorMemoryToLLVM());
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createConvertArenaToLLVM());
  // Temporaries come from the runtime's caching allocator
  // (runtime/include/adjit/runtime/KernelAllocation.h), not malloc.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCarryBFloat16AsI16());
  pm.addPass(createEmitEntryPoints());
}
} // namespace

ArrayRef<Stage> stagesOf(Target target) {
  static constexpr Stage cpu[] = {Stage::traced, Stage::differentiated,
                                  Stage::optimized, Stage::linalg,
                                  Stage::fused, Stage::bufferized,
                                  Stage::llvm, Stage::llvmIR,
                                  Stage::assembly, Stage::object};
  static constexpr Stage cuda[] = {Stage::traced, Stage::differentiated,
                                   Stage::optimized, Stage::linalg,
                                   Stage::fused, Stage::bufferized,
                                   Stage::gpu, Stage::nvvm,
                                   Stage::ptx, Stage::gpuProgram};
  return target == Target::cpu ? ArrayRef<Stage>(cpu) : ArrayRef<Stage>(cuda);
}

void addGpuBinaryPasses(OpPassManager &pm, bool cubin,
                        const std::string &cudaToolkit) {
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = cubin ? "bin" : "isa";
  binary.toolkitPath = cudaToolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

// The passes that take IR of the previous MLIR stage to `stage`.
static void addStagePasses(OpPassManager &pm, Stage stage, const PipelineOptions &options,
                           const CanonicalizerFactory &canonicalizer) {
  switch (stage) {
  case Stage::traced:
    return;
  case Stage::differentiated:
    pm.addPass(createDifferentiate());
    if (options.rematerialize)
      pm.addPass(createRematerialize());
    return;
  case Stage::optimized:
    // Derived functions are inlined so that forward and backward code
    // optimize (and later fuse) together.
    pm.addPass(createInlinerPass());
    pm.addPass(createSymbolDCEPass());
    pm.addPass(createExpandComposites());
    return addCleanup(pm, canonicalizer);
  case Stage::linalg: {
    // On a CPU, batches of small matrices run a matrix per vector lane, and
    // sorts and searches in parallel chunks of rows.
    LowerAdjitToLinalgOptions lowering;
    if (options.target == Target::cpu) {
      lowering.matrixVectorBits = options.vectorBits > 0 ? options.vectorBits : hostVectorBits();
      lowering.parallelRows = true;
    }
    pm.addPass(createLowerAdjitToLinalg(lowering));
    return addCleanup(pm, canonicalizer);
  }
  case Stage::fused:
    // Unit dimensions (a keepdims reduction) would hide producers from
    // their consumers behind reshapes.
    pm.addPass(createLinalgFoldUnitExtentDimsPass());
    // Fusion computes an expensive value once and shares it (a full-size
    // buffer, or a row's temporary in a row group).
    {
      FuseElementwiseOptions fusion;
      fusion.vectorBits = options.vectorBits;
      pm.addPass(createFuseElementwise(fusion));
      // Pads are read in place by their (now fused) elementwise consumers,
      // and fusion runs again to join the pieces with the pads' sources.
      pm.addPass(createSplitPaddedConsumers());
      addCleanup(pm, canonicalizer);
      pm.addPass(createFuseElementwise(fusion));
    }
    addCleanup(pm, canonicalizer);
    // On a CPU, elementwise work over short rows runs as one long row, in
    // whole vectors, before row groups and their blocks are planned.
    if (options.target == Target::cpu) {
      FlattenShortRowsOptions flatten;
      flatten.vectorBits = options.vectorBits;
      pm.addPass(createFlattenShortRows(flatten));
    }
    // Contractions are marked for the CPU's GEMM kernels or the GPU's GEMM
    // library. Row groups run in blocks of rows that stay in the caches on
    // a CPU, in thread blocks on a GPU (a block per chunk of rows); on a
    // GPU, only siblings that keep the mapping's parallelism merge (a
    // reduction merged with a sibling over other dimensions would lose it).
    pm.addPass(createSelectKernels());
    {
      TileAndFuseRowsOptions rows;
      if (options.target == Target::cuda) {
        rows.gpu = true;
        rows.maxChunks = options.gpuRowBlocks;
      }
      pm.addPass(createTileAndFuseRows(rows));
    }
    // On a GPU, a value shared outside row groups costs a round trip
    // through device memory and a launch: it is recomputed in each consumer
    // instead (row groups keep the values they share).
    if (options.target == Target::cuda) {
      FuseElementwiseOptions recompute;
      recompute.recompute = true;
      pm.addPass(createFuseElementwise(recompute));
      addCleanup(pm, canonicalizer);
    }
    {
      MergeGenericsOptions merging;
      merging.uniformIterators = options.target == Target::cuda;
      pm.addPass(createMergeGenerics(merging));
    }
    pm.addPass(createWriteIntoDeadInputs());
    if (options.target == Target::cpu) {
      VectorizeOptions vectorize;
      vectorize.vectorBits = options.vectorBits;
      vectorize.vectorMathLibrary = options.vectorMathLibrary;
      pm.addPass(createVectorize(vectorize));
    }
    return addCleanup(pm, canonicalizer);
  case Stage::bufferized:
    return addBufferization(pm, options, canonicalizer);
  case Stage::gpu:
    return addMappingToGpu(pm, options, canonicalizer);
  case Stage::nvvm:
    return addLoweringToNVVM(pm, options, canonicalizer);
  case Stage::llvm:
    return addLoweringToLLVM(pm, options, canonicalizer);
  case Stage::llvmIR:
  case Stage::assembly:
  case Stage::object:
  case Stage::ptx:
  case Stage::gpuProgram:
  case Stage::cubin:
    llvm_unreachable("a back end emits this stage; no passes make it");
  }
}

void addPipeline(OpPassManager &pm, Stage from, Stage to,
                 const PipelineOptions &options) {
  CanonicalizerFactory canonicalizer;
  for (Stage stage : stagesOf(options.target))
    if (isMlirStage(stage) && stage > from && stage <= to)
      addStagePasses(pm, stage, options, canonicalizer);
}

void registerPipelineDialects(DialectRegistry &registry) {
  registry.insert<AdjitDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, omp::OpenMPDialect, scf::SCFDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // Before MLIR's vector models, which it replaces for transfer_write.
  registerTransferWriteBufferization(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  registerReserveRowBufferization(registry);
  func::registerInlinerExtension(registry);
  registerDerivativeRules(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  registry.insert<x86vector::X86VectorDialect>();
  registerX86VectorDialectTranslation(registry);
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

namespace {
// What adjit-opt's pipelines take on the command line
// (`--adjit-pipeline-fused="vector-bits=256"`): lit tests fix the vector
// width instead of taking the host's.
struct PipelineFlags : PassPipelineOptions<PipelineFlags> {
  Option<int64_t> vectorBits{*this, "vector-bits",
                             llvm::cl::desc("cpu: vector register width in bits (0: the host's)"),
                             llvm::cl::init(0)};
};
} // namespace

void registerPipelines() {
  registerAdjitPasses();
  for (Stage stage : kAllStages) {
    if (stage == Stage::traced || !isMlirStage(stage))
      continue;
    std::string name = ("adjit-pipeline-" + stageName(stage)).str();
    std::string description =
        ("Run the adjit pipeline from traced IR up to the '" +
         stageName(stage) + "' stage")
            .str();
    PipelineOptions options;
    if (stage == Stage::gpu || stage == Stage::nvvm)
      options.target = Target::cuda;
    PassPipelineRegistration<PipelineFlags>(
        name, description,
        [stage, options](OpPassManager &pm, const PipelineFlags &flags) {
          PipelineOptions withFlags = options;
          withFlags.vectorBits = flags.vectorBits;
          addPipeline(pm, Stage::traced, stage, withFlags);
        });
  }
}

} // namespace mlir::adjit
