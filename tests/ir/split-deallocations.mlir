// adjit-split-deallocations: a bufferization.dealloc that retains nothing,
// of distinct allocations under constant conditions, becomes one
// memref.dealloc per allocation whose condition is true; any other dealloc
// is left to upstream's simplification.
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-split-deallocations))" | FileCheck %s

// CHECK-LABEL: func.func @distinct
// CHECK-NOT:   bufferization.dealloc
// CHECK:       memref.dealloc %[[A:.*]] : memref<4xf32>
// CHECK-NEXT:  memref.dealloc %[[C:.*]] : memref<2xi32>
// CHECK-NEXT:  return
func.func @distinct() {
  %true = arith.constant true
  %false = arith.constant false
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %c = memref.alloc() : memref<2xi32>
  bufferization.dealloc (%a, %b, %c : memref<4xf32>, memref<8xf32>, memref<2xi32>) if (%true, %false, %true)
  return
}

// -----

// Left alone: a retained value (it may alias what is freed), one
// allocation named twice, a condition known only at run time, and a memref
// that is not an allocation of the function.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: bufferization.dealloc
// CHECK-NOT:   memref.dealloc
func.func @left_alone(%arg: memref<4xf32>, %c: i1) -> memref<4xf32> {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r = bufferization.dealloc (%a : memref<4xf32>) if (%true) retain (%arg : memref<4xf32>)
  bufferization.dealloc (%a, %a : memref<4xf32>, memref<4xf32>) if (%true, %true)
  bufferization.dealloc (%b : memref<4xf32>) if (%c)
  bufferization.dealloc (%arg : memref<4xf32>) if (%true)
  return %arg : memref<4xf32>
}
