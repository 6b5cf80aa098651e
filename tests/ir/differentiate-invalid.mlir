// A missing derivative rule is an error naming the op, and requests are
// verified against their callee.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics --adjit-differentiate

func.func private @uses_arith(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{no reverse-mode derivative rule for 'arith.mulf'}}
  %y = arith.mulf %x, %x : tensor<3xf32>
  %s = adjit.reduce sum %y, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = adjit.grad @uses_arith(%x) wrt [0] : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func private @vector_valued(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{needs 'vector_valued' to return one 0-d float tensor}}
  %g = adjit.grad @vector_valued(%x) wrt [0] : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{refers to 'missing', which is not a function in scope}}
  %g = adjit.grad @missing(%x) wrt [0] : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func private @two(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %s = adjit.add %x, %y : tensor<f32>
  return %s : tensor<f32>
}
func.func @wrt_out_of_range(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{wrt argument 3 does not exist: 'two' takes 2 arguments}}
  %g = adjit.grad @two(%x, %x) wrt [3] : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

func.func private @two(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %s = adjit.add %x, %y : tensor<f32>
  return %s : tensor<f32>
}
func.func @wrt_twice(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{wrt argument 1 is listed more than once}}
  %g:2 = adjit.grad @two(%x, %x) wrt [1, 1] : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %g#0, %g#1 : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{the function 'rec' is recursive ('rec' -> 'rec2' -> 'rec'): adjit programs cannot recurse}}
func.func private @rec(%x: tensor<f32>) -> tensor<f32> {
  %g = adjit.grad @rec2(%x) wrt [0] : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @rec2(%x: tensor<f32>) -> tensor<f32> {
  %g = adjit.grad @rec(%x) wrt [0] : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// Plain recursion, with no derivative involved, is not called an AD failure.
// expected-error @+1 {{the function 'plain' is recursive ('plain' -> 'plain'): adjit programs cannot recurse; repeat work with a loop}}
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @plain(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}


// -----

// Third-order reverse mode through a loop with a run-time trip count: the
// second order's reverse loop reads the stacks of the first (sized at run
// time), and two cotangents of such a stack cannot be added.
func.func @third(%x: tensor<2xf64>, %n: tensor<i32>) -> tensor<2xf64> {
  %0 = adjit.grad @second(%x, %n) wrt [0] : (tensor<2xf64>, tensor<i32>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @second(%x: tensor<2xf64>, %n: tensor<i32>) -> tensor<f64> {
  // expected-error @+1 {{the derivative rule of 'func.call' failed}}
  %0 = adjit.grad @first(%x, %n) wrt [0] : (tensor<2xf64>, tensor<i32>) -> tensor<2xf64>
  %1 = adjit.reduce sum %0, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  return %1 : tensor<f64>
}
func.func private @first(%x: tensor<2xf64>, %n: tensor<i32>) -> tensor<f64> {
  // expected-error @+1 {{the derivative rule of 'func.call' failed}}
  %0 = adjit.grad @loop(%x, %n) wrt [0] : (tensor<2xf64>, tensor<i32>) -> tensor<2xf64>
  %1 = adjit.reduce sum %0, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  return %1 : tensor<f64>
}
func.func private @loop(%x: tensor<2xf64>, %n: tensor<i32>) -> tensor<f64> {
  %0 = adjit.constant dense<0> : tensor<i32>
  // expected-error @+1 {{would add two cotangents of 'tensor<?x2xf64>', the per-iteration stack of a loop whose trip count is known only at run time}}
  %1 = adjit.for %0 to %n carry(%x) invariant(%x) : (tensor<i32>, tensor<i32>, tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf64>, %y: tensor<2xf64>):
    %3 = adjit.mul %c, %y : tensor<2xf64>
    %4 = adjit.sin %3 : tensor<2xf64>
    adjit.yield %4 : tensor<2xf64>
  }
  %2 = adjit.reduce sum %1, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  return %2 : tensor<f64>
}

// -----

// A loop with stacked values checkpointed every k iterations is cut into
// segments at compile time: bounds known only at run time are refused.
func.func private @segmented_dynamic_stack(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  // expected-error @+2 {{checkpoint_every with stacked inputs or outputs needs constant bounds}}
  // expected-error @+1 {{the derivative rule of 'adjit.for' failed}}
  %c, %ys = adjit.for %lo to %n carry(%x) {checkpoint_every = 2 : i64} : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  ^bb0(%i: tensor<i32>, %h: tensor<4xf32>):
    %t = adjit.tanh %h : tensor<4xf32>
    adjit.yield %t, %t : tensor<4xf32>, tensor<4xf32>
  }
  %s = adjit.reduce sum %c, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %g = adjit.grad @segmented_dynamic_stack(%x, %n) wrt [0] : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Custom rules whose tangent function is missing.
func.func private @custom_fwd(%x: tensor<2xf32>) -> tensor<2xf32>
    attributes {adjit.custom_vjp = @custom_bwd, adjit.custom_vjp_inputs = 1 : i64, adjit.custom_jvp = @missing} {
  %y = adjit.exp %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func private @custom_bwd(%x: tensor<2xf32>, %y: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  return %ct : tensor<2xf32>
}
func.func private @caller(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{custom rules of 'custom_fwd' are malformed}}
  // expected-error @+1 {{the derivative rule of 'func.call' failed}}
  %y = call @custom_fwd(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @tangent(%x: tensor<2xf32>, %t: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %y, %dy = adjit.jvp @caller(%x) tangents(%t) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %y, %dy : tensor<2xf32>, tensor<2xf32>
}
