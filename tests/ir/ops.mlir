// Round trip of every adjit op through the custom assembly format and through
// the generic form: printing, reparsing and printing again gives the same text.
// RUN: adjit-opt %s | adjit-opt | FileCheck %s
// RUN: adjit-opt %s --mlir-print-op-generic | adjit-opt | FileCheck %s
// RUN: adjit-opt %s -split-input-file --mlir-print-op-generic | adjit-opt -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: adjit-opt %s -split-input-file --verify-diagnostics | FileCheck %s

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<f64>, tensor<2x2xi32>, tensor<3xi1>, tensor<i64>, tensor<2xf16>, tensor<2xbf16>, tensor<0xf32>) {
  // CHECK: adjit.constant dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>
  %0 = adjit.constant dense<[1.0, -2.5]> : tensor<2xf32>
  // CHECK: adjit.constant dense<3.000000e+00> : tensor<f64>
  %1 = adjit.constant dense<3.0> : tensor<f64>
  // CHECK: adjit.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
  %2 = adjit.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK: adjit.constant dense<[true, false, true]> : tensor<3xi1>
  %3 = adjit.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK: adjit.constant dense<-7> : tensor<i64>
  %4 = adjit.constant dense<-7> : tensor<i64>
  // CHECK: adjit.constant dense<[5.000000e-01, 1.500000e+00]> : tensor<2xf16>
  %5 = adjit.constant dense<[0.5, 1.5]> : tensor<2xf16>
  // CHECK: adjit.constant dense<2.000000e+00> : tensor<2xbf16>
  %6 = adjit.constant dense<2.0> : tensor<2xbf16>
  // CHECK: adjit.constant dense<> : tensor<0xf32>
  %7 = adjit.constant dense<> : tensor<0xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2xf32>, tensor<f64>, tensor<2x2xi32>, tensor<3xi1>, tensor<i64>, tensor<2xf16>, tensor<2xbf16>, tensor<0xf32>
}
// GENERIC-LABEL: sym_name = "constants"
// GENERIC: "adjit.constant"() <{value = dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>

// -----

// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<2x3xi32>, tensor<5xi64>, tensor<4x2xf32>, tensor<3xbf16>) {
  // CHECK: adjit.iota dim = 1 : tensor<2x3xi32>
  %0 = adjit.iota dim = 1 : tensor<2x3xi32>
  // CHECK: adjit.iota dim = 0 : tensor<5xi64>
  %1 = adjit.iota dim = 0 : tensor<5xi64>
  // CHECK: adjit.iota dim = 0 : tensor<4x2xf32>
  %2 = adjit.iota dim = 0 : tensor<4x2xf32>
  // CHECK: adjit.iota dim = 0 : tensor<3xbf16>
  %3 = adjit.iota dim = 0 : tensor<3xbf16>
  return %0, %1, %2, %3 : tensor<2x3xi32>, tensor<5xi64>, tensor<4x2xf32>, tensor<3xbf16>
}
// GENERIC-LABEL: sym_name = "iota"
// GENERIC: "adjit.iota"() <{dim = 1 : i64}> : () -> tensor<2x3xi32>

// -----

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_numeric
// CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2x3xi32>, %[[L:.*]]: tensor<i64>, %[[H:.*]]: tensor<f16>)
func.func @unary_numeric(%f: tensor<4xf32>, %i: tensor<2x3xi32>, %l: tensor<i64>, %h: tensor<f16>) {
  // CHECK: adjit.neg %[[F]] : tensor<4xf32>
  %0 = adjit.neg %f : tensor<4xf32>
  // CHECK: adjit.neg %[[I]] : tensor<2x3xi32>
  %1 = adjit.neg %i : tensor<2x3xi32>
  // CHECK: adjit.abs %[[L]] : tensor<i64>
  %2 = adjit.abs %l : tensor<i64>
  // CHECK: adjit.abs %[[H]] : tensor<f16>
  %3 = adjit.abs %h : tensor<f16>
  // CHECK: adjit.sign %[[F]] : tensor<4xf32>
  %4 = adjit.sign %f : tensor<4xf32>
  // CHECK: adjit.sign %[[I]] : tensor<2x3xi32>
  %5 = adjit.sign %i : tensor<2x3xi32>
  // CHECK: adjit.relu %[[F]] : tensor<4xf32>
  %6 = adjit.relu %f : tensor<4xf32>
  // CHECK: adjit.relu %[[I]] : tensor<2x3xi32>
  %7 = adjit.relu %i : tensor<2x3xi32>
  return
}
// GENERIC-LABEL: sym_name = "unary_numeric"
// GENERIC: "adjit.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.neg"(%arg1) : (tensor<2x3xi32>) -> tensor<2x3xi32>
// GENERIC: "adjit.abs"(%arg2) : (tensor<i64>) -> tensor<i64>
// GENERIC: "adjit.abs"(%arg3) : (tensor<f16>) -> tensor<f16>
// GENERIC: "adjit.sign"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.sign"(%arg1) : (tensor<2x3xi32>) -> tensor<2x3xi32>
// GENERIC: "adjit.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.relu"(%arg1) : (tensor<2x3xi32>) -> tensor<2x3xi32>

// -----

// CHECK-LABEL: func.func @integer_pow
// CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[H:.*]]: tensor<bf16>)
func.func @integer_pow(%f: tensor<4xf32>, %i: tensor<2x3xi64>, %h: tensor<bf16>) {
  // CHECK: adjit.integer_pow %[[F]], 3 : tensor<4xf32>
  %0 = adjit.integer_pow %f, 3 : tensor<4xf32>
  // CHECK: adjit.integer_pow %[[F]], -2 : tensor<4xf32>
  %1 = adjit.integer_pow %f, -2 : tensor<4xf32>
  // CHECK: adjit.integer_pow %[[I]], 0 : tensor<2x3xi64>
  %2 = adjit.integer_pow %i, 0 : tensor<2x3xi64>
  // CHECK: adjit.integer_pow %[[H]], 7 : tensor<bf16>
  %3 = adjit.integer_pow %h, 7 : tensor<bf16>
  return
}
// GENERIC-LABEL: sym_name = "integer_pow"
// GENERIC: "adjit.integer_pow"(%arg0) <{exponent = 3 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.integer_pow"(%arg0) <{exponent = -2 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.integer_pow"(%arg1) <{exponent = 0 : i64}> : (tensor<2x3xi64>) -> tensor<2x3xi64>
// GENERIC: "adjit.integer_pow"(%arg2) <{exponent = 7 : i64}> : (tensor<bf16>) -> tensor<bf16>

// -----

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<f64>, %[[H:.*]]: tensor<2x2xf16>, %[[B:.*]]: tensor<3xbf16>)
func.func @unary_float(%x: tensor<4xf32>, %d: tensor<f64>, %h: tensor<2x2xf16>, %b: tensor<3xbf16>) {
  // CHECK: adjit.exp %[[X]] : tensor<4xf32>
  %0 = adjit.exp %x : tensor<4xf32>
  // CHECK: adjit.expm1 %[[D]] : tensor<f64>
  %1 = adjit.expm1 %d : tensor<f64>
  // CHECK: adjit.log %[[H]] : tensor<2x2xf16>
  %2 = adjit.log %h : tensor<2x2xf16>
  // CHECK: adjit.log1p %[[B]] : tensor<3xbf16>
  %3 = adjit.log1p %b : tensor<3xbf16>
  // CHECK: adjit.sqrt %[[X]] : tensor<4xf32>
  %4 = adjit.sqrt %x : tensor<4xf32>
  // CHECK: adjit.rsqrt %[[D]] : tensor<f64>
  %5 = adjit.rsqrt %d : tensor<f64>
  // CHECK: adjit.sin %[[H]] : tensor<2x2xf16>
  %6 = adjit.sin %h : tensor<2x2xf16>
  // CHECK: adjit.cos %[[B]] : tensor<3xbf16>
  %7 = adjit.cos %b : tensor<3xbf16>
  // CHECK: adjit.tanh %[[X]] : tensor<4xf32>
  %8 = adjit.tanh %x : tensor<4xf32>
  // CHECK: adjit.logistic %[[D]] : tensor<f64>
  %9 = adjit.logistic %d : tensor<f64>
  // CHECK: adjit.erf %[[H]] : tensor<2x2xf16>
  %10 = adjit.erf %h : tensor<2x2xf16>
  // CHECK: adjit.floor %[[B]] : tensor<3xbf16>
  %11 = adjit.floor %b : tensor<3xbf16>
  // CHECK: adjit.gelu %[[X]] : tensor<4xf32>
  %12 = adjit.gelu %x : tensor<4xf32>
  // CHECK: adjit.gelu %[[H]] approximate : tensor<2x2xf16>
  %13 = adjit.gelu %h approximate : tensor<2x2xf16>
  return
}
// GENERIC-LABEL: sym_name = "unary_float"
// GENERIC: "adjit.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.expm1"(%arg1) : (tensor<f64>) -> tensor<f64>
// GENERIC: "adjit.log"(%arg2) : (tensor<2x2xf16>) -> tensor<2x2xf16>
// GENERIC: "adjit.log1p"(%arg3) : (tensor<3xbf16>) -> tensor<3xbf16>
// GENERIC: "adjit.sqrt"
// GENERIC: "adjit.rsqrt"
// GENERIC: "adjit.sin"
// GENERIC: "adjit.cos"
// GENERIC: "adjit.tanh"
// GENERIC: "adjit.logistic"
// GENERIC: "adjit.erf"
// GENERIC: "adjit.floor"(%arg3) : (tensor<3xbf16>) -> tensor<3xbf16>
// GENERIC: "adjit.gelu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.gelu"(%arg2) <{approximate}> : (tensor<2x2xf16>) -> tensor<2x2xf16>

// -----

// CHECK-LABEL: func.func @trigonometric_hyperbolic_rounding
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<f64>, %[[H:.*]]: tensor<2x2xf16>, %[[B:.*]]: tensor<3xbf16>)
func.func @trigonometric_hyperbolic_rounding(%x: tensor<4xf32>, %d: tensor<f64>, %h: tensor<2x2xf16>, %b: tensor<3xbf16>) {
  // CHECK: adjit.tan %[[X]] : tensor<4xf32>
  %0 = adjit.tan %x : tensor<4xf32>
  // CHECK: adjit.asin %[[D]] : tensor<f64>
  %1 = adjit.asin %d : tensor<f64>
  // CHECK: adjit.acos %[[H]] : tensor<2x2xf16>
  %2 = adjit.acos %h : tensor<2x2xf16>
  // CHECK: adjit.atan %[[B]] : tensor<3xbf16>
  %3 = adjit.atan %b : tensor<3xbf16>
  // CHECK: adjit.sinh %[[X]] : tensor<4xf32>
  %4 = adjit.sinh %x : tensor<4xf32>
  // CHECK: adjit.cosh %[[D]] : tensor<f64>
  %5 = adjit.cosh %d : tensor<f64>
  // CHECK: adjit.asinh %[[H]] : tensor<2x2xf16>
  %6 = adjit.asinh %h : tensor<2x2xf16>
  // CHECK: adjit.acosh %[[B]] : tensor<3xbf16>
  %7 = adjit.acosh %b : tensor<3xbf16>
  // CHECK: adjit.atanh %[[X]] : tensor<4xf32>
  %8 = adjit.atanh %x : tensor<4xf32>
  // CHECK: adjit.cbrt %[[D]] : tensor<f64>
  %9 = adjit.cbrt %d : tensor<f64>
  // CHECK: adjit.ceil %[[H]] : tensor<2x2xf16>
  %10 = adjit.ceil %h : tensor<2x2xf16>
  // CHECK: adjit.round %[[B]] : tensor<3xbf16>
  %11 = adjit.round %b : tensor<3xbf16>
  // CHECK: adjit.atan2 %[[X]], %[[X]] : tensor<4xf32>
  %12 = adjit.atan2 %x, %x : tensor<4xf32>
  return
}
// GENERIC-LABEL: sym_name = "trigonometric_hyperbolic_rounding"
// GENERIC: "adjit.tan"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.asin"(%arg1) : (tensor<f64>) -> tensor<f64>
// GENERIC: "adjit.acos"
// GENERIC: "adjit.atan"
// GENERIC: "adjit.sinh"
// GENERIC: "adjit.cosh"
// GENERIC: "adjit.asinh"
// GENERIC: "adjit.acosh"
// GENERIC: "adjit.atanh"
// GENERIC: "adjit.cbrt"
// GENERIC: "adjit.ceil"
// GENERIC: "adjit.round"(%arg3) : (tensor<3xbf16>) -> tensor<3xbf16>
// GENERIC: "adjit.atan2"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// -----

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2x2xi32>, %[[J:.*]]: tensor<2x2xi32>, %[[L:.*]]: tensor<i64>, %[[D:.*]]: tensor<f64>, %[[H:.*]]: tensor<3xf16>, %[[B:.*]]: tensor<3xbf16>)
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<2x2xi32>, %j: tensor<2x2xi32>,
                  %l: tensor<i64>, %d: tensor<f64>, %h: tensor<3xf16>, %b: tensor<3xbf16>) {
  // CHECK: adjit.add %[[X]], %[[Y]] : tensor<4xf32>
  %0 = adjit.add %x, %y : tensor<4xf32>
  // CHECK: adjit.add %[[I]], %[[J]] : tensor<2x2xi32>
  %1 = adjit.add %i, %j : tensor<2x2xi32>
  // CHECK: adjit.sub %[[L]], %[[L]] : tensor<i64>
  %2 = adjit.sub %l, %l : tensor<i64>
  // CHECK: adjit.sub %[[D]], %[[D]] : tensor<f64>
  %3 = adjit.sub %d, %d : tensor<f64>
  // CHECK: adjit.mul %[[H]], %[[H]] : tensor<3xf16>
  %4 = adjit.mul %h, %h : tensor<3xf16>
  // CHECK: adjit.mul %[[I]], %[[J]] : tensor<2x2xi32>
  %5 = adjit.mul %i, %j : tensor<2x2xi32>
  // CHECK: adjit.div %[[B]], %[[B]] : tensor<3xbf16>
  %6 = adjit.div %b, %b : tensor<3xbf16>
  // CHECK: adjit.div %[[L]], %[[L]] : tensor<i64>
  %7 = adjit.div %l, %l : tensor<i64>
  // CHECK: adjit.pow %[[X]], %[[Y]] : tensor<4xf32>
  %8 = adjit.pow %x, %y : tensor<4xf32>
  // CHECK: adjit.pow %[[I]], %[[J]] : tensor<2x2xi32>
  %9 = adjit.pow %i, %j : tensor<2x2xi32>
  // CHECK: adjit.max %[[X]], %[[Y]] : tensor<4xf32>
  %10 = adjit.max %x, %y : tensor<4xf32>
  // CHECK: adjit.max %[[L]], %[[L]] : tensor<i64>
  %11 = adjit.max %l, %l : tensor<i64>
  // CHECK: adjit.min %[[H]], %[[H]] : tensor<3xf16>
  %12 = adjit.min %h, %h : tensor<3xf16>
  // CHECK: adjit.min %[[I]], %[[J]] : tensor<2x2xi32>
  %13 = adjit.min %i, %j : tensor<2x2xi32>
  // CHECK: adjit.rem %[[X]], %[[Y]] : tensor<4xf32>
  %14 = adjit.rem %x, %y : tensor<4xf32>
  // CHECK: adjit.rem %[[L]], %[[L]] : tensor<i64>
  %15 = adjit.rem %l, %l : tensor<i64>
  return
}
// GENERIC-LABEL: sym_name = "binary"
// GENERIC: "adjit.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.add"(%arg2, %arg3) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
// GENERIC: "adjit.sub"(%arg4, %arg4) : (tensor<i64>, tensor<i64>) -> tensor<i64>
// GENERIC: "adjit.sub"
// GENERIC: "adjit.mul"
// GENERIC: "adjit.mul"
// GENERIC: "adjit.div"
// GENERIC: "adjit.div"
// GENERIC: "adjit.pow"
// GENERIC: "adjit.pow"
// GENERIC: "adjit.max"
// GENERIC: "adjit.max"
// GENERIC: "adjit.min"
// GENERIC: "adjit.min"(%arg2, %arg3) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
// GENERIC: "adjit.rem"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.rem"(%arg4, %arg4) : (tensor<i64>, tensor<i64>) -> tensor<i64>

// -----

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<i32>, %[[B:.*]]: tensor<2xi1>, %[[H:.*]]: tensor<2x2xbf16>)
func.func @compare(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<i32>, %b: tensor<2xi1>, %h: tensor<2x2xbf16>) {
  // CHECK: adjit.compare eq, %[[X]], %[[Y]] : tensor<4xf32>
  %0 = adjit.compare eq, %x, %y : tensor<4xf32>
  // CHECK: adjit.compare ne, %[[X]], %[[Y]] : tensor<4xf32>
  %1 = adjit.compare ne, %x, %y : tensor<4xf32>
  // CHECK: adjit.compare lt, %[[I]], %[[I]] : tensor<i32>
  %2 = adjit.compare lt, %i, %i : tensor<i32>
  // CHECK: adjit.compare le, %[[I]], %[[I]] : tensor<i32>
  %3 = adjit.compare le, %i, %i : tensor<i32>
  // CHECK: adjit.compare gt, %[[H]], %[[H]] : tensor<2x2xbf16>
  %4 = adjit.compare gt, %h, %h : tensor<2x2xbf16>
  // CHECK: adjit.compare ge, %[[X]], %[[Y]] : tensor<4xf32>
  %5 = adjit.compare ge, %x, %y : tensor<4xf32>
  // CHECK: adjit.compare eq, %[[B]], %[[B]] : tensor<2xi1>
  %6 = adjit.compare eq, %b, %b : tensor<2xi1>
  // CHECK: adjit.compare ne, %[[B]], %[[B]] : tensor<2xi1>
  %7 = adjit.compare ne, %b, %b : tensor<2xi1>
  return
}
// GENERIC-LABEL: sym_name = "compare"
// GENERIC: "adjit.compare"(%arg0, %arg1) <{direction = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// GENERIC: "adjit.compare"(%arg0, %arg1) <{direction = 1 : i32}>
// GENERIC: "adjit.compare"(%arg2, %arg2) <{direction = 2 : i32}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
// GENERIC: "adjit.compare"(%arg2, %arg2) <{direction = 3 : i32}>
// GENERIC: "adjit.compare"(%arg4, %arg4) <{direction = 4 : i32}> : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xi1>
// GENERIC: "adjit.compare"(%arg0, %arg1) <{direction = 5 : i32}>

// -----

// CHECK-LABEL: func.func @select_and_logic
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>, %[[Q:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<i1>, %[[I:.*]]: tensor<i64>)
func.func @select_and_logic(%p: tensor<4xi1>, %q: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>, %s: tensor<i1>, %i: tensor<i64>) {
  // CHECK: adjit.select %[[P]], %[[X]], %[[Y]] : tensor<4xi1>, tensor<4xf32>
  %0 = adjit.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  // CHECK: adjit.select %[[P]], %[[P]], %[[Q]] : tensor<4xi1>, tensor<4xi1>
  %1 = adjit.select %p, %p, %q : tensor<4xi1>, tensor<4xi1>
  // CHECK: adjit.select %[[S]], %[[I]], %[[I]] : tensor<i1>, tensor<i64>
  %2 = adjit.select %s, %i, %i : tensor<i1>, tensor<i64>
  // CHECK: adjit.and %[[P]], %[[Q]] : tensor<4xi1>
  %3 = adjit.and %p, %q : tensor<4xi1>
  // CHECK: adjit.or %[[S]], %[[S]] : tensor<i1>
  %4 = adjit.or %s, %s : tensor<i1>
  // CHECK: adjit.not %[[P]] : tensor<4xi1>
  %5 = adjit.not %p : tensor<4xi1>
  return
}
// GENERIC-LABEL: sym_name = "select_and_logic"
// GENERIC: "adjit.select"(%arg0, %arg2, %arg3) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "adjit.select"
// GENERIC: "adjit.select"
// GENERIC: "adjit.and"(%arg0, %arg1) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// GENERIC: "adjit.or"(%arg4, %arg4) : (tensor<i1>, tensor<i1>) -> tensor<i1>
// GENERIC: "adjit.not"(%arg0) : (tensor<4xi1>) -> tensor<4xi1>

// -----

// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<i64>, %[[P:.*]]: tensor<2xi1>)
func.func @stop_gradient(%x: tensor<4xf32>, %i: tensor<i64>, %p: tensor<2xi1>) {
  // CHECK: adjit.stop_gradient %[[X]] : tensor<4xf32>
  %0 = adjit.stop_gradient %x : tensor<4xf32>
  // CHECK: adjit.stop_gradient %[[I]] : tensor<i64>
  %1 = adjit.stop_gradient %i : tensor<i64>
  // CHECK: adjit.stop_gradient %[[P]] : tensor<2xi1>
  %2 = adjit.stop_gradient %p : tensor<2xi1>
  return
}
// GENERIC-LABEL: sym_name = "stop_gradient"
// GENERIC: "adjit.stop_gradient"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>

// -----

// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<i1>, %[[H:.*]]: tensor<4xf16>)
func.func @convert(%x: tensor<4xf32>, %i: tensor<2x3xi32>, %b: tensor<i1>, %h: tensor<4xf16>) {
  // CHECK: adjit.convert %[[X]] : tensor<4xf32> to tensor<4xf64>
  %0 = adjit.convert %x : tensor<4xf32> to tensor<4xf64>
  // CHECK: adjit.convert %[[X]] : tensor<4xf32> to tensor<4xbf16>
  %1 = adjit.convert %x : tensor<4xf32> to tensor<4xbf16>
  // CHECK: adjit.convert %[[X]] : tensor<4xf32> to tensor<4xi32>
  %2 = adjit.convert %x : tensor<4xf32> to tensor<4xi32>
  // CHECK: adjit.convert %[[I]] : tensor<2x3xi32> to tensor<2x3xi64>
  %3 = adjit.convert %i : tensor<2x3xi32> to tensor<2x3xi64>
  // CHECK: adjit.convert %[[I]] : tensor<2x3xi32> to tensor<2x3xi1>
  %4 = adjit.convert %i : tensor<2x3xi32> to tensor<2x3xi1>
  // CHECK: adjit.convert %[[B]] : tensor<i1> to tensor<f16>
  %5 = adjit.convert %b : tensor<i1> to tensor<f16>
  // CHECK: adjit.convert %[[H]] : tensor<4xf16> to tensor<4xbf16>
  %6 = adjit.convert %h : tensor<4xf16> to tensor<4xbf16>
  // CHECK: adjit.convert %[[X]] : tensor<4xf32> to tensor<4xf32>
  %7 = adjit.convert %x : tensor<4xf32> to tensor<4xf32>
  return
}
// GENERIC-LABEL: sym_name = "convert"
// GENERIC: "adjit.convert"(%arg0) : (tensor<4xf32>) -> tensor<4xf64>
// GENERIC: "adjit.convert"(%arg0) : (tensor<4xf32>) -> tensor<4xbf16>

// -----

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<i64>, %[[Y:.*]]: tensor<2x1xi1>)
func.func @broadcast_in_dim(%x: tensor<3xf32>, %s: tensor<i64>, %y: tensor<2x1xi1>) {
  // CHECK: adjit.broadcast_in_dim %[[X]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = adjit.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: adjit.broadcast_in_dim %[[S]], dims = [] : (tensor<i64>) -> tensor<4x5xi64>
  %1 = adjit.broadcast_in_dim %s, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
  // CHECK: adjit.broadcast_in_dim %[[Y]], dims = [0, 2] : (tensor<2x1xi1>) -> tensor<2x3x4xi1>
  %2 = adjit.broadcast_in_dim %y, dims = [0, 2] : (tensor<2x1xi1>) -> tensor<2x3x4xi1>
  // CHECK: adjit.broadcast_in_dim %[[Y]], dims = [1, 0] : (tensor<2x1xi1>) -> tensor<5x2xi1>
  %3 = adjit.broadcast_in_dim %y, dims = [1, 0] : (tensor<2x1xi1>) -> tensor<5x2xi1>
  return
}
// GENERIC-LABEL: sym_name = "broadcast_in_dim"
// GENERIC: "adjit.broadcast_in_dim"(%arg0) <{dims = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC: "adjit.broadcast_in_dim"(%arg1) <{dims = array<i64>}> : (tensor<i64>) -> tensor<4x5xi64>

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>, %[[S:.*]]: tensor<i32>, %[[O:.*]]: tensor<1x1xf64>)
func.func @reshape(%x: tensor<6xf32>, %s: tensor<i32>, %o: tensor<1x1xf64>) {
  // CHECK: adjit.reshape %[[X]] : (tensor<6xf32>) -> tensor<2x3xf32>
  %0 = adjit.reshape %x : (tensor<6xf32>) -> tensor<2x3xf32>
  // CHECK: adjit.reshape %[[S]] : (tensor<i32>) -> tensor<1x1x1xi32>
  %1 = adjit.reshape %s : (tensor<i32>) -> tensor<1x1x1xi32>
  // CHECK: adjit.reshape %[[O]] : (tensor<1x1xf64>) -> tensor<f64>
  %2 = adjit.reshape %o : (tensor<1x1xf64>) -> tensor<f64>
  return
}
// GENERIC-LABEL: sym_name = "reshape"
// GENERIC: "adjit.reshape"(%arg0) : (tensor<6xf32>) -> tensor<2x3xf32>

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3x4xi64>, %[[S:.*]]: tensor<f16>)
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x3x4xi64>, %s: tensor<f16>) {
  // CHECK: adjit.transpose %[[X]], perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %0 = adjit.transpose %x, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: adjit.transpose %[[Y]], perm = [2, 0, 1] : (tensor<2x3x4xi64>) -> tensor<4x2x3xi64>
  %1 = adjit.transpose %y, perm = [2, 0, 1] : (tensor<2x3x4xi64>) -> tensor<4x2x3xi64>
  // CHECK: adjit.transpose %[[S]], perm = [] : (tensor<f16>) -> tensor<f16>
  %2 = adjit.transpose %s, perm = [] : (tensor<f16>) -> tensor<f16>
  return
}
// GENERIC-LABEL: sym_name = "transpose"
// GENERIC: "adjit.transpose"(%arg0) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>

// -----

// CHECK-LABEL: func.func @dynamic_blocks
// CHECK-SAME: (%[[X:.*]]: tensor<8x6xf32>, %[[I:.*]]: tensor<i32>, %[[J:.*]]: tensor<i64>, %[[U:.*]]: tensor<2x6xf32>)
func.func @dynamic_blocks(%x: tensor<8x6xf32>, %i: tensor<i32>, %j: tensor<i64>, %u: tensor<2x6xf32>) {
  // CHECK: adjit.dynamic_slice %[[X]][%[[I]], %[[J]]] : (tensor<8x6xf32>, tensor<i32>, tensor<i64>) -> tensor<2x3xf32>
  %0 = adjit.dynamic_slice %x[%i, %j] : (tensor<8x6xf32>, tensor<i32>, tensor<i64>) -> tensor<2x3xf32>
  // CHECK: adjit.dynamic_update_slice %[[X]][%[[I]], %[[J]]], %[[U]] : (tensor<8x6xf32>, tensor<i32>, tensor<i64>, tensor<2x6xf32>) -> tensor<8x6xf32>
  %1 = adjit.dynamic_update_slice %x[%i, %j], %u : (tensor<8x6xf32>, tensor<i32>, tensor<i64>, tensor<2x6xf32>) -> tensor<8x6xf32>
  return
}
// GENERIC-LABEL: sym_name = "dynamic_blocks"
// GENERIC: "adjit.dynamic_slice"(%arg0, %arg1, %arg2) : (tensor<8x6xf32>, tensor<i32>, tensor<i64>) -> tensor<2x3xf32>
// GENERIC: "adjit.dynamic_update_slice"(%arg0, %arg1, %arg2, %arg3) : (tensor<8x6xf32>, tensor<i32>, tensor<i64>, tensor<2x6xf32>) -> tensor<8x6xf32>

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<4x5xi32>)
func.func @slice(%x: tensor<8xf32>, %y: tensor<4x5xi32>) {
  // CHECK: adjit.slice %[[X]], start = [1], limit = [7], stride = [2] : (tensor<8xf32>) -> tensor<3xf32>
  %0 = adjit.slice %x, start = [1], limit = [7], stride = [2] : (tensor<8xf32>) -> tensor<3xf32>
  // CHECK: adjit.slice %[[Y]], start = [0, 2], limit = [4, 5], stride = [3, 1] : (tensor<4x5xi32>) -> tensor<2x3xi32>
  %1 = adjit.slice %y, start = [0, 2], limit = [4, 5], stride = [3, 1] : (tensor<4x5xi32>) -> tensor<2x3xi32>
  // CHECK: adjit.slice %[[X]], start = [3], limit = [3], stride = [1] : (tensor<8xf32>) -> tensor<0xf32>
  %2 = adjit.slice %x, start = [3], limit = [3], stride = [1] : (tensor<8xf32>) -> tensor<0xf32>
  return
}
// GENERIC-LABEL: sym_name = "slice"
// GENERIC: "adjit.slice"(%arg0) <{limit = array<i64: 7>, start = array<i64: 1>, stride = array<i64: 2>}> : (tensor<8xf32>) -> tensor<3xf32>

// -----

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>, %[[C:.*]]: tensor<2xi1>)
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %c: tensor<2xi1>) {
  // CHECK: adjit.concatenate(%[[A]], %[[B]]) dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %0 = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  // CHECK: adjit.concatenate(%[[A]], %[[A]], %[[A]]) dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %1 = adjit.concatenate(%a, %a, %a) dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  // CHECK: adjit.concatenate(%[[C]]) dim = 0 : (tensor<2xi1>) -> tensor<2xi1>
  %2 = adjit.concatenate(%c) dim = 0 : (tensor<2xi1>) -> tensor<2xi1>
  return
}
// GENERIC-LABEL: sym_name = "concatenate"
// GENERIC: "adjit.concatenate"(%arg0, %arg1) <{dim = 0 : i64}> : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>

// -----

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Z:.*]]: tensor<f32>, %[[Y:.*]]: tensor<2x2xi64>, %[[W:.*]]: tensor<i64>)
func.func @pad(%x: tensor<3xf32>, %z: tensor<f32>, %y: tensor<2x2xi64>, %w: tensor<i64>) {
  // CHECK: adjit.pad %[[X]], %[[Z]], low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  %0 = adjit.pad %x, %z, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  // CHECK: adjit.pad %[[Y]], %[[W]], low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x2xi64>, tensor<i64>) -> tensor<3x3xi64>
  %1 = adjit.pad %y, %w, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x2xi64>, tensor<i64>) -> tensor<3x3xi64>
  return
}
// GENERIC-LABEL: sym_name = "pad"
// GENERIC: "adjit.pad"(%arg0, %arg1) <{high = array<i64: 2>, interior = array<i64: 1>, low = array<i64: 1>}> : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>

// -----

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[M:.*]]: tensor<2x5x3xi64>, %[[J:.*]]: tensor<2x2xi64>, %[[S:.*]]: tensor<i32>)
func.func @gather(%t: tensor<10x4xf32>, %ids: tensor<3xi32>, %m: tensor<2x5x3xi64>, %j: tensor<2x2xi64>, %s: tensor<i32>) {
  // CHECK: adjit.gather %[[T]][%[[IDS]]], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %0 = adjit.gather %t[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  // CHECK: adjit.gather %[[M]][%[[J]]], axis = 1 : (tensor<2x5x3xi64>, tensor<2x2xi64>) -> tensor<2x2x2x3xi64>
  %1 = adjit.gather %m[%j], axis = 1 : (tensor<2x5x3xi64>, tensor<2x2xi64>) -> tensor<2x2x2x3xi64>
  // CHECK: adjit.gather %[[T]][%[[S]]], axis = 1 : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
  %2 = adjit.gather %t[%s], axis = 1 : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
  return
}
// GENERIC-LABEL: sym_name = "gather"
// GENERIC: "adjit.gather"(%arg0, %arg1) <{axis = 0 : i64}> : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>

// -----

// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[BASE:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[UPD:.*]]: tensor<3x4xf32>, %[[IB:.*]]: tensor<2x5xi64>, %[[J:.*]]: tensor<i64>, %[[U:.*]]: tensor<2xi64>)
func.func @scatter_add(%base: tensor<10x4xf32>, %ids: tensor<3xi32>, %upd: tensor<3x4xf32>,
                       %ib: tensor<2x5xi64>, %j: tensor<i64>, %u: tensor<2xi64>) {
  // CHECK: adjit.scatter_add %[[UPD]] into %[[BASE]][%[[IDS]]], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  %0 = adjit.scatter_add %upd into %base[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  // CHECK: adjit.scatter_add %[[U]] into %[[IB]][%[[J]]], axis = 1 : (tensor<2x5xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2x5xi64>
  %1 = adjit.scatter_add %u into %ib[%j], axis = 1 : (tensor<2x5xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2x5xi64>
  return
}
// GENERIC-LABEL: sym_name = "scatter_add"
// GENERIC: "adjit.scatter_add"(%arg0, %arg1, %arg2) <{axis = 0 : i64}> : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>

// -----

// CHECK-LABEL: func.func @scatter_extremum
// CHECK-SAME: (%[[BASE:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<3xi32>, %[[UPD:.*]]: tensor<3x4xf32>, %[[IB:.*]]: tensor<2x5xi64>, %[[J:.*]]: tensor<i64>, %[[U:.*]]: tensor<2xi64>)
func.func @scatter_extremum(%base: tensor<10x4xf32>, %ids: tensor<3xi32>, %upd: tensor<3x4xf32>,
                            %ib: tensor<2x5xi64>, %j: tensor<i64>, %u: tensor<2xi64>) {
  // CHECK: adjit.scatter_extremum max %[[UPD]] into %[[BASE]][%[[IDS]]], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  %0 = adjit.scatter_extremum max %upd into %base[%ids], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  // CHECK: adjit.scatter_extremum min %[[U]] into %[[IB]][%[[J]]], axis = 1 : (tensor<2x5xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2x5xi64>
  %1 = adjit.scatter_extremum min %u into %ib[%j], axis = 1 : (tensor<2x5xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2x5xi64>
  return
}
// GENERIC-LABEL: sym_name = "scatter_extremum"
// GENERIC: "adjit.scatter_extremum"(%arg0, %arg1, %arg2) <{axis = 0 : i64, kind = 1 : i32}> : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>

// -----

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4x5x6xi32>, %[[H:.*]]: tensor<8xbf16>)
func.func @reduce(%x: tensor<2x3xf32>, %i: tensor<4x5x6xi32>, %h: tensor<8xbf16>) {
  // CHECK: adjit.reduce sum %[[X]], dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: adjit.reduce max %[[I]], dims = [0, 2] : (tensor<4x5x6xi32>) -> tensor<5xi32>
  %1 = adjit.reduce max %i, dims = [0, 2] : (tensor<4x5x6xi32>) -> tensor<5xi32>
  // CHECK: adjit.reduce min %[[H]], dims = [0] : (tensor<8xbf16>) -> tensor<bf16>
  %2 = adjit.reduce min %h, dims = [0] : (tensor<8xbf16>) -> tensor<bf16>
  // CHECK: adjit.reduce max %[[X]], dims = [1] ignores_nan : (tensor<2x3xf32>) -> tensor<2xf32>
  %nanmax = adjit.reduce max %x, dims = [1] ignores_nan : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: adjit.reduce sum %[[X]], dims = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = adjit.reduce sum %x, dims = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// GENERIC-LABEL: sym_name = "reduce"
// GENERIC: "adjit.reduce"(%arg0) <{dims = array<i64: 1>, kind = 0 : i32}> : (tensor<2x3xf32>) -> tensor<2xf32>
// GENERIC: "adjit.reduce"(%arg1) <{dims = array<i64: 0, 2>, kind = 1 : i32}> : (tensor<4x5x6xi32>) -> tensor<5xi32>
// GENERIC: "adjit.reduce"(%arg2) <{dims = array<i64: 0>, kind = 2 : i32}> : (tensor<8xbf16>) -> tensor<bf16>

// -----

// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<5xi64>, %[[H:.*]]: tensor<2x3x4xf16>)
func.func @argmax(%x: tensor<2x3xf32>, %i: tensor<5xi64>, %h: tensor<2x3x4xf16>) {
  // CHECK: adjit.argmax %[[X]], axis = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
  %0 = adjit.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
  // CHECK: adjit.argmax %[[I]], axis = 0 : (tensor<5xi64>) -> tensor<i32>
  %1 = adjit.argmax %i, axis = 0 : (tensor<5xi64>) -> tensor<i32>
  // CHECK: adjit.argmax %[[H]], axis = 1 : (tensor<2x3x4xf16>) -> tensor<2x4xi32>
  %2 = adjit.argmax %h, axis = 1 : (tensor<2x3x4xf16>) -> tensor<2x4xi32>
  return
}
// GENERIC-LABEL: sym_name = "argmax"
// GENERIC: "adjit.argmax"(%arg0) <{axis = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2xi64>

// -----

// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x5xf32>, %[[X:.*]]: tensor<2x4x8xf16>, %[[Y:.*]]: tensor<2x8x5xf16>, %[[V:.*]]: tensor<8xi32>, %[[W:.*]]: tensor<8xi32>)
func.func @dot_general(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %x: tensor<2x4x8xf16>, %y: tensor<2x8x5xf16>,
                       %v: tensor<8xi32>, %w: tensor<8xi32>) {
  // CHECK: adjit.dot_general %[[A]], %[[B]], batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  // CHECK: adjit.dot_general %[[X]], %[[Y]], batch = [0] x [0], contract = [2] x [1] : (tensor<2x4x8xf16>, tensor<2x8x5xf16>) -> tensor<2x4x5xf16>
  %1 = adjit.dot_general %x, %y, batch = [0] x [0], contract = [2] x [1] : (tensor<2x4x8xf16>, tensor<2x8x5xf16>) -> tensor<2x4x5xf16>
  // CHECK: adjit.dot_general %[[V]], %[[W]], batch = [] x [], contract = [0] x [0] : (tensor<8xi32>, tensor<8xi32>) -> tensor<i32>
  %2 = adjit.dot_general %v, %w, batch = [] x [], contract = [0] x [0] : (tensor<8xi32>, tensor<8xi32>) -> tensor<i32>
  // An outer product: nothing contracted.
  // CHECK: adjit.dot_general %[[V]], %[[W]], batch = [] x [], contract = [] x [] : (tensor<8xi32>, tensor<8xi32>) -> tensor<8x8xi32>
  %3 = adjit.dot_general %v, %w, batch = [] x [], contract = [] x [] : (tensor<8xi32>, tensor<8xi32>) -> tensor<8x8xi32>
  return
}
// GENERIC-LABEL: sym_name = "dot_general"
// GENERIC: "adjit.dot_general"(%arg0, %arg1) <{lhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_batch = array<i64>, rhs_contract = array<i64: 0>}> : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
// GENERIC: "adjit.dot_general"(%arg2, %arg3) <{lhs_batch = array<i64: 0>, lhs_contract = array<i64: 2>, rhs_batch = array<i64: 0>, rhs_contract = array<i64: 1>}> : (tensor<2x4x8xf16>, tensor<2x8x5xf16>) -> tensor<2x4x5xf16>

// -----

// CHECK-LABEL: func.func @linear_algebra
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x3xf32>, %[[B:.*]]: tensor<2x3x4xf32>, %[[G:.*]]: tensor<5x5xf64>, %[[R:.*]]: tensor<5x1xf64>)
func.func @linear_algebra(%a: tensor<2x3x3xf32>, %b: tensor<2x3x4xf32>, %g: tensor<5x5xf64>, %r: tensor<5x1xf64>) {
  // CHECK: adjit.cholesky %[[A]] : tensor<2x3x3xf32>
  %0 = adjit.cholesky %a : tensor<2x3x3xf32>
  // CHECK: adjit.triangular_solve %[[A]], %[[B]] {lower} : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = adjit.triangular_solve %a, %b {lower} : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: adjit.triangular_solve %[[A]], %[[B]] {transpose_a, unit_diagonal} : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = adjit.triangular_solve %a, %b {transpose_a, unit_diagonal} : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: adjit.solve %[[G]], %[[R]] : (tensor<5x5xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
  %3 = adjit.solve %g, %r : (tensor<5x5xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
  // CHECK: %{{.*}}, %{{.*}} = adjit.slogdet %[[A]] : tensor<2x3x3xf32>
  %4:2 = adjit.slogdet %a : tensor<2x3x3xf32>
  // CHECK: %{{.*}}, %{{.*}} = adjit.eigh %[[A]] : tensor<2x3x3xf32>
  %5:2 = adjit.eigh %a : tensor<2x3x3xf32>
  // CHECK: %{{.*}}, %{{.*}} = adjit.qr %[[B]] : tensor<2x3x4xf32>
  %6:2 = adjit.qr %b : tensor<2x3x4xf32>
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = adjit.svd %[[B]] : tensor<2x3x4xf32>
  %7:3 = adjit.svd %b : tensor<2x3x4xf32>
  // CHECK: %{{.*}}, %[[PIVOTS:.*]], %{{.*}} = adjit.lu %[[B]] : tensor<2x3x4xf32>
  %8:3 = adjit.lu %b : tensor<2x3x4xf32>
  // CHECK: adjit.lu_pivots_to_permutation %[[PIVOTS]], size = 5 : tensor<2x3xi32> -> tensor<2x5xi32>
  %9 = adjit.lu_pivots_to_permutation %8#1, size = 5 : tensor<2x3xi32> -> tensor<2x5xi32>
  return
}
// GENERIC-LABEL: sym_name = "linear_algebra"
// GENERIC: "adjit.cholesky"(%arg0) : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
// GENERIC: "adjit.triangular_solve"(%arg0, %arg1) <{lower}> : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC: "adjit.triangular_solve"(%arg0, %arg1) <{transpose_a, unit_diagonal}> : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC: "adjit.solve"(%arg2, %arg3) : (tensor<5x5xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
// GENERIC: "adjit.slogdet"(%arg0) : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// GENERIC: "adjit.eigh"(%arg0) : (tensor<2x3x3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>)
// GENERIC: "adjit.qr"(%arg1) : (tensor<2x3x4xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x4xf32>)
// GENERIC: "adjit.svd"(%arg1) : (tensor<2x3x4xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>)
// GENERIC: "adjit.lu"(%arg1) : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3xi32>, tensor<2x3xi32>)
// GENERIC: "adjit.lu_pivots_to_permutation"(%{{.*}}#1) <{size = 5 : i64}> : (tensor<2x3xi32>) -> tensor<2x5xi32>

// -----

// Buffers of an arena (what adjit-plan-buffers makes after bufferization).
// CHECK-LABEL: func.func @arena_buffers
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK: %[[A:.*]] = adjit.arena_buffer %[[ARENA]][0] : memref<8192xi8> to memref<32x32xf32>
// CHECK: %[[B:.*]] = adjit.arena_buffer %[[ARENA]][4096] : memref<8192xi8> to memref<512xf64>
// CHECK: adjit.arena_release %[[A]] : memref<32x32xf32>
// CHECK: adjit.arena_release %[[B]] : memref<512xf64>
func.func @arena_buffers() {
  %arena = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
  %a = adjit.arena_buffer %arena[0] : memref<8192xi8> to memref<32x32xf32>
  %b = adjit.arena_buffer %arena[4096] : memref<8192xi8> to memref<512xf64>
  adjit.arena_release %a : memref<32x32xf32>
  adjit.arena_release %b : memref<512xf64>
  memref.dealloc %arena : memref<8192xi8>
  return
}
// GENERIC-LABEL: sym_name = "arena_buffers"
// GENERIC: "adjit.arena_buffer"(%0) <{offset = 0 : i64}> : (memref<8192xi8>) -> memref<32x32xf32>
// GENERIC: "adjit.arena_release"(%1) : (memref<32x32xf32>) -> ()

// -----

// CHECK-LABEL: func.func @argsort
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>, %[[I:.*]]: tensor<7xi64>)
func.func @argsort(%x: tensor<2x5xf32>, %i: tensor<7xi64>) -> (tensor<2x5xi32>, tensor<7xi64>, tensor<2x5xi32>, tensor<2x2xi32>) {
  // CHECK: adjit.argsort %[[X]] : (tensor<2x5xf32>) -> tensor<2x5xi32>
  %0 = adjit.argsort %x : (tensor<2x5xf32>) -> tensor<2x5xi32>
  // CHECK: adjit.argsort %[[I]] descending : (tensor<7xi64>) -> tensor<7xi64>
  %1 = adjit.argsort %i descending : (tensor<7xi64>) -> tensor<7xi64>
  // CHECK: adjit.argsort %[[X]] descending total_order : (tensor<2x5xf32>) -> tensor<2x5xi32>
  %2 = adjit.argsort %x descending total_order : (tensor<2x5xf32>) -> tensor<2x5xi32>
  // The first 2 positions of each row's permutation.
  // CHECK: adjit.argsort %[[X]] descending total_order : (tensor<2x5xf32>) -> tensor<2x2xi32>
  %3 = adjit.argsort %x descending total_order : (tensor<2x5xf32>) -> tensor<2x2xi32>
  return %0, %1, %2, %3 : tensor<2x5xi32>, tensor<7xi64>, tensor<2x5xi32>, tensor<2x2xi32>
}
// GENERIC-LABEL: sym_name = "argsort"
// GENERIC: "adjit.argsort"(%arg0) : (tensor<2x5xf32>) -> tensor<2x5xi32>
// GENERIC: "adjit.argsort"(%arg1) <{descending}> : (tensor<7xi64>) -> tensor<7xi64>
// GENERIC: "adjit.argsort"(%arg0) <{descending, total_order}> : (tensor<2x5xf32>) -> tensor<2x5xi32>
// GENERIC: "adjit.argsort"(%arg0) <{descending, total_order}> : (tensor<2x5xf32>) -> tensor<2x2xi32>

// -----

// CHECK-LABEL: func.func @search_sorted
// CHECK-SAME: (%[[A:.*]]: tensor<5xf32>, %[[V:.*]]: tensor<2x3xf32>)
func.func @search_sorted(%a: tensor<5xf32>, %v: tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<2x3xi64>) {
  // CHECK: adjit.search_sorted %[[A]], %[[V]] : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
  %0 = adjit.search_sorted %a, %v : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK: adjit.search_sorted %[[A]], %[[V]] right : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
  %1 = adjit.search_sorted %a, %v right : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xi64>
}
// GENERIC-LABEL: sym_name = "search_sorted"
// GENERIC: "adjit.search_sorted"(%arg0, %arg1) : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
// GENERIC: "adjit.search_sorted"(%arg0, %arg1) <{right}> : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
