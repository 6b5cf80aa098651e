// Regression: adjit.abs on i32/i64 compiles (math.absi had no lowering on
// the libm route; it is max(x, -x) now).
// RUN: adjit run %s --arg 'i32[4]=-7,7,0,-2147483647' --arg 'i64[2]=-5,3' | FileCheck %s

// CHECK: out0 = i32[4] [7, 7, 0, 2147483647]
// CHECK-NEXT: out1 = i64[2] [5, 3]
func.func @integer_abs(%x: tensor<4xi32>, %y: tensor<2xi64>) -> (tensor<4xi32>, tensor<2xi64>) {
  %0 = adjit.abs %x : tensor<4xi32>
  %1 = adjit.abs %y : tensor<2xi64>
  return %0, %1 : tensor<4xi32>, tensor<2xi64>
}
