// GPU mapping runs after bufferization: a structured op on tensors, or
// with dynamic loop bounds, is an error naming the op, never a wrong kernel.
// So is what a row group's thread blocks cannot run (a store outside a
// structured op, which every thread would make), a temporary they cannot
// place, or chunks that are not one static dimension; these are found
// before anything is rewritten.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics --adjit-map-to-gpu

func.func @on_tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{reached GPU mapping on tensors; it runs after bufferization}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-error @+1 {{has dynamic loop bounds; GPU kernels are built for static shapes}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

func.func @store_in_chunk(%x: memref<4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  scf.forall (%chunk) in (4) {
    // expected-error @+1 {{cannot run in the thread blocks of a GPU row group}}
    memref.store %zero, %x[%chunk, %c0] : memref<4x32xf32>
  }
  return
}

// -----

func.func @temporary_viewed(%x: memref<4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%chunk) in (4) {
    // expected-error @+1 {{is a temporary that a GPU row group's thread blocks cannot place}}
    %t = memref.alloc() : memref<2x32xf32>
    %row = memref.subview %t[0, 0] [1, 32] [1, 1] : memref<2x32xf32> to memref<32xf32, strided<[1]>>
    linalg.fill ins(%zero : f32) outs(%row : memref<32xf32, strided<[1]>>)
    memref.dealloc %t : memref<2x32xf32>
  }
  return
}

// -----

func.func @two_dimensional_chunks(%x: memref<4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{reached GPU mapping with 2 dimensions or tensor results; a row group's chunks are one dimension of buffers}}
  scf.forall (%i, %j) in (2, 2) {
    %row = memref.subview %x[%i, 0] [1, 32] [1, 1] : memref<4x32xf32> to memref<32xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%row : memref<32xf32, strided<[1], offset: ?>>)
  }
  return
}
