// The control-flow ops: round trip through the custom and the generic form,
// lowering to scf on tensors, and end-to-end runs whose values are exact.
// RUN: adjit-opt %s | adjit-opt | FileCheck %s
// RUN: adjit-opt %s --mlir-print-op-generic | adjit-opt | FileCheck %s
// RUN: adjit-opt %s --adjit-lower-to-linalg | FileCheck %s --check-prefix=SCF
// RUN: adjit run %s --entry branch --arg 'i1[]=1' --arg 'f32[2]=3,-4' | FileCheck %s --check-prefix=THEN
// RUN: adjit run %s --entry branch --arg 'i1[]=0' --arg 'f32[2]=3,-4' | FileCheck %s --check-prefix=ELSE
// RUN: adjit run %s --entry running_sum --arg 'f32[4,2]=iota' | FileCheck %s --check-prefix=SCAN
// RUN: adjit run %s --entry countdown --arg 'f32[]=3' --arg 'i32[]=5' | FileCheck %s --check-prefix=REV
// RUN: adjit run %s --entry countdown --arg 'f32[]=3' --arg 'i32[]=-2' | FileCheck %s --check-prefix=NOTRIP
// RUN: adjit run %s --entry stack_rows --arg 'f32[]=2' --arg 'i32[]=5' | FileCheck %s --check-prefix=STACK
// RUN: adjit run %s --entry doubling --arg 'f32[]=1' --arg 'f32[]=100' | FileCheck %s --check-prefix=WHILE
// RUN: adjit run %s --entry while_stack --arg 'f32[]=2500' | FileCheck %s --check-prefix=GROW
// RUN: adjit run %s --entry while_stack --arg 'f32[]=-1' | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @branch
// CHECK: adjit.cond %{{.*}}(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32> then {
// CHECK: ^bb0(%{{.*}}: tensor<2xf32>):
// CHECK: adjit.neg
// CHECK: adjit.yield %{{.*}} : tensor<2xf32>
// CHECK: } else {
// CHECK: adjit.mul
// SCF-LABEL: func.func @branch
// SCF: %[[P:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// SCF: scf.if %[[P]] -> (tensor<2xf32>) {
// SCF: linalg.generic
// SCF: scf.yield
// SCF: } else {
// THEN: out0 = f32[2] [-3, 4]
// ELSE: out0 = f32[2] [9, 16]
func.func @branch(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = adjit.cond %p (%x) : (tensor<2xf32>) -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %n = adjit.neg %a : tensor<2xf32>
    adjit.yield %n : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    %m = adjit.mul %a, %a : tensor<2xf32>
    adjit.yield %m : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// scan: each row is added to the carry, the running sums are stacked.
// CHECK-LABEL: func.func @running_sum
// CHECK: adjit.for %{{.*}} to %{{.*}} carry(%{{.*}}) stacked(%{{.*}}) : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<4x2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>):
// SCF-LABEL: func.func @running_sum
// SCF: %[[EMPTY:.*]] = tensor.empty() : tensor<4x2xf32>
// SCF: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[YS:.*]] = %[[EMPTY]])
// SCF: tensor.extract_slice %{{.*}}[%[[J]], 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
// SCF: tensor.insert_slice %{{.*}} into %[[YS]][%[[J]], 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
// SCAN: out0 = f32[2] [12, 16]
// SCAN-NEXT: out1 = f32[4,2] {{\[\[}}0, 1], [2, 4], [6, 9], [12, 16]]
func.func @running_sum(%xs: tensor<4x2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  %zero = adjit.constant dense<0.0> : tensor<2xf32>
  %lo = adjit.constant dense<0> : tensor<i32>
  %hi = adjit.constant dense<4> : tensor<i32>
  %c, %ys = adjit.for %lo to %hi carry(%zero) stacked(%xs)
      : (tensor<i32>, tensor<i32>, tensor<2xf32>, tensor<4x2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>, %x: tensor<2xf32>):
    %s = adjit.add %acc, %x : tensor<2xf32>
    adjit.yield %s, %s : tensor<2xf32>, tensor<2xf32>
  }
  return %c, %ys : tensor<2xf32>, tensor<4x2xf32>
}

// A reverse loop with a traced bound: c = c * 10 + i for i = hi-1 .. 0.
// CHECK-LABEL: func.func @countdown
// CHECK: adjit.for %{{.*}} to %{{.*}} reverse carry(%{{.*}}) invariant(%{{.*}})
// SCF-LABEL: func.func @countdown
// SCF: %[[HI:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// SCF: arith.index_cast %[[HI]] : i32 to index
// SCF: scf.for
// REV: out0 = f32[] 343210
// NOTRIP: out0 = f32[] 3
func.func @countdown(%x: tensor<f32>, %hi: tensor<i32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %ten = adjit.constant dense<10.0> : tensor<f32>
  %r = adjit.for %lo to %hi reverse carry(%x) invariant(%ten)
      : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<f32> {
  ^bb0(%i: tensor<i32>, %c: tensor<f32>, %t: tensor<f32>):
    %m = adjit.mul %c, %t : tensor<f32>
    %fi = adjit.convert %i : tensor<i32> to tensor<f32>
    %n = adjit.add %m, %fi : tensor<f32>
    adjit.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @doubling
// CHECK: adjit.while carry(%{{.*}}) invariant(%{{.*}}) : (tensor<f32>, tensor<f32>) -> tensor<f32> cond {
// CHECK: adjit.yield %{{.*}} : tensor<i1>
// CHECK: } do {
// SCF-LABEL: func.func @doubling
// SCF: scf.while
// SCF: scf.condition
// SCF: } do {
// WHILE: out0 = f32[] 128
func.func @doubling(%x: tensor<f32>, %limit: tensor<f32>) -> tensor<f32> {
  %r = adjit.while carry(%x) invariant(%limit) : (tensor<f32>, tensor<f32>) -> tensor<f32> cond {
  ^bb0(%c: tensor<f32>, %l: tensor<f32>):
    %p = adjit.compare lt, %c, %l : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>, %l: tensor<f32>):
    %n = adjit.add %c, %c : tensor<f32>
    adjit.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}

// A while loop stacking the carry each iteration starts from (what its
// reverse mode keeps): the stack grows at run time (reserve_row doubles it
// when full; 2500 rows of 4 bytes outgrow the first 1024), and a loop over
// the count reads it back. Row i must be i: the sum of |row - i| is 0.
// CHECK-LABEL: func.func @while_stack
// CHECK: adjit.while carry(%{{.*}}, %{{.*}}) invariant(%{{.*}}) : (tensor<f32>, tensor<i32>, tensor<f32>) -> (tensor<f32>, tensor<i32>, tensor<?xf32>) cond {
// CHECK: adjit.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<i32>, tensor<f32>
// SCF-LABEL: func.func @while_stack
// SCF: %[[FIRST:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// SCF: %[[LOOP:.*]]:4 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[FIRST]]) : (tensor<f32>, tensor<i32>, index, tensor<?xf32>)
// SCF: } do {
// SCF: ^bb0(%[[C:.*]]: tensor<f32>, %{{.*}}: tensor<i32>, %[[COUNT:.*]]: index, %[[ROWS:.*]]: tensor<?xf32>):
// SCF: %[[ROOM:.*]] = adjit.reserve_row %[[ROWS]], %[[COUNT]] : tensor<?xf32>
// SCF: tensor.insert_slice %[[C]] into %[[ROOM]][%[[COUNT]]] [1] [1] : tensor<f32> into tensor<?xf32>
// SCF: arith.addi %[[COUNT]], %{{.*}} : index
// SCF: tensor.extract_slice %[[LOOP]]#3[0] [%[[LOOP]]#2] [1] : tensor<?xf32> to tensor<?xf32>
// GROW: out0 = f32[] 2500
// GROW: out1 = i32[] 2500
// GROW: out2 = f32[] 0
// NONE: out0 = f32[] 0
// NONE: out1 = i32[] 0
// NONE: out2 = f32[] 0
func.func @while_stack(%limit: tensor<f32>) -> (tensor<f32>, tensor<i32>, tensor<f32>) {
  %zero = adjit.constant dense<0.0> : tensor<f32>
  %i0 = adjit.constant dense<0> : tensor<i32>
  %r:3 = adjit.while carry(%zero, %i0) invariant(%limit) : (tensor<f32>, tensor<i32>, tensor<f32>) -> (tensor<f32>, tensor<i32>, tensor<?xf32>) cond {
  ^bb0(%c: tensor<f32>, %n: tensor<i32>, %l: tensor<f32>):
    %p = adjit.compare lt, %c, %l : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>, %n: tensor<i32>, %l: tensor<f32>):
    %one = adjit.constant dense<1.0> : tensor<f32>
    %k = adjit.constant dense<1> : tensor<i32>
    %next = adjit.add %c, %one : tensor<f32>
    %m = adjit.add %n, %k : tensor<i32>
    adjit.yield %next, %m, %c : tensor<f32>, tensor<i32>, tensor<f32>
  }
  %s:2 = adjit.for %i0 to %r#1 carry(%zero, %zero) stacked(%r#2) : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<?xf32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %error: tensor<f32>, %index: tensor<f32>, %row: tensor<f32>):
    %one = adjit.constant dense<1.0> : tensor<f32>
    %d = adjit.sub %row, %index : tensor<f32>
    %a = adjit.abs %d : tensor<f32>
    %e = adjit.add %error, %a : tensor<f32>
    %j = adjit.add %index, %one : tensor<f32>
    adjit.yield %e, %j : tensor<f32>, tensor<f32>
  }
  return %r#0, %r#1, %s#0 : tensor<f32>, tensor<i32>, tensor<f32>
}

// The checkpoint_every attribute of a while loop survives a round trip.
// CHECK-LABEL: func.func @checkpointed_doubling
// CHECK: adjit.while carry(%{{.*}}) {checkpoint_every = 8 : i64} : (tensor<f32>) -> tensor<f32> cond {
func.func @checkpointed_doubling(%x: tensor<f32>) -> tensor<f32> {
  %r = adjit.while carry(%x) {checkpoint_every = 8 : i64} : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%c: tensor<f32>):
    %p = adjit.compare lt, %c, %c : tensor<f32>
    adjit.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<f32>):
    %n = adjit.add %c, %c : tensor<f32>
    adjit.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}

// A stacked output whose rows are only counted at run time (what the
// reverse mode of a loop with traced bounds keeps).
// CHECK-LABEL: func.func @stack_rows
// CHECK: -> (tensor<f32>, tensor<?xf32>)
// SCF-LABEL: func.func @stack_rows
// SCF: %[[N:.*]] = arith.maxsi
// SCF: tensor.empty(%[[N]]) : tensor<?xf32>
// The carry is stored before the body runs (so the body may update it in place):
// SCF: scf.for {{.*}} iter_args(%[[V:.*]] = %arg0, %[[ROWS:.*]] = %{{.*}})
// SCF: tensor.insert_slice %[[V]] into %[[ROWS]]
// SCF: linalg.generic
// STACK: out0 = f32[] 7
func.func @stack_rows(%x: tensor<f32>, %hi: tensor<i32>) -> tensor<f32> {
  %lo = adjit.constant dense<0> : tensor<i32>
  %c, %rows = adjit.for %lo to %hi carry(%x) : (tensor<i32>, tensor<i32>, tensor<f32>) -> (tensor<f32>, tensor<?xf32>) {
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    %one = adjit.constant dense<1.0> : tensor<f32>
    %n = adjit.add %v, %one : tensor<f32>
    adjit.yield %n, %v : tensor<f32>, tensor<f32>
  }
  return %c : tensor<f32>
}
