// adjit-allocate-reshaped-results: a result returned as a reshaped view of
// a static allocation is allocated in its own shape, written through the
// inverse reshape, so that buffer-results-to-out-params can hoist it into
// the out-parameter instead of copying. Other results stay.
// RUN: adjit-opt %s --pass-pipeline="builtin.module(func.func(adjit-allocate-reshaped-results))" -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @expanded
// CHECK: %[[WHOLE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1000x3xf32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[WHOLE]] {{\[\[}}0, 1]] : memref<1000x3xf32> into memref<3000xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[FLAT]] : memref<3000xf32>)
// CHECK: return %[[WHOLE]]
func.func @expanded() -> memref<1000x3xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<3000xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<3000xf32>)
  %e = memref.expand_shape %a [[0, 1]] output_shape [1000, 3] : memref<3000xf32> into memref<1000x3xf32>
  return %e : memref<1000x3xf32>
}

// -----

// CHECK-LABEL: func.func @collapsed
// CHECK: %[[WHOLE:.*]] = memref.alloc() : memref<12xf32>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[WHOLE]] {{\[\[}}0, 1]] output_shape [4, 3] : memref<12xf32> into memref<4x3xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ROWS]] : memref<4x3xf32>)
// CHECK: return %[[WHOLE]]
func.func @collapsed() -> memref<12xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x3xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x3xf32>)
  %c = memref.collapse_shape %a [[0, 1]] : memref<4x3xf32> into memref<12xf32>
  return %c : memref<12xf32>
}

// -----

// A view of an argument, an allocation returned as it is, and a strided
// view stay.
// CHECK-LABEL: func.func @kept
// CHECK: %[[A:.*]] = memref.alloc() : memref<6xf32>
// CHECK: %[[E:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 3]
// CHECK: return %[[E]], %[[A]]
func.func @kept(%x: memref<6xf32>) -> (memref<2x3xf32>, memref<6xf32>) {
  %a = memref.alloc() : memref<6xf32>
  %e = memref.expand_shape %x [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  return %e, %a : memref<2x3xf32>, memref<6xf32>
}

// -----

// An allocation returned as it is and through a reshape (two results that
// alias, as squeeze(expand_dims(x)) and a reshape of x do): each return
// operand is read afresh, and one of the two stays a view (copied into its
// out-parameter).
// CHECK-LABEL: func.func @also_returned
// CHECK: %[[WHOLE:.*]] = memref.alloc() : memref<6xf32>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[WHOLE]] {{\[\[}}0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
// CHECK: return %[[ROWS]], %[[WHOLE]]
func.func @also_returned() -> (memref<2x3xf32>, memref<6xf32>) {
  %a = memref.alloc() : memref<6xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
  return %e, %a : memref<2x3xf32>, memref<6xf32>
}
