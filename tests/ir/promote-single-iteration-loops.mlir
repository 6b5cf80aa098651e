// Affine loops of one iteration become their bodies, the induction
// variable replaced by the lower bound; longer loops stay.
// RUN: adjit-opt %s -split-input-file --adjit-promote-single-iteration-loops | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK: affine.for %[[R:.*]] = 0 to 16 {
// CHECK-NOT: affine.for
// CHECK: %[[V:.*]] = memref.load %arg0[%[[R]], %c0]
// CHECK: memref.store %{{.*}}, %arg1[%[[R]], %c0]
// CHECK: }
// CHECK-NEXT: return
func.func @rows(%x: memref<16x1xf32>, %y: memref<16x1xf32>) {
  affine.for %r = 0 to 16 {
    affine.for %c = 0 to 1 {
      %v = memref.load %x[%r, %c] : memref<16x1xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %y[%r, %c] : memref<16x1xf32>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @nested_single
// CHECK-NOT: affine.for
// CHECK: memref.load %arg0[%c3]
func.func @nested_single(%x: memref<8xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %r = affine.for %i = 3 to 4 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %x[%i] : memref<8xf32>
    %s = arith.addf %acc, %v : f32
    affine.yield %s : f32
  }
  return %r : f32
}
