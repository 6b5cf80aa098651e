#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

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
    x = b.create<arith::SelectOp>(b.create<arith::CmpFOp>(arith::CmpFPredicate::ULE, x, upper),
                                  x, upper);
    return b.create<arith::SelectOp>(
        b.create<arith::CmpFOp>(arith::CmpFPredicate::UGE, x, lower), x, lower);
  }
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

// exp(x) = 2^k e^r on AVX-512, with k = x / ln 2 rounded to the nearest
// integer by adding 1.5 * 2^23, r = x - k ln 2 in two parts (Cody-Waite),
// e^r by Cephes' polynomial as upstream's pattern has it, and the product
// 2^k e^r by vscalefps, 16 lanes at a time. vscalefps rounds subnormal
// results and overflows to inf as exp does, where upstream's pattern clamps
// k to [-127, 127], builds 2^k from its bits and flushes below about -87.7
// to 0; and it replaces the floor, the clamp of k, a conversion, a shift,
// an add and a multiply: 15 vector operations instead of 21.
struct ExpWithScalef : OpRewritePattern<math::ExpOp> {
  static constexpr int64_t kLanes = 16; // f32 lanes of vscalefps

  ExpWithScalef(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ExpOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.isScalable() || !type.getElementType().isF32() ||
        type.getDimSize(0) % kLanes != 0)
      return rewriter.notifyMatchFailure(op, "not a vector of 16k f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Arithmetic f{b, type};
    // Beyond these bounds exp is inf or rounds to 0 anyway; within them k
    // stays far below 2^22, where adding 1.5 * 2^23 rounds to an integer.
    Value x = f.clamp(op.getOperand(), -104.0f, 89.0f);
    Value shifter = f.constant(0x1.8p23f);
    Value k = b.create<arith::SubFOp>(
        b.create<math::FmaOp>(x, f.constant(1.44269504088896341f), shifter), shifter);
    Value r = b.create<math::FmaOp>(k, f.constant(-0.693359375f), x);
    r = b.create<math::FmaOp>(k, f.constant(2.12194440e-4f), r);
    Value p = f.horner(r, {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                           4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f});
    Value y = b.create<arith::AddFOp>(
        b.create<math::FmaOp>(p, b.create<arith::MulFOp>(r, r), r), f.constant(1.0f));

    Value allLanes = b.create<arith::ConstantIntOp>(-1, 16);
    Value currentRounding = b.create<arith::ConstantIntOp>(4, 32); // _MM_FROUND_CUR_DIRECTION
    Value result = y;
    for (int64_t lane = 0; lane < type.getDimSize(0); lane += kLanes) {
      auto part = [&](Value v) -> Value {
        if (type.getDimSize(0) == kLanes)
          return v;
        return b.create<vector::ExtractStridedSliceOp>(v, ArrayRef<int64_t>{lane},
                                                       ArrayRef<int64_t>{kLanes},
                                                       ArrayRef<int64_t>{1});
      };
      Value yPart = part(y), kPart = part(k);
      // The op passes its operands to the intrinsic in order: (src, a, b) are
      // the value scaled, the exponents and the pass-through.
      Value scaled = b.create<x86vector::MaskScaleFOp>(yPart, kPart, yPart, allLanes,
                                                       currentRounding);
      result = type.getDimSize(0) == kLanes
                   ? scaled
                   : b.create<vector::InsertStridedSliceOp>(scaled, result,
                                                            ArrayRef<int64_t>{lane},
                                                            ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ApproximateMathPass
    : adjit::impl::ApproximateMathBase<ApproximateMathPass> {
  using ApproximateMathBase::ApproximateMathBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The patterns only match f32 (and f16 through f32), never f64.
    populateMathPolynomialApproximationPatterns(patterns);
    patterns.add<TanhApproximation>(&getContext());
    if (avx512)
      patterns.add<ExpWithScalef>(&getContext());
    // sin and cos are left to libm: the upstream polynomials reduce the
    // argument with a single f32 constant for pi/2 and lose all accuracy
    // for |x| beyond ~100 and for small negative x.
    SmallVector<Operation *> approximated;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) && !isa<math::SinOp, math::CosOp>(op))
        approximated.push_back(op);
    });
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (failed(applyOpPatternsAndFold(approximated, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
