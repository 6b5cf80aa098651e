#include "Avx512Registers.h"

#include "VectorMathLibrary.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/TargetParser/Host.h"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

namespace mlir::adjit {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using mlir::adjit::eachRegister;
using mlir::adjit::isRegistersOfF32;

namespace {

// Builds the arithmetic that the approximations share, on f32 scalars or
// vectors of the type `type`.
struct F32Arithmetic {
  ImplicitLocOpBuilder &b;
  Type type;

  Value constant(float value) {
    Attribute scalar = b.getF32FloatAttr(value);
    if (auto shaped = dyn_cast<ShapedType>(type))
      return b.create<arith::ConstantOp>(DenseElementsAttr::get(shaped, scalar));
    return b.create<arith::ConstantOp>(cast<TypedAttr>(scalar));
  }
  // x clamped to [low, high]; NaN passes (unordered comparisons keep x).
  Value clamp(Value x, float low, float high) {
    Value upper = constant(high), lower = constant(low);
    return atLeast(atMost(x, upper), lower);
  }
  Value atMost(Value x, Value upper) {
    return b.create<arith::SelectOp>(b.create<arith::CmpFOp>(arith::CmpFPredicate::ULE, x, upper),
                                     x, upper);
  }
  Value atLeast(Value x, Value lower) {
    return b.create<arith::SelectOp>(b.create<arith::CmpFOp>(arith::CmpFPredicate::UGE, x, lower),
                                     x, lower);
  }
  Value fma(Value a, float c, Value addend) {
    return b.create<math::FmaOp>(a, constant(c), addend);
  }
  Value fma(Value a, float c, float addend) {
    return b.create<math::FmaOp>(a, constant(c), constant(addend));
  }
  Value sub(float a, Value c) { return b.create<arith::SubFOp>(constant(a), c); }
  // The polynomial with these coefficients, highest degree first, at t.
  Value horner(Value t, ArrayRef<float> coefficients) {
    Value sum = constant(coefficients.front());
    for (float c : coefficients.drop_front())
      sum = b.create<math::FmaOp>(t, sum, constant(c));
    return sum;
  }
};

// tanh(x) = x * P(x^2) / Q(x^2) on x clamped to about +-8, where tanh is 1
// to f32 precision: Eigen's rational approximation of degree 13/6, as
// upstream's pattern uses it. Upstream multiplies x into P before dividing
// and so selects x itself below |x| < 4e-4, where x * P(x^2) would lose bits
// to underflow; dividing first keeps the ratio near 1 (within an ulp of
// alpha1 / beta0 for tiny x), which needs no select: three vector
// operations fewer per vector, 7% of W3's GELU pass.
struct TanhApproximation : OpRewritePattern<math::TanhOp> {
  TanhApproximation(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::TanhOp op, PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "f32 only");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Arithmetic f{b, op.getType()};
    Value x = f.clamp(op.getOperand(), -7.99881172180175781f, 7.99881172180175781f);
    Value x2 = b.create<arith::MulFOp>(x, x);
    Value p = f.horner(x2, {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                            5.12229709037114e-08f, 1.48572235717979e-05f, 6.37261928875436e-04f,
                            4.89352455891786e-03f});
    Value q = f.horner(x2, {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                            4.89352518554385e-03f});
    rewriter.replaceOp(op, b.create<arith::MulFOp>(x, b.create<arith::DivFOp>(p, q)));
    return success();
  }
};

constexpr int64_t kLanes = adjit::kZmmF32Lanes;

// y * 2^floor(k), lane by lane, with vscalefps: exact, subnormal results
// rounded, overflow to inf.
Value scaleByPowerOfTwo(ImplicitLocOpBuilder &b, Value y, Value k) {
  Value allLanes = b.create<arith::ConstantIntOp>(-1, 16);
  Value currentRounding = b.create<arith::ConstantIntOp>(4, 32); // _MM_FROUND_CUR_DIRECTION
  return eachRegister(b, y, {y, k}, [&](ArrayRef<Value> part) -> Value {
    // The op passes its operands to the intrinsic in order: (src, a, b) are
    // the value scaled, the exponents and the pass-through.
    return b.create<x86vector::MaskScaleFOp>(part[0], part[1], part[0], allLanes,
                                             currentRounding);
  });
}

// exp(x) = 2^k e^r: k = x / ln 2 rounded to the nearest integer by adding
// 1.5 * 2^23 (`shifted`, whose ulp is 1, holds k in its low bits), r = x -
// k ln 2 in two parts (Cody-Waite), and e^r - 1 = r + r^2 P(r) by Cephes'
// polynomial, as upstream's pattern has it. For |x| up to about 2^22.
struct ReducedExponential {
  Value shifted, k, expm1R;
};
constexpr float kRoundingShifter = 0x1.8p23f;

ReducedExponential reduceExponential(ImplicitLocOpBuilder &b, F32Arithmetic &f, Value x) {
  Value shifter = f.constant(kRoundingShifter);
  Value shifted = b.create<math::FmaOp>(x, f.constant(1.44269504088896341f), shifter);
  Value k = b.create<arith::SubFOp>(shifted, shifter);
  Value r = b.create<math::FmaOp>(k, f.constant(-0.693359375f), x);
  r = b.create<math::FmaOp>(k, f.constant(2.12194440e-4f), r);
  Value p = f.horner(r, {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                         4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f});
  return {shifted, k, b.create<math::FmaOp>(p, b.create<arith::MulFOp>(r, r), r)};
}

// exp(x) on AVX-512: the product 2^k e^r by vscalefps, 16 lanes at a time. vscalefps rounds subnormal
// results and overflows to inf as exp does, where upstream's pattern clamps
// k to [-127, 127], builds 2^k from its bits and flushes below about -87.7
// to 0; and it replaces the floor, the clamp of k, a conversion, a shift,
// an add and a multiply: 15 vector operations instead of 21.
struct ExpWithScalef : OpRewritePattern<math::ExpOp> {
  ExpWithScalef(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ExpOp op, PatternRewriter &rewriter) const override {
    if (!isRegistersOfF32(op.getType()))
      return rewriter.notifyMatchFailure(op, "not a vector of 16k f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Arithmetic f{b, op.getType()};
    // Beyond these bounds exp is inf or rounds to 0 anyway; within them k
    // stays far below 2^22, where adding 1.5 * 2^23 rounds to an integer.
    Value x = f.clamp(op.getOperand(), -104.0f, 89.0f);
    ReducedExponential reduced = reduceExponential(b, f, x);
    Value y = b.create<arith::AddFOp>(reduced.expm1R, f.constant(1.0f));
    rewriter.replaceOp(op, scaleByPowerOfTwo(b, y, reduced.k));
    return success();
  }
};

// sigmoid(x) as LogisticOp's scalar rule writes it, 1 / (1 + exp(-x)): its
// ops, from the negation to the division.
struct SigmoidOps {
  Operation *negation = nullptr, *exp = nullptr, *sum = nullptr;
  arith::DivFOp division;
};

// The sigmoid of x among x's users in `block`, if there is one.
std::optional<SigmoidOps> findSigmoid(Value x, Block *block) {
  auto isOne = [](Value v) { return matchPattern(v, m_OneFloat()); };
  auto inBlock = [&](Operation *op) { return op->getBlock() == block; };
  for (Operation *negation : x.getUsers()) {
    if (!isa<arith::NegFOp>(negation) || !inBlock(negation))
      continue;
    for (Operation *exp : negation->getUsers()) {
      if (!isa<math::ExpOp>(exp) || !inBlock(exp))
        continue;
      for (Operation *user : exp->getUsers()) {
        auto sum = dyn_cast<arith::AddFOp>(user);
        if (!sum || !inBlock(sum) ||
            !isOne(sum.getLhs() == exp->getResult(0) ? sum.getRhs() : sum.getLhs()))
          continue;
        for (Operation *sumUser : sum->getUsers()) {
          auto division = dyn_cast<arith::DivFOp>(sumUser);
          if (division && inBlock(division) && division.getRhs() == sum &&
              isOne(division.getLhs()))
            return SigmoidOps{negation, exp, sum, division};
        }
      }
    }
  }
  return std::nullopt;
}

// exp(-|x|) as power * (1 + expm1R), power a power of two: its two parts,
// from which 1 - e and 1 + e come without cancellation.
struct ScaledExponential {
  Value power, expm1R;
};

// On AVX-512, for vectors of 16k lanes: e = 2^(n/32) e^r with -|x| =
// n ln2/32 + r: 2^(n/32) from a table of the 32 f32 nearest 2^(j/32)
// (vpermi2ps, indexed by n's low bits where adding 1.5 * 2^18 to k = n / 32
// leaves them) scaled by vscalefps; r shifted by the table entries' own
// rounding (a second table), so that 1 - e stays accurate to an ulp of
// itself near 0, where tanh(x) ~ 1 - e; e^r - 1 by a cubic on |r| <=
// ln2/64 (relative error 1.7e-8).
ScaledExponential expOfNegAbsByTable(ImplicitLocOpBuilder &b, F32Arithmetic &f, Value negAbs) {
  auto type = cast<VectorType>(negAbs.getType());
  auto table = [&](auto entry) {
    SmallVector<float> low, high;
    for (int j = 0; j < 2 * kLanes; ++j)
      (j < kLanes ? low : high).push_back(static_cast<float>(entry(j)));
    auto registerType = VectorType::get({kLanes}, b.getF32Type());
    return std::pair<Value, Value>{
        b.create<arith::ConstantOp>(DenseElementsAttr::get(registerType, ArrayRef(low))),
        b.create<arith::ConstantOp>(DenseElementsAttr::get(registerType, ArrayRef(high)))};
  };
  auto tableEntry = [](int j) { return static_cast<float>(std::exp2(j / 32.0)); };
  auto powers = table(tableEntry);
  auto offsets = table([&](int j) {
    return std::log(static_cast<double>(tableEntry(j))) - j * std::numbers::ln2 / 32;
  });
  auto lookUp = [&](std::pair<Value, Value> entries, Value index) {
    return eachRegister(b, negAbs, {index}, [&](ArrayRef<Value> part) -> Value {
      return b.create<LLVM::CallIntrinsicOp>(
                  VectorType::get({kLanes}, b.getF32Type()),
                  "llvm.x86.avx512.vpermi2var.ps.512",
                  ValueRange{entries.first, part[0], entries.second})
          .getResult(0);
    });
  };

  // k = n / 32 in `shifted`, whose ulp is 1/32: n in its low bits, and k
  // one subtraction away.
  constexpr float shifter = 0x1.8p18f;
  Value shifted = f.fma(negAbs, static_cast<float>(1 / std::numbers::ln2), shifter);
  Value k = b.create<arith::SubFOp>(shifted, f.constant(shifter));
  Value index = b.create<arith::BitcastOp>(
      VectorType::get(type.getShape(), b.getI32Type()), shifted);
  // r = -|x| - k ln2 - offset: the low part of k ln2 joins the offset
  // beside the exact high part, not after it. Each step of a chain shorter
  // counts: the loop around these waits on its dependence chains.
  Value r = b.create<arith::SubFOp>(f.fma(k, -0.693359375f, negAbs),
                                    f.fma(k, -2.12194440e-4f, lookUp(offsets, index)));
  Value expm1R = b.create<math::FmaOp>(b.create<arith::MulFOp>(r, r),
                                       f.fma(r, 1.666671336e-1f, 5.000036955e-1f), r);
  return {scaleByPowerOfTwo(b, lookUp(powers, index), k), expm1R}; // 2^(n/32), exact
}

// Elsewhere (AVX2, scalars): e = 2^k e^r reduced as exp is
// (reduceExponential), 2^k from its bits as the product of two normal
// powers of two, so that the product rounds e^-|x|
// below 2^-126 to its subnormal value, as exp does. Only arithmetic that
// every vector ISA has: no tables, no scalef.
ScaledExponential expOfNegAbsByBits(ImplicitLocOpBuilder &b, F32Arithmetic &f, Value negAbs) {
  Type i32 = b.getI32Type();
  auto shaped = dyn_cast<ShapedType>(negAbs.getType());
  Type intType = shaped ? shaped.clone(i32) : i32;
  auto intConstant = [&](int32_t value) -> Value {
    Attribute scalar = b.getI32IntegerAttr(value);
    if (shaped)
      return b.create<arith::ConstantOp>(DenseElementsAttr::get(cast<ShapedType>(intType), scalar));
    return b.create<arith::ConstantOp>(cast<TypedAttr>(scalar));
  };
  ReducedExponential reduced = reduceExponential(b, f, negAbs); // k in [-150, 0]
  // k as an integer: the low bits of `shifted`.
  Value n = b.create<arith::SubIOp>(b.create<arith::BitcastOp>(intType, reduced.shifted),
                                    intConstant(std::bit_cast<int32_t>(kRoundingShifter)));
  auto powerOfTwo = [&](Value exponent) -> Value {
    return b.create<arith::BitcastOp>(
        negAbs.getType(), b.create<arith::ShLIOp>(b.create<arith::AddIOp>(exponent, intConstant(127)),
                                             intConstant(23)));
  };
  Value half = b.create<arith::ShRSIOp>(n, intConstant(1));
  Value power = b.create<arith::MulFOp>(powerOfTwo(half),
                                        powerOfTwo(b.create<arith::SubIOp>(n, half)));
  return {power, reduced.expm1R};
}

// 1 / d for f32 vectors. With `byNewtonStep`, on AVX-512 registers:
// vrcp14ps's estimate r (relative error below 2^-14) and a Newton step,
// r + r (1 - d r), whose error is the square of the estimate's before its
// last rounding: the division's result or an ulp from it, for a normal d
// whose reciprocal is normal. Three vector operations where a 16-lane
// vdivps holds Intel's divider for 10 cycles, the time of 20 FMAs.
Value reciprocal(ImplicitLocOpBuilder &b, F32Arithmetic &f, Value d, bool byNewtonStep) {
  Value one = f.constant(1.0f);
  if (!byNewtonStep || !isRegistersOfF32(d.getType()))
    return b.create<arith::DivFOp>(one, d);
  Value allLanes = b.create<arith::ConstantIntOp>(-1, 16);
  Value estimate = eachRegister(b, d, {d}, [&](ArrayRef<Value> part) -> Value {
    return b.create<LLVM::CallIntrinsicOp>(VectorType::get({kLanes}, b.getF32Type()),
                                           "llvm.x86.avx512.rcp14.ps.512",
                                           ValueRange{part[0], part[0], allLanes})
        .getResult(0);
  });
  Value residual = b.create<math::FmaOp>(b.create<arith::NegFOp>(d), estimate, one);
  return b.create<math::FmaOp>(residual, estimate, estimate);
}

// tanh(x) and sigmoid(x) of one operand share one exponential, as sin and
// cos of one operand share a sincos. Both follow from e = exp(-|x|) in
// (0, 1], 1 - e and 1 + e, each computed without cancellation:
//   tanh(|x|) = (1 - e^2) / (1 + e^2) = u / (1 + e^2), u = (1 - e) (1 + e);
//   sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below.
// With the table (AVX-512): 12 multiplies, FMAs or scalefs and 2 divisions
// for both functions, where tanh's rational polynomial and sigmoid's exp
// take 21 and the same 2 divisions; measured on 47M points over all f32:
// tanh within 3.5 ulp (the rational polynomial: 4.9), sigmoid within 2.9.
// Without it, 16 multiplies or FMAs instead of 22 (the rational polynomial
// and upstream's exp), and over 23M points with |x| < 112, tanh within 3.1
// ulp, sigmoid within 2.3.
// With `oneDivision` the two also share one division, by the product of
// both denominators (in [1, 4]: no overflow), for 4 multiplies more and
// about 2 ulp (the math test: tanh 5.6, sigmoid 3.8; relative 3.3e-7 and
// 2.6e-7): where a division holds the divider for 20 FMA slots (Intel),
// W1's value and gradient took 0.83-0.94 of the time; on Zen 5, where it
// holds it for 5, a C prototype was 1.08x slower (its chain is longer).
// With `byNewtonStep` as well, that division is `reciprocal`'s Newton step.
void shareExponential(math::TanhOp tanh, bool avx512, bool oneDivision, bool byNewtonStep) {
  Value x = tanh.getOperand();
  auto vector = dyn_cast<VectorType>(x.getType());
  if (!getElementTypeOrSelf(x.getType()).isF32() ||
      (vector && (vector.getRank() != 1 || vector.isScalable())))
    return;
  std::optional<SigmoidOps> sigmoid = findSigmoid(x, tanh->getBlock());
  if (!sigmoid)
    return;
  Operation *first =
      sigmoid->negation->isBeforeInBlock(tanh) ? sigmoid->negation : tanh.getOperation();

  IRRewriter rewriter(tanh.getContext());
  rewriter.setInsertionPoint(first);
  ImplicitLocOpBuilder b(tanh.getLoc(), rewriter);
  F32Arithmetic f{b, x.getType()};
  // -|x|, where e^-|x| is 0 in f32 below -104 (and k stays small).
  Value negAbs =
      f.atLeast(b.create<arith::NegFOp>(b.create<math::AbsFOp>(x)), f.constant(-104.0f));
  auto [power, expm1R] = avx512 && isRegistersOfF32(x.getType())
                             ? expOfNegAbsByTable(b, f, negAbs)
                             : expOfNegAbsByBits(b, f, negAbs);
  // e, 1 - e and 1 + e, each from e^r - 1 directly; 1 + e^2 from e.
  Value e = b.create<math::FmaOp>(power, expm1R, power);
  Value m = b.create<math::FmaOp>(b.create<arith::NegFOp>(power), expm1R, f.sub(1.0f, power));
  Value onePlusE = b.create<math::FmaOp>(
      power, expm1R, b.create<arith::AddFOp>(f.constant(1.0f), power));
  Value u = b.create<arith::MulFOp>(m, onePlusE);
  Value onePlusESquared = b.create<math::FmaOp>(e, e, f.constant(1.0f));
  auto sigmoidNumerator = [&] {
    return b.create<arith::SelectOp>(
        b.create<arith::CmpFOp>(arith::CmpFPredicate::OLT, x, f.constant(0.0f)), e,
        f.constant(1.0f));
  };
  Value tanhResult, sigmoidResult;
  if (oneDivision) {
    Value inverse = reciprocal(b, f, b.create<arith::MulFOp>(onePlusE, onePlusESquared),
                               byNewtonStep);
    tanhResult = b.create<arith::MulFOp>(
        b.create<math::CopySignOp>(b.create<arith::MulFOp>(u, onePlusE), x), inverse);
    sigmoidResult = b.create<arith::MulFOp>(
        b.create<arith::MulFOp>(sigmoidNumerator(), onePlusESquared), inverse);
  } else {
    tanhResult = b.create<arith::DivFOp>(b.create<math::CopySignOp>(u, x), onePlusESquared);
    sigmoidResult = b.create<arith::DivFOp>(sigmoidNumerator(), onePlusE);
  }

  rewriter.replaceOp(tanh, tanhResult);
  rewriter.replaceOp(sigmoid->division, sigmoidResult);
  for (Operation *op : {sigmoid->sum, sigmoid->exp, sigmoid->negation})
    if (op->use_empty())
      rewriter.eraseOp(op);
}

// sin and cos of f32 vectors. sin(|x|) and cos(|x|) from r = |x| - k pi/2,
// k = round(|x| 2/pi): pi/2 in three f32 parts P1 + P2 + P3 (72 bits),
// subtracted with FMAs (Cody-Waite). |x| - k P1 is then exact, as is most
// of the next step, so r is accurate to an ulp of itself even next to a
// zero of sin or cos, for |x| up to kExactRange (k < 2^16; the product
// |x| 2/pi is off by less than 2^-7, so |r| stays within pi/4 + 0.013,
// where the polynomials still hold). Cephes' polynomials on [-pi/4, pi/4]
// give sin(r) and cos(r); k's last two bits pick one and its sign, and sin
// takes x's sign (sin(-0) = -0). Lanes beyond kExactRange, infinities and
// NaN take libm's sinf or cosf instead, as scalars do: a vector with such a
// lane calls the runtime once (adjit/runtime/MathLanes.h) on a stack buffer
// and keeps libm's result for those lanes only, so that each lane's result
// depends on its own input alone, not on its neighbours in the vector. The
// branch is one compare and a mask test per vector.
constexpr float kExactRange = 1.0e5f;

// `void name(i64 address, i64 count)` of the runtime, declared in `module`.
func::FuncOp declareLanesFunction(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  auto b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto function = b.create<func::FuncOp>(module.getLoc(), name, b.getFunctionType({i64, i64}, {}));
  function.setPrivate();
  return function;
}

// Beyond this many vector sin and cos in a module, each calls a function of
// its own instead of having its code inlined.
constexpr int64_t kMaxInlinedSinCos = 64;

// sin or cos of `x` (a vector of f32) as described above.
Value sinCos(ImplicitLocOpBuilder &b, Value x, bool isSin, Value buffer,
             func::FuncOp lanesFunction) {
  auto type = cast<VectorType>(x.getType());
  F32Arithmetic f{b, type};
  auto intType = VectorType::get(type.getShape(), b.getI32Type());
  auto intConstant = [&](int32_t value) -> Value {
    return b.create<arith::ConstantOp>(DenseElementsAttr::get(intType, b.getI32IntegerAttr(value)));
  };

  Value magnitude = b.create<math::AbsFOp>(x);
  Value beyond = b.create<arith::CmpFOp>(arith::CmpFPredicate::UGT, magnitude, f.constant(kExactRange));
  Value outside = b.create<vector::ReductionOp>(vector::CombiningKind::OR, beyond);
  // The polynomials' result, for every lane.
  Value k = b.create<math::RoundEvenOp>(
      b.create<arith::MulFOp>(magnitude, f.constant(0.636619746685028076f)));
  Value r = f.fma(k, -1.57079637050628662f, magnitude);
  r = b.create<math::FmaOp>(k, f.constant(4.37113882867379300e-8f), r);
  r = b.create<math::FmaOp>(k, f.constant(1.71512451000588190e-15f), r);
  Value z = b.create<arith::MulFOp>(r, r);
  Value sinR = b.create<math::FmaOp>(
      b.create<arith::MulFOp>(r, z),
      f.horner(z, {-1.9515295891e-4f, 8.3321608736e-3f, -1.6666654611e-1f}), r);
  Value cosR = b.create<math::FmaOp>(
      b.create<arith::MulFOp>(z, z),
      f.horner(z, {2.443315711809948e-5f, -1.388731625493765e-3f, 4.166664568298827e-2f}),
      f.fma(z, -0.5f, 1.0f));
  // The quadrant of |x|: cos(y) = sin(y + pi/2) is one quadrant on.
  Value quadrant = b.create<arith::FPToSIOp>(intType, k);
  if (!isSin)
    quadrant = b.create<arith::AddIOp>(quadrant, intConstant(1));
  Value odd = b.create<arith::CmpIOp>(arith::CmpIPredicate::ne,
                                      b.create<arith::AndIOp>(quadrant, intConstant(1)),
                                      intConstant(0));
  Value value = b.create<arith::SelectOp>(odd, cosR, sinR);
  Value sign = b.create<arith::ShLIOp>(b.create<arith::AndIOp>(quadrant, intConstant(2)),
                                       intConstant(30));
  if (isSin)  // sin(x) = sign(x) sin(|x|)
    sign = b.create<arith::XOrIOp>(
        sign, b.create<arith::AndIOp>(b.create<arith::BitcastOp>(intType, x),
                                      intConstant(std::numeric_limits<int32_t>::min())));
  Value approximated = b.create<arith::BitcastOp>(
      type, b.create<arith::XOrIOp>(b.create<arith::BitcastOp>(intType, value), sign));

  auto lanesByLibm = [&](OpBuilder &builder, Location loc) {
    ImplicitLocOpBuilder lb(loc, builder);
    Value zero = lb.create<arith::ConstantIndexOp>(0);
    lb.create<vector::StoreOp>(x, buffer, ValueRange{zero});
    Value address = lb.create<arith::IndexCastOp>(
        lb.getI64Type(), lb.create<memref::ExtractAlignedPointerAsIndexOp>(buffer));
    Value count = lb.create<arith::ConstantIntOp>(type.getDimSize(0), 64);
    lb.create<func::CallOp>(lanesFunction, ValueRange{address, count});
    Value libm = lb.create<vector::LoadOp>(type, buffer, ValueRange{zero});
    lb.create<scf::YieldOp>(ValueRange{lb.create<arith::SelectOp>(beyond, libm, approximated)});
  };
  return b
      .create<scf::IfOp>(outside, lanesByLibm,
                         [&](OpBuilder &builder, Location loc) {
                           builder.create<scf::YieldOp>(loc, approximated);
                         })
      .getResult(0);
}

// `x -> sin(x)` (or cos) for vectors of `type`, a private function of the
// module that every vector sin (or cos) of that type calls. LLVM inlines it
// (always_inline) unless the module has more than kMaxInlinedSinCos of them
// (no_inline). Either way each caller's block stays whole: with the branch
// in the caller, lowering its scf.if to blocks moved every later op of the
// block once per sin or cos, quadratic in their number (a chain of 2000
// ops, a third of them sin: 1.4 of 1.9 s of MLIR), and LLVM's code
// generation of thousands of inlined copies grew as fast (2000 sins: 3.4 s).
func::FuncOp sinCosFunction(ModuleOp module, bool isSin, VectorType type, bool inlined) {
  std::string name =
      (Twine("adjit_") + (isSin ? "sin" : "cos") + "f_v" + Twine(type.getDimSize(0))).str();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  func::FuncOp lanesFunction =
      declareLanesFunction(module, isSin ? "adjit_sinf_lanes" : "adjit_cosf_lanes");
  auto b = ImplicitLocOpBuilder::atBlockEnd(module.getLoc(), module.getBody());
  auto function = b.create<func::FuncOp>(name, b.getFunctionType({type}, {type}));
  function.setPrivate();
  function->setAttr(inlined ? "always_inline" : "no_inline", b.getUnitAttr());
  b.setInsertionPointToStart(function.addEntryBlock());
  // A stack buffer in the entry block, which LLVM's inliner moves into the
  // caller's: once per function (or per OpenMP region, whose threads each
  // need their own), not per iteration of a loop.
  Value buffer = b.create<memref::AllocaOp>(MemRefType::get(type.getShape(), type.getElementType()));
  b.create<func::ReturnOp>(sinCos(b, function.getArgument(0), isSin, buffer, lanesFunction));
  return function;
}

// Upstream's f32 erf polynomial works on |x| and gives +0 for -0; erf is odd
// and keeps its argument's sign (libm, and the f64 path, give -0).
void keepSignOfErf(Operation *root) {
  root->walk([](math::ErfOp op) {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    auto signed_ = b.create<math::CopySignOp>(op.getLoc(), op.getResult(), op.getOperand());
    op.getResult().replaceAllUsesExcept(signed_, signed_);
  });
}

} // namespace

bool mlir::adjit::dividesSlowly(StringRef cpu) {
  static const std::string host = llvm::sys::getHostCPUName().str();
  return !(cpu.empty() ? StringRef(host) : cpu).starts_with("znver");
}

namespace {
struct ApproximateMathPass
    : adjit::impl::ApproximateMathBase<ApproximateMathPass> {
  using ApproximateMathBase::ApproximateMathBase;

  void runOnOperation() override {
    SmallVector<math::TanhOp> tanhs;
    getOperation()->walk([&](math::TanhOp op) { tanhs.push_back(op); });
    for (math::TanhOp op : tanhs)
      shareExponential(op, avx512, oneDivision, reciprocalByNewtonStep);
    SmallVector<Operation *> sinCos;
    getOperation()->walk([&](Operation *op) {
      if (!isa<math::SinOp, math::CosOp>(op))
        return;
      auto type = dyn_cast<VectorType>(op->getResult(0).getType());
      if (type && type.getRank() == 1 && !type.isScalable() && type.getElementType().isF32())
        sinCos.push_back(op);
    });
    bool inlined = static_cast<int64_t>(sinCos.size()) <= kMaxInlinedSinCos;
    for (Operation *op : sinCos) {
      OpBuilder b(op);
      func::FuncOp function =
          sinCosFunction(getOperation(), isa<math::SinOp>(op),
                         cast<VectorType>(op->getResult(0).getType()), inlined);
      op->replaceAllUsesWith(b.create<func::CallOp>(op->getLoc(), function, op->getOperands()));
      op->erase();
    }
    keepSignOfErf(getOperation());
    RewritePatternSet patterns(&getContext());
    // The patterns only match f32 (and f16 through f32), never f64.
    populateMathPolynomialApproximationPatterns(patterns);
    patterns.add<TanhApproximation>(&getContext());
    if (avx512)
      patterns.add<ExpWithScalef>(&getContext());
    // Only the functions whose polynomials meet adjit's accuracy
    // (VectorMathLibrary.cpp); the others stay for libmvec or libm. Scalar
    // sin and cos (and the lanes above) are left to libm too: the upstream
    // polynomials reduce the argument with a single f32 constant for pi/2
    // and lose all accuracy for |x| beyond ~100 and for small negative x.
    SmallVector<Operation *> approximated;
    getOperation()->walk([&](Operation *op) {
      if (adjit::hasF32Polynomial(op) && !isa<math::SinOp, math::CosOp>(op))
        approximated.push_back(op);
    });
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (failed(applyOpPatternsAndFold(approximated, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
