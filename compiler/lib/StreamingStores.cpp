#include "StreamingStores.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace adjit::detail {

void guard_streaming_stores(llvm::Module& module, int64_t register_bytes) {
  if (!llvm::Triple(module.getTargetTriple()).isX86()) return;
  const llvm::DataLayout& layout = module.getDataLayout();
  for (llvm::Function& function : module) {
    std::vector<llvm::StoreInst*> streaming;
    for (llvm::BasicBlock& block : function)
      for (llvm::Instruction& instruction : block)
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction);
            store && store->hasMetadata(llvm::LLVMContext::MD_nontemporal) &&
            store->getValueOperand()->getType()->isVectorTy())
          streaming.push_back(store);
    if (streaming.empty()) continue;
    for (llvm::StoreInst* store : streaming) {
      uint64_t bytes = layout.getTypeStoreSize(store->getValueOperand()->getType());
      uint64_t aligned_to = std::min<uint64_t>(std::bit_floor(bytes), register_bytes);
      if (store->getAlign().value() >= aligned_to) continue;
      llvm::IRBuilder<> builder(store);
      llvm::Type* address_type = builder.getIntPtrTy(layout);
      llvm::Value* misalignment = builder.CreateAnd(
          builder.CreatePtrToInt(store->getPointerOperand(), address_type),
          llvm::ConstantInt::get(address_type, aligned_to - 1));
      llvm::Instruction *if_aligned, *otherwise;
      llvm::SplitBlockAndInsertIfThenElse(
          builder.CreateICmpEQ(misalignment, llvm::ConstantInt::get(address_type, 0)), store,
          &if_aligned, &otherwise);
      auto* nontemporal = llvm::cast<llvm::StoreInst>(store->clone());
      nontemporal->setAlignment(llvm::Align(aligned_to));
      nontemporal->insertBefore(if_aligned);
      store->moveBefore(otherwise);
      store->setMetadata(llvm::LLVMContext::MD_nontemporal, nullptr);
    }
    llvm::Function* sfence = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::x86_sse_sfence);
    for (llvm::BasicBlock& block : function)
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator()))
        llvm::IRBuilder<>(ret).CreateCall(sfence);
  }
}

}  // namespace adjit::detail
