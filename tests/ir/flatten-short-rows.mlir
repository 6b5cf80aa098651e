// adjit-flatten-short-rows: an elementwise generic whose operands are all
// read and written through the identity (or are 0-d), over rows shorter
// than a vector step (32 f32 at 512 bits), runs over its operands
// collapsed to one dimension. Broadcast operands, long rows, slices of a
// row's first columns and loop indices keep the generic as it is.
// RUN: adjit-opt %s --adjit-flatten-short-rows=vector-bits=512 -split-input-file --mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @points
// CHECK-SAME: (%[[P:.*]]: tensor<1000x3xf32>, %[[V:.*]]: tensor<1000x3xf32>, %[[DT:.*]]: tensor<f32>)
// CHECK-DAG: %[[FP:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1]] : tensor<1000x3xf32> into tensor<3000xf32>
// CHECK-DAG: %[[FV:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1]] : tensor<1000x3xf32> into tensor<3000xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[FP]], %[[FV]], %[[DT]] : tensor<3000xf32>, tensor<3000xf32>, tensor<f32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [1000, 3] : tensor<3000xf32> into tensor<1000x3xf32>
// CHECK: return %[[E]]
func.func @points(%p: tensor<1000x3xf32>, %v: tensor<1000x3xf32>, %dt: tensor<f32>) -> tensor<1000x3xf32> {
  %e = tensor.empty() : tensor<1000x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %v, %dt : tensor<1000x3xf32>, tensor<1000x3xf32>, tensor<f32>) outs(%e : tensor<1000x3xf32>) {
  ^bb0(%a: f32, %b: f32, %t: f32, %out: f32):
    %m = arith.mulf %b, %t : f32
    %s = arith.addf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<1000x3xf32>
  return %r : tensor<1000x3xf32>
}

// -----

// A block of whole rows (a row group's slice) collapses; the first 3 of 6
// columns would not be contiguous, and a per-row value is a broadcast.
// CHECK-LABEL: func.func @slices_and_broadcasts
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<64x6xf32> into tensor<384xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<64x3xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<100x6xf32>, tensor<100xf32>)
func.func @slices_and_broadcasts(%x: tensor<100x6xf32>, %row: tensor<100xf32>)
    -> (tensor<64x6xf32>, tensor<64x3xf32>, tensor<100x6xf32>) {
  %block = tensor.extract_slice %x[8, 0] [64, 6] [1, 1] : tensor<100x6xf32> to tensor<64x6xf32>
  %e = tensor.empty() : tensor<64x6xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%block : tensor<64x6xf32>) outs(%e : tensor<64x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<64x6xf32>
  %columns = tensor.extract_slice %x[8, 0] [64, 3] [1, 1] : tensor<100x6xf32> to tensor<64x3xf32>
  %e3 = tensor.empty() : tensor<64x3xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%columns : tensor<64x3xf32>) outs(%e3 : tensor<64x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<64x3xf32>
  %e100 = tensor.empty() : tensor<100x6xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %row : tensor<100x6xf32>, tensor<100xf32>) outs(%e100 : tensor<100x6xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %s = arith.subf %in, %r : f32
    linalg.yield %s : f32
  } -> tensor<100x6xf32>
  return %a, %b, %c : tensor<64x6xf32>, tensor<64x3xf32>, tensor<100x6xf32>
}

// -----

// Rows of 32 f32 are a whole vector step; a body that reads a loop index
// would need it split back into row and column.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tensor.collapse_shape
func.func @kept(%x: tensor<8x32xf32>, %y: tensor<8x4xi64>) -> (tensor<8x32xf32>, tensor<8x4xi64>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x32xf32>
  %ei = tensor.empty() : tensor<8x4xi64>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x4xi64>) outs(%ei : tensor<8x4xi64>) {
  ^bb0(%in: i64, %out: i64):
    %j = linalg.index 1 : index
    %c = arith.index_cast %j : index to i64
    %s = arith.addi %in, %c : i64
    linalg.yield %s : i64
  } -> tensor<8x4xi64>
  return %a, %b : tensor<8x32xf32>, tensor<8x4xi64>
}
