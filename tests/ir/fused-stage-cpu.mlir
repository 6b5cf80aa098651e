// The CPU's `fused` stage end to end: tiled for the caches
// (adjit-tile-and-fuse-rows), fused and merged into few loops, contractions
// marked for the GEMM kernels, and the innermost loops in vectors of the
// target's width (adjit-vectorize, here two 512-bit registers: 32 f32 lanes,
// four for a long row's chains of adds or polynomials with few values
// live).
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-fused="vector-bits=512" --mlir-print-local-scope | FileCheck %s

// LayerNorm of 512 rows of 256: chunks of rows in parallel (scf.forall),
// blocks of rows within a chunk (scf.for), each row's sums accumulated in
// vectors and reduced across lanes once, the normalization in vectors with
// the row's mean and scale as broadcast scalars. The two sums wait on their
// adds over a long row with few values live: four registers (64 lanes) per
// step; the normalization, without such chains, two.
// CHECK-LABEL: func.func @layernorm
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : tensor<{{.*}}x256xf32>, vector<64xf32>
// CHECK: arith.addf {{.*}} fastmath<reassoc> : vector<64xf32>
// CHECK: vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK: arith.subf {{.*}} : vector<64xf32>
// CHECK: arith.mulf {{.*}} : vector<64xf32>
// CHECK: vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK: math.sqrt
// CHECK: vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK: arith.mulf {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>, tensor<{{.*}}x256xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @layernorm(%x: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %n = adjit.constant dense<256.0> : tensor<512xf32>
  %eps = adjit.constant dense<1.0e-5> : tensor<512xf32>
  %sum = adjit.reduce sum %x, dims = [1] : (tensor<512x256xf32>) -> tensor<512xf32>
  %mean = adjit.div %sum, %n : tensor<512xf32>
  %mean_b = adjit.broadcast_in_dim %mean, dims = [0] : (tensor<512xf32>) -> tensor<512x256xf32>
  %c = adjit.sub %x, %mean_b : tensor<512x256xf32>
  %sq = adjit.mul %c, %c : tensor<512x256xf32>
  %ss = adjit.reduce sum %sq, dims = [1] : (tensor<512x256xf32>) -> tensor<512xf32>
  %var = adjit.div %ss, %n : tensor<512xf32>
  %ve = adjit.add %var, %eps : tensor<512xf32>
  %inv = adjit.rsqrt %ve : tensor<512xf32>
  %inv_b = adjit.broadcast_in_dim %inv, dims = [0] : (tensor<512xf32>) -> tensor<512x256xf32>
  %y = adjit.mul %c, %inv_b : tensor<512x256xf32>
  return %y : tensor<512x256xf32>
}

// -----

// A dense layer: the matmul is one call of the GEMM kernels (packing and a
// register-blocked microkernel, runtime/lib/gemm), and the bias and ReLU
// epilogue runs after it in vectors.
// CHECK-LABEL: func.func @dense_relu
// CHECK: linalg.generic {{.*}} library_call = "adjit_gemm_f32"
// CHECK: vector.transfer_read {{.*}} vector<32xf32>
// CHECK: arith.addf {{.*}} : vector<32xf32>
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @dense_relu(%x: tensor<64x128xf32>, %w: tensor<128x96xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  %h = adjit.dot_general %x, %w, batch = [] x [], contract = [1] x [0] : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  %bb = adjit.broadcast_in_dim %b, dims = [1] : (tensor<96xf32>) -> tensor<64x96xf32>
  %hb = adjit.add %h, %bb : tensor<64x96xf32>
  %zero = adjit.constant dense<0.0> : tensor<64x96xf32>
  %y = adjit.max %hb, %zero : tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
