#pragma once

#include "llvm/IR/Module.h"

namespace adjit::detail {

// adjit-convert-arena-to-llvm makes each arena buffer a call of the
// runtime's adjit_arena_buffer (and its end one of adjit_arena_release), so
// that LLVM's optimizer sees separate allocations (ArenaBuffers.h). Once
// the optimizer is done they have served: each buffer becomes the address
// `arena + offset` that the runtime would return, and each release goes.
// Code generation then has no calls to make for them: a deep model's
// training step made 1,700 (12 layers), in one basic block whose
// instruction selection and register allocation take time quadratic in it.
void inline_arena_addresses(llvm::Module& module);

}  // namespace adjit::detail
