#pragma once

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <cstddef>
#include <vector>

namespace adjit::detail {

// Above this many outermost loop nests, a function's nests become functions.
inline constexpr size_t kMaxLoopNestsPerFunction = 64;

// LLVM's loop passes take time quadratic in the number of loop nests one
// function runs in a row: ScalarEvolution proves each loop's entry
// conditions by walking up the dominator tree through every block before
// it. A deep model's gradient has hundreds (a 12-layer transformer's step:
// IndVarSimplify and LoopRotate took 4.6 of LLVM's 5.6 s of -O3). Each
// outermost loop nest of such a function becomes a function of its own,
// never inlined, as XLA compiles each fusion as a function; smaller
// functions (the W1-W7 programs') stay whole.

// The functions of `module` with more than kMaxLoopNestsPerFunction
// outermost loop nests.
std::vector<llvm::Function*> functions_with_many_loop_nests(llvm::Module& module);

// Moves each outermost loop nest of `function` into a function of its own,
// called where the nest was. Returns how many moved. Run it after SROA and
// instruction combining, so that a nest's live-ins are the pointers and
// sizes it reads, not whole memref descriptors.
size_t outline_loop_nests(llvm::Function& function);

}  // namespace adjit::detail
