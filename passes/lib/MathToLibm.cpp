#include "Avx512Registers.h"
#include "VectorMathLibrary.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MATHTOLIBM
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// The libm function of a scalar `op` that needs libm for accuracy or has
// no LLVM lowering at all, or "" to leave it to LLVM.
std::string libmName(Operation *op) {
  bool needsLibm =
      isa<math::TanhOp, math::ErfOp, math::ExpM1Op, math::Log1pOp, math::SinOp, math::CosOp>(
          op) ||
      adjit::needsLibrary(op);
  if (!needsLibm || isa<VectorType>(op->getResult(0).getType()))
    return "";
  return adjit::libmFunction(op);
}

// The libdevice function of a scalar `op` that upstream's GPU-to-NVVM
// lowering leaves out, or "". roundeven is libdevice's rint (the default
// rounding mode rounds ties to even).
std::string libdeviceName(Operation *op) {
  if (isa<VectorType>(op->getResult(0).getType()))
    return "";
  if (isa<math::RoundEvenOp, math::CopySignOp>(op)) {
    Type element = op->getResult(0).getType();
    std::string name = isa<math::RoundEvenOp>(op) ? "__nv_rint" : "__nv_copysign";
    return element.isF32() ? name + "f" : element.isF64() ? name : "";
  }
  bool upstreamLowers = isa<math::TanOp, math::AtanOp, math::Atan2Op, math::CbrtOp>(op);
  if (!adjit::needsLibrary(op) || upstreamLowers)
    return "";
  std::string name = adjit::libmFunction(op);
  return name.empty() ? "" : "__nv_" + name;
}

// The lanes of one register of the vector function ABI's ISA `isa`.
int64_t registerLanes(char isa, Type element) {
  int64_t bits = isa == 'e' ? 512 : isa == 'b' ? 128 : 256;
  return bits / element.getIntOrFloatBitWidth();
}

// The 1-D vector type of `op`'s result and operands, where they all have
// it; n-D vectors stay with LLVM.
VectorType vectorOperandType(Operation *op) {
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  bool eachLike = llvm::all_of(op->getOperandTypes(), [&](Type t) { return t == type; });
  return type && type.getRank() == 1 && !type.isScalable() && eachLike ? type : VectorType();
}

// A pow by 0, 1, 2, -1 or 0.5 (a constant, splat or broadcast), which LLVM
// computes exactly as C's pow defines it (1, x, x * x, 1 / x, a square root)
// on vectors as on scalars.
bool isPowLlvmFolds(Operation *op) {
  if (!isa<math::PowFOp>(op))
    return false;
  Value exponent = op->getOperand(1);
  if (auto broadcast = exponent.getDefiningOp<vector::BroadcastOp>())
    exponent = broadcast.getSource();
  Attribute value;
  if (!matchPattern(exponent, m_Constant(&value)))
    return false;
  if (auto splat = dyn_cast<SplatElementsAttr>(value))
    value = splat.getSplatValue<Attribute>();
  auto number = dyn_cast<FloatAttr>(value);
  return number && llvm::is_contained({0.0, 1.0, 2.0, -1.0, 0.5}, number.getValueAsDouble());
}

struct MathToLibmPass : adjit::impl::MathToLibmBase<MathToLibmPass> {
  using MathToLibmBase::MathToLibmBase;

  void runOnOperation() override {
    if (vectorIsa.size() > 1 ||
        (vectorIsa.size() == 1 && !StringRef("bcde").contains(vectorIsa[0]))) {
      getOperation()->emitError() << "adjit-math-to-libm: vector-isa '" << vectorIsa
                                 << "' is not b, c, d or e";
      return signalPassFailure();
    }
    if (!getOperation()->hasTrait<OpTrait::SymbolTable>()) {
      getOperation()->emitError("adjit-math-to-libm runs on a symbol table (a module)");
      return signalPassFailure();
    }
    auto scalarName = deviceLibrary ? libdeviceName : libmName;
    SymbolTable symbols(getOperation());
    SmallVector<Operation *> scalars, vectors;
    getOperation()->walk([&](Operation *op) {
      // Ops of a nested symbol table (a gpu.module's kernels) call their own
      // library, declared there.
      if (op->getNumResults() != 1 ||
          op->getParentWithTrait<OpTrait::SymbolTable>() != getOperation())
        return;
      if (!scalarName(op).empty())
        scalars.push_back(op);
      else if (!vectorIsa.empty() && vectorOperandType(op) &&
               !adjit::vectorMathFunction(op).empty() && !isPowLlvmFolds(op))
        vectors.push_back(op);
    });
    for (Operation *op : scalars) {
      OpBuilder b(op);
      op->getResult(0).replaceAllUsesWith(
          callFunction(b, symbols, op->getLoc(), scalarName(op), op->getOperands()));
      op->erase();
    }
    for (Operation *op : vectors)
      callPerRegister(symbols, op);
  }

  // A call of `name` (declared on first use) on operands of one type: of a
  // func.func, or in kernels of an llvm.func, since GPU-to-NVVM gives every
  // func.func a C wrapper (`_mlir_ciface_`) that nothing would define.
  Value callFunction(OpBuilder &b, SymbolTable &symbols, Location loc, StringRef name,
                     ValueRange operands) {
    Type type = operands.front().getType();
    Operation *callee = symbols.lookup(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(b);
      // At the end of the module (before a gpu.module's terminator).
      Block &body = symbols.getOp()->getRegion(0).front();
      if (!body.empty() && body.back().hasTrait<OpTrait::IsTerminator>())
        b.setInsertionPoint(&body.back());
      else
        b.setInsertionPointToEnd(&body);
      SmallVector<Type> parameters(operands.size(), type);
      if (deviceLibrary) {
        callee = b.create<LLVM::LLVMFuncOp>(loc, name,
                                            LLVM::LLVMFunctionType::get(type, parameters));
      } else {
        auto function =
            b.create<func::FuncOp>(loc, name, b.getFunctionType(parameters, {type}));
        function.setPrivate();
        callee = function;
      }
      symbols.insert(callee);
    }
    if (deviceLibrary)
      return b.create<LLVM::CallOp>(loc, cast<LLVM::LLVMFuncOp>(callee), operands).getResult();
    return b.create<func::CallOp>(loc, cast<func::FuncOp>(callee), operands).getResult(0);
  }

  // A call of libmvec's variant per register of op's vectors
  // (`_ZGVeN8v_tanh`: ISA e, no mask, 8 lanes, one vector parameter); the
  // last register's lanes past the vector's end are ones.
  void callPerRegister(SymbolTable &symbols, Operation *op) {
    auto type = vectorOperandType(op);
    Type element = type.getElementType();
    char isa = vectorIsa[0];
    int64_t lanes = registerLanes(isa, element), length = type.getDimSize(0);
    std::string name = ("_ZGV" + Twine(isa) + "N" + Twine(lanes) +
                        std::string(op->getNumOperands(), 'v') + "_" +
                        adjit::vectorMathFunction(op))
                           .str();
    ImplicitLocOpBuilder b(op->getLoc(), op);
    Value ones;
    if (length % lanes != 0)
      ones = b.create<arith::ConstantOp>(DenseElementsAttr::get(
          VectorType::get({lanes}, element), b.getFloatAttr(element, 1.0)));
    Value result = adjit::eachRegister(
        b, op->getOperand(0), op->getOperands(),
        [&](ArrayRef<Value> parts) { return callFunction(b, symbols, op->getLoc(), name, parts); },
        lanes, ones);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
};

} // namespace
