#ifndef ADJIT_PASSES_PIPELINES_H
#define ADJIT_PASSES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>

namespace mlir::adjit {

/// The stages of the compilation pipeline (DESIGN.md §2), each one
/// dumpable by name. Up to `llvm` they are MLIR, each what the passes of all
/// stages up to it produce; the rest are what a back end emits from the last
/// MLIR stage. A target goes through the stages that stagesOf() lists, in
/// that order.
enum class Stage {
  traced,
  differentiated,
  optimized,
  linalg,
  fused,
  bufferized,
  gpu,  ///< cuda: kernels outlined into one gpu.module, launched by the host
  nvvm, ///< cuda: kernels in the LLVM and NVVM dialects, a target attached
  llvm, ///< cpu: the whole program in the LLVM dialect
  llvmIR,     ///< cpu: optimized LLVM IR ("llvm-ir")
  assembly,   ///< cpu: its assembly ("asm")
  object,     ///< cpu: an object file ("obj", binary)
  ptx,        ///< cuda: the kernels' PTX
  gpuProgram, ///< cuda: launch plans and kernels ("gpu-program")
  cubin, ///< cuda: the kernels assembled by the CUDA toolkit's ptxas; on
         ///< request only (not in stagesOf), as it needs the toolkit
};

/// Whether passes produce `stage` (rather than a back end emitting it).
constexpr bool isMlirStage(Stage stage) { return stage <= Stage::llvm; }

/// What the pipeline compiles for.
enum class Target { cpu, cuda };

struct PipelineOptions {
  Target target = Target::cpu;
  /// cuda: the GPU architecture the kernels are compiled for.
  std::string gpuChip = "sm_90";
  /// cuda: LLVM bitcode linked into the kernels (libdevice, which provides
  /// the `__nv_*` math functions); empty links nothing.
  std::string libdevice;
  /// cuda: contractions that a GEMM library (cuBLAS) can run stay on the
  /// host for the launch plan to call it; otherwise they become kernels.
  bool gpuGemmLibrary = false;
  /// cuda: the most thread blocks (chunks of rows) of a row group
  /// (adjit-tile-and-fuse-rows with `gpu`): about what an H200 keeps
  /// resident, 132 multiprocessors with 8 blocks of 256 threads each.
  int64_t gpuRowBlocks = 1024;
  /// cuda: the most threads of a row group's thread block.
  int64_t gpuRowThreads = 256;
  /// cpu: parallel chunks run on the caller's OpenMP team; false runs them
  /// one after another (ahead-of-time objects carry no thread runtime). The
  /// chunks and their combination order are the same either way.
  bool threads = true;
  /// cpu: a function's temporaries share one arena placed by their
  /// lifetimes (adjit-plan-buffers); false leaves each to the allocator.
  bool planBuffers = true;
  /// Reverse-mode functions recompute cheap residuals in their backward
  /// pass where that keeps fewer bytes (adjit-rematerialize).
  bool rematerialize = true;
  /// cpu: the width of the target's vector registers in bits, which
  /// adjit-vectorize fills (0: the host's, hostVectorBits()).
  int64_t vectorBits = 0;
  /// cpu: the target CPU's LLVM name, for tuning (empty: the host's).
  std::string cpu;
  /// cpu: whether the target has AVX-512DQ (unset: whether the host has).
  std::optional<bool> avx512dq;
  /// cpu: whether the target has AVX2 (unset: whether the host has).
  std::optional<bool> avx2;
  /// cpu: vectors of f64 transcendentals and f32 pow call glibc's vector
  /// math library (libmvec, glibc 2.35 or later; the caller checks that
  /// the code will find it), in its variant for the target's widest
  /// registers; false: such loops stay scalar, one libm call per element.
  bool vectorMathLibrary = false;
};

inline constexpr Stage kAllStages[] = {
    Stage::traced,     Stage::differentiated, Stage::optimized, Stage::linalg,
    Stage::fused,      Stage::bufferized,     Stage::gpu,       Stage::nvvm,
    Stage::llvm,       Stage::llvmIR,         Stage::assembly,  Stage::object,
    Stage::ptx,        Stage::gpuProgram,     Stage::cubin};

/// The stages a target goes through, in order, MLIR ones first.
ArrayRef<Stage> stagesOf(Target target);

StringRef stageName(Stage stage);
std::optional<Stage> parseStage(StringRef name);

/// Appends the passes of every MLIR stage of the target after `from` up to
/// and including `to`.
void addPipeline(OpPassManager &pm, Stage from, Stage to,
                 const PipelineOptions &options = {});

/// Appends gpu-module-to-binary: nvvm-stage kernels become a gpu.binary
/// holding PTX (`cubin` false) or a cubin that `ptxas` from `cudaToolkit`
/// assembles.
void addGpuBinaryPasses(OpPassManager &pm, bool cubin,
                        const std::string &cudaToolkit);

/// Registers the dialects and interface models the whole pipeline needs,
/// including translation to LLVM IR.
void registerPipelineDialects(DialectRegistry &registry);

/// Registers `--adjit-pipeline-<stage>` pipelines (from the input up to that
/// stage, for the target that has it: gpu and nvvm are cuda's, for sm_90
/// without libdevice) and the adjit passes with the global pass registry,
/// for adjit-opt.
void registerPipelines();

} // namespace mlir::adjit

#endif
