// Each loop nest of a function with more than `min-nests` of them becomes a
// call; nests alike up to the values they read share one function, into
// which their constants are cloned; a loop's results are the call's.
// RUN: adjit-opt %s --adjit-outline-loop-nests="min-nests=2" | FileCheck %s

// CHECK-LABEL: func.func @layers
// CHECK-SAME: (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>, %[[S:.*]]: f32)
// CHECK: call @layers_nest0(%[[A]], %[[S]]) : (memref<64xf32>, f32) -> ()
// CHECK-NEXT: call @layers_nest0(%[[B]], %[[S]]) : (memref<64xf32>, f32) -> ()
// CHECK: %[[SUM:.*]] = call @layers_nest2(%[[A]]) : (memref<64xf32>) -> f32
// CHECK-NEXT: return %[[SUM]] : f32
// CHECK: func.func private @layers_nest0(%[[X:.*]]: memref<64xf32>, %[[SCALE:.*]]: f32) attributes {no_inline}
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.0
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 64
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][%[[I]]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]], %[[SCALE]]
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[P]], %[[TWO]]
// CHECK-NEXT: affine.store %[[Q]], %[[X]][%[[I]]]
// CHECK: return
// CHECK: func.func private @layers_nest2(%{{.*}}: memref<64xf32>) -> f32 attributes {no_inline}
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args
// CHECK: return %[[R]] : f32
// CHECK-NOT: func.func private
func.func @layers(%a: memref<64xf32>, %b: memref<64xf32>, %s: f32) -> f32 {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %p = arith.mulf %v, %s : f32
    %q = arith.addf %p, %two : f32
    affine.store %q, %a[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i] : memref<64xf32>
    %p = arith.mulf %v, %s : f32
    %q = arith.addf %p, %two : f32
    affine.store %q, %b[%i] : memref<64xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %a[%i] : memref<64xf32>
    %r = arith.addf %acc, %v : f32
    scf.yield %r : f32
  }
  return %sum : f32
}

// Two nests are not more than two: the function stays whole.
// CHECK-LABEL: func.func @short
// CHECK-NOT: call
// CHECK-COUNT-2: affine.for
// CHECK: return
func.func @short(%a: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 64 {
    affine.store %one, %a[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    affine.store %one, %a[%i] : memref<64xf32>
  }
  return
}

// Nests that differ in a constant are not alike.
// CHECK-LABEL: func.func @constants
// CHECK: call @constants_nest0(%{{.*}}) : (memref<64xf32>) -> ()
// CHECK-NEXT: call @constants_nest1(%{{.*}}) : (memref<64xf32>) -> ()
// CHECK-NEXT: call @constants_nest0(%{{.*}}) : (memref<64xf32>) -> ()
// CHECK: func.func private @constants_nest0
// CHECK-NEXT: arith.constant 1.0
// CHECK: func.func private @constants_nest1
// CHECK-NEXT: arith.constant 3.0
func.func @constants(%a: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  affine.for %i = 0 to 64 {
    affine.store %one, %a[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    affine.store %three, %a[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    affine.store %one, %a[%i] : memref<64xf32>
  }
  return
}

// A loop around many nests (a program of a few rows, tiled by rows): the
// nests of its body become calls, which take its induction variable and
// the values made in the body as arguments; the loop around them stays.
// CHECK-LABEL: func.func @rows
// CHECK: scf.forall (%[[R:.*]]) in (4)
// CHECK-NEXT: %[[ROW:.*]] = memref.subview
// CHECK-NEXT: call @rows_nest0(%[[ROW]]) : (memref<64xf32, strided<[1], offset: ?>>) -> ()
// CHECK-NEXT: call @rows_nest0(%[[ROW]])
// CHECK-NEXT: call @rows_nest2(%[[R]], %[[ROW]]) : (index, memref<64xf32, strided<[1], offset: ?>>) -> ()
// CHECK: func.func private @rows_nest0
// CHECK: func.func private @rows_nest2
// CHECK-NOT: func.func private
func.func @rows(%a: memref<4x64xf32>) {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%r) in (4) {
    %row = memref.subview %a[%r, 0] [1, 64] [1, 1]
        : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    scf.for %i = %c0 to %c64 step %c1 {
      memref.store %one, %row[%i] : memref<64xf32, strided<[1], offset: ?>>
    }
    scf.for %i = %c0 to %c64 step %c1 {
      memref.store %one, %row[%i] : memref<64xf32, strided<[1], offset: ?>>
    }
    scf.for %i = %c0 to %r step %c1 {
      memref.store %one, %row[%i] : memref<64xf32, strided<[1], offset: ?>>
    }
  }
  return
}
