// Lowering of every adjit op to linalg/tensor/arith/math/scf
// (--adjit-lower-to-linalg). Affine maps are printed inline so the broadcast,
// transpose, reduction and gather maps can be checked where they are used.
// RUN: adjit-opt %s --adjit-lower-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s
// The output is valid IR without any adjit op left.
// RUN: adjit-opt %s --adjit-lower-to-linalg -split-input-file | FileCheck %s --check-prefix=NOADJIT
// NOADJIT-NOT: adjit.

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = adjit.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// iota: the linalg.index of the dimension, cast to the element type (through
// f32 for f16).
// CHECK-LABEL: func.func @iota
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[E0]] : tensor<2x3xi32>)
// CHECK-NEXT: ^bb0(%{{.*}}: i32):
// CHECK-NEXT: %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[T:.*]] = arith.trunci %[[I64]] : i64 to i32
// CHECK-NEXT: linalg.yield %[[T]] : i32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%{{.*}}: f16):
// CHECK-NEXT: %[[J:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[J64]] : i64 to f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[H]] : f16
func.func @iota() -> (tensor<2x3xi32>, tensor<4xf16>) {
  %0 = adjit.iota dim = 1 : tensor<2x3xi32>
  %1 = adjit.iota dim = 0 : tensor<4xf16>
  return %0, %1 : tensor<2x3xi32>, tensor<4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

// One linalg.generic per op, identity maps, the scalar rule in the body.
// CHECK-LABEL: func.func @unary_f32
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.negf %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: math.absf
// sign: zeros and NaN fail both comparisons and pass through unchanged.
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[MONE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[ZERO]] : f32
// CHECK-DAG: %[[LT:.*]] = arith.cmpf olt, %[[IN]], %[[ZERO]] : f32
// CHECK: %[[S1:.*]] = arith.select %[[LT]], %[[MONE]], %[[IN]] : f32
// CHECK-NEXT: %[[S2:.*]] = arith.select %[[GT]], %[[ONE]], %[[S1]] : f32
// CHECK-NEXT: linalg.yield %[[S2]] : f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.expm1 %{{.*}} : f32
// CHECK: math.log %{{.*}} : f32
// CHECK: math.log1p %{{.*}} : f32
// CHECK: math.sqrt %{{.*}} : f32
// rsqrt is 1 / sqrt(x).
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[SQ:.*]] = math.sqrt %[[IN]] : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[RS:.*]] = arith.divf %[[ONE]], %[[SQ]] : f32
// CHECK-NEXT: linalg.yield %[[RS]]
// CHECK: math.sin %{{.*}} : f32
// CHECK: math.cos %{{.*}} : f32
// CHECK: math.tanh %{{.*}} : f32
// logistic is 1 / (1 + exp(-x)).
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NEG:.*]] = arith.negf %[[IN]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT: %[[SIG:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: linalg.yield %[[SIG]]
// CHECK: math.erf %{{.*}} : f32
// CHECK: math.floor %{{.*}} : f32
// CHECK: return
func.func @unary_f32(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = adjit.neg %x : tensor<2x3xf32>
  %1 = adjit.abs %x : tensor<2x3xf32>
  %2 = adjit.sign %x : tensor<2x3xf32>
  %3 = adjit.exp %x : tensor<2x3xf32>
  %4 = adjit.expm1 %x : tensor<2x3xf32>
  %5 = adjit.log %x : tensor<2x3xf32>
  %6 = adjit.log1p %x : tensor<2x3xf32>
  %7 = adjit.sqrt %x : tensor<2x3xf32>
  %8 = adjit.rsqrt %x : tensor<2x3xf32>
  %9 = adjit.sin %x : tensor<2x3xf32>
  %10 = adjit.cos %x : tensor<2x3xf32>
  %11 = adjit.tanh %x : tensor<2x3xf32>
  %12 = adjit.logistic %x : tensor<2x3xf32>
  %13 = adjit.erf %x : tensor<2x3xf32>
  %14 = adjit.floor %x : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The trigonometric, hyperbolic and rounding ops: one math op each (round
// ties to even), atan2 taking both operands in order.
// CHECK-LABEL: func.func @trigonometric_hyperbolic_rounding
// CHECK: math.tan %{{.*}} : f64
// CHECK: math.asin %{{.*}} : f64
// CHECK: math.acos %{{.*}} : f64
// CHECK: math.atan %{{.*}} : f64
// CHECK: math.sinh %{{.*}} : f64
// CHECK: math.cosh %{{.*}} : f64
// CHECK: math.asinh %{{.*}} : f64
// CHECK: math.acosh %{{.*}} : f64
// CHECK: math.atanh %{{.*}} : f64
// CHECK: math.cbrt %{{.*}} : f64
// CHECK: math.ceil %{{.*}} : f64
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: ^bb0(%[[Y:.*]]: f64, %[[X:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[A:.*]] = math.atan2 %[[Y]], %[[X]] : f64
// CHECK-NEXT: linalg.yield %[[A]] : f64
func.func @trigonometric_hyperbolic_rounding(%x: tensor<5xf64>, %y: tensor<5xf64>)
    -> (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>,
        tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) {
  %0 = adjit.tan %x : tensor<5xf64>
  %1 = adjit.asin %x : tensor<5xf64>
  %2 = adjit.acos %x : tensor<5xf64>
  %3 = adjit.atan %x : tensor<5xf64>
  %4 = adjit.sinh %x : tensor<5xf64>
  %5 = adjit.cosh %x : tensor<5xf64>
  %6 = adjit.asinh %x : tensor<5xf64>
  %7 = adjit.acosh %x : tensor<5xf64>
  %8 = adjit.atanh %x : tensor<5xf64>
  %9 = adjit.cbrt %x : tensor<5xf64>
  %10 = adjit.ceil %x : tensor<5xf64>
  %11 = adjit.round %x : tensor<5xf64>
  %12 = adjit.atan2 %y, %x : tensor<5xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
      : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>,
        tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
}

// -----

// gelu's scalar rule, for IR that skips adjit-expand-composites: x (0.5 +
// 0.5 s) with s = tanh(x (k + k 0.044715 x^2)); the exact one below.
// CHECK-LABEL: func.func @gelu
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[KC:.*]] = arith.constant 0.0356774069 : f32
// CHECK-NEXT: %[[A:.*]] = arith.mulf %[[SQ]], %[[KC]] : f32
// CHECK-NEXT: %[[K:.*]] = arith.constant 0.797884583 : f32
// CHECK-NEXT: %[[SLOPE:.*]] = arith.addf %[[K]], %[[A]] : f32
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[IN]], %[[SLOPE]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[U]] : f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[HT:.*]] = arith.mulf %[[T]], %[[HALF]] : f32
// CHECK-NEXT: %[[HALF2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[CDF:.*]] = arith.addf %[[HALF2]], %[[HT]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[IN]], %[[CDF]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// On f64 the same form with P a Chebyshev series of 28 terms in 2 t - 1,
// summed by Clenshaw's recurrence.
// CHECK: ^bb0(%[[IN:.*]]: f64, %{{.*}}: f64):
// CHECK-NOT: math.erf
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[IN]], %{{.*}} : f64
// CHECK: %[[MINUS:.*]] = arith.negf %[[IN]] : f64
// CHECK: arith.select %[[NEG]], %[[MINUS]], %[[IN]] : f64
// CHECK: %[[T:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-COUNT-25: arith.subf
// CHECK: math.exp %{{.*}} : f64
// CHECK-NOT: math.exp
// CHECK: arith.select
// CHECK: linalg.yield
func.func @gelu(%x: tensor<2x3xf32>, %d: tensor<4xf64>) -> (tensor<2x3xf32>, tensor<4xf64>) {
  %0 = adjit.gelu %x approximate : tensor<2x3xf32>
  %1 = adjit.gelu %d : tensor<4xf64>
  return %0, %1 : tensor<2x3xf32>, tensor<4xf64>
}

// -----

// The exact gelu on f32 (and f16 and bf16, computed in f32 here) takes
// Phi(x) from erfc (Numerical Recipes' erfcc:
// t e^(P(t) - x^2 / 2) / 2 with t = 1 / (1 + |x| / (2 sqrt 2)), which is
// Phi(-|x|)), not from 1 + erf, which cancels for negative x. |x| is
// select(x < 0, -x, x): the formula is also the derivative rule's, whose
// own derivative at 0 needs |x|'s from the right.
// CHECK-LABEL: func.func @gelu_exact_f32
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: math.erf
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[IN]], %{{.*}} : f32
// CHECK: %[[MINUS:.*]] = arith.negf %[[IN]] : f32
// CHECK: arith.select %[[NEG]], %[[MINUS]], %[[IN]] : f32
// CHECK: %[[T:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-9: arith.mulf %{{.*}}, %[[T]] : f32
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: %[[UPPER:.*]] = arith.subf %{{.*}}, %[[LOWER:.*]] : f32
// CHECK: %[[CDF:.*]] = arith.select %[[NEG]], %[[LOWER]], %[[UPPER]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[IN]], %[[CDF]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @gelu_exact_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = adjit.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// integer_pow multiplies by repeated squaring: x^3 = x * x^2, x^-2 = 1 / x^2
// (floats only), x^6 = x^2 * x^4, and x^0 is 1, reading nothing.
// CHECK-LABEL: func.func @integer_pow
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[CUBE:.*]] = arith.mulf %[[IN]], %[[SQ]] : f32
// CHECK-NEXT: linalg.yield %[[CUBE]] : f32
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE]], %[[SQ]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[SQ:.*]] = arith.muli %[[IN]], %[[IN]] : i32
// CHECK-NEXT: %[[FOURTH:.*]] = arith.muli %[[SQ]], %[[SQ]] : i32
// CHECK-NEXT: %[[R:.*]] = arith.muli %[[SQ]], %[[FOURTH]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
// CHECK: outs(%{{.*}} : tensor<4xi64>)
// CHECK-NEXT: ^bb0(%{{.*}}: i64):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: linalg.yield %[[ONE]] : i64
func.func @integer_pow(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %l: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi64>) {
  %0 = adjit.integer_pow %x, 3 : tensor<2x3xf32>
  %1 = adjit.integer_pow %x, -2 : tensor<2x3xf32>
  %2 = adjit.integer_pow %i, 6 : tensor<4xi32>
  %3 = adjit.integer_pow %l, 0 : tensor<4xi64>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi64>
}

// -----

// relu selects 0 where x <= 0 (ordered: NaN passes, -0 gives +0); on
// integers it is max(x, 0).
// CHECK-LABEL: func.func @relu
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[OFF:.*]] = arith.cmpf ole, %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[OFF]], %[[ZERO]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[R:.*]] = arith.maxsi %[[IN]], %[[ZERO]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
func.func @relu(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %0 = adjit.relu %x : tensor<2x3xf32>
  %1 = adjit.relu %i : tensor<4xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi32>
}

// -----

// Integer neg is 0 - x, abs is max(x, 0 - x), sign selects -1/0/1.
// CHECK-LABEL: func.func @unary_int
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[ZERO]], %[[IN]] : i64
// CHECK-NEXT: linalg.yield %[[N]] : i64
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[NEG:.*]] = arith.subi %[[Z]], %[[IN]] : i64
// CHECK-NEXT: %[[A:.*]] = arith.maxsi %[[IN]], %[[NEG]] : i64
// CHECK-NEXT: linalg.yield %[[A]] : i64
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: i64):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[MONE:.*]] = arith.constant -1 : i64
// CHECK-DAG: %[[GT:.*]] = arith.cmpi sgt, %[[IN]], %[[ZERO]] : i64
// CHECK-DAG: %[[LT:.*]] = arith.cmpi slt, %[[IN]], %[[ZERO]] : i64
// CHECK: %[[S1:.*]] = arith.select %[[LT]], %[[MONE]], %[[ZERO]] : i64
// CHECK-NEXT: %[[S2:.*]] = arith.select %[[GT]], %[[ONE]], %[[S1]] : i64
// CHECK-NEXT: linalg.yield %[[S2]] : i64
func.func @unary_int(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %0 = adjit.neg %x : tensor<4xi64>
  %1 = adjit.abs %x : tensor<4xi64>
  %2 = adjit.sign %x : tensor<4xi64>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}

// -----

// f16 and bf16 math is done in f32 and rounded once; f64 stays f64; 0-d
// tensors get a generic with no loops.
// CHECK-LABEL: func.func @unary_half
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[W]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[N]] : f16
// CHECK: linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[S:.*]] = math.sqrt %[[IN]] : f64
// CHECK-NEXT: linalg.yield %[[S]] : f64
// CHECK: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[NG:.*]] = arith.negf %[[W]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[NG]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @unary_half(%h: tensor<4xf16>, %b: tensor<f64>, %c: tensor<3xbf16>) -> (tensor<4xf16>, tensor<f64>, tensor<3xbf16>) {
  %0 = adjit.exp %h : tensor<4xf16>
  %1 = adjit.sqrt %b : tensor<f64>
  %2 = adjit.neg %c : tensor<3xbf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<f64>, tensor<3xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_f32
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: math.powf
// max and min propagate NaN: maximumf/minimumf, not maxnumf/minnumf.
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @binary_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = adjit.add %x, %y : tensor<4xf32>
  %1 = adjit.sub %x, %y : tensor<4xf32>
  %2 = adjit.mul %x, %y : tensor<4xf32>
  %3 = adjit.div %x, %y : tensor<4xf32>
  %4 = adjit.pow %x, %y : tensor<4xf32>
  %5 = adjit.max %x, %y : tensor<4xf32>
  %6 = adjit.min %x, %y : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// rem is fmod for floats; for integers a signed remainder by a divisor
// made safe (1 where it is 0, or -1 beside INT_MIN), x where it was 0.
// CHECK-LABEL: func.func @remainders
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.remf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i64
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Y]] : i64
// CHECK: %[[REM:.*]] = arith.remsi %[[X]], %[[SAFE]] : i64
// CHECK: %[[RESULT:.*]] = arith.select %[[ZERO]], %[[X]], %[[REM]] : i64
// CHECK-NEXT: linalg.yield %[[RESULT]] : i64
func.func @remainders(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<3xi64>, %j: tensor<3xi64>) -> (tensor<4xf32>, tensor<3xi64>) {
  %0 = adjit.rem %x, %y : tensor<4xf32>
  %1 = adjit.rem %i, %j : tensor<3xi64>
  return %0, %1 : tensor<4xf32>, tensor<3xi64>
}

// -----

// Signed integer semantics: truncating division, signed max/min.
// CHECK-LABEL: func.func @binary_i32
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.divsi
// CHECK: math.ipowi
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @binary_i32(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = adjit.add %x, %y : tensor<4xi32>
  %1 = adjit.sub %x, %y : tensor<4xi32>
  %2 = adjit.mul %x, %y : tensor<4xi32>
  %3 = adjit.div %x, %y : tensor<4xi32>
  %4 = adjit.pow %x, %y : tensor<4xi32>
  %5 = adjit.max %x, %y : tensor<4xi32>
  %6 = adjit.min %x, %y : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @binary_bf16
// CHECK: ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[WA:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT: %[[WB:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[WA]], %[[WB]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @binary_bf16(%x: tensor<2x2xbf16>, %y: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  %0 = adjit.mul %x, %y : tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// -----

// Float comparisons are ordered except ne, which is unordered (true for NaN).
// CHECK-LABEL: func.func @compare_f32
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT: %[[R:.*]] = arith.cmpf oeq, %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
func.func @compare_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = adjit.compare eq, %x, %y : tensor<4xf32>
  %1 = adjit.compare ne, %x, %y : tensor<4xf32>
  %2 = adjit.compare lt, %x, %y : tensor<4xf32>
  %3 = adjit.compare le, %x, %y : tensor<4xf32>
  %4 = adjit.compare gt, %x, %y : tensor<4xf32>
  %5 = adjit.compare ge, %x, %y : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @compare_int
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i1
// CHECK: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %{{.*}}: i1):
// CHECK-NEXT: %[[WA:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[WB:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[R:.*]] = arith.cmpf olt, %[[WA]], %[[WB]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : i1
func.func @compare_int(%x: tensor<4xi64>, %y: tensor<4xi64>, %p: tensor<4xi1>, %h: tensor<4xf16>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = adjit.compare eq, %x, %y : tensor<4xi64>
  %1 = adjit.compare ne, %x, %y : tensor<4xi64>
  %2 = adjit.compare lt, %x, %y : tensor<4xi64>
  %3 = adjit.compare le, %x, %y : tensor<4xi64>
  %4 = adjit.compare gt, %x, %y : tensor<4xi64>
  %5 = adjit.compare ge, %x, %y : tensor<4xi64>
  %6 = adjit.compare ne, %p, %p : tensor<4xi1>
  %7 = adjit.compare lt, %h, %h : tensor<4xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// select on f16 does not widen; the logical ops are bitwise on i1.
// CHECK-LABEL: func.func @select_logic
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>, %[[Q:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf16>, %[[Y:.*]]: tensor<4xf16>)
// CHECK: ins(%[[P]], %[[X]], %[[Y]] : tensor<4xi1>, tensor<4xf16>, tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %[[A:.*]]: f16, %[[B:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f16
// CHECK-NEXT: linalg.yield %[[S]] : f16
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: ^bb0(%[[IN:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[NOT:.*]] = arith.xori %[[IN]], %[[TRUE]] : i1
// CHECK-NEXT: linalg.yield %[[NOT]] : i1
func.func @select_logic(%p: tensor<4xi1>, %q: tensor<4xi1>, %x: tensor<4xf16>, %y: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = adjit.select %p, %x, %y : tensor<4xi1>, tensor<4xf16>
  %1 = adjit.and %p, %q : tensor<4xi1>
  %2 = adjit.or %p, %q : tensor<4xi1>
  %3 = adjit.not %p : tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xf16>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// stop_gradient disappears.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = adjit.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

// Float to integer: fptosi alone is poison out of range, so the result is
// saturated with selects and NaN gives 0.
// CHECK-LABEL: func.func @convert_float_to_int
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK-DAG: %[[LO:.*]] = arith.constant -2.14748365E+9 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 2.14748365E+9 : f32
// CHECK-DAG: %[[T:.*]] = arith.fptosi %[[IN]] : f32 to i32
// CHECK-DAG: %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK-DAG: %[[TOOLOW:.*]] = arith.cmpf olt, %[[IN]], %[[LO]] : f32
// CHECK-DAG: %[[TOOHIGH:.*]] = arith.cmpf oge, %[[IN]], %[[HI]] : f32
// CHECK-DAG: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[S1:.*]] = arith.select %[[TOOHIGH]], %[[MAX]], %[[T]] : i32
// CHECK-DAG: %[[S2:.*]] = arith.select %[[TOOLOW]], %[[MIN]], %[[S1]] : i32
// CHECK-DAG: %[[S3:.*]] = arith.select %[[NAN]], %[[ZERO]], %[[S2]] : i32
// CHECK: linalg.yield %[[S3]] : i32
// f16 to i64 widens to f32 first.
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: i64):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-DAG: arith.fptosi %[[W]] : f32 to i64
// CHECK-DAG: arith.constant 9223372036854775807 : i64
// CHECK-DAG: arith.constant -9223372036854775808 : i64
// CHECK: linalg.yield
func.func @convert_float_to_int(%x: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xi32>, tensor<4xi64>) {
  %0 = adjit.convert %x : tensor<4xf32> to tensor<4xi32>
  %1 = adjit.convert %h : tensor<4xf16> to tensor<4xi64>
  return %0, %1 : tensor<4xi32>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @convert_bool
// To i1 is x != 0 (unordered for floats, so NaN is true).
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.cmpf une, %[[IN]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[R:.*]] = arith.cmpi ne, %[[IN]], %[[Z]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i1
// From i1 is 0 or 1: zero extension, never sign extension.
// CHECK: ^bb0(%[[IN:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = arith.extui %[[IN]] : i1 to i32
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[E]] : i32 to f32
// CHECK-NEXT: linalg.yield %[[F]] : f32
// CHECK: ^bb0(%[[IN:.*]]: i1, %{{.*}}: i64):
// CHECK-NEXT: %[[E:.*]] = arith.extui %[[IN]] : i1 to i64
// CHECK-NEXT: linalg.yield %[[E]] : i64
func.func @convert_bool(%x: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) {
  %0 = adjit.convert %x : tensor<4xf32> to tensor<4xi1>
  %1 = adjit.convert %i : tensor<4xi32> to tensor<4xi1>
  %2 = adjit.convert %p : tensor<4xi1> to tensor<4xf32>
  %3 = adjit.convert %p : tensor<4xi1> to tensor<4xi64>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @convert_numbers
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: i32):
// CHECK-NEXT: %[[R:.*]] = arith.trunci %[[IN]] : i64 to i32
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i64):
// CHECK-NEXT: %[[R:.*]] = arith.extsi %[[IN]] : i32 to i64
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.sitofp %[[IN]] : i32 to f32
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f16):
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[IN]] : i32 to f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f64):
// CHECK-NEXT: %[[R:.*]] = arith.extf %[[IN]] : f32 to f64
// Half formats convert through f32.
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[W]] : f32 to bf16
// CHECK: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: f64):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[R:.*]] = arith.extf %[[W]] : f32 to f64
func.func @convert_numbers(%i: tensor<4xi32>, %l: tensor<4xi64>, %x: tensor<4xf32>, %h: tensor<4xf16>, %b: tensor<4xbf16>)
    -> (tensor<4xi32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf16>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf64>) {
  %0 = adjit.convert %l : tensor<4xi64> to tensor<4xi32>
  %1 = adjit.convert %i : tensor<4xi32> to tensor<4xi64>
  %2 = adjit.convert %i : tensor<4xi32> to tensor<4xf32>
  %3 = adjit.convert %i : tensor<4xi32> to tensor<4xf16>
  %4 = adjit.convert %x : tensor<4xf32> to tensor<4xf64>
  %5 = adjit.convert %h : tensor<4xf16> to tensor<4xbf16>
  %6 = adjit.convert %b : tensor<4xbf16> to tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf16>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf64>
}

// -----

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// Result dimensions not in dims are not read; size-1 operand dimensions read
// index 0; dims may reorder dimensions.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>, %[[Y:.*]]: tensor<2x1xi64>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<f32>) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[Y]] : tensor<2x1xi64>) outs(%{{.*}} : tensor<2x3x4xi64>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[Y]] : tensor<2x1xi64>) outs(%{{.*}} : tensor<5x2xi64>)
func.func @broadcast(%x: tensor<3xf32>, %s: tensor<f32>, %y: tensor<2x1xi64>) -> (tensor<2x3xf32>, tensor<4x5xf32>, tensor<2x3x4xi64>, tensor<5x2xi64>) {
  %0 = adjit.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = adjit.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
  %2 = adjit.broadcast_in_dim %y, dims = [0, 2] : (tensor<2x1xi64>) -> tensor<2x3x4xi64>
  %3 = adjit.broadcast_in_dim %y, dims = [1, 0] : (tensor<2x1xi64>) -> tensor<5x2xi64>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<4x5xf32>, tensor<2x3x4xi64>, tensor<5x2xi64>
}

// -----

// Reshapes are metadata only: collapse to 1-D, expand to the result.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<f32>, %[[V:.*]]: tensor<6xi32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R0:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: %[[R1:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R2:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: %[[R3:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xi32> into tensor<2x3xi32>
// reshape(reshape(s)) back to the type of s folds away.
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[S]]
func.func @reshape(%x: tensor<2x3xf32>, %s: tensor<f32>, %v: tensor<6xi32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<1x1xf32>, tensor<2x3xi32>, tensor<f32>) {
  %0 = adjit.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = adjit.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = adjit.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %3 = adjit.reshape %v : (tensor<6xi32>) -> tensor<2x3xi32>
  %4 = adjit.reshape %2 : (tensor<1x1xf32>) -> tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<3x2xf32>, tensor<6xf32>, tensor<1x1xf32>, tensor<2x3xi32>, tensor<f32>
}

// -----

// Result dimension i reads operand dimension perm[i]: the input map sends the
// loop indices back to operand positions.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3x4xi1>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[Y]] : tensor<2x3x4xi1>) outs(%{{.*}} : tensor<4x2x3xi1>)
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x3x4xi1>) -> (tensor<3x2xf32>, tensor<4x2x3xi1>) {
  %0 = adjit.transpose %x, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = adjit.transpose %y, perm = [2, 0, 1] : (tensor<2x3x4xi1>) -> tensor<4x2x3xi1>
  return %0, %1 : tensor<3x2xf32>, tensor<4x2x3xi1>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<4x5xi32>)
// CHECK: %[[A:.*]] = tensor.extract_slice %[[X]][1] [3] [2] : tensor<8xf32> to tensor<3xf32>
// CHECK: %[[B:.*]] = tensor.extract_slice %[[Y]][0, 2] [2, 3] [3, 1] : tensor<4x5xi32> to tensor<2x3xi32>
// CHECK: return %[[A]], %[[B]]
func.func @slice(%x: tensor<8xf32>, %y: tensor<4x5xi32>) -> (tensor<3xf32>, tensor<2x3xi32>) {
  %0 = adjit.slice %x, start = [1], limit = [7], stride = [2] : (tensor<8xf32>) -> tensor<3xf32>
  %1 = adjit.slice %y, start = [0, 2], limit = [4, 5], stride = [3, 1] : (tensor<4x5xi32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<3xf32>, tensor<2x3xi32>
}

// -----

// A block at run-time starts: each start clamped into [0, size - block].
// CHECK-LABEL: func.func @dynamic_blocks
// CHECK-SAME: (%[[X:.*]]: tensor<8x6xf32>, %[[I:.*]]: tensor<i32>, %[[U:.*]]: tensor<2x6xf32>)
// CHECK: %[[S:.*]] = tensor.extract %[[I]][] : tensor<i32>
// CHECK: %[[LO:.*]] = arith.maxsi %[[S]], %{{.*}} : i32
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : i32
// CHECK: %[[ROW:.*]] = arith.index_cast %[[HI]] : i32 to index
// CHECK: %[[Z:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[A:.*]] = tensor.extract_slice %[[X]][%[[ROW]], %[[Z]]] [2, 3] [1, 1] : tensor<8x6xf32> to tensor<2x3xf32>
// CHECK: %[[B:.*]] = tensor.insert_slice %[[U]] into %[[X]][%{{.*}}, %{{.*}}] [2, 6] [1, 1] : tensor<2x6xf32> into tensor<8x6xf32>
// CHECK: return %[[A]], %[[B]]
func.func @dynamic_blocks(%x: tensor<8x6xf32>, %i: tensor<i32>, %u: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<8x6xf32>) {
  %0 = adjit.dynamic_slice %x[%i, %i] : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %1 = adjit.dynamic_update_slice %x[%i, %i], %u : (tensor<8x6xf32>, tensor<i32>, tensor<i32>, tensor<2x6xf32>) -> tensor<8x6xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<8x6xf32>
}

// -----

// Each input is inserted at the running offset along dim.
// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<5x3xf32>
// CHECK-NEXT: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<5x3xf32>
// CHECK-NEXT: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][2, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<5x3xf32>
// CHECK-NEXT: %[[I2:.*]] = tensor.insert_slice %[[A]] into %[[I1]][3, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<5x3xf32>
// CHECK: %[[F:.*]] = tensor.empty() : tensor<2x7xf32>
// CHECK-NEXT: %[[J0:.*]] = tensor.insert_slice %[[A]] into %[[F]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x7xf32>
// CHECK-NEXT: %[[J1:.*]] = tensor.insert_slice %[[C]] into %[[J0]][0, 3] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x7xf32>
// CHECK: return %[[I2]], %[[J1]]
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %c: tensor<2x4xf32>) -> (tensor<5x3xf32>, tensor<2x7xf32>) {
  %0 = adjit.concatenate(%a, %b, %a) dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  %1 = adjit.concatenate(%a, %c) dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  return %0, %1 : tensor<5x3xf32>, tensor<2x7xf32>
}

// -----

// More than 16 inputs go in groups of 16, each group concatenated into a
// tensor of its own and the groups into the result: One-Shot Bufferize and
// empty-tensor elimination take time superlinear in a chain's length.
// CHECK-LABEL: func.func @concatenate_many
// CHECK: %[[G0:.*]] = tensor.empty() : tensor<16x3xf32>
// CHECK-COUNT-16: tensor.insert_slice %{{.*}} into %{{.*}} : tensor<1x3xf32> into tensor<16x3xf32>
// CHECK: %[[G1:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK-COUNT-4: tensor.insert_slice %{{.*}} into %{{.*}} : tensor<1x3xf32> into tensor<4x3xf32>
// CHECK: %[[R:.*]] = tensor.empty() : tensor<20x3xf32>
// CHECK-NEXT: %[[R0:.*]] = tensor.insert_slice %{{.*}} into %[[R]][0, 0] [16, 3] [1, 1] : tensor<16x3xf32> into tensor<20x3xf32>
// CHECK-NEXT: %[[R1:.*]] = tensor.insert_slice %{{.*}} into %[[R0]][16, 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<20x3xf32>
// CHECK-NEXT: return %[[R1]]
func.func @concatenate_many(%a: tensor<1x3xf32>) -> tensor<20x3xf32> {
  %0 = adjit.concatenate(%a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a) dim = 0 : (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<20x3xf32>
  return %0 : tensor<20x3xf32>
}

// -----

// pad: with interior padding, fill with the padding value and insert the
// operand at offset low with stride interior + 1; without, a tensor.pad
// (adjit-split-padded-consumers reads it in place or lowers it).
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Z:.*]]: tensor<f32>, %[[Y:.*]]: tensor<2x2xi64>, %[[W:.*]]: tensor<i64>)
// CHECK: %[[V:.*]] = tensor.extract %[[Z]][] : tensor<f32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK: %[[P0:.*]] = tensor.insert_slice %[[X]] into %[[F]][1] [3] [2] : tensor<3xf32> into tensor<8xf32>
// CHECK: %[[V2:.*]] = tensor.extract %[[W]][] : tensor<i64>
// CHECK: %[[P1:.*]] = tensor.pad %[[Y]] low[0, 1] high[1, 0] {
// CHECK: tensor.yield %[[V2]] : i64
// CHECK: } : tensor<2x2xi64> to tensor<3x3xi64>
// CHECK: return %[[P0]], %[[P1]]
func.func @pad(%x: tensor<3xf32>, %z: tensor<f32>, %y: tensor<2x2xi64>, %w: tensor<i64>) -> (tensor<8xf32>, tensor<3x3xi64>) {
  %0 = adjit.pad %x, %z, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = adjit.pad %y, %w, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x2xi64>, tensor<i64>) -> tensor<3x3xi64>
  return %0, %1 : tensor<8xf32>, tensor<3x3xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

// gather: a generic over the result that reads the (clamped) index and
// extracts from the operand.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[M:.*]]: tensor<2x5x3xi64>, %[[J:.*]]: tensor<2x2xi64>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IDS]] : tensor<3xi32>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: i32, %{{.*}}: f32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[LAST:.*]] = arith.constant 9 : i32
// CHECK-DAG: %[[LO:.*]] = arith.maxsi %[[I]], %[[ZERO]] : i32
// CHECK-DAG: %[[CL:.*]] = arith.minsi %[[LO]], %[[LAST]] : i32
// CHECK-DAG: %[[IX:.*]] = arith.index_cast %[[CL]] : i32 to index
// CHECK-DAG: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[IX]], %[[COL]]] : tensor<10x4xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
// Axis 1 with 2-D indices: result dims (a, i, j, b) read operand[a, idx[i, j], b].
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[J]] : tensor<2x2xi64>) outs(%{{.*}} : tensor<2x2x2x3xi64>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: i64, %{{.*}}: i64):
// CHECK-DAG: %[[A:.*]] = linalg.index 0 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[B:.*]] = linalg.index 3 : index
// CHECK-DAG: %[[IX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[V:.*]] = tensor.extract %[[M]][%[[A]], %[[IX]], %[[B]]] : tensor<2x5x3xi64>
// CHECK-NEXT: linalg.yield %[[V]] : i64
func.func @gather(%t: tensor<10x4xf32>, %ids: tensor<3xi32>, %m: tensor<2x5x3xi64>, %j: tensor<2x2xi64>) -> (tensor<3x4xf32>, tensor<2x2x2x3xi64>) {
  %0 = adjit.gather %t[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %1 = adjit.gather %m[%j], axis = 1 : (tensor<2x5x3xi64>, tensor<2x2xi64>) -> tensor<2x2x2x3xi64>
  return %0, %1 : tensor<3x4xf32>, tensor<2x2x2x3xi64>
}

// -----

// scatter_add: sequential scf.for loops over the updates, so repeated indices
// accumulate deterministically; f16 accumulates each addition in f32.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[BASE:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[UPD:.*]]: tensor<3x4xf32>, %[[HB:.*]]: tensor<5xf16>, %[[HI:.*]]: tensor<2xi64>, %[[HU:.*]]: tensor<2xf16>)
// CHECK-NOT: linalg.generic
// CHECK: %[[R0:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:.*]] = %[[BASE]]) -> (tensor<10x4xf32>)
// CHECK-NEXT: %[[R1:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (tensor<10x4xf32>)
// CHECK-NEXT: %[[IDX:.*]] = tensor.extract %[[IDS]][%[[I]]] : tensor<3xi32>
// CHECK: arith.maxsi %[[IDX]]
// CHECK: arith.minsi
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[U:.*]] = tensor.extract %[[UPD]][%[[I]], %[[K]]] : tensor<3x4xf32>
// CHECK: %[[CUR:.*]] = tensor.extract %[[ACC]][%[[ROW]], %[[K]]] : tensor<10x4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[CUR]], %[[U]] : f32
// CHECK: %[[INS:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[ROW]], %[[K]]] : tensor<10x4xf32>
// CHECK-NEXT: scf.yield %[[INS]] : tensor<10x4xf32>
// CHECK: scf.yield %[[R1]] : tensor<10x4xf32>
// CHECK: %[[R2:.*]] = scf.for %{{.*}} iter_args(%[[HACC:.*]] = %[[HB]]) -> (tensor<5xf16>)
// CHECK: %[[HU1:.*]] = tensor.extract %[[HU]]
// CHECK-NEXT: %[[HUW:.*]] = arith.extf %[[HU1]] : f16 to f32
// CHECK: %[[HCUR:.*]] = tensor.extract %[[HACC]]
// CHECK-NEXT: %[[HCURW:.*]] = arith.extf %[[HCUR]] : f16 to f32
// CHECK-NEXT: %[[HSUM:.*]] = arith.addf %[[HCURW]], %[[HUW]] : f32
// CHECK-NEXT: %[[HN:.*]] = arith.truncf %[[HSUM]] : f32 to f16
// CHECK-NEXT: tensor.insert %[[HN]] into %[[HACC]]
// CHECK: return %[[R0]], %[[R2]]
func.func @scatter_add(%base: tensor<10x4xf32>, %ids: tensor<3xi32>, %upd: tensor<3x4xf32>, %hb: tensor<5xf16>, %hi: tensor<2xi64>, %hu: tensor<2xf16>) -> (tensor<10x4xf32>, tensor<5xf16>) {
  %0 = adjit.scatter_add %upd into %base[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  %1 = adjit.scatter_add %hu into %hb[%hi], axis = 0 : (tensor<5xf16>, tensor<2xi64>, tensor<2xf16>) -> tensor<5xf16>
  return %0, %1 : tensor<10x4xf32>, tensor<5xf16>
}

// -----

// Rows of at least 8 elements after the indexed dimension (an embedding's
// gradient): a loop over the indices only, each combining a whole row in
// an elementwise generic whose destination is the result's row (updated in
// place once bufferized); repeated indices still combine in order.
// CHECK-LABEL: func.func @scatter_rows
// CHECK-SAME: (%[[BASE:.*]]: tensor<10x16xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[UPD:.*]]: tensor<3x16xf32>)
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[BASE]]) -> (tensor<10x16xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[IDX:.*]] = tensor.extract %[[IDS]][%[[I]]] : tensor<3xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[U:.*]] = tensor.extract_slice %[[UPD]][%[[I]], 0] [1, 16] [1, 1] : tensor<3x16xf32> to tensor<16xf32>
// CHECK: %[[CUR:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 16] [1, 1] : tensor<10x16xf32> to tensor<16xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[U]] : tensor<16xf32>) outs(%[[CUR]] : tensor<16xf32>)
// CHECK: ^bb0(%[[UE:.*]]: f32, %[[CE:.*]]: f32):
// CHECK: arith.addf %[[CE]], %[[UE]] : f32
// CHECK: %[[NEXT:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<10x16xf32>
// CHECK: scf.yield %[[NEXT]] : tensor<10x16xf32>
// CHECK: return %[[R]]
func.func @scatter_rows(%base: tensor<10x16xf32>, %ids: tensor<3xi32>, %upd: tensor<3x16xf32>) -> tensor<10x16xf32> {
  %0 = adjit.scatter_add %upd into %base[%ids], axis = 0 : (tensor<10x16xf32>, tensor<3xi32>, tensor<3x16xf32>) -> tensor<10x16xf32>
  return %0 : tensor<10x16xf32>
}

// -----

// scatter_extremum: the same loops, keeping the max (NaN propagating:
// arith.maximumf) or the signed integer min.
// CHECK-LABEL: func.func @scatter_extremum
// CHECK-SAME: (%[[BASE:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[UPD:.*]]: tensor<3x4xf32>, %[[IB:.*]]: tensor<5xi32>, %[[IU:.*]]: tensor<3xi32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[BASE]]) -> (tensor<10x4xf32>)
// CHECK: %[[U:.*]] = tensor.extract %[[UPD]][%[[I]], %{{.*}}] : tensor<3x4xf32>
// CHECK: %[[CUR:.*]] = tensor.extract
// CHECK: %[[MAX:.*]] = arith.maximumf %[[CUR]], %[[U]] : f32
// CHECK: tensor.insert %[[MAX]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[IB]]) -> (tensor<5xi32>)
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i32
func.func @scatter_extremum(%base: tensor<10x4xf32>, %ids: tensor<3xi32>, %upd: tensor<3x4xf32>, %ib: tensor<5xi32>, %iu: tensor<3xi32>) -> (tensor<10x4xf32>, tensor<5xi32>) {
  %0 = adjit.scatter_extremum max %upd into %base[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  %1 = adjit.scatter_extremum min %iu into %ib[%iu], axis = 0 : (tensor<5xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<5xi32>
  return %0, %1 : tensor<10x4xf32>, tensor<5xi32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

// reduce: fill with the identity (0, -inf/+inf or the lowest/highest integer),
// then one generic with reduction iterators on the reduced dimensions; float
// sums may reassociate (so that they vectorize).
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4x5x6xi32>, %[[H:.*]]: tensor<8xbf16>, %[[F:.*]]: tensor<4xf64>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<2xf32>) -> tensor<2xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[OUT]], %[[IN]] fastmath<reassoc> : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[LOWEST:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[LOWEST]] : i32) outs(%{{.*}} : tensor<5xi32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[I]] : tensor<4x5x6xi32>) outs(%[[INIT]] : tensor<5xi32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i32, %[[OUT:.*]]: i32):
// CHECK-NEXT: arith.maxsi %[[OUT]], %[[IN]] : i32
// bf16 accumulates in f32 and is rounded once at the end.
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[H]] : tensor<8xbf16>) outs(%[[INIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[OUT]], %[[W]] fastmath<reassoc> : f32
// CHECK-NEXT: linalg.yield %[[ADD]] : f32
// CHECK: %[[HSUM:.*]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<f32>) outs(%{{.*}} : tensor<bf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[INF:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK: linalg.fill ins(%[[INF]] : f64)
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f64
// CHECK: %[[HIGHEST:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[HIGHEST]] : i32)
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK: return %[[SUM]], %[[MAX]], %[[HSUM]]
func.func @reduce(%x: tensor<2x3xf32>, %i: tensor<4x5x6xi32>, %h: tensor<8xbf16>, %f: tensor<4xf64>) -> (tensor<2xf32>, tensor<5xi32>, tensor<bf16>, tensor<f64>, tensor<5xi32>) {
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = adjit.reduce max %i, dims = [0, 2] : (tensor<4x5x6xi32>) -> tensor<5xi32>
  %2 = adjit.reduce sum %h, dims = [0] : (tensor<8xbf16>) -> tensor<bf16>
  %3 = adjit.reduce min %f, dims = [0] : (tensor<4xf64>) -> tensor<f64>
  %4 = adjit.reduce min %i, dims = [0, 2] : (tensor<4x5x6xi32>) -> tensor<5xi32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<5xi32>, tensor<bf16>, tensor<f64>, tensor<5xi32>
}

// -----

// A max or min that ignores NaN (softmax's shift) combines with maxnumf
// (minnumf), from -inf (+inf) as the exact ones.
// CHECK-LABEL: func.func @reduce_ignoring_nan
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.constant 0x7FF0000000000000 : f64
// CHECK: arith.minnumf %{{.*}}, %{{.*}} : f64
func.func @reduce_ignoring_nan(%x: tensor<2x3xf32>, %f: tensor<4xf64>) -> (tensor<2xf32>, tensor<f64>) {
  %0 = adjit.reduce max %x, dims = [1] ignores_nan : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = adjit.reduce min %f, dims = [0] ignores_nan : (tensor<4xf64>) -> tensor<f64>
  return %0, %1 : tensor<2xf32>, tensor<f64>
}

// -----

// argmax: one generic with two outputs (best value, best index); strictly
// greater keeps the first index, the first NaN wins (greater or NaN, while
// the best is not NaN).
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<5xi64>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BESTV:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[BESTI:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<2xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[BESTV]], %[[BESTI]] : tensor<2xf32>, tensor<2xi64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[V:.*]]: f32, %[[IX:.*]]: i64):
// CHECK-DAG: %[[GTORNAN:.*]] = arith.cmpf ugt, %[[IN]], %[[V]] : f32
// CHECK-DAG: %[[VORD:.*]] = arith.cmpf ord, %[[V]], %[[V]] : f32
// CHECK-DAG: %[[BETTER:.*]] = arith.andi %[[GTORNAN]], %[[VORD]] : i1
// CHECK-DAG: %[[POS:.*]] = linalg.index 1 : index
// CHECK-DAG: %[[POSI:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK-DAG: %[[NV:.*]] = arith.select %[[BETTER]], %[[IN]], %[[V]] : f32
// CHECK-DAG: %[[NI:.*]] = arith.select %[[BETTER]], %[[POSI]], %[[IX]] : i64
// CHECK: linalg.yield %[[NV]], %[[NI]] : f32, i64
// Integers start from the lowest value; the index type may be i32.
// CHECK: %[[LOWEST:.*]] = arith.constant -9223372036854775808 : i64
// CHECK: %[[S:.*]]:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[I]] : tensor<5xi64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i64, %[[V:.*]]: i64, %[[IX:.*]]: i32):
// CHECK: arith.cmpi sgt, %[[IN]], %[[V]] : i64
// CHECK: arith.index_cast %{{.*}} : index to i32
// CHECK: return %[[R]]#1, %[[S]]#1
func.func @argmax(%x: tensor<2x3xf32>, %i: tensor<5xi64>) -> (tensor<2xi64>, tensor<i32>) {
  %0 = adjit.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
  %1 = adjit.argmax %i, axis = 0 : (tensor<5xi64>) -> tensor<i32>
  return %0, %1 : tensor<2xi64>, tensor<i32>
}

// -----

// A plain matmul needs no transposes or reshapes: one generic iterating
// (i, p, j), so the innermost loop runs along rows of B and C. Its sum may
// be reordered, as the GEMM kernels do and as a reduction's may.
// CHECK-LABEL: func.func @dot_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x5xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x5xf32>) outs(%[[INIT]] : tensor<4x5xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[P]] fastmath<reassoc> : f32
// CHECK: return %[[MM]]
func.func @dot_matmul(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// A batched f16 contraction: widened to f32, contracted, rounded back.
// CHECK-LABEL: func.func @dot_batched_f16
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf16>, %[[Y:.*]]: tensor<2x8x5xf16>)
// CHECK: %[[XW:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x4x8xf16>) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[YW:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<2x8x5xf16>) outs(%{{.*}} : tensor<2x8x5xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x5xf32>)
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[XW]], %[[YW]] : tensor<2x4x8xf32>, tensor<2x8x5xf32>) outs(%[[INIT]] : tensor<2x4x5xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<2x4x5xf32>) outs(%{{.*}} : tensor<2x4x5xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[R]]
func.func @dot_batched_f16(%x: tensor<2x4x8xf16>, %y: tensor<2x8x5xf16>) -> tensor<2x4x5xf16> {
  %0 = adjit.dot_general %x, %y, batch = [0] x [0], contract = [2] x [1] : (tensor<2x4x8xf16>, tensor<2x8x5xf16>) -> tensor<2x4x5xf16>
  return %0 : tensor<2x4x5xf16>
}

// -----

// Operands are read in place, whatever their dimension order: lhs 8x4
// contracted on dim 0, rhs 5x8 on dim 1, no transposed copies.
// CHECK-LABEL: func.func @dot_transposed
// CHECK-SAME: (%[[P:.*]]: tensor<8x4xf64>, %[[Q:.*]]: tensor<5x8xf64>)
// CHECK-NOT: linalg.generic
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[P]], %[[Q]] : tensor<8x4xf64>, tensor<5x8xf64>) outs(%{{.*}} : tensor<4x5xf64>)
// CHECK: return %[[MM]]
func.func @dot_transposed(%p: tensor<8x4xf64>, %q: tensor<5x8xf64>) -> tensor<4x5xf64> {
  %0 = adjit.dot_general %p, %q, batch = [] x [], contract = [0] x [1] : (tensor<8x4xf64>, tensor<5x8xf64>) -> tensor<4x5xf64>
  return %0 : tensor<4x5xf64>
}

// -----

// A dot product (both operands fully contracted: no parallel loop) and a
// batched matrix-vector product (no rhs free dimension) need no reshapes.
// CHECK-LABEL: func.func @dot_reshaped
// CHECK-SAME: (%[[V:.*]]: tensor<8xi32>, %[[W:.*]]: tensor<8xi32>, %[[M:.*]]: tensor<3x4x8xf32>, %[[U:.*]]: tensor<3x8xf32>)
// CHECK: %[[D:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[V]], %[[W]] : tensor<8xi32>, tensor<8xi32>) outs(%{{.*}} : tensor<i32>)
// CHECK: %[[MV:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[M]], %[[U]] : tensor<3x4x8xf32>, tensor<3x8xf32>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: return %[[D]], %[[MV]]
func.func @dot_reshaped(%v: tensor<8xi32>, %w: tensor<8xi32>, %m: tensor<3x4x8xf32>, %u: tensor<3x8xf32>) -> (tensor<i32>, tensor<3x4xf32>) {
  %0 = adjit.dot_general %v, %w, batch = [] x [], contract = [0] x [0] : (tensor<8xi32>, tensor<8xi32>) -> tensor<i32>
  %1 = adjit.dot_general %m, %u, batch = [0] x [0], contract = [2] x [1] : (tensor<3x4x8xf32>, tensor<3x8xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<i32>, tensor<3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra: loops over the batch, and in them the algorithm on one
// matrix with tensor.extract/insert; loops of up to 8 iterations between
// constant bounds are unrolled (9x9 matrices keep theirs).
//===----------------------------------------------------------------------===//

// cholesky: zeros, then column j's diagonal sqrt(s) (NaN unless s > 0) and
// the entries below it divided by it; the symmetric part (a[i][j] +
// a[j][i]) / 2 is read; a NaN in the last diagonal entry fills the matrix
// with NaN.
// CHECK-LABEL: func.func @cholesky
// CHECK-SAME: (%[[A:.*]]: tensor<2x9x9xf32>)
// CHECK: %[[ZEROS:.*]] = linalg.fill
// CHECK: %[[R:.*]] = scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ZEROS]]) -> (tensor<2x9x9xf32>)
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[L:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[LJ:.*]] = %{{.*}}) -> (tensor<2x9x9xf32>)
// CHECK: %[[S:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: %[[POSITIVE:.*]] = arith.cmpf ogt, %[[S]], %{{.*}} : f32
// CHECK: %[[ROOT:.*]] = math.sqrt %[[S]] : f32
// CHECK: %[[D:.*]] = arith.select %[[POSITIVE]], %[[ROOT]], %[[NAN]] : f32
// CHECK: tensor.insert %[[D]] into %[[LJ]][%[[B]], %[[J]], %[[J]]]
// CHECK: tensor.extract %[[A]][%[[B]], %[[J]], %[[I:.*]]] : tensor<2x9x9xf32>
// CHECK: tensor.extract %[[A]][%[[B]], %[[I]], %[[J]]] : tensor<2x9x9xf32>
// CHECK: %[[V:.*]] = scf.for
// CHECK: arith.divf %[[V]], %[[D]] : f32
// CHECK: %[[FAILED:.*]] = arith.cmpf uno
// CHECK: scf.if %[[FAILED]] -> (tensor<2x9x9xf32>)
// CHECK: tensor.insert %[[NAN]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[L]]
// CHECK: return %[[R]]
func.func @cholesky(%a: tensor<2x9x9xf32>) -> tensor<2x9x9xf32> {
  %0 = adjit.cholesky %a : tensor<2x9x9xf32>
  return %0 : tensor<2x9x9xf32>
}

// -----

// triangular_solve, upper triangular and transposed: op(A) = A^T is lower,
// so rows are solved from the first down, reading A[k][i].
// CHECK-LABEL: func.func @triangular_solve_transposed
// CHECK-SAME: (%[[A:.*]]: tensor<9x9xf64>, %[[RHS:.*]]: tensor<9x12xf64>)
// CHECK: %[[X:.*]] = scf.for %[[I:.*]] = %[[ZERO:.*]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[RHS]]) -> (tensor<9x12xf64>)
// CHECK: scf.for %[[C:.*]] = %[[ZERO]] to %{{.*}} step %{{.*}} iter_args(%[[XC:.*]] = %{{.*}}) -> (tensor<9x12xf64>)
// CHECK: scf.for %[[K:.*]] = %[[ZERO]] to %[[I]] step
// CHECK: tensor.extract %[[A]][%[[K]], %[[I]]] : tensor<9x9xf64>
// CHECK: tensor.extract %[[XC]][%[[K]], %[[C]]] : tensor<9x12xf64>
// CHECK: tensor.extract %[[A]][%[[I]], %[[I]]] : tensor<9x9xf64>
// CHECK: arith.divf
// CHECK: return %[[X]]
func.func @triangular_solve_transposed(%a: tensor<9x9xf64>, %b: tensor<9x12xf64>) -> tensor<9x12xf64> {
  %0 = adjit.triangular_solve %a, %b {transpose_a} : (tensor<9x9xf64>, tensor<9x12xf64>) -> tensor<9x12xf64>
  return %0 : tensor<9x12xf64>
}

// -----

// triangular_solve, lower with a unit diagonal: no division, and the
// diagonal is never read.
// CHECK-LABEL: func.func @triangular_solve_unit
// CHECK-NOT: arith.divf
// CHECK: return
func.func @triangular_solve_unit(%a: tensor<3x3xf32>, %b: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = adjit.triangular_solve %a, %b {lower, unit_diagonal} : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// solve: for each column j, the row of the largest magnitude from j down
// (the first of equals), rows exchanged in A (from column j) and in B,
// rows below eliminated in both; then back substitution with U.
// CHECK-LABEL: func.func @solve
// CHECK-SAME: (%[[A:.*]]: tensor<9x9xf32>, %[[RHS:.*]]: tensor<9x1xf32>)
// CHECK: %[[E:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[A]], %{{.*}} = %[[RHS]]) -> (tensor<9x9xf32>, tensor<9x1xf32>)
// CHECK: %[[PIVOT:.*]]:2 = scf.for {{.*}} -> (f32, index)
// CHECK: math.absf
// CHECK: %[[LARGER:.*]] = arith.cmpf ogt
// CHECK: arith.select %[[LARGER]], %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[J]] to
// CHECK: tensor.extract %{{.*}}[%[[PIVOT]]#1, %{{.*}}] : tensor<9x9xf32>
// CHECK: tensor.extract %{{.*}}[%[[PIVOT]]#1, %{{.*}}] : tensor<9x1xf32>
// A zero pivot eliminates nothing (as LAPACK's getf2), not dividing by it.
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq
// CHECK: scf.for {{.*}} -> (tensor<9x9xf32>, tensor<9x1xf32>)
// CHECK: %[[QUOTIENT:.*]] = arith.divf
// CHECK: %[[FACTOR:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[QUOTIENT]]
// CHECK: arith.mulf %[[FACTOR]]
// CHECK: %[[X:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]]#1) -> (tensor<9x1xf32>)
// CHECK: return %[[X]]
func.func @solve(%a: tensor<9x9xf32>, %b: tensor<9x1xf32>) -> tensor<9x1xf32> {
  %0 = adjit.solve %a, %b : (tensor<9x9xf32>, tensor<9x1xf32>) -> tensor<9x1xf32>
  return %0 : tensor<9x1xf32>
}

// -----

// slogdet: the same elimination without right-hand sides, flipping the
// sign at each row exchange; then U's diagonal as a product of signs and
// a sum of logs, each matrix's pair kept in a 1x2 tensor.
// CHECK-LABEL: func.func @slogdet
// CHECK: %[[E:.*]]:2 = scf.for %[[J:[a-z0-9_]+]] = {{.*}} -> (tensor<9x9xf32>, f32)
// CHECK: %[[PIVOT:.*]]:2 = scf.for {{.*}} -> (f32, index)
// CHECK: %[[SWAPPED:.*]] = arith.cmpi ne, %[[PIVOT]]#1, %[[J]] : index
// CHECK: %[[FLIPPED:.*]] = arith.subf
// CHECK: arith.select %[[SWAPPED]], %[[FLIPPED]], %{{.*}} : f32
// CHECK: %[[D:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[E]]#1, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK: %[[U:.*]] = tensor.extract %[[E]]#0
// CHECK: arith.cmpf olt, %[[U]]
// CHECK: arith.cmpf ogt, %[[U]]
// CHECK: %[[ABS:.*]] = math.absf %[[U]]
// CHECK: math.log %[[ABS]] : f32
// CHECK: %[[P:.*]] = tensor.insert %[[D]]#0 into
// CHECK: %[[PAIR:.*]] = tensor.insert %[[D]]#1 into %[[P]]
// CHECK: %[[SIGN:.*]] = tensor.extract_slice %[[PAIR]][0, 0] [1, 1] [1, 1]
// CHECK: %[[LOG:.*]] = tensor.extract_slice %[[PAIR]][0, 1] [1, 1] [1, 1]
func.func @slogdet(%a: tensor<9x9xf32>) -> (tensor<f32>, tensor<f32>) {
  %0:2 = adjit.slogdet %a : tensor<9x9xf32>
  return %0#0, %0#1 : tensor<f32>, tensor<f32>
}

// -----

// eigh: the symmetric part, W = I, then sweeps (scf.while) while the
// scaled off-diagonal sum of squares is above epsilon^2 times the whole's
// and fewer than 40 sweeps have run; each sweep rotates every pair p < q
// (theta, t, c, s from square roots); then the eigenvalues are sorted by
// selection, and V is W transposed.
// CHECK-LABEL: func.func @eigh
// CHECK: %[[SWEPT:.*]]:3 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[COUNT:.*]] = %{{.*}}) : (tensor<9x9xf64>, tensor<9x9xf64>, index) -> (tensor<9x9xf64>, tensor<9x9xf64>, index)
// CHECK: %[[UNCONVERGED:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[COUNT]], %{{.*}} : index
// CHECK: %[[GO:.*]] = arith.andi %[[UNCONVERGED]], %[[MORE]] : i1
// CHECK: scf.condition(%[[GO]])
// CHECK: } do {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: scf.yield
// CHECK: %[[V:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<9x9xf64>) outs(%{{.*}} : tensor<9x9xf64>)
// CHECK: return %{{.*}}, %[[V]]
func.func @eigh(%a: tensor<9x9xf64>) -> (tensor<9xf64>, tensor<9x9xf64>) {
  %0:2 = adjit.eigh %a : tensor<9x9xf64>
  return %0#0, %0#1 : tensor<9xf64>, tensor<9x9xf64>
}

// -----

// qr: Householder reflections (LAPACK's geqr2): per column, the largest
// magnitude below the diagonal (zero: no reflection), the norm scaled by
// the largest magnitude, beta of the sign opposite to the diagonal entry,
// the reflection applied to the columns on the right; then R, the upper
// triangle, and Q accumulated from the last reflection back (org2r).
// CHECK-LABEL: func.func @qr
// CHECK: %[[F:.*]]:2 = scf.for {{.*}} -> (tensor<10x6xf64>, tensor<6x1xf64>)
// CHECK: %[[ALPHA:.*]] = tensor.extract
// CHECK: %[[TAIL:.*]] = scf.for {{.*}} -> (f64)
// CHECK: math.absf
// CHECK: arith.maximumf
// CHECK: %[[NONE:.*]] = arith.cmpf oeq, %[[TAIL]]
// CHECK: %[[SCALE:.*]] = arith.maximumf %[[TAIL]]
// CHECK: math.sqrt
// CHECK: %[[NORM:.*]] = arith.mulf %[[SCALE]]
// CHECK: %[[NEG:.*]] = arith.negf %[[ALPHA]] : f64
// CHECK: %[[SIGNED:.*]] = math.copysign %[[NORM]], %[[NEG]] : f64
// CHECK: %[[BETA:.*]] = arith.select %[[NONE]], %[[ALPHA]], %[[SIGNED]] : f64
// CHECK: tensor.insert %[[BETA]]
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<6x6xf64>)
// CHECK: tensor.extract %[[F]]#0
// CHECK: %[[IDENTITY:.*]] = scf.for {{.*}} -> (tensor<10x6xf64>)
// CHECK: %[[Q:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[IDENTITY]]) -> (tensor<10x6xf64>)
// CHECK: tensor.extract %[[F]]#1
// CHECK: return %[[Q]], %[[R]]
func.func @qr(%a: tensor<10x6xf64>) -> (tensor<10x6xf64>, tensor<6x6xf64>) {
  %0:2 = adjit.qr %a : tensor<10x6xf64>
  return %0#0, %0#1 : tensor<10x6xf64>, tensor<6x6xf64>
}

// -----

// svd: Ut = A^T (G's columns as rows), then sweeps (scf.while) while a
// rotation was not negligible in the last one and fewer than 40 have run:
// each pair of rows (dot products, a rotation from square roots) ors its
// "not yet orthogonal" into the sweep's flag. Then the rows' scaled norms,
// sorting, normalization with completion, and U = Ut^T.
// CHECK-LABEL: func.func @svd
// CHECK: %[[UT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<9x6xf64>) outs(%{{.*}} : tensor<6x9xf64>)
// CHECK: %[[SWEPT:.*]]:4 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[COUNT:.*]] = %{{.*}}, %[[AGAIN:.*]] = %true) : (tensor<6x9xf64>, tensor<6x6xf64>, index, i1)
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[COUNT]], %{{.*}} : index
// CHECK: %[[GO:.*]] = arith.andi %[[AGAIN]], %[[MORE]] : i1
// CHECK: scf.condition(%[[GO]])
// CHECK: } do {
// CHECK: math.sqrt
// CHECK: arith.ori
// CHECK: scf.yield
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<6x9xf64>) outs(%{{.*}} : tensor<9x6xf64>)
// CHECK: return %[[U]], %{{.*}}, %{{.*}} : tensor<9x6xf64>, tensor<6xf64>, tensor<6x6xf64>
func.func @svd(%a: tensor<9x6xf64>) -> (tensor<9x6xf64>, tensor<6xf64>, tensor<6x6xf64>) {
  %0:3 = adjit.svd %a : tensor<9x6xf64>
  return %0#0, %0#1, %0#2 : tensor<9x6xf64>, tensor<6xf64>, tensor<6x6xf64>
}

// -----

// Where m < n the rows of Ut are A's own: no transpose in, and U is Vt^T.
// CHECK-LABEL: func.func @svd_wide
// CHECK: scf.while ({{.*}}) : (tensor<6x9xf64>, tensor<6x6xf64>, index, i1)
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<6x6xf64>) outs(%{{.*}} : tensor<6x6xf64>)
// CHECK: return %[[U]]
func.func @svd_wide(%a: tensor<6x9xf64>) -> (tensor<6x6xf64>, tensor<6xf64>, tensor<6x9xf64>) {
  %0:3 = adjit.svd %a : tensor<6x9xf64>
  return %0#0, %0#1, %0#2 : tensor<6x6xf64>, tensor<6xf64>, tensor<6x9xf64>
}

// -----

// The QR of matrices with no columns or no rows: empty factors, no loops.
// CHECK-LABEL: func.func @qr_empty
// CHECK-NOT: scf.for
// CHECK: return
func.func @qr_empty(%a: tensor<4x3x0xf32>) -> (tensor<4x3x0xf32>, tensor<4x0x0xf32>) {
  %0:2 = adjit.qr %a : tensor<4x3x0xf32>
  return %0#0, %0#1 : tensor<4x3x0xf32>, tensor<4x0x0xf32>
}

// -----

// The determinant of 0x0 matrices is 1: no loops.
// CHECK-LABEL: func.func @slogdet_empty
// CHECK-NOT: scf.for
// CHECK: return
func.func @slogdet_empty(%a: tensor<4x0x0xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %0:2 = adjit.slogdet %a : tensor<4x0x0xf64>
  return %0#0, %0#1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// A 2x2 Cholesky factor is straight-line code: every index a constant.
// CHECK-LABEL: func.func @cholesky_unrolled
// CHECK-NOT: scf.for
// CHECK: %[[S:.*]] = arith.subf
// CHECK: math.sqrt %[[S]] : f64
// CHECK: scf.if
// CHECK-NOT: scf.for
// CHECK: } else {
// CHECK: return
func.func @cholesky_unrolled(%a: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = adjit.cholesky %a : tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// -----

// argsort: a loop over rows; in each, the row's (value, index) pairs (in
// the order and a row of values beside it) are made a heap (n / 2 sifts)
// and sorted (n - 1 swaps and sifts). A sift is a while loop that reads
// the pairs before it writes them, and compares them: NaN after numbers,
// ties by index.
// CHECK-LABEL: func.func @argsort
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<2x5xi32>, tensor<2x5xf32>)
// CHECK: scf.for {{.*}} {
// CHECK: tensor.extract %arg0[%[[ROW]], {{.*}}] : tensor<2x5xf32>
// CHECK: tensor.insert {{.*}}[%[[ROW]], {{.*}}] : tensor<2x5xi32>
// CHECK: tensor.insert {{.*}}[%[[ROW]], {{.*}}] : tensor<2x5xf32>
// CHECK: scf.for
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<2x5xi32>
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<2x5xf32>
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi ult
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: scf.while
// Descending: greater first, NaN before numbers.
// CHECK: arith.cmpf ogt
// Integers: signed comparisons.
// CHECK: arith.cmpi slt
// CHECK: scf.while
// CHECK: arith.cmpi slt
func.func @argsort(%x: tensor<2x5xf32>, %i: tensor<4xi64>) -> (tensor<2x5xi32>, tensor<2x5xi32>, tensor<4xi32>) {
  %0 = adjit.argsort %x : (tensor<2x5xf32>) -> tensor<2x5xi32>
  %1 = adjit.argsort %x descending : (tensor<2x5xf32>) -> tensor<2x5xi32>
  %2 = adjit.argsort %i : (tensor<4xi64>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<2x5xi32>, tensor<2x5xi32>, tensor<4xi32>
}

// -----

// total_order (top_k's): each float's order key (its bits, the magnitude
// flipped where negative) is made once, as the row beside the order is
// filled (a row of i32); the sifts compare keys as signed integers, with
// no float compare and no key made per comparison.
// CHECK-LABEL: func.func @argsort_total_order
// CHECK: scf.for {{.*}} -> (tensor<2x5xi32>, tensor<2x5xi32>)
// CHECK: scf.for
// CHECK: %[[X:.*]] = tensor.extract %arg0
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[NEG:.*]] = arith.shrsi %[[BITS]], %{{.*}} : i32
// CHECK: %[[FLIP:.*]] = arith.andi %[[NEG]], %{{.*}} : i32
// CHECK: %[[KEY:.*]] = arith.xori %[[BITS]], %[[FLIP]] : i32
// CHECK: tensor.insert %[[KEY]]
// CHECK: scf.yield
// CHECK-NOT: arith.bitcast
// CHECK-NOT: arith.cmpf
// CHECK: scf.while
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.bitcast
// CHECK-NOT: arith.cmpf
// CHECK: return
func.func @argsort_total_order(%x: tensor<2x5xf32>) -> tensor<2x5xi32> {
  %0 = adjit.argsort %x descending total_order : (tensor<2x5xf32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

// The first 3 of rows of 7 (top_k): a heap of the first 3 (made from
// elements 0-2), each later element compared with its root and, where it
// comes before it, put there and sifted down (an scf.if), then the heap
// sorted; order and keys are rows of 3.
// CHECK-LABEL: func.func @argsort_first_positions
// CHECK: tensor.empty() : tensor<2x3xi32>
// CHECK: tensor.empty() : tensor<2x3xi32>
// CHECK: scf.for {{.*}} -> (tensor<2x3xi32>, tensor<2x3xi32>)
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C3]]
// CHECK: scf.while
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C4]]
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK: tensor.extract %arg0[%{{.*}}, %[[I]]] : tensor<2x7xf32>
// CHECK: %[[BEFORE:.*]] = arith.ori
// CHECK: scf.if %[[BEFORE]] -> (tensor<2x3xi32>, tensor<2x3xi32>)
// CHECK: scf.while
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C2]]
// CHECK: scf.while
func.func @argsort_first_positions(%x: tensor<2x7xf32>) -> tensor<2x3xi32> {
  %0 = adjit.argsort %x descending total_order : (tensor<2x7xf32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// argsort of empty rows: an empty result, no loop.
// CHECK-LABEL: func.func @argsort_empty
// CHECK-NOT: scf.for
// CHECK: tensor.empty() : tensor<3x0xi32>
func.func @argsort_empty(%x: tensor<3x0xf32>) -> tensor<3x0xi32> {
  %0 = adjit.argsort %x : (tensor<3x0xf32>) -> tensor<3x0xi32>
  return %0 : tensor<3x0xi32>
}

// -----

// search_sorted: elementwise over the values (a linalg.generic whose body
// reads the sorted vector, as a gather's does), each a branch-free binary
// search whose steps follow from the sorted length alone (5: probes at
// base + 2, base + 1, base + 1, then base), each comparing one element
// and selecting the next base. Positions are i32, cast to index only to
// read (so that the search vectorizes). Left: whether the element comes
// before the value; right: whether it does not come after it (the
// negation of "value before element").
// CHECK-LABEL: func.func @search_sorted
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %{{.*}}: i32):
// CHECK-NOT: scf.while
// CHECK: %[[P:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[E:.*]] = tensor.extract %arg0[%[[P]]] : tensor<5xf32>
// CHECK: arith.cmpf olt, %[[E]], %[[V]] : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-3: tensor.extract %arg0
// CHECK: linalg.yield %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[V2:.*]]: f32, %{{.*}}: i32):
// CHECK: %[[E2:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<5xf32>
// CHECK: arith.cmpf olt, %[[V2]], %[[E2]] : f32
// CHECK: arith.xori
func.func @search_sorted(%a: tensor<5xf32>, %v: tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<2x3xi32>) {
  %0 = adjit.search_sorted %a, %v : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
  %1 = adjit.search_sorted %a, %v right : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xi32>
}

// -----

// lu: getrf keeping L's multipliers below U, exchanging whole rows, with
// each step's pivot row and the permutation carried as float columns
// beside the factors and converted to i32 after.
// CHECK-LABEL: func.func @lu
// CHECK: %[[E:.*]]:3 = scf.for %[[J:[a-z0-9_]+]] = {{.*}} -> (tensor<6x5xf32>, tensor<5x1xf32>, tensor<6x1xf32>)
// CHECK: %[[PIVOT:.*]]:2 = scf.for {{.*}} -> (f32, index)
// CHECK: %[[ROW:.*]] = arith.index_cast %[[PIVOT]]#1 : index to i32
// CHECK: %[[AS_FLOAT:.*]] = arith.sitofp %[[ROW]] : i32 to f32
// CHECK: tensor.insert %[[AS_FLOAT]] into %{{.*}}[%[[J]], %{{.*}}] : tensor<5x1xf32>
// CHECK: %[[FACTOR:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: tensor.insert %[[FACTOR]] into %{{.*}}[%{{.*}}, %[[J]]] : tensor<6x5xf32>
// CHECK: tensor.collapse_shape %[[E]]#1 {{.*}} : tensor<5x1xf32> into tensor<5xf32>
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: tensor.collapse_shape %[[E]]#2 {{.*}} : tensor<6x1xf32> into tensor<6xf32>
func.func @lu(%a: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<5xi32>, tensor<6xi32>) {
  %0:3 = adjit.lu %a : tensor<6x5xf32>
  return %0#0, %0#1, %0#2 : tensor<6x5xf32>, tensor<5xi32>, tensor<6xi32>
}

// -----

// lu_pivots_to_permutation: from the identity, each row's exchanges in
// turn, each pivot clamped into [j, size).
// CHECK-LABEL: func.func @lu_pivots_to_permutation
// CHECK: %[[IDENTITY:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5xi32>)
// CHECK: linalg.index 1
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args(%{{.*}} = %[[IDENTITY]]) -> (tensor<2x5xi32>)
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (tensor<2x5xi32>)
// CHECK: %[[PIVOT:.*]] = tensor.extract %{{.*}}[%[[B]], %[[J]]] : tensor<2x3xi32>
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[PIVOT]] : i32 to index
// CHECK: %[[FROM_J:.*]] = arith.maxsi %[[INDEX]], %[[J]] : index
// CHECK: %[[CLAMPED:.*]] = arith.minsi %[[FROM_J]], %{{.*}} : index
// CHECK: %[[HERE:.*]] = tensor.extract %[[P]][%[[B]], %[[J]]]
// CHECK: %[[THERE:.*]] = tensor.extract %[[P]][%[[B]], %[[CLAMPED]]]
// CHECK: %[[ONE:.*]] = tensor.insert %[[THERE]] into %[[P]][%[[B]], %[[J]]]
// CHECK: tensor.insert %[[HERE]] into %[[ONE]][%[[B]], %[[CLAMPED]]]
func.func @lu_pivots_to_permutation(%p: tensor<2x3xi32>) -> tensor<2x5xi32> {
  %0 = adjit.lu_pivots_to_permutation %p, size = 5 : tensor<2x3xi32> -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

