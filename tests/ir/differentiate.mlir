// adjit-differentiate on representative ops, before and after cleanup: the
// DIFF lines show the derived functions as the pass writes them, the OPT
// lines the same after inlining and folding.
// RUN: adjit-opt %s -split-input-file --adjit-differentiate | FileCheck %s --check-prefix=DIFF
// RUN: adjit-opt %s -split-input-file --adjit-differentiate --inline --symbol-dce --canonicalize --cse | FileCheck %s --check-prefix=OPT

// Reverse mode through tanh and a reduction: d/dx sum(tanh(x)) = 1 - tanh^2.
// DIFF-LABEL: func.func @grad_tanh
// DIFF: %[[ONE:.*]] = adjit.constant dense<1.000000e+00> : tensor<f32>
// DIFF: %[[R:.*]]:2 = call @sum_tanh_vjp_0(%arg0, %[[ONE]])
// DIFF: return %[[R]]#1
// DIFF-LABEL: func.func private @sum_tanh_vjp_0
// DIFF-SAME: (%[[X:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>) -> (tensor<f32>, tensor<3xf32>)
// DIFF: %[[T:.*]] = adjit.tanh %[[X]]
// DIFF: %[[S:.*]] = adjit.reduce sum %[[T]]
// DIFF: %[[B:.*]] = adjit.broadcast_in_dim %[[CT]], dims = [] : (tensor<f32>) -> tensor<3xf32>
// DIFF: %[[TT:.*]] = adjit.mul %[[T]], %[[T]]
// DIFF: %[[D:.*]] = adjit.sub %{{.*}}, %[[TT]]
// DIFF: %[[G:.*]] = adjit.mul %[[B]], %[[D]]
// DIFF: return %[[S]], %[[G]]

// OPT-LABEL: func.func @grad_tanh
// OPT-SAME: (%[[X:.*]]: tensor<3xf32>)
// OPT-NOT: call
// OPT: %[[T:.*]] = adjit.tanh %[[X]]
// OPT: %[[TT:.*]] = adjit.mul %[[T]], %[[T]]
// OPT: %[[G:.*]] = adjit.sub %{{.*}}, %[[TT]]
// OPT: return %[[G]]
// OPT-NOT: func.func private
func.func private @sum_tanh(%x: tensor<3xf32>) -> tensor<f32> {
  %t = adjit.tanh %x : tensor<3xf32>
  %s = adjit.reduce sum %t, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_tanh(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = adjit.grad @sum_tanh(%x) wrt [0] : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Activity analysis: only %w is differentiated, so nothing flows to %x and
// the unused argument gets zeros.
// DIFF-LABEL: func.func private @loss_vjp_0
// DIFF: adjit.dot_general
// DIFF-NOT: adjit.transpose %{{.*}}, perm = [1, 0] : (tensor<2x4xf32>)
// DIFF: return
// OPT-LABEL: func.func @grads
// OPT: %[[ZERO:.*]] = adjit.constant dense<0.000000e+00> : tensor<5xf32>
// OPT: return %{{.*}}, %[[ZERO]] : tensor<4x3xf32>, tensor<5xf32>
func.func private @loss(%w: tensor<4x3xf32>, %x: tensor<2x4xf32>, %unused: tensor<5xf32>) -> tensor<f32> {
  %y = adjit.dot_general %x, %w, batch = [] x [], contract = [1] x [0] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %s = adjit.reduce sum %y, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grads(%w: tensor<4x3xf32>, %x: tensor<2x4xf32>, %u: tensor<5xf32>) -> (tensor<4x3xf32>, tensor<5xf32>) {
  %g:2 = adjit.grad @loss(%w, %x, %u) wrt [0, 2] : (tensor<4x3xf32>, tensor<2x4xf32>, tensor<5xf32>) -> (tensor<4x3xf32>, tensor<5xf32>)
  return %g#0, %g#1 : tensor<4x3xf32>, tensor<5xf32>
}

// -----

// Forward mode: the tangent of x * sin(x) along %t is t sin(x) + x cos(x) t.
// DIFF-LABEL: func.func private @f_jvp_0
// DIFF-SAME: (%[[X:.*]]: tensor<3xf64>, %[[T:.*]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// DIFF: %[[S:.*]] = adjit.sin %[[X]]
// DIFF: %[[C:.*]] = adjit.cos %[[X]]
// DIFF: %[[DS:.*]] = adjit.mul %[[T]], %[[C]]
// DIFF: %[[Y:.*]] = adjit.mul %[[X]], %[[S]]
// DIFF: %[[A:.*]] = adjit.mul %[[T]], %[[S]]
// DIFF: %[[B:.*]] = adjit.mul %[[X]], %[[DS]]
// DIFF: %[[DY:.*]] = adjit.add %[[A]], %[[B]]
// DIFF: return %[[Y]], %[[DY]]
func.func private @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = adjit.sin %x : tensor<3xf64>
  %y = adjit.mul %x, %s : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @tangent(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y, %dy = adjit.jvp @f(%x) tangents(%t) wrt [0] : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %y, %dy : tensor<3xf64>, tensor<3xf64>
}

// -----

// Calls are differentiated through derived functions of the callee, and a
// request inside a differentiated function is expanded first (grad of grad).
// DIFF-LABEL: func.func @second
// DIFF: call @inner_grad_vjp_0
// DIFF-DAG: func.func private @cube_vjp_0
// DIFF-DAG: func.func private @inner_grad_vjp_0
// DIFF-DAG: func.func private @cube_vjp_0_vjp_0
// OPT-LABEL: func.func @second
// OPT-NOT: call
// OPT: return
func.func private @cube(%x: tensor<f32>) -> tensor<f32> {
  %a = adjit.mul %x, %x : tensor<f32>
  %b = adjit.mul %a, %x : tensor<f32>
  return %b : tensor<f32>
}
func.func private @inner_grad(%x: tensor<f32>) -> tensor<f32> {
  %g = adjit.grad @cube(%x) wrt [0] : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func @second(%x: tensor<f32>) -> tensor<f32> {
  %g = adjit.grad @inner_grad(%x) wrt [0] : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// adjit.gelu's own rule: the cotangent times its derivative in closed form,
// built from x alone (the op stays in the forward pass; its tanh is built
// again in the same way, for CSE to share once the op is expanded).
// DIFF-LABEL: func.func private @sum_gelu_vjp_0
// DIFF-SAME: (%[[X:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>)
// DIFF: %[[Y:.*]] = adjit.gelu %[[X]] approximate : tensor<3xf32>
// DIFF: %[[S:.*]] = adjit.reduce sum %[[Y]]
// DIFF: %[[B:.*]] = adjit.broadcast_in_dim %[[CT]]
// DIFF: adjit.tanh
// DIFF-NOT: adjit.gelu
// DIFF: %[[G:.*]] = adjit.mul %[[B]], %{{.*}} : tensor<3xf32>
// DIFF: return %[[S]], %[[G]]
// Forward mode: the tangent times the same derivative, Phi(x) + x phi(x)
// (Phi from erfc; f16 computes it in f32 and rounds once).
// DIFF-LABEL: func.func private @gelu_exact_jvp_0
// DIFF: adjit.gelu %{{.*}} : tensor<3xf32>
// DIFF-NOT: adjit.erf
// DIFF: adjit.exp
// DIFF: adjit.select
// DIFF: adjit.exp
// DIFF: adjit.mul %{{.*}}, %{{.*}} : tensor<3xf32>
// DIFF: return
// DIFF-LABEL: func.func private @gelu_exact_f16_jvp_0
// DIFF: adjit.gelu %{{.*}} : tensor<3xf16>
// DIFF-NOT: adjit.erf
// DIFF: adjit.convert %{{.*}} : tensor<3xf16> to tensor<3xf32>
// DIFF: adjit.exp %{{.*}} : tensor<3xf32>
// DIFF: adjit.convert %{{.*}} : tensor<3xf32> to tensor<3xf16>
// DIFF: adjit.mul %{{.*}}, %{{.*}} : tensor<3xf16>
// DIFF: return
func.func private @sum_gelu(%x: tensor<3xf32>) -> tensor<f32> {
  %y = adjit.gelu %x approximate : tensor<3xf32>
  %s = adjit.reduce sum %y, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @gelu_exact(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = adjit.gelu %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @gelu_exact_f16(%x: tensor<3xf16>) -> tensor<3xf16> {
  %y = adjit.gelu %x : tensor<3xf16>
  return %y : tensor<3xf16>
}
func.func @gelu_derivatives(%x: tensor<3xf32>, %t: tensor<3xf32>, %d: tensor<3xf16>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf16>) {
  %g = adjit.grad @sum_gelu(%x) wrt [0] : (tensor<3xf32>) -> tensor<3xf32>
  %y, %dy = adjit.jvp @gelu_exact(%x) tangents(%t) wrt [0] : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %yd, %dyd = adjit.jvp @gelu_exact_f16(%d) tangents(%d) wrt [0] : (tensor<3xf16>, tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf16>)
  return %g, %y, %dy, %yd, %dyd : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf16>
}

// -----

// A call whose first result has no cotangent (nothing reads it) calls a
// reverse function that takes the second result's alone: the first takes
// no part (no zero cotangent times its partials, which could be infinite).
// DIFF-LABEL: func.func private @outer_vjp_0
// DIFF: call @pair_vjp_0_ct_1(%{{.*}}, %{{.*}}) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// DIFF-LABEL: func.func private @pair_vjp_0_ct_1
// DIFF-SAME: (%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// DIFF-SAME: adjit.cotangents_from = 1 : i64
// DIFF-SAME: adjit.primal_results = 2 : i64
// OPT-LABEL: func.func @grad_second
func.func private @pair(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %e = adjit.exp %x : tensor<2xf32>
  %s = adjit.sin %x : tensor<2xf32>
  return %e, %s : tensor<2xf32>, tensor<2xf32>
}
func.func private @outer(%x: tensor<2xf32>) -> tensor<f32> {
  %p:2 = call @pair(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %s = adjit.reduce sum %p#1, dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_second(%x: tensor<2xf32>) -> tensor<2xf32> {
  %g = adjit.grad @outer(%x) wrt [0] : (tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// A block read at a run-time start gives its cotangent back at the same
// start; a block written gets the cotangent's block, and the operand the
// cotangent with the block zeroed. The start gets none.
// OPT-LABEL: func.func @grad_dynamic_blocks
// OPT-SAME: (%[[X:.*]]: tensor<8xf32>, %[[U:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<i32>)
// OPT-DAG: %[[ZX:.*]] = adjit.constant dense<0.000000e+00> : tensor<8xf32>
// OPT-DAG: %[[ZU:.*]] = adjit.constant dense<0.000000e+00> : tensor<2xf32>
// OPT-DAG: %[[ONES:.*]] = adjit.constant dense<1.000000e+00> : tensor<3xf32>
// OPT: %[[CTY:.*]] = adjit.dynamic_update_slice %[[ZX]][%[[I]]], %[[ONES]] : (tensor<8xf32>, tensor<i32>, tensor<3xf32>) -> tensor<8xf32>
// OPT: %[[GX:.*]] = adjit.dynamic_update_slice %[[CTY]][%[[I]]], %[[ZU]]
// OPT: %[[GU:.*]] = adjit.dynamic_slice %[[CTY]][%[[I]]] : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>
// OPT: return %[[GX]], %[[GU]]
func.func private @read_after_write(%x: tensor<8xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<f32> {
  %y = adjit.dynamic_update_slice %x[%i], %u : (tensor<8xf32>, tensor<i32>, tensor<2xf32>) -> tensor<8xf32>
  %b = adjit.dynamic_slice %y[%i] : (tensor<8xf32>, tensor<i32>) -> tensor<3xf32>
  %s = adjit.reduce sum %b, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @grad_dynamic_blocks(%x: tensor<8xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> (tensor<8xf32>, tensor<2xf32>) {
  %g:2 = adjit.grad @read_after_write(%x, %u, %i) wrt [0, 1] : (tensor<8xf32>, tensor<2xf32>, tensor<i32>) -> (tensor<8xf32>, tensor<2xf32>)
  return %g#0, %g#1 : tensor<8xf32>, tensor<2xf32>
}

// -----

// A call of a function with custom rules (adjit::custom_gradient): reverse
// mode calls its backward function on (inputs, results, cotangents, the
// backward's captured values), forward mode its tangent function on
// (inputs, results, tangents, the tangent's captured values). The call's
// operands: the input %x, then %w captured by the backward function, then
// %v captured by the tangent function.
// DIFF-LABEL: func.func private @custom_caller_vjp_0
// DIFF-SAME: (%[[X:.*]]: tensor<2xf32>, %[[W:.*]]: tensor<2xf32>, %[[V:.*]]: tensor<2xf32>, %[[CT:.*]]: tensor<2xf32>)
// DIFF: %[[Y:.*]] = call @custom_fwd(%[[X]], %[[W]], %[[V]])
// DIFF: call @custom_bwd(%[[X]], %[[Y]], %[[CT]], %[[W]])
// DIFF-LABEL: func.func private @custom_caller_jvp_0
// DIFF-SAME: (%[[X:.*]]: tensor<2xf32>, %[[W:.*]]: tensor<2xf32>, %[[V:.*]]: tensor<2xf32>, %[[T:.*]]: tensor<2xf32>)
// DIFF: %[[Y:.*]] = call @custom_fwd(%[[X]], %[[W]], %[[V]])
// DIFF: %[[DY:.*]] = call @custom_jvp(%[[X]], %[[Y]], %[[T]], %[[V]])
// DIFF: return %[[Y]], %[[DY]]
func.func private @custom_fwd(%x: tensor<2xf32>, %w: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2xf32>
    attributes {adjit.custom_vjp = @custom_bwd, adjit.custom_vjp_inputs = 1 : i64, adjit.custom_jvp = @custom_jvp} {
  %y = adjit.exp %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func private @custom_bwd(%x: tensor<2xf32>, %y: tensor<2xf32>, %ct: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %g = adjit.mul %ct, %w : tensor<2xf32>
  return %g : tensor<2xf32>
}
func.func private @custom_jvp(%x: tensor<2xf32>, %y: tensor<2xf32>, %t: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %d = adjit.mul %t, %v : tensor<2xf32>
  return %d : tensor<2xf32>
}
func.func private @custom_caller(%x: tensor<2xf32>, %w: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %y = call @custom_fwd(%x, %w, %v) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @custom_rules(%x: tensor<2xf32>, %w: tensor<2xf32>, %v: tensor<2xf32>, %s: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y, %g = adjit.vjp @custom_caller(%x, %w, %v) cotangents(%s) wrt [0] : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %y2, %dy = adjit.jvp @custom_caller(%x, %w, %v) tangents(%s) wrt [0] : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %g, %y2, %dy : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// lu's rules: reverse mode puts the rows back where the permutation took
// them from (a scatter_add of the batch's rows, offset by matrix), forward
// mode takes them in its order (a gather), each between solves with the
// unit lower L and the upper U.
// OPT-LABEL: func.func @lu_derivatives
// OPT-SAME: (%[[A:.*]]: tensor<2x3x3xf32>, %[[T:.*]]: tensor<2x3x3xf32>)
// OPT: %{{.*}}, %{{.*}}, %[[PERMUTATION:.*]] = adjit.lu %[[A]] : tensor<2x3x3xf32>
// OPT: adjit.triangular_solve %[[L:.*]], %{{.*}} {lower, transpose_a, unit_diagonal}
// OPT: %[[FIRST_ROWS:.*]] = adjit.iota dim = 0 : tensor<2x3xi32>
// OPT: %[[ROWS:.*]] = adjit.reshape %{{.*}} : (tensor<2x3xi32>) -> tensor<6xi32>
// OPT: adjit.scatter_add %{{.*}} into %{{.*}}[%[[ROWS]]], axis = 0 : (tensor<6x3xf32>, tensor<6xi32>, tensor<6x3xf32>) -> tensor<6x3xf32>
// OPT: adjit.gather %{{.*}}[%[[ROWS]]], axis = 0 : (tensor<6x3xf32>, tensor<6xi32>) -> tensor<6x3xf32>
// OPT: adjit.triangular_solve %[[L]], %{{.*}} {lower, unit_diagonal}
func.func private @packed_lu(%a: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %0:3 = adjit.lu %a : tensor<2x3x3xf32>
  return %0#0 : tensor<2x3x3xf32>
}
func.func @lu_derivatives(%a: tensor<2x3x3xf32>, %t: tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>) {
  %y, %g = adjit.vjp @packed_lu(%a) cotangents(%t) wrt [0] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>)
  %y2, %dy = adjit.jvp @packed_lu(%a) tangents(%t) wrt [0] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>)
  return %g, %dy : tensor<2x3x3xf32>, tensor<2x3x3xf32>
}

// -----

// scatter_extremum's rules (JAX's for scatter's extrema): the base elements
// and the updates equal to the result they reach share its cotangent (or
// average their tangents) by how many reach it.
// OPT-LABEL: func.func @scatter_max_derivatives
// OPT-SAME: (%[[B:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<3xi32>, %[[U:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<4xf32>)
// OPT: %[[R:.*]] = adjit.scatter_extremum max %[[U]] into %[[B]][%[[I]]], axis = 0
// OPT: %[[REACHED:.*]] = adjit.gather %[[R]][%[[I]]], axis = 0
// OPT: %[[RETAINED:.*]] = adjit.compare eq, %[[B]], %[[R]]
// OPT: %[[CHOSEN:.*]] = adjit.compare eq, %[[U]], %[[REACHED]]
// OPT: %[[COUNT:.*]] = adjit.scatter_add %{{.*}} into %{{.*}}[%[[I]]], axis = 0
// OPT: adjit.div %[[T]], %{{.*}} : tensor<4xf32>
// OPT: adjit.gather
func.func private @scatter_max(%b: tensor<4xf32>, %i: tensor<3xi32>, %u: tensor<3xf32>) -> tensor<4xf32> {
  %0 = adjit.scatter_extremum max %u into %b[%i], axis = 0 : (tensor<4xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @scatter_max_derivatives(%b: tensor<4xf32>, %i: tensor<3xi32>, %u: tensor<3xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>) {
  %y, %gb, %gu = adjit.vjp @scatter_max(%b, %i, %u) cotangents(%t) wrt [0, 2] : (tensor<4xf32>, tensor<3xi32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<3xf32>)
  return %gb, %gu : tensor<4xf32>, tensor<3xf32>
}
