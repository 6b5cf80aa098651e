// The GPU's second fusion (`recompute`, after adjit-tile-and-fuse-rows):
// outside row groups every elementwise producer is recomputed in each
// consumer; inside one (an scf.forall), a row's values stay in the cache,
// so a shared transcendental is computed once, and a cheap value is
// recomputed only when it reads arguments and per-row scalars (x - mean),
// not another of the row's temporaries.
// RUN: adjit-opt %s --adjit-fuse-elementwise=recompute=true --mlir-print-local-scope | FileCheck %s

#row = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @row_group
// CHECK: scf.forall
// x - mean, recomputed in its two consumers:
// CHECK-COUNT-2: arith.subf
// tanh of the row, once; 2 tanh(...), which reads the row's temporary, once
// for its two consumers:
// CHECK: math.tanh
// CHECK: arith.mulf %{{[a-z0-9_]+}}, %cst
// CHECK-NOT: math.tanh
// CHECK-NOT: arith.mulf %{{[a-z0-9_]+}}, %cst
// CHECK: scf.forall.in_parallel
// Outside the row group, tanh(x) is recomputed in both of its consumers.
// CHECK-COUNT-2: math.tanh
func.func @row_group(%x: tensor<4x64xf32>, %out: tensor<4x64xf32>, %sums: tensor<4xf32>)
    -> (tensor<4x64xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %r:2 = scf.forall (%i) in (4) shared_outs(%o = %out, %s = %sums) -> (tensor<4x64xf32>, tensor<4xf32>) {
    %x_row = tensor.extract_slice %x[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<1x64xf32>
    %e1 = tensor.empty() : tensor<1xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
    %mean = linalg.generic {indexing_maps = [#row, #scalar], iterator_types = ["parallel", "reduction"]}
        ins(%x_row : tensor<1x64xf32>) outs(%z1 : tensor<1xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %acc, %in : f32
      linalg.yield %a : f32
    } -> tensor<1xf32>
    %e64 = tensor.empty() : tensor<1x64xf32>
    %centered = linalg.generic {indexing_maps = [#row, #scalar, #row], iterator_types = ["parallel", "parallel"]}
        ins(%x_row, %mean : tensor<1x64xf32>, tensor<1xf32>) outs(%e64 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %m: f32, %_: f32):
      %c = arith.subf %in, %m : f32
      linalg.yield %c : f32
    } -> tensor<1x64xf32>
    %var = linalg.generic {indexing_maps = [#row, #scalar], iterator_types = ["parallel", "reduction"]}
        ins(%centered : tensor<1x64xf32>) outs(%z1 : tensor<1xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %sq = arith.mulf %in, %in : f32
      %a = arith.addf %acc, %sq : f32
      linalg.yield %a : f32
    } -> tensor<1xf32>
    %t = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
        ins(%centered : tensor<1x64xf32>) outs(%e64 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %_: f32):
      %th = math.tanh %in : f32
      linalg.yield %th : f32
    } -> tensor<1x64xf32>
    %twice = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
        ins(%t : tensor<1x64xf32>) outs(%e64 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %_: f32):
      %d = arith.mulf %in, %two : f32
      linalg.yield %d : f32
    } -> tensor<1x64xf32>
    %total = linalg.generic {indexing_maps = [#row, #scalar, #scalar], iterator_types = ["parallel", "reduction"]}
        ins(%twice, %var : tensor<1x64xf32>, tensor<1xf32>) outs(%z1 : tensor<1xf32>) {
    ^bb0(%in: f32, %v: f32, %acc: f32):
      %p = arith.mulf %in, %v : f32
      %a = arith.addf %acc, %p : f32
      linalg.yield %a : f32
    } -> tensor<1xf32>
    %o_row = tensor.extract_slice %o[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<1x64xf32>
    %y = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]}
        ins(%twice, %t : tensor<1x64xf32>, tensor<1x64xf32>) outs(%o_row : tensor<1x64xf32>) {
    ^bb0(%in: f32, %u: f32, %_: f32):
      %m = arith.mulf %in, %u : f32
      linalg.yield %m : f32
    } -> tensor<1x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[%i, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<4x64xf32>
      tensor.parallel_insert_slice %total into %s[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  %e = tensor.empty() : tensor<4x64xf32>
  %tx = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %_: f32):
    %th = math.tanh %in : f32
    linalg.yield %th : f32
  } -> tensor<4x64xf32>
  %p1 = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%tx : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %_: f32):
    %a = arith.addf %in, %two : f32
    linalg.yield %a : f32
  } -> tensor<4x64xf32>
  %p2 = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%tx : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %_: f32):
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r#0, %r#1, %p1, %p2 : tensor<4x64xf32>, tensor<4xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}
