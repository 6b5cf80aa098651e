// adjit::checkpoint in the IR: reverse mode through a call marked
// adjit.checkpoint recomputes the callee behind an optimization barrier, so
// inlining and CSE do not merge the recomputation back into the forward
// pass; the barrier is erased just before bufferization.
// RUN: adjit-opt %s | adjit-opt | FileCheck %s --check-prefix=ROUND
// RUN: adjit-opt %s --adjit-differentiate --inline --symbol-dce --canonicalize --cse | FileCheck %s
// RUN: adjit-opt %s --adjit-differentiate --inline --symbol-dce --canonicalize --cse --adjit-erase-optimization-barriers | FileCheck %s --check-prefix=ERASED

// ROUND-LABEL: func.func @barrier
// ROUND: %{{.*}}:2 = adjit.optimization_barrier %arg0, %arg1 : tensor<3xf32>, tensor<i32>
func.func @barrier(%x: tensor<3xf32>, %n: tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
  %y:2 = adjit.optimization_barrier %x, %n : tensor<3xf32>, tensor<i32>
  return %y#0, %y#1 : tensor<3xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[T:.*]] = adjit.tanh %[[X]]
// CHECK: %[[B:.*]] = adjit.optimization_barrier %[[X]] : tensor<3xf32>
// CHECK: %[[R:.*]] = adjit.tanh %[[B]]
// CHECK: adjit.mul %[[R]], %[[R]]
// ERASED-LABEL: func.func @value_and_grad
// ERASED-NOT: adjit.optimization_barrier
// ERASED: adjit.tanh
// ERASED: adjit.tanh
func.func private @block(%x: tensor<3xf32>) -> tensor<3xf32> {
  %t = adjit.tanh %x : tensor<3xf32>
  return %t : tensor<3xf32>
}
func.func private @loss(%x: tensor<3xf32>) -> tensor<f32> {
  %t = func.call @block(%x) {adjit.checkpoint} : (tensor<3xf32>) -> tensor<3xf32>
  %s = adjit.reduce sum %t, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @value_and_grad(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %one = adjit.constant dense<1.0> : tensor<f32>
  %r:2 = adjit.vjp @loss(%x) cotangents(%one) wrt [0] : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<3xf32>
}
