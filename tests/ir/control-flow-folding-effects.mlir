// Negative case of ControlFlowFolds.cpp that needs an op with a side
// effect (an unregistered one): such an op keeps the carry that feeds it,
// though the carry's final value is unused.
// RUN: adjit-opt %s -canonicalize -allow-unregistered-dialect | FileCheck %s

// Negative: an op with a side effect keeps the carry that feeds it.
// CHECK-LABEL: func.func @effect_keeps_carry
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%arg0, %arg1)
func.func @effect_keeps_carry(%a0: tensor<f32>, %b0: tensor<f32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<2> : tensor<i32>
  %r:2 = adjit.for %lo to %hi carry(%a0, %b0)
      : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<f32>):
    %na = adjit.neg %a : tensor<f32>
    %nb = "test.effect"(%b) : (tensor<f32>) -> tensor<f32>
    adjit.yield %na, %nb : tensor<f32>, tensor<f32>
  }
  return %r#0 : tensor<f32>
}
