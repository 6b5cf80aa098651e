#pragma once

#include "mlir/Support/Timing.h"
#include "llvm/IR/PassInstrumentation.h"

#include <vector>

namespace adjit::detail {

// --timing's breakdown of an LLVM pass pipeline: a timer per pass and per
// analysis, nested under the phase's timer in MLIR's report. Each counts
// only its own time, not that of the passes it runs (the inliner runs the
// function simplification passes), as LLVM's -time-passes does. Pass
// managers and adaptors only run other passes, so they get no timer.
class LlvmPassTimers {
 public:
  // `phase` may be an empty timer (timing off): then nothing is recorded.
  explicit LlvmPassTimers(mlir::Timer phase) : phase_(std::move(phase)) {}

  void register_callbacks(llvm::PassInstrumentationCallbacks& callbacks);

 private:
  void begin(llvm::StringRef name);
  void end(llvm::StringRef name);

  mlir::Timer phase_;
  std::vector<mlir::Timer> running_;  // innermost last; only it is started
};

}  // namespace adjit::detail
