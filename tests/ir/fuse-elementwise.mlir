// Elementwise fusion computes every element once, except cheap producers
// that read materialized values: a transcendental with several users is
// computed once and read by each of them, never recomputed per consumer.
// RUN: adjit-opt %s -split-input-file --adjit-fuse-elementwise --mlir-print-local-scope | FileCheck %s

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
