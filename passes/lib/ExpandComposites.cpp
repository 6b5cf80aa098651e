// adjit-expand-composites: composite ops become their formulas once their
// derivative rules have run.
#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_EXPANDCOMPOSITES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {
struct ExpandCompositesPass : adjit::impl::ExpandCompositesBase<ExpandCompositesPass> {
  void runOnOperation() override {
    getOperation()->walk([](CompositeOpInterface composite) {
      OpBuilder builder(composite);
      composite->replaceAllUsesWith(ValueRange{composite.expand(builder)});
      composite->erase();
    });
  }
};
} // namespace
