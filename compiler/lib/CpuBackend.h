#ifndef ADJIT_COMPILER_CPUBACKEND_H
#define ADJIT_COMPILER_CPUBACKEND_H

// The CPU back end: LLVM IR for the host (or another x86 CPU ahead of
// time), optimized, emitted as machine code, and loaded into this process
// through LLVM's ORC JIT.

#include "adjit/compiler/Executable.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace adjit::detail {

/// Code linked `into_programs` (ahead-of-time objects) uses the small code
/// model every C compiler uses, which a static link (-static) resolves;
/// code loaded `in_process` uses the JIT's large one, as it may land
/// anywhere in the address space.
enum class Linking { in_process, into_programs };

/// Returns a lent target machine to the pool it came from.
struct ReturnToMachinePool {
  Linking linking = Linking::in_process;
  void operator()(llvm::TargetMachine* machine) const;
};
/// A target machine that one compile uses at a time.
using LentTargetMachine = std::unique_ptr<llvm::TargetMachine, ReturnToMachinePool>;

/// A target machine at -O3 for this process's CPU (all its features), or,
/// for ahead-of-time code, for `cpu` (an LLVM CPU name such as "x86-64-v3"
/// or "skylake-avx512") with `features` ("+avx2,-avx512f"; empty: those of
/// `cpu`, or the host's when `cpu` is empty too). Throws CompileError naming
/// the valid choices for an unknown CPU or feature. Machines are lent from a
/// per-process pool and reused: creating one, and the subtarget it builds
/// for the first function it compiles, took about a tenth of a small
/// function's compile.
LentTargetMachine lend_target_machine(const std::string& cpu = "",
                                      const std::string& features = "",
                                      Linking linking = Linking::in_process);

/// The width in bits of `machine`'s widest vector registers (512 with
/// AVX-512, 256 with AVX, else 128): what adjit-vectorize fills.
int64_t vector_register_bits(const llvm::TargetMachine& machine);

/// Whether `machine` has AVX-512DQ (vrangeps: adjit-avx512-min-max).
bool has_avx512dq(const llvm::TargetMachine& machine);
/// Whether `machine` has AVX2 (libmvec's variants for it).
bool has_avx2(const llvm::TargetMachine& machine);

/// Whether glibc's vector math library (libmvec, glibc 2.35 or later: its
/// tanh, erf, expm1, ...) is in this process for compiled code to call,
/// loading it on the first call. Ahead-of-time objects get it through libm
/// where they link.
bool vector_math_library_loaded();

/// The host's triple, CPU and features (what its machine code depends on).
const std::string& host_target_description();

/// Throws CompileError naming the valid choices unless `cpu` is empty or a
/// CPU that LLVM knows (CompileOptions::tune_cpu).
void check_tune_cpu(const std::string& cpu);

/// Translates a module in the LLVM dialect to LLVM IR for `machine`, its
/// functions tuned for `tune_cpu` when given (LLVM's "tune-cpu").
/// Throws CompileError on failure.
std::unique_ptr<llvm::Module> translate(mlir::ModuleOp module, llvm::LLVMContext& context,
                                        llvm::TargetMachine& machine,
                                        const std::string& tune_cpu = "");
/// Whether a function of `module` has a loop (a back edge).
bool has_loops(const llvm::Module& module);

/// Runs LLVM's -O3 pipeline (without loop unrolling) for `machine`; a module
/// without loops gets only inlining and scalar clean-up. With `timing` (a
/// phase of --timing's report), each pass's time is reported under it.
void optimize(llvm::Module& module, llvm::TargetMachine& machine, mlir::Timer timing = {});

/// Erases the functions of `module` with local linkage that nothing calls
/// any more, until none is left (a wrapper that called another one).
void erase_unused_functions(llvm::Module& module);

/// Gives every function `module` defines, except the entry points of
/// `signatures` (`adjit_entry_<name>`), local linkage, and erases those
/// then unused: after -O3 has inlined a program's functions into its entry
/// points, the copies MLIR's wrappers keep (the function itself and its
/// `_mlir_ciface_` wrapper) would only cost machine code, two thirds of it
/// for a small function.
void keep_only_entry_points(llvm::Module& module, const std::vector<Signature>& signatures);

/// The number of instructions in the longest basic block of `module`.
size_t longest_block(const llvm::Module& module);

/// LLVM's greedy register allocator takes time quadratic in the length of a
/// basic block that keeps many values live across it: the loop body of a
/// long gradient keeps every forward value its backward part reads (a chain
/// of 16,000 ops under grad: 9.6 s of machine code for a block of 42,700
/// instructions, 0.9 s at -O0). A module with a longer block than this gets its
/// machine code from LLVM's fast instruction selector and register
/// allocator (-O0 code generation, linear time); its IR is optimized at -O3
/// as always. No workload comes near: their longest functions have fewer
/// than 1,000 instructions.
inline constexpr size_t kFastCodegenBlockInstructions = 8000;

/// Whether `module` gets -O0 code generation (see above).
bool needs_fast_codegen(const llvm::Module& module);

/// The post-RA list scheduler that LLVM's models of AMD's Zen cores turn on
/// takes time quadratic in a basic block's length, for little on an
/// out-of-order core: a 24-layer transformer's step spent 0.34 of its 1.1 s
/// of code generation there, in the one block of 5,000 instructions of the
/// function that calls its loop nests. On x86, a function with a longer
/// block than this is compiled tuned for generic x86-64 (whose model has no
/// such pass), after LLVM has optimized it as tuned. No W1-W7 function
/// comes near: their longest have fewer than 1,000 instructions.
inline constexpr size_t kGenericTuningBlockInstructions = 2000;

/// Assembly text or object-file bytes for an optimized module (whose arena
/// buffers become plain addresses first, ArenaAddresses.h).
std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& machine,
                              bool assembly);

/// Loads an object file of the host with `adjit_entry_<name>` functions
/// into a new ORC JIT instance and resolves one entry per signature.
Executable load_into_jit(const std::string& object, std::vector<Signature> signatures);

}  // namespace adjit::detail

#endif
