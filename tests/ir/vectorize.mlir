// adjit-vectorize: the innermost loop of a generic in vectors of the target's
// width, per-row scalars computed once per row, reductions along the row
// accumulated lane-wise and reduced across lanes once, a shorter vector for
// the remainder; and what is left to LLVM.
// RUN: adjit-opt %s -split-input-file --adjit-vectorize="vector-bits=512" --canonicalize --mlir-print-local-scope | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-vectorize="vector-bits=256" --canonicalize --mlir-print-local-scope | FileCheck %s --check-prefix=AVX2

// 72 elements per row: two steps of 32 lanes (two 512-bit registers) and a
// remainder of 8. With AVX2 the row holds two steps of four registers, and
// its tanh's 3 values live fit four times in AVX2's 16 registers: two
// steps of 32 lanes too (two AVX2 registers each would make four of 16).
// The row's scalar (s / n) is computed once per row.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x72xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c4 step %c1 iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x72xf32>)
// CHECK-NEXT: %[[SUM:.*]] = tensor.extract %[[S]][%[[ROW]]] : tensor<4xf32>
// CHECK-NEXT: %[[MEAN:.*]] = arith.divf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT: %[[FULL:.*]] = scf.for %[[J:.*]] = %c0 to %c64 step %c32 iter_args(%[[ACC:.*]] = %[[OUT]]) -> (tensor<4x72xf32>)
// CHECK-NEXT: %[[V:.*]] = vector.transfer_read %[[X]][%[[ROW]], %[[J]]], %{{.*}} {in_bounds = [true]} : tensor<4x72xf32>, vector<32xf32>
// CHECK-NEXT: %[[B:.*]] = vector.broadcast %[[MEAN]] : f32 to vector<32xf32>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[B]] : vector<32xf32>
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[D]] : vector<32xf32>
// CHECK-NEXT: %[[W:.*]] = vector.transfer_write %[[T]], %[[ACC]][%[[ROW]], %[[J]]] {in_bounds = [true]} : vector<32xf32>, tensor<4x72xf32>
// CHECK-NEXT: scf.yield %[[W]]
// CHECK: %[[TAIL:.*]] = vector.transfer_read %[[X]][%[[ROW]], %c64], %{{.*}} {in_bounds = [true]} : tensor<4x72xf32>, vector<8xf32>
// CHECK: math.tanh %{{.*}} : vector<8xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[FULL]][%[[ROW]], %c64] {in_bounds = [true]} : vector<8xf32>, tensor<4x72xf32>
// CHECK-NOT: linalg.generic
// AVX2-LABEL: func.func @rows
// AVX2: scf.for %{{.*}} = %c0 to %c64 step %c32
// AVX2: math.tanh %{{.*}} : vector<32xf32>
// AVX2: math.tanh %{{.*}} : vector<8xf32>
func.func @rows(%x: tensor<4x72xf32>, %s: tensor<4xf32>) -> tensor<4x72xf32> {
  %n = arith.constant 72.0 : f32
  %empty = tensor.empty() : tensor<4x72xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x72xf32>, tensor<4xf32>) outs(%empty : tensor<4x72xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %mean = arith.divf %sum, %n : f32
    %d = arith.subf %in, %mean : f32
    %t = math.tanh %d : f32
    linalg.yield %t : f32
  } -> tensor<4x72xf32>
  return %y : tensor<4x72xf32>
}

// -----

// A row sum accumulates in 32 lanes and is reduced across them once per
// row, onto the output's initial value, then the remainder's 6 lanes.
// CHECK-LABEL: func.func @row_sums
// CHECK-SAME: (%[[X:.*]]: tensor<8x70xf32>, %[[INIT:.*]]: tensor<8xf32>)
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c8 step %c1 iter_args(%[[OUT:.*]] = %[[INIT]]) -> (tensor<8xf32>)
// CHECK-NEXT: %[[LANES:.*]] = scf.for %[[J:.*]] = %c0 to %c64 step %c32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<32xf32>)
// CHECK-NEXT: %[[V:.*]] = vector.transfer_read %[[X]][%[[ROW]], %[[J]]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : vector<32xf32>
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[SQ]] fastmath<reassoc> : vector<32xf32>
// CHECK-NEXT: scf.yield %[[NEXT]] : vector<32xf32>
// CHECK: %[[TAIL:.*]] = vector.transfer_read %[[X]][%[[ROW]], %c64], %{{.*}} {in_bounds = [true]} : tensor<8x70xf32>, vector<6xf32>
// CHECK: %[[START:.*]] = tensor.extract %[[OUT]][%[[ROW]]] : tensor<8xf32>
// CHECK-NEXT: %[[R1:.*]] = vector.reduction <add>, %[[LANES]], %[[START]] fastmath<reassoc> : vector<32xf32> into f32
// CHECK-NEXT: %[[R2:.*]] = vector.reduction <add>, %{{.*}}, %[[R1]] fastmath<reassoc> : vector<6xf32> into f32
// CHECK-NEXT: tensor.insert %[[R2]] into %[[OUT]][%[[ROW]]] : tensor<8xf32>
// With AVX2 the row holds two steps of four registers (32 lanes), so this
// light reduction takes four.
// AVX2-LABEL: func.func @row_sums
// AVX2: scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// AVX2: vector<6xf32>
func.func @row_sums(%x: tensor<8x70xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x70xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Over a long row (256 elements: at least two steps of four registers) a
// body that waits on long chains (a reduction's adds, a tanh's polynomial)
// and whose live values fit four times in the 32 registers steps through
// four: a sum of squares (4 values live: four chains of adds
// instead of two) and a tanh of a short chain (5 live: more independent
// work beside the polynomial). A body with more values live at once (10
// here; W3's GELU derivative keeps 11) and one over a short row
// (@row_sums) keep two. AVX2's 16 registers admit 4 values live.
// CHECK-LABEL: func.func @long_row_sums
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c64 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<64xf32>)
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : vector<64xf32>
// CHECK-NEXT: arith.addf %[[ACC]], %[[SQ]] fastmath<reassoc> : vector<64xf32>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c64 iter_args(%{{.*}} = %{{.*}}) -> (vector<64xf32>)
// CHECK: math.tanh %{{.*}} : vector<64xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c32 iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// CHECK: math.tanh %{{.*}} : vector<32xf32>
// AVX2-LABEL: func.func @long_row_sums
// AVX2: scf.for %{{.*}} = %c0 to %c256 step %c32 iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// AVX2: scf.for %{{.*}} = %c0 to %c256 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// AVX2: scf.for %{{.*}} = %c0 to %c256 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
func.func @long_row_sums(%x: tensor<8x256xf32>, %mean: tensor<8xf32>, %init: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %squares = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %mean : tensor<8x256xf32>, tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %sq = arith.mulf %d, %d : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %tanhs = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x256xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.mulf %in, %in : f32
    %b = arith.addf %a, %in : f32
    %c = arith.mulf %b, %in : f32
    %d = arith.subf %c, %a : f32
    %e = arith.mulf %d, %b : f32
    %t = math.tanh %e : f32
    %r = arith.addf %out, %t fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %crowded = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x256xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.mulf %in, %in : f32
    %b = arith.addf %a, %in : f32
    %c = arith.mulf %b, %in : f32
    %d = arith.subf %c, %a : f32
    %e = arith.mulf %d, %b : f32
    %f = arith.addf %e, %c : f32
    %g = arith.mulf %f, %d : f32
    %h = arith.subf %g, %e : f32
    %i = arith.mulf %h, %f : f32
    %t = math.tanh %i : f32
    %u = arith.mulf %t, %a : f32
    %v = arith.addf %u, %b : f32
    %w = arith.mulf %v, %c : f32
    %y = arith.addf %w, %d : f32
    %z = arith.mulf %y, %e : f32
    %z1 = arith.addf %z, %f : f32
    %z2 = arith.mulf %z1, %g : f32
    %z3 = arith.addf %z2, %h : f32
    %r = arith.addf %out, %z3 fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %squares, %tanhs, %crowded : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A maximum needs no permission to reorder; its lanes start at -inf.
// CHECK-LABEL: func.func @row_max
// CHECK: %[[NEG_INF:.*]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[NEG_INF]]) -> (vector<32xf32>)
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: vector.reduction <maximumf>
func.func @row_max(%x: tensor<2x64xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x64xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A NaN-skipping maximum's lanes start at -inf too, not at maxnumf's
// neutral NaN: its accumulator is then never NaN.
// CHECK-LABEL: func.func @row_max_ignoring_nan
// CHECK: %[[NEG_INF:.*]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[NEG_INF]]) -> (vector<32xf32>)
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: vector.reduction <maxnumf>
func.func @row_max_ignoring_nan(%x: tensor<2x64xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x64xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maxnumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A sum over the rows (a bias gradient) runs along each row in vectors and
// adds it to the output's vector: the order of the additions is unchanged.
// CHECK-LABEL: func.func @column_sums
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c16 step %c1 iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<64xf32>)
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c64 step %c32 iter_args(%[[ACC:.*]] = %[[OUT]]) -> (tensor<64xf32>)
// CHECK-NEXT: %[[V:.*]] = vector.transfer_read %{{.*}}[%[[ROW]], %[[J]]]
// CHECK-NEXT: %[[O:.*]] = vector.transfer_read %[[ACC]][%[[J]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[O]], %[[V]] : vector<32xf32>
// CHECK-NEXT: vector.transfer_write %[[S]], %[[ACC]][%[[J]]]
// CHECK-NOT: vector.reduction
func.func @column_sums(%x: tensor<16x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<16x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// f64 gets half the lanes: 16 in two 512-bit registers, then 8.
// CHECK-LABEL: func.func @f64
// CHECK: vector.transfer_read {{.*}} : tensor<40xf64>, vector<16xf64>
// CHECK: math.sqrt %{{.*}} : vector<16xf64>
// CHECK: math.sqrt %{{.*}} : vector<8xf64>
func.func @f64(%x: tensor<40xf64>) -> tensor<40xf64> {
  %empty = tensor.empty() : tensor<40xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<40xf64>) outs(%empty : tensor<40xf64>) {
  ^bb0(%in: f64, %out: f64):
    %e = math.sqrt %in : f64
    linalg.yield %e : f64
  } -> tensor<40xf64>
  return %y : tensor<40xf64>
}

// -----

// Left to LLVM: a float sum that may not be reordered, operands read
// transposed along two different loops (a gather either way), f64 tanh and
// f32 pow without `vector-math-library` (libm calls, one element at a time:
// as vectors, a call per lane; vectorize-math-library.mlir has them with
// it), bf16, and a contraction served by the GEMM kernels.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT: vector.
func.func @left_alone(%x: tensor<8x32xf32>, %t3: tensor<8x32x4xf32>, %u3: tensor<4x32x8xf32>, %init: tensor<8xf32>, %d: tensor<32xf64>, %h: tensor<32xbf16>, %m: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<4x8x32xf32>, tensor<32xf64>, tensor<32xbf16>, tensor<8x8xf32>, tensor<8x32xf32>) {
  %strict = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %empty = tensor.empty() : tensor<8x32xf32>
  %empty3 = tensor.empty() : tensor<4x8x32xf32>
  %transposed = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t3, %u3 : tensor<8x32x4xf32>, tensor<4x32x8xf32>) outs(%empty3 : tensor<4x8x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %r = arith.subf %in, %in2 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x32xf32>
  %empty_d = tensor.empty() : tensor<32xf64>
  %tanh = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%d : tensor<32xf64>) outs(%empty_d : tensor<32xf64>) {
  ^bb0(%in: f64, %out: f64):
    %r = math.tanh %in : f64
    linalg.yield %r : f64
  } -> tensor<32xf64>
  %empty_h = tensor.empty() : tensor<32xbf16>
  %half = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%h : tensor<32xbf16>) outs(%empty_h : tensor<32xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %r = arith.negf %in : bf16
    linalg.yield %r : bf16
  } -> tensor<32xbf16>
  %zero = arith.constant 0.0 : f32
  %empty_m = tensor.empty() : tensor<8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty_m : tensor<8x8xf32>) -> tensor<8x8xf32>
  %gemm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], library_call = "adjit_gemm_f32"} ins(%m, %m : tensor<8x8xf32>, tensor<8x8xf32>) outs(%fill : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %pow = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xf32>) outs(%empty : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.powf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %strict, %transposed, %tanh, %half, %gemm, %pow : tensor<8xf32>, tensor<4x8x32xf32>, tensor<32xf64>, tensor<32xbf16>, tensor<8x8xf32>, tensor<8x32xf32>
}

// -----

// Bools (i1, a byte per element in memory) are read and written as
// vectors of i1 (adjit-convert-bool-vector-memory-to-llvm lowers them a
// byte per lane); they count as 8 bits, so a generic of bools alone steps
// by 128 lanes (two 512-bit registers of bytes), one with f32 by 32.
// CHECK-LABEL: func.func @bools
// CHECK: vector.transfer_read %{{.*}} : tensor<8x32xf32>, vector<32xf32>
// CHECK: %[[ON:.*]] = arith.cmpf ogt, %{{.*}} : vector<32xf32>
// CHECK: vector.transfer_write %[[ON]], %{{.*}} : vector<32xi1>, tensor<8x32xi1>
// CHECK: vector.transfer_read %{{.*}} : tensor<2x256xi1>, vector<128xi1>
// CHECK: arith.xori %{{.*}} : vector<128xi1>
// CHECK: vector.transfer_write %{{.*}} : vector<128xi1>, tensor<2x256xi1>
// AVX2-LABEL: func.func @bools
// AVX2: vector<16xi1>
// AVX2: vector<64xi1>
func.func @bools(%x: tensor<8x32xf32>, %b: tensor<2x256xi1>) -> (tensor<8x32xi1>, tensor<2x256xi1>) {
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %empty = tensor.empty() : tensor<8x32xi1>
  %positive = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xf32>) outs(%empty : tensor<8x32xi1>) {
  ^bb0(%in: f32, %out: i1):
    %r = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %r : i1
  } -> tensor<8x32xi1>
  %empty_n = tensor.empty() : tensor<2x256xi1>
  %negated = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<2x256xi1>) outs(%empty_n : tensor<2x256xi1>) {
  ^bb0(%in: i1, %out: i1):
    %r = arith.xori %in, %true : i1
    linalg.yield %r : i1
  } -> tensor<2x256xi1>
  return %positive, %negated : tensor<8x32xi1>, tensor<2x256xi1>
}

// -----

// f32 sin and cos vectorize: adjit-approximate-math reduces vectors of
// them itself (with a libm path for lanes beyond its range).
// CHECK-LABEL: func.func @sin_cos
// CHECK: math.sin %{{.*}} : vector<32xf32>
// CHECK: math.cos %{{.*}} : vector<32xf32>
// CHECK-NOT: linalg.generic
func.func @sin_cos(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %empty = tensor.empty() : tensor<4x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%empty : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    %c = math.cos %in : f32
    %p = arith.mulf %s, %c : f32
    linalg.yield %p : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// An input contiguous along the rows (a transpose, with a per-row bias):
// square tiles of 16 (8 with AVX2) rows and columns, each read as 16
// vectors along the rows and transposed in registers by 4 stages of 16
// two-source shuffles (3 of 8 with AVX2), then one vector step per row of
// the tile; what whole tiles leave (4 rows, 8 columns here) runs one
// element at a time.
// CHECK-LABEL: func.func @transposed_tiles
// CHECK: scf.for %[[R:.*]] = %c0 to %c32 step %c16
// CHECK: scf.for %[[C:.*]] = %c0 to %c32 step %c16
// CHECK-COUNT-16: vector.transfer_read %arg0{{.*}} : tensor<40x36xf32>, vector<16xf32>
// CHECK-COUNT-64: vector.shuffle
// CHECK-NOT: vector.shuffle
// CHECK-COUNT-16: vector.transfer_write {{.*}} : vector<16xf32>, tensor<36x40xf32>
// CHECK: scf.for {{.*}} = %c32 to %c40 step %c1
// CHECK: vector.transfer_read %arg0{{.*}} : tensor<40x36xf32>, vector<1xf32>
// CHECK: scf.for {{.*}} = %c32 to %c36 step %c1
// AVX2-LABEL: func.func @transposed_tiles
// AVX2: scf.for {{.*}} = %c0 to %c32 step %c8
// AVX2: scf.for {{.*}} = %c0 to %c40 step %c8
// AVX2-COUNT-24: vector.shuffle
// AVX2-NOT: vector.shuffle
// AVX2-COUNT-8: vector.transfer_write {{.*}} : vector<8xf32>, tensor<36x40xf32>
func.func @transposed_tiles(%t: tensor<40x36xf32>, %b: tensor<36xf32>) -> tensor<36x40xf32> {
  %empty = tensor.empty() : tensor<36x40xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<40x36xf32>, tensor<36xf32>) outs(%empty : tensor<36x40xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %twice = arith.addf %in, %in : f32
    %r = arith.addf %twice, %bias : f32
    linalg.yield %r : f32
  } -> tensor<36x40xf32>
  return %y : tensor<36x40xf32>
}

// -----

// Loop indices: the innermost loop's is a vector of consecutive indices per
// step, made in the type the body casts it to (i32 lanes, not 64-bit
// ones); an outer loop's a scalar once per row.
// CHECK-LABEL: func.func @indices
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c8 step %c1
// CHECK: %[[R:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK: scf.for %[[J:.*]] = %c0 to %c64 step %c32
// CHECK: %[[JI:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK: %[[B:.*]] = vector.broadcast %[[JI]] : i32 to vector<32xi32>
// CHECK: arith.addi %[[B]], %cst{{.*}} : vector<32xi32>
// CHECK-NOT: vector<32xindex>
func.func @indices(%init: tensor<8x70xi32>) -> tensor<8x70xi32> {
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%init : tensor<8x70xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 1 : index
    %r = linalg.index 0 : index
    %ci = arith.index_cast %i : index to i32
    %cr = arith.index_cast %r : index to i32
    %s = arith.muli %cr, %ci : i32
    linalg.yield %s : i32
  } -> tensor<8x70xi32>
  return %y : tensor<8x70xi32>
}

// -----

// An argmax along the rows: every lane keeps its own best and its index
// from the output's values; halving trees keep the better lane, or on a tie
// (neither better) the smaller index; the 6 elements past the whole vectors
// then run one at a time, as the body does.
// CHECK-LABEL: func.func @argmax_rows
// CHECK: %[[LANES:.*]]:2 = scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<32xf32>, vector<32xi32>)
// CHECK: vector.shuffle %[[LANES]]#0, %[[LANES]]#0 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK-COUNT-4: arith.cmpi slt
// CHECK: scf.for %{{.*}} = %c64 to %c70 step %c1 iter_args({{.*}}) -> (vector<1xf32>, vector<1xi32>)
func.func @argmax_rows(%x: tensor<4x70xf32>, %best: tensor<4xf32>, %index: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x70xf32>) outs(%best, %index : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %out: f32, %out_i: i32):
    %greater = arith.cmpf ogt, %in, %out : f32
    %nan = arith.cmpf uno, %in, %in : f32
    %ordered = arith.cmpf ord, %out, %out : f32
    %first_nan = arith.andi %nan, %ordered : i1
    %better = arith.ori %greater, %first_nan : i1
    %i = linalg.index 1 : index
    %position = arith.index_cast %i : index to i32
    %v = arith.select %better, %in, %out : f32
    %p = arith.select %better, %position, %out_i : i32
    linalg.yield %v, %p : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Rows shorter than a register (10 classes) reduced along the innermost
// loop run across rows: the row loop becomes the vector's, tiles of 16 rows
// by 16 classes are read along the classes and transposed in registers
// (the reads past the 10th class are padding, and only 10 steps run: the
// shuffles only they read are left), and
// each lane keeps its own row's best and index in the order of the body.
// No tree of lanes is needed.
// CHECK-LABEL: func.func @argmax_short_rows
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c64 step %c16
// CHECK-COUNT-16: vector.transfer_read %arg0[{{[^]]*}}], %{{[a-z0-9_]*}} : tensor<64x10xf32>, vector<16xf32>
// CHECK: vector.shuffle
// CHECK-COUNT-10: arith.select {{.*}} : vector<16xi1>, vector<16xi32>
// CHECK-NOT: arith.cmpi slt
// CHECK: vector.transfer_write {{.*}} : vector<16xi32>, tensor<64xi32>
func.func @argmax_short_rows(%x: tensor<64x10xf32>, %best: tensor<64xf32>, %index: tensor<64xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x10xf32>) outs(%best, %index : tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%in: f32, %out: f32, %out_i: i32):
    %greater = arith.cmpf ogt, %in, %out : f32
    %nan = arith.cmpf uno, %in, %in : f32
    %ordered = arith.cmpf ord, %out, %out : f32
    %first_nan = arith.andi %nan, %ordered : i1
    %better = arith.ori %greater, %first_nan : i1
    %i = linalg.index 1 : index
    %position = arith.index_cast %i : index to i32
    %v = arith.select %better, %in, %out : f32
    %p = arith.select %better, %position, %out_i : i32
    linalg.yield %v, %p : f32, i32
  } -> (tensor<64xf32>, tensor<64xi32>)
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xi32>
}

// -----

// bf16 and f16 that are only moved (a transpose) are read, shuffled and
// written as vectors, though vector arithmetic does not take them (a bf16
// negation is left alone, above).
// CHECK-LABEL: func.func @transposed_bf16
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK-COUNT-16: vector.transfer_read %arg0{{.*}} : tensor<32x32xbf16>, vector<16xbf16>
// CHECK-COUNT-64: vector.shuffle {{.*}} : vector<16xbf16>, vector<16xbf16>
// CHECK-COUNT-16: vector.transfer_write {{.*}} : vector<16xbf16>, tensor<32x32xbf16>
func.func @transposed_bf16(%t: tensor<32x32xbf16>) -> tensor<32x32xbf16> {
  %empty = tensor.empty() : tensor<32x32xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<32x32xbf16>) outs(%empty : tensor<32x32xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// A bf16 input the body only widens to f32 (half-precision math computes in
// f32) is read as bf16 vectors and extended as vectors.
// CHECK-LABEL: func.func @widened_bf16
// CHECK: vector.transfer_read %arg0{{.*}} : tensor<8x64xbf16>, vector<32xbf16>
// CHECK: arith.extf {{.*}} : vector<32xbf16> to vector<32xf32>
// CHECK: vector.reduction <add>
func.func @widened_bf16(%x: tensor<8x64xbf16>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xbf16>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %w = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %w fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// f16 math: each op widens to f32 and narrows back (half precision rounds
// after every op); the narrowed values, read again or written, are f16
// vectors.
// CHECK-LABEL: func.func @narrowed_f16
// CHECK: arith.truncf {{.*}} : vector<32xf32> to vector<32xf16>
// CHECK: arith.extf {{.*}} : vector<32xf16> to vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<32xf16>, tensor<4x64xf16>
func.func @narrowed_f16(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %c3 = arith.constant 3.0 : f32
  %empty = tensor.empty() : tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf16>) outs(%empty : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %w = arith.extf %in : f16 to f32
    %m = arith.mulf %w, %c3 : f32
    %n = arith.truncf %m : f32 to f16
    %w2 = arith.extf %n : f16 to f32
    %e = math.exp %w2 : f32
    %r = arith.truncf %e : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// An element of a tensor from above whose last index varies along the
// innermost loop is a gather (take along the last axis); the offsets the
// body computes are index vectors.
// CHECK-LABEL: func.func @gather_columns
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c8 step %c1
// CHECK: %[[OFFSETS:.*]] = arith.index_cast %{{.*}} : vector<32xi32> to vector<32xindex>
// CHECK: vector.gather %arg0[%[[ROW]], %{{.*}}] [%[[OFFSETS]]], %{{.*}}, %{{.*}} : tensor<8x100xf32>, vector<32xindex>, vector<32xi1>, vector<32xf32> into vector<32xf32>
func.func @gather_columns(%x: tensor<8x100xf32>, %i: tensor<64xi32>) -> tensor<8x64xf32> {
  %empty = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<64xi32>) outs(%empty : tensor<8x64xf32>) {
  ^bb0(%in: i32, %out: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %in : i32 to index
    %e = tensor.extract %x[%r, %c] : tensor<8x100xf32>
    linalg.yield %e : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// A binary search per value (search_sorted's body): positions are i32
// vectors and each probe of the sorted vector after the first (a uniform
// element) a gather, so 32 values are searched at once.
// CHECK-LABEL: func.func @search_values
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<32xi1>, vector<32xi32>
// CHECK: vector.gather %arg0[%c0] [%{{.*}}], %{{.*}}, %{{.*}} : tensor<5xf32>, vector<32xindex>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<32xi1>, vector<32xi32>
// CHECK: vector.gather
func.func @search_values(%sorted: tensor<5xf32>, %v: tensor<4x64xf32>) -> tensor<4x64xi32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %empty = tensor.empty() : tensor<4x64xi32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<4x64xf32>) outs(%empty : tensor<4x64xi32>) {
  ^bb0(%in: f32, %out: i32):
    %p0 = arith.index_cast %c2 : i32 to index
    %e0 = tensor.extract %sorted[%p0] : tensor<5xf32>
    %l0 = arith.cmpf olt, %e0, %in : f32
    %b0 = arith.select %l0, %c2, %c0 : i32
    %q1 = arith.addi %b0, %c1 : i32
    %p1 = arith.index_cast %q1 : i32 to index
    %e1 = tensor.extract %sorted[%p1] : tensor<5xf32>
    %l1 = arith.cmpf olt, %e1, %in : f32
    %b1 = arith.select %l1, %q1, %b0 : i32
    %p2 = arith.index_cast %b1 : i32 to index
    %e2 = tensor.extract %sorted[%p2] : tensor<5xf32>
    %l2 = arith.cmpf olt, %e2, %in : f32
    %n2 = arith.addi %b1, %c1 : i32
    %r = arith.select %l2, %n2, %b1 : i32
    linalg.yield %r : i32
  } -> tensor<4x64xi32>
  return %y : tensor<4x64xi32>
}

// An element of a tensor from above whose last index is the innermost
// loop's own (take along the first axis: rows picked by index) reads the
// lanes' consecutive elements as one vector, not a gather; in bounds where
// the tensor's rows hold the whole loop (72 of 72: two steps of 32 and a
// remainder of 8), masked where they may not (a row of 40 for a loop of 72
// is the program's own out-of-bounds read).
// CHECK-LABEL: func.func @take_rows
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c4 step %c1
// CHECK: %[[PICK:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: scf.for %[[J:.*]] = %c0 to %c64 step %c32
// CHECK: vector.transfer_read %arg0[%[[PICK]], %[[J]]], %{{.*}} {in_bounds = [true]} : tensor<9x72xf32>, vector<32xf32>
// CHECK: vector.transfer_read %arg0[%[[PICK]], %c64], %{{.*}} {in_bounds = [true]} : tensor<9x72xf32>, vector<8xf32>
// CHECK-NOT: vector.gather
// CHECK-LABEL: func.func @take_short_rows
// CHECK: vector.transfer_read %arg0[%{{.*}}, %{{.*}}], %{{.*}} : tensor<9x40xf32>, vector<32xf32>
// CHECK-NOT: vector.gather
func.func @take_rows(%x: tensor<9x72xf32>, %i: tensor<4xi32>) -> tensor<4x72xf32> {
  %empty = tensor.empty() : tensor<4x72xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<4xi32>) outs(%empty : tensor<4x72xf32>) {
  ^bb0(%in: i32, %out: f32):
    %r = arith.index_cast %in : i32 to index
    %c = linalg.index 1 : index
    %e = tensor.extract %x[%r, %c] : tensor<9x72xf32>
    linalg.yield %e : f32
  } -> tensor<4x72xf32>
  return %y : tensor<4x72xf32>
}
func.func @take_short_rows(%x: tensor<9x40xf32>, %i: tensor<4xi32>) -> tensor<4x72xf32> {
  %empty = tensor.empty() : tensor<4x72xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<4xi32>) outs(%empty : tensor<4x72xf32>) {
  ^bb0(%in: i32, %out: f32):
    %r = arith.index_cast %in : i32 to index
    %c = linalg.index 1 : index
    %e = tensor.extract %x[%r, %c] : tensor<9x40xf32>
    linalg.yield %e : f32
  } -> tensor<4x72xf32>
  return %y : tensor<4x72xf32>
}

// -----

// Elementwise work over rows shorter than a register (10 f32) that reads a
// value per row (log_softmax's x - max - log(sum)) runs over the rows as
// one long row: groups of 8 rows fill 5 registers exactly, and each
// register's per-row values are the group's 8, read as one vector and
// spread over its lanes by a shuffle (lane l of register r holds row
// (16 r + l) / 10). The 0-d scale is read once.
// CHECK-LABEL: func.func @per_row_values_of_short_rows
// CHECK-DAG: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<64x10xf32> into tensor<640xf32>
// CHECK-DAG: %[[OUT:.*]] = tensor.collapse_shape %arg4 {{\[\[}}0, 1]] : tensor<64x10xf32> into tensor<640xf32>
// CHECK-DAG: %[[SCALE:.*]] = tensor.extract %arg3[] : tensor<f32>
// CHECK: %[[LOOP:.*]] = scf.for %[[ROW:.*]] = %c0 to %c64 step %c8 iter_args(%{{.*}} = %[[OUT]])
// CHECK: %[[MAX:.*]] = vector.transfer_read %arg1[%[[ROW]]], %{{.*}} {in_bounds = [true]} : tensor<64xf32>, vector<8xf32>
// CHECK: %[[LSE:.*]] = vector.transfer_read %arg2[%[[ROW]]], %{{.*}} {in_bounds = [true]} : tensor<64xf32>, vector<8xf32>
// CHECK: %[[START:.*]] = arith.muli %[[ROW]], %c10
// CHECK: vector.transfer_read %[[X]][%[[START]]]{{.*}} : tensor<640xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[MAX]], %[[MAX]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
// CHECK: vector.shuffle %[[LSE]], %[[LSE]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}}[%[[START]]] {in_bounds = [true]} : vector<16xf32>, tensor<640xf32>
// CHECK: vector.shuffle %[[MAX]], %[[MAX]] [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3]
// CHECK-COUNT-3: vector.shuffle %[[MAX]], %[[MAX]]
// CHECK-NOT: vector.shuffle %[[MAX]]
// CHECK: scf.yield
// CHECK: tensor.expand_shape %[[LOOP]] {{\[\[}}0, 1]] output_shape [64, 10] : tensor<640xf32> into tensor<64x10xf32>
func.func @per_row_values_of_short_rows(%x: tensor<64x10xf32>, %max: tensor<64xf32>, %lse: tensor<64xf32>, %scale: tensor<f32>, %out: tensor<64x10xf32>) -> tensor<64x10xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %lse, %scale : tensor<64x10xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>) outs(%out : tensor<64x10xf32>) {
  ^bb0(%in: f32, %m: f32, %l: f32, %s: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %e = arith.subf %d, %l : f32
    %f = arith.mulf %e, %s : f32
    linalg.yield %f : f32
  } -> tensor<64x10xf32>
  return %r : tensor<64x10xf32>
}

// -----

// Not run as one long row: rows of 16 (a whole register each), 60 rows
// (not whole groups of 8), a slice of each row's first 10 of 12 columns
// (not contiguous), and a value per column (not per row). Each keeps its
// row loop.
// CHECK-LABEL: func.func @short_rows_left_in_rows
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @short_rows_left_in_rows(%x16: tensor<64x16xf32>, %m64: tensor<64xf32>, %x60: tensor<60x10xf32>, %m60: tensor<60xf32>, %wide: tensor<64x12xf32>, %x: tensor<64x10xf32>, %column: tensor<10xf32>) -> (tensor<64x16xf32>, tensor<60x10xf32>, tensor<64x10xf32>, tensor<64x10xf32>) {
  %e16 = tensor.empty() : tensor<64x16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x16, %m64 : tensor<64x16xf32>, tensor<64xf32>) outs(%e16 : tensor<64x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<64x16xf32>
  %e60 = tensor.empty() : tensor<60x10xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x60, %m60 : tensor<60x10xf32>, tensor<60xf32>) outs(%e60 : tensor<60x10xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<60x10xf32>
  %first = tensor.extract_slice %wide[0, 0] [64, 10] [1, 1] : tensor<64x12xf32> to tensor<64x10xf32>
  %e = tensor.empty() : tensor<64x10xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%first, %m64 : tensor<64x10xf32>, tensor<64xf32>) outs(%e : tensor<64x10xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<64x10xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %column : tensor<64x10xf32>, tensor<10xf32>) outs(%e : tensor<64x10xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<64x10xf32>
  return %a, %b, %c, %d : tensor<64x16xf32>, tensor<60x10xf32>, tensor<64x10xf32>, tensor<64x10xf32>
}

// -----

// Rows of 3 reduced across rows (squared lengths of points) are read as
// 3 whole vectors per 16 rows, and each column is gathered from them by
// two shuffles: lane l of column c is element 3 l + c.
// CHECK-LABEL: func.func @short_rows_gathered
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c64 step %c16
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<64x3xf32> into tensor<192xf32>
// CHECK: %[[START:.*]] = arith.muli %[[ROW]], %c3
// CHECK: %[[V0:.*]] = vector.transfer_read %[[FLAT]][%[[START]]]{{.*}} : tensor<192xf32>, vector<16xf32>
// CHECK: %[[V1:.*]] = vector.transfer_read %[[FLAT]]
// CHECK: %[[V2:.*]] = vector.transfer_read %[[FLAT]]
// CHECK: %[[C0:.*]] = vector.shuffle %[[V0]], %[[V1]] [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 11, 12, 13, 14, 15]
// CHECK: vector.shuffle %[[C0]], %[[V2]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29]
// CHECK-COUNT-4: vector.shuffle
// CHECK-NOT: vector.shuffle
// CHECK-COUNT-3: arith.addf {{.*}} : vector<16xf32>
func.func @short_rows_gathered(%x: tensor<64x3xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x3xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
