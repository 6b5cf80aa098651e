// Groups of generics that share their rows run block by block: the
// intermediates of a LayerNorm-like function exist one block at a time,
// reductions over the rows accumulate across blocks, and chunks of blocks
// run in parallel with one partial per chunk, combined in chunk order. A
// scalar's partials are a cache line apart (padding 16 f32), so that
// chunks on different cores do not write the same line.
// RUN: adjit-opt %s -split-input-file --adjit-tile-and-fuse-rows="cache-bytes=65536 min-chunk-work=16384 max-chunks=4" --canonicalize --mlir-print-local-scope | FileCheck %s --check-prefix=CHUNKS
// RUN: adjit-opt %s -split-input-file --adjit-tile-and-fuse-rows="cache-bytes=65536 min-chunk-work=16384 max-chunks=1" --canonicalize --mlir-print-local-scope | FileCheck %s --check-prefix=SEQUENTIAL

// About 8 KiB of operands per row: blocks of 4 rows fit 64 KiB; 98304
// iterations make 4 chunks of 16384 or more.
// CHUNKS-LABEL: func.func @layernorm
// CHUNKS-SAME: (%[[X:.*]]: tensor<64x256xf32>, %[[GAMMA:.*]]: tensor<256xf32>)
// CHUNKS: %[[ALL:.*]]:3 = scf.forall (%[[CHUNK:.*]]) in (4) shared_outs(%[[Y:.*]] = %{{.*}}, %[[LOSSES:.*]] = %{{.*}}, %[[COLUMNS:.*]] = %{{.*}}) -> (tensor<64x256xf32>, tensor<4x16xf32>, tensor<4x256xf32>)
// CHUNKS: %[[FIRST:.*]] = arith.muli %[[CHUNK]], %c16 : index
// CHUNKS: tensor.extract_slice %[[LOSSES]][%[[CHUNK]], 0] [1, 1] [1, 1] : tensor<4x16xf32> to tensor<f32>
// CHUNKS: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHUNKS: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<256xf32>)
// CHUNKS: %[[BLOCKS:.*]]:3 = scf.for %[[ROW:.*]] = %c0 to %c16 step %c4 iter_args({{.*}}) -> (tensor<16x256xf32>, tensor<f32>, tensor<256xf32>)
// CHUNKS: tensor.extract_slice %[[X]][{{.*}}, 0] [4, 256] [1, 1] : tensor<64x256xf32> to tensor<4x256xf32>
// CHUNKS: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x256xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHUNKS: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x256xf32>)
// CHUNKS: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x256xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHUNKS: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %[[GAMMA]] : tensor<4x256xf32>, tensor<4xf32>, tensor<256xf32>) outs(%{{.*}} : tensor<4x256xf32>)
// CHUNKS: tensor.insert_slice %{{.*}} into %{{.*}}[%[[ROW]], 0] [4, 256] [1, 1] : tensor<4x256xf32> into tensor<16x256xf32>
// CHUNKS: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<4x256xf32>) outs(%{{.*}} : tensor<f32>)
// CHUNKS: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<4x256xf32>) outs(%{{.*}} : tensor<256xf32>)
// CHUNKS: scf.yield
// CHUNKS: scf.forall.in_parallel
// CHUNKS-NEXT: tensor.parallel_insert_slice %[[BLOCKS]]#0 into %[[Y]][%[[FIRST]], 0] [16, 256] [1, 1]
// CHUNKS-NEXT: tensor.parallel_insert_slice %[[BLOCKS]]#1 into %[[LOSSES]][%[[CHUNK]], 0] [1, 1] [1, 1] : tensor<f32> into tensor<4x16xf32>
// CHUNKS-NEXT: tensor.parallel_insert_slice %[[BLOCKS]]#2 into %[[COLUMNS]][%[[CHUNK]], 0] [1, 256] [1, 1]
// CHUNKS: %[[FIRSTS:.*]] = tensor.extract_slice %[[ALL]]#1[0, 0] [4, 1] [1, 1] : tensor<4x16xf32> to tensor<4xf32>
// CHUNKS: %[[LOSS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[FIRSTS]] : tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
// CHUNKS: %[[COLUMN:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[ALL]]#2 : tensor<4x256xf32>) outs(%{{.*}} : tensor<256xf32>)
// CHUNKS: return %[[ALL]]#0, %[[LOSS]], %[[COLUMN]]

// Without chunks: one loop whose reductions over the rows accumulate in
// its iteration arguments, starting from the original initial values.
// SEQUENTIAL-LABEL: func.func @layernorm
// SEQUENTIAL-NOT: scf.forall
// SEQUENTIAL: %[[BLOCKS:.*]]:3 = scf.for %{{.*}} = %c0 to %c64 step %c4 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<64x256xf32>, tensor<f32>, tensor<256xf32>)
// SEQUENTIAL-COUNT-6: linalg.generic
// SEQUENTIAL: scf.yield
// SEQUENTIAL-NOT: linalg.generic
// SEQUENTIAL: return %[[BLOCKS]]#0, %[[BLOCKS]]#1, %[[BLOCKS]]#2
func.func @layernorm(%x: tensor<64x256xf32>, %gamma: tensor<256xf32>) -> (tensor<64x256xf32>, tensor<f32>, tensor<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %rows_empty = tensor.empty() : tensor<64xf32>
  %rows_zero = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<64xf32>) -> tensor<64xf32>
  %full = tensor.empty() : tensor<64x256xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x256xf32>) outs(%rows_zero : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %centered = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<64x256xf32>, tensor<64xf32>) outs(%full : tensor<64x256xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %r = arith.subf %in, %mean : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%centered : tensor<64x256xf32>) outs(%rows_zero : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%centered, %squares, %gamma : tensor<64x256xf32>, tensor<64xf32>, tensor<256xf32>) outs(%full : tensor<64x256xf32>) {
  ^bb0(%c: f32, %sq: f32, %g: f32, %out: f32):
    %var = arith.divf %sq, %n : f32
    %inv = math.rsqrt %var : f32
    %scaled = arith.mulf %c, %inv : f32
    %r = arith.mulf %scaled, %g : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %scalar_empty = tensor.empty() : tensor<f32>
  %scalar_zero = linalg.fill ins(%zero : f32) outs(%scalar_empty : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%y : tensor<64x256xf32>) outs(%scalar_zero : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %columns_empty = tensor.empty() : tensor<256xf32>
  %columns_zero = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<256xf32>) -> tensor<256xf32>
  %column_sums = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%centered : tensor<64x256xf32>) outs(%columns_zero : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %y, %loss, %column_sums : tensor<64x256xf32>, tensor<f32>, tensor<256xf32>
}

// -----

// 10 rows in blocks of 4: two blocks in the loop, then a 2-row tail block.
// CHUNKS-LABEL: func.func @tail
// CHUNKS-NOT: scf.forall
// CHUNKS: %[[LOOP:.*]]:2 = scf.for %{{.*}} = %c0 to %c8 step %c4 iter_args
// CHUNKS-COUNT-2: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x1024xf32>)
// CHUNKS: scf.yield
// CHUNKS: %[[TAIL_X:.*]] = tensor.extract_slice %{{.*}}[8, 0] [2, 1024] [1, 1]
// CHUNKS: linalg.generic {{.*}} ins(%[[TAIL_X]] : tensor<2x1024xf32>) outs(%{{.*}} : tensor<2x1024xf32>)
// CHUNKS: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x1024xf32>)
// CHUNKS: tensor.insert_slice %{{.*}} into %[[LOOP]]#1[8, 0] [2, 1024] [1, 1]
func.func @tail(%x: tensor<10x1024xf32>) -> (tensor<10x1024xf32>, tensor<10x1024xf32>) {
  %full = tensor.empty() : tensor<10x1024xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<10x1024xf32>) outs(%full : tensor<10x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<10x1024xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<10x1024xf32>) outs(%full : tensor<10x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<10x1024xf32>
  return %a, %b : tensor<10x1024xf32>, tensor<10x1024xf32>
}

// -----

// A value reduced over the rows is complete only after the last block: its
// consumer does not join the group, and neither does the consumer's user.
// CHUNKS-LABEL: func.func @after_row_reduction
// CHUNKS: %[[CHUNKS:.*]]:2 = scf.forall (%{{.*}}) in (2)
// CHUNKS-COUNT-2: linalg.generic
// CHUNKS: scf.forall.in_parallel
// CHUNKS: %[[COLUMNS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[CHUNKS]]#1 : tensor<2x256xf32>)
// CHUNKS: linalg.generic {{.*}} ins(%[[CHUNKS]]#0, %[[COLUMNS]] : tensor<64x256xf32>, tensor<256xf32>)
func.func @after_row_reduction(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %full = tensor.empty() : tensor<64x256xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x256xf32>) outs(%full : tensor<64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %columns_empty = tensor.empty() : tensor<256xf32>
  %columns_zero = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<256xf32>) -> tensor<256xf32>
  %columns = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%e : tensor<64x256xf32>) outs(%columns_zero : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%e, %columns : tensor<64x256xf32>, tensor<256xf32>) outs(%full : tensor<64x256xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %r = arith.divf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  return %e, %scaled : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// Not blocked: a transposed read of a group value (block r would need
// column r of every row), a body that reads its loop indices, and a GEMM
// served by the runtime's kernel.
// CHUNKS-LABEL: func.func @not_blockable
// CHUNKS-NOT: scf.for
// CHUNKS-NOT: scf.forall
// CHUNKS-COUNT-4: linalg.generic
// CHUNKS: return
func.func @not_blockable(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %full = tensor.empty() : tensor<64x64xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%full : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%e : tensor<64x64xf32>) outs(%full : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %i = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%full : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %row = linalg.index 0 : index
    %row_i = arith.index_cast %row : index to i32
    %row_f = arith.sitofp %row_i : i32 to f32
    %r = arith.mulf %in, %row_f : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%full : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], library_call = "adjit_gemm_f32"} ins(%i, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%filled : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %out, %p : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %t, %i, %mm : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// An input that holds the rows in another dimension (a weight update from a
// transposed gradient) is sliced along that dimension.
// CHUNKS-LABEL: func.func @transposed_input
// CHUNKS-SAME: (%[[W:.*]]: tensor<256x256xf32>, %[[G:.*]]: tensor<256x256xf32>)
// CHUNKS: scf.forall (%{{.*}}) in (4)
// CHUNKS: scf.for %[[ROW:.*]] = %c0 to %c64 step %c16
// CHUNKS: %[[BLOCK_W:.*]] = tensor.extract_slice %[[W]][%[[FIRST:.*]], 0] [16, 256] [1, 1] : tensor<256x256xf32> to tensor<16x256xf32>
// CHUNKS: %[[BLOCK_G:.*]] = tensor.extract_slice %[[G]][0, %[[FIRST]]] [256, 16] [1, 1] : tensor<256x256xf32> to tensor<256x16xf32>
// CHUNKS: linalg.generic {{.*}} ins(%[[BLOCK_W]], %[[BLOCK_G]] : tensor<16x256xf32>, tensor<256x16xf32>)
func.func @transposed_input(%w: tensor<256x256xf32>, %g: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %full = tensor.empty() : tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w, %g : tensor<256x256xf32>, tensor<256x256xf32>) outs(%full : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A float sum without reassociation keeps its order: one loop, no chunks,
// however much work there is.
// CHUNKS-LABEL: func.func @strict_sum
// CHUNKS-NOT: scf.forall
// CHUNKS: scf.for %{{.*}} = %c0 to %c256 step
func.func @strict_sum(%x: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %full = tensor.empty() : tensor<256x256xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<256x256xf32>) outs(%full : tensor<256x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<256x256xf32>
  %s_e = tensor.empty() : tensor<f32>
  %s = linalg.fill ins(%zero : f32) outs(%s_e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%e : tensor<256x256xf32>) outs(%s : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %e, %sum : tensor<256x256xf32>, tensor<f32>
}

// -----

// A transpose reads its input along the rows: its blocks are whole tiles
// of 16 rows for adjit-vectorize, though 64 KiB would hold only 8 rows of
// its 8 KiB per row.
// CHUNKS-LABEL: func.func @transpose_blocks
// CHUNKS: scf.forall (%{{.*}}) in (4)
// CHUNKS: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHUNKS: tensor.extract_slice %arg0[0, %{{.*}}] [1024, 16] [1, 1] : tensor<1024x128xf32> to tensor<1024x16xf32>
// SEQUENTIAL-LABEL: func.func @transpose_blocks
// SEQUENTIAL-NOT: scf.for
// SEQUENTIAL: linalg.generic
func.func @transpose_blocks(%x: tensor<1024x128xf32>) -> tensor<128x1024xf32> {
  %empty = tensor.empty() : tensor<128x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1024x128xf32>) outs(%empty : tensor<128x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<128x1024xf32>
  return %y : tensor<128x1024xf32>
}

// -----

// An op between the members that reads a group value (here an element of
// it) moves after the loop that computes that value.
// SEQUENTIAL-LABEL: func.func @dependent_between_members
// SEQUENTIAL: %[[LOOP:.*]]:2 = scf.for
// SEQUENTIAL-COUNT-2: linalg.generic
// SEQUENTIAL: scf.yield
// SEQUENTIAL-NEXT: }
// SEQUENTIAL-NEXT: %[[CORNER:.*]] = tensor.extract %[[LOOP]]#0[%c0, %c0]
// SEQUENTIAL-NEXT: return %[[LOOP]]#1, %[[CORNER]]
func.func @dependent_between_members(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, f32) {
  %c0 = arith.constant 0 : index
  %full = tensor.empty() : tensor<64x256xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x256xf32>) outs(%full : tensor<64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %corner = tensor.extract %a[%c0, %c0] : tensor<64x256xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x256xf32>) outs(%full : tensor<64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  return %b, %corner : tensor<64x256xf32>, f32
}
