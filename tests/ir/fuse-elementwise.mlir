// Elementwise fusion computes every element once, except cheap producers
// that read materialized values: a transcendental with several users is
// computed once and read by each of them, never recomputed per consumer.
// RUN: adjit-opt %s -split-input-file --adjit-fuse-elementwise=vector-bits=512 --mlir-print-local-scope | FileCheck %s

// tanh(x) feeds three consumers (one a reduction): it is computed once.
// CHECK-LABEL: func.func @shared_transcendental
// CHECK: %[[TANH:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-NOT: math.tanh
// CHECK: linalg.generic {{.*}} ins(%[[TANH]] :
// CHECK: return
func.func @shared_transcendental(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %s_e = tensor.empty() : tensor<f32>
  %s = linalg.fill ins(%zero : f32) outs(%s_e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%t : tensor<64xf32>) outs(%s : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t, %sum : tensor<64xf32>, tensor<f32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %total: f32, %out: f32):
    %r = arith.divf %in, %total : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %a, %b : tensor<64xf32>, tensor<64xf32>
}

// -----

// A cheap producer that reads an argument is recomputed in each consumer
// instead of being written and read back.
// CHECK-LABEL: func.func @cheap_recomputed
// CHECK-COUNT-2: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: linalg.generic {{.*}} -> tensor<64xf32>{{$}}
func.func @cheap_recomputed(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
  %e = tensor.empty() : tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %s_e = tensor.empty() : tensor<f32>
  %s = linalg.fill ins(%zero : f32) outs(%s_e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%sq : tensor<64xf32>) outs(%s : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %plus = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sq : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %in, %one : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %plus, %sum : tensor<64xf32>, tensor<f32>
}

// -----

// log_softmax's `x - max` over rows of 10 (shorter than a register: 16 f32
// at 512 bits) reads a reduction's result once per row: it is recomputed
// in both consumers, so that the sum of exps has no full-size result to
// write and can run across rows.
// CHECK-LABEL: func.func @per_row_value_of_short_rows
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0, %[[MAX]] : tensor<4x10xf32>, tensor<4xf32>) outs({{.*}} : tensor<4xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %[[MAX]], {{.*}} : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-COUNT-2: arith.subf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @per_row_value_of_short_rows(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %row = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x10xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m0 = linalg.fill ins(%lowest : f32) outs(%row : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x10xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x10xf32>, tensor<4xf32>) outs(%full : tensor<4x10xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x10xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%row : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%shifted : tensor<4x10xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %r = arith.addf %out, %e : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %result = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%shifted, %sum : tensor<4x10xf32>, tensor<4xf32>) outs(%full : tensor<4x10xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %r = arith.subf %in, %l : f32
    linalg.yield %r : f32
  } -> tensor<4x10xf32>
  return %result : tensor<4x10xf32>
}

// -----

// The same over rows of 64: `x - max` is computed once, a row's temporary
// that the consumers read (recomputing it would cost more than reading it
// back from the cache).
// CHECK-LABEL: func.func @per_row_value_of_long_rows
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[SHIFTED:.*]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]] : tensor<4x64xf32>, tensor<4xf32>) outs({{.*}} : tensor<4x64xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SHIFTED]] : tensor<4x64xf32>) outs({{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SHIFTED]], {{.*}} : tensor<4x64xf32>, tensor<4xf32>)
func.func @per_row_value_of_long_rows(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %row = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x64xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m0 = linalg.fill ins(%lowest : f32) outs(%row : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x64xf32>, tensor<4xf32>) outs(%full : tensor<4x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %r = arith.subf %in, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%row : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%shifted : tensor<4x64xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %r = arith.addf %out, %e : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %result = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%shifted, %sum : tensor<4x64xf32>, tensor<4xf32>) outs(%full : tensor<4x64xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %r = arith.subf %in, %l : f32
    linalg.yield %r : f32
  } -> tensor<4x64xf32>
  return %result : tensor<4x64xf32>
}
