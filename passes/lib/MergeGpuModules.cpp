// adjit-merge-gpu-modules: the kernels of a program live in one gpu.module,
// so the program ships and loads one PTX module (see Passes.td).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MERGEGPUMODULES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {
struct MergeGpuModulesPass : adjit::impl::MergeGpuModulesBase<MergeGpuModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.size() <= 1)
      return;
    OpBuilder b(modules.front());
    auto merged = b.create<gpu::GPUModuleOp>(module.getLoc(), "kernels");
    SymbolTable(module).insert(merged);  // renamed if a function is called so
    SymbolTable kernels(merged);
    DenseMap<Attribute, SymbolRefAttr> moved;  // old @module::@kernel -> new
    for (gpu::GPUModuleOp original : modules) {
      for (Operation &op :
           llvm::make_early_inc_range(original.getBody()->without_terminator())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        StringAttr oldName = symbol ? symbol.getNameAttr() : StringAttr();
        if (!symbol) {
          op.moveBefore(merged.getBody()->getTerminator());
          continue;
        }
        // Symbols are unique per module only: insert() renames on a clash.
        op.remove();
        kernels.insert(&op);
        moved[SymbolRefAttr::get(original.getNameAttr(),
                                 {FlatSymbolRefAttr::get(oldName)})] =
            SymbolRefAttr::get(merged.getNameAttr(),
                               {FlatSymbolRefAttr::get(symbol.getNameAttr())});
      }
      original->erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr target = moved.lookup(launch.getKernel()))
        launch.setKernelAttr(target);
    });
  }
};
} // namespace
