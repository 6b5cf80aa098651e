#ifndef ADJIT_OPS_TD
#define ADJIT_OPS_TD

include "adjit/Dialect/AdjitDialect.td"
include "adjit/Dialect/AdjitInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Adjit_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::adjit";
}

def Adjit_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::adjit";
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

def Adjit_ConstantOp : Adjit_Op<"constant", [ConstantLike, Pure, NotDifferentiable,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor literal";
  let description = [{
    A dense or splat tensor literal.

    Not differentiable (a constant).

    ```mlir
    %c = adjit.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Adjit_IotaOp : Adjit_Op<"iota", [Pure, NotDifferentiable]> {
  let summary = "0, 1, 2, ... along one dimension";
  let description = [{
    Fills the result with its index along `dim`, broadcast over the others.

    Not differentiable (a constant).

    ```mlir
    %i = adjit.iota dim = 1 : tensor<2x3xi32>   // [[0, 1, 2], [0, 1, 2]]
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops state their scalar function (ElementwiseOpInterface,
// dialects/lib/ScalarRules.cpp); the lowering to linalg reads it from there.
//===----------------------------------------------------------------------===//

// (No upstream Elementwise trait: each op's own verifier names both shapes.)
defvar Adjit_Elementwise = [DeclareOpInterfaceMethods<ElementwiseOpInterface>];
// Select and convert see half-precision operands as they are.
defvar Adjit_ElementwiseExact = [
    DeclareOpInterfaceMethods<ElementwiseOpInterface, ["widensHalfPrecision"]>];

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Adjit_UnaryOp<string mnemonic, TypeConstraint tensorType,
                    string formula, string derivative>
    : Adjit_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
        DeclareOpInterfaceMethods<DifferentiableOpInterface>], Adjit_Elementwise)> {
  let summary = "elementwise " # formula;
  let description = [{
    Elementwise `}] # formula # [{` on a tensor.

    Derivative: }] # derivative # [{.

    ```mlir
    %y = adjit.}] # mnemonic # [{ %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins tensorType:$operand);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Adjit_NegOp : Adjit_UnaryOp<"neg", Adjit_NumericTensor, "-x",
    "-1">;
def Adjit_AbsOp : Adjit_UnaryOp<"abs", Adjit_NumericTensor, "|x|",
    "sign(x)">;
def Adjit_SignOp : Adjit_UnaryOp<"sign", Adjit_NumericTensor,
    "sign(x) in {-1, 0, 1} (NaN stays NaN, zeros keep their sign)",
    "0 (almost everywhere)">;
def Adjit_ReluOp : Adjit_UnaryOp<"relu", Adjit_NumericTensor,
    "max(x, 0) (NaN stays NaN, -0 gives +0)",
    "1 where the result y > 0, else 0: 0 at x = 0, as JAX, TensorFlow and "
    "PyTorch have it (`adjit.max` would split the tie). Reading y rather "
    "than x, the backward pass keeps only the activation a following layer "
    "keeps anyway">;
def Adjit_ExpOp : Adjit_UnaryOp<"exp", Adjit_FloatTensor, "e^x",
    "e^x (the result)">;
def Adjit_Expm1Op : Adjit_UnaryOp<"expm1", Adjit_FloatTensor, "e^x - 1",
    "e^x = y + 1">;
def Adjit_LogOp : Adjit_UnaryOp<"log", Adjit_FloatTensor, "ln(x)",
    "1 / x">;
def Adjit_Log1pOp : Adjit_UnaryOp<"log1p", Adjit_FloatTensor, "ln(1 + x)",
    "1 / (1 + x)">;
def Adjit_SqrtOp : Adjit_UnaryOp<"sqrt", Adjit_FloatTensor, "sqrt(x)",
    "1 / (2 y)">;
def Adjit_RsqrtOp : Adjit_UnaryOp<"rsqrt", Adjit_FloatTensor, "1 / sqrt(x)",
    "-y / (2 x)">;
def Adjit_SinOp : Adjit_UnaryOp<"sin", Adjit_FloatTensor, "sin(x)",
    "cos(x)">;
def Adjit_CosOp : Adjit_UnaryOp<"cos", Adjit_FloatTensor, "cos(x)",
    "-sin(x)">;
def Adjit_TanhOp : Adjit_UnaryOp<"tanh", Adjit_FloatTensor, "tanh(x)",
    "1 - y^2">;
def Adjit_LogisticOp : Adjit_UnaryOp<"logistic", Adjit_FloatTensor,
    "1 / (1 + e^-x)",
    "y (1 - y)">;
def Adjit_ErfOp : Adjit_UnaryOp<"erf", Adjit_FloatTensor, "erf(x)",
    "2 / sqrt(pi) e^(-x^2)">;
def Adjit_FloorOp : Adjit_UnaryOp<"floor", Adjit_FloatTensor, "floor(x)",
    "0 (almost everywhere)">;
def Adjit_CeilOp : Adjit_UnaryOp<"ceil", Adjit_FloatTensor, "ceil(x)",
    "0 (almost everywhere)">;
def Adjit_RoundOp : Adjit_UnaryOp<"round", Adjit_FloatTensor,
    "x rounded to the nearest integer, ties to even (numpy's round)",
    "0 (almost everywhere)">;
def Adjit_TanOp : Adjit_UnaryOp<"tan", Adjit_FloatTensor, "tan(x)",
    "1 + y^2">;
def Adjit_AsinOp : Adjit_UnaryOp<"asin", Adjit_FloatTensor, "arcsin(x)",
    "1 / sqrt((1 - x) (1 + x))">;
def Adjit_AcosOp : Adjit_UnaryOp<"acos", Adjit_FloatTensor, "arccos(x)",
    "-1 / sqrt((1 - x) (1 + x))">;
def Adjit_AtanOp : Adjit_UnaryOp<"atan", Adjit_FloatTensor, "arctan(x)",
    "1 / (1 + x^2)">;
def Adjit_SinhOp : Adjit_UnaryOp<"sinh", Adjit_FloatTensor, "sinh(x)",
    "cosh(x)">;
def Adjit_CoshOp : Adjit_UnaryOp<"cosh", Adjit_FloatTensor, "cosh(x)",
    "sinh(x)">;
def Adjit_AsinhOp : Adjit_UnaryOp<"asinh", Adjit_FloatTensor, "arsinh(x)",
    "1 / sqrt(x^2 + 1)">;
def Adjit_AcoshOp : Adjit_UnaryOp<"acosh", Adjit_FloatTensor, "arcosh(x)",
    "1 / sqrt((x - 1) (x + 1))">;
def Adjit_AtanhOp : Adjit_UnaryOp<"atanh", Adjit_FloatTensor, "artanh(x)",
    "1 / ((1 - x) (1 + x))">;
def Adjit_CbrtOp : Adjit_UnaryOp<"cbrt", Adjit_FloatTensor, "the real cube root of x",
    "1 / (3 y^2)">;

def Adjit_GeluOp : Adjit_Op<"gelu", !listconcat([Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<CompositeOpInterface>], Adjit_Elementwise)> {
  let summary = "elementwise GELU activation, exact or with the tanh approximation";
  let description = [{
    `x Phi(x)`, with `Phi` the standard normal distribution function:
    `0.5 x (1 + erf(x / sqrt(2)))`, or with `approximate`,
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` (PyTorch's
    `gelu(approximate='tanh')`, JAX's `nn.gelu`).

    The exact form takes `Phi(x)` from erfc, as JAX does, since `1 + erf`
    cancels for negative `x` (no correct digit below `x = -5.4` in f32,
    -8.3 in f64, -3.7 in f16): `Phi(-|x|) = 0.5 erfc(|x| / sqrt(2)) = 0.5 t
    exp(P(t) - x^2 / 2)` with `t = 1 / (1 + |x| / (2 sqrt(2)))`, `P` from
    Numerical Recipes' `erfcc` on f32 (within 1.2e-7) and a Chebyshev series
    of 28 terms on f64 (within 4e-16; `scripts/fit-erfc.py`). Relative
    error, f32: 4e-7 near 0, 1e-6 at `x = -5`, 4e-6 at -12; f64: 6e-16 near
    0, 4e-15 at -8, 6e-14 at -37 (the rounding of the exponent `x^2 / 2`).
    f16 and bf16 compute either form (and its derivative) in f32 and round
    once.

    Derivative, in closed form: `Phi(x) + x phi(x)` with `phi` the normal
    density, or `0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 0.044715
    x^2)` with `t` the tanh above. Differentiating the formula op by op
    would take about twice the operations and keep the tanh and the cube
    for the backward pass; this rule reads only `x`. A composite op
    (`CompositeOpInterface`): `adjit-expand-composites` replaces it by its
    formula after differentiation, and CSE shares the `tanh` (or the
    erfc terms) between the value and the derivative. Its scalar rule is the same
    formula, for IR that skips that pass.

    ```mlir
    %y = adjit.gelu %x : tensor<4xf32>
    %a = adjit.gelu %x approximate : tensor<4xf32>
    ```
  }];
  let arguments = (ins Adjit_FloatTensor:$operand, UnitAttr:$approximate);
  let results = (outs Adjit_FloatTensor:$result);
  let assemblyFormat = "$operand (`approximate` $approximate^)? attr-dict `:` type($result)";
}

def Adjit_IntegerPowOp : Adjit_Op<"integer_pow", !listconcat([Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>], Adjit_Elementwise)> {
  let summary = "elementwise x^n for a constant integer n";
  let description = [{
    Raises each element to the power `exponent`, an integer known when the
    program is traced (JAX's `lax.integer_pow`), by repeated squaring: the
    multiplications `x * x * x` would do for `x^3`, about log2(n) of them
    for larger n, never a call of `pow`. A negative exponent gives
    `1 / x^-n` (floating point only: the verifier rejects it on integers).
    `x^0` is 1 for every x, NaN included. Integers wrap.

    Derivative: `n x^(n-1)` (an `integer_pow` itself), 0 for n = 0.

    ```mlir
    %y = adjit.integer_pow %x, 3 : tensor<4xf32>
    %r = adjit.integer_pow %x, -2 : tensor<4xf32>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$operand, I64Attr:$exponent);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = "$operand `,` $exponent attr-dict `:` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

// Commutative: CSE takes x*y and y*x (the derivative rules make both) for one
// value, and the canonicalizer moves constants to the right.
class Adjit_BinaryOp<string mnemonic, string formula, string derivative,
                     list<Trait> traits = []>
    : Adjit_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
        DeclareOpInterfaceMethods<DifferentiableOpInterface>], Adjit_Elementwise, traits)> {
  let summary = "elementwise " # formula;
  let description = [{
    Elementwise `}] # formula # [{` of two tensors of one type (the front end
    broadcasts explicitly beforehand).

    Derivative: }] # derivative # [{.

    ```mlir
    %z = adjit.}] # mnemonic # [{ %x, %y : tensor<4xf32>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$lhs, Adjit_NumericTensor:$rhs);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Adjit_AddOp : Adjit_BinaryOp<"add", "x + y",
    "d(x) + d(y)", [Commutative]>;
def Adjit_SubOp : Adjit_BinaryOp<"sub", "x - y",
    "d(x) - d(y)">;
def Adjit_MulOp : Adjit_BinaryOp<"mul", "x * y",
    "y d(x) + x d(y)", [Commutative]>;
def Adjit_DivOp : Adjit_BinaryOp<"div",
    "x / y (integers: truncating, like C++, and total as in XLA: x / 0 = -1, INT_MIN / -1 = INT_MIN)",
    "(d(x) - (x/y) d(y)) / y">;
def Adjit_PowOp : Adjit_BinaryOp<"pow", "x ^ y (integers: wrapping; a negative y gives 1 for x = 1, +-1 for x = -1, else 0, as in XLA)",
    "y x^(y-1) d(x) + x^y log(x) d(y), with 0 where y = 0 (first term) or x = 0 (second term)">;
def Adjit_MaxOp : Adjit_BinaryOp<"max", "max(x, y) (NaN if either is NaN)",
    "the larger operand\'s derivative; ties split it 1/2 and 1/2", [Commutative]>;
def Adjit_MinOp : Adjit_BinaryOp<"min", "min(x, y) (NaN if either is NaN)",
    "the smaller operand\'s derivative; ties split it 1/2 and 1/2", [Commutative]>;
def Adjit_Atan2Op : Adjit_BinaryOp<"atan2",
    "atan2(x, y): the angle of the point (y, x) in (-pi, pi], signed zeros and infinities as in C",
    "(y d(x) - x d(y)) / (x^2 + y^2)"> {
  let arguments = (ins Adjit_FloatTensor:$lhs, Adjit_FloatTensor:$rhs);
  let results = (outs Adjit_FloatTensor:$result);
}

def Adjit_RemOp : Adjit_BinaryOp<"rem",
    "x rem y: the remainder of x / y truncated toward zero, with x\'s sign (C\'s fmod and %, lax.rem; integers total as in XLA: x rem 0 = x, INT_MIN rem -1 = 0)",
    "d(x) - trunc(x / y) d(y)">;

def Adjit_CompareOp : Adjit_Op<"compare", !listconcat([Pure, SameTypeOperands, NotDifferentiable,
    TypesMatchWith<"result is the i1 tensor of the operands' shape",
                   "lhs", "result", "::mlir::adjit::boolTensorLike($_self)">], Adjit_Elementwise)> {
  let summary = "elementwise comparison";
  let description = [{
    Compares two tensors of one type elementwise. Floating-point comparisons
    are ordered (false when either side is NaN) except `ne`, which is true
    when either side is NaN, as in C++. Booleans support only `eq` and `ne`.

    Not differentiable (boolean result).

    ```mlir
    %m = adjit.compare lt, %x, %y : tensor<4xf32>
    ```
  }];
  let arguments = (ins Adjit_ComparisonDirection:$direction,
                       Adjit_AnyTensor:$lhs, Adjit_AnyTensor:$rhs);
  let results = (outs Adjit_BoolTensor:$result);
  let assemblyFormat = "$direction `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Adjit_SelectOp : Adjit_Op<"select", !listconcat([Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>,
    AllTypesMatch<["on_true", "on_false", "result"]>], Adjit_ElementwiseExact)> {
  let summary = "elementwise choice: pred ? on_true : on_false";
  let description = [{
    Derivative: the chosen operand gets the cotangent, the other zero; none for the predicate.

    ```mlir
    %r = adjit.select %m, %x, %y : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Adjit_BoolTensor:$pred, Adjit_AnyTensor:$on_true,
                       Adjit_AnyTensor:$on_false);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

class Adjit_LogicalBinaryOp<string mnemonic, string formula>
    : Adjit_Op<mnemonic, !listconcat([Pure, Commutative, SameOperandsAndResultType, NotDifferentiable],
        Adjit_Elementwise)> {
  let summary = "elementwise logical " # formula;
  let description = [{
    Not differentiable (boolean result).

    ```mlir
    %r = adjit.}] # mnemonic # [{ %a, %b : tensor<4xi1>
    ```
  }];
  let arguments = (ins Adjit_BoolTensor:$lhs, Adjit_BoolTensor:$rhs);
  let results = (outs Adjit_BoolTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Adjit_AndOp : Adjit_LogicalBinaryOp<"and", "a && b">;
def Adjit_OrOp : Adjit_LogicalBinaryOp<"or", "a || b">;

def Adjit_NotOp : Adjit_Op<"not", !listconcat([Pure, SameOperandsAndResultType,
    NotDifferentiable], Adjit_Elementwise)> {
  let summary = "elementwise logical !a";
  let description = [{
    Not differentiable (boolean result).

    ```mlir
    %r = adjit.not %a : tensor<4xi1>
    ```
  }];
  let arguments = (ins Adjit_BoolTensor:$operand);
  let results = (outs Adjit_BoolTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Adjit_StopGradientOp : Adjit_Op<"stop_gradient",
    [Pure, SameOperandsAndResultType, NotDifferentiable]> {
  let summary = "identity whose derivative is zero";
  let description = [{
    Returns its operand unchanged; differentiation treats the result as a
    constant. It disappears when lowering to linalg.

    Derivative: zero: the result is a constant to differentiation.

    ```mlir
    %c = adjit.stop_gradient %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Adjit_OptimizationBarrierOp : Adjit_Op<"optimization_barrier", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "values that optimizations do not see through";
  let description = [{
    Returns its operands unchanged. Common-subexpression elimination and
    fusion cannot look through it, so computations on its results stay
    apart from the same computations on its operands: this is how
    `adjit::checkpoint` keeps the backward pass's recomputation of a
    function from being merged back into the forward pass (which would
    keep the forward values alive instead). Like `stablehlo.optimization_barrier`.
    It survives to the fused stage and is erased just before bufferization
    (`adjit-erase-optimization-barriers`).

    Derivative: the identity.

    ```mlir
    %y:2 = adjit.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Variadic<Adjit_AnyTensor>:$operands);
  let results = (outs Variadic<Adjit_AnyTensor>:$results);
  let assemblyFormat = "$operands attr-dict `:` type($operands)";
}

def Adjit_ConvertOp : Adjit_Op<"convert", !listconcat([Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>], Adjit_ElementwiseExact)> {
  let summary = "elementwise dtype conversion";
  let description = [{
    Converts each element to the result's element type: floats round to
    nearest even, float to integer truncates toward zero (saturating, NaN
    gives 0), any value to i1 is `x != 0`, i1 to a number is 0 or 1.

    Derivative: float to float converts the cotangent back; conversions from or to integers and booleans have none.

    ```mlir
    %d = adjit.convert %x : tensor<4xf32> to tensor<4xf64>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Adjit_BroadcastInDimOp : Adjit_Op<"broadcast_in_dim", [Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "broadcast a tensor into a larger shape";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; it must have the
    result's size there or size 1 (then it is repeated). Result dimensions not
    named in `dims` repeat the operand.

    Derivative: the cotangent summed over the repeated dimensions.

    ```mlir
    %b = adjit.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dims attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Adjit_ReshapeOp : Adjit_Op<"reshape", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "reinterpret the row-major elements in another shape";
  let description = [{
    Derivative: the cotangent reshaped back.

    ```mlir
    %r = adjit.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Adjit_TransposeOp : Adjit_Op<"transpose", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.

    Derivative: the cotangent transposed by the inverse permutation.

    ```mlir
    %t = adjit.transpose %x, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand, DenseI64ArrayAttr:$perm);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `perm` `=` $perm attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Adjit_SliceOp : Adjit_Op<"slice", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "static strided slice";
  let description = [{
    Takes `start[d], start[d] + stride[d], ...` below `limit[d]` in every
    dimension `d`, so the result has `ceil((limit - start) / stride)` elements
    there.

    Derivative: the cotangent padded back with zeros (interior padding for strides).

    Canonicalization computes only what is taken: a slice of an elementwise
    op that nothing else uses slices its operands instead, a slice of a
    broadcast broadcasts the part of its operand taken, a slice of a splat
    constant is a smaller splat, and a slice of an iota a smaller iota (for
    integers scaled by the stride and offset by the start).

    ```mlir
    %s = adjit.slice %x, start = [1], limit = [7], stride = [2] : (tensor<8xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$stride);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start `,` `limit` `=` $limit `,` `stride` `=` $stride
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Adjit_ConcatenateOp : Adjit_Op<"concatenate", [Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "join tensors along one dimension";
  let description = [{
    Derivative: slices of the cotangent.

    ```mlir
    %c = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Adjit_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    `(` $inputs `)` `dim` `=` $dim attr-dict `:` functional-type($inputs, $result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Adjit_PadOp : Adjit_Op<"pad", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "pad with a value at both ends and between elements";
  let description = [{
    Dimension `d` of size `n` becomes `low[d] + n + (n - 1) * interior[d] +
    high[d]`; new positions hold `padding_value`. Interior padding makes `pad`
    the adjoint of a strided `slice`. All amounts are non-negative.

    Derivative: the operand gets the strided slice of the cotangent, the padding value the sum of the rest.

    ```mlir
    %p = adjit.pad %x, %zero, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand,
                       Adjit_ScalarTensor:$padding_value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       DenseI64ArrayAttr:$interior);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $low `,` `high` `=` $high `,`
    `interior` `=` $interior attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indexing along one axis
//===----------------------------------------------------------------------===//

def Adjit_GatherOp : Adjit_Op<"gather", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "take slices along one axis by index (numpy.take)";
  let description = [{
    `result[a..., i..., b...] = operand[a..., indices[i...], b...]`, where the
    `a` dimensions come before `axis`: the result shape is
    `operand.shape[:axis] + indices.shape + operand.shape[axis+1:]`.
    Out-of-range indices are clamped into `[0, operand.shape[axis])`.

    Derivative: scatter_add of the cotangent into zeros; none for the indices.

    ```mlir
    %g = adjit.gather %table[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand, Adjit_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` `axis` `=` $axis attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Adjit_ScatterAddOp : Adjit_Op<"scatter_add", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>,
    AllTypesMatch<["base", "result"]>]> {
  let summary = "add slices into a tensor along one axis by index";
  let description = [{
    The adjoint of `gather`: starts from `base` and adds
    `updates[a..., i..., b...]` into `result[a..., indices[i...], b...]`,
    accumulating repeated indices. `updates` has the shape that `gather` with
    these indices would produce; indices are clamped like `gather`'s.

    Derivative: the base gets the cotangent, the updates its gather; none for the indices.

    ```mlir
    %s = adjit.scatter_add %upd into %base[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$base, Adjit_IndexTensor:$indices,
                       Adjit_NumericTensor:$updates, I64Attr:$axis);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = [{
    $updates `into` $base `[` $indices `]` `,` `axis` `=` $axis attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Adjit_ScatterExtremumOp : Adjit_Op<"scatter_extremum", [Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>, AllTypesMatch<["base", "result"]>]> {
  let summary = "keep the max or min of slices scattered into a tensor along one axis";
  let description = [{
    As `scatter_add`, combining by `max` or `min` instead of adding: starts
    from `base` and takes, at each `result[a..., indices[i...], b...]`, the
    max (or min) of the element there and `updates[a..., i..., b...]`.
    Repeated indices keep their extremum; NaN propagates, as in XLA's
    scatter with a max or min combiner. Indices are clamped like `gather`'s.
    `kind` is `max` or `min`; `sum` is `scatter_add`.

    Derivative (JAX's rule for scatter's extrema): each result element's
    tangent is the mean of the tangents of the base element and of the
    updates equal to it (ties share it); none for the indices.

    ```mlir
    %s = adjit.scatter_extremum max %upd into %base[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
    ```
  }];
  let arguments = (ins Adjit_ReduceKind:$kind, Adjit_NumericTensor:$base,
                       Adjit_IndexTensor:$indices, Adjit_NumericTensor:$updates, I64Attr:$axis);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $updates `into` $base `[` $indices `]` `,` `axis` `=` $axis attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Blocks at run-time offsets
//===----------------------------------------------------------------------===//

def Adjit_StartIndex : 0DTensorOf<[I32, I64]> {
  let summary = "0-d integer tensor (an offset known at run time)";
}

def Adjit_DynamicSliceOp : Adjit_Op<"dynamic_slice", [Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "block of a tensor at offsets known at run time";
  let description = [{
    The block of the result's shape whose first element is at `starts` (a
    0-d integer tensor per dimension) in `operand`. Each start is clamped
    into `[0, operand.shape[d] - result.shape[d]]`, so the block always
    lies inside `operand` (XLA's DynamicSlice, `lax.dynamic_slice`).

    Derivative: the cotangent written into zeros at the same clamped starts
    (`dynamic_update_slice`); none for the starts.

    ```mlir
    %row = adjit.dynamic_slice %x[%i, %zero] : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x6xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand, Variadic<Adjit_StartIndex>:$starts);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `[` $starts `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Adjit_DynamicUpdateSliceOp : Adjit_Op<"dynamic_update_slice", [Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "tensor with a block replaced at offsets known at run time";
  let description = [{
    `operand` with the block of `update`'s shape whose first element is at
    `starts` (a 0-d integer tensor per dimension) replaced by `update`.
    Starts are clamped as `dynamic_slice`'s, into `[0, operand.shape[d] -
    update.shape[d]]` (`lax.dynamic_update_slice`). Where `operand` dies
    here (a loop's carried buffer), the block is written in place.

    Derivative: the operand gets the cotangent with the block zeroed; the
    update gets the cotangent's block (`dynamic_slice`); the starts none.

    ```mlir
    %y = adjit.dynamic_update_slice %x[%i, %zero], %row : (tensor<8x6xf32>, tensor<i32>, tensor<i32>, tensor<1x6xf32>) -> tensor<8x6xf32>
    ```
  }];
  let arguments = (ins Adjit_AnyTensor:$operand, Variadic<Adjit_StartIndex>:$starts,
                       Adjit_AnyTensor:$update);
  let results = (outs Adjit_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `[` $starts `]` `,` $update attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

def Adjit_ReduceOp : Adjit_Op<"reduce", [Pure, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "sum, max or min over dimensions";
  let description = [{
    Reduces the listed dimensions away (the front end adds `keepdims` with a
    reshape). Max and min propagate NaN; with `ignores_nan` a float max or
    min skips NaN elements instead (numpy's nanmax; where all are NaN the
    result is NaN or -inf, +inf for min), which costs fewer instructions:
    softmax, log_softmax and logsumexp shift by such a max, as a NaN
    reaches their results through their sums anyway. An empty
    reduction gives the identity: 0, -inf or +inf (the lowest or highest
    integer).

    Derivative: sum broadcasts the cotangent back; max and min send it to the extremal elements, split equally among ties.

    ```mlir
    %s = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Adjit_ReduceKind:$kind, Adjit_NumericTensor:$operand,
                       DenseI64ArrayAttr:$dims, UnitAttr:$ignores_nan);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $operand `,` `dims` `=` $dims (`ignores_nan` $ignores_nan^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Adjit_ArgMaxOp : Adjit_Op<"argmax", [Pure, NotDifferentiable]> {
  let summary = "index of the largest element along an axis";
  let description = [{
    The first index of the maximum along `axis` (the first NaN if any, as in
    numpy); the axis is removed from the shape.

    Not differentiable (integer result).

    ```mlir
    %i = adjit.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$operand, I64Attr:$axis);
  let results = (outs Adjit_IndexTensor:$result);
  let assemblyFormat = [{
    $operand `,` `axis` `=` $axis attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Adjit_ArgsortOp : Adjit_Op<"argsort", [Pure, NotDifferentiable]> {
  let summary = "the permutation that sorts each row";
  let description = [{
    For each row along the last dimension, the indices of its elements in
    ascending order (with `descending`, descending), equal elements in the
    order they come, as a stable sort; NaN after every number (before them,
    descending), -0 equal to +0, as jnp.argsort. With `total_order`, floats
    compare in IEEE 754's totalOrder instead, as lax.top_k does: -NaN
    before -inf, -0 before +0, +NaN after +inf (the x86 NaN of 0/0 is
    negative); integers compare the same either way. A heap sort of (value,
    index) pairs in place: n log n comparisons per row; the pairs are
    totally ordered, so the permutation is the stable sort's.

    A result shorter along the last dimension (k of a row's n) holds the
    permutation's first k positions, as top_k wants them: a partial sort
    that keeps a heap of the k first so far, about n comparisons per row
    where k is much smaller than n (n log k at most).

    Not differentiable (integer result); a sort differentiates as the
    gather of its operand by this permutation.

    ```mlir
    %p = adjit.argsort %x : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %q = adjit.argsort %x descending : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %t = adjit.argsort %x descending total_order : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %k = adjit.argsort %x descending total_order : (tensor<2x3xf32>) -> tensor<2x2xi32>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$operand, UnitAttr:$descending,
                   UnitAttr:$total_order);
  let results = (outs Adjit_IndexTensor:$result);
  let assemblyFormat = [{
    $operand (`descending` $descending^)? (`total_order` $total_order^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Adjit_SearchSortedOp : Adjit_Op<"search_sorted", [Pure, NotDifferentiable]> {
  let summary = "where values would be inserted into a sorted vector";
  let description = [{
    For each element v of `values`, the number of elements of the ascending
    vector `sorted` that come before v (with `right`: that do not come
    after it), in argsort's order (NaN after every number): the index where
    v would be inserted to keep `sorted` sorted, as numpy.searchsorted with
    side "left" ("right"). A binary search per value: log2(n) + 1 steps.
    `sorted` is not checked to be sorted.

    Not differentiable (integer result).

    ```mlir
    %i = adjit.search_sorted %knots, %x : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
    %j = adjit.search_sorted %knots, %x right : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$sorted, Adjit_NumericTensor:$values, UnitAttr:$right);
  let results = (outs Adjit_IndexTensor:$result);
  let assemblyFormat = [{
    $sorted `,` $values (`right` $right^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Adjit_DotGeneralOp : Adjit_Op<"dot_general", [Pure,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "batched tensor contraction (matmul)";
  let description = [{
    Contracts `lhs` with `rhs` over pairs of contracting dimensions, treating
    pairs of batch dimensions as independent problems. The result dimensions
    are the batch dimensions, then the remaining `lhs` dimensions, then the
    remaining `rhs` dimensions, each in operand order. f16 and bf16 accumulate
    in f32.

    Derivative: each operand gets the dot_general of the cotangent with the other operand over that operand's free dimensions, transposed into place.

    Canonicalization reads a transposed operand in place (`x^T dy` contracts
    over `x`'s own dimensions) when the transpose keeps the operand's free
    dimensions in order, so no transposed copy is made.

    ```mlir
    // a plain matmul and a batched one
    %c = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
    %d = adjit.dot_general %x, %y, batch = [0] x [0], contract = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x8x5xf32>) -> tensor<2x4x5xf32>
    ```
  }];
  let arguments = (ins Adjit_NumericTensor:$lhs, Adjit_NumericTensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                       DenseI64ArrayAttr:$lhs_contract,
                       DenseI64ArrayAttr:$rhs_contract);
  let results = (outs Adjit_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch` `=` $lhs_batch `x` $rhs_batch `,`
    `contract` `=` $lhs_contract `x` $rhs_contract attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra. Each op works on the last two dimensions, matrices; the
// leading dimensions are a batch of independent problems (the same in every
// operand). Each lowers to loops over one matrix at a time, in the
// element type.
//===----------------------------------------------------------------------===//

def Adjit_CholeskyOp : Adjit_Op<"cholesky", [Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "Cholesky factor of a symmetric positive definite matrix";
  let description = [{
    The lower triangular `L` with positive diagonal and `L L^T = S`, where
    `S = (A + A^T) / 2` is the symmetric part of `operand` (as
    `jnp.linalg.cholesky`, whose input is symmetrized). The strict upper
    triangle of the result is zero. A matrix that is not positive definite
    (or holds a NaN) gives NaN in the lower triangle and the diagonal, and
    zeros above, as JAX's.

    Derivative: `dL = L Phi(L^-1 dS L^-T)`, where `Phi` keeps the lower
    triangle and halves the diagonal; the adjoint is `L^-T Phi(L^T Lbar) L^-1`,
    symmetrized (Murray, arXiv:1602.07527).

    ```mlir
    %l = adjit.cholesky %a : tensor<8x3x3xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$operand);
  let results = (outs Adjit_SolverTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Adjit_TriangularSolveOp : Adjit_Op<"triangular_solve", [Pure,
    AllTypesMatch<["b", "result"]>, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "solve a triangular system op(A) X = B";
  let description = [{
    `X` with `op(A) X = B`, where `op(A)` is `A` or, with `transpose_a`,
    `A^T`. Only the lower triangle of `A` is read (`lower`) or only the
    upper; with `unit_diagonal` its diagonal is taken to be ones and not
    read. `B` has `k` columns of right-hand sides (`lax.linalg.triangular_solve`
    with `left_side`). A zero on the diagonal gives infinities or NaN.

    Derivative: `dX = op(A)^-1 (dB - op(dA) X)`, with `dA` restricted to the
    triangle read; the adjoint is `Bbar = op(A)^-T Xbar` and
    `Abar = -Bbar X^T` (or `-X Bbar^T` with `transpose_a`), restricted alike.

    ```mlir
    %x = adjit.triangular_solve %l, %b {lower} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %y = adjit.triangular_solve %l, %x {lower, transpose_a} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$a, Adjit_SolverTensor:$b, UnitAttr:$lower,
                       UnitAttr:$transpose_a, UnitAttr:$unit_diagonal);
  let results = (outs Adjit_SolverTensor:$result);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Adjit_SolveOp : Adjit_Op<"solve", [Pure, AllTypesMatch<["b", "result"]>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "solve a general linear system A X = B";
  let description = [{
    `X` with `A X = B` for a square `A`, by LU factorization with partial
    pivoting (Gaussian elimination choosing the largest remaining magnitude
    in each column, as LAPACK's `getrf`/`getrs` behind `jnp.linalg.solve`).
    `B` has `k` columns of right-hand sides. A singular `A` gives infinities
    or NaN.

    Derivative: `dX = A^-1 (dB - dA X)`; the adjoint is `Bbar = A^-T Xbar`
    and `Abar = -Bbar X^T`.

    ```mlir
    %x = adjit.solve %a, %b : (tensor<4x4xf64>, tensor<4x1xf64>) -> tensor<4x1xf64>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$a, Adjit_SolverTensor:$b);
  let results = (outs Adjit_SolverTensor:$result);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Adjit_SlogdetOp : Adjit_Op<"slogdet", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "sign and log of the absolute value of a determinant";
  let description = [{
    For each square matrix `A` of the batch, `sign` (1, -1, or 0 for a
    singular matrix) and `logabsdet = log |det A|` (`-inf` for a singular
    matrix), so that `det A = sign * exp(logabsdet)` without overflow (as
    `jnp.linalg.slogdet`). Computed by LU factorization with partial
    pivoting: the product of U's diagonal, with the sign of the row
    permutation. The results have the batch dimensions of `operand`; a NaN
    in a matrix gives NaN results.

    Derivative: `d logabsdet = tr(A^-1 dA)`; the adjoint is
    `Abar = logabsdetbar A^-T`. `sign` is piecewise constant: it has none.

    ```mlir
    %sign, %logabsdet = adjit.slogdet %a : tensor<8x3x3xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$operand);
  let results = (outs Adjit_SolverTensor:$sign, Adjit_SolverTensor:$logabsdet);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
  let hasVerifier = 1;
}

def Adjit_EighOp : Adjit_Op<"eigh", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "eigenvalues and eigenvectors of a symmetric matrix";
  let description = [{
    For each matrix of the batch, the eigenvalues `w` of its symmetric part
    `S = (A + A^T) / 2` in ascending order and the orthonormal eigenvectors
    `V` as columns, `S = V diag(w) V^T` (as `jnp.linalg.eigh`, which also
    symmetrizes). Computed by the cyclic Jacobi method: sweeps of plane
    rotations that zero each off-diagonal entry in turn, until the
    off-diagonal part is below the element type's epsilon relative to `S`
    (quadratic convergence: a few sweeps), then sorted. An eigenvector's
    sign is not specified. A NaN in a matrix gives NaN results.

    Derivative: with `F[i][j] = 1 / (w[j] - w[i])` off the diagonal and 0
    on it, `dw = diag(V^T dS V)` and `dV = V (F * (V^T dS V))`; the adjoint
    is `Sbar = V (diag(wbar) + F * (V^T Vbar)) V^T`, symmetrized. Repeated
    eigenvalues make `F`, and the eigenvectors' derivatives, infinite.

    ```mlir
    %w, %v = adjit.eigh %a : tensor<8x3x3xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$operand);
  let results = (outs Adjit_SolverTensor:$eigenvalues, Adjit_SolverTensor:$eigenvectors);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
  let hasVerifier = 1;
}

def Adjit_QrOp : Adjit_Op<"qr", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "QR factorization";
  let description = [{
    For each m x n matrix `A` of the batch, with `k = min(m, n)`, the
    reduced factorization `A = Q R`: `Q` [batch..., m, k] with orthonormal
    columns and the upper triangular (trapezoidal where m < n) `R`
    [batch..., k, n] (as `jnp.linalg.qr(a, mode="reduced")`). Computed by
    Householder reflections with LAPACK's conventions (geqrf, then orgqr):
    each reflection maps a column onto `beta e1` with `beta` of the sign
    opposite to its diagonal entry, and a column already zero below the
    diagonal is left as it is, so the signs of `R`'s diagonal are LAPACK's
    (and numpy's and JAX's on a CPU). NaN and infinite entries reach the
    entries of `Q` and `R` that depend on them, as in LAPACK.

    Derivative, where `R`'s first k columns are invertible. For m >= n (as
    JAX's): with `X = dA R^-1`, `C = Q^T X` and `W = tril(C, -1) -
    tril(C, -1)^T`, `dQ = Q (W - C) + X` and `dR = (C - W) R`; the adjoint
    is `Abar = (Qbar + Q N) R^-T`, where `N` is the symmetric matrix whose
    upper triangle is that of `M = Rbar R^T - Q^T Qbar`. For m < n (as
    PyTorch's): `A = [X Y]` with X square gives `Q` and `R = [R1 Q^T Y]`,
    so the rule above on X, and `dQ^T Y + Q^T dY` for the rest of `dR`.

    ```mlir
    %q, %r = adjit.qr %a : tensor<8x5x3xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$operand);
  let results = (outs Adjit_SolverTensor:$q, Adjit_SolverTensor:$r);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Adjit_SvdOp : Adjit_Op<"svd", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "singular value decomposition";
  let description = [{
    For each m x n matrix `A` of the batch, with `k = min(m, n)`, the
    reduced decomposition `A = U diag(s) Vh`: `u` [batch..., m, k] and the
    rows of `vh` [batch..., k, n] orthonormal, the singular values `s`
    [batch..., k] in descending order (as `jnp.linalg.svd(a,
    full_matrices=False)`). Computed by the one-sided Jacobi method
    (Hestenes) on the columns of `A` (of `A^T` where m < n), scaled by its
    largest magnitude: sweeps of plane rotations that make each pair of
    columns orthogonal, until every pair is orthogonal to the element
    type's epsilon, then sorted; each singular vector's sign is not
    specified. Where singular values are zero, `u`'s columns for them are
    completed to an orthonormal set. A NaN or infinite entry gives NaN
    results.

    Derivative (JAX's rule): with `dS = U^T dA V`, `ds = diag(dS)` and
    `F[i][j] = 1 / (s[j]^2 - s[i]^2)` off the diagonal, `dU = U (F *
    (dS S + S dS^T)) + (I - U U^T) dA V S^-1` and `dV = V (F * (S dS +
    dS^T S)) + (I - V V^T) dA^T U S^-1`. Repeated singular values make
    the singular vectors' derivatives infinite, as zero ones do where m !=
    n.

    ```mlir
    %u, %s, %vh = adjit.svd %a : tensor<8x5x3xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$operand);
  let results = (outs Adjit_SolverTensor:$u, Adjit_SolverTensor:$s, Adjit_SolverTensor:$vh);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Adjit_LuOp : Adjit_Op<"lu", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "LU factorization with partial pivoting";
  let description = [{
    For each m x n matrix `A` of the batch, with `k = min(m, n)`, the
    factorization `P A = L U` by Gaussian elimination with partial pivoting
    (LAPACK's getrf, unblocked; as `jax.lax.linalg.lu`): `lu` [batch...,
    m, n] holds `U` in and above its diagonal and the multipliers of the
    unit lower triangular `L` below it; `pivots` [batch..., k] says that
    row i was exchanged with row `pivots[i]` >= i at step i (LAPACK's ipiv,
    from 0); `permutation` [batch..., m] is the result of those exchanges
    on 0, 1, ..., m - 1, so that row i of `P A` is row `permutation[i]` of
    `A`. Each pivot is the first entry of the largest magnitude in its
    column; a zero pivot leaves its column as it is (the matrix is
    singular; `U` has a zero on its diagonal), as getrf does.

    Derivative (JAX's rule, after de Hoog, Anderssen and Lukas), where `U`'s
    first k rows and columns are invertible: with `L` completed to an
    m x m unit lower triangular matrix and `U` to an n x n upper triangular
    one by the identity, `X = L^-1 P dA U^-1`, `d lu = L tril(X, -1) +
    triu(X) U`; the adjoint is `Abar = P^T L^-T (tril(L^T lubar, -1) +
    triu(lubar U^T)) U^-T`. The pivots and the permutation are piecewise
    constant: they have none.

    ```mlir
    %lu, %pivots, %permutation = adjit.lu %a : tensor<8x3x3xf32>
    ```
  }];
  let arguments = (ins Adjit_SolverTensor:$operand);
  let results = (outs Adjit_SolverTensor:$lu, StaticShapeTensorOf<[I32]>:$pivots,
                      StaticShapeTensorOf<[I32]>:$permutation);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Adjit_LuPivotsToPermutationOp : Adjit_Op<"lu_pivots_to_permutation", [Pure,
    NotDifferentiable]> {
  let summary = "the row permutation that LU pivots make";
  let description = [{
    For each row of `pivots` [batch..., k], the exchanges of `adjit.lu`
    applied in turn to 0, 1, ..., size - 1 (step i exchanges entries i and
    `pivots[i]`): the permutation [batch..., size] that `adjit.lu` gives
    beside its pivots (as `jax.lax.linalg.lu_pivots_to_permutation`).
    `size` is at least k. A pivot outside [i, size) is clamped into it.

    Not differentiable (integer result).

    ```mlir
    %p = adjit.lu_pivots_to_permutation %pivots, size = 5 : tensor<8x3xi32> -> tensor<8x5xi32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I32]>:$pivots, I64Attr:$size);
  let results = (outs StaticShapeTensorOf<[I32]>:$permutation);
  let assemblyFormat = [{
    $pivots `,` `size` `=` $size attr-dict `:` type($pivots) `->` type($permutation)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control flow. Regions take every value they use as an explicit operand
// (IsolatedFromAbove), so derivative rules see all the values that a body
// depends on and can return their cotangents.
//===----------------------------------------------------------------------===//

def Adjit_PredicateTensor : 0DTensorOf<[I1]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getI1Type())";
}
def Adjit_CounterTensor : 0DTensorOf<[I32]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getI32Type())";
}

// A carry, or values stacked along a leading dimension that is the trip
// count: dynamic (`?`) when the bounds are only known at run time.
def Adjit_StackedTensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;

def Adjit_YieldOp : Adjit_Op<"yield", [Pure, Terminator,
    ParentOneOf<["CondOp", "ForOp", "WhileOp"]>]> {
  let summary = "ends a region of a control-flow op";
  let description = [{
    Hands the region's values to its parent: the results of a `cond`
    branch, the next carries (and per-iteration outputs) of a `for` body,
    the predicate of a `while` condition or the next carries of its body.
  }];
  let arguments = (ins Variadic<Adjit_AnyTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Adjit_CondOp : Adjit_Op<"cond", [IsolatedFromAbove, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "runs one of two regions, chosen by a boolean scalar";
  let description = [{
    Runs `then` when `pred` is true, else `else`. Both regions take the
    operands as block arguments and yield values of the result types.

    Derivative: that of the branch taken (the other contributes nothing).

    ```mlir
    %r = adjit.cond %p (%x) : (tensor<4xf32>) -> tensor<4xf32> then {
    ^bb0(%a: tensor<4xf32>):
      %s = adjit.sin %a : tensor<4xf32>
      adjit.yield %s : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>):
      adjit.yield %a : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Adjit_PredicateTensor:$pred, Variadic<Adjit_AnyTensor>:$inputs);
  let results = (outs Variadic<Adjit_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $pred `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
    `then` $thenRegion `else` $elseRegion
  }];
  let hasVerifier = 1;
}

def Adjit_ForOp : Adjit_Op<"for", [IsolatedFromAbove, RecursiveMemoryEffects,
    AttrSizedOperandSegments, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "counted loop with carried values, per-iteration inputs and outputs";
  let description = [{
    Runs the body for `i` from `lower` to `upper - 1` (from `upper - 1`
    down to `lower` with `reverse`); no iteration when `upper <= lower`.
    The body's arguments are `i` (a 0-d i32 tensor), the carries, one slice
    per `stacked` input (its row `i - lower`) and the `invariant` values. It
    yields the next carries, then one slice per stacked output. Results: the
    last carries, then the stacked outputs (row `i - lower` is what iteration
    `i` yielded). This is `fori_loop` (no stacked values) and `scan`.

    The leading dimension of stacked inputs and outputs is the trip count;
    with bounds that are not constants it is dynamic (`?`), which only the
    derivative uses (a stacked input then has at least as many rows as
    iterations).

    Derivative: forward mode carries tangents beside the carries. Reverse
    mode keeps every iteration's carries (a stacked output), and the values
    its adjoint reads whose recomputation needs expensive work (a matmul, a
    reduction, a loop), then runs the body's adjoint in a reverse loop that
    recomputes the rest from them. With `checkpoint_every = k`, reverse mode
    keeps only the carries of every k-th iteration: the backward pass runs
    the loop again segment by segment from them (memory for T/k + k carries
    instead of T); with k = 1 it keeps every carry but recomputes all else.
    A loop with stacked values (a scan) needs constant bounds for it: its
    rows are regrouped as segments of k, and the last T mod k iterations
    run as a loop of their own.

    Canonicalization drops stacked outputs nobody reads, stacked inputs and
    invariants the body does not read, and carries whose final value is
    unused and which feed only each other; it merges stacked outputs of one
    value and stacked inputs of one operand, reads a splat-constant stacked
    input as a constant row, and makes a carry the body yields unchanged an
    invariant. So the reverse pass stacks only what its adjoint reads.

    ```mlir
    %c, %ys = adjit.for %lo to %hi carry(%h) stacked(%xs) invariant(%w)
        : (tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>)
          -> (tensor<4xf32>, tensor<8x4xf32>) {
    ^bb0(%i: tensor<i32>, %hc: tensor<4xf32>, %x: tensor<4xf32>, %wi: tensor<4xf32>):
      %a = adjit.mul %hc, %wi : tensor<4xf32>
      %n = adjit.add %a, %x : tensor<4xf32>
      adjit.yield %n, %n : tensor<4xf32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Adjit_CounterTensor:$lower, Adjit_CounterTensor:$upper,
                       Variadic<Adjit_AnyTensor>:$inits,
                       Variadic<Adjit_StackedTensor>:$stacked,
                       Variadic<Adjit_AnyTensor>:$invariants,
                       UnitAttr:$reverse,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$checkpoint_every);
  let results = (outs Variadic<Adjit_StackedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $lower `to` $upper (`reverse` $reverse^)? `carry` `(` $inits `)`
    (`stacked` `(` $stacked^ `)`)? (`invariant` `(` $invariants^ `)`)?
    attr-dict `:` functional-type(operands, results) $body
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let builders = [OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::Value":$lower,
      "::mlir::Value":$upper, "::mlir::ValueRange":$inits, "::mlir::ValueRange":$stacked,
      "::mlir::ValueRange":$invariants, CArg<"bool", "false">:$reverse,
      CArg<"std::optional<int64_t>", "std::nullopt">:$checkpointEvery), [{
    build($_builder, $_state, results, lower, upper, inits, stacked, invariants,
          reverse ? $_builder.getUnitAttr() : nullptr,
          checkpointEvery ? $_builder.getI64IntegerAttr(*checkpointEvery) : nullptr);
  }]>];
  let extraClassDeclaration = [{
    /// upper - lower (at least 0) when both bounds are constants.
    std::optional<int64_t> getConstantTripCount();
    unsigned getNumCarries() { return getInits().size(); }
    /// The final carries (the leading results).
    ::mlir::ResultRange getCarryResults() { return getResults().take_front(getNumCarries()); }
    /// The stacked per-iteration outputs (the trailing results).
    ::mlir::ResultRange getStackedResults() { return getResults().drop_front(getNumCarries()); }
  }];
}

def Adjit_WhileOp : Adjit_Op<"while", [IsolatedFromAbove, RecursiveMemoryEffects,
    AttrSizedOperandSegments, DeclareOpInterfaceMethods<DifferentiableOpInterface>]> {
  let summary = "loop with carried values while a condition holds";
  let description = [{
    While the `cond` region yields true for the carries, the `body` region
    makes the next carries. Both take the carries and then the `invariant`
    values as block arguments. Results: the carries when `cond` first
    yields false, then the stacked outputs: the body may yield, after the
    next carries, one row per stacked output, and row `j` of that output is
    what iteration `j` yielded (its leading dimension, dynamic, is the
    number of iterations). Only the derivative yields rows: its stacks grow
    at run time, doubling when full.

    Derivative: forward mode carries tangents beside the carries (and rows).
    Reverse mode runs the loop once, stacking the carries that each
    iteration starts from (and the residuals its adjoint would recompute at
    a cost, as for `adjit.for`), then walks the stacks back in a reverse
    `adjit.for` bounded by the count of iterations: no bound is needed.
    With `checkpoint_every = k`, and for a loop that stacks rows itself, it
    first runs the loop counting its iterations, then differentiates a
    counted loop (`adjit.for` with the count as its bound): checkpointed,
    that keeps the carries of every k-th iteration only, the segments run
    again in the backward pass.

    ```mlir
    %r = adjit.while carry(%x) invariant(%t)
        : (tensor<f32>, tensor<f32>) -> tensor<f32> cond {
    ^bb0(%c: tensor<f32>, %ti: tensor<f32>):
      %p = adjit.compare lt, %c, %ti : tensor<f32>
      adjit.yield %p : tensor<i1>
    } do {
    ^bb0(%c: tensor<f32>, %ti: tensor<f32>):
      %n = adjit.add %c, %c : tensor<f32>
      adjit.yield %n : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Variadic<Adjit_AnyTensor>:$inits,
                       Variadic<Adjit_AnyTensor>:$invariants,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$checkpoint_every);
  let results = (outs Variadic<Adjit_StackedTensor>:$results);
  let regions = (region SizedRegion<1>:$condRegion, SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    `carry` `(` $inits `)` (`invariant` `(` $invariants^ `)`)?
    attr-dict `:` functional-type(operands, results)
    `cond` $condRegion `do` $bodyRegion
  }];
  let builders = [OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::ValueRange":$inits,
      "::mlir::ValueRange":$invariants,
      CArg<"std::optional<int64_t>", "std::nullopt">:$checkpointEvery), [{
    build($_builder, $_state, results, inits, invariants,
          checkpointEvery ? $_builder.getI64IntegerAttr(*checkpointEvery) : nullptr);
  }]>];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    unsigned getNumCarries() { return getInits().size(); }
    /// The final carries (the leading results).
    ::mlir::ResultRange getCarryResults() { return getResults().take_front(getNumCarries()); }
    /// The stacked per-iteration outputs (the trailing results).
    ::mlir::ResultRange getStackedResults() { return getResults().drop_front(getNumCarries()); }
  }];
}

//===----------------------------------------------------------------------===//
// Differentiation requests, expanded by adjit-differentiate
//===----------------------------------------------------------------------===//

def Adjit_GradOp : Adjit_Op<"grad", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "gradient of a scalar function";
  let description = [{
    The gradient of `callee`, which returns one 0-d float tensor, with
    respect to the arguments listed in `wrt`, at `primals`. One result per
    `wrt` entry, of that argument's type.

    ```mlir
    %g = adjit.grad @loss(%w, %x) wrt [0] : (tensor<3xf32>, tensor<8x3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Adjit_AnyTensor>:$primals,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<Adjit_AnyTensor>:$gradients);
  let assemblyFormat = [{
    $callee `(` $primals `)` `wrt` $wrt attr-dict `:` functional-type($primals, results)
  }];
}

def Adjit_VjpOp : Adjit_Op<"vjp", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "results and vector-Jacobian product of a function";
  let description = [{
    Calls `callee` on `primals` and pulls `cotangents` (one per result)
    back to the arguments listed in `wrt`. Results: the callee's results,
    then one cotangent per `wrt` entry.

    ```mlir
    %y, %gx = adjit.vjp @f(%x) cotangents(%ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Adjit_AnyTensor>:$primals,
                       Variadic<Adjit_AnyTensor>:$cotangents,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<Adjit_AnyTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $primals `)` `cotangents` `(` $cotangents `)` `wrt` $wrt attr-dict
    `:` functional-type(operands, results)
  }];
}

def Adjit_JvpOp : Adjit_Op<"jvp", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "results and Jacobian-vector product of a function";
  let description = [{
    Calls `callee` on `primals` and pushes `tangents` (one per `wrt` entry;
    the other arguments have zero tangent) forward. Results: the callee's
    results, then one tangent per result.

    ```mlir
    %y, %ty = adjit.jvp @f(%x) tangents(%tx) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<Adjit_AnyTensor>:$primals,
                       Variadic<Adjit_AnyTensor>:$tangents,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<Adjit_AnyTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $primals `)` `tangents` `(` $tangents `)` `wrt` $wrt attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Growing stacks (from the lowering of adjit.while to scf)
//===----------------------------------------------------------------------===//

def Adjit_ReserveRowOp : Adjit_Op<"reserve_row", [Pure, NotDifferentiable,
    AllTypesMatch<["stack", "result"]>]> {
  let summary = "a stack with room for one more row";
  let description = [{
    `stack` with room for row `count`: itself while `count` is below its
    rows, else a stack of twice its rows (at least one) whose leading rows
    are `stack`'s; the rows past those are undefined until written. It is
    how the lowering of an `adjit.while` that stacks rows grows its stacks,
    without knowing the number of iterations: with doubling, each row is
    copied once on average.

    It bufferizes as equivalent to its operand, so that a loop carrying a
    stack updates it in place: grown, the new buffer holds the rows, the
    old one is freed by buffer deallocation, and the copy is made row by
    row.

    Not differentiable: it exists only after the lowering to `linalg`.

    ```mlir
    %room = adjit.reserve_row %stack, %count : tensor<?x4xf32>
    %next = tensor.insert_slice %row into %room[%count, 0] [1, 4] [1, 1]
        : tensor<4xf32> into tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$stack, Index:$count);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$stack `,` $count attr-dict `:` type($stack)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffers (after bufferization: what memory planning makes)
//===----------------------------------------------------------------------===//

def Adjit_ArenaBufferOp : Adjit_Op<"arena_buffer", [NotDifferentiable]> {
  let summary = "a temporary buffer at a fixed offset of its function's arena";
  let description = [{
    Memory planning (`adjit-plan-buffers`) gives the temporaries of a
    bufferized function one arena, allocated once per call, and places each
    temporary at an offset chosen at compile time so that temporaries that
    are live at the same time never share a byte. This op is such a
    temporary: `offset` bytes into `arena`, with the result's static shape
    and identity layout, live until its `adjit.arena_release`. Lowered to
    LLVM it is a call that returns `arena + offset` as a fresh object
    (`noalias`), as an allocation function would: code using two buffers of
    one arena is optimized as if they were separate allocations.

    Not differentiable: it exists only after bufferization.

    ```mlir
    %arena = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
    %a = adjit.arena_buffer %arena[4096] : memref<8192xi8> to memref<32x32xf32>
    ```
  }];
  let arguments = (ins MemRefRankOf<[I8], [1]>:$arena,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs Res<AnyStaticShapeMemRef, "",
                          [MemAlloc<DefaultResource, 0, FullEffect>]>:$buffer);
  let assemblyFormat = [{
    $arena `[` $offset `]` attr-dict `:` type($arena) `to` type($buffer)
  }];
  let hasVerifier = 1;
}

def Adjit_ArenaReleaseOp : Adjit_Op<"arena_release", [NotDifferentiable]> {
  let summary = "the end of an arena buffer's life";
  let description = [{
    Marks the point after which `buffer` (an `adjit.arena_buffer`) is dead
    and its bytes may belong to a buffer taken from the arena later. It
    frees nothing; lowered to LLVM it is a call that may read and write the
    buffer, so no access to it moves past this point, and no access to a
    later buffer at the same offset moves before it.

    ```mlir
    adjit.arena_release %a : memref<32x32xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "",
                           [MemFreeAt<0, FullEffect>]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

#endif // ADJIT_OPS_TD
