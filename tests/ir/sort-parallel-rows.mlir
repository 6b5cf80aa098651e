// adjit-lower-to-linalg's parallel-rows (on a CPU): argsort's rows run in
// parallel chunks where there are enough comparisons; without it (on a
// GPU) in one loop.
// RUN: adjit-opt %s --adjit-lower-to-linalg="parallel-rows=true" | FileCheck %s --check-prefix=PARALLEL
// RUN: adjit-opt %s --adjit-lower-to-linalg | FileCheck %s --check-prefix=SERIAL
// SERIAL-LABEL: func.func @argsort_parallel
// SERIAL-NOT: scf.forall
// SERIAL: return

// 64 rows of 1024 (64 * 1024 * 10 comparisons) in 4 chunks of 16 rows
// (at least 131072 comparisons each, a divisor of the rows), each sorting
// its slice of the keys into its slices of the order and the values; 4
// rows of 1024 in one loop.
// PARALLEL-LABEL: func.func @argsort_parallel
// PARALLEL: scf.forall (%[[C:.*]]) in (4) shared_outs(%[[ORDER:.*]] = %{{.*}}, %[[VALUES:.*]] = %{{.*}}) -> (tensor<64x1024xi32>, tensor<64x1024xf32>)
// PARALLEL: %[[FIRST:.*]] = arith.muli %[[C]], %{{.*}} : index
// PARALLEL: tensor.extract_slice %arg0[%[[FIRST]], 0] [16, 1024] [1, 1] : tensor<64x1024xf32> to tensor<16x1024xf32>
// PARALLEL: tensor.extract_slice %[[ORDER]][%[[FIRST]], 0] [16, 1024] [1, 1]
// PARALLEL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<16x1024xi32>, tensor<16x1024xf32>)
// PARALLEL: scf.forall.in_parallel
// PARALLEL: tensor.parallel_insert_slice %{{.*}} into %[[ORDER]][%[[FIRST]], 0] [16, 1024] [1, 1]
// PARALLEL: tensor.parallel_insert_slice %{{.*}} into %[[VALUES]][%[[FIRST]], 0] [16, 1024] [1, 1]
// PARALLEL-NOT: scf.forall
// PARALLEL: return
func.func @argsort_parallel(%x: tensor<64x1024xf32>, %y: tensor<4x1024xf32>) -> (tensor<64x1024xi32>, tensor<4x1024xi32>) {
  %0 = adjit.argsort %x : (tensor<64x1024xf32>) -> tensor<64x1024xi32>
  %1 = adjit.argsort %y : (tensor<4x1024xf32>) -> tensor<4x1024xi32>
  return %0, %1 : tensor<64x1024xi32>, tensor<4x1024xi32>
}
