// mlir-opt with the adjit dialect, its passes and the stage pipelines. Only
// what the pipeline uses is registered: InitAllDialects costs ~40 s a build.
#include "adjit/Passes/Pipelines.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::registerTransformsPasses();  // canonicalize, cse, ...
  // one-shot-bufferize: tests of adjit's bufferization models on their own.
  mlir::bufferization::registerBufferizationPasses();
  mlir::adjit::registerPipelines();
  mlir::DialectRegistry registry;
  mlir::adjit::registerPipelineDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "adjit optimizer driver\n", registry));
}
