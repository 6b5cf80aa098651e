// Negative tests of the control-flow verifiers (ControlFlowOps.cpp): each
// message names the region and both signatures.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics

func.func @cond_branch_yields_other_type(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.cond' op the else branch yields (tensor<f32>) but must yield (tensor<2xf32>)}}
  %r = adjit.cond %p (%x) : (tensor<2xf32>) -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    adjit.yield %a : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    %s = adjit.reduce sum %a, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    adjit.yield %s : tensor<f32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @cond_branch_takes_other_arguments(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.cond' op the then branch takes (tensor<3xf32>) but must take (tensor<2xf32>)}}
  %r = adjit.cond %p (%x) : (tensor<2xf32>) -> tensor<2xf32> then {
  ^bb0(%a: tensor<3xf32>):
    %z = adjit.constant dense<0.0> : tensor<2xf32>
    adjit.yield %z : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    adjit.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @cond_uses_outer_value(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = adjit.cond %p () : () -> tensor<2xf32> then {
    // expected-error @+1 {{using value defined outside the region}}
    adjit.yield %x : tensor<2xf32>
  } else {
    adjit.yield %x : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @for_carry_changes_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<3> : tensor<i32>
  // expected-error @+1 {{'adjit.for' op the body yields (tensor<f32>) but must yield (tensor<2xf32>)}}
  %r = adjit.for %lo to %hi carry(%x) : (tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>):
    %s = adjit.reduce sum %c, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    adjit.yield %s : tensor<f32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @for_result_is_not_the_carry(%x: tensor<2xf32>) -> tensor<3xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<3> : tensor<i32>
  // expected-error @+1 {{'adjit.for' op carry #0 is 'tensor<2xf32>' but result #0 is 'tensor<3xf32>'}}
  %r = adjit.for %lo to %hi carry(%x) : (tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<3xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<3xf32>
}

// -----

func.func @for_stacked_needs_trip_count_rows(%x: tensor<2xf32>, %xs: tensor<4x2xf32>) -> tensor<2xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<3> : tensor<i32>
  // expected-error @+1 {{'adjit.for' op stacked input #0 is 'tensor<4x2xf32>', whose leading dimension must be the trip count 3}}
  %r = adjit.for %lo to %hi carry(%x) stacked(%xs) : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<4x2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>, %row: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @for_stacked_rows_are_dynamic_with_traced_bounds(%x: tensor<2xf32>, %hi: tensor<i32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %lo = adjit.constant dense<0> : tensor<i32>
  // expected-error @+1 {{'adjit.for' op stacked output #0 is 'tensor<3x2xf32>', whose leading dimension must be the trip count (dynamic: ?) and whose other dimensions must be static}}
  %r, %ys = adjit.for %lo to %hi carry(%x) : (tensor<i32>, tensor<i32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>):
    adjit.yield %c, %c : tensor<2xf32>, tensor<2xf32>
  }
  return %r, %ys : tensor<2xf32>, tensor<3x2xf32>
}

// -----

func.func @for_bound_is_not_i32(%x: tensor<2xf32>, %hi: tensor<i64>) -> tensor<2xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  // expected-error @+1 {{'adjit.for' op operand #1 must be 0D tensor of 32-bit signless integer values}}
  %r = adjit.for %lo to %hi carry(%x) : (tensor<i32>, tensor<i64>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @while_condition_is_not_a_predicate(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.while' op the condition yields (tensor<2xi1>) but must yield (tensor<i1>)}}
  %r = adjit.while carry(%x) : (tensor<2xf32>) -> tensor<2xf32> cond {
  ^bb0(%c: tensor<2xf32>):
    %p = adjit.compare lt, %c, %c : tensor<2xf32>
    adjit.yield %p : tensor<2xi1>
  } do {
  ^bb0(%c: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @while_body_misses_invariants(%x: tensor<2xf32>, %k: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.while' op the body takes (tensor<2xf32>) but must take (tensor<2xf32>, tensor<f32>)}}
  %r = adjit.while carry(%x) invariant(%k) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32> cond {
  ^bb0(%c: tensor<2xf32>, %kk: tensor<f32>):
    %t = adjit.constant dense<true> : tensor<i1>
    adjit.yield %t : tensor<i1>
  } do {
  ^bb0(%c: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @yield_outside_control_flow(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.yield' op expects parent op to be one of 'adjit.cond, adjit.for, adjit.while'}}
  adjit.yield %x : tensor<2xf32>
}

// -----

func.func @for_checkpoint_every_zero(%x: tensor<2xf32>) -> tensor<2xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<3> : tensor<i32>
  // expected-error @+1 {{'adjit.for' op attribute 'checkpoint_every' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %r = adjit.for %lo to %hi carry(%x) {checkpoint_every = 0 : i64} : (tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @while_checkpoint_every_zero(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'adjit.while' op attribute 'checkpoint_every' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %r = adjit.while carry(%x) {checkpoint_every = 0 : i64} : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%c: tensor<f32>):
    %p = adjit.compare lt, %c, %c : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>):
    adjit.yield %c : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @while_stack_of_static_rows(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.while' op stacked output #0 is 'tensor<3x2xf32>', whose leading dimension must be the number of iterations (dynamic: ?) and whose other dimensions must be static}}
  %r:2 = adjit.while carry(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) cond {
  ^bb0(%c: tensor<2xf32>):
    %t = adjit.constant dense<false> : tensor<i1>
    adjit.yield %t : tensor<i1>
  } do {
  ^bb0(%c: tensor<2xf32>):
    adjit.yield %c, %c : tensor<2xf32>, tensor<2xf32>
  }
  return %r#0 : tensor<2xf32>
}

// -----

func.func @while_row_of_another_shape(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.while' op the body yields (tensor<2xf32>, tensor<f32>) but must yield (tensor<2xf32>, tensor<2xf32>)}}
  %r:2 = adjit.while carry(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) cond {
  ^bb0(%c: tensor<2xf32>):
    %t = adjit.constant dense<false> : tensor<i1>
    adjit.yield %t : tensor<i1>
  } do {
  ^bb0(%c: tensor<2xf32>):
    %s = adjit.reduce sum %c, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    adjit.yield %c, %s : tensor<2xf32>, tensor<f32>
  }
  return %r#0 : tensor<2xf32>
}

// -----

func.func @while_results_not_the_carries(%x: tensor<2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{'adjit.while' op results (tensor<2xf64>) must start with the carries (tensor<2xf32>)}}
  %r = adjit.while carry(%x) : (tensor<2xf32>) -> tensor<2xf64> cond {
  ^bb0(%c: tensor<2xf32>):
    %t = adjit.constant dense<false> : tensor<i1>
    adjit.yield %t : tensor<i1>
  } do {
  ^bb0(%c: tensor<2xf32>):
    adjit.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf64>
}

// -----

func.func @reserve_row_of_static_stack(%s: tensor<4x2xf32>, %n: index) -> tensor<4x2xf32> {
  // expected-error @+1 {{'adjit.reserve_row' op needs a stack of rows, dynamic only in its leading dimension, got 'tensor<4x2xf32>'}}
  %r = adjit.reserve_row %s, %n : tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
