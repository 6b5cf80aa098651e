#ifndef ADJIT_COMPILER_PROGRAM_H
#define ADJIT_COMPILER_PROGRAM_H

#include "adjit/compiler/Executable.h"
#include "adjit/compiler/MemoryPlan.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace adjit {

/// Every stage of DESIGN.md §2 that a Program can show for the CPU, in
/// pipeline order. "obj" is binary and can only be written to a file.
const std::vector<std::string>& stage_names();
/// The stages of a target, in pipeline order: for cuda, the CPU's up to
/// "bufferized", then "gpu", "nvvm", "ptx" and "gpu-program" (the launch
/// plans and kernels, gpu::GpuProgram's file format). Program::ir also
/// emits "cubin" for cuda, with the CUDA toolkit's ptxas.
const std::vector<std::string>& stage_names(Device::Kind target);

struct CompileOptions {
  bool print_ir_after_all = false;  ///< MLIR's --mlir-print-ir-after-all, to stderr
  bool timing = false;              ///< pass timing, then LLVM's share, to stderr
  /// What the program is compiled for: the host CPU or an NVIDIA GPU.
  Device::Kind target = Device::Kind::cpu;
  /// cuda: the GPU architecture of the kernels ("sm_80", "sm_90", ...).
  std::string gpu_arch = "sm_90";
  /// The on-disk compile cache's directory (see CompileCache); empty:
  /// ADJIT_CACHE_DIR if set, else no cache.
  std::string cache_dir;
  /// cpu: the LLVM CPU name code is emitted for ("x86-64-v3",
  /// "skylake-avx512", ...) and its features ("+avx2,-avx512f"); empty: this
  /// machine's. Programs run in this process always use this machine's.
  std::string target_cpu;
  std::string target_features;
  /// cpu: the LLVM CPU name the code is tuned for, as clang's -mtune: it
  /// chooses among instruction sequences for the same functions (adjit's
  /// and LLVM's; results may differ in their last bits), never which
  /// instructions exist. Empty: target_cpu's, else this machine's.
  /// Programs run in this process are tuned for it too.
  std::string tune_cpu;
  /// cpu: false runs parallel chunks one after another instead of on an
  /// OpenMP team (ahead-of-time objects carry no thread runtime); the
  /// results are the same.
  bool threads = true;
  /// cpu: temporaries share one arena placed by their lifetimes (see
  /// memory_plan); false gives each its own allocation. The results are
  /// the same.
  bool plan_buffers = true;
  /// Gradients recompute cheap elementwise values in their backward pass
  /// instead of keeping them from the forward pass, where that keeps fewer
  /// bytes without adding memory traffic (docs/guide/memory.md). The
  /// results are the same up to round-off.
  bool rematerialize = true;
  /// cpu: loops of f64 transcendentals (exp, log, tanh, sin, pow, ...) and
  /// of f32 pow, tan, asin, atan2, sinh, ... become vector code that calls glibc's vector math library
  /// (libmvec, which libm brings along, glibc 2.35 or later; used where
  /// this process finds it) instead of libm once per element: accurate to
  /// 4 ulp instead of 1. Ahead-of-time objects then need it where they link.
  bool vector_math_library = true;
};

namespace detail {
struct ProgramInternals;
}

/// An `adjit`-dialect module on its way through the pipeline. Parsing and
/// every stage report problems as adjit::CompileError with MLIR's diagnostic
/// text (file:line:col: error: ...).
class Program {
 public:
  static Program parse(std::string_view source, std::string_view buffer_name = "<input>",
                       CompileOptions options = {});
  static Program parse_file(const std::string& path, CompileOptions options = {});

  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

  const CompileOptions& options() const;
  /// Changes the options (the target, say) for the stages shown and compiled
  /// from now on.
  void set_options(CompileOptions options);

  /// What each public function takes and returns.
  const std::vector<Signature>& signatures() const;
  /// The IR text of one stage ("traced", "optimized", ..., "llvm-ir", "asm";
  /// for the cuda target "gpu", "nvvm", "ptx", "cubin" and "gpu-program", the
  /// serialized gpu::GpuProgram). Throws adjit::Error for a stage the
  /// target does not have.
  std::string ir(std::string_view stage = "traced") const;
  /// The text (or, for "obj", bytes) of every stage, in order.
  std::vector<std::pair<std::string, std::string>> all_stages() const;
  /// The temporaries of public function `entry` (empty: the only one) on
  /// the cpu target, their lifetimes and peak, and for a gradient the
  /// residuals of its reverse pass. Also ir("memory-plan") for every entry.
  MemoryPlan memory_plan(std::string_view entry = "") const;
  /// Writes the traced stage to `path`: a .mlir file that `adjit compile`,
  /// `adjit run` and Program::parse_file accept.
  void save(const std::string& path) const;
  /// Writes every stage to `dir` as numbered files (PREFIX01-traced.mlir, ...).
  void dump(const std::string& dir, const std::string& prefix = "") const;
  /// An object file for the host CPU.
  std::string object_code() const;
  /// Compiles for this process's CPU through LLVM's ORC JIT at -O3, or, for
  /// the cuda target, for GPU 0.
  Executable compile() const;
  /// Compiles for `device`: the CPU, or a GPU (kernels for options().gpu_arch,
  /// loaded through the CUDA driver; RuntimeError without driver or device),
  /// whatever options().target says.
  Executable compile(Device device) const;

  struct Impl;  // defined in the library; built by the parser and the tracer
  explicit Program(std::unique_ptr<Impl> impl);

 private:
  friend struct detail::ProgramInternals;
  /// The module; throws adjit::RuntimeError for a moved-from Program.
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adjit

#endif
