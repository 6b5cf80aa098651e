// The memory plan of a compiled function: its temporaries' lifetimes (from
// the bufferized stage, as adjit-plan-buffers sees them) and, for a
// gradient, the residuals of its reverse pass (from the differentiated
// stage).
#include "MemoryPlanning.h"

#include "Diagnostics.h"
#include "ProgramImpl.h"

#include "adjit/Dialect/AdjitDialect.h"
#include "adjit/Passes/BufferPlan.h"
#include "adjit/Passes/Residuals.h"
#include "adjit/runtime/Shape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

namespace adjit {

namespace {

// "f32[256,1024]" ("f32[?,4]" for a size known at run time).
std::string describe(mlir::ShapedType type) {
  std::optional<DType> dtype = dtype_of(type.getElementType());
  auto dims = llvm::map_range(type.getShape(), [](int64_t size) {
    return mlir::ShapedType::isDynamic(size) ? std::string("?") : fmt::format("{}", size);
  });
  std::string element;
  llvm::raw_string_ostream os(element);
  if (dtype) os << dtype_name(*dtype);
  else os << type.getElementType();
  return fmt::format("{}[{}]", element, fmt::join(dims, ","));
}

std::string bytes_text(int64_t bytes) {
  if (bytes < 0) return "run time";
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (1 << 20)) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

std::string made_by_text(const std::string& op, const std::string& location) {
  return location.empty() ? op : fmt::format("{} at {}", op, location);
}

// The functions `entry` calls, itself included, in the order first reached.
llvm::SetVector<mlir::func::FuncOp> reachable_functions(mlir::ModuleOp module,
                                                        mlir::func::FuncOp entry) {
  llvm::SetVector<mlir::func::FuncOp> reached;
  reached.insert(entry);
  for (size_t next = 0; next < reached.size(); ++next) {
    mlir::func::FuncOp function = reached[next];
    function.walk([&](mlir::func::CallOp call) {
      if (auto callee = module.lookupSymbol<mlir::func::FuncOp>(call.getCallee()))
        reached.insert(callee);
    });
  }
  return reached;
}

}  // namespace

int64_t MemoryPlan::residual_bytes() const {
  int64_t total = 0;
  for (const Residual& residual : residuals) total += std::max<int64_t>(residual.bytes, 0);
  return total;
}

std::string MemoryPlan::to_string() const {
  std::string text;
  auto out = std::back_inserter(text);
  size_t planned = 0;
  for (const TemporaryBuffer& buffer : buffers) planned += buffer.planned;
  fmt::format_to(out,
                 "memory plan of @{}: {} temporaries, peak {} ({} if each lived until the "
                 "function returns)\n",
                 function, buffers.size(), bytes_text(peak_bytes),
                 bytes_text(peak_bytes_unplanned));
  auto row = [&](const std::string& when, const std::string& where, int64_t bytes,
                 const std::string& type, const std::string& made_by) {
    fmt::format_to(out, "  {:<12} {:>10} {:>10}  {:<16} {}\n", when, where, bytes_text(bytes),
                   type, made_by);
  };
  if (planned) {
    fmt::format_to(out, "  live in ops (of {}), first..last, at an offset of the arena ({}):\n",
                   op_count, bytes_text(arena_bytes));
    for (const TemporaryBuffer& buffer : buffers)
      if (buffer.planned)
        row(fmt::format("{}..{}", buffer.first_op, buffer.last_op),
            buffer.offset < 0 ? "own" : fmt::format("@{}", buffer.offset), buffer.bytes,
            buffer.type, made_by_text(buffer.made_by, buffer.location));
  }
  if (planned < buffers.size()) {
    text += "  live while the op that allocates them runs:\n";
    for (const TemporaryBuffer& buffer : buffers)
      if (!buffer.planned)
        row("", "", buffer.bytes, buffer.type,
            fmt::format("{} ({})", made_by_text(buffer.made_by, buffer.location), buffer.note));
  }
  if (!residuals.empty()) {
    auto sized_at_run_time = std::count_if(residuals.begin(), residuals.end(),
                                           [](const Residual& r) { return r.bytes < 0; });
    fmt::format_to(out,
                   "residuals kept from the forward pass for the backward pass: {} values, {}{}\n",
                   residuals.size(), bytes_text(residual_bytes()),
                   sized_at_run_time ? fmt::format(" and {} of run-time size", sized_at_run_time)
                                     : "");
    for (const Residual& residual : residuals)
      row("", "", residual.bytes, residual.type,
          made_by_text(residual.made_by, residual.location));
  }
  return text;
}

namespace detail {

std::vector<Residual> residuals_of(mlir::ModuleOp differentiated, llvm::StringRef entry) {
  std::vector<Residual> residuals;
  auto function = differentiated.lookupSymbol<mlir::func::FuncOp>(entry);
  if (!function) return residuals;
  for (mlir::func::FuncOp vjp : reachable_functions(differentiated, function)) {
    std::optional<mlir::adjit::ReverseSplit> split = mlir::adjit::splitReverseFunction(vjp);
    if (!split) continue;
    for (mlir::Value value : split->residuals) {
      auto type = mlir::dyn_cast<mlir::ShapedType>(value.getType());
      if (!type) continue;
      std::optional<int64_t> bytes = mlir::adjit::sizeInBytes(type);
      residuals.push_back({bytes.value_or(-1), describe(type),
                           value.getDefiningOp()->getName().getStringRef().str(),
                           source_position(value.getLoc())});
    }
  }
  return residuals;
}

void describe_buffers(mlir::func::FuncOp bufferized, bool planning, MemoryPlan& plan) {
  mlir::adjit::BufferPlan analysis = mlir::adjit::planBuffers(bufferized);
  plan.arena_bytes = planning ? analysis.arenaBytes : 0;
  plan.peak_bytes = planning ? analysis.peakBytes : analysis.unplannedPeakBytes;
  plan.peak_bytes_unplanned = analysis.unplannedPeakBytes;
  plan.op_count = static_cast<int>(analysis.opCount);
  for (mlir::adjit::PlannedBuffer& buffer : analysis.buffers) {
    TemporaryBuffer out;
    out.bytes = buffer.bytes.value_or(-1);
    out.type = describe(buffer.alloc.getType());
    out.planned = planning && buffer.planned();
    out.note = planning ? buffer.reason : "memory planning is off (CompileOptions::plan_buffers)";
    out.offset = planning ? buffer.offset.value_or(-1) : -1;
    out.first_op = static_cast<int>(buffer.firstUse);
    out.last_op = static_cast<int>(buffer.lastUse);
    mlir::Operation* maker = buffer.maker ? buffer.maker : buffer.alloc.getOperation();
    out.made_by = maker->getName().getStringRef().str();
    out.location = source_position(maker->getLoc());
    plan.buffers.push_back(std::move(out));
  }
  // In the order the call makes them: planned buffers at their first use.
  std::stable_sort(plan.buffers.begin(), plan.buffers.end(),
                   [&](const TemporaryBuffer& a, const TemporaryBuffer& b) {
                     auto made_at = [&](const TemporaryBuffer& t) {
                       return t.planned ? t.first_op : plan.op_count;
                     };
                     return made_at(a) < made_at(b);
                   });
}

}  // namespace detail
}  // namespace adjit
