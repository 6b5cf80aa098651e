// On a CPU (matrix-vector-bits, the vector width), a batch of small
// matrices runs a matrix per vector lane: the batch, padded with zero
// matrices to whole groups of 16 (f32) or 8 (f64), is rearranged to
// [groups, rows, cols, lanes]. A group's matrices are loaded into a
// vector<rows x cols x lanes> (an entry of every matrix per transfer),
// factored in registers, and stored after the last load.
// RUN: adjit-opt %s --adjit-lower-to-linalg="matrix-vector-bits=512" -split-input-file | FileCheck %s
// Without the option (the GPU), one matrix at a time.
// RUN: adjit-opt %s --adjit-lower-to-linalg -split-input-file | FileCheck %s --check-prefix=SCALAR

// CHECK-LABEL: func.func @cholesky_lanes
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[12, 0, 0]
// CHECK: %[[GROUPS:.*]] = tensor.expand_shape %{{.*}} into tensor<2x16x3x3xf32>
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[GROUPS]] : tensor<2x16x3x3xf32>) outs(%{{.*}} : tensor<2x3x3x16xf32>)
// CHECK: %[[R:.*]] = scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<2x3x3x16xf32>)
// CHECK-NOT: tensor.extract
// CHECK: vector.transfer_read %[[T]][%[[G]], %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<2x3x3x16xf32>, vector<16xf32>
// CHECK: vector.insert %{{.*}}, %{{.*}} [0, 0] : vector<16xf32> into vector<3x3x16xf32>
// CHECK: math.sqrt %{{.*}} : vector<16xf32>
// CHECK: arith.cmpf uno, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: scf.if
// CHECK-NOT: vector.transfer_read
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[G]], %{{.*}}, %{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<16xf32>, tensor<2x3x3x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<2x3x3x16xf32>) outs(%{{.*}} : tensor<2x16x3x3xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [20, 3, 3] [1, 1, 1] : tensor<32x3x3xf32> to tensor<20x3x3xf32>
// SCALAR-LABEL: func.func @cholesky_lanes
// SCALAR-NOT: vector.
// SCALAR: tensor.extract
func.func @cholesky_lanes(%a: tensor<4x5x3x3xf32>) -> tensor<4x5x3x3xf32> {
  %0 = adjit.cholesky %a : tensor<4x5x3x3xf32>
  return %0 : tensor<4x5x3x3xf32>
}

// -----

// LU's pivot rows differ by matrix: a vector of row indices, and rows
// exchanged by lane-wise selects.
// CHECK-LABEL: func.func @solve_lanes
// CHECK: scf.for {{.*}} -> (tensor<2x4x4x8xf64>, tensor<2x4x2x8xf64>)
// CHECK: vector.broadcast %{{.*}} : index to vector<8xindex>
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : vector<8xindex>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf64>
func.func @solve_lanes(%a: tensor<9x4x4xf64>, %b: tensor<9x4x2xf64>) -> tensor<9x4x2xf64> {
  %0 = adjit.solve %a, %b : (tensor<9x4x4xf64>, tensor<9x4x2xf64>) -> tensor<9x4x2xf64>
  return %0 : tensor<9x4x2xf64>
}

// -----

// slogdet in lanes: signs flip per lane where its matrix's rows were
// exchanged, and the logs are vector code; each matrix's (sign, log) pair
// is a 1x2 matrix of the groups.
// CHECK-LABEL: func.func @slogdet_lanes
// CHECK: scf.for {{.*}} -> (tensor<2x3x3x16xf32>, tensor<2x1x2x16xf32>)
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : vector<16xindex>
// CHECK: math.log %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<16xf32>, tensor<2x1x2x16xf32>
func.func @slogdet_lanes(%a: tensor<20x3x3xf32>) -> (tensor<20xf32>, tensor<20xf32>) {
  %0:2 = adjit.slogdet %a : tensor<20x3x3xf32>
  return %0#0, %0#1 : tensor<20xf32>, tensor<20xf32>
}

// -----

// lu in lanes: each lane's pivot row, a vector of indices, goes into the
// pivots' column as floats; the pivots and the permutation are matrices
// of the groups like the factors.
// CHECK-LABEL: func.func @lu_lanes
// CHECK: scf.for {{.*}} -> (tensor<2x4x3x16xf32>, tensor<2x3x1x16xf32>, tensor<2x4x1x16xf32>)
// CHECK: %[[ROWS:.*]] = arith.index_cast %{{.*}} : vector<16xindex> to vector<16xi32>
// CHECK: arith.sitofp %[[ROWS]] : vector<16xi32> to vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<16xf32>, tensor<2x3x1x16xf32>
// SCALAR-LABEL: func.func @lu_lanes
// SCALAR-NOT: vector.
// SCALAR: tensor.extract
func.func @lu_lanes(%a: tensor<20x4x3xf32>) -> (tensor<20x4x3xf32>, tensor<20x3xi32>, tensor<20x4xi32>) {
  %0:3 = adjit.lu %a : tensor<20x4x3xf32>
  return %0#0, %0#1, %0#2 : tensor<20x4x3xf32>, tensor<20x3xi32>, tensor<20x4xi32>
}

// -----

// eigh in lanes: the sweeps go on while any matrix of the group is not
// yet diagonal (a reduction of the lanes' tests).
// CHECK-LABEL: func.func @eigh_lanes
// CHECK: scf.while {{.*}} : (vector<3x3x8xf64>, vector<3x3x8xf64>, index)
// CHECK: %[[TESTS:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: vector.reduction <or>, %[[TESTS]] : vector<8xi1> into i1
// CHECK: scf.condition
// CHECK: math.sqrt %{{.*}} : vector<8xf64>
func.func @eigh_lanes(%a: tensor<9x3x3xf64>) -> (tensor<9x3xf64>, tensor<9x3x3xf64>) {
  %0:2 = adjit.eigh %a : tensor<9x3x3xf64>
  return %0#0, %0#1 : tensor<9x3xf64>, tensor<9x3x3xf64>
}

// -----

// qr in lanes: every loop unrolled, the reflections' norms and signs
// vector code, Q and R stored per lane. Only the operand is rearranged
// into groups (one pad); the zeros that the taus, Q and R start from are
// filled in the groups' layout.
// CHECK-LABEL: func.func @qr_lanes
// CHECK: tensor.pad
// CHECK-NOT: tensor.pad
// CHECK: linalg.fill {{.*}} -> tensor<2x3x1x16xf32>
// CHECK: linalg.fill {{.*}} -> tensor<2x4x3x16xf32>
// CHECK: linalg.fill {{.*}} -> tensor<2x3x3x16xf32>
// CHECK: scf.for {{.*}} -> (tensor<2x4x3x16xf32>, tensor<2x3x1x16xf32>, tensor<2x4x3x16xf32>, tensor<2x3x3x16xf32>)
// CHECK-NOT: scf.for
// CHECK: math.sqrt %{{.*}} : vector<16xf32>
// CHECK: math.copysign %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<16xf32>, tensor<2x3x3x16xf32>
// SCALAR-LABEL: func.func @qr_lanes
// SCALAR-NOT: vector.
// SCALAR: return
func.func @qr_lanes(%a: tensor<20x4x3xf32>) -> (tensor<20x4x3xf32>, tensor<20x3x3xf32>) {
  %0:2 = adjit.qr %a : tensor<20x4x3xf32>
  return %0#0, %0#1 : tensor<20x4x3xf32>, tensor<20x3x3xf32>
}

// -----

// svd in lanes: the sweeps go on while a rotation was not negligible in any
// matrix of the group (a reduction of the lanes' flags).
// CHECK-LABEL: func.func @svd_lanes
// CHECK: scf.while {{.*}} : (vector<2x4x8xf64>, vector<2x2x8xf64>, index, i1)
// CHECK: arith.ori %{{.*}}, %{{.*}} : vector<8xi1>
// CHECK: vector.reduction <or>, %{{.*}} : vector<8xi1> into i1
// CHECK: scf.yield
func.func @svd_lanes(%a: tensor<9x4x2xf64>) -> (tensor<9x4x2xf64>, tensor<9x2xf64>, tensor<9x2x2xf64>) {
  %0:3 = adjit.svd %a : tensor<9x4x2xf64>
  return %0#0, %0#1, %0#2 : tensor<9x4x2xf64>, tensor<9x2xf64>, tensor<9x2x2xf64>
}

// -----

// Fewer matrices than lanes still run in lanes, one group padded with zero
// matrices (their unrolled code in tensors would take seconds to
// bufferize); more than 8 rows run one matrix at a time.
// CHECK-LABEL: func.func @few_or_large
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[1, 0, 0]
// CHECK: vector.transfer_read {{.*}} : tensor<1x3x3x16xf32>, vector<16xf32>
// CHECK: tensor.extract %{{.*}} : tensor<64x9x9xf32>
// CHECK: return
// SCALAR-LABEL: func.func @few_or_large
// SCALAR-NOT: vector.
// SCALAR: return
func.func @few_or_large(%few: tensor<15x3x3xf32>, %large: tensor<64x9x9xf32>) -> (tensor<15x3x3xf32>, tensor<64x9x9xf32>) {
  %0 = adjit.cholesky %few : tensor<15x3x3xf32>
  %1 = adjit.cholesky %large : tensor<64x9x9xf32>
  return %0, %1 : tensor<15x3x3xf32>, tensor<64x9x9xf32>
}

// -----

// Enough work (256 groups of 16 6x6 matrices) runs in parallel chunks of
// whole groups, as many as divide the groups and each worth 131072
// multiply-adds: 4 chunks of 64 groups.
// CHECK-LABEL: func.func @chunks
// CHECK: %[[R:.*]] = scf.forall (%[[C:.*]]) in (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<256x6x6x16xf32>)
// CHECK: %[[FIRST:.*]] = arith.muli %[[C]], %{{.*}} : index
// CHECK: tensor.extract_slice %{{.*}}[%[[FIRST]], 0, 0, 0] [64, 6, 6, 16] [1, 1, 1, 1] : tensor<256x6x6x16xf32> to tensor<64x6x6x16xf32>
// CHECK: %[[DONE:.*]] = scf.for {{.*}} -> (tensor<64x6x6x16xf32>)
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[DONE]] into %[[OUT]][%[[FIRST]], 0, 0, 0] [64, 6, 6, 16] [1, 1, 1, 1]
func.func @chunks(%a: tensor<4096x6x6xf32>) -> tensor<4096x6x6xf32> {
  %0 = adjit.cholesky %a : tensor<4096x6x6xf32>
  return %0 : tensor<4096x6x6xf32>
}
