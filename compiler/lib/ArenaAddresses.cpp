#include "ArenaAddresses.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

namespace adjit::detail {

void inline_arena_addresses(llvm::Module& module) {
  if (llvm::Function* buffer = module.getFunction("adjit_arena_buffer")) {
    for (llvm::User* user : llvm::make_early_inc_range(buffer->users())) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      if (!call || call->getCalledFunction() != buffer) continue;
      llvm::IRBuilder<> b(call);
      llvm::Value* address =
          b.CreateGEP(b.getInt8Ty(), call->getArgOperand(0), call->getArgOperand(1));
      call->replaceAllUsesWith(address);
      call->eraseFromParent();
    }
  }
  if (llvm::Function* release = module.getFunction("adjit_arena_release")) {
    for (llvm::User* user : llvm::make_early_inc_range(release->users())) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      if (call && call->getCalledFunction() == release) call->eraseFromParent();
    }
  }
}

}  // namespace adjit::detail
