#include "VectorMathLibrary.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

std::string adjit::libmFunction(Operation *op) {
  if (op->getNumResults() != 1)
    return "";
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (!element.isF32() && !element.isF64())
    return "";
  StringRef base = TypeSwitch<Operation *, StringRef>(op)
                       .Case([](math::ExpOp) { return "exp"; })
                       .Case([](math::ExpM1Op) { return "expm1"; })
                       .Case([](math::LogOp) { return "log"; })
                       .Case([](math::Log1pOp) { return "log1p"; })
                       .Case([](math::Log2Op) { return "log2"; })
                       .Case([](math::PowFOp) { return "pow"; })
                       .Case([](math::TanhOp) { return "tanh"; })
                       .Case([](math::ErfOp) { return "erf"; })
                       .Case([](math::SinOp) { return "sin"; })
                       .Case([](math::CosOp) { return "cos"; })
                       .Case([](math::AtanOp) { return "atan"; })
                       .Case([](math::Atan2Op) { return "atan2"; })
                       .Case([](math::CbrtOp) { return "cbrt"; })
                       .Case([](math::TanOp) { return "tan"; })
                       .Case([](math::AsinOp) { return "asin"; })
                       .Case([](math::AcosOp) { return "acos"; })
                       .Case([](math::SinhOp) { return "sinh"; })
                       .Case([](math::CoshOp) { return "cosh"; })
                       .Case([](math::AsinhOp) { return "asinh"; })
                       .Case([](math::AcoshOp) { return "acosh"; })
                       .Case([](math::AtanhOp) { return "atanh"; })
                       .Default([](Operation *) { return ""; });
  if (base.empty())
    return "";
  return element.isF32() ? (base + "f").str() : base.str();
}

// Upstream's f32 polynomials of atan (40 ulp), atan2 (the same, and the
// wrong sign for y = -0 or x = -inf), cbrt (12 ulp) and asin (0.09 at
// x = -1) miss adjit's 4 ulp (test_compiler_math_accuracy.cpp): libmvec
// computes those.
bool adjit::hasF32Polynomial(Operation *op) {
  return isa<math::TanhOp, math::ErfOp, math::ExpM1Op, math::Log1pOp, math::ExpOp, math::LogOp,
             math::Log2Op, math::SinOp, math::CosOp>(op);
}

bool adjit::needsLibrary(Operation *op) {
  return isa<math::TanOp, math::AsinOp, math::AcosOp, math::AtanOp, math::Atan2Op,
             math::SinhOp, math::CoshOp, math::AsinhOp, math::AcoshOp, math::AtanhOp,
             math::CbrtOp>(op);
}

std::string adjit::vectorMathFunction(Operation *op) {
  // f32 functions with a polynomial of adjit-approximate-math use it. Every
  // other function here is in glibc 2.35's libmvec, in each of its ISA
  // variants.
  if (op->getNumResults() == 1 && getElementTypeOrSelf(op->getResult(0).getType()).isF32() &&
      hasF32Polynomial(op))
    return "";
  return libmFunction(op);
}
