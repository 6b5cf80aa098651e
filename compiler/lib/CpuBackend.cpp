#include "CpuBackend.h"

#include "ArenaAddresses.h"
#include "Diagnostics.h"
#include "LoadedCode.h"
#include "LlvmPassTimers.h"
#include "PerfMap.h"
#include "StreamingStores.h"

#include "adjit/Passes/Passes.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Gemm.h"
#include "adjit/runtime/KernelAllocation.h"
#include "adjit/runtime/MathLanes.h"
#include "adjit/runtime/MemRef.h"
#include "adjit/runtime/Threads.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <mutex>

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/SubtargetFeature.h"

namespace adjit::detail {

namespace {

// The host's triple, CPU and features, detected once per process (LLVM
// reads /proc/cpuinfo and CPUID each time it is asked).
const llvm::orc::JITTargetMachineBuilder& host_machine_builder() {
  static const llvm::orc::JITTargetMachineBuilder host = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
      throw CompileError("cannot describe the host CPU to LLVM: " +
                         llvm::toString(builder.takeError()));
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    builder->setRelocationModel(llvm::Reloc::PIC_);
    // A multiply feeding an add becomes one FMA, rounded once: as accurate
    // or more, and one vector uop instead of two (XLA's CPU backend does the
    // same). Compiled code still gives the same bits for every thread count.
    builder->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
    return std::move(*builder);
  }();
  return host;
}

// The target's generic subtarget: which CPU and feature names LLVM knows.
std::unique_ptr<llvm::MCSubtargetInfo> generic_subtarget(const std::string& triple) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw CompileError("LLVM cannot emit code for " + triple + ": " + error);
  return std::unique_ptr<llvm::MCSubtargetInfo>(target->createMCSubtargetInfo(triple, "", ""));
}

// LLVM accepts unknown CPU and feature names with a warning on stderr and
// then emits code for a generic CPU: ahead-of-time users get an error first.
void check_cpu_name(const llvm::MCSubtargetInfo& info, const std::string& triple,
                    const std::string& cpu, std::string_view role) {
  if (cpu.empty() || info.isCPUStringValid(cpu)) return;
  std::vector<std::string_view> known;
  for (const llvm::SubtargetSubTypeKV& entry : info.getAllProcessorDescriptions())
    known.push_back(entry.Key);
  throw CompileError(fmt::format("unknown {} CPU '{}' for {}; known CPUs: {}", role, cpu, triple,
                                 fmt::join(known, ", ")));
}

void check_cpu_and_features(const llvm::Triple& target_triple, const std::string& cpu,
                            const std::string& features) {
  std::string triple = target_triple.str();
  std::unique_ptr<llvm::MCSubtargetInfo> generic = generic_subtarget(triple);
  const llvm::MCSubtargetInfo& info = *generic;
  check_cpu_name(info, triple, cpu, "target");
  llvm::SubtargetFeatures requested(features);
  for (const std::string& feature : requested.getFeatures()) {
    llvm::StringRef name = llvm::StringRef(feature).drop_while([](char c) { return c == '+' || c == '-'; });
    if (feature.empty() || (feature[0] != '+' && feature[0] != '-') ||
        !llvm::any_of(info.getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV& kv) { return name == kv.Key; }))
      throw CompileError("unknown target feature '" + feature + "' for " + triple +
                         ": features are LLVM names with + or -, such as +avx2,+fma,-avx512f");
  }
}

}  // namespace

namespace {

// Idle target machines by CPU and features. Leaked, so that a machine
// returned during static destruction still finds it.
struct MachinePool {
  std::mutex mutex;
  std::map<std::string, std::vector<std::unique_ptr<llvm::TargetMachine>>> idle;

  static MachinePool& get() {
    static MachinePool* pool = new MachinePool;
    return *pool;
  }
  static std::string key(llvm::StringRef cpu, llvm::StringRef features, Linking linking) {
    return (cpu + "\n" + features + (linking == Linking::in_process ? "" : "\nobject")).str();
  }
};

}  // namespace

void ReturnToMachinePool::operator()(llvm::TargetMachine* machine) const {
  std::unique_ptr<llvm::TargetMachine> owned(machine);
  MachinePool& pool = MachinePool::get();
  std::string key =
      MachinePool::key(machine->getTargetCPU(), machine->getTargetFeatureString(), linking);
  std::lock_guard lock(pool.mutex);
  pool.idle[key].push_back(std::move(owned));
}

LentTargetMachine lend_target_machine(const std::string& cpu, const std::string& features,
                                      Linking linking) {
  llvm::orc::JITTargetMachineBuilder builder = host_machine_builder();
  if (linking == Linking::into_programs) builder.setCodeModel(llvm::CodeModel::Small);
  if (!cpu.empty() || !features.empty()) {
    check_cpu_and_features(builder.getTargetTriple(), cpu, features);
    if (!cpu.empty()) {
      builder.setCPU(cpu);
      builder.getFeatures() = llvm::SubtargetFeatures();  // the CPU's own
    }
    if (!features.empty()) builder.getFeatures().addFeaturesVector(
        llvm::SubtargetFeatures(features).getFeatures());
  }
  MachinePool& pool = MachinePool::get();
  {
    std::lock_guard lock(pool.mutex);
    auto& idle =
        pool.idle[MachinePool::key(builder.getCPU(), builder.getFeatures().getString(), linking)];
    if (!idle.empty()) {
      LentTargetMachine machine(idle.back().release(), ReturnToMachinePool{linking});
      idle.pop_back();
      return machine;
    }
  }
  auto machine = builder.createTargetMachine();
  if (!machine)
    throw CompileError(fmt::format("cannot create an LLVM target machine for {}: {}",
                                   cpu.empty() ? "the host" : fmt::format("CPU '{}'", cpu),
                                   llvm::toString(machine.takeError())));
  return LentTargetMachine(machine->release(), ReturnToMachinePool{linking});
}

void check_tune_cpu(const std::string& cpu) {
  std::string triple = host_machine_builder().getTargetTriple().str();
  check_cpu_name(*generic_subtarget(triple), triple, cpu, "tuning");
}

int64_t vector_register_bits(const llvm::TargetMachine& machine) {
  const llvm::MCSubtargetInfo& subtarget = *machine.getMCSubtargetInfo();
  if (subtarget.checkFeatures("+avx512f")) return 512;
  return subtarget.checkFeatures("+avx") ? 256 : 128;
}

bool has_avx512dq(const llvm::TargetMachine& machine) {
  return machine.getMCSubtargetInfo()->checkFeatures("+avx512dq");
}

bool has_avx2(const llvm::TargetMachine& machine) {
  return machine.getMCSubtargetInfo()->checkFeatures("+avx2");
}

bool vector_math_library_loaded() {
  // Global, so that the JIT's search of this process finds its symbols; an
  // x86-64 glibc before 2.35 lacks the tanh that is looked up.
  static const bool loaded = [] {
#if defined(__x86_64__) && defined(__GLIBC__)
    void* library = dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
    return library && dlsym(library, "_ZGVbN2v_tanh");
#else
    return false;
#endif
  }();
  return loaded;
}

const std::string& host_target_description() {
  static const std::string description = [] {
    const llvm::orc::JITTargetMachineBuilder& host = host_machine_builder();
    return fmt::format("{} {} {}", host.getTargetTriple().str(), host.getCPU(),
                       host.getFeatures().getString());
  }();
  return description;
}

std::unique_ptr<llvm::Module> translate(mlir::ModuleOp module, llvm::LLVMContext& context,
                                        llvm::TargetMachine& machine,
                                        const std::string& tune_cpu) {
  std::unique_ptr<llvm::Module> llvm_module;
  std::string diagnostics;
  {
    DiagnosticCapture capture(*module.getContext());
    llvm_module = mlir::translateModuleToLLVMIR(module, context);
    diagnostics = capture.text();
  }
  if (!llvm_module)
    throw CompileError("translation from the MLIR LLVM dialect to LLVM IR failed (an internal "
                       "error of adjit's lowering; please report it with the IR that "
                       "ADJIT_DUMP_DIR writes):\n" + diagnostics);
  // Temporaries come fresh from the runtime's allocator: telling LLVM spares
  // the vectorizer run-time overlap checks between them and every operand.
  for (const char* allocation : {"_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_aligned_alloc"})
    if (llvm::Function* function = llvm_module->getFunction(allocation))
      function->addRetAttr(llvm::Attribute::NoAlias);
  // LLVM vectorizes for 256-bit registers on AVX-512 hosts unless told
  // otherwise; the merged loops are compute-bound, and 512-bit vectors ran
  // W3's value and gradient 1.3x faster (Sapphire Rapids class, measured).
  if (machine.getTargetFeatureString().contains("+avx512f"))
    for (llvm::Function& function : *llvm_module)
      if (!function.isDeclaration()) function.addFnAttr("prefer-vector-width", "512");
  // The CPU and features are recorded on every function, as clang does, so
  // that an object's IR says what it was compiled for.
  for (llvm::Function& function : *llvm_module) {
    if (function.isDeclaration()) continue;
    function.addFnAttr("target-cpu", machine.getTargetCPU());
    if (!tune_cpu.empty()) function.addFnAttr("tune-cpu", tune_cpu);
    if (!machine.getTargetFeatureString().empty())
      function.addFnAttr("target-features", machine.getTargetFeatureString());
  }
  llvm_module->setDataLayout(machine.createDataLayout());
  llvm_module->setTargetTriple(machine.getTargetTriple().str());
  return llvm_module;
}

namespace {

// A module without loops (arrays of a few vectors, such as W6's
// `sin(x)*2+1` on f32[16]) gains nothing from -O3's loop and vectorizer
// passes, whose fixed cost per function was most of its LLVM time (W6: 8.0
// ms in a fresh process, 3.5 with this, the same machine code): it only
// needs MLIR's wrappers inlined into the entry points and their memref
// descriptors taken apart. (Instruction combining as -O3 runs it: from a
// pipeline's text it checks that one iteration reached a fixed point, and
// aborts the process when it did not.)
constexpr const char* kLoopFreePipeline =
    "inline,function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,adce)";

}  // namespace

bool has_loops(const llvm::Module& module) {
  llvm::SmallVector<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>> backedges;
  for (const llvm::Function& function : module)
    if (!function.isDeclaration()) {
      llvm::FindFunctionBackedges(function, backedges);
      if (!backedges.empty()) return true;
    }
  return false;
}

void optimize(llvm::Module& module, llvm::TargetMachine& machine, mlir::Timer timing) {
  // Only the entry points are called from outside. Local, MLIR's C wrapper
  // and the function it wraps lose the descriptor fields that static shapes
  // leave unused: a 12-layer model's 144 weights otherwise made a call of
  // over a thousand arguments, whose instruction selection (quadratic in
  // them) took 5.5 s of its 20 s compilation.
  for (llvm::Function& function : module)
    if (!function.isDeclaration() &&
        !function.getName().starts_with(mlir::adjit::kEntryPointPrefix))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = false;
  llvm::PassInstrumentationCallbacks instrumentation;
  // CalledValuePropagation only annotates indirect calls, which adjit's code
  // does not make, and took time quadratic in a deep model's length (a
  // 24-layer transformer's step: 0.57 s).
  instrumentation.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef pass, llvm::Any) { return pass != "CalledValuePropagationPass"; });
  LlvmPassTimers pass_timers(timing);
  pass_timers.register_callbacks(instrumentation);
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &instrumentation);
  // Copy loops (bufferization's copies into views: pads, concatenations,
  // shifted slices) stay loops for the vectorizer instead of becoming
  // memcpy calls: glibc's memcpy copies 2 KiB to 1 MiB with `rep movsb`,
  // which AMD's Zen 4 runs 25x slower when the destination sits a float
  // or two after the source modulo 4 KiB, as a copy shifted by an element
  // between page-aligned buffers does (docs/performance.md, session 46).
  llvm::TargetLibraryInfoImpl library(machine.getTargetTriple());
  library.setUnavailable(llvm::LibFunc_memcpy);
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  if (has_loops(module)) {
    builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, modules);
  } else {
    llvm::ModulePassManager cleanup;
    llvm::cantFail(builder.parsePassPipeline(cleanup, kLoopFreePipeline));
    cleanup.run(module, modules);
  }
  guard_streaming_stores(module, vector_register_bits(machine) / 8);
}

void erase_unused_functions(llvm::Module& module) {
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Function& function : llvm::make_early_inc_range(module))
      if (function.hasLocalLinkage() && function.use_empty()) {
        function.eraseFromParent();
        erased = true;
      }
  }
}

void keep_only_entry_points(llvm::Module& module, const std::vector<Signature>& signatures) {
  llvm::StringSet<> entries;
  for (const Signature& signature : signatures)
    entries.insert(mlir::adjit::entryPointName(signature.name));
  for (llvm::Function& function : module)
    if (!function.isDeclaration() && !entries.contains(function.getName()))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  erase_unused_functions(module);
}

size_t longest_block(const llvm::Module& module) {
  size_t longest = 0;
  for (const llvm::Function& function : module)
    for (const llvm::BasicBlock& block : function) longest = std::max(longest, block.size());
  return longest;
}

bool needs_fast_codegen(const llvm::Module& module) {
  return longest_block(module) > kFastCodegenBlockInstructions;
}

namespace {

void tune_long_blocks_generically(llvm::Module& module, const llvm::TargetMachine& machine) {
  if (!machine.getTargetTriple().isX86()) return;
  for (llvm::Function& function : module)
    if (llvm::any_of(function, [](const llvm::BasicBlock& block) {
          return block.size() > kGenericTuningBlockInstructions;
        }))
      function.addFnAttr("tune-cpu", "generic");
}

}  // namespace

std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& machine,
                              bool assembly) {
  inline_arena_addresses(module);
  tune_long_blocks_generically(module, machine);
  llvm::CodeGenOptLevel optimizing = machine.getOptLevel();
  if (needs_fast_codegen(module)) machine.setOptLevel(llvm::CodeGenOptLevel::None);
  auto restore = llvm::make_scope_exit([&] { machine.setOptLevel(optimizing); });
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  auto file_type = assembly ? llvm::CodeGenFileType::AssemblyFile
                            : llvm::CodeGenFileType::ObjectFile;
  if (machine.addPassesToEmitFile(passes, os, nullptr, file_type))
    throw CompileError("the host target cannot emit this file type");
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

namespace {

using EntryFunction = void (*)(void**);

// An object file linked into this process by its own ORC JIT instance.
class JitLinkedCode final : public LoadedCode {
 public:
  JitLinkedCode(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<EntryFunction> functions,
                bool has_parallel_regions)
      : jit_(std::move(jit)),
        functions_(std::move(functions)),
        has_parallel_regions_(has_parallel_regions) {}

  void run(const Signature& signature, size_t entry, const std::vector<Array>& inputs,
           const std::vector<Array>& outputs) const override {
    check_entry_arrays(signature, inputs, signature.inputs, "input", Device::cpu());
    check_entry_arrays(signature, outputs, signature.outputs, "output", Device::cpu());
    PackedArguments arguments(inputs, outputs);
    if (has_parallel_regions_) threads::prepare_parallel_regions();
    run_compiled(functions_[entry], arguments.data());
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;  // owns the code functions_ point into
  std::vector<EntryFunction> functions_;   // one per signature
  bool has_parallel_regions_;              // forks OpenMP teams
};

// Whether the machine code in `object` forks OpenMP teams (calls
// __kmpc_fork_call for its parallel chunks).
bool has_parallel_regions(const std::string& object) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "adjit-program"));
  if (!file) throw CompileError("cannot read the compiled program's object file: " +
                                llvm::toString(file.takeError()));
  for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name) throw CompileError("cannot read the compiled program's symbols: " +
                                  llvm::toString(name.takeError()));
    if (*name == "__kmpc_fork_call") return true;
  }
  return false;
}

}  // namespace

Executable load_into_jit(const std::string& object, std::vector<Signature> signatures) {
  auto fail = [](const std::string& what, llvm::Error error) -> CompileError {
    return CompileError(what + ": " + llvm::toString(std::move(error)));
  };
  // The JIT only links objects: it needs neither the target machine LLJIT
  // would create for its data layout nor the one for compiling IR (two
  // machines per program, a few percent of a small function's compile).
  static const llvm::DataLayout host_layout = lend_target_machine()->createDataLayout();
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(host_machine_builder())
                 .setDataLayout(host_layout)
                 .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder builder)
                     -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                   return std::make_unique<llvm::orc::ConcurrentIRCompiler>(std::move(builder));
                 })
                 .create();
  if (!jit) throw fail("cannot start LLVM's ORC JIT", jit.takeError());
  if (auto plugin = perf_map_plugin_from_environment()) {
    auto* linker = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&(*jit)->getObjLinkingLayer());
    if (!linker) throw CompileError("ADJIT_PERF_MAP: LLVM's JIT does not link with JITLink on this host");
    linker->addPlugin(std::move(plugin));
  }
  // Generated code calls libm and malloc/free from this process.
  auto process_symbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process_symbols) throw fail("cannot expose process symbols", process_symbols.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process_symbols));
  // Temporary buffers of compiled code come from the runtime's allocator
  // and arenas; contractions call the runtime's GEMM kernels, vectors of sin
  // and cos beyond their range its libm lanes.
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), (*jit)->getDataLayout());
  llvm::orc::SymbolMap runtime_functions;
  auto define = [&](const char* name, auto* function) {
    runtime_functions[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                       llvm::JITSymbolFlags::Exported};
  };
  define("_mlir_memref_to_llvm_alloc", &_mlir_memref_to_llvm_alloc);
  define("_mlir_memref_to_llvm_aligned_alloc", &_mlir_memref_to_llvm_aligned_alloc);
  define("_mlir_memref_to_llvm_free", &_mlir_memref_to_llvm_free);
  define("adjit_gemm_f32", &adjit_gemm_f32);
  define("adjit_gemm_f64", &adjit_gemm_f64);
  define("adjit_sinf_lanes", &adjit_sinf_lanes);
  define("adjit_cosf_lanes", &adjit_cosf_lanes);
  if (auto error = (*jit)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(runtime_functions))))
    throw fail("cannot define the runtime functions", std::move(error));
  if (auto error = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, "adjit-program")))
    throw fail("cannot add the compiled program to the JIT", std::move(error));

  std::vector<EntryFunction> functions;
  for (const Signature& signature : signatures) {
    auto symbol = (*jit)->lookup(mlir::adjit::entryPointName(signature.name));
    if (!symbol) throw fail("cannot link entry '" + signature.name + "'", symbol.takeError());
    functions.push_back(symbol->toPtr<EntryFunction>());
  }
  auto code = std::make_unique<JitLinkedCode>(std::move(*jit), std::move(functions),
                                              has_parallel_regions(object));
  return Executable(std::move(signatures), Device::cpu(), std::move(code));
}

}  // namespace adjit::detail
