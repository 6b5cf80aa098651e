#ifndef ADJIT_AOT_H
#define ADJIT_AOT_H

// adjit::aot: compile traced functions ahead of time into an object file (or
// static library) and a C header, for programs that carry no LLVM, MLIR or
// JIT. The header's ABI is described in docs/guide/aot.md.

#include "adjit/Jit.h"
#include "adjit/compiler/Program.h"

#include <string>
#include <vector>

namespace adjit::aot {

struct AotOptions {
  /// The C function's name (a C identifier) and the files' stem: NAME.o (or
  /// libNAME.a) and NAME.h. From a module with several entries (the CLI),
  /// the library's name; each function keeps its entry's name.
  std::string name;
  /// Where the files go (created if missing).
  std::string output_dir = ".";
  /// The LLVM CPU the code is for ("x86-64-v3", "skylake-avx512", ...) and
  /// its features ("+avx2,+fma,-avx512f"); empty: this machine's CPU, or
  /// the named CPU's own features.
  std::string target_cpu;
  std::string target_features;
  /// The LLVM CPU the code is tuned for (as clang's -mtune; see
  /// CompileOptions::tune_cpu); empty: target_cpu's, else this machine's.
  std::string tune_cpu;
  /// libNAME.a (one archive member) instead of NAME.o.
  bool static_library = false;
  /// Threads a call may use, as JitOptions::threads: 1 runs every call on
  /// the calling thread; 0 on up to ADJIT_NUM_THREADS threads, else every
  /// core the process may run on (read at run time); N on up to N. With
  /// more than one, parallel chunks and the GEMM kernels run on a pool of
  /// workers that libadjit_aot_runtime.a starts (pthreads) and keeps. The
  /// results are the same bits for every count.
  int threads = 1;
  /// When set, every stage's IR of the exported code goes here (as `adjit
  /// compile --dump-dir` writes it), plus the final LLVM IR as aot.ll.
  /// Unset, ADJIT_DUMP_DIR (when set) gets the same files named
  /// aot-NAME-01-traced.mlir, ..., aot-NAME-aot.ll.
  std::string dump_dir;
  /// Where these options were made (their initialization in the caller's
  /// code, or the line that called from_command_line): compile() names it
  /// in the errors of its trace, as jit names its own caller's line.
  SourceLocation location = SourceLocation::current();

  /// The same options with another name: one generator compiles several
  /// functions with one set of target options. The copy's location is the
  /// line that called named() (default-constructed options record only
  /// this header's line).
  AotOptions named(std::string function_name,
                   SourceLocation loc = SourceLocation::current()) const;
  /// For generator programs run by the CMake helper adjit_add_aot_library:
  /// reads `-o DIR`, `--target-cpu=CPU`, `--mattr=FEATURES`, `--tune-cpu=CPU`,
  /// `--threads=N` and `--static-library` from the command line;
  /// RuntimeError on anything else.
  static AotOptions from_command_line(int argc, char** argv,
                                      SourceLocation loc = SourceLocation::current());
};

/// What was written.
struct AotResult {
  std::string object_path;  ///< NAME.o or libNAME.a
  std::string header_path;  ///< NAME.h
  std::vector<Signature> functions;
};

/// Writes the object and the header of `entries` (public functions of
/// `program`; empty: all of them). Each becomes
///   int NAME(const T* in0, ..., T* out0, ...);
/// plus NAME_call(inputs, outputs) taking arrays of pointers. Throws
/// CompileError for an unknown entry, a name that cannot name a C function, a
/// GPU target or an unknown CPU or feature.
AotResult write(const Program& program, const AotOptions& options,
                const std::vector<std::string>& entries = {});

/// Throws CompileError unless `name` can name an ahead-of-time function
/// (AotOptions::name: a C identifier, not a keyword, not the C library's;
/// docs/guide/aot.md has the rule).
void check_function_name(const std::string& name);

/// Traces `f` (a callable on Tensors, or a transform of one: grad(f),
/// value_and_grad(f), a training step with a GradientTape) at the signature
/// of `example_args` (Arrays, structures of them, and static values, as for
/// jit) and writes NAME.o and NAME.h for it. A jitted `f` keeps its
/// device, rematerialization and vector math library setting: one jitted
/// for a GPU is a CompileError, as for write.
template <class F, class... Args>
AotResult compile(F f, const AotOptions& options, const Args&... example_args) {
  check_function_name(options.name);  // before the trace, which would take "" for its own
  JitOptions jit_options;
  jit_options.name = options.name;
  if constexpr (detail::is_jitted<F>) {
    // Traced inline below, it would silently become other code.
    jit_options.device = f.options().device;
    jit_options.rematerialize = f.options().rematerialize;
    jit_options.vector_math_library = f.options().vector_math_library;
    // Refused by write() as for any donated entry, rather than dropped.
    jit_options.donate = f.options().donate;
  }
  // compile's arguments are variadic: the options carry the caller's line.
  Lowered lowered = jit(std::move(f), jit_options, options.location).lower(example_args...);
  return write(lowered, options, {options.name});
}

}  // namespace adjit::aot

#endif
