// Canonicalization of adjit.for and adjit.while (ControlFlowFolds.cpp):
// what nothing reads goes, duplicates merge, constant rows and unchanged
// carries leave the stacks. The negative cases keep what is read, however
// indirectly.
// RUN: adjit-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: adjit run %s --entry unchanged_carry --arg 'f32[2]=1,2' --arg 'f32[2]=3,4' | FileCheck %s --check-prefix=UNCHANGED
// RUN: adjit run %s --entry constant_rows --arg 'f32[2]=1,2' | FileCheck %s --check-prefix=ROWS

// A stacked output nobody reads, a stacked input and an invariant the body
// does not read go; so does the op that computed the output.
// CHECK-LABEL: func.func @unused_stacks
// CHECK: %[[R:.*]] = adjit.for %{{.*}} to %{{.*}} carry(%arg0) : (tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %[[C:.*]]: tensor<2xf32>):
// CHECK-NEXT: %[[N:.*]] = adjit.neg %[[C]]
// CHECK-NEXT: adjit.yield %[[N]] : tensor<2xf32>
// CHECK: return %[[R]]
func.func @unused_stacks(%c0: tensor<2xf32>, %xs: tensor<3x2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<3> : tensor<i32>
  %r:2 = adjit.for %lo to %hi carry(%c0) stacked(%xs) invariant(%w)
      : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>, %x: tensor<2xf32>, %wi: tensor<2xf32>):
    %n = adjit.neg %c : tensor<2xf32>
    %e = adjit.exp %c : tensor<2xf32>
    adjit.yield %n, %e : tensor<2xf32>, tensor<2xf32>
  }
  return %r#0 : tensor<2xf32>
}

// -----

// Carries whose final values are unused and that feed only each other go,
// with every op of their chain; the carry they do not reach stays.
// CHECK-LABEL: func.func @dead_carry_cycle
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%arg0) : (tensor<i32>, tensor<i32>, tensor<f32>) -> tensor<f32>
// CHECK-NOT: adjit.mul
// CHECK-NOT: adjit.sin
// CHECK: adjit.yield
func.func @dead_carry_cycle(%a0: tensor<f32>, %b0: tensor<f32>, %c0: tensor<f32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<5> : tensor<i32>
  %r:3 = adjit.for %lo to %hi carry(%a0, %b0, %c0)
      : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>):
    %na = adjit.add %a, %a : tensor<f32>
    %nb = adjit.mul %b, %c : tensor<f32>
    %nc = adjit.sin %b : tensor<f32>
    adjit.yield %na, %nb, %nc : tensor<f32>, tensor<f32>, tensor<f32>
  }
  return %r#0 : tensor<f32>
}

// -----

// Negative: a carry whose final value is unused stays while it feeds a
// carry that is used, or a stacked output that is.
// CHECK-LABEL: func.func @live_carries
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%arg0, %arg1, %arg2) :
// CHECK-SAME: -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<5xf32>)
func.func @live_carries(%a0: tensor<f32>, %b0: tensor<f32>, %c0: tensor<f32>) -> (tensor<f32>, tensor<5xf32>) {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<5> : tensor<i32>
  %r:4 = adjit.for %lo to %hi carry(%a0, %b0, %c0)
      : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<5xf32>) {
  ^bb0(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>):
    %na = adjit.add %a, %b : tensor<f32>
    %nb = adjit.sin %b : tensor<f32>
    %nc = adjit.cos %c : tensor<f32>
    adjit.yield %na, %nb, %nc, %c : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
  }
  return %r#0, %r#3 : tensor<f32>, tensor<5xf32>
}

// -----

// Two stacked outputs of one value are one stack; two stacked inputs of one
// operand are read through one row.
// CHECK-LABEL: func.func @duplicate_stacks
// CHECK: %[[R:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) stacked(%arg1) :
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %[[C:.*]]: tensor<2xf32>, %[[X:.*]]: tensor<2xf32>):
// CHECK-NEXT: %[[M:.*]] = adjit.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[N:.*]] = adjit.add %[[C]], %[[M]]
// CHECK-NEXT: adjit.yield %[[N]], %[[N]] : tensor<2xf32>, tensor<2xf32>
// CHECK: return %[[R]]#1, %[[R]]#1
func.func @duplicate_stacks(%c0: tensor<2xf32>, %xs: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<4> : tensor<i32>
  %r:3 = adjit.for %lo to %hi carry(%c0) stacked(%xs, %xs)
      : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>, %x: tensor<2xf32>, %y: tensor<2xf32>):
    %m = adjit.mul %x, %y : tensor<2xf32>
    %n = adjit.add %c, %m : tensor<2xf32>
    adjit.yield %n, %n, %n : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#1, %r#2 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A stacked input that is a splat constant becomes a constant row in the
// body; a dense constant with different rows stays stacked.
// CHECK-LABEL: func.func @constant_rows
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%arg0) stacked(%[[DENSE:.*]]) :
// CHECK: adjit.constant dense<2.500000e+00> : tensor<2xf32>
// ROWS: out0 = f32[2] [17.5, 21.5]
func.func @constant_rows(%c0: tensor<2xf32>) -> tensor<2xf32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<3> : tensor<i32>
  %splat = adjit.constant dense<2.5> : tensor<3x2xf32>
  %dense = adjit.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %r = adjit.for %lo to %hi carry(%c0) stacked(%splat, %dense)
      : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>, %s: tensor<2xf32>, %d: tensor<2xf32>):
    %a = adjit.add %c, %s : tensor<2xf32>
    %n = adjit.add %a, %d : tensor<2xf32>
    adjit.yield %n : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// A carry yielded unchanged is an invariant whose final value is its
// initial one: it is no longer stacked for a stacked output of it.
// CHECK-LABEL: func.func @unchanged_carry
// CHECK: %[[R:.*]]:2 = adjit.for %{{.*}} to %{{.*}} carry(%arg0) invariant(%arg1) : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %[[C:.*]]: tensor<2xf32>, %[[W:.*]]: tensor<2xf32>):
// CHECK-NEXT: %[[N:.*]] = adjit.mul %[[C]], %[[W]]
// CHECK-NEXT: adjit.yield %[[N]], %[[W]]
// CHECK: return %[[R]]#0, %arg1, %[[R]]#1
// UNCHANGED: out0 = f32[2] [81, 512]
// UNCHANGED: out1 = f32[2] [3, 4]
// UNCHANGED: out2 = f32[4,2] {{\[}}[3, 4], [3, 4], [3, 4], [3, 4]]
func.func @unchanged_carry(%c0: tensor<2xf32>, %w0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>) {
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<4> : tensor<i32>
  %r:3 = adjit.for %lo to %hi carry(%c0, %w0)
      : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>, %w: tensor<2xf32>):
    %n = adjit.mul %c, %w : tensor<2xf32>
    adjit.yield %n, %w, %w : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>
}

// -----

// A while loop's stack nobody reads goes, with the op that computed its
// rows; the stack that is read stays, and so do the carries.
// CHECK-LABEL: func.func @unused_while_stack
// CHECK: %[[R:.*]]:3 = adjit.while carry(%arg0, %{{.*}}) : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>, tensor<?x2xf32>) cond {
// CHECK: } do {
// CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<2xf32>, %[[N:.*]]: tensor<i32>):
// CHECK-NOT: adjit.exp
// CHECK: adjit.yield %{{.*}}, %{{.*}}, %[[C]] : tensor<2xf32>, tensor<i32>, tensor<2xf32>
// CHECK: adjit.for %{{.*}} to %[[R]]#1 carry(%{{.*}}) stacked(%[[R]]#2)
func.func @unused_while_stack(%c0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %i0 = adjit.constant dense<0> : tensor<i32>
  %r:4 = adjit.while carry(%c0, %i0) : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>, tensor<?x2xf32>, tensor<?x2xf32>) cond {
  ^bb0(%c: tensor<2xf32>, %n: tensor<i32>):
    %s = adjit.reduce sum %c, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    %z = adjit.constant dense<0.0> : tensor<f32>
    %p = adjit.compare lt, %s, %z : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<2xf32>, %n: tensor<i32>):
    %one = adjit.constant dense<1> : tensor<i32>
    %m = adjit.add %n, %one : tensor<i32>
    %h = adjit.neg %c : tensor<2xf32>
    %e = adjit.exp %c : tensor<2xf32>
    adjit.yield %h, %m, %e, %c : tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>
  }
  %sum = adjit.for %i0 to %r#1 carry(%c0) stacked(%r#3) : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>, %row: tensor<2xf32>):
    %a = adjit.add %acc, %row : tensor<2xf32>
    adjit.yield %a : tensor<2xf32>
  }
  return %r#0, %sum : tensor<2xf32>, tensor<2xf32>
}
