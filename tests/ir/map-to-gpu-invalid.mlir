// GPU mapping runs after bufferization: a structured op on tensors, or
// with dynamic loop bounds, is an error naming the op, never a wrong kernel.
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
