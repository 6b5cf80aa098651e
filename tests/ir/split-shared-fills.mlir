// adjit-split-shared-fills: a fill that starts several ops (CSE merged
// them) is cloned before each op that uses it as its init, so each output
// is filled in place instead of copied from one shared buffer; other uses
// keep the original.
// RUN: adjit-opt %s -split-input-file --adjit-split-shared-fills | FileCheck %s

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_inits
// CHECK-NOT:   linalg.fill
// CHECK:       %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8xf32>)
// CHECK-NEXT:  %[[A:.*]] = linalg.generic {{.*}} outs(%[[Z1]] : tensor<8xf32>)
// CHECK:       %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8xf32>)
// CHECK-NEXT:  %[[B:.*]] = linalg.generic {{.*}} outs(%[[Z2]] : tensor<8xf32>)
// CHECK-NOT:   linalg.fill
// CHECK:       return %[[A]], %[[B]]
func.func @two_inits(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// A use that is not an init (an input, a return) keeps the original fill.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @kept_for_input
// CHECK:       %[[Z:.*]] = linalg.fill
// CHECK:       %[[Z1:.*]] = linalg.fill
// CHECK-NEXT:  linalg.generic {{.*}} ins(%[[Z]] : tensor<8xf32>) outs(%[[Z1]] : tensor<8xf32>)
func.func @kept_for_input(%x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a : tensor<8xf32>
}
