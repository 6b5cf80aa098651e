// On a GPU (`gpu`), a row group runs in thread blocks: a block of rows is
// one row, the chunks as many as divide the rows up to `max-chunks` (the
// thread blocks of adjit-map-to-gpu). Groups without a reduction over a
// warp's worth of each row's elements, or whose rows have no divisor near
// `max-chunks`, stay as they are (a kernel per generic).
// RUN: adjit-opt %s -split-input-file --adjit-tile-and-fuse-rows="gpu=true max-chunks=64" --canonicalize --mlir-print-local-scope | FileCheck %s

// 96 rows: 48 chunks (the largest divisor up to 64) of 2 rows, one at a
// time; the loss's and the column sums' partials are combined after.
// The row sums' initial zeros are filled row by row: no fill of all 96
// rows (on a GPU, a launch of its own) is left.
// CHECK-LABEL: func.func @layernorm
// CHECK-NOT: linalg.fill {{.*}} -> tensor<96xf32>
// CHECK: scf.forall (%[[CHUNK:.*]]) in (48) shared_outs({{.*}}) -> (tensor<96x256xf32>, tensor<48x16xf32>, tensor<48x256xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK: tensor.extract_slice %{{.*}}[{{.*}}, 0] [1, 256] [1, 1] : tensor<96x256xf32> to tensor<1x256xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>) -> tensor<1xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}tensor<1x256xf32>
// CHECK: scf.forall.in_parallel
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}}tensor<48xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}tensor<48x256xf32>
func.func @layernorm(%x: tensor<96x256xf32>, %gamma: tensor<256xf32>) -> (tensor<96x256xf32>, tensor<f32>, tensor<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %rows_empty = tensor.empty() : tensor<96xf32>
  %rows_zero = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<96xf32>) -> tensor<96xf32>
  %full = tensor.empty() : tensor<96x256xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<96x256xf32>) outs(%rows_zero : tensor<96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>
  %centered = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<96x256xf32>, tensor<96xf32>) outs(%full : tensor<96x256xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %r = arith.subf %in, %mean : f32
    linalg.yield %r : f32
  } -> tensor<96x256xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%centered : tensor<96x256xf32>) outs(%rows_zero : tensor<96xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%centered, %squares, %gamma : tensor<96x256xf32>, tensor<96xf32>, tensor<256xf32>) outs(%full : tensor<96x256xf32>) {
  ^bb0(%c: f32, %sq: f32, %g: f32, %out: f32):
    %var = arith.divf %sq, %n : f32
    %inv = math.rsqrt %var : f32
    %scaled = arith.mulf %c, %inv : f32
    %r = arith.mulf %scaled, %g : f32
    linalg.yield %r : f32
  } -> tensor<96x256xf32>
  %scalar_empty = tensor.empty() : tensor<f32>
  %scalar_zero = linalg.fill ins(%zero : f32) outs(%scalar_empty : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%y : tensor<96x256xf32>) outs(%scalar_zero : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %columns_empty = tensor.empty() : tensor<256xf32>
  %columns_zero = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<256xf32>) -> tensor<256xf32>
  %column_sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%centered : tensor<96x256xf32>) outs(%columns_zero : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %y, %loss, %column_sums : tensor<96x256xf32>, tensor<f32>, tensor<256xf32>
}
// -----

// 97 rows (a prime): no divisor near 64, so no group.
// CHECK-LABEL: func.func @prime_rows
// CHECK-NOT: scf.forall
func.func @prime_rows(%x: tensor<97x256xf32>, %gamma: tensor<256xf32>) -> (tensor<97x256xf32>, tensor<f32>, tensor<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %rows_empty = tensor.empty() : tensor<97xf32>
  %rows_zero = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<97xf32>) -> tensor<97xf32>
  %full = tensor.empty() : tensor<97x256xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<97x256xf32>) outs(%rows_zero : tensor<97xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<97xf32>
  %centered = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<97x256xf32>, tensor<97xf32>) outs(%full : tensor<97x256xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %r = arith.subf %in, %mean : f32
    linalg.yield %r : f32
  } -> tensor<97x256xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%centered : tensor<97x256xf32>) outs(%rows_zero : tensor<97xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<97xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%centered, %squares, %gamma : tensor<97x256xf32>, tensor<97xf32>, tensor<256xf32>) outs(%full : tensor<97x256xf32>) {
  ^bb0(%c: f32, %sq: f32, %g: f32, %out: f32):
    %var = arith.divf %sq, %n : f32
    %inv = math.rsqrt %var : f32
    %scaled = arith.mulf %c, %inv : f32
    %r = arith.mulf %scaled, %g : f32
    linalg.yield %r : f32
  } -> tensor<97x256xf32>
  %scalar_empty = tensor.empty() : tensor<f32>
  %scalar_zero = linalg.fill ins(%zero : f32) outs(%scalar_empty : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%y : tensor<97x256xf32>) outs(%scalar_zero : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %columns_empty = tensor.empty() : tensor<256xf32>
  %columns_zero = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<256xf32>) -> tensor<256xf32>
  %column_sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%centered : tensor<97x256xf32>) outs(%columns_zero : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %y, %loss, %column_sums : tensor<97x256xf32>, tensor<f32>, tensor<256xf32>
}
// -----

// Rows of 16: a row's reductions would leave most of a warp idle.
// CHECK-LABEL: func.func @narrow_rows
// CHECK-NOT: scf.forall
func.func @narrow_rows(%x: tensor<512x16xf32>, %gamma: tensor<16xf32>) -> (tensor<512x16xf32>, tensor<f32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %rows_empty = tensor.empty() : tensor<512xf32>
  %rows_zero = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<512xf32>) -> tensor<512xf32>
  %full = tensor.empty() : tensor<512x16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x16xf32>) outs(%rows_zero : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %centered = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<512x16xf32>, tensor<512xf32>) outs(%full : tensor<512x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %r = arith.subf %in, %mean : f32
    linalg.yield %r : f32
  } -> tensor<512x16xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%centered : tensor<512x16xf32>) outs(%rows_zero : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%centered, %squares, %gamma : tensor<512x16xf32>, tensor<512xf32>, tensor<16xf32>) outs(%full : tensor<512x16xf32>) {
  ^bb0(%c: f32, %sq: f32, %g: f32, %out: f32):
    %var = arith.divf %sq, %n : f32
    %inv = math.rsqrt %var : f32
    %scaled = arith.mulf %c, %inv : f32
    %r = arith.mulf %scaled, %g : f32
    linalg.yield %r : f32
  } -> tensor<512x16xf32>
  %scalar_empty = tensor.empty() : tensor<f32>
  %scalar_zero = linalg.fill ins(%zero : f32) outs(%scalar_empty : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%y : tensor<512x16xf32>) outs(%scalar_zero : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %columns_empty = tensor.empty() : tensor<16xf32>
  %columns_zero = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<16xf32>) -> tensor<16xf32>
  %column_sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%centered : tensor<512x16xf32>) outs(%columns_zero : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %y, %loss, %column_sums : tensor<512x16xf32>, tensor<f32>, tensor<16xf32>
}

// -----

// Rows of 32768: more than 64 elements per thread of a block; a kernel per
// generic splits each row over several blocks instead.
// CHECK-LABEL: func.func @wide_rows
// CHECK-NOT: scf.forall
func.func @wide_rows(%x: tensor<256x32768xf32>, %gamma: tensor<32768xf32>) -> (tensor<256x32768xf32>, tensor<f32>, tensor<32768xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32768.0 : f32
  %rows_empty = tensor.empty() : tensor<256xf32>
  %rows_zero = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<256xf32>) -> tensor<256xf32>
  %full = tensor.empty() : tensor<256x32768xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x32768xf32>) outs(%rows_zero : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  %centered = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<256x32768xf32>, tensor<256xf32>) outs(%full : tensor<256x32768xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %r = arith.subf %in, %mean : f32
    linalg.yield %r : f32
  } -> tensor<256x32768xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%centered : tensor<256x32768xf32>) outs(%rows_zero : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%centered, %squares, %gamma : tensor<256x32768xf32>, tensor<256xf32>, tensor<32768xf32>) outs(%full : tensor<256x32768xf32>) {
  ^bb0(%c: f32, %sq: f32, %g: f32, %out: f32):
    %var = arith.divf %sq, %n : f32
    %inv = math.rsqrt %var : f32
    %scaled = arith.mulf %c, %inv : f32
    %r = arith.mulf %scaled, %g : f32
    linalg.yield %r : f32
  } -> tensor<256x32768xf32>
  %scalar_empty = tensor.empty() : tensor<f32>
  %scalar_zero = linalg.fill ins(%zero : f32) outs(%scalar_empty : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%y : tensor<256x32768xf32>) outs(%scalar_zero : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %columns_empty = tensor.empty() : tensor<32768xf32>
  %columns_zero = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<32768xf32>) -> tensor<32768xf32>
  %column_sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%centered : tensor<256x32768xf32>) outs(%columns_zero : tensor<32768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<32768xf32>
  return %y, %loss, %column_sums : tensor<256x32768xf32>, tensor<f32>, tensor<32768xf32>
}
