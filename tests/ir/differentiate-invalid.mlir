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

