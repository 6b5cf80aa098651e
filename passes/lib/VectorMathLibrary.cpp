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
                       .Default([](Operation *) { return ""; });
  if (base.empty())
    return "";
  return element.isF32() ? (base + "f").str() : base.str();
}

std::string adjit::vectorMathFunction(Operation *op) {
  // f32's other functions have polynomials of adjit-approximate-math. Every
  // f64 one is in glibc 2.35's libmvec, in each of its ISA variants.
  if (op->getNumResults() == 1 && getElementTypeOrSelf(op->getResult(0).getType()).isF32() &&
      !isa<math::PowFOp>(op))
    return "";
  return libmFunction(op);
}
