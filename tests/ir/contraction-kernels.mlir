// Contractions served by the runtime's GEMM kernels: adjit-select-kernels
// marks them (visible in the fused stage), adjit-contractions-to-calls turns
// the marked buffer contractions into calls with per-operand strides.
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-fused="vector-bits=512" --mlir-print-local-scope | FileCheck %s --check-prefix=FUSED
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-bufferized --adjit-contractions-to-calls --canonicalize --mlir-print-local-scope | FileCheck %s --check-prefix=CALL

// A matmul whose lhs is stored transposed (x^T dy, as in a weight gradient):
// read in place, no copy; the zero fill folds into the call (last argument 0).
// FUSED-LABEL: func.func @weight_gradient
// FUSED: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"], library_call = "adjit_gemm_f32"}
// CALL-LABEL: func.func @weight_gradient
// CALL-SAME: (%[[X:.*]]: memref<256x784xf32>, %[[DY:.*]]: memref<256x1024xf32>, %[[OUT:.*]]: memref<784x1024xf32>)
// CALL-NOT: linalg.fill
// CALL-DAG: %[[M:.*]] = arith.constant 784 : i64
// CALL-DAG: %[[N:.*]] = arith.constant 1024 : i64
// CALL-DAG: %[[K:.*]] = arith.constant 256 : i64
// CALL-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CALL-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CALL: call @adjit_gemm_f32(%[[ONE]], %[[M]], %[[N]], %[[K]], %{{.*}}, %[[ZERO]], %[[ONE]], %[[M]], %{{.*}}, %[[ZERO]], %[[N]], %[[ONE]], %{{.*}}, %[[ZERO]], %[[N]], %[[ONE]], %[[ZERO]])
// CALL-NOT: linalg.generic
// CALL: func.func private @adjit_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @weight_gradient(%x: tensor<256x784xf32>, %dy: tensor<256x1024xf32>) -> tensor<784x1024xf32> {
  %0 = adjit.dot_general %x, %dy, batch = [] x [], contract = [0] x [0] : (tensor<256x784xf32>, tensor<256x1024xf32>) -> tensor<784x1024xf32>
  return %0 : tensor<784x1024xf32>
}

// -----

// A batched f64 matmul: batch strides are passed, the f64 kernel is chosen.
// FUSED-LABEL: func.func @batched
// FUSED: library_call = "adjit_gemm_f64"
// CALL-LABEL: func.func @batched
// CALL-DAG: %[[B:.*]] = arith.constant 3 : i64
// CALL-DAG: %[[M:.*]] = arith.constant 16 : i64
// CALL-DAG: %[[N:.*]] = arith.constant 20 : i64
// CALL-DAG: %[[K:.*]] = arith.constant 32 : i64
// CALL-DAG: %[[LHSB:.*]] = arith.constant 512 : i64
// CALL-DAG: %[[RHSB:.*]] = arith.constant 640 : i64
// CALL-DAG: %[[OUTB:.*]] = arith.constant 320 : i64
// CALL: call @adjit_gemm_f64(%[[B]], %[[M]], %[[N]], %[[K]], %{{.*}}, %[[LHSB]], %[[K]], %{{.*}}, %{{.*}}, %[[RHSB]], %[[N]], %{{.*}}, %{{.*}}, %[[OUTB]], %[[N]], %{{.*}}, %{{.*}})
func.func @batched(%x: tensor<3x16x32xf64>, %y: tensor<3x32x20xf64>) -> tensor<3x16x20xf64> {
  %0 = adjit.dot_general %x, %y, batch = [0] x [0], contract = [2] x [1] : (tensor<3x16x32xf64>, tensor<3x32x20xf64>) -> tensor<3x16x20xf64>
  return %0 : tensor<3x16x20xf64>
}

// -----

// Attention's scores q k^T with q and k laid out [batch, time, heads, depth]:
// two batch loops whose strides do not merge. The kernel takes the longer
// (heads, 3), a loop around the call the other (batch, 2), offsetting each
// operand's address by its batch stride in bytes.
// FUSED-LABEL: func.func @attention_scores
// FUSED: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"], library_call = "adjit_gemm_f32"
// CALL-LABEL: func.func @attention_scores
// CALL-SAME: (%[[Q:.*]]: memref<2x70x3x9xf32>, %[[K:.*]]: memref<2x70x3x9xf32>, %[[S:.*]]: memref<2x3x70x70xf32>)
// CALL-DAG: %[[HEADS:.*]] = arith.constant 3 : i64
// CALL-DAG: %[[QK_BATCH_BYTES:.*]] = arith.constant 7560 : index
// CALL-DAG: %[[S_BATCH_BYTES:.*]] = arith.constant 58800 : index
// CALL-DAG: %[[TWO:.*]] = arith.constant 2 : index
// CALL: scf.for %[[B:.*]] = %{{.*}} to %[[TWO]]
// CALL: %[[QBASE:.*]] = memref.extract_aligned_pointer_as_index %[[Q]]
// CALL: %[[QOFF:.*]] = arith.muli %[[B]], %[[QK_BATCH_BYTES]]
// CALL: arith.addi %[[QBASE]], %[[QOFF]]
// CALL: %[[SBASE:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CALL: %[[SOFF:.*]] = arith.muli %[[B]], %[[S_BATCH_BYTES]]
// CALL: arith.addi %[[SBASE]], %[[SOFF]]
// CALL: call @adjit_gemm_f32(%[[HEADS]],
// CALL-NEXT: }
func.func @attention_scores(%q: tensor<2x70x3x9xf32>, %k: tensor<2x70x3x9xf32>) -> tensor<2x3x70x70xf32> {
  %0 = adjit.dot_general %q, %k, batch = [0, 2] x [0, 2], contract = [3] x [3] : (tensor<2x70x3x9xf32>, tensor<2x70x3x9xf32>) -> tensor<2x3x70x70xf32>
  return %0 : tensor<2x3x70x70xf32>
}

// -----

// Not served by the kernels, so they stay loop nests: integer contractions,
// contractions over two dimensions at once, matrix-vector products (memory
// bound; the register tile would be mostly padding), and matmuls too small
// to repay packing.
// FUSED-LABEL: func.func @not_served
// FUSED-NOT: library_call
// CALL-LABEL: func.func @not_served
// CALL-NOT: adjit_gemm
func.func @not_served(%a: tensor<4x8xi32>, %b: tensor<8x5xi32>, %c: tensor<4x2x3xf32>, %d: tensor<2x3x5xf32>, %m: tensor<64x128xf32>, %v: tensor<128xf32>, %s: tensor<8x8xf32>) -> (tensor<4x5xi32>, tensor<4x5xf32>, tensor<64xf32>, tensor<8x8xf32>) {
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xi32>, tensor<8x5xi32>) -> tensor<4x5xi32>
  %1 = adjit.dot_general %c, %d, batch = [] x [], contract = [1, 2] x [0, 1] : (tensor<4x2x3xf32>, tensor<2x3x5xf32>) -> tensor<4x5xf32>
  %2 = adjit.dot_general %m, %v, batch = [] x [], contract = [1] x [0] : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64xf32>
  %3 = adjit.dot_general %s, %s, batch = [] x [], contract = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %2, %3 : tensor<4x5xi32>, tensor<4x5xf32>, tensor<64xf32>, tensor<8x8xf32>
}

// -----

// An SGD update `w - lr * x^T dy`: the product accumulates onto w, its
// smaller operand (x, 256x64) scaled by -lr first, so there is no buffer for
// the gradient and no pass over the update. w is donated here, so the call
// accumulates into w's own buffer (last argument 1: accumulate).
// FUSED-LABEL: func.func @sgd_update
// FUSED:       %[[LR:.*]] = arith.constant dense<-1.000000e-01> : vector<32xf32>
// FUSED:       %[[SCALED:.*]] = scf.for
// FUSED:       vector.transfer_read %arg1
// FUSED:       arith.mulf %{{.*}}, %[[LR]] : vector<32xf32>
// FUSED:       linalg.generic {{.*}} library_call = "adjit_gemm_f32"} ins(%[[SCALED]], %arg2 : tensor<256x64xf32>, tensor<256x128xf32>) outs(%arg0 : tensor<64x128xf32>)
// FUSED-NOT:   linalg.generic
// CALL-LABEL:  func.func @sgd_update
// CALL-SAME:   (%[[W:.*]]: memref<64x128xf32>, %{{.*}}: memref<256x64xf32>, %{{.*}}: memref<256x128xf32>, %{{.*}}: memref<64x128xf32>)
// CALL:        %[[ACCUMULATE:.*]] = arith.constant 1 : i64
// CALL:        call @adjit_gemm_f32({{.*}}, %[[ACCUMULATE]])
func.func @sgd_update(%w: tensor<64x128xf32> {adjit.aliasing_output = 0 : i64}, %x: tensor<256x64xf32>, %dy: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %g = adjit.dot_general %x, %dy, batch = [] x [], contract = [0] x [0] : (tensor<256x64xf32>, tensor<256x128xf32>) -> tensor<64x128xf32>
  %lr = adjit.constant dense<0.1> : tensor<64x128xf32>
  %s = adjit.mul %lr, %g : tensor<64x128xf32>
  %n = adjit.sub %w, %s : tensor<64x128xf32>
  return %n : tensor<64x128xf32>
}

// -----

// The accumulator is computed after the product (a backward pass
// recomputes a value between them): the GEMM moves down to the sum, its
// only user, where the accumulator exists, and accumulates onto it.
// FUSED-LABEL: func.func @accumulator_after_product
// FUSED:       %[[ACC:.*]] = scf.for
// FUSED:       math.tanh
// FUSED:       linalg.generic {{.*}} library_call = "adjit_gemm_f32"} ins(%arg0, %arg1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%[[ACC]] : tensor<64x64xf32>)
// FUSED:       return
func.func @accumulator_after_product(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %p = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %acc = adjit.tanh %c : tensor<64x64xf32>
  %s = adjit.add %acc, %p : tensor<64x64xf32>
  return %s, %acc : tensor<64x64xf32>, tensor<64x64xf32>
}
