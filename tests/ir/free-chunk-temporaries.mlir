// adjit-free-chunk-temporaries: what a parallel chunk allocates is freed at
// the end of the chunk's body, once; a buffer that could leave the chunk is
// an error.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics --adjit-free-chunk-temporaries | FileCheck %s

// CHECK-LABEL: func.func @chunks
// CHECK:       scf.forall
// CHECK:         %[[A:.*]] = memref.alloc() : memref<256xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         linalg.fill
// CHECK:         memref.dealloc %[[B]]
// CHECK-NOT:     memref.dealloc
// CHECK:         memref.dealloc %[[A]]
// CHECK-NEXT:  }
func.func @chunks(%out: memref<16x256xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (16) {
    %partial = memref.alloc() : memref<256xf32>
    %small = memref.alloc() : memref<4xf32>
    linalg.fill ins(%zero : f32) outs(%partial : memref<256xf32>)
    %row = memref.subview %out[%i, 0] [1, 256] [1, 1] : memref<16x256xf32> to memref<256xf32, strided<[1], offset: ?>>
    memref.copy %partial, %row : memref<256xf32> to memref<256xf32, strided<[1], offset: ?>>
    memref.dealloc %small : memref<4xf32>
  }
  return
}

// -----

// Allocations outside chunks are left to upstream's deallocation.
// CHECK-LABEL: func.func @outside
// CHECK-NOT:   memref.dealloc
func.func @outside() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}

// -----

func.func private @keep(memref<4xf32>)

func.func @escapes() {
  scf.forall (%i) in (2) {
    // expected-error @+1 {{a temporary of a parallel chunk may outlive the chunk}}
    %a = memref.alloc() : memref<4xf32>
    // expected-note @+1 {{through this use}}
    func.call @keep(%a) : (memref<4xf32>) -> ()
  }
  return
}
