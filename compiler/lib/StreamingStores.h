#pragma once

#include "llvm/IR/Module.h"

#include <cstdint>

namespace adjit::detail {

// x86's nontemporal stores (vmovntps and kin) fault on an address that is
// not aligned to their size, and adjit-stream-stores marks stores into the
// caller's buffers, which need only be aligned to their element type. On an
// x86 target each nontemporal vector store not known to be aligned to
// min(its size, `register_bytes`) checks its address at run time and falls
// back to a plain store; a function that streams ends with an sfence, as
// nontemporal stores are weakly ordered. Other targets are left as they are.
void guard_streaming_stores(llvm::Module& module, int64_t register_bytes);

}  // namespace adjit::detail
