// adjit-lower-to-linalg's parallel-rows (on a CPU): argsort's rows and
// search_sorted's values run in parallel chunks where there is enough work;
// without it (on a GPU) in one loop.
// RUN: adjit-opt %s --adjit-lower-to-linalg="parallel-rows=true" | FileCheck %s --check-prefix=PARALLEL
// RUN: adjit-opt %s --adjit-lower-to-linalg | FileCheck %s --check-prefix=SERIAL
// SERIAL-LABEL: func.func @argsort_parallel
// SERIAL-NOT: scf.forall
// SERIAL: return

// Rows with enough comparisons run in parallel chunks: 64 rows of 1024
// (64 * 1024 * 10 comparisons) in 4 chunks of 16 rows (at least 131072
// comparisons each, a divisor of the rows), each sorting its slice of the
// keys into its slices of the order and the values; search_sorted's
// 65536 values of 8 searches each in 4 chunks too, 8 values in one loop.
// PARALLEL-LABEL: func.func @argsort_parallel
// PARALLEL: scf.forall (%[[C:.*]]) in (4) shared_outs(%[[ORDER:.*]] = %{{.*}}, %[[VALUES:.*]] = %{{.*}}) -> (tensor<64x1024xi32>, tensor<64x1024xf32>)
// PARALLEL: %[[FIRST:.*]] = arith.muli %[[C]], %{{.*}} : index
// PARALLEL: tensor.extract_slice %arg0[%[[FIRST]], 0] [16, 1024] [1, 1] : tensor<64x1024xf32> to tensor<16x1024xf32>
// PARALLEL: tensor.extract_slice %[[ORDER]][%[[FIRST]], 0] [16, 1024] [1, 1]
// PARALLEL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<16x1024xi32>, tensor<16x1024xf32>)
// PARALLEL: scf.forall.in_parallel
// PARALLEL: tensor.parallel_insert_slice %{{.*}} into %[[ORDER]][%[[FIRST]], 0] [16, 1024] [1, 1]
// PARALLEL: tensor.parallel_insert_slice %{{.*}} into %[[VALUES]][%[[FIRST]], 0] [16, 1024] [1, 1]
// PARALLEL: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<65536xi32>)
// PARALLEL: scf.forall.in_parallel
// PARALLEL-NOT: scf.forall
// PARALLEL: return
func.func @argsort_parallel(%x: tensor<64x1024xf32>, %a: tensor<255xf32>, %v: tensor<65536xf32>, %w: tensor<8xf32>) -> (tensor<64x1024xi32>, tensor<65536xi32>, tensor<8xi32>) {
  %0 = adjit.argsort %x : (tensor<64x1024xf32>) -> tensor<64x1024xi32>
  %1 = adjit.search_sorted %a, %v : (tensor<255xf32>, tensor<65536xf32>) -> tensor<65536xi32>
  %2 = adjit.search_sorted %a, %w : (tensor<255xf32>, tensor<8xf32>) -> tensor<8xi32>
  return %0, %1, %2 : tensor<64x1024xi32>, tensor<65536xi32>, tensor<8xi32>
}
