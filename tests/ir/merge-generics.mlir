// Consecutive generics over the same loops merge when the second reads the
// first's values where they are computed; outputs only the merged generic
// read are dropped.
// RUN: adjit-opt %s -split-input-file --adjit-merge-generics --mlir-print-local-scope | FileCheck %s
// With uniform-iterators (the cuda target) only pairs whose merged loops all
// reduce or all stay parallel merge, a reduction only over 32-bit values.
// RUN: adjit-opt %s -split-input-file --adjit-merge-generics=uniform-iterators=1 --mlir-print-local-scope | FileCheck %s --check-prefix=GPU

// tanh(x) feeds a row sum and a scaled copy: one generic, reduction over d1,
// yields the sums and the copy; tanh(x) itself is no longer written.
// CHECK-LABEL: func.func @row_sum_and_scale
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[M:.*]]:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4x8xf32>)
// CHECK-COUNT-1: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return %[[M]]#0, %[[M]]#1
// A row sum merged with an elementwise sibling would lose a GPU's
// parallelism over the rows' elements: all three stay.
// GPU-LABEL: func.func @row_sum_and_scale
// GPU-COUNT-3: linalg.generic
func.func @row_sum_and_scale(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s0 = tensor.empty() : tensor<4xf32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%t : tensor<4x8xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %sum, %scaled : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Not merged: a sum over the rows is complete only after the loop, and a
// transposed read needs another point's value.
// CHECK-LABEL: func.func @not_where_computed
// CHECK-COUNT-3: linalg.generic
// CHECK: return
func.func @not_where_computed(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<4xf32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x4xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %centered = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x4xf32>, tensor<4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %transposed = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%centered : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %centered, %transposed : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// W1's shape on a GPU, where a full sum and an elementwise gradient over the same
// x merge into one generic that reduces over its only loop and writes the
// gradient at every point: one kernel, one read of x.
// CHECK-LABEL: func.func @sum_and_gradient
// GPU-LABEL: func.func @sum_and_gradient
// GPU: %[[M:.*]]:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["reduction"]}
// GPU-COUNT-2: math.tanh
// GPU-NOT: linalg.generic
// GPU: return %[[M]]#0, %[[M]]#1
func.func @sum_and_gradient(%x: tensor<4096xf32>) -> (tensor<f32>, tensor<4096xf32>) {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<f32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<4096xf32>) outs(%s : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    %r = arith.addf %out, %t : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<4096xf32>
  %grad = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4096xf32>) outs(%e : tensor<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    %d = arith.mulf %t, %t : f32
    linalg.yield %d : f32
  } -> tensor<4096xf32>
  return %sum, %grad : tensor<f32>, tensor<4096xf32>
}

// -----

// Two column sums of the same inputs (W3's dgamma and dbeta): the same
// iterators, so the merged generic keeps the GPU's column form and reads x
// and c once.
// GPU-LABEL: func.func @two_column_sums
// GPU: %[[M:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%arg0, %arg1 : tensor<64x32xf32>, tensor<64x32xf32>)
// GPU-NOT: linalg.generic
// GPU: return %[[M]]#0, %[[M]]#1
func.func @two_column_sums(%x: tensor<64x32xf32>, %c: tensor<64x32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<32xf32>
  %s = linalg.fill ins(%zero : f32) outs(%s0 : tensor<32xf32>) -> tensor<32xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x, %c : tensor<64x32xf32>, tensor<64x32xf32>) outs(%s : tensor<32xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %r = arith.addf %out, %p : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%c : tensor<64x32xf32>) outs(%s : tensor<32xf32>) {
  ^bb0(%w: f32, %out: f32):
    %r = arith.addf %out, %w : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %a, %b : tensor<32xf32>, tensor<32xf32>
}

// -----

// The same in f64: the GPU reduces f64 on one thread, so merging would run
// the gradient there too; they stay apart.
// GPU-LABEL: func.func @f64_sum_and_gradient
// GPU-COUNT-2: linalg.generic
func.func @f64_sum_and_gradient(%x: tensor<4096xf64>) -> (tensor<f64>, tensor<4096xf64>) {
  %zero = arith.constant 0.0 : f64
  %s0 = tensor.empty() : tensor<f64>
  %s = linalg.fill ins(%zero : f64) outs(%s0 : tensor<f64>) -> tensor<f64>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<4096xf64>) outs(%s : tensor<f64>) {
  ^bb0(%in: f64, %out: f64):
    %r = arith.addf %out, %in : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %e = tensor.empty() : tensor<4096xf64>
  %grad = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4096xf64>) outs(%e : tensor<4096xf64>) {
  ^bb0(%in: f64, %out: f64):
    %d = arith.mulf %in, %in : f64
    linalg.yield %d : f64
  } -> tensor<4096xf64>
  return %sum, %grad : tensor<f64>, tensor<4096xf64>
}
