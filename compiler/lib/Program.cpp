#include "adjit/compiler/Program.h"

#include "CpuBackend.h"
#include "Diagnostics.h"
#include "GpuBackend.h"
#include "MemoryPlanning.h"
#include "ProgramImpl.h"

#include "adjit/compiler/CompileCache.h"
#include "adjit/compiler/ProcessCompileCache.h"

#include "adjit/Dialect/AdjitDialect.h"
#include "adjit/Passes/Pipelines.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Files.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>

namespace adjit {

using mlir::adjit::Stage;

const std::vector<std::string>& stage_names() { return stage_names(Device::Kind::cpu); }

namespace {

mlir::adjit::Target pipeline_target(Device::Kind target) {
  return target == Device::Kind::cuda ? mlir::adjit::Target::cuda : mlir::adjit::Target::cpu;
}

}  // namespace

const std::vector<std::string>& stage_names(Device::Kind target) {
  auto names_of = [](mlir::adjit::Target pipeline) {
    std::vector<std::string> names;
    for (Stage stage : mlir::adjit::stagesOf(pipeline))
      names.push_back(mlir::adjit::stageName(stage).str());
    return names;
  };
  static const std::vector<std::string> cpu = names_of(mlir::adjit::Target::cpu);
  static const std::vector<std::string> cuda = names_of(mlir::adjit::Target::cuda);
  return target == Device::Kind::cuda ? cuda : cpu;
}

namespace {


TensorType tensor_type_of(mlir::Type type, mlir::func::FuncOp fn) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  std::optional<DType> dtype = tensor ? dtype_of(tensor.getElementType()) : std::nullopt;
  if (!dtype || !tensor.hasStaticShape()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "function '" << fn.getSymName() << "' has a parameter or result of type " << type
       << "; entry points take and return statically shaped tensors of "
          "f16, bf16, f32, f64, i1, i32 or i64";
    throw CompileError(text);
  }
  return {*dtype, Shape(tensor.getShape().begin(), tensor.getShape().end())};
}

}  // namespace

mlir::Type element_type_of(mlir::MLIRContext& context, DType dtype) {
  switch (dtype) {
    case DType::f16: return mlir::Float16Type::get(&context);
    case DType::bf16: return mlir::BFloat16Type::get(&context);
    case DType::f32: return mlir::Float32Type::get(&context);
    case DType::f64: return mlir::Float64Type::get(&context);
    case DType::i1: return mlir::IntegerType::get(&context, 1);
    case DType::i32: return mlir::IntegerType::get(&context, 32);
    case DType::i64: return mlir::IntegerType::get(&context, 64);
  }
  throw_invalid_dtype(dtype);
}

std::optional<DType> dtype_of(mlir::Type type) {
  if (type.isF16()) return DType::f16;
  if (type.isBF16()) return DType::bf16;
  if (type.isF32()) return DType::f32;
  if (type.isF64()) return DType::f64;
  if (type.isSignlessInteger(1)) return DType::i1;
  if (type.isSignlessInteger(32)) return DType::i32;
  if (type.isSignlessInteger(64)) return DType::i64;
  return std::nullopt;
}

std::vector<Signature> signatures_of(mlir::ModuleOp module) {
  std::vector<Signature> signatures;
  for (auto fn : module.getOps<mlir::func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal()) continue;
    Signature signature{fn.getSymName().str(), {}, {}};
    for (mlir::Type t : fn.getArgumentTypes()) signature.inputs.push_back(tensor_type_of(t, fn));
    for (mlir::Type t : fn.getResultTypes()) signature.outputs.push_back(tensor_type_of(t, fn));
    // Donated arguments (the dialect verified the indices and types).
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto output = fn.getArgAttrOfType<mlir::IntegerAttr>(
              i, mlir::adjit::kAliasingOutputAttrName)) {
        signature.aliased_inputs.resize(signature.outputs.size(), -1);
        signature.aliased_inputs[output.getInt()] = static_cast<int>(i);
      }
    signatures.push_back(std::move(signature));
  }
  return signatures;
}

namespace {

std::string print(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

std::string print(llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

// A count set by environment variable `name` (a tuning knob), else
// `fallback`; a value that is not a multiple of `step` from `low` to `high`
// is a CompileError naming the variable.
int64_t count_from_environment(const char* name, const char* what, long long low,
                               long long high, long long step, int64_t fallback) {
  const char* text = std::getenv(name);
  if (!text) return fallback;
  char* end = nullptr;
  long long count = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || count < low || count > high || count % step != 0)
    throw CompileError(fmt::format("{}='{}' is not a number of {} from {} to {}{}", name, text,
                                   what, low, high,
                                   step > 1 ? fmt::format(", a multiple of {}", step) : ""));
  return count;
}

mlir::adjit::PipelineOptions pipeline_options(const CompileOptions& options) {
  mlir::adjit::PipelineOptions pipeline;
  pipeline.threads = options.threads;
  pipeline.planBuffers = options.plan_buffers;
  pipeline.rematerialize = options.rematerialize;
  pipeline.target = pipeline_target(options.target);
  pipeline.vectorMathLibrary = options.target == Device::Kind::cpu &&
                               options.vector_math_library &&
                               detail::vector_math_library_loaded();
  // Ahead-of-time code for another CPU gets vectors of that CPU's width.
  if (options.target == Device::Kind::cpu &&
      (!options.target_cpu.empty() || !options.target_features.empty())) {
    detail::LentTargetMachine machine =
        detail::lend_target_machine(options.target_cpu, options.target_features);
    pipeline.vectorBits = detail::vector_register_bits(*machine);
    pipeline.avx512dq = detail::has_avx512dq(*machine);
    pipeline.avx2 = detail::has_avx2(*machine);
    pipeline.cpu = machine->getTargetCPU().str();
  }
  if (options.target == Device::Kind::cpu && !options.tune_cpu.empty()) {
    detail::check_tune_cpu(options.tune_cpu);
    pipeline.cpu = options.tune_cpu;
  }
  if (options.target == Device::Kind::cuda) {
    pipeline.gpuChip = options.gpu_arch;
    pipeline.libdevice = detail::libdevice_path().value_or("");
    // ADJIT_GPU_GEMM=cublas|kernels overrides whether cuBLAS is found here
    // (to make programs for another machine, or to compare).
    const char* gemm = std::getenv("ADJIT_GPU_GEMM");
    pipeline.gpuGemmLibrary = gemm ? std::string_view(gemm) == "cublas"
                                   : gpu::gemm_library_available();
    // A row group's most thread blocks and threads per block (to tune).
    pipeline.gpuRowBlocks = count_from_environment("ADJIT_GPU_ROW_BLOCKS", "thread blocks", 1,
                                                   2147483647, 1, pipeline.gpuRowBlocks);
    pipeline.gpuRowThreads = count_from_environment("ADJIT_GPU_ROW_THREADS", "threads", 32, 1024,
                                                    32, pipeline.gpuRowThreads);
  }
  return pipeline;
}

bool verify_each_pass() {
  static const bool each = [] {
    const char* setting = std::getenv("ADJIT_VERIFY_EACH");
    if (!setting || !*setting || std::string_view(setting) == "0") return false;
    if (std::string_view(setting) == "1") return true;
    throw Error(fmt::format("ADJIT_VERIFY_EACH must be 0 or 1, got '{}'", setting));
  }();
  return each;
}

// A clone of the program's module, lowered one stage at a time.
class StagedModule {
 public:
  explicit StagedModule(Program::Impl& program) : StagedModule(program, program.options) {}
  StagedModule(Program::Impl& program, const CompileOptions& options)
      : program_(program), module_(program.module->clone()),
        options_(pipeline_options(options)) {}

  const std::string& gpu_arch() const { return options_.gpuChip; }

  // The stages this target goes through, in order.
  llvm::ArrayRef<Stage> stages() const { return mlir::adjit::stagesOf(options_.target); }

  mlir::ModuleOp advance_to(Stage stage) {
    if (stage <= reached_) return *module_;
    mlir::MLIRContext& context = program_.context;
    mlir::PassManager pm(&context);
    // As mlir-opt's --mlir-print-ir-after-all: after every pass, changed or
    // not, and never before.
    if (program_.options.print_ir_after_all)
      pm.enableIRPrinting([](mlir::Pass*, mlir::Operation*) { return false; },
                          [](mlir::Pass*, mlir::Operation*) { return true; },
                          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    if (program_.options.timing) pm.enableTiming();
    // As LLVM's pipelines do, the IR is verified once the stage is reached,
    // not after every pass (a fifth of a small function's MLIR time);
    // ADJIT_VERIFY_EACH=1 verifies after every pass, as the tests run.
    bool each = verify_each_pass();
    pm.enableVerifier(each);
    mlir::adjit::addPipeline(pm, reached_, stage, options_);
    // The failing pass, named in the error: some fail without a diagnostic.
    struct FailedPass : mlir::PassInstrumentation {
      std::string* name;
      explicit FailedPass(std::string* name) : name(name) {}
      void runAfterPassFailed(mlir::Pass* pass, mlir::Operation*) override {
        if (name->empty()) *name = pass->getArgument().empty() ? pass->getName().str()
                                                               : pass->getArgument().str();
      }
    };
    std::string failed_pass;
    pm.addInstrumentation(std::make_unique<FailedPass>(&failed_pass));
    detail::DiagnosticCapture diagnostics(context);
    if (mlir::failed(pm.run(*module_)) || (!each && mlir::failed(mlir::verify(*module_)))) {
      std::string reason = diagnostics.text();
      throw CompileError("lowering to the '" + mlir::adjit::stageName(stage).str() +
                         "' stage failed" +
                         (failed_pass.empty() ? "" : " in the pass '" + failed_pass + "'") + ":\n" +
                         (reason.empty() ? "(the pass gave no reason: please report it)" : reason));
    }
    reached_ = stage;
    return *module_;
  }

  mlir::OwningOpRef<mlir::ModuleOp> release() { return std::move(module_); }

 private:
  Program::Impl& program_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  mlir::adjit::PipelineOptions options_;
  Stage reached_ = Stage::traced;
};

bool is_cuda(const CompileOptions& options) { return options.target == Device::Kind::cuda; }

const char* target_name(Device::Kind target) { return target == Device::Kind::cuda ? "cuda" : "cpu"; }

gpu::GpuProgram gpu_program_of(StagedModule& staged, const Program::Impl& program, bool cubin) {
  mlir::ModuleOp nvvm = staged.advance_to(Stage::nvvm);
  std::string image = detail::gpu_image(nvvm, cubin);
  return detail::make_gpu_program(nvvm, program.signatures, std::move(image),
                                  staged.gpu_arch(), cubin);
}

// LLVM's share of a compilation for --timing, reported after MLIR's pass
// timing and in the same format.
class BackEndTiming {
 public:
  explicit BackEndTiming(bool enabled) {
    manager_.setEnabled(enabled);
    root_ = manager_.getRootTimer();
    root_scope_ = mlir::TimingScope(root_);
  }
  // Not started: time it with a TimingScope, nest timers in it.
  mlir::Timer phase(llvm::StringRef name) { return root_.nest(name); }

 private:
  mlir::DefaultTimingManager manager_;  // prints its report when destroyed
  mlir::Timer root_;
  mlir::TimingScope root_scope_;
};

// LLVM IR for the host (or options' target CPU), with the machine that
// will run or emit it: the entry points of `signatures` and what they call.
struct NativeModule {
  BackEndTiming timing;
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  detail::LentTargetMachine machine;
  std::unique_ptr<llvm::Module> module;

  NativeModule(mlir::ModuleOp lowered, const std::vector<Signature>& signatures,
               const CompileOptions& options, bool for_this_process = false)
      : timing(options.timing),
        machine(for_this_process
                    ? detail::lend_target_machine()
                    : detail::lend_target_machine(options.target_cpu, options.target_features)) {
    {
      mlir::TimingScope scope(timing.phase("LLVM: translation to LLVM IR"));
      module = detail::translate(lowered, *context, *machine, options.tune_cpu);
    }
    mlir::Timer optimization = timing.phase(
        detail::has_loops(*module) ? "LLVM: -O3" : "LLVM: inlining and clean-up (no loops)");
    mlir::TimingScope scope(optimization);
    detail::optimize(*module, *machine, optimization);
    detail::keep_only_entry_points(*module, signatures);
  }

  std::string machine_code(bool assembly) {
    std::string phase = assembly ? "LLVM: assembly" : "LLVM: machine code";
    if (size_t longest = detail::longest_block(*module);
        longest > detail::kFastCodegenBlockInstructions)
      phase += fmt::format(" (-O0 code generation: a block of {} instructions)", longest);
    mlir::TimingScope scope(timing.phase(phase));
    return detail::emit_machine_code(*module, *machine, assembly);
  }
};

const char* file_extension(Stage stage) {
  switch (stage) {
    case Stage::llvmIR: return ".ll";
    case Stage::assembly: return ".s";
    case Stage::object: return ".o";
    case Stage::ptx: return ".ptx";
    case Stage::gpuProgram: return ".gpu";
    case Stage::cubin: return ".cubin";
    default: return ".mlir";
  }
}

std::string file_name_for(size_t index, Stage stage) {
  return fmt::format("{:02}-{}{}", index + 1, mlir::adjit::stageName(stage).str(),
                     file_extension(stage));
}

}  // namespace

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Program::Impl& Program::impl() const {
  if (!impl_)
    throw RuntimeError("this Program was moved from (std::move) and holds no module; use the "
                       "Program it was moved into");
  return *impl_;
}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

namespace {

// MLIR's parser recurses once per nested region, attribute or type: IR
// nested thousands of levels deep overflows the stack. Such IR is rejected
// before parsing, at the bracket that goes too deep.
void reject_deep_nesting(std::string_view source, std::string_view buffer_name) {
  constexpr int kMaxDepth = 512;
  int depth = 0, line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      while (i + 1 < source.size() && source[i + 1] != '\n') ++i;  // a comment
    } else if (c == '"') {
      for (++i; i < source.size() && source[i] != '"'; ++i)
        if (source[i] == '\\') ++i;  // an escaped character in a string
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw CompileError(fmt::format(
            "invalid IR in {0}:\n{0}:{1}:{2}: error: brackets nested more than {3} levels deep "
            "(regions, attributes or types): adjit rejects such IR instead of letting the "
            "parser overflow its stack",
            buffer_name, line, i - line_start + 1, kMaxDepth));
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace

Program Program::parse(std::string_view source, std::string_view buffer_name,
                       CompileOptions options) {
  reject_deep_nesting(source, buffer_name);
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source.data(), source.size()),
                                           llvm::StringRef(buffer_name.data(), buffer_name.size())),
      llvm::SMLoc());
  {
    detail::DiagnosticCapture diagnostics(impl->context);
    impl->module = mlir::parseSourceFile<mlir::ModuleOp>(sources, &impl->context);
    if (!impl->module)
      throw CompileError("invalid IR in " + std::string(buffer_name) + ":\n" + diagnostics.text());
  }
  impl->signatures = signatures_of(*impl->module);
  return Program(std::move(impl));
}

Program Program::parse_file(const std::string& path, CompileOptions options) {
  if (std::filesystem::is_directory(path))
    throw Error("cannot read '" + path + "': it is a directory, not an .mlir file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(source, path, options);
}

const std::vector<Signature>& Program::signatures() const { return impl().signatures; }

const CompileOptions& Program::options() const { return impl().options; }

void Program::set_options(CompileOptions options) { impl().options = std::move(options); }

std::string Program::ir(std::string_view stage_name) const {
  const CompileOptions& options = impl().options;
  if (stage_name == "memory-plan") {
    std::string report;
    for (const Signature& signature : impl().signatures) report += memory_plan(signature.name).to_string();
    return report;
  }
  std::optional<Stage> stage =
      mlir::adjit::parseStage(llvm::StringRef(stage_name.data(), stage_name.size()));
  if (!stage) {
    throw Error(fmt::format("unknown stage '{}'; stages: {}{} (and memory-plan)", stage_name,
                            fmt::join(stage_names(options.target), " "),
                            is_cuda(options) ? " cubin" : ""));
  }
  StagedModule staged(impl());
  bool on_demand = *stage == Stage::cubin && is_cuda(options);
  if (!on_demand && !llvm::is_contained(staged.stages(), *stage)) {
    auto other = is_cuda(options) ? Device::Kind::cpu : Device::Kind::cuda;
    std::vector<std::string> theirs;
    for (Stage s : mlir::adjit::stagesOf(pipeline_target(other)))
      if (!llvm::is_contained(staged.stages(), s)) theirs.push_back(mlir::adjit::stageName(s).str());
    if (other == Device::Kind::cuda) theirs.push_back("cubin");
    throw Error(fmt::format("stage '{}' is not one of the {} target's; {}: {}", stage_name,
                            target_name(options.target), target_name(other),
                            fmt::join(theirs, ", ")));
  }
  if (mlir::adjit::isMlirStage(*stage)) return print(staged.advance_to(*stage));
  switch (*stage) {
    case Stage::llvmIR:
    case Stage::assembly:
    case Stage::object: {
      NativeModule native(staged.advance_to(Stage::llvm), impl().signatures, options);
      if (*stage == Stage::llvmIR) return print(*native.module);
      return native.machine_code(*stage == Stage::assembly);
    }
    case Stage::ptx:
    case Stage::cubin:
      return detail::gpu_image(staged.advance_to(Stage::nvvm), *stage == Stage::cubin);
    case Stage::gpuProgram:
      return gpu_program_of(staged, impl(), false).serialize();
    default:
      llvm_unreachable("every stage after llvm has an emitter above");
  }
}

MemoryPlan Program::memory_plan(std::string_view entry) const {
  const std::vector<Signature>& signatures = impl().signatures;
  auto names = [&] {
    std::vector<std::string_view> names;
    for (const Signature& signature : signatures) names.push_back(signature.name);
    return fmt::format("{}", fmt::join(names, " "));
  };
  if (entry.empty()) {
    if (signatures.size() != 1)
      throw Error("memory_plan: name one of the public functions: " + names());
    entry = signatures.front().name;
  } else if (llvm::none_of(signatures, [&](const Signature& s) { return s.name == entry; })) {
    throw Error(fmt::format("memory_plan: no public function '{}'; there are: {}", entry, names()));
  }
  // Temporaries are the host's: plan the cpu target's stages. The plan is
  // read off the bufferized stage before adjit-plan-buffers applies it.
  CompileOptions cpu = impl().options;
  cpu.target = Device::Kind::cpu;
  cpu.plan_buffers = false;
  StagedModule staged(impl(), cpu);
  MemoryPlan plan;
  plan.function = std::string(entry);
  llvm::StringRef name(entry.data(), entry.size());
  plan.residuals = detail::residuals_of(staged.advance_to(Stage::differentiated), name);
  auto function = staged.advance_to(Stage::bufferized).lookupSymbol<mlir::func::FuncOp>(name);
  detail::describe_buffers(function, impl().options.plan_buffers, plan);
  return plan;
}

namespace {

// Each stage's text, in pipeline order, to `emit` as soon as it exists: a
// stage that fails to build leaves the ones before it emitted.
template <class Emit>
void for_each_stage(Program::Impl& program, const CompileOptions& options, Emit emit) {
  StagedModule staged(program, options);
  for (Stage stage : staged.stages())
    if (mlir::adjit::isMlirStage(stage)) emit(stage, print(staged.advance_to(stage)));
  if (is_cuda(options)) {
    gpu::GpuProgram gpu_program = gpu_program_of(staged, program, false);
    emit(Stage::ptx, gpu_program.image);
    emit(Stage::gpuProgram, gpu_program.serialize());
    return;
  }
  NativeModule native(staged.advance_to(Stage::llvm), program.signatures, options);
  emit(Stage::llvmIR, print(*native.module));
  emit(Stage::assembly, native.machine_code(true));
  emit(Stage::object, native.machine_code(false));
}

// Writes the stages into `dir` one by one, so that a failing pipeline
// leaves the stages up to the failure to read.
void dump_with(Program::Impl& program, const CompileOptions& options, const std::string& dir,
               std::string prefix) {
  // A file name in `dir` whatever the function's name: '/' and other
  // characters a path would read become '_'.
  for (char& c : prefix)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
        c != '+')
      c = '_';
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw Error("cannot create dump directory '" + dir + "': " + error.message());
  size_t index = 0;
  for_each_stage(program, options, [&](Stage stage, const std::string& text) {
    std::filesystem::path path = std::filesystem::path(dir) / (prefix + file_name_for(index++, stage));
    write_file(path.string(), text);
  });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Program::all_stages() const {
  std::vector<std::pair<std::string, std::string>> named;
  for_each_stage(impl(), impl().options, [&](Stage stage, std::string text) {
    named.emplace_back(mlir::adjit::stageName(stage).str(), std::move(text));
  });
  return named;
}

void Program::save(const std::string& path) const { write_file(path, ir("traced")); }

void Program::dump(const std::string& dir, const std::string& prefix) const {
  dump_with(impl(), impl().options, dir, prefix);
}

std::string Program::object_code() const {
  if (is_cuda(impl().options))
    throw Error("an object file is for the cpu target; the cuda target emits ptx, cubin or "
                "gpu-program");
  return ir("obj");
}

Executable Program::compile() const {
  return compile(is_cuda(impl().options) ? Device::cuda(0) : Device::cpu());
}

Executable Program::compile(Device device) const {
  CompileOptions for_device = impl().options;
  for_device.target = device.kind();
  // Code run in this process is for this machine's CPU, whatever the
  // options name for code emitted elsewhere.
  for_device.target_cpu.clear();
  for_device.target_features.clear();
  StagedModule staged(impl(), for_device);
  if (device.is_cuda())
    return detail::load_onto_gpu(gpu_program_of(staged, impl(), false), device);
  // The machine code of this program for this CPU may already be in this
  // process (ProcessCompileCache) or on disk (CompileCache). The key is the
  // traced IR and everything that decides its staged (the pipeline's
  // options, the host CPU, adjit's build, LLVM's version), so that a hit
  // skips the MLIR passes too.
  bool from_environment = impl().options.cache_dir.empty();
  std::string cache_dir =
      from_environment ? CompileCache::directory_from_environment() : impl().options.cache_dir;
  ProcessCompileCache& in_process = ProcessCompileCache::instance();
  std::optional<CompileCache> on_disk;
  if (!cache_dir.empty()) {
    if (from_environment) {
      // ADJIT_CACHE_DIR, set for every program, is an optimization: one
      // that cannot be used is said once, and programs compile without it
      // (a cache_dir the code itself names is an error, below).
      try {
        on_disk.emplace(cache_dir);
      } catch (const Error& error) {
        static std::once_flag warned;
        std::call_once(warned, [&] {
          fmt::print(stderr, "adjit: warning: ADJIT_CACHE_DIR is not used: {}\n", error.what());
        });
      }
    } else {
      on_disk.emplace(cache_dir);
    }
  }
  std::string key;
  if (on_disk || in_process.enabled()) {
    key = CompileCache::key({print(*impl().module), detail::host_target_description(),
                             "tune=" + for_device.tune_cpu, "O3",
                             for_device.threads ? "threads" : "serial",
                             for_device.plan_buffers ? "planned" : "unplanned",
                             for_device.rematerialize ? "remat" : "no-remat",
                             for_device.vector_math_library ? "libmvec" : "libm"});
    // An object that does not load (intact bytes, but no loadable object)
    // is dropped and compiled afresh.
    auto link = [&](const std::string& object) -> std::optional<Executable> {
      try {
        return detail::load_into_jit(object, impl().signatures);
      } catch (const CompileError&) {
        return std::nullopt;
      }
    };
    if (ProcessCompileCache::Object object = in_process.load(key)) {
      if (std::optional<Executable> executable = link(*object)) {
        // The directory keeps what this process compiled, for the next one.
        if (on_disk && !on_disk->touch(key)) on_disk->store(key, *object);
        return std::move(*executable);
      }
      in_process.remove(key);
    }
    if (std::optional<std::string> object = on_disk ? on_disk->load(key) : std::nullopt) {
      if (std::optional<Executable> executable = link(*object)) {
        in_process.store(key, std::make_shared<const std::string>(std::move(*object)));
        return std::move(*executable);
      }
      on_disk->remove(key);
    }
  }
  mlir::ModuleOp lowered = staged.advance_to(Stage::llvm);
  NativeModule native(lowered, impl().signatures, for_device, /*for_this_process=*/true);
  auto object = std::make_shared<const std::string>(native.machine_code(false));
  if (on_disk) on_disk->store(key, *object);
  if (!key.empty()) in_process.store(key, object);
  mlir::TimingScope scope = native.timing.phase("LLVM: JIT linking");
  return detail::load_into_jit(*object, impl().signatures);
}

namespace detail {

mlir::OwningOpRef<mlir::ModuleOp> ProgramInternals::lower(const Program& program,
                                                          const CompileOptions& options,
                                                          mlir::adjit::Stage stage) {
  StagedModule staged(program.impl(), options);
  staged.advance_to(stage);
  return staged.release();
}

void ProgramInternals::dump(const Program& program, const CompileOptions& options,
                            const std::string& dir, const std::string& prefix) {
  dump_with(program.impl(), options, dir, prefix);
}

}  // namespace detail
}  // namespace adjit
