#ifndef ADJIT_PASSES_PIPELINES_H
#define ADJIT_PASSES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <optional>

namespace mlir::adjit {

/// The MLIR stages of the compilation pipeline, in order (DESIGN.md §2).
/// Each stage's IR is what the passes of all stages up to it produce.
enum class Stage {
  traced,
  differentiated,
  optimized,
  linalg,
  fused,
  bufferized,
  llvm
};

inline constexpr Stage kAllStages[] = {
    Stage::traced, Stage::differentiated, Stage::optimized, Stage::linalg,
    Stage::fused,  Stage::bufferized,     Stage::llvm};

StringRef stageName(Stage stage);
std::optional<Stage> parseStage(StringRef name);

/// Appends the passes that take IR of the previous stage to `stage`.
void addStagePasses(OpPassManager &pm, Stage stage);

/// Appends the passes of every stage after `from` up to and including `to`.
void addPipeline(OpPassManager &pm, Stage from, Stage to);

/// Registers the dialects and interface models the whole pipeline needs,
/// including translation to LLVM IR.
void registerPipelineDialects(DialectRegistry &registry);

/// Registers `--adjit-pipeline-<stage>` pipelines (from the input up to that
/// stage) and the adjit passes with the global pass registry, for adjit-opt.
void registerPipelines();

} // namespace mlir::adjit

#endif
