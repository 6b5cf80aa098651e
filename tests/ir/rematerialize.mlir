// adjit-rematerialize: reverse-mode functions recompute cheap residuals in
// their backward pass where that keeps fewer bytes. The REMAT lines show the
// derived function after the pass, the OPT lines the same after inlining,
// folding and CSE (the barrier keeps the recomputation apart).
// RUN: adjit-opt %s -split-input-file --adjit-differentiate --adjit-rematerialize | FileCheck %s --check-prefix=REMAT
// RUN: adjit-opt %s -split-input-file --adjit-differentiate --adjit-rematerialize --inline --symbol-dce --canonicalize --cse | FileCheck %s --check-prefix=OPT
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-differentiated | FileCheck %s --check-prefix=REMAT

// tanh between two matmuls: without the pass the backward pass reads the
// pre-activation a, t = tanh(a) and g = a * t. g feeds the weight
// gradient's contraction and a is a contraction's result, so both are
// kept; t is recomputed from a in the backward pass.
// REMAT-LABEL: func.func private @layer_vjp_1_2
// REMAT:       %[[A:.*]] = adjit.dot_general %arg0, %arg1
// REMAT:       %[[T:.*]] = adjit.tanh %[[A]]
// REMAT:       %[[G:.*]] = adjit.mul %[[A]], %[[T]]
// REMAT:       adjit.dot_general %[[G]], %arg2
// REMAT:       adjit.dot_general %{{.*}}, %[[G]]
// REMAT:       %[[KEPT:.*]] = adjit.optimization_barrier %[[A]] : tensor<4x6xf32>
// REMAT-NEXT:  %[[T2:.*]] = adjit.tanh %[[KEPT]]
// REMAT-NOT:   %[[T]]{{[ ,:)]}}
// REMAT:       adjit.mul %{{.*}}, %[[T2]]
// REMAT:       return

// OPT-LABEL: func.func @grads
// OPT:         adjit.tanh
// OPT:         adjit.optimization_barrier
// OPT:         adjit.tanh
func.func private @layer(%x: tensor<4x8xf32>, %w1: tensor<8x6xf32>, %w2: tensor<6x2xf32>) -> tensor<f32> {
  %a = adjit.dot_general %x, %w1, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %t = adjit.tanh %a : tensor<4x6xf32>
  %g = adjit.mul %a, %t : tensor<4x6xf32>
  %y = adjit.dot_general %g, %w2, batch = [] x [], contract = [1] x [0] : (tensor<4x6xf32>, tensor<6x2xf32>) -> tensor<4x2xf32>
  %s = adjit.reduce sum %y, dims = [0, 1] : (tensor<4x2xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grads(%x: tensor<4x8xf32>, %w1: tensor<8x6xf32>, %w2: tensor<6x2xf32>) -> (tensor<8x6xf32>, tensor<6x2xf32>) {
  %g:2 = adjit.grad @layer(%x, %w1, %w2) wrt [1, 2] : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x2xf32>) -> (tensor<8x6xf32>, tensor<6x2xf32>)
  return %g#0, %g#1 : tensor<8x6xf32>, tensor<6x2xf32>
}

// -----

// A value made from arguments alone (a broadcast bias through tanh) is
// recomputed from the arguments, which also pass the barrier.
// REMAT-LABEL: func.func private @biased_vjp_0
// REMAT:       %[[KEPT:.*]]:2 = adjit.optimization_barrier %arg0, %arg1 : tensor<4x6xf32>, tensor<6xf32>
// REMAT:       adjit.broadcast_in_dim %[[KEPT]]#1
// REMAT:       adjit.tanh
// REMAT:       return
func.func private @biased(%x: tensor<4x6xf32>, %b: tensor<6xf32>, %w: tensor<6x2xf32>) -> tensor<f32> {
  %bb = adjit.broadcast_in_dim %b, dims = [1] : (tensor<6xf32>) -> tensor<4x6xf32>
  %z = adjit.add %x, %bb : tensor<4x6xf32>
  %t = adjit.tanh %z : tensor<4x6xf32>
  %y = adjit.dot_general %t, %w, batch = [] x [], contract = [1] x [0] : (tensor<4x6xf32>, tensor<6x2xf32>) -> tensor<4x2xf32>
  %yy = adjit.mul %y, %y : tensor<4x2xf32>
  %s = adjit.reduce sum %yy, dims = [0, 1] : (tensor<4x2xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_x(%x: tensor<4x6xf32>, %b: tensor<6xf32>, %w: tensor<6x2xf32>) -> tensor<4x6xf32> {
  %g = adjit.grad @biased(%x, %b, %w) wrt [0] : (tensor<4x6xf32>, tensor<6xf32>, tensor<6x2xf32>) -> tensor<4x6xf32>
  return %g : tensor<4x6xf32>
}

// -----

// No contraction between the forward and backward uses (a normalization):
// fusion keeps such residuals in registers or rows, and a barrier would only
// split its loops, so nothing changes.
// REMAT-LABEL: func.func private @normalize_vjp_0
// REMAT-NOT:   adjit.optimization_barrier
// REMAT:       return
func.func private @normalize(%x: tensor<4x8xf32>) -> tensor<f32> {
  %s = adjit.reduce sum %x, dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %m = adjit.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %c = adjit.sub %x, %m : tensor<4x8xf32>
  %t = adjit.tanh %c : tensor<4x8xf32>
  %r = adjit.reduce sum %t, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @grad_normalize(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = adjit.grad @normalize(%x) wrt [0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// A residual the backward pass compares for equality is kept: reduce max's
// mask compares it with the kept maximum, which a recomputation (libm's sin
// where the forward pass had a vector sin) could miss in every element of a
// row, giving that row 0 / 0. sin itself, read by abs's sign, is still
// recomputed.
// REMAT-LABEL: func.func private @peak_vjp_0
// REMAT:       %[[SIN:.*]] = adjit.sin %arg0
// REMAT-NEXT:  %[[ABS:.*]] = adjit.abs %[[SIN]]
// REMAT:       adjit.scatter_add
// REMAT:       adjit.compare eq, %[[ABS]], %{{.*}} : tensor<3x3xf64>
// REMAT:       %[[KEPT:.*]] = adjit.optimization_barrier %arg0
// REMAT-NEXT:  %[[SIN2:.*]] = adjit.sin %[[KEPT]]
// REMAT-NEXT:  adjit.sign %[[SIN2]]
// REMAT:       return
func.func private @peak(%x: tensor<3x3xf64>, %i: tensor<3xi32>) -> tensor<f64> {
  %s = adjit.sin %x : tensor<3x3xf64>
  %a = adjit.abs %s : tensor<3x3xf64>
  %m = adjit.reduce max %a, dims = [1] : (tensor<3x3xf64>) -> tensor<3xf64>
  %g = adjit.gather %x[%i], axis = 0 : (tensor<3x3xf64>, tensor<3xi32>) -> tensor<3x3xf64>
  %mb = adjit.broadcast_in_dim %m, dims = [0] : (tensor<3xf64>) -> tensor<3x3xf64>
  %t = adjit.add %g, %mb : tensor<3x3xf64>
  %r = adjit.reduce sum %t, dims = [0, 1] : (tensor<3x3xf64>) -> tensor<f64>
  return %r : tensor<f64>
}
func.func @peak_grad(%x: tensor<3x3xf64>, %i: tensor<3xi32>) -> tensor<3x3xf64> {
  %g = adjit.grad @peak(%x, %i) wrt [0] : (tensor<3x3xf64>, tensor<3xi32>) -> tensor<3x3xf64>
  return %g : tensor<3x3xf64>
}
