#include "LoopNestFunctions.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

namespace adjit::detail {

std::vector<llvm::Function*> functions_with_many_loop_nests(llvm::Module& module) {
  std::vector<llvm::Function*> found;
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    if (static_cast<size_t>(std::distance(loops.begin(), loops.end())) > kMaxLoopNestsPerFunction)
      found.push_back(&function);
  }
  return found;
}

size_t outline_loop_nests(llvm::Function& function) {
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  std::vector<llvm::Loop*> nests(loops.begin(), loops.end());
  size_t outlined = 0;
  // Built once: extracting a region keeps it valid (and building it walks
  // the whole function).
  llvm::CodeExtractorAnalysisCache cache(function);
  for (llvm::Loop* nest : nests) {
    // A nest's header is its only entry; its exits may be several.
    llvm::CodeExtractor extractor(dominators, *nest);
    if (!extractor.isEligible()) continue;
    if (llvm::Function* extracted = extractor.extractCodeRegion(cache)) {
      extracted->addFnAttr(llvm::Attribute::NoInline);
      ++outlined;
    }
  }
  return outlined;
}

}  // namespace adjit::detail
