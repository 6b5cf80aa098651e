// adjit-fuse-elementwise rewrites a consumer in place when the producer has
// one result: the producer's body is moved in (single use) or copied (other
// users keep the producer). The fused generic is the one upstream's fusion
// makes: the second RUN line gives the single-use chain to upstream's pass
// and checks the same operands, maps and body order.
// RUN: adjit-opt %s -split-input-file --adjit-fuse-elementwise --mlir-print-local-scope | FileCheck %s
// RUN: mlir-opt %s -split-input-file --linalg-fuse-elementwise-ops --mlir-print-local-scope | FileCheck %s --check-prefix=CHAIN

// exp of a transposed input, then an add: the producer's input is indexed
// through the composed maps (here the identity), before the consumer's
// other input's ops in the body.
// CHECK-LABEL: func.func @chain
// CHAIN-LABEL: func.func @chain
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHAIN: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[Y:[a-z_0-9]+]]: f32, %[[X:[a-z_0-9]+]]: f32, %{{.*}}: f32):
// CHAIN-NEXT: ^bb0(%[[Y:[a-z_0-9]+]]: f32, %[[X:[a-z_0-9]+]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]]
// CHAIN-NEXT: %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[Y]], %[[E]]
// CHAIN-NEXT: %[[S:.*]] = arith.addf %[[Y]], %[[E]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHAIN-NEXT: linalg.yield %[[S]]
// CHECK-NOT: linalg.generic
// CHAIN-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %pe = tensor.empty() : tensor<8x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%pe : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y, %p : tensor<4x8xf32>, tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A splat read by two consumers is copied into each (its yielded constant
// replaces the input), and the producer goes once no one reads it.
// CHECK-LABEL: func.func @shared_splat
// CHAIN-LABEL: func.func @shared_splat
// CHECK-NOT: linalg.generic {{.*}} outs(%{{.*}} : tensor<16xf32>) {
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<16xf32>)
// CHECK: arith.mulf %{{.*}}, %[[C:cst.*]] : f32
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<16xf32>)
// CHECK: arith.addf %{{.*}}, %[[C]] : f32
// CHECK-NOT: linalg.generic
func.func @shared_splat(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %splat = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%out: f32):
    linalg.yield %c : f32
  } -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %splat : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %splat : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %m, %s : tensor<16xf32>, tensor<16xf32>
}
