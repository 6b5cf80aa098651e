// Folders and canonicalization patterns of AdjitFolds.cpp. Every rewrite must
// be exact in IEEE arithmetic, so the negative tests matter as much as the
// positive ones.
// RUN: adjit-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Constant folding: unary ops, splat and dense operands
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_neg
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[-1.000000e+00, 2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<-3> : tensor<2xi32>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<-2.500000e+00> : tensor<f64>
// CHECK-NOT: adjit.neg
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @fold_neg() -> (tensor<3xf32>, tensor<2xi32>, tensor<f64>) {
  %a = adjit.constant dense<[1.0, -2.0, 0.0]> : tensor<3xf32>
  %0 = adjit.neg %a : tensor<3xf32>
  %b = adjit.constant dense<3> : tensor<2xi32>
  %1 = adjit.neg %b : tensor<2xi32>
  %c = adjit.constant dense<2.5> : tensor<f64>
  %2 = adjit.neg %c : tensor<f64>
  return %0, %1, %2 : tensor<3xf32>, tensor<2xi32>, tensor<f64>
}

// -----

// CHECK-LABEL: func.func @fold_abs
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[5, 7, 0]> : tensor<3xi64>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<[0.000000e+00, 1.500000e+00]> : tensor<2xf16>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<4.000000e+00> : tensor<4xbf16>
// CHECK-NOT: adjit.abs
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @fold_abs() -> (tensor<3xi64>, tensor<2xf16>, tensor<4xbf16>) {
  %a = adjit.constant dense<[5, -7, 0]> : tensor<3xi64>
  %0 = adjit.abs %a : tensor<3xi64>
  %b = adjit.constant dense<[-0.0, -1.5]> : tensor<2xf16>
  %1 = adjit.abs %b : tensor<2xf16>
  %c = adjit.constant dense<-4.0> : tensor<4xbf16>
  %2 = adjit.abs %c : tensor<4xbf16>
  return %0, %1, %2 : tensor<3xi64>, tensor<2xf16>, tensor<4xbf16>
}

// -----

// Zeros keep their sign, NaN stays NaN.
// CHECK-LABEL: func.func @fold_sign
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[-0.000000e+00, 0.000000e+00, 1.000000e+00, -1.000000e+00, 0x7FC00000]> : tensor<5xf32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<[-1, 0, 1]> : tensor<3xi32>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<-1.000000e+00> : tensor<2xf64>
// CHECK-NOT: adjit.sign
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @fold_sign() -> (tensor<5xf32>, tensor<3xi32>, tensor<2xf64>) {
  %a = adjit.constant dense<[-0.0, 0.0, 3.0, -0.25, 0x7FC00000]> : tensor<5xf32>
  %0 = adjit.sign %a : tensor<5xf32>
  %b = adjit.constant dense<[-9, 0, 4]> : tensor<3xi32>
  %1 = adjit.sign %b : tensor<3xi32>
  %c = adjit.constant dense<-7.0> : tensor<2xf64>
  %2 = adjit.sign %c : tensor<2xf64>
  return %0, %1, %2 : tensor<5xf32>, tensor<3xi32>, tensor<2xf64>
}

// -----

// Transcendentals are evaluated in double and rounded once to the element
// type.
// CHECK-LABEL: func.func @fold_transcendentals
// CHECK-DAG: %[[EXP:.*]] = adjit.constant dense<[1.000000e+00, 2.71828175]> : tensor<2xf32>
// CHECK-DAG: %[[EXPH:.*]] = adjit.constant dense<[1.000000e+00, 2.718750e+00, 7.390630e+00]> : tensor<3xf16>
// CHECK-DAG: %[[EXPM1:.*]] = adjit.constant dense<0.000000e+00> : tensor<f64>
// CHECK-DAG: %[[LOG:.*]] = adjit.constant dense<[0xFF800000, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[LOG1P:.*]] = adjit.constant dense<0.69314718055994529> : tensor<f64>
// CHECK-DAG: %[[SQRT:.*]] = adjit.constant dense<2.000000e+00> : tensor<2xbf16>
// CHECK-DAG: %[[SQRTN:.*]] = adjit.constant dense<0x{{7|F}}FF8000000000000> : tensor<f64>
// CHECK-DAG: %[[RSQRT:.*]] = adjit.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK-DAG: %[[SIN:.*]] = adjit.constant dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf64>
// CHECK-DAG: %[[COS:.*]] = adjit.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[TANH:.*]] = adjit.constant dense<[-1.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[LOGISTIC:.*]] = adjit.constant dense<[5.000000e-01, 0.000000e+00, 1.000000e+00]> : tensor<3xf64>
// CHECK-DAG: %[[ERF:.*]] = adjit.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[FLOOR:.*]] = adjit.constant dense<[-2.000000e+00, 1.000000e+00, -0.000000e+00]> : tensor<3xf16>
// CHECK-NOT: adjit.{{exp|expm1|log|log1p|sqrt|rsqrt|sin|cos|tanh|logistic|erf|floor}}
// CHECK: return %[[EXP]], %[[EXPH]], %[[EXPM1]], %[[LOG]], %[[LOG1P]], %[[SQRT]], %[[SQRTN]], %[[RSQRT]], %[[SIN]], %[[COS]], %[[TANH]], %[[LOGISTIC]], %[[ERF]], %[[FLOOR]]
func.func @fold_transcendentals() -> (tensor<2xf32>, tensor<3xf16>, tensor<f64>, tensor<2xf32>, tensor<f64>,
                                      tensor<2xbf16>, tensor<f64>, tensor<3xf32>, tensor<2xf64>, tensor<f32>,
                                      tensor<3xf32>, tensor<3xf64>, tensor<2xf32>, tensor<3xf16>) {
  %c0 = adjit.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = adjit.exp %c0 : tensor<2xf32>
  %c1 = adjit.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf16>
  %1 = adjit.exp %c1 : tensor<3xf16>
  %c2 = adjit.constant dense<0.0> : tensor<f64>
  %2 = adjit.expm1 %c2 : tensor<f64>
  %c3 = adjit.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %3 = adjit.log %c3 : tensor<2xf32>
  %c4 = adjit.constant dense<1.0> : tensor<f64>
  %4 = adjit.log1p %c4 : tensor<f64>
  %c5 = adjit.constant dense<4.0> : tensor<2xbf16>
  %5 = adjit.sqrt %c5 : tensor<2xbf16>
  %c6 = adjit.constant dense<-1.0> : tensor<f64>
  %6 = adjit.sqrt %c6 : tensor<f64>
  %c7 = adjit.constant dense<4.0> : tensor<3xf32>
  %7 = adjit.rsqrt %c7 : tensor<3xf32>
  %c8 = adjit.constant dense<[0.0, -0.0]> : tensor<2xf64>
  %8 = adjit.sin %c8 : tensor<2xf64>
  %c9 = adjit.constant dense<0.0> : tensor<f32>
  %9 = adjit.cos %c9 : tensor<f32>
  %c10 = adjit.constant dense<[-100.0, 0.0, 100.0]> : tensor<3xf32>
  %10 = adjit.tanh %c10 : tensor<3xf32>
  %c11 = adjit.constant dense<[0.0, -1000.0, 1000.0]> : tensor<3xf64>
  %11 = adjit.logistic %c11 : tensor<3xf64>
  %c12 = adjit.constant dense<[0.0, 10.0]> : tensor<2xf32>
  %12 = adjit.erf %c12 : tensor<2xf32>
  %c13 = adjit.constant dense<[-1.5, 1.75, -0.0]> : tensor<3xf16>
  %13 = adjit.floor %c13 : tensor<3xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : tensor<2xf32>, tensor<3xf16>, tensor<f64>, tensor<2xf32>, tensor<f64>,
        tensor<2xbf16>, tensor<f64>, tensor<3xf32>, tensor<2xf64>, tensor<f32>,
        tensor<3xf32>, tensor<3xf64>, tensor<2xf32>, tensor<3xf16>
}

// -----

// The trigonometric, hyperbolic and rounding ops of constants fold in
// double, rounded once to the element type; round ties to even.
// CHECK-LABEL: func.func @fold_trigonometric_hyperbolic_rounding
// CHECK-DAG: %[[TAN:.*]] = adjit.constant dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[ASIN:.*]] = adjit.constant dense<1.5707963267948966> : tensor<f64>
// CHECK-DAG: %[[ACOS:.*]] = adjit.constant dense<[0.000000e+00, 3.140630e+00]> : tensor<2xf16>
// CHECK-DAG: %[[ATAN:.*]] = adjit.constant dense<[0.000000e+00, 0.785398185]> : tensor<2xf32>
// CHECK-DAG: %[[SINHCOSH:.*]] = adjit.constant dense<1.000000e+00> : tensor<2xf64>
// CHECK-DAG: %[[INVERSE:.*]] = adjit.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[CBRT:.*]] = adjit.constant dense<[-2.000000e+00, 1.000000e+00]> : tensor<2xf64>
// CHECK-DAG: %[[CEIL:.*]] = adjit.constant dense<[-1.000000e+00, 2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[ROUND:.*]] = adjit.constant dense<[0.000000e+00, 2.000000e+00, 2.000000e+00, -0.000000e+00, -2.000000e+00]> : tensor<5xbf16>
// CHECK-DAG: %[[ATAN2:.*]] = adjit.constant dense<[0.000000e+00, 1.5707963267948966, 3.1415926535897931, -0.000000e+00]> : tensor<4xf64>
// CHECK-NOT: adjit.{{tan|asin|acos|atan|sinh|cosh|asinh|acosh|atanh|cbrt|ceil|round|atan2}}
// CHECK: return %[[TAN]], %[[ASIN]], %[[ACOS]], %[[ATAN]], %[[SINHCOSH]], %[[INVERSE]], %[[CBRT]], %[[CEIL]], %[[ROUND]], %[[ATAN2]]
func.func @fold_trigonometric_hyperbolic_rounding()
    -> (tensor<2xf32>, tensor<f64>, tensor<2xf16>, tensor<2xf32>, tensor<2xf64>, tensor<3xf32>,
        tensor<2xf64>, tensor<3xf32>, tensor<5xbf16>, tensor<4xf64>) {
  %c0 = adjit.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %0 = adjit.tan %c0 : tensor<2xf32>
  %c1 = adjit.constant dense<1.0> : tensor<f64>
  %1 = adjit.asin %c1 : tensor<f64>
  %c2 = adjit.constant dense<[1.0, -1.0]> : tensor<2xf16>
  %2 = adjit.acos %c2 : tensor<2xf16>
  %c3 = adjit.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %3 = adjit.atan %c3 : tensor<2xf32>
  %c4 = adjit.constant dense<[0.0, -0.0]> : tensor<2xf64>
  %v4a = adjit.sinh %c4 : tensor<2xf64>
  %v4b = adjit.cosh %c4 : tensor<2xf64>
  %4 = adjit.add %v4a, %v4b : tensor<2xf64>
  %c5 = adjit.constant dense<0.0> : tensor<3xf32>
  %c5b = adjit.constant dense<1.0> : tensor<3xf32>
  %v5a = adjit.asinh %c5 : tensor<3xf32>
  %v5b = adjit.acosh %c5b : tensor<3xf32>
  %v5c = adjit.atanh %c5 : tensor<3xf32>
  %v5d = adjit.mul %v5b, %v5c : tensor<3xf32>
  %5 = adjit.mul %v5a, %v5d : tensor<3xf32>
  %c6 = adjit.constant dense<[-8.0, 1.0]> : tensor<2xf64>
  %6 = adjit.cbrt %c6 : tensor<2xf64>
  %c7 = adjit.constant dense<[-1.5, 1.25, -0.5]> : tensor<3xf32>
  %7 = adjit.ceil %c7 : tensor<3xf32>
  %c8 = adjit.constant dense<[0.5, 1.5, 2.5, -0.5, -2.5]> : tensor<5xbf16>
  %8 = adjit.round %c8 : tensor<5xbf16>
  %c9y = adjit.constant dense<[0.0, 1.0, 0.0, -0.0]> : tensor<4xf64>
  %c9x = adjit.constant dense<[1.0, 0.0, -1.0, 1.0]> : tensor<4xf64>
  %9 = adjit.atan2 %c9y, %c9x : tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : tensor<2xf32>, tensor<f64>, tensor<2xf16>, tensor<2xf32>, tensor<2xf64>, tensor<3xf32>,
        tensor<2xf64>, tensor<3xf32>, tensor<5xbf16>, tensor<4xf64>
}

// -----

// integer_pow of constants: the products of the lowering in its order
// (3^3 = 27, (-2)^3 = -8, 0.5^-2 = 4, 0^-1 = inf, NaN^0 = 1), integers wrap
// (3^41 mod 2^32), f16 computes in f32 and rounds once, as the lowering does
// (1.001 is 1.0009766 in f16; its fifth power 1.0048923 in f32 rounds to
// 1.0048828).
// CHECK-LABEL: func.func @fold_integer_pow
// CHECK-DAG: %[[F:.*]] = adjit.constant dense<[2.700000e+01, -8.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[R:.*]] = adjit.constant dense<[4.000000e+00, 0x7FF0000000000000]> : tensor<2xf64>
// CHECK-DAG: %[[ONE:.*]] = adjit.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[I:.*]] = adjit.constant dense<2069870691> : tensor<i32>
// CHECK-DAG: %[[H:.*]] = adjit.constant dense<1.004880e+00> : tensor<f16>
// CHECK-NOT: adjit.integer_pow
// CHECK: return %[[F]], %[[R]], %[[ONE]], %[[I]], %[[H]]
func.func @fold_integer_pow() -> (tensor<2xf32>, tensor<2xf64>, tensor<f32>, tensor<i32>, tensor<f16>) {
  %f = adjit.constant dense<[3.0, -2.0]> : tensor<2xf32>
  %0 = adjit.integer_pow %f, 3 : tensor<2xf32>
  %d = adjit.constant dense<[0.5, 0.0]> : tensor<2xf64>
  %1 = adjit.integer_pow %d, -2 : tensor<2xf64>
  %nan = adjit.constant dense<0x7FC00000> : tensor<f32>
  %2 = adjit.integer_pow %nan, 0 : tensor<f32>
  %i = adjit.constant dense<3> : tensor<i32>
  %3 = adjit.integer_pow %i, 41 : tensor<i32>
  %h = adjit.constant dense<1.001> : tensor<f16>
  %4 = adjit.integer_pow %h, 5 : tensor<f16>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf64>, tensor<f32>, tensor<i32>, tensor<f16>
}

// -----

// x^1 is x; x^0 is 1 whatever x is.
// CHECK-LABEL: func.func @fold_integer_pow_identities
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK-DAG: %[[ONES:.*]] = adjit.constant dense<1> : tensor<2xi64>
// CHECK-NOT: adjit.integer_pow
// CHECK: return %[[X]], %[[ONES]]
func.func @fold_integer_pow_identities(%x: tensor<3xf32>, %i: tensor<2xi64>) -> (tensor<3xf32>, tensor<2xi64>) {
  %0 = adjit.integer_pow %x, 1 : tensor<3xf32>
  %1 = adjit.integer_pow %i, 0 : tensor<2xi64>
  return %0, %1 : tensor<3xf32>, tensor<2xi64>
}

// -----

// Comparisons of constants: floats ordered (false with a NaN) except ne,
// -0 equal to +0; integers signed; booleans.
// CHECK-LABEL: func.func @fold_compare
// CHECK-DAG: %[[EQ:.*]] = adjit.constant dense<[true, false, false, true, false]> : tensor<5xi1>
// CHECK-DAG: %[[NE:.*]] = adjit.constant dense<[false, true, true, false, true]> : tensor<5xi1>
// CHECK-DAG: %[[LT:.*]] = adjit.constant dense<[false, true, false, false, false]> : tensor<5xi1>
// CHECK-DAG: %[[GE:.*]] = adjit.constant dense<[true, false, false, true, true]> : tensor<5xi1>
// CHECK-DAG: %[[SLT:.*]] = adjit.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[BEQ:.*]] = adjit.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NOT: adjit.compare
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[GE]], %[[SLT]], %[[BEQ]]
func.func @fold_compare() -> (tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<3xi1>, tensor<2xi1>) {
  %a = adjit.constant dense<[1.0, 1.0, 0x7FC00000, -0.0, 3.0]> : tensor<5xf32>
  %b = adjit.constant dense<[1.0, 2.0, 0x7FC00000, 0.0, 2.0]> : tensor<5xf32>
  %0 = adjit.compare eq, %a, %b : tensor<5xf32>
  %1 = adjit.compare ne, %a, %b : tensor<5xf32>
  %2 = adjit.compare lt, %a, %b : tensor<5xf32>
  %3 = adjit.compare ge, %a, %b : tensor<5xf32>
  %i = adjit.constant dense<[-5, 3, 0]> : tensor<3xi64>
  %j = adjit.constant dense<[2, 3, -1]> : tensor<3xi64>
  %4 = adjit.compare lt, %i, %j : tensor<3xi64>
  %p = adjit.constant dense<[true, false]> : tensor<2xi1>
  %q = adjit.constant dense<[true, true]> : tensor<2xi1>
  %5 = adjit.compare eq, %p, %q : tensor<2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<3xi1>, tensor<2xi1>
}

// -----

// relu of constants: NaN passes, -0 and negatives give +0.
// CHECK-LABEL: func.func @fold_relu
// CHECK-DAG: %[[F:.*]] = adjit.constant dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 2.500000e+00, 0x7FC00000]> : tensor<5xf32>
// CHECK-DAG: %[[I:.*]] = adjit.constant dense<[0, 0, 4]> : tensor<3xi32>
// CHECK-NOT: adjit.relu
// CHECK: return %[[F]], %[[I]]
func.func @fold_relu() -> (tensor<5xf32>, tensor<3xi32>) {
  %f = adjit.constant dense<[-1.5, -0.0, 0.0, 2.5, 0x7FC00000]> : tensor<5xf32>
  %0 = adjit.relu %f : tensor<5xf32>
  %i = adjit.constant dense<[-3, 0, 4]> : tensor<3xi32>
  %1 = adjit.relu %i : tensor<3xi32>
  return %0, %1 : tensor<5xf32>, tensor<3xi32>
}

// -----

// relu is idempotent.
// CHECK-LABEL: func.func @fold_relu_of_relu
// CHECK-NEXT: %[[R:.*]] = adjit.relu %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[R]], %[[R]]
func.func @fold_relu_of_relu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = adjit.relu %x : tensor<4xf32>
  %1 = adjit.relu %0 : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_not
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<true> : tensor<i1>
// CHECK-NOT: adjit.not
// CHECK: return %[[A]], %[[B]]
func.func @fold_not() -> (tensor<3xi1>, tensor<i1>) {
  %a = adjit.constant dense<[true, false, true]> : tensor<3xi1>
  %0 = adjit.not %a : tensor<3xi1>
  %b = adjit.constant dense<false> : tensor<i1>
  %1 = adjit.not %b : tensor<i1>
  return %0, %1 : tensor<3xi1>, tensor<i1>
}

// -----

// Large dense constants are not expanded element by element (only splats).
// CHECK-LABEL: func.func @no_fold_huge_dense
// CHECK: adjit.iota
// CHECK: adjit.neg
func.func @no_fold_huge_dense() -> tensor<70000xf32> {
  %a = adjit.iota dim = 0 : tensor<70000xf32>
  %0 = adjit.neg %a : tensor<70000xf32>
  return %0 : tensor<70000xf32>
}

// -----

// CHECK-LABEL: func.func @fold_huge_splat
// CHECK: %[[A:.*]] = adjit.constant dense<-1.000000e+00> : tensor<1000x1000xf32>
// CHECK-NEXT: return %[[A]]
func.func @fold_huge_splat() -> tensor<1000x1000xf32> {
  %a = adjit.constant dense<1.0> : tensor<1000x1000xf32>
  %0 = adjit.neg %a : tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Constant folding: binary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_add
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[1.100000e+01, 2.200000e+01, 3.300000e+01]> : tensor<3xf32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<5> : tensor<2x2xi64>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<[3, -2147483648]> : tensor<2xi32>
// CHECK-DAG: %[[D:.*]] = adjit.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf16>
// CHECK-NOT: adjit.add
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @fold_add() -> (tensor<3xf32>, tensor<2x2xi64>, tensor<2xi32>, tensor<2xf16>) {
  // dense + dense
  %a = adjit.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = adjit.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = adjit.add %a, %b : tensor<3xf32>
  // splat + splat
  %c = adjit.constant dense<2> : tensor<2x2xi64>
  %d = adjit.constant dense<3> : tensor<2x2xi64>
  %1 = adjit.add %c, %d : tensor<2x2xi64>
  // dense + splat, integers wrap
  %e = adjit.constant dense<[2, 2147483647]> : tensor<2xi32>
  %f = adjit.constant dense<1> : tensor<2xi32>
  %2 = adjit.add %e, %f : tensor<2xi32>
  // splat + dense in half precision
  %g = adjit.constant dense<0.5> : tensor<2xf16>
  %h = adjit.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %3 = adjit.add %g, %h : tensor<2xf16>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<2x2xi64>, tensor<2xi32>, tensor<2xf16>
}

// -----

// Binary arithmetic rounds once in the element type: 1 + 2^-24 is 1 in f32.
// CHECK-LABEL: func.func @fold_add_rounds_in_element_type
// CHECK: %[[A:.*]] = adjit.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[A]]
func.func @fold_add_rounds_in_element_type() -> tensor<f32> {
  %a = adjit.constant dense<1.0> : tensor<f32>
  %b = adjit.constant dense<5.96046448E-8> : tensor<f32>
  %0 = adjit.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @fold_sub_mul_div
// CHECK-DAG: %[[SUB:.*]] = adjit.constant dense<[-9.000000e+00, 0.000000e+00]> : tensor<2xf64>
// CHECK-DAG: %[[SUBI:.*]] = adjit.constant dense<[7, -3]> : tensor<2xi32>
// CHECK-DAG: %[[MUL:.*]] = adjit.constant dense<[-0.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MULI:.*]] = adjit.constant dense<42> : tensor<i64>
// CHECK-DAG: %[[DIV:.*]] = adjit.constant dense<[0x7F800000, 2.500000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[DIVI:.*]] = adjit.constant dense<[-3, 3, 0]> : tensor<3xi32>
// CHECK-NOT: adjit.sub
// CHECK-NOT: adjit.mul
// CHECK-NOT: adjit.div
// CHECK: return %[[SUB]], %[[SUBI]], %[[MUL]], %[[MULI]], %[[DIV]], %[[DIVI]]
func.func @fold_sub_mul_div() -> (tensor<2xf64>, tensor<2xi32>, tensor<2xf32>, tensor<i64>, tensor<2xf32>, tensor<3xi32>) {
  %a = adjit.constant dense<[1.0, 5.0]> : tensor<2xf64>
  %b = adjit.constant dense<[10.0, 5.0]> : tensor<2xf64>
  %0 = adjit.sub %a, %b : tensor<2xf64>
  %c = adjit.constant dense<[10, 0]> : tensor<2xi32>
  %d = adjit.constant dense<3> : tensor<2xi32>
  %1 = adjit.sub %c, %d : tensor<2xi32>
  %e = adjit.constant dense<[-0.0, 2.0]> : tensor<2xf32>
  %f = adjit.constant dense<3.0> : tensor<2xf32>
  %2 = adjit.mul %e, %f : tensor<2xf32>
  %g = adjit.constant dense<6> : tensor<i64>
  %h = adjit.constant dense<7> : tensor<i64>
  %3 = adjit.mul %g, %h : tensor<i64>
  %i = adjit.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %j = adjit.constant dense<[0.0, 4.0]> : tensor<2xf32>
  %4 = adjit.div %i, %j : tensor<2xf32>
  // integer division truncates toward zero
  %k = adjit.constant dense<[-7, 7, 1]> : tensor<3xi32>
  %l = adjit.constant dense<[2, 2, 2]> : tensor<3xi32>
  %5 = adjit.div %k, %l : tensor<3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf64>, tensor<2xi32>, tensor<2xf32>, tensor<i64>, tensor<2xf32>, tensor<3xi32>
}

// -----

// Integer division is total (as the lowering): x / 0 = -1 and
// INT_MIN / -1 = INT_MIN fold like any other quotient.
// CHECK-LABEL: func.func @fold_int_div_total
// CHECK-DAG: adjit.constant dense<[1, -1]> : tensor<2xi32>
// CHECK-DAG: adjit.constant dense<-9223372036854775808> : tensor<i64>
// CHECK-NOT: adjit.div
func.func @fold_int_div_total() -> (tensor<2xi32>, tensor<i64>) {
  %a = adjit.constant dense<[1, 2]> : tensor<2xi32>
  %z = adjit.constant dense<[1, 0]> : tensor<2xi32>
  %0 = adjit.div %a, %z : tensor<2xi32>
  %m = adjit.constant dense<-9223372036854775808> : tensor<i64>
  %n = adjit.constant dense<-1> : tensor<i64>
  %1 = adjit.div %m, %n : tensor<i64>
  return %0, %1 : tensor<2xi32>, tensor<i64>
}

// -----

// Remainders fold as fmod (exact, with the dividend's sign; NaN by 0)
// and, for integers, totally as the lowering: x rem 0 = x, INT_MIN rem
// -1 = 0.
// CHECK-LABEL: func.func @fold_rem
// CHECK-DAG: adjit.constant dense<[1.500000e+00, -1.500000e+00, 5.000000e-01, 0x7FC00000, 3.000000e+00]> : tensor<5xf32>
// CHECK-DAG: adjit.constant dense<[1, -1, 7, 0]> : tensor<4xi32>
// CHECK-NOT: adjit.rem
func.func @fold_rem() -> (tensor<5xf32>, tensor<4xi32>) {
  %a = adjit.constant dense<[7.5, -7.5, 0.5, 1.0, 3.0]> : tensor<5xf32>
  %b = adjit.constant dense<[2.0, -2.0, 4.0, 0.0, 0x7F800000]> : tensor<5xf32>
  %0 = adjit.rem %a, %b : tensor<5xf32>
  %i = adjit.constant dense<[7, -7, 7, -2147483648]> : tensor<4xi32>
  %j = adjit.constant dense<[-2, 3, 0, -1]> : tensor<4xi32>
  %1 = adjit.rem %i, %j : tensor<4xi32>
  return %0, %1 : tensor<5xf32>, tensor<4xi32>
}

// -----

// Integer powers fold with wrap-around, and a negative exponent gives 1
// for 1, +-1 for -1, else 0.
// CHECK-LABEL: func.func @fold_int_pow
// CHECK: adjit.constant dense<[9, 0, 0, 1, -1, 1, 0]> : tensor<7xi32>
// CHECK-NOT: adjit.pow
func.func @fold_int_pow() -> tensor<7xi32> {
  %a = adjit.constant dense<[3, 0, 2, 1, -1, -1, 65536]> : tensor<7xi32>
  %b = adjit.constant dense<[2, -1, -1, -7, -3, -4, 2]> : tensor<7xi32>
  %0 = adjit.pow %a, %b : tensor<7xi32>
  return %0 : tensor<7xi32>
}

// -----

// CHECK-LABEL: func.func @fold_pow
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[8.000000e+00, 1.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<2.500000e-01> : tensor<f64>
// CHECK-NOT: adjit.pow
// CHECK: return %[[A]], %[[B]]
func.func @fold_pow() -> (tensor<3xf32>, tensor<f64>) {
  %a = adjit.constant dense<[2.0, 5.0, 9.0]> : tensor<3xf32>
  %b = adjit.constant dense<[3.0, 0.0, 0.5]> : tensor<3xf32>
  %0 = adjit.pow %a, %b : tensor<3xf32>
  %c = adjit.constant dense<2.0> : tensor<f64>
  %d = adjit.constant dense<-2.0> : tensor<f64>
  %1 = adjit.pow %c, %d : tensor<f64>
  return %0, %1 : tensor<3xf32>, tensor<f64>
}

// -----

// max and min propagate NaN and order -0.0 below +0.0.
// CHECK-LABEL: func.func @fold_max_min
// CHECK-DAG: %[[MAX:.*]] = adjit.constant dense<[2.000000e+00, 0x7FC00000, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[MIN:.*]] = adjit.constant dense<[1.000000e+00, 0x7FC00000, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[MAXI:.*]] = adjit.constant dense<[4, -1]> : tensor<2xi64>
// CHECK-DAG: %[[MINI:.*]] = adjit.constant dense<[3, -5]> : tensor<2xi64>
// CHECK-NOT: adjit.max
// CHECK-NOT: adjit.min
// CHECK: return %[[MAX]], %[[MIN]], %[[MAXI]], %[[MINI]]
func.func @fold_max_min() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xi64>, tensor<2xi64>) {
  %a = adjit.constant dense<[1.0, 0x7FC00000, -0.0]> : tensor<3xf32>
  %b = adjit.constant dense<[2.0, 1.0, 0.0]> : tensor<3xf32>
  %0 = adjit.max %a, %b : tensor<3xf32>
  %1 = adjit.min %a, %b : tensor<3xf32>
  %c = adjit.constant dense<[3, -1]> : tensor<2xi64>
  %d = adjit.constant dense<[4, -5]> : tensor<2xi64>
  %2 = adjit.max %c, %d : tensor<2xi64>
  %3 = adjit.min %c, %d : tensor<2xi64>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<2xi64>, tensor<2xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// x + (-0.0) is x for every x, including -0.0; so is (-0.0) + x.
// CHECK-LABEL: func.func @add_negative_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<2xbf16>)
// CHECK-NOT: adjit.add
// CHECK: return %[[X]], %[[X]], %[[H]]
func.func @add_negative_zero(%x: tensor<4xf32>, %h: tensor<2xbf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xbf16>) {
  %z = adjit.constant dense<-0.0> : tensor<4xf32>
  %0 = adjit.add %x, %z : tensor<4xf32>
  %1 = adjit.add %z, %x : tensor<4xf32>
  %zh = adjit.constant dense<-0.0> : tensor<2xbf16>
  %2 = adjit.add %h, %zh : tensor<2xbf16>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<2xbf16>
}

// -----

// x + (+0.0) is +0.0 for x = -0.0, so it must stay (add is commutative: the
// constant moves to the right).
// CHECK-LABEL: func.func @add_positive_zero_not_folded
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[Z:.*]] = adjit.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.*]] = adjit.add %[[X]], %[[Z]] : tensor<4xf32>
// CHECK: %[[B:.*]] = adjit.add %[[X]], %[[Z]] : tensor<4xf32>
// CHECK: return %[[A]], %[[B]]
func.func @add_positive_zero_not_folded(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = adjit.constant dense<0.0> : tensor<4xf32>
  %0 = adjit.add %x, %z : tensor<4xf32>
  %1 = adjit.add %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A zero that is not a splat constant is not an identity either.
// CHECK-LABEL: func.func @add_mixed_zeros_not_folded
// CHECK: adjit.add
func.func @add_mixed_zeros_not_folded(%x: tensor<2xf32>) -> tensor<2xf32> {
  %z = adjit.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %0 = adjit.add %x, %z : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @add_integer_zero
// CHECK-SAME: (%[[X:.*]]: tensor<3xi32>, %[[Y:.*]]: tensor<i64>)
// CHECK-NOT: adjit.add
// CHECK: return %[[X]], %[[Y]]
func.func @add_integer_zero(%x: tensor<3xi32>, %y: tensor<i64>) -> (tensor<3xi32>, tensor<i64>) {
  %z = adjit.constant dense<0> : tensor<3xi32>
  %0 = adjit.add %x, %z : tensor<3xi32>
  %w = adjit.constant dense<0> : tensor<i64>
  %1 = adjit.add %w, %y : tensor<i64>
  return %0, %1 : tensor<3xi32>, tensor<i64>
}

// -----

// x - (+0.0) == x + (-0.0) == x; x - 0 for integers too.
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK-NOT: adjit.sub
// CHECK: return %[[X]], %[[I]]
func.func @sub_zero(%x: tensor<4xf32>, %i: tensor<2xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %z = adjit.constant dense<0.0> : tensor<4xf32>
  %0 = adjit.sub %x, %z : tensor<4xf32>
  %zi = adjit.constant dense<0> : tensor<2xi64>
  %1 = adjit.sub %i, %zi : tensor<2xi64>
  return %0, %1 : tensor<4xf32>, tensor<2xi64>
}

// -----

// x - (-0.0) is x + 0.0, which is +0.0 for x = -0.0; 0 - x is -x only for
// integers, and is not rewritten.
// CHECK-LABEL: func.func @sub_zero_not_folded
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[A:.*]] = adjit.sub %[[X]], %{{.*}} : tensor<4xf32>
// CHECK: %[[B:.*]] = adjit.sub %{{.*}}, %[[X]] : tensor<4xf32>
// CHECK: return %[[A]], %[[B]]
func.func @sub_zero_not_folded(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = adjit.constant dense<-0.0> : tensor<4xf32>
  %0 = adjit.sub %x, %z : tensor<4xf32>
  %p = adjit.constant dense<0.0> : tensor<4xf32>
  %1 = adjit.sub %p, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2xi32>, %[[H:.*]]: tensor<f16>)
// CHECK-NOT: adjit.mul
// CHECK: return %[[X]], %[[X]], %[[I]], %[[H]]
func.func @mul_one(%x: tensor<4xf32>, %i: tensor<2xi32>, %h: tensor<f16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<f16>) {
  %one = adjit.constant dense<1.0> : tensor<4xf32>
  %0 = adjit.mul %x, %one : tensor<4xf32>
  %1 = adjit.mul %one, %x : tensor<4xf32>
  %onei = adjit.constant dense<1> : tensor<2xi32>
  %2 = adjit.mul %onei, %i : tensor<2xi32>
  %oneh = adjit.constant dense<1.0> : tensor<f16>
  %3 = adjit.mul %h, %oneh : tensor<f16>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<f16>
}

// -----

// x * 0 is not 0 for NaN, inf or negative x; x * -1 is not rewritten either.
// CHECK-LABEL: func.func @mul_not_folded
// CHECK: adjit.mul
// CHECK: adjit.mul
func.func @mul_not_folded(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = adjit.constant dense<0.0> : tensor<4xf32>
  %0 = adjit.mul %x, %zero : tensor<4xf32>
  %m = adjit.constant dense<-1.0> : tensor<4xf32>
  %1 = adjit.mul %x, %m : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x / 1 folds; 1 / x does not.
// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>, %[[I:.*]]: tensor<3xi64>)
// CHECK: %[[R:.*]] = adjit.div %{{.*}}, %[[X]] : tensor<4xf64>
// CHECK: return %[[X]], %[[I]], %[[R]]
func.func @div_one(%x: tensor<4xf64>, %i: tensor<3xi64>) -> (tensor<4xf64>, tensor<3xi64>, tensor<4xf64>) {
  %one = adjit.constant dense<1.0> : tensor<4xf64>
  %0 = adjit.div %x, %one : tensor<4xf64>
  %onei = adjit.constant dense<1> : tensor<3xi64>
  %1 = adjit.div %i, %onei : tensor<3xi64>
  %2 = adjit.div %one, %x : tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<3xi64>, tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @pow_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2xi32>)
// CHECK: %[[R:.*]] = adjit.pow %{{.*}}, %[[X]] : tensor<4xf32>
// CHECK: return %[[X]], %[[I]], %[[R]]
func.func @pow_one(%x: tensor<4xf32>, %i: tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>, tensor<4xf32>) {
  %one = adjit.constant dense<1.0> : tensor<4xf32>
  %0 = adjit.pow %x, %one : tensor<4xf32>
  %onei = adjit.constant dense<1> : tensor<2xi32>
  %1 = adjit.pow %i, %onei : tensor<2xi32>
  // 1^x is 1 for every x (even NaN) in C's pow, but it is not folded.
  %2 = adjit.pow %one, %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<2xi32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @max_min_same
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<i32>)
// CHECK-NOT: adjit.max
// CHECK-NOT: adjit.min
// CHECK: return %[[X]], %[[I]]
func.func @max_min_same(%x: tensor<4xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %0 = adjit.max %x, %x : tensor<4xf32>
  %1 = adjit.min %i, %i : tensor<i32>
  return %0, %1 : tensor<4xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK-NOT: adjit.neg
// CHECK: return %[[X]], %[[I]]
func.func @neg_neg(%x: tensor<4xf32>, %i: tensor<2xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %0 = adjit.neg %x : tensor<4xf32>
  %1 = adjit.neg %0 : tensor<4xf32>
  %2 = adjit.neg %i : tensor<2xi64>
  %3 = adjit.neg %2 : tensor<2xi64>
  return %1, %3 : tensor<4xf32>, tensor<2xi64>
}

// -----

// The inner neg stays when it has another use.
// CHECK-LABEL: func.func @neg_neg_keeps_used_inner
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[N:.*]] = adjit.neg %[[X]]
// CHECK-NOT: adjit.neg
// CHECK: return %[[X]], %[[N]]
func.func @neg_neg_keeps_used_inner(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = adjit.neg %x : tensor<4xf32>
  %1 = adjit.neg %0 : tensor<4xf32>
  return %1, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @not_not
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>)
// CHECK-NOT: adjit.not
// CHECK: return %[[P]]
func.func @not_not(%p: tensor<4xi1>) -> tensor<4xi1> {
  %0 = adjit.not %p : tensor<4xi1>
  %1 = adjit.not %0 : tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// abs(abs(x)) and sign(sign(x)) are not rewritten (no such folder).
// CHECK-LABEL: func.func @abs_abs_not_folded
// CHECK: adjit.abs
// CHECK: adjit.abs
func.func @abs_abs_not_folded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = adjit.abs %x : tensor<4xf32>
  %1 = adjit.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @select_splat_pred
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NOT: adjit.select
// CHECK: return %[[X]], %[[Y]]
func.func @select_splat_pred(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = adjit.constant dense<true> : tensor<4xi1>
  %f = adjit.constant dense<false> : tensor<4xi1>
  %0 = adjit.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>
  %1 = adjit.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_same_branches
// CHECK-SAME: (%[[P:.*]]: tensor<3xi1>, %[[X:.*]]: tensor<3xi64>)
// CHECK-NOT: adjit.select
// CHECK: return %[[X]]
func.func @select_same_branches(%p: tensor<3xi1>, %x: tensor<3xi64>) -> tensor<3xi64> {
  %0 = adjit.select %p, %x, %x : tensor<3xi1>, tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// A dense (non-splat) constant predicate is not folded.
// CHECK-LABEL: func.func @select_dense_pred_not_folded
// CHECK: adjit.select
func.func @select_dense_pred_not_folded(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %p = adjit.constant dense<[true, false]> : tensor<2xi1>
  %0 = adjit.select %p, %x, %y : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @convert_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[P:.*]]: tensor<i1>)
// CHECK-NOT: adjit.convert
// CHECK: return %[[X]], %[[P]]
func.func @convert_same_type(%x: tensor<4xf32>, %p: tensor<i1>) -> (tensor<4xf32>, tensor<i1>) {
  %0 = adjit.convert %x : tensor<4xf32> to tensor<4xf32>
  %1 = adjit.convert %p : tensor<i1> to tensor<i1>
  return %0, %1 : tensor<4xf32>, tensor<i1>
}

// -----

// Float to integer truncates toward zero and saturates; NaN gives 0.
// CHECK-LABEL: func.func @convert_float_to_int
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[-2, 2, 2147483647, -2147483648, 0, 2147483647, -2147483648, 0]> : tensor<8xi32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<[9223372036854775807, -9223372036854775808, 0, 65504]> : tensor<4xi64>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<-3> : tensor<2xi32>
// CHECK-NOT: adjit.convert
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @convert_float_to_int() -> (tensor<8xi32>, tensor<4xi64>, tensor<2xi32>) {
  %a = adjit.constant dense<[-2.7, 2.7, 3.0e9, -3.0e9, 0x7FC00000, 0x7F800000, 0xFF800000, -0.5]> : tensor<8xf32>
  %0 = adjit.convert %a : tensor<8xf32> to tensor<8xi32>
  %b = adjit.constant dense<[0x7C00, 0xFC00, 0x7E00, 0x7BFF]> : tensor<4xf16>
  %1 = adjit.convert %b : tensor<4xf16> to tensor<4xi64>
  %c = adjit.constant dense<-3.99> : tensor<2xf64>
  %2 = adjit.convert %c : tensor<2xf64> to tensor<2xi32>
  return %0, %1, %2 : tensor<8xi32>, tensor<4xi64>, tensor<2xi32>
}

// -----

// Any value to i1 is x != 0: -0.0 is false, NaN is true.
// CHECK-LABEL: func.func @convert_to_bool
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[false, false, true, true, true]> : tensor<5xi1>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<true> : tensor<2xi1>
// CHECK-NOT: adjit.convert
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @convert_to_bool() -> (tensor<5xi1>, tensor<3xi1>, tensor<2xi1>) {
  %a = adjit.constant dense<[0.0, -0.0, 0.5, 0x7FC00000, 0xFF800000]> : tensor<5xf32>
  %0 = adjit.convert %a : tensor<5xf32> to tensor<5xi1>
  %b = adjit.constant dense<[2, 0, -1]> : tensor<3xi64>
  %1 = adjit.convert %b : tensor<3xi64> to tensor<3xi1>
  // 256 is not 0 even though its low byte is.
  %c = adjit.constant dense<256> : tensor<2xi32>
  %2 = adjit.convert %c : tensor<2xi32> to tensor<2xi1>
  return %0, %1, %2 : tensor<5xi1>, tensor<3xi1>, tensor<2xi1>
}

// -----

// i1 to a number is 0 or 1 (never -1).
// CHECK-LABEL: func.func @convert_from_bool
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<1.000000e+00> : tensor<bf16>
// CHECK-NOT: adjit.convert
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @convert_from_bool() -> (tensor<2xi32>, tensor<2xf32>, tensor<bf16>) {
  %a = adjit.constant dense<[true, false]> : tensor<2xi1>
  %0 = adjit.convert %a : tensor<2xi1> to tensor<2xi32>
  %1 = adjit.convert %a : tensor<2xi1> to tensor<2xf32>
  %b = adjit.constant dense<true> : tensor<i1>
  %2 = adjit.convert %b : tensor<i1> to tensor<bf16>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xf32>, tensor<bf16>
}

// -----

// Integer widening sign-extends, narrowing wraps; float conversions round to
// nearest even.
// CHECK-LABEL: func.func @convert_numbers
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<[-1, 2147483647]> : tensor<2xi64>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<[1, -1]> : tensor<2xi32>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<[1.000000e+00, 1.001950e+00, 0x7C00]> : tensor<3xf16>
// CHECK-DAG: %[[D:.*]] = adjit.constant dense<[1.000000e+00, 1.007810e+00]> : tensor<2xbf16>
// CHECK-DAG: %[[E:.*]] = adjit.constant dense<[-3.000000e+00, 0x4B800000]> : tensor<2xf32>
// CHECK-DAG: %[[F:.*]] = adjit.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NOT: adjit.convert
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]]
func.func @convert_numbers() -> (tensor<2xi64>, tensor<2xi32>, tensor<3xf16>, tensor<2xbf16>, tensor<2xf32>, tensor<f64>) {
  %a = adjit.constant dense<[-1, 2147483647]> : tensor<2xi32>
  %0 = adjit.convert %a : tensor<2xi32> to tensor<2xi64>
  %b = adjit.constant dense<[4294967297, 4294967295]> : tensor<2xi64>
  %1 = adjit.convert %b : tensor<2xi64> to tensor<2xi32>
  // 1 + 2^-11 is a tie and rounds to even (1.0); 1.0019 rounds to 1 + 2^-9;
  // 1e5 overflows f16.
  %c = adjit.constant dense<[1.00048828125, 1.0019, 1.0e5]> : tensor<3xf32>
  %2 = adjit.convert %c : tensor<3xf32> to tensor<3xf16>
  // 1 + 2^-8 is a tie in bf16 and rounds to even (1.0).
  %d = adjit.constant dense<[1.00390625, 1.0078125]> : tensor<2xf64>
  %3 = adjit.convert %d : tensor<2xf64> to tensor<2xbf16>
  // 16777217 is not representable in f32 and rounds to even (2^24, printed
  // in hex).
  %e = adjit.constant dense<[-3, 16777217]> : tensor<2xi64>
  %4 = adjit.convert %e : tensor<2xi64> to tensor<2xf32>
  %f = adjit.constant dense<0.5> : tensor<f16>
  %5 = adjit.convert %f : tensor<f16> to tensor<f64>
  return %0, %1, %2, %3, %4, %5 : tensor<2xi64>, tensor<2xi32>, tensor<3xf16>, tensor<2xbf16>, tensor<2xf32>, tensor<f64>
}

// -----

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[R:.*]] = adjit.reshape %[[X]] : (tensor<6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%x: tensor<6xf32>) -> tensor<3x2xf32> {
  %0 = adjit.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
  %1 = adjit.reshape %0 : (tensor<2x3xf32>) -> tensor<1x6xf32>
  %2 = adjit.reshape %1 : (tensor<1x6xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// A reshape chain back to the operand's type disappears, as does a reshape to
// the same type.
// CHECK-LABEL: func.func @reshape_roundtrip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi64>)
// CHECK-NOT: adjit.reshape
// CHECK: return %[[X]], %[[X]]
func.func @reshape_roundtrip(%x: tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %0 = adjit.reshape %x : (tensor<2x3xi64>) -> tensor<6xi64>
  %1 = adjit.reshape %0 : (tensor<6xi64>) -> tensor<2x3xi64>
  %2 = adjit.reshape %x : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %1, %2 : tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<2.500000e+00> : tensor<1x1xf32>
// CHECK-NOT: adjit.reshape
// CHECK: return %[[A]], %[[B]]
func.func @reshape_constant() -> (tensor<2x3xi32>, tensor<1x1xf32>) {
  %a = adjit.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = adjit.reshape %a : (tensor<6xi32>) -> tensor<2x3xi32>
  %b = adjit.constant dense<2.5> : tensor<f32>
  %1 = adjit.reshape %b : (tensor<f32>) -> tensor<1x1xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NOT: adjit.transpose
// CHECK: return %[[X]], %[[S]]
func.func @transpose_identity(%x: tensor<2x3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %0 = adjit.transpose %x, perm = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = adjit.transpose %s, perm = [] : (tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<2x3xf32>, tensor<f32>
}

// -----

// The transposed weight gradient of reverse mode, (dy^T x)^T, is x^T dy: the
// operands swap, and so do their batch and contracting dimensions.
// CHECK-LABEL: func.func @transposed_dot_swaps_operands
// CHECK-SAME: (%[[DY:.*]]: tensor<8x4xf32>, %[[X:.*]]: tensor<8x3xf32>, %[[A:.*]]: tensor<5x2x6xf32>, %[[B:.*]]: tensor<2x6x7xf32>)
// CHECK-NOT: adjit.transpose
// CHECK: %[[W:.*]] = adjit.dot_general %[[X]], %[[DY]], batch = [] x [], contract = [0] x [0] : (tensor<8x3xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[BATCHED:.*]] = adjit.dot_general %[[B]], %[[A]], batch = [0] x [1], contract = [1] x [2] : (tensor<2x6x7xf32>, tensor<5x2x6xf32>) -> tensor<2x7x5xf32>
// CHECK: return %[[W]], %[[BATCHED]]
func.func @transposed_dot_swaps_operands(%dy: tensor<8x4xf32>, %x: tensor<8x3xf32>, %a: tensor<5x2x6xf32>, %b: tensor<2x6x7xf32>) -> (tensor<3x4xf32>, tensor<2x7x5xf32>) {
  %0 = adjit.dot_general %dy, %x, batch = [] x [], contract = [0] x [0] : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = adjit.transpose %0, perm = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %2 = adjit.dot_general %a, %b, batch = [1] x [0], contract = [2] x [1] : (tensor<5x2x6xf32>, tensor<2x6x7xf32>) -> tensor<2x5x7xf32>
  %3 = adjit.transpose %2, perm = [0, 2, 1] : (tensor<2x5x7xf32>) -> tensor<2x7x5xf32>
  return %1, %3 : tensor<3x4xf32>, tensor<2x7x5xf32>
}

// -----

// Kept: a transpose that does not swap the free dimensions, and one of a
// dot whose result is also used untransposed (swapping would compute it
// twice).
// CHECK-LABEL: func.func @transposed_dot_kept
// CHECK-COUNT-2: adjit.transpose
func.func @transposed_dot_kept(%a: tensor<2x5x6xf32>, %b: tensor<2x6x7xf32>, %x: tensor<4x8xf32>, %y: tensor<8x3xf32>) -> (tensor<5x2x7xf32>, tensor<4x3xf32>, tensor<3x4xf32>) {
  %0 = adjit.dot_general %a, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<2x5x6xf32>, tensor<2x6x7xf32>) -> tensor<2x5x7xf32>
  %1 = adjit.transpose %0, perm = [1, 0, 2] : (tensor<2x5x7xf32>) -> tensor<5x2x7xf32>
  %2 = adjit.dot_general %x, %y, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %3 = adjit.transpose %2, perm = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %1, %2, %3 : tensor<5x2x7xf32>, tensor<4x3xf32>, tensor<3x4xf32>
}

// -----

// A transposed operand is read in place: x^T dy and a dy^T contract over x's
// and w's own dimensions; a batched operand whose transpose keeps its free
// dimensions in order too. The transpose stays for its other use.
// CHECK-LABEL: func.func @transposed_operands_read_in_place
// CHECK-SAME: (%[[X:.*]]: tensor<8x3xf32>, %[[DY:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[A:.*]]: tensor<6x2x5xf32>, %[[B:.*]]: tensor<2x6x7xf32>)
// CHECK: %[[XT:.*]] = adjit.transpose %[[X]]
// CHECK: %[[G:.*]] = adjit.dot_general %[[X]], %[[DY]], batch = [] x [], contract = [0] x [0] : (tensor<8x3xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[H:.*]] = adjit.dot_general %[[DY]], %[[W]], batch = [] x [], contract = [1] x [1] : (tensor<8x4xf32>, tensor<5x4xf32>) -> tensor<8x5xf32>
// CHECK: %[[C:.*]] = adjit.dot_general %[[A]], %[[B]], batch = [1] x [0], contract = [0] x [1] : (tensor<6x2x5xf32>, tensor<2x6x7xf32>) -> tensor<2x5x7xf32>
// CHECK: return %[[G]], %[[H]], %[[C]], %[[XT]]
func.func @transposed_operands_read_in_place(%x: tensor<8x3xf32>, %dy: tensor<8x4xf32>, %w: tensor<5x4xf32>, %a: tensor<6x2x5xf32>, %b: tensor<2x6x7xf32>) -> (tensor<3x4xf32>, tensor<8x5xf32>, tensor<2x5x7xf32>, tensor<3x8xf32>) {
  %xt = adjit.transpose %x, perm = [1, 0] : (tensor<8x3xf32>) -> tensor<3x8xf32>
  %0 = adjit.dot_general %xt, %dy, batch = [] x [], contract = [1] x [0] : (tensor<3x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  %wt = adjit.transpose %w, perm = [1, 0] : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %1 = adjit.dot_general %dy, %wt, batch = [] x [], contract = [1] x [0] : (tensor<8x4xf32>, tensor<4x5xf32>) -> tensor<8x5xf32>
  %at = adjit.transpose %a, perm = [1, 2, 0] : (tensor<6x2x5xf32>) -> tensor<2x5x6xf32>
  %2 = adjit.dot_general %at, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<2x5x6xf32>, tensor<2x6x7xf32>) -> tensor<2x5x7xf32>
  return %0, %1, %2, %xt : tensor<3x4xf32>, tensor<8x5xf32>, tensor<2x5x7xf32>, tensor<3x8xf32>
}

// -----

// Kept: a transpose that reorders the operand's free dimensions would
// reorder the result's.
// CHECK-LABEL: func.func @transposed_operand_reordering_kept
// CHECK: %[[T:.*]] = adjit.transpose
// CHECK: adjit.dot_general %[[T]], %{{.*}}, batch = [] x [], contract = [2] x [0]
func.func @transposed_operand_reordering_kept(%a: tensor<3x2x6xf32>, %b: tensor<6x7xf32>) -> tensor<2x3x7xf32> {
  %at = adjit.transpose %a, perm = [1, 0, 2] : (tensor<3x2x6xf32>) -> tensor<2x3x6xf32>
  %0 = adjit.dot_general %at, %b, batch = [] x [], contract = [2] x [0] : (tensor<2x3x6xf32>, tensor<6x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// A transpose of a square matrix has the operand's type but is not identity.
// CHECK-LABEL: func.func @transpose_square_kept
// CHECK: adjit.transpose %{{.*}}, perm = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
func.func @transpose_square_kept(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = adjit.transpose %x, perm = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// transpose(transpose(x, [1, 2, 0]), [1, 2, 0]) == transpose(x, [2, 0, 1]).
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = adjit.transpose %[[X]], perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = adjit.transpose %x, perm = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = adjit.transpose %0, perm = [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// transpose(transpose(x, [0, 2, 1]), [1, 0, 2]) == transpose(x, [2, 0, 1])
// (the composition is not commutative).
// CHECK-LABEL: func.func @transpose_compose_order
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = adjit.transpose %[[X]], perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose_order(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = adjit.transpose %x, perm = [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = adjit.transpose %0, perm = [1, 0, 2] : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// Two inverse transposes compose to the identity, which then folds away.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xi32>, %[[Y:.*]]: tensor<5x6xf64>)
// CHECK-NOT: adjit.transpose
// CHECK: return %[[X]], %[[Y]]
func.func @transpose_inverse(%x: tensor<2x3x4xi32>, %y: tensor<5x6xf64>) -> (tensor<2x3x4xi32>, tensor<5x6xf64>) {
  %0 = adjit.transpose %x, perm = [1, 2, 0] : (tensor<2x3x4xi32>) -> tensor<3x4x2xi32>
  %1 = adjit.transpose %0, perm = [2, 0, 1] : (tensor<3x4x2xi32>) -> tensor<2x3x4xi32>
  %2 = adjit.transpose %y, perm = [1, 0] : (tensor<5x6xf64>) -> tensor<6x5xf64>
  %3 = adjit.transpose %2, perm = [1, 0] : (tensor<6x5xf64>) -> tensor<5x6xf64>
  return %1, %3 : tensor<2x3x4xi32>, tensor<5x6xf64>
}

// -----

// CHECK-LABEL: func.func @transpose_constant
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<{{\[\[\[}}0.000000e+00, 2.000000e+00], [4.000000e+00, 6.000000e+00]], {{\[\[}}1.000000e+00, 3.000000e+00], [5.000000e+00, 7.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK-DAG: %[[C:.*]] = adjit.constant dense<7> : tensor<4x3xi64>
// CHECK-NOT: adjit.transpose
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @transpose_constant() -> (tensor<3x2xi32>, tensor<2x2x2xf32>, tensor<4x3xi64>) {
  %a = adjit.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = adjit.transpose %a, perm = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  // result[i][j][k] = b[j][k][i]
  %b = adjit.constant dense<[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]> : tensor<2x2x2xf32>
  %1 = adjit.transpose %b, perm = [2, 0, 1] : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %c = adjit.constant dense<7> : tensor<3x4xi64>
  %2 = adjit.transpose %c, perm = [1, 0] : (tensor<3x4xi64>) -> tensor<4x3xi64>
  return %0, %1, %2 : tensor<3x2xi32>, tensor<2x2x2xf32>, tensor<4x3xi64>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-DAG: %[[A:.*]] = adjit.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[B:.*]] = adjit.constant dense<true> : tensor<4x5xi1>
// CHECK-NOT: adjit.broadcast_in_dim
// CHECK: return %[[A]], %[[B]]
func.func @broadcast_splat() -> (tensor<2x3xf32>, tensor<4x5xi1>) {
  %a = adjit.constant dense<1.5> : tensor<3xf32>
  %0 = adjit.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %b = adjit.constant dense<true> : tensor<i1>
  %1 = adjit.broadcast_in_dim %b, dims = [] : (tensor<i1>) -> tensor<4x5xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<4x5xi1>
}

// -----

// CHECK-LABEL: func.func @broadcast_dense
// CHECK-DAG: %[[ROWS:.*]] = adjit.constant dense<{{\[\[}}1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
// CHECK-DAG: %[[COLS:.*]] = adjit.constant dense<{{\[\[}}1, 1], [2, 2], [3, 3]]> : tensor<3x2xi32>
// CHECK-DAG: %[[ONE:.*]] = adjit.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[PERM:.*]] = adjit.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-NOT: adjit.broadcast_in_dim
// CHECK: return %[[ROWS]], %[[COLS]], %[[ONE]], %[[PERM]]
func.func @broadcast_dense() -> (tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x2xf32>, tensor<3x2xi64>) {
  %a = adjit.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = adjit.broadcast_in_dim %a, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  %1 = adjit.broadcast_in_dim %a, dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>
  // A size-1 operand dimension repeats.
  %b = adjit.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %2 = adjit.broadcast_in_dim %b, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<2x2xf32>
  // dims may permute: operand dimension i becomes result dimension dims[i].
  %c = adjit.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %3 = adjit.broadcast_in_dim %c, dims = [1, 0] : (tensor<2x3xi64>) -> tensor<3x2xi64>
  return %0, %1, %2, %3 : tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x2xf32>, tensor<3x2xi64>
}

// -----

// A broadcast to the operand's own type with dims in order is the identity.
// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: adjit.broadcast_in_dim
// CHECK: return %[[X]]
func.func @broadcast_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = adjit.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x5xf32>, %[[Y:.*]]: tensor<1xi32>)
// CHECK-NOT: adjit.slice
// CHECK: return %[[X]], %[[Y]]
func.func @slice_identity(%x: tensor<4x5xf32>, %y: tensor<1xi32>) -> (tensor<4x5xf32>, tensor<1xi32>) {
  %0 = adjit.slice %x, start = [0, 0], limit = [4, 5], stride = [1, 1] : (tensor<4x5xf32>) -> tensor<4x5xf32>
  // One element with any stride is still the whole tensor.
  %1 = adjit.slice %y, start = [0], limit = [1], stride = [3] : (tensor<1xi32>) -> tensor<1xi32>
  return %0, %1 : tensor<4x5xf32>, tensor<1xi32>
}

// -----

// CHECK-LABEL: func.func @slice_not_identity
// CHECK: adjit.slice
func.func @slice_not_identity(%x: tensor<4xf32>) -> tensor<2xf32> {
  %0 = adjit.slice %x, start = [1], limit = [3], stride = [1] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A slice of elementwise work that only it uses slices the work's operands:
// exp and mul run on 10 elements, not 1000; the splat constant becomes a
// splat of the slice's shape; a select's bool operand is sliced as a bool
// (x, sliced for exp and for the select, is sliced twice until CSE).
// CHECK-LABEL: func.func @slice_through_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<1000xf32>, %[[C:.*]]: tensor<1000xi1>)
// CHECK-DAG: %[[TWO:.*]] = adjit.constant dense<2.000000e+00> : tensor<10xf32>
// CHECK-DAG: %[[XS:.*]] = adjit.slice %[[X]], start = [5], limit = [25], stride = [2] : (tensor<1000xf32>) -> tensor<10xf32>
// CHECK-DAG: %[[CS:.*]] = adjit.slice %[[C]], start = [5], limit = [25], stride = [2] : (tensor<1000xi1>) -> tensor<10xi1>
// CHECK: %[[E:.*]] = adjit.exp %[[XS]] : tensor<10xf32>
// CHECK: %[[M:.*]] = adjit.mul %[[E]], %[[TWO]] : tensor<10xf32>
// CHECK: adjit.select %[[CS]], %[[M]], %{{.*}} : tensor<10xi1>, tensor<10xf32>
// CHECK-NOT: tensor<1000xf32>
// CHECK: return
func.func @slice_through_elementwise(%x: tensor<1000xf32>, %c: tensor<1000xi1>) -> tensor<10xf32> {
  %two = adjit.constant dense<2.0> : tensor<1000xf32>
  %e = adjit.exp %x : tensor<1000xf32>
  %m = adjit.mul %e, %two : tensor<1000xf32>
  %s = adjit.select %c, %m, %x : tensor<1000xi1>, tensor<1000xf32>
  %0 = adjit.slice %s, start = [5], limit = [25], stride = [2] : (tensor<1000xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// Elementwise work used elsewhere too is computed whole once, not again
// for the slice.
// CHECK-LABEL: func.func @slice_of_shared_elementwise
// CHECK: %[[E:.*]] = adjit.exp %{{.*}} : tensor<100xf32>
// CHECK: adjit.slice %[[E]]
// CHECK-NOT: adjit.exp
func.func @slice_of_shared_elementwise(%x: tensor<100xf32>) -> (tensor<100xf32>, tensor<10xf32>) {
  %e = adjit.exp %x : tensor<100xf32>
  %0 = adjit.slice %e, start = [0], limit = [10], stride = [1] : (tensor<100xf32>) -> tensor<10xf32>
  return %e, %0 : tensor<100xf32>, tensor<10xf32>
}

// -----

// A slice of a broadcast broadcasts the part of its operand taken; a
// repeated (size 1) dimension stays whole.
// CHECK-LABEL: func.func @slice_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<100x1xf32>)
// CHECK: %[[P:.*]] = adjit.slice %[[X]], start = [10, 0], limit = [20, 1], stride = [2, 1] : (tensor<100x1xf32>) -> tensor<5x1xf32>
// CHECK: %[[B:.*]] = adjit.broadcast_in_dim %[[P]], dims = [2, 0] : (tensor<5x1xf32>) -> tensor<3x4x5xf32>
// CHECK: %[[Q:.*]] = adjit.slice %[[X]], start = [10, 0], limit = [11, 1], stride = [1, 1] : (tensor<100x1xf32>) -> tensor<1x1xf32>
// CHECK: %[[C:.*]] = adjit.broadcast_in_dim %[[Q]], dims = [2, 0] : (tensor<1x1xf32>) -> tensor<1x4x1xf32>
// CHECK: return %[[B]], %[[C]]
func.func @slice_of_broadcast(%x: tensor<100x1xf32>) -> (tensor<3x4x5xf32>, tensor<1x4x1xf32>) {
  %b = adjit.broadcast_in_dim %x, dims = [2, 0] : (tensor<100x1xf32>) -> tensor<8x4x100xf32>
  %0 = adjit.slice %b, start = [1, 0, 10], limit = [4, 4, 20], stride = [1, 1, 2] : (tensor<8x4x100xf32>) -> tensor<3x4x5xf32>
  // One element of a repeated dimension: the operand's only one.
  %1 = adjit.slice %b, start = [5, 0, 10], limit = [6, 4, 11], stride = [1, 1, 1] : (tensor<8x4x100xf32>) -> tensor<1x4x1xf32>
  return %0, %1 : tensor<3x4x5xf32>, tensor<1x4x1xf32>
}

// -----

// A slice of an iota is a smaller iota: integers count from the start by
// the stride along the iota's dimension; other dimensions only shrink. A
// float iota sliced from 0 with stride 1 is an iota too; with another
// start it stays a slice (float products could round otherwise).
// CHECK-LABEL: func.func @slice_of_iota
// CHECK-DAG: %[[I:.*]] = adjit.iota dim = 1 : tensor<2x3xi64>
// CHECK-DAG: %[[THREE:.*]] = adjit.constant dense<3> : tensor<2x3xi64>
// CHECK-DAG: %[[SEVEN:.*]] = adjit.constant dense<7> : tensor<2x3xi64>
// CHECK: %[[SCALED:.*]] = adjit.mul %[[I]], %[[THREE]] : tensor<2x3xi64>
// CHECK: %[[COUNTED:.*]] = adjit.add %[[SCALED]], %[[SEVEN]] : tensor<2x3xi64>
// CHECK-DAG: %[[F:.*]] = adjit.iota dim = 0 : tensor<4xf32>
// CHECK-DAG: %[[G:.*]] = adjit.iota dim = 0 : tensor<1000xf32>
// CHECK: %[[GS:.*]] = adjit.slice %[[G]], start = [1]
// CHECK: return %[[COUNTED]], %[[F]], %[[GS]]
func.func @slice_of_iota() -> (tensor<2x3xi64>, tensor<4xf32>, tensor<4xf32>) {
  %i = adjit.iota dim = 1 : tensor<5x1000xi64>
  %0 = adjit.slice %i, start = [1, 7], limit = [3, 16], stride = [1, 3] : (tensor<5x1000xi64>) -> tensor<2x3xi64>
  %f = adjit.iota dim = 0 : tensor<1000xf32>
  %1 = adjit.slice %f, start = [0], limit = [4], stride = [1] : (tensor<1000xf32>) -> tensor<4xf32>
  %2 = adjit.slice %f, start = [1], limit = [5], stride = [1] : (tensor<1000xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<2x3xi64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @concatenate_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: adjit.concatenate
// CHECK: return %[[X]]
func.func @concatenate_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = adjit.concatenate(%x) dim = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @concatenate_two_kept
// CHECK: adjit.concatenate
func.func @concatenate_two_kept(%x: tensor<2xf32>) -> tensor<4xf32> {
  %0 = adjit.concatenate(%x, %x) dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_no_dims
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<i64>)
// CHECK-NOT: adjit.reduce
// CHECK: return %[[X]], %[[I]]
func.func @reduce_no_dims(%x: tensor<2x3xf32>, %i: tensor<i64>) -> (tensor<2x3xf32>, tensor<i64>) {
  %0 = adjit.reduce sum %x, dims = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = adjit.reduce max %i, dims = [] : (tensor<i64>) -> tensor<i64>
  return %0, %1 : tensor<2x3xf32>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @reduce_kept
// CHECK: adjit.reduce sum
func.func @reduce_kept(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Folds chain: (c1 + c2) * x with c1 + c2 == 1 leaves x.
// CHECK-LABEL: func.func @fold_chain
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @fold_chain(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = adjit.constant dense<0.25> : tensor<3xf32>
  %b = adjit.constant dense<0.75> : tensor<3xf32>
  %0 = adjit.add %a, %b : tensor<3xf32>
  %1 = adjit.mul %0, %x : tensor<3xf32>
  %2 = adjit.broadcast_in_dim %1, dims = [0] : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
