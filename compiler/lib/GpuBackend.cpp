#include "GpuBackend.h"

#include "Diagnostics.h"
#include "LoadedCode.h"
#include "ProgramImpl.h"

#include "adjit/Passes/ContractionKernels.h"
#include "adjit/Passes/Pipelines.h"
#include "adjit/runtime/Error.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

namespace adjit::detail {
namespace fs = std::filesystem;

namespace {

bool has_libdevice(const fs::path& root) {
  std::error_code error;
  return fs::exists(root / "nvvm" / "libdevice" / "libdevice.10.bc", error);
}

std::string location_text(mlir::Location location) {
  std::string text;
  llvm::raw_string_ostream os(text);
  location.print(os);
  return text;
}

[[noreturn]] void unsupported(mlir::Operation* op, mlir::func::FuncOp fn, const std::string& why) {
  throw CompileError(
      fmt::format("the GPU backend cannot run '{}' in the host code of '{}' ({}): {}",
                  op->getName().getStringRef().str(), fn.getSymName().str(),
                  location_text(op->getLoc()), why));
}

size_t element_bytes(mlir::Type type) {
  if (auto dtype = dtype_of(type)) return dtype_size(*dtype);
  return 0;
}

// Launch plans of the host functions: one pass over each function's ops.
class PlanBuilder {
 public:
  PlanBuilder(mlir::ModuleOp module, gpu::GpuProgram& program)
      : module_(module), program_(program) {}

  gpu::EntryPlan build(mlir::func::FuncOp fn, const Signature& signature) {
    fn_ = fn;
    buffers_.clear();
    plan_ = gpu::EntryPlan{signature, {}, {}};
    size_t inputs = signature.inputs.size();
    if (fn.getNumArguments() != inputs + signature.outputs.size())
      throw CompileError(fmt::format(
          "the GPU backend expects '{}' to take its outputs as trailing arguments after "
          "bufferization",
          signature.name));
    for (auto [position, argument] : llvm::enumerate(fn.getArguments())) {
      bool input = position < inputs;
      add_buffer(argument, input ? gpu::Buffer::Kind::input : gpu::Buffer::Kind::output,
                 static_cast<int>(input ? position : position - inputs), 0);
    }
    for (mlir::Operation& op : fn.getBody().front()) visit(&op);
    return std::move(plan_);
  }

 private:
  int add_buffer(mlir::Value value, gpu::Buffer::Kind kind, int index, size_t bytes) {
    plan_.buffers.push_back({kind, index, bytes});
    int id = static_cast<int>(plan_.buffers.size() - 1);
    buffers_[value] = id;
    return id;
  }

  int buffer_of(mlir::Value value, mlir::Operation* user) {
    auto found = buffers_.find(value);
    if (found == buffers_.end()) unsupported(user, fn_, "its buffer operand is not one the plan knows");
    return found->second;
  }

  size_t static_bytes(mlir::MemRefType type, mlir::Operation* op) {
    size_t bytes = element_bytes(type.getElementType());
    if (!type.hasStaticShape() || bytes == 0)
      unsupported(op, fn_, "buffers need a static shape and an adjit element type");
    return static_cast<size_t>(type.getNumElements()) * bytes;
  }

  void visit(mlir::Operation* op) {
    if (mlir::isa<mlir::arith::ConstantOp, mlir::func::ReturnOp>(op)) return;
    if (auto alloc = mlir::dyn_cast<mlir::memref::AllocOp>(op)) {
      int id = add_buffer(alloc, gpu::Buffer::Kind::temporary, 0,
                          static_bytes(alloc.getType(), op));
      plan_.buffers[id].index = id;
      plan_.steps.push_back({gpu::Step::Kind::allocate, id});
      return;
    }
    if (auto dealloc = mlir::dyn_cast<mlir::memref::DeallocOp>(op)) {
      int id = buffer_of(dealloc.getMemref(), op);
      if (plan_.buffers[id].kind == gpu::Buffer::Kind::temporary)
        plan_.steps.push_back({gpu::Step::Kind::release, id});
      return;
    }
    if (auto global = mlir::dyn_cast<mlir::memref::GetGlobalOp>(op)) return add_constant(global);
    if (mlir::isa<mlir::memref::ExpandShapeOp, mlir::memref::CollapseShapeOp, mlir::memref::CastOp,
                  mlir::memref::ReinterpretCastOp, mlir::memref::SubViewOp>(op)) {
      // A view: the same buffer, described by its own type at each launch.
      buffers_[op->getResult(0)] = buffer_of(op->getOperand(0), op);
      return;
    }
    if (auto launch = mlir::dyn_cast<mlir::gpu::LaunchFuncOp>(op)) return add_launch(launch);
    if (auto generic = mlir::dyn_cast<mlir::linalg::GenericOp>(op))
      if (auto gemm = mlir::adjit::matchLibraryGemm(generic)) return add_gemm(generic, *gemm);
    unsupported(op, fn_, "a GPU program's host side only allocates, launches kernels and frees");
  }

  void add_constant(mlir::memref::GetGlobalOp get) {
    auto global = mlir::SymbolTable::lookupNearestSymbolFrom<mlir::memref::GlobalOp>(
        get, get.getNameAttr());
    auto value = global ? mlir::dyn_cast_or_null<mlir::DenseElementsAttr>(
                              global.getInitialValueAttr())
                        : nullptr;
    if (!value) unsupported(get, fn_, "only constant globals with dense values are supported");
    auto [slot, added] = constants_.try_emplace(global.getSymName().str(),
                                                static_cast<int>(program_.constants.size()));
    if (added) {
      size_t bytes = element_bytes(value.getElementType());
      if (bytes == 0 || value.getElementType().isInteger(1))
        unsupported(get, fn_, "constant of this element type");
      llvm::ArrayRef<char> raw = value.getRawData();
      std::string data;
      if (value.isSplat()) {
        for (int64_t i = 0; i < value.getNumElements(); ++i) data.append(raw.data(), bytes);
      } else {
        data.assign(raw.data(), raw.size());
      }
      program_.constants.push_back(std::move(data));
    }
    add_buffer(get, gpu::Buffer::Kind::constant, slot->second,
               program_.constants[slot->second].size());
  }

  static unsigned constant_dimension(mlir::Value value, mlir::gpu::LaunchFuncOp launch,
                                     mlir::func::FuncOp fn) {
    llvm::APInt bits;
    if (auto c = value.getDefiningOp<mlir::arith::ConstantIndexOp>()) return c.value();
    unsupported(launch, fn, "launch dimensions must be constants");
  }

  void add_gemm(mlir::linalg::GenericOp op, const mlir::adjit::LibraryGemm& shape) {
    gpu::Step step{gpu::Step::Kind::gemm};
    gpu::Gemm& gemm = step.gemm;
    gemm.element_bits = static_cast<int>(shape.elementBits);
    gemm.batch = shape.batch;
    gemm.m = shape.m;
    gemm.n = shape.n;
    gemm.k = shape.k;
    gemm.accumulate = !shape.overwrites;
    for (int o = 0; o < 3; ++o) {
      gemm.buffers[o] = buffer_of(op->getOperand(o), op);
      gemm.offsets[o] = shape.offsets[o];
      gemm.strides[o] = shape.strides[o];
    }
    plan_.steps.push_back(std::move(step));
  }

  void add_launch(mlir::gpu::LaunchFuncOp launch) {
    gpu::Step step{gpu::Step::Kind::launch};
    step.kernel = launch.getKernelName().str();
    auto grid = launch.getGridSizeOperandValues();
    auto block = launch.getBlockSizeOperandValues();
    step.grid = {constant_dimension(grid.x, launch, fn_), constant_dimension(grid.y, launch, fn_),
                 constant_dimension(grid.z, launch, fn_)};
    step.block = {constant_dimension(block.x, launch, fn_),
                  constant_dimension(block.y, launch, fn_),
                  constant_dimension(block.z, launch, fn_)};
    if (launch.getDynamicSharedMemorySize())
      unsupported(launch, fn_, "dynamic shared memory is not planned");
    for (mlir::Value operand : launch.getKernelOperands()) {
      gpu::KernelArgument argument{};
      if (auto type = mlir::dyn_cast<mlir::MemRefType>(operand.getType())) {
        argument.kind = gpu::KernelArgument::Kind::buffer;
        argument.buffer = buffer_of(operand, launch);
        llvm::SmallVector<int64_t> strides;
        int64_t offset = 0;
        if (!type.hasStaticShape() || mlir::failed(mlir::getStridesAndOffset(type, strides, offset)) ||
            mlir::ShapedType::isDynamic(offset) ||
            llvm::any_of(strides, mlir::ShapedType::isDynamic))
          unsupported(launch, fn_, "kernel buffers need static shapes, strides and offsets");
        argument.offset = offset;
        argument.sizes.assign(type.getShape().begin(), type.getShape().end());
        argument.strides.assign(strides.begin(), strides.end());
      } else {
        argument.kind = gpu::KernelArgument::Kind::scalar;
        mlir::Attribute value;
        auto constant = operand.getDefiningOp<mlir::arith::ConstantOp>();
        if (!constant) unsupported(launch, fn_, "scalar kernel arguments must be constants");
        if (auto integer = mlir::dyn_cast<mlir::IntegerAttr>(constant.getValue())) {
          unsigned width = integer.getType().isIndex() ? 64 : integer.getType().getIntOrFloatBitWidth();
          if (width != 32 && width != 64) unsupported(launch, fn_, "scalar of this width");
          argument.bytes = static_cast<int>(width / 8);
          argument.bits = integer.getValue().getZExtValue();
        } else if (auto real = mlir::dyn_cast<mlir::FloatAttr>(constant.getValue())) {
          unsigned width = real.getType().getIntOrFloatBitWidth();
          if (width != 32 && width != 64) unsupported(launch, fn_, "scalar of this width");
          argument.bytes = static_cast<int>(width / 8);
          argument.bits = real.getValue().bitcastToAPInt().getZExtValue();
        } else {
          unsupported(launch, fn_, "scalar kernel argument of this type");
        }
      }
      step.arguments.push_back(std::move(argument));
    }
    plan_.steps.push_back(std::move(step));
  }

  mlir::ModuleOp module_;
  gpu::GpuProgram& program_;
  mlir::func::FuncOp fn_;
  gpu::EntryPlan plan_;
  llvm::DenseMap<mlir::Value, int> buffers_;
  std::map<std::string, int> constants_;  // global symbol -> constant index
};

}  // namespace

std::optional<std::string> cuda_toolkit() {
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(variable); root && has_libdevice(root)) return root;
#ifdef ADJIT_CUDA_TOOLKIT_ROOT
  if (has_libdevice(ADJIT_CUDA_TOOLKIT_ROOT)) return std::string(ADJIT_CUDA_TOOLKIT_ROOT);
#endif
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      fs::path dir(std::string(rest.substr(0, colon)));
      std::error_code error;
      if (fs::exists(dir / "ptxas", error) && has_libdevice(dir.parent_path()))
        return dir.parent_path().string();
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  return std::nullopt;
}

std::optional<std::string> libdevice_path() {
  auto root = cuda_toolkit();
  if (!root) return std::nullopt;
  return (fs::path(*root) / "nvvm" / "libdevice" / "libdevice.10.bc").string();
}

std::string gpu_image(mlir::ModuleOp nvvm_stage, bool cubin) {
  mlir::OwningOpRef<mlir::ModuleOp> module(nvvm_stage.clone());
  auto toolkit = cuda_toolkit();
  module->walk([&](mlir::LLVM::LLVMFuncOp fn) {
    if (fn.isExternal() && fn.getSymName().starts_with("__nv_") && !toolkit)
      throw CompileError(fmt::format(
          "kernels call libdevice's {} but no CUDA toolkit was found to link libdevice from: set "
          "CUDA_HOME to a toolkit that has nvvm/libdevice/libdevice.10.bc",
          fn.getSymName().str()));
  });
  mlir::MLIRContext& context = *module->getContext();
  mlir::PassManager pm(&context);
  mlir::adjit::addGpuBinaryPasses(pm, cubin, toolkit.value_or(""));
  DiagnosticCapture diagnostics(context);
  if (mlir::failed(pm.run(*module)))
    throw CompileError(fmt::format("emitting the kernels' {} failed:\n{}", cubin ? "cubin" : "PTX",
                                   diagnostics.text()));
  std::string image;
  module->walk([&](mlir::gpu::BinaryOp binary) {
    for (mlir::Attribute object : binary.getObjects())
      image = mlir::cast<mlir::gpu::ObjectAttr>(object).getObject().str();
  });
  // PTX comes NUL-terminated, which ptxas rejects as text.
  if (!cubin)
    while (!image.empty() && image.back() == '\0') image.pop_back();
  return image;
}

gpu::GpuProgram make_gpu_program(mlir::ModuleOp module, const std::vector<Signature>& signatures,
                                 std::string image, const std::string& arch, bool cubin) {
  gpu::GpuProgram program;
  program.arch = arch;
  program.format = cubin ? "cubin" : "ptx";
  program.image = std::move(image);
  PlanBuilder builder(module, program);
  for (const Signature& signature : signatures) {
    auto fn = module.lookupSymbol<mlir::func::FuncOp>(signature.name);
    if (!fn)
      throw CompileError(fmt::format("the GPU program has no host function '{}'", signature.name));
    program.entries.push_back(builder.build(fn, signature));
  }
  return program;
}

namespace {

// A GPU program's kernels loaded through the CUDA driver.
class DriverLoadedCode final : public LoadedCode {
 public:
  DriverLoadedCode(gpu::GpuProgram program, Device device)
      : program_(std::make_shared<const gpu::GpuProgram>(std::move(program)), device) {}

  void run(const Signature&, size_t entry, const std::vector<Array>& inputs,
           const std::vector<Array>& outputs) const override {
    program_.run(entry, inputs, outputs);
  }

 private:
  gpu::LoadedGpuProgram program_;
};

}  // namespace

Executable load_onto_gpu(gpu::GpuProgram program, Device device) {
  std::vector<Signature> signatures;
  signatures.reserve(program.entries.size());
  for (const gpu::EntryPlan& plan : program.entries) signatures.push_back(plan.signature);
  return Executable(std::move(signatures), device,
                    std::make_unique<DriverLoadedCode>(std::move(program), device));
}

}  // namespace adjit::detail
