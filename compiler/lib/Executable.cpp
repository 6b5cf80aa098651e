#include "adjit/compiler/Executable.h"

#include "JitLoader.h"

#include "adjit/Passes/Passes.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Gemm.h"
#include "adjit/runtime/KernelAllocation.h"
#include "adjit/runtime/MemRef.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace adjit {

using EntryFunction = void (*)(void**);

struct Executable::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<Signature> signatures;
  std::vector<EntryFunction> functions;  // parallel to signatures (CPU)
  std::unique_ptr<gpu::LoadedGpuProgram> gpu;  // the kernels and plans (GPU)
  Device device = Device::cpu();

  size_t index_of(std::string_view name) const {
    for (size_t i = 0; i < signatures.size(); ++i)
      if (signatures[i].name == name) return i;
    std::string known;
    for (const Signature& s : signatures) known += (known.empty() ? "" : ", ") + s.name;
    throw Error("unknown entry '" + std::string(name) + "'; the module defines: " +
                (known.empty() ? "(no public functions)" : known));
  }
};


Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::Executable(Executable&&) noexcept = default;
Executable& Executable::operator=(Executable&&) noexcept = default;
Executable::~Executable() = default;

const std::vector<Signature>& Executable::entries() const { return impl_->signatures; }

Device Executable::device() const { return impl_->device; }

const Signature& Executable::signature(std::string_view name) const {
  return impl_->signatures[impl_->index_of(name)];
}

std::vector<Array> Executable::run(std::string_view entry,
                                   const std::vector<Array>& inputs) const {
  const Signature& sig = signature(entry);
  std::vector<Array> outputs;
  outputs.reserve(sig.outputs.size());
  for (const TensorType& type : sig.outputs)
    outputs.push_back(Array::empty(type.shape, type.dtype, impl_->device));
  run_into(entry, inputs, outputs);
  return outputs;
}

void Executable::run_into(std::string_view entry, const std::vector<Array>& inputs,
                          std::vector<Array>& outputs) const {
  size_t index = impl_->index_of(entry);
  if (impl_->gpu) return impl_->gpu->run(entry, inputs, outputs);
  const Signature& sig = impl_->signatures[index];
  check_entry_arrays(sig, inputs, sig.inputs, "input", Device::cpu());
  check_entry_arrays(sig, outputs, sig.outputs, "output", Device::cpu());
  PackedArguments arguments(inputs, outputs);
  run_compiled(impl_->functions[index], arguments.data());
}

namespace detail {

Executable load_onto_gpu(gpu::GpuProgram program, Device device) {
  auto impl = std::make_unique<Executable::Impl>();
  impl->signatures.reserve(program.entries.size());
  for (const gpu::EntryPlan& plan : program.entries) impl->signatures.push_back(plan.signature);
  impl->gpu = std::make_unique<gpu::LoadedGpuProgram>(
      std::make_shared<const gpu::GpuProgram>(std::move(program)), device);
  impl->device = device;
  return Executable(std::move(impl));
}

Executable load_into_jit(const std::string& object, std::vector<Signature> signatures) {
  auto fail = [](const std::string& what, llvm::Error error) -> CompileError {
    return CompileError(what + ": " + llvm::toString(std::move(error)));
  };
  auto machine_builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine_builder) throw fail("cannot describe the host CPU", machine_builder.takeError());
  machine_builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*machine_builder).create();
  if (!jit) throw fail("cannot start LLVM's ORC JIT", jit.takeError());
  // Generated code calls libm and malloc/free from this process.
  auto process_symbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process_symbols) throw fail("cannot expose process symbols", process_symbols.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process_symbols));
  // Temporary buffers of compiled code come from the runtime's allocator;
  // contractions call the runtime's GEMM kernels.
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
  if (auto error = (*jit)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(runtime_functions))))
    throw fail("cannot define the runtime functions", std::move(error));
  if (auto error = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, "adjit-program")))
    throw fail("cannot add the compiled program to the JIT", std::move(error));

  auto impl = std::make_unique<Executable::Impl>();
  for (const Signature& signature : signatures) {
    auto symbol = (*jit)->lookup(mlir::adjit::entryPointName(signature.name));
    if (!symbol) throw fail("cannot link entry '" + signature.name + "'", symbol.takeError());
    impl->functions.push_back(symbol->toPtr<EntryFunction>());
  }
  impl->signatures = std::move(signatures);
  impl->jit = std::move(*jit);
  return Executable(std::move(impl));
}

}  // namespace detail
}  // namespace adjit
