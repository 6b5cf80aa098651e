// adjit-map-to-gpu: each structured op on buffers becomes one gpu.launch:
// a thread per output point (accumulators in registers), or, for a wide
// reduction, a block per point (per chunk of a long reduction) combined by
// gpu.all_reduce; host scalars are read by the kernel and host loops that
// touch buffers run on one thread.
// RUN: adjit-opt %s --adjit-map-to-gpu --canonicalize | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#all = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @elementwise
// 4x300 points, 256 threads per block: 5 blocks; the last dimension is the
// fastest across threads.
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C5]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C256]]
// CHECK: %[[P:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[P]], %c1200
// CHECK: scf.if
// CHECK: %[[J:.*]] = arith.remui %[[P]], %c300
// CHECK: memref.load %arg0[%{{.*}}, %[[J]]]
// CHECK: math.exp
// CHECK: memref.store
// CHECK-NOT: linalg.generic
func.func @elementwise(%x: memref<4x300xf32>, %y: memref<4x300xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x300xf32>) outs(%y : memref<4x300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// A large elementwise op (1024x1024 points: 1024 blocks of 256 threads, 4
// points each): a thread's points lie a launch (262144 points) apart; its 4
// loads come first, then the 4 payloads, then the 4 stores, with no bounds
// check.
// CHECK-LABEL: func.func @elementwise_large
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1024, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK-NOT: scf.if
// CHECK: %[[P0:.*]] = arith.addi
// CHECK: %[[P1:.*]] = arith.addi %[[P0]], %c262144
// CHECK: %[[P2:.*]] = arith.addi %[[P0]], %c524288
// CHECK: %[[P3:.*]] = arith.addi %[[P0]], %c786432
// CHECK-COUNT-4: memref.load %arg0
// CHECK-NOT: memref.store
// CHECK-COUNT-4: math.exp
// CHECK-NOT: memref.load
// CHECK-COUNT-4: memref.store
// CHECK: gpu.terminator
func.func @elementwise_large(%x: memref<1024x1024xf32>, %y: memref<1024x1024xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1024x1024xf32>) outs(%y : memref<1024x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// A short reduction (3 per row): a thread per row keeps the sum in a
// register, loaded before the loop and stored after it.
// CHECK-LABEL: func.func @short_rows
// CHECK: gpu.launch
// CHECK: %[[INIT:.*]] = memref.load %arg1
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK: arith.addf %[[ACC]]
// CHECK: memref.store %[[SUM]], %arg1
// CHECK-NOT: gpu.all_reduce
func.func @short_rows(%x: memref<8x3xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x3xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// Long rows: a block per row; its threads stride over the row (the loop
// unrolled 4 times: 4 loads per thread in flight, then a remainder loop),
// then a block-wide all-reduce; thread 0 adds the result to the output.
// CHECK-LABEL: func.func @long_rows
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C8]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C256]]
// A thread's positions: ceil((1000 - t) / 256), rounded down to a multiple
// of 4 for the unrolled loop (a thread with 4 positions must unroll).
// CHECK: %[[SPAN:.*]] = arith.maxsi
// CHECK: %[[UP:.*]] = arith.addi %[[SPAN]], %c255
// CHECK: %[[COUNT:.*]] = arith.divsi %[[UP]], %[[C256]]
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %[[T]] to %[[MAIN_END:.*]] step %c1024 iter_args
// CHECK-COUNT-4: memref.load %arg0
// CHECK: scf.yield
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[MAIN_END]] to %c1000 step %[[C256]] iter_args(%{{.*}} = %[[MAIN]])
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK: arith.cmpi eq, %[[T]], %c0
// CHECK: %[[OLD:.*]] = memref.load %arg1[%[[ROW:.*]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]]
// CHECK: memref.store %[[NEW]], %arg1[%[[ROW]]]
func.func @long_rows(%x: memref<8x1000xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// A long full reduction is split into chunks of 4096 (1024 blocks), whose
// partial maxima a second launch combines; the partials are a temporary.
// CHECK-LABEL: func.func @full_max
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<1x1024xf32>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1024
// CHECK: gpu.all_reduce maximumf
// CHECK: memref.store %{{.*}}, %[[PARTIALS]]
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1,
// CHECK: memref.load %[[PARTIALS]]
// CHECK: gpu.all_reduce maximumf
// CHECK: memref.store %{{.*}}, %arg1[]
// CHECK: memref.dealloc %[[PARTIALS]]
func.func @full_max(%x: memref<4194304xf32>, %m: memref<f32>) {
  linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]}
      ins(%x : memref<4194304xf32>) outs(%m : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.maximumf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// Column sums (the innermost loop parallel): blocks of 32 columns by 8 row
// groups, combined in shared memory; 300 rows in 2 chunks of 150, whose
// partial sums a second launch (a thread per column) adds up.
// CHECK-LABEL: func.func @column_sums
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<2x64xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %[[CHUNK:.*]], %{{.*}}) in ({{.*}} = %c2, {{.*}} = %c2, {{.*}}) threads(%[[COL:.*]], %[[GROUP:.*]], %{{.*}}) in ({{.*}} = %c32, {{.*}} = %c8, {{.*}}) workgroup(%[[SHARED:.*]] : memref<8x32xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} step %c8 iter_args
// CHECK: memref.store %{{.*}}, %[[SHARED]][%[[GROUP]], %[[COL]]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[PARTIALS]][%[[CHUNK]], %{{.*}}]
// CHECK: gpu.launch
// CHECK: %[[P0:.*]] = memref.load %[[PARTIALS]][%c0,
// CHECK: %[[P1:.*]] = memref.load %[[PARTIALS]][%c1,
// CHECK: arith.addf %[[P0]], %[[P1]]
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: memref.dealloc %[[PARTIALS]]
func.func @column_sums(%x: memref<300x64xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<300x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// A combiner that is not an all-reduce operation (subtraction) keeps the
// thread-per-point form.
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for
// CHECK: arith.subf
func.func @not_a_combiner(%x: memref<8x1000xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.subf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// An output that a parallel loop does not index (a column sum written by
// every row's thread) would race: all loops run in one thread.
// CHECK-LABEL: func.func @racy_output
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in ({{.*}} = %c32,
// CHECK: scf.for
// CHECK: scf.for
func.func @racy_output(%x: memref<8x3xf32>, %rows: memref<8xf32>, %cols: memref<3xf32>) {
  linalg.generic {indexing_maps = [#id, #row, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x3xf32>) outs(%rows, %cols : memref<8xf32>, memref<3xf32>) {
  ^bb0(%in: f32, %r: f32, %c: f32):
    %a = arith.addf %r, %in : f32
    %b = arith.addf %c, %in : f32
    linalg.yield %a, %b : f32, f32
  }
  return
}

// pad's padding value: the kernel reads the 0-d buffer, not the host.
// CHECK-LABEL: func.func @host_scalar
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: memref.load %arg0[] : memref<f32>
func.func @host_scalar(%v: memref<f32>, %y: memref<16xf32>) {
  %s = memref.load %v[] : memref<f32>
  linalg.fill ins(%s : f32) outs(%y : memref<16xf32>)
  return
}

// scatter_add's loops (indices may repeat) run in order on one thread.
// CHECK-LABEL: func.func @host_loop
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in ({{.*}} = %c1,
// CHECK-NEXT: scf.for
func.func @host_loop(%ids: memref<3xindex>, %acc: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c3 step %c1 {
    %j = memref.load %ids[%i] : memref<3xindex>
    %old = memref.load %acc[%j] : memref<10xf32>
    %new = arith.addf %old, %one : f32
    memref.store %new, %acc[%j] : memref<10xf32>
  }
  return
}

// A fill of a reduction's output folds into the reduction's kernel: one
// launch, which starts from the fill's value instead of reading the output.
// CHECK-LABEL: func.func @filled_row_sums
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: memref.load %arg1
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK: %[[START:.*]] = arith.addf %[[TOTAL]], %cst
// CHECK: memref.store %[[START]], %arg1
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @filled_row_sums(%x: memref<8x1000xf32>, %s: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// A fill whose buffer something else reads before the reduction keeps its
// own launch.
// CHECK-LABEL: func.func @filled_and_read
// CHECK-COUNT-3: gpu.launch
// CHECK: return
func.func @filled_and_read(%x: memref<8x1000xf32>, %s: memref<8xf32>, %t: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  memref.copy %s, %t : memref<8xf32> to memref<8xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}
