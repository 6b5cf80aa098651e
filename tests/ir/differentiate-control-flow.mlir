// Derivatives of the control-flow ops (ControlFlowDerivatives.cpp), after
// inlining and cleanup: the rule of each op builds an op of the same kind
// whose regions the AD driver differentiates.
// RUN: adjit-opt %s -split-input-file --adjit-differentiate --inline --symbol-dce --canonicalize --cse | FileCheck %s

// Reverse mode through a counted loop: the primal loop also stacks the
// carries each iteration starts from and the residuals its adjoint reads
// whose recomputation would need a matmul (tanh's output, which is also the
// stacked output: one stack serves both), with no second primal loop; a
// reverse loop runs the adjoint of each iteration from them without
// recomputing the body, carrying the carry's cotangent and summing the
// invariant's. The stacked output's cotangent, ones, is a constant inside
// the body rather than a stack; the stacked input's comes out stacked.
// CHECK-LABEL: func.func @rnn_grad
// CHECK: %[[FWD:.*]]:3 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) stacked(%arg1) invariant(%arg2) : {{.*}} -> (tensor<1x4xf32>, tensor<8x1x4xf32>, tensor<8x1x4xf32>)
// CHECK: ^bb0(%[[I:.*]]: tensor<i32>, %[[H:.*]]: tensor<1x4xf32>, %{{.*}}: tensor<1x4xf32>, %{{.*}}: tensor<4x4xf32>):
// CHECK: %[[T:.*]] = adjit.tanh
// CHECK: adjit.yield %[[T]], %[[T]], %[[H]] : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
// CHECK-NOT: adjit.for %{{.*}} to %{{.*}} carry(%arg0)
// CHECK: %[[REV:.*]]:3 = adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}, %{{.*}}) stacked(%[[FWD]]#2, %[[FWD]]#1) invariant(%arg2)
// CHECK: adjit.constant dense<1.000000e+00> : tensor<1x4xf32>
// CHECK-NOT: adjit.tanh
// CHECK: adjit.yield
// CHECK: return %[[REV]]#0, %[[REV]]#2, %[[REV]]#1
func.func private @rnn_loss(%h0: tensor<1x4xf32>, %xs: tensor<8x1x4xf32>, %w: tensor<4x4xf32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<8> : tensor<i32>
  %c, %ys = adjit.for %lo to %hi carry(%h0) stacked(%xs) invariant(%w)
      : (tensor<i32>, tensor<i32>, tensor<1x4xf32>, tensor<8x1x4xf32>, tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<8x1x4xf32>) {
  ^bb0(%i: tensor<i32>, %h: tensor<1x4xf32>, %x: tensor<1x4xf32>, %wi: tensor<4x4xf32>):
    %a = adjit.dot_general %h, %wi, batch = [] x [], contract = [1] x [0] : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
    %n = adjit.add %a, %x : tensor<1x4xf32>
    %t = adjit.tanh %n : tensor<1x4xf32>
    adjit.yield %t, %t : tensor<1x4xf32>, tensor<1x4xf32>
  }
  %s1 = adjit.reduce sum %c, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<f32>
  %s2 = adjit.reduce sum %ys, dims = [0, 1, 2] : (tensor<8x1x4xf32>) -> tensor<f32>
  %s = adjit.add %s1, %s2 : tensor<f32>
  return %s : tensor<f32>
}
func.func @rnn_grad(%h0: tensor<1x4xf32>, %xs: tensor<8x1x4xf32>, %w: tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<8x1x4xf32>, tensor<4x4xf32>) {
  %g:3 = adjit.grad @rnn_loss(%h0, %xs, %w) wrt [0, 1, 2] : (tensor<1x4xf32>, tensor<8x1x4xf32>, tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<8x1x4xf32>, tensor<4x4xf32>)
  return %g#0, %g#1, %g#2 : tensor<1x4xf32>, tensor<8x1x4xf32>, tensor<4x4xf32>
}

// -----

// The same cell as a fori_loop, tanh's output only a carry: the forward
// loop stacks the carries alone, and the reverse loop carries tanh's output
// (from the final carry, then each iteration's saved one) instead of
// reading a second stack of the same rows shifted by one.
// CHECK-LABEL: func.func @fori_rnn_grad
// CHECK: %[[FWD:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) invariant(%arg1) : {{.*}} -> (tensor<1x4xf32>, tensor<8x1x4xf32>)
// CHECK: %[[T:.*]] = adjit.tanh
// CHECK: adjit.yield %[[T]], %{{.*}} : tensor<1x4xf32>, tensor<1x4xf32>
// CHECK: %[[REV:.*]]:3 = adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}, %{{.*}}, %[[FWD]]#0) stacked(%[[FWD]]#1) invariant(%arg1)
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<1x4xf32>, %{{.*}}: tensor<4x4xf32>, %[[NEXT:.*]]: tensor<1x4xf32>, %[[SAVED:.*]]: tensor<1x4xf32>, %{{.*}}: tensor<4x4xf32>):
// CHECK-NOT: adjit.tanh
// CHECK: adjit.mul %[[NEXT]], %[[NEXT]]
// CHECK: adjit.yield %{{.*}}, %{{.*}}, %[[SAVED]] :
// CHECK: return %[[REV]]#0, %[[REV]]#1
func.func private @fori_rnn_loss(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<8> : tensor<i32>
  %c = adjit.for %lo to %hi carry(%h0) invariant(%w)
      : (tensor<i32>, tensor<i32>, tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%i: tensor<i32>, %h: tensor<1x4xf32>, %wi: tensor<4x4xf32>):
    %a = adjit.dot_general %h, %wi, batch = [] x [], contract = [1] x [0] : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
    %t = adjit.tanh %a : tensor<1x4xf32>
    adjit.yield %t : tensor<1x4xf32>
  }
  %s = adjit.reduce sum %c, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @fori_rnn_grad(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<4x4xf32>) {
  %g:2 = adjit.grad @fori_rnn_loss(%h0, %w) wrt [0, 1] : (tensor<1x4xf32>, tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<4x4xf32>)
  return %g#0, %g#1 : tensor<1x4xf32>, tensor<4x4xf32>
}

// -----

// Elementwise residuals are recomputed rather than stacked: the reverse
// loop runs the body's tanh again from the stacked carries.
// CHECK-LABEL: func.func @cheap_grad
// CHECK: %[[FWD:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) invariant(%arg1) : {{.*}} -> (tensor<4xf32>, tensor<8x4xf32>)
// CHECK: adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}, %{{.*}}) stacked(%[[FWD]]#1) invariant(%arg1)
// CHECK: adjit.tanh
func.func private @cheap_loss(%h0: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<8> : tensor<i32>
  %c = adjit.for %lo to %hi carry(%h0) invariant(%w)
      : (tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<i32>, %h: tensor<4xf32>, %wi: tensor<4xf32>):
    %a = adjit.mul %h, %wi : tensor<4xf32>
    %t = adjit.tanh %a : tensor<4xf32>
    adjit.yield %t : tensor<4xf32>
  }
  %s = adjit.reduce sum %c, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @cheap_grad(%h0: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %g:2 = adjit.grad @cheap_loss(%h0, %w) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Reverse mode through cond: a cond on the same predicate runs the adjoint
// of the branch taken, recomputing that branch from its operands; only the
// differentiated operand gets a cotangent.
// CHECK-LABEL: func.func @cond_grad
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK: %[[G:.*]] = adjit.cond %[[P]](%[[X]], %[[Y]], %{{.*}}) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> then {
// CHECK: adjit.cos
// CHECK: } else {
// CHECK: adjit.mul
// CHECK: return %[[G]]
func.func private @cond_loss(%p: tensor<i1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %r = adjit.cond %p (%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> then {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %s = adjit.sin %a : tensor<3xf32>
    adjit.yield %s : tensor<3xf32>
  } else {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %m = adjit.mul %a, %b : tensor<3xf32>
    adjit.yield %m : tensor<3xf32>
  }
  %s = adjit.reduce sum %r, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @cond_grad(%p: tensor<i1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %g = adjit.grad @cond_loss(%p, %x, %y) wrt [1] : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Forward mode through a while loop: the tangent is one more carry; the
// condition reads only the primal carries.
// CHECK-LABEL: func.func @while_jvp
// CHECK: %[[R:.*]]:2 = adjit.while carry(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) cond {
// CHECK: ^bb0(%[[C:.*]]: tensor<f32>, %{{.*}}: tensor<f32>):
// CHECK: adjit.compare lt, %[[C]]
// CHECK: } do {
// CHECK: adjit.mul
// CHECK: adjit.yield
// CHECK: return %[[R]]#0, %[[R]]#1
func.func private @squaring(%x: tensor<f32>) -> tensor<f32> {
  %r = adjit.while carry(%x) : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%c: tensor<f32>):
    %t = adjit.constant dense<1.0e+01> : tensor<f32>
    %p = adjit.compare lt, %c, %t : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>):
    %n = adjit.mul %c, %c : tensor<f32>
    adjit.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @while_jvp(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = adjit.jvp @squaring(%x) tangents(%t) wrt [0] : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// Reverse mode through a while loop: the loop runs once, counting its
// iterations and stacking the carry each starts from (tensor<?xf32>, a
// stack that grows at run time); a reverse loop bounded by the count walks
// it back, and needs no bound from the user.
// CHECK-LABEL: func.func @while_grad
// CHECK: %[[ZERO:.*]] = adjit.constant dense<0> : tensor<i32>
// CHECK: %[[FWD:.*]]:3 = adjit.while carry(%arg0, %[[ZERO]]) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>, tensor<?xf32>) cond {
// CHECK: } do {
// CHECK: ^bb0(%[[C:.*]]: tensor<f32>, %[[I:.*]]: tensor<i32>):
// CHECK: %[[NEXT:.*]] = adjit.mul %[[C]], %[[C]] : tensor<f32>
// CHECK: %[[COUNT:.*]] = adjit.add %[[I]], %{{.*}} : tensor<i32>
// CHECK: adjit.yield %[[NEXT]], %[[COUNT]], %[[C]] : tensor<f32>, tensor<i32>, tensor<f32>
// CHECK-NOT: adjit.while
// CHECK: %[[G:.*]] = adjit.for %[[ZERO]] to %[[FWD]]#1 reverse carry(%{{.*}}) stacked(%[[FWD]]#2) : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<?xf32>) -> tensor<f32>
// CHECK: return %[[G]]
func.func private @squaring_loss(%x: tensor<f32>) -> tensor<f32> {
  %r = adjit.while carry(%x) : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%c: tensor<f32>):
    %t = adjit.constant dense<1.0e+01> : tensor<f32>
    %p = adjit.compare lt, %c, %t : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>):
    %n = adjit.mul %c, %c : tensor<f32>
    adjit.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @while_grad(%x: tensor<f32>) -> tensor<f32> {
  %g = adjit.grad @squaring_loss(%x) wrt [0] : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}


// -----

// A while loop whose body has a matmul: the adjoint reads tanh's output,
// which would need the matmul again. That output is the next carry, so the
// one forward loop stacks only the carries each iteration starts from, and
// the reverse loop carries tanh's output: the final carry first, then each
// iteration's saved carry (not a second stack of the same rows). It runs
// no tanh.
// CHECK-LABEL: func.func @while_rnn_grad
// CHECK: %[[FWD:.*]]:3 = adjit.while carry(%arg0, %{{.*}}) invariant(%arg1) : {{.*}} -> (tensor<1x4xf32>, tensor<i32>, tensor<?x1x4xf32>) cond {
// CHECK: } do {
// CHECK: ^bb0(%[[H:.*]]: tensor<1x4xf32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<4x4xf32>):
// CHECK: %[[T:.*]] = adjit.tanh
// CHECK: adjit.yield %[[T]], %{{.*}}, %[[H]] : tensor<1x4xf32>, tensor<i32>, tensor<1x4xf32>
// CHECK-NOT: adjit.while
// CHECK: %[[REV:.*]]:3 = adjit.for %{{.*}} to %[[FWD]]#1 reverse carry(%{{.*}}, %{{.*}}, %[[FWD]]#0) stacked(%[[FWD]]#2) invariant(%arg1)
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<1x4xf32>, %{{.*}}: tensor<4x4xf32>, %[[NEXT:.*]]: tensor<1x4xf32>, %[[SAVED:.*]]: tensor<1x4xf32>, %{{.*}}: tensor<4x4xf32>):
// CHECK-NOT: adjit.tanh
// CHECK: adjit.mul %[[NEXT]], %[[NEXT]]
// CHECK: adjit.yield %{{.*}}, %{{.*}}, %[[SAVED]] :
// CHECK: return %[[REV]]#0, %[[REV]]#1
func.func private @while_rnn_loss(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<f32> {
  %c = adjit.while carry(%h0) invariant(%w)
      : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32> cond {
  ^bb0(%h: tensor<1x4xf32>, %wi: tensor<4x4xf32>):
    %s = adjit.reduce sum %h, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<f32>
    %t = adjit.constant dense<1.0e+00> : tensor<f32>
    %p = adjit.compare lt, %s, %t : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%h: tensor<1x4xf32>, %wi: tensor<4x4xf32>):
    %a = adjit.dot_general %h, %wi, batch = [] x [], contract = [1] x [0] : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
    %t = adjit.tanh %a : tensor<1x4xf32>
    adjit.yield %t : tensor<1x4xf32>
  }
  %s = adjit.reduce sum %c, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @while_rnn_grad(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<4x4xf32>) {
  %g:2 = adjit.grad @while_rnn_loss(%h0, %w) wrt [0, 1] : (tensor<1x4xf32>, tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<4x4xf32>)
  return %g#0, %g#1 : tensor<1x4xf32>, tensor<4x4xf32>
}

// -----

// A while loop checkpointed every 4 iterations: after counting, the
// counted loop is cut into segments (their number computed from the count
// at run time), which keep the carries at segment starts only.
// CHECK-LABEL: func.func @checkpointed_while_grad
// CHECK: %[[COUNT:.*]]:2 = adjit.while carry(%arg0, %{{.*}}) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>) cond {
// CHECK: %[[SPAN:.*]] = adjit.add %[[COUNT]]#1, %{{.*}} : tensor<i32>
// CHECK: %[[SEGMENTS:.*]] = adjit.div %[[SPAN]], %{{.*}} : tensor<i32>
// CHECK: %[[FWD:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) invariant({{.*}}) : {{.*}} -> (tensor<f32>, tensor<?xf32>)
// CHECK: adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}) stacked(%[[FWD]]#1)
func.func private @checkpointed_squaring_loss(%x: tensor<f32>) -> tensor<f32> {
  %r = adjit.while carry(%x) {checkpoint_every = 4 : i64} : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%c: tensor<f32>):
    %t = adjit.constant dense<1.0e+01> : tensor<f32>
    %p = adjit.compare lt, %c, %t : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>):
    %n = adjit.mul %c, %c : tensor<f32>
    adjit.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @checkpointed_while_grad(%x: tensor<f32>) -> tensor<f32> {
  %g = adjit.grad @checkpointed_squaring_loss(%x) wrt [0] : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// checkpoint_every = 4 over 10 iterations: a loop over 3 segments keeps the
// carries at segment starts (3 rows, not 10); its reverse loop runs each
// segment again with a stack of its own (rows counted at run time), then
// that segment's reverse loop.
// CHECK-LABEL: func.func @segmented_grad
// CHECK: %[[FWD:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) invariant(%{{.*}}, %{{.*}}) : {{.*}} -> (tensor<4xf32>, tensor<3x4xf32>) {
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%{{.*}}) : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[REV:.*]] = adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}) stacked(%[[FWD]]#1)
// CHECK: %[[SEGMENT:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%{{.*}}) : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>)
// CHECK: adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}) stacked(%[[SEGMENT]]#1)
// CHECK: return %[[REV]]
func.func private @segmented(%x: tensor<4xf32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<10> : tensor<i32>
  %c = adjit.for %lo to %hi carry(%x) {checkpoint_every = 4 : i64} : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<i32>, %h: tensor<4xf32>):
    %t = adjit.tanh %h : tensor<4xf32>
    adjit.yield %t : tensor<4xf32>
  }
  %s = adjit.reduce sum %c, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @segmented_grad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = adjit.grad @segmented(%x) wrt [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A scan (stacked input and output) checkpointed every 4 of 10 iterations:
// 2 segments of 4 rows (the rows regrouped 2 x 4, each segment an inner
// loop over its 4), then a loop over the last 2 rows; the outputs are
// joined again. The backward pass runs the tail's reverse loop, then the
// segments' (each recomputed with a stack of 4 rows of its own), and joins
// the rows' cotangents. The ys' cotangent (ones: sum's) is sliced for the
// tail and the segments as a splat, so each reverse loop reads it as a
// constant rather than a stacked input.
// CHECK-LABEL: func.func @segmented_scan_grad
// CHECK-DAG: %[[HEAD:.*]] = adjit.slice %arg1, start = [0, 0], limit = [8, 4], {{.*}} -> tensor<8x4xf32>
// CHECK-DAG: %[[SEGMENTS:.*]] = adjit.reshape %[[HEAD]] : (tensor<8x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %[[FWD:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) stacked(%[[SEGMENTS]]) : {{.*}} -> (tensor<4xf32>, tensor<2x4xf32>) {
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%{{.*}}) stacked(%{{.*}}) : (tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: %[[TAIL:.*]] = adjit.slice %arg1, start = [8, 0], limit = [10, 4], {{.*}} -> tensor<2x4xf32>
// CHECK: %[[TAILFWD:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%[[FWD]]#0) stacked(%[[TAIL]]) : {{.*}} -> (tensor<4xf32>, tensor<2x4xf32>)
// CHECK: %[[TAILREV:.*]]:2 = adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}) stacked(%[[TAILFWD]]#1, %[[TAIL]]) : {{.*}} -> (tensor<4xf32>, tensor<2x4xf32>)
// CHECK: %[[REV:.*]]:2 = adjit.for %{{.*}} to %{{.*}} reverse carry(%[[TAILREV]]#0) stacked(%[[FWD]]#1, %[[SEGMENTS]]) : {{.*}} -> (tensor<4xf32>, tensor<2x4x4xf32>)
// CHECK: %[[SEGMENT:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%{{.*}}) stacked(%{{.*}}) : {{.*}} -> (tensor<4xf32>, tensor<4x4xf32>)
// CHECK: adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}) stacked(%[[SEGMENT]]#1,
// CHECK: %[[ROWS:.*]] = adjit.reshape %[[REV]]#1 : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[XS:.*]] = adjit.concatenate(%[[ROWS]], %[[TAILREV]]#1) dim = 0 : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<10x4xf32>
// CHECK: return %[[REV]]#0, %[[XS]]
func.func private @segmented_scan(%x: tensor<4xf32>, %xs: tensor<10x4xf32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<10> : tensor<i32>
  %c, %ys = adjit.for %lo to %hi carry(%x) stacked(%xs) {checkpoint_every = 4 : i64} : (tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<10x4xf32>) -> (tensor<4xf32>, tensor<10x4xf32>) {
  ^bb0(%i: tensor<i32>, %h: tensor<4xf32>, %r: tensor<4xf32>):
    %m = adjit.mul %h, %r : tensor<4xf32>
    %t = adjit.tanh %m : tensor<4xf32>
    adjit.yield %t, %m : tensor<4xf32>, tensor<4xf32>
  }
  %s = adjit.reduce sum %ys, dims = [0, 1] : (tensor<10x4xf32>) -> tensor<f32>
  %e = adjit.reduce sum %c, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %r = adjit.add %s, %e : tensor<f32>
  return %r : tensor<f32>
}
func.func @segmented_scan_grad(%x: tensor<4xf32>, %xs: tensor<10x4xf32>) -> (tensor<4xf32>, tensor<10x4xf32>) {
  %g:2 = adjit.grad @segmented_scan(%x, %xs) wrt [0, 1] : (tensor<4xf32>, tensor<10x4xf32>) -> (tensor<4xf32>, tensor<10x4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<10x4xf32>
}
