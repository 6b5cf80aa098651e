// adjit-avx512-min-max: vector maximumf and minimumf of f32 and f64 with
// vrangeps and vrangepd (see the pass description in Passes.td).

#include "Avx512Registers.h"
#include "ExpandMinMax.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_AVX512MINMAX
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// vrangeps's control: bits 1:0 choose min (0) or max (1), bits 3:2 = 01
// take the sign from the comparison's result, so that +0 > -0.
constexpr int32_t kRangeMin = 0b0100, kRangeMax = 0b0101;

// IEEE 754-2019 maximum (minimum) of two vectors: vrangeps (vrangepd)
// orders signed zeros as these do, but returns the other operand for a
// quiet NaN, so lanes where either is NaN take their sum, a NaN.
Value exactMinMax(ImplicitLocOpBuilder &b, Value x, Value y, bool maximum) {
  Type element = cast<VectorType>(x.getType()).getElementType();
  int64_t lanes = adjit::zmmLanes(element);
  Value allLanes = b.create<arith::ConstantIntOp>(-1, lanes);
  Value control = b.create<arith::ConstantIntOp>(maximum ? kRangeMax : kRangeMin, 32);
  Value currentRounding = b.create<arith::ConstantIntOp>(4, 32); // _MM_FROUND_CUR_DIRECTION
  StringRef intrinsic = element.isF32() ? "llvm.x86.avx512.mask.range.ps.512"
                                        : "llvm.x86.avx512.mask.range.pd.512";
  Value ranged = adjit::eachRegister(b, x, {x, y}, [&](ArrayRef<Value> part) -> Value {
    return b.create<LLVM::CallIntrinsicOp>(
                VectorType::get({lanes}, element), intrinsic,
                ValueRange{part[0], part[1], control, part[0], allLanes, currentRounding})
        .getResult(0);
  });
  Value unordered = b.create<arith::CmpFOp>(arith::CmpFPredicate::UNO, x, y);
  return b.create<arith::SelectOp>(unordered, b.create<arith::AddFOp>(x, y), ranged);
}

// Whether `acc` is a reduction loop's accumulator that is never NaN: an
// scf.for iter_arg that starts from a constant without NaN and that the
// loop advances with `op` alone.
bool isNanFreeAccumulator(Value acc, Operation *op) {
  auto arg = dyn_cast<BlockArgument>(acc);
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!loop || arg.getArgNumber() == 0)
    return false;
  unsigned k = arg.getArgNumber() - 1;
  DenseFPElementsAttr start;
  if (loop.getYieldedValues()[k] != op->getResult(0) ||
      !matchPattern(loop.getInitArgs()[k], m_Constant(&start)))
    return false;
  return llvm::none_of(start.getValues<APFloat>(), [](const APFloat &v) { return v.isNaN(); });
}

// A NaN-skipping max or min (maxnumf, minnumf) that advances a NaN-free
// accumulator: vmaxps (vminps) with the accumulator second, which it
// returns where the element is NaN. LLVM's lowering of maxnum adds a
// compare and a blend for a NaN accumulator.
Value accumulatingMinMax(ImplicitLocOpBuilder &b, Value element, Value acc, bool maximum) {
  Type type = cast<VectorType>(acc.getType()).getElementType();
  StringRef intrinsic = type.isF32() ? (maximum ? "llvm.x86.avx512.max.ps.512"
                                                : "llvm.x86.avx512.min.ps.512")
                                     : (maximum ? "llvm.x86.avx512.max.pd.512"
                                                : "llvm.x86.avx512.min.pd.512");
  Value currentRounding = b.create<arith::ConstantIntOp>(4, 32); // _MM_FROUND_CUR_DIRECTION
  return adjit::eachRegister(b, acc, {element, acc}, [&](ArrayRef<Value> part) -> Value {
    return b.create<LLVM::CallIntrinsicOp>(part[0].getType(), intrinsic,
                                           ValueRange{part[0], part[1], currentRounding})
        .getResult(0);
  });
}

struct Avx512MinMaxPass : adjit::impl::Avx512MinMaxBase<Avx512MinMaxPass> {
  using Avx512MinMaxBase::Avx512MinMaxBase;

  void runOnOperation() override {
    adjit::expandMinMax(
        getOperation(),
        [](Operation *op) { return adjit::isRegistersOfF32OrF64(op->getResult(0).getType()); },
        exactMinMax);
    SmallVector<std::pair<Operation *, unsigned>> accumulating; // the op, its accumulator
    getOperation()->walk([&](Operation *op) {
      if (!isa<arith::MaxNumFOp, arith::MinNumFOp>(op) ||
          !adjit::isRegistersOfF32OrF64(op->getResult(0).getType()))
        return;
      for (unsigned i : {0u, 1u})
        if (isNanFreeAccumulator(op->getOperand(i), op)) {
          accumulating.emplace_back(op, i);
          return;
        }
    });
    for (auto [op, i] : accumulating) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      op->getResult(0).replaceAllUsesWith(accumulatingMinMax(
          b, op->getOperand(1 - i), op->getOperand(i), isa<arith::MaxNumFOp>(op)));
      op->erase();
    }
  }
};

} // namespace
