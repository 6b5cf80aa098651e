#include <map>

#include <fmt/format.h>

#include "CudaDriver.h"
#include "Cublas.h"
#include "DeviceMemory.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/GpuProgram.h"

namespace adjit::gpu {

struct LoadedGpuProgram::Module {
  cuda::CUmodule module = nullptr;
  std::map<std::string, cuda::CUfunction, std::less<>> kernels;
  std::vector<void*> constants;  // device copies of GpuProgram::constants
};

namespace {

// Temporaries a call allocated, freed however the call ends.
struct Temporaries {
  int device;
  const EntryPlan& plan;
  std::vector<void*>& pointers;
  ~Temporaries() {
    for (size_t b = 0; b < plan.buffers.size(); ++b)
      if (plan.buffers[b].kind == Buffer::Kind::temporary && pointers[b])
        cuda::release(device, pointers[b], plan.buffers[b].bytes);
  }
};

}  // namespace

LoadedGpuProgram::LoadedGpuProgram(std::shared_ptr<const GpuProgram> program, Device device)
    : program_(std::move(program)), device_(device), module_(std::make_unique<Module>()) {
  if (!device.is_cuda())
    throw RuntimeError(fmt::format("a GPU program cannot run on {}", device.str()));
  const cuda::Driver& driver = cuda::driver();
  cuda::make_current(device.index());
  std::string image = program_->image;  // PTX must end in a NUL
  image.push_back('\0');
  std::string log(16384, '\0');
  int options[] = {cuda::CU_JIT_ERROR_LOG_BUFFER, cuda::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size())};
  cuda::CUresult loaded =
      program_->image.empty()  // a program of library calls only
          ? cuda::CUDA_SUCCESS
          : driver.cuModuleLoadDataEx(&module_->module, image.data(), 2, options, values);
  if (loaded != cuda::CUDA_SUCCESS) {
    log.resize(log.find('\0'));
    try {
      cuda::check(loaded, fmt::format("loading the {} module for {} on {}", program_->format,
                                      program_->arch, device.str()));
    } catch (RuntimeError& error) {
      throw RuntimeError(std::string(error.what()) + (log.empty() ? "" : ":\n" + log));
    }
  }
  for (const EntryPlan& plan : program_->entries)
    for (const Step& step : plan.steps)
      if (step.kind == Step::Kind::launch && !module_->kernels.count(step.kernel)) {
        cuda::CUfunction function = nullptr;
        cuda::check(driver.cuModuleGetFunction(&function, module_->module, step.kernel.c_str()),
                    fmt::format("finding kernel '{}'", step.kernel));
        module_->kernels.emplace(step.kernel, function);
      }
  for (const std::string& bytes : program_->constants) {
    void* block = cuda::allocate(device.index(), bytes.size());
    module_->constants.push_back(block);
    cuda::copy_to_device(device.index(), block, bytes.data(), bytes.size());
  }
}

bool gemm_library_available() { return cuda::driver_available() && cuda::cublas_available(); }

LoadedGpuProgram::~LoadedGpuProgram() {
  // Calls return before their kernels end: the module and its constants
  // must outlive the launches still queued. A fault among them stays in
  // the context for the next call to report (a destructor cannot throw).
  try {
    cuda::synchronize(device_.index());
  } catch (const RuntimeError&) {
  }
  for (size_t i = 0; i < module_->constants.size(); ++i)
    cuda::release(device_.index(), module_->constants[i], program_->constants[i].size());
  if (module_->module) {
    cuda::make_current(device_.index());
    cuda::driver().cuModuleUnload(module_->module);
  }
}

void LoadedGpuProgram::run(size_t entry, const std::vector<Array>& inputs,
                           const std::vector<Array>& outputs) const {
  const EntryPlan& plan = program_->entries.at(entry);
  check_entry_arrays(plan.signature, inputs, plan.signature.inputs, "input", device_);
  check_entry_arrays(plan.signature, outputs, plan.signature.outputs, "output", device_);
  const cuda::Driver& driver = cuda::driver();
  int index = device_.index();
  cuda::make_current(index);

  std::vector<void*> pointers(plan.buffers.size(), nullptr);
  Temporaries temporaries{index, plan, pointers};
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const Buffer& buffer = plan.buffers[b];
    if (buffer.kind == Buffer::Kind::input)
      pointers[b] = const_cast<void*>(inputs[buffer.index].raw_data());
    else if (buffer.kind == Buffer::Kind::output)
      pointers[b] = const_cast<void*>(outputs[buffer.index].raw_data());
    else if (buffer.kind == Buffer::Kind::constant)
      pointers[b] = module_->constants[buffer.index];
  }
  std::vector<uint64_t> values;
  std::vector<void*> parameters;
  for (const Step& step : plan.steps) {
    const Buffer* buffer = step.buffer >= 0 ? &plan.buffers[step.buffer] : nullptr;
    switch (step.kind) {
      case Step::Kind::allocate:
        pointers[step.buffer] = cuda::allocate(index, buffer->bytes);
        break;
      case Step::Kind::gemm:
        for (int b : step.gemm.buffers)
          if (!pointers[b])
            throw RuntimeError(fmt::format(
                "GPU program '{}': a gemm uses buffer {} before it is allocated or after it is "
                "released",
                plan.signature.name, b));
        cuda::run_gemm(index, step.gemm, pointers.data());
        break;
      case Step::Kind::release:
        cuda::release(index, pointers[step.buffer], buffer->bytes);
        pointers[step.buffer] = nullptr;
        break;
      case Step::Kind::launch: {
        values.clear();
        for (const KernelArgument& a : step.arguments) {
          if (a.kind == KernelArgument::Kind::scalar) {
            values.push_back(a.bits);
            continue;
          }
          auto base = reinterpret_cast<uint64_t>(pointers[a.buffer]);
          if (!base)
            throw RuntimeError(fmt::format(
                "GPU program '{}': kernel '{}' uses buffer {} before it is allocated or after it "
                "is released",
                plan.signature.name, step.kernel, a.buffer));
          values.push_back(base);  // allocated pointer
          values.push_back(base);  // aligned pointer
          values.push_back(static_cast<uint64_t>(a.offset));
          for (int64_t s : a.sizes) values.push_back(static_cast<uint64_t>(s));
          for (int64_t s : a.strides) values.push_back(static_cast<uint64_t>(s));
        }
        // Each parameter points at its value; a 4-byte scalar is the low half
        // of its (little-endian) 8-byte slot.
        parameters.clear();
        for (uint64_t& value : values) parameters.push_back(&value);
        cuda::check(driver.cuLaunchKernel(module_->kernels.find(step.kernel)->second, step.grid[0],
                                          step.grid[1], step.grid[2], step.block[0], step.block[1],
                                          step.block[2], step.shared_bytes, nullptr,
                                          parameters.data(), nullptr),
                    fmt::format("launching kernel '{}' of '{}'", step.kernel, plan.signature.name));
        break;
      }
    }
  }
  // No wait here: the launches are queued on the device's default stream,
  // in order, so the next call (or a copy to the host) starts after them and
  // the host dispatches while the GPU computes (JAX's asynchronous dispatch).
}

}  // namespace adjit::gpu
