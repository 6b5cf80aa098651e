#include "LlvmPassTimers.h"

#include "llvm/IR/PassManager.h"

namespace adjit::detail {

namespace {

bool only_runs_other_passes(llvm::StringRef name) {
  return llvm::isSpecialPass(name, {"PassManager", "PassAdaptor", "AnalysisManagerProxy",
                                    "DevirtSCCRepeatedPass", "ModuleInlinerWrapperPass",
                                    "RequireAnalysisPass", "InvalidateAnalysisPass"});
}

}  // namespace

void LlvmPassTimers::register_callbacks(llvm::PassInstrumentationCallbacks& callbacks) {
  if (!phase_) return;
  callbacks.registerBeforeNonSkippedPassCallback(
      [this](llvm::StringRef name, llvm::Any) { begin(name); });
  callbacks.registerAfterPassCallback(
      [this](llvm::StringRef name, llvm::Any, const llvm::PreservedAnalyses&) { end(name); });
  callbacks.registerAfterPassInvalidatedCallback(
      [this](llvm::StringRef name, const llvm::PreservedAnalyses&) { end(name); });
  callbacks.registerBeforeAnalysisCallback(
      [this](llvm::StringRef name, llvm::Any) { begin(name); });
  callbacks.registerAfterAnalysisCallback(
      [this](llvm::StringRef name, llvm::Any) { end(name); });
}

void LlvmPassTimers::begin(llvm::StringRef name) {
  if (only_runs_other_passes(name)) return;
  if (!running_.empty()) running_.back().stop();
  running_.push_back(phase_.nest(name));
  running_.back().start();
}

void LlvmPassTimers::end(llvm::StringRef name) {
  if (only_runs_other_passes(name)) return;
  running_.back().stop();
  running_.pop_back();
  if (!running_.empty()) running_.back().start();
}

}  // namespace adjit::detail
