// A reduction's accumulator in a temporary buffer is carried by the loop;
// one in a function argument, or in a buffer the loop also reaches another
// way, stays in memory.
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-promote-accumulators))" | FileCheck %s

// CHECK-LABEL: func.func @temporary
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[INIT:.*]] = affine.load %[[ACC]][] : memref<f32>
// CHECK: %[[SUM:.*]] = affine.for %{{.*}} = 0 to 64 iter_args(%[[PARTIAL:.*]] = %[[INIT]]) -> (f32)
// CHECK-NOT: affine.store
// CHECK: arith.addf %[[PARTIAL]]
// CHECK: affine.yield
// CHECK: affine.store %[[SUM]], %[[ACC]][] : memref<f32>
func.func @temporary(%x: memref<64xf32>, %out: memref<f32>) {
  %acc = memref.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  affine.store %zero, %acc[] : memref<f32>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %a = affine.load %acc[] : memref<f32>
    %s = arith.addf %a, %v : f32
    affine.store %s, %acc[] : memref<f32>
  }
  %r = affine.load %acc[] : memref<f32>
  affine.store %r, %out[] : memref<f32>
  memref.dealloc %acc : memref<f32>
  return
}

// -----

// CHECK-LABEL: func.func @argument_or_other_access
// CHECK-NOT: iter_args
// CHECK: return
func.func @argument_or_other_access(%x: memref<64xf32>, %out: memref<f32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %a = affine.load %out[] : memref<f32>
    %s = arith.addf %a, %v : f32
    affine.store %s, %out[] : memref<f32>
  }
  %buffer = memref.alloc() : memref<2xf32>
  %first = memref.subview %buffer[0] [1] [1] : memref<2xf32> to memref<f32, strided<[]>>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %a = affine.load %first[] : memref<f32, strided<[]>>
    %s = arith.addf %a, %v : f32
    affine.store %s, %first[] : memref<f32, strided<[]>>
    affine.store %v, %buffer[%i mod 2] : memref<2xf32>
  }
  memref.dealloc %buffer : memref<2xf32>
  return
}
