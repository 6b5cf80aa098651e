// A row group's thread blocks (adjit-tile-and-fuse-rows with `gpu`, then
// adjit-map-to-gpu) run on the CPU through adjit-emulate-gpu-launches, and
// their results are compared with plain loops. The function is what the
// cuda pipeline bufferizes a row group into: an scf.forall of 1024 chunks
// of 2 rows, chunk temporaries allocated inside it, two row sums (block-wide
// all-reduces, the second reading the first's per-row scalar), a sum over
// the whole matrix and column sums (each chunk's partial, combined after
// the loop) and an elementwise result row. Rows of 1100 give the 256
// threads 4 or 5 positions each: the folds that take 4 at a time and their
// remainders. The inputs are small integers and every value stays an
// integer below 2^24, so the results are exact in any order.
// RUN: adjit-opt %s --adjit-map-to-gpu --canonicalize --adjit-emulate-gpu-launches \
// RUN:   | mlir-opt --expand-strided-metadata --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm \
// RUN:       --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:       --reconcile-unrealized-casts \
// RUN:   | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils \
// RUN:   | FileCheck %s
// RUN: adjit-opt %s --adjit-map-to-gpu | FileCheck %s --check-prefix=MAPPED
// With 64 threads a block (row-threads), each thread takes 17 or 18
// positions of a row: the same results.
// RUN: adjit-opt %s --adjit-map-to-gpu=row-threads=64 --canonicalize --adjit-emulate-gpu-launches \
// RUN:   | mlir-opt --expand-strided-metadata --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm \
// RUN:       --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:       --reconcile-unrealized-casts \
// RUN:   | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils \
// RUN:   | FileCheck %s
// RUN: adjit-opt %s --adjit-map-to-gpu=row-threads=64 | FileCheck %s --check-prefix=MAPPED64
// RUN: not adjit-opt %s --adjit-map-to-gpu=row-threads=48 2>&1 | FileCheck %s --check-prefix=BAD

#matrix = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#columns = affine_map<(d0, d1) -> (d1)>
#whole = affine_map<(d0, d1) -> ()>
#vector = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// The chunks become one launch of 1024 blocks of 256 threads; the chunk
// temporaries become slices of allocations with a chunk dimension.
// MAPPED-LABEL: func.func @row_group
// MAPPED: memref.alloc(){{.*}} : memref<1024x1xf32>
// MAPPED: gpu.launch blocks({{.*}}) in ({{.*}} = %c1024, {{.*}}) threads({{.*}}) in ({{.*}} = %c256
// MAPPED-NOT: scf.forall
// MAPPED: scf.for
// MAPPED: gpu.all_reduce add
// MAPPED: gpu.barrier
// MAPPED: gpu.all_reduce add
// MAPPED: gpu.terminator
// MAPPED-NOT: memref<1xf32>
// MAPPED64: gpu.launch blocks({{.*}}) in ({{.*}} = %c1024, {{.*}}) threads({{.*}}) in ({{.*}} = %c64
// BAD: error: row-threads must be a multiple of 32 from 32 to 1024, got 48
// s = row sum of x; t = s - 3300; q = row sum of x * t; y = x + t + (q rem 7);
// total = sum of x * (t rem 2); columns = column sums of x + t.
func.func @row_group(%x: memref<2048x1100xf32>, %y: memref<2048x1100xf32>,
                     %columns: memref<1100xf32>, %total: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %offset = arith.constant 3300.0 : f32
  %seven = arith.constant 7.0 : f32
  %two = arith.constant 2.0 : f32
  %sums = memref.alloc() : memref<2048xf32>
  linalg.fill ins(%zero : f32) outs(%sums : memref<2048xf32>)
  linalg.fill ins(%zero : f32) outs(%total : memref<f32>)
  linalg.fill ins(%zero : f32) outs(%columns : memref<1100xf32>)
  %total_partials = memref.alloc() : memref<1024x16xf32>
  %column_partials = memref.alloc() : memref<1024x1100xf32>
  scf.forall (%chunk) in (1024) {
    %first_row = arith.muli %chunk, %c2 : index
    %y_rows = memref.subview %y[%first_row, 0] [2, 1100] [1, 1] : memref<2048x1100xf32> to memref<2x1100xf32, strided<[1100, 1], offset: ?>>
    %total_partial = memref.subview %total_partials[%chunk, 0] [1, 1] [1, 1] : memref<1024x16xf32> to memref<f32, strided<[], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%total_partial : memref<f32, strided<[], offset: ?>>)
    %column_partial = memref.subview %column_partials[%chunk, 0] [1, 1100] [1, 1] : memref<1024x1100xf32> to memref<1100xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%column_partial : memref<1100xf32, strided<[1], offset: ?>>)
    %s = memref.alloc() : memref<1xf32>
    %t = memref.alloc() : memref<1xf32>
    %q = memref.alloc() : memref<1xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      %row = arith.addi %first_row, %i : index
      %x_row = memref.subview %x[%row, 0] [1, 1100] [1, 1] : memref<2048x1100xf32> to memref<1x1100xf32, strided<[1100, 1], offset: ?>>
      %zeros = memref.subview %sums[%row] [1] [1] : memref<2048xf32> to memref<1xf32, strided<[1], offset: ?>>
      linalg.copy ins(%zeros : memref<1xf32, strided<[1], offset: ?>>) outs(%s : memref<1xf32>)
      linalg.generic {indexing_maps = [#matrix, #rows], iterator_types = ["parallel", "reduction"]}
          ins(%x_row : memref<1x1100xf32, strided<[1100, 1], offset: ?>>) outs(%s : memref<1xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %r = arith.addf %acc, %in fastmath<reassoc> : f32
        linalg.yield %r : f32
      }
      linalg.generic {indexing_maps = [#vector, #vector], iterator_types = ["parallel"]}
          ins(%s : memref<1xf32>) outs(%t : memref<1xf32>) {
      ^bb0(%in: f32, %out: f32):
        %r = arith.subf %in, %offset : f32
        linalg.yield %r : f32
      }
      linalg.copy ins(%zeros : memref<1xf32, strided<[1], offset: ?>>) outs(%q : memref<1xf32>)
      linalg.generic {indexing_maps = [#matrix, #rows, #rows], iterator_types = ["parallel", "reduction"]}
          ins(%x_row, %t : memref<1x1100xf32, strided<[1100, 1], offset: ?>>, memref<1xf32>) outs(%q : memref<1xf32>) {
      ^bb0(%in: f32, %tr: f32, %acc: f32):
        %p = arith.mulf %in, %tr : f32
        %r = arith.addf %acc, %p fastmath<reassoc> : f32
        linalg.yield %r : f32
      }
      linalg.generic {indexing_maps = [#matrix, #rows, #whole], iterator_types = ["reduction", "reduction"]}
          ins(%x_row, %t : memref<1x1100xf32, strided<[1100, 1], offset: ?>>, memref<1xf32>) outs(%total_partial : memref<f32, strided<[], offset: ?>>) {
      ^bb0(%in: f32, %tr: f32, %acc: f32):
        %parity = arith.remf %tr, %two : f32
        %p = arith.mulf %in, %parity : f32
        %r = arith.addf %acc, %p fastmath<reassoc> : f32
        linalg.yield %r : f32
      }
      linalg.generic {indexing_maps = [#matrix, #rows, #columns], iterator_types = ["reduction", "parallel"]}
          ins(%x_row, %t : memref<1x1100xf32, strided<[1100, 1], offset: ?>>, memref<1xf32>) outs(%column_partial : memref<1100xf32, strided<[1], offset: ?>>) {
      ^bb0(%in: f32, %tr: f32, %acc: f32):
        %v = arith.addf %in, %tr : f32
        %r = arith.addf %acc, %v fastmath<reassoc> : f32
        linalg.yield %r : f32
      }
      %y_row = memref.subview %y_rows[%i, 0] [1, 1100] [1, 1] : memref<2x1100xf32, strided<[1100, 1], offset: ?>> to memref<1x1100xf32, strided<[1100, 1], offset: ?>>
      linalg.generic {indexing_maps = [#matrix, #rows, #rows, #matrix], iterator_types = ["parallel", "parallel"]}
          ins(%x_row, %t, %q : memref<1x1100xf32, strided<[1100, 1], offset: ?>>, memref<1xf32>, memref<1xf32>) outs(%y_row : memref<1x1100xf32, strided<[1100, 1], offset: ?>>) {
      ^bb0(%in: f32, %tr: f32, %qr: f32, %out: f32):
        %v = arith.addf %in, %tr : f32
        %k = arith.remf %qr, %seven : f32
        %r = arith.addf %v, %k : f32
        linalg.yield %r : f32
      }
    }
    memref.dealloc %s : memref<1xf32>
    memref.dealloc %t : memref<1xf32>
    memref.dealloc %q : memref<1xf32>
  }
  %firsts = memref.subview %total_partials[0, 0] [1024, 1] [1, 1] : memref<1024x16xf32> to memref<1024xf32, strided<[16]>>
  linalg.generic {indexing_maps = [#vector, #scalar], iterator_types = ["reduction"]}
      ins(%firsts : memref<1024xf32, strided<[16]>>) outs(%total : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#matrix, #columns], iterator_types = ["reduction", "parallel"]}
      ins(%column_partials : memref<1024x1100xf32>) outs(%columns : memref<1100xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %r : f32
  }
  memref.dealloc %sums : memref<2048xf32>
  memref.dealloc %total_partials : memref<1024x16xf32>
  memref.dealloc %column_partials : memref<1024x1100xf32>
  return
}

// The same function in plain loops on the host.
func.func @reference(%x: memref<2048x1100xf32>, %y: memref<2048x1100xf32>,
                     %columns: memref<1100xf32>, %total: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 2048 : index
  %width = arith.constant 1100 : index
  %zero = arith.constant 0.0 : f32
  %offset = arith.constant 3300.0 : f32
  %seven = arith.constant 7.0 : f32
  %two = arith.constant 2.0 : f32
  scf.for %j = %c0 to %width step %c1 {
    memref.store %zero, %columns[%j] : memref<1100xf32>
  }
  memref.store %zero, %total[] : memref<f32>
  scf.for %i = %c0 to %rows step %c1 {
    %s = scf.for %j = %c0 to %width step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %x[%i, %j] : memref<2048x1100xf32>
      %r = arith.addf %acc, %v : f32
      scf.yield %r : f32
    }
    %t = arith.subf %s, %offset : f32
    %q = scf.for %j = %c0 to %width step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %x[%i, %j] : memref<2048x1100xf32>
      %p = arith.mulf %v, %t : f32
      %r = arith.addf %acc, %p : f32
      scf.yield %r : f32
    }
    %k = arith.remf %q, %seven : f32
    %parity = arith.remf %t, %two : f32
    scf.for %j = %c0 to %width step %c1 {
      %v = memref.load %x[%i, %j] : memref<2048x1100xf32>
      %vt = arith.addf %v, %t : f32
      %out = arith.addf %vt, %k : f32
      memref.store %out, %y[%i, %j] : memref<2048x1100xf32>
      %c = memref.load %columns[%j] : memref<1100xf32>
      %c_next = arith.addf %c, %vt : f32
      memref.store %c_next, %columns[%j] : memref<1100xf32>
      %tot = memref.load %total[] : memref<f32>
      %p = arith.mulf %v, %parity : f32
      %tot_next = arith.addf %tot, %p : f32
      memref.store %tot_next, %total[] : memref<f32>
    }
  }
  return
}

// The number of elements where a and b differ.
func.func @differences(%a: memref<?xf32>, %b: memref<?xf32>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %none = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = memref.dim %a, %c0 : memref<?xf32>
  %count = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %none) -> i64 {
    %ai = memref.load %a[%i] : memref<?xf32>
    %bi = memref.load %b[%i] : memref<?xf32>
    %same = arith.cmpf oeq, %ai, %bi : f32
    %next = arith.addi %acc, %one : i64
    %r = arith.select %same, %acc, %next : i64
    scf.yield %r : i64
  }
  return %count : i64
}

func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %n = arith.constant 2252800 : index
  %garbage = arith.constant 12345.0 : f32
  // x[i] = (i mod 7) as f32 (rows of 1100 differ: their sums are 3297 to
  // 3303), y and the outputs start as garbage.
  %x = memref.alloc() : memref<2252800xf32>
  %y = memref.alloc() : memref<2252800xf32>
  %y_ref = memref.alloc() : memref<2252800xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %c7 : index
    %k = arith.index_cast %r : index to i64
    %f = arith.sitofp %k : i64 to f32
    memref.store %f, %x[%i] : memref<2252800xf32>
    memref.store %garbage, %y[%i] : memref<2252800xf32>
  }
  %columns = memref.alloc() : memref<1100xf32>
  %columns_ref = memref.alloc() : memref<1100xf32>
  %total = memref.alloc() : memref<f32>
  %total_ref = memref.alloc() : memref<f32>
  memref.store %garbage, %total[] : memref<f32>
  %xm = memref.expand_shape %x [[0, 1]] output_shape [2048, 1100] : memref<2252800xf32> into memref<2048x1100xf32>
  %ym = memref.expand_shape %y [[0, 1]] output_shape [2048, 1100] : memref<2252800xf32> into memref<2048x1100xf32>
  %ym_ref = memref.expand_shape %y_ref [[0, 1]] output_shape [2048, 1100] : memref<2252800xf32> into memref<2048x1100xf32>
  call @row_group(%xm, %ym, %columns, %total) : (memref<2048x1100xf32>, memref<2048x1100xf32>, memref<1100xf32>, memref<f32>) -> ()
  call @reference(%xm, %ym_ref, %columns_ref, %total_ref) : (memref<2048x1100xf32>, memref<2048x1100xf32>, memref<1100xf32>, memref<f32>) -> ()

  // The differences from the reference in y, the column sums and the
  // total, then the total and two elements of y and of the column sums.
  // CHECK: [0, 0, 0, -4260, -3, -2, 6132, 6136]
  %report = memref.alloc() : memref<8xi64>
  %yd = memref.cast %y : memref<2252800xf32> to memref<?xf32>
  %yd_ref = memref.cast %y_ref : memref<2252800xf32> to memref<?xf32>
  %y_bad = call @differences(%yd, %yd_ref) : (memref<?xf32>, memref<?xf32>) -> i64
  %cd = memref.cast %columns : memref<1100xf32> to memref<?xf32>
  %cd_ref = memref.cast %columns_ref : memref<1100xf32> to memref<?xf32>
  %c_bad = call @differences(%cd, %cd_ref) : (memref<?xf32>, memref<?xf32>) -> i64
  %tv = memref.load %total[] : memref<f32>
  %tv_ref = memref.load %total_ref[] : memref<f32>
  %t_same = arith.cmpf oeq, %tv, %tv_ref : f32
  %t_bad = arith.select %t_same, %c0_i64, %c1_i64 : i64
  memref.store %y_bad, %report[%c0] : memref<8xi64>
  memref.store %c_bad, %report[%c1] : memref<8xi64>
  memref.store %t_bad, %report[%c2] : memref<8xi64>
  %y0 = memref.load %y[%c0] : memref<2252800xf32>
  %y1 = memref.load %y[%c1] : memref<2252800xf32>
  %col0 = memref.load %columns[%c0] : memref<1100xf32>
  %col1 = memref.load %columns[%c1] : memref<1100xf32>
  %values = memref.alloc() : memref<5xf32>
  memref.store %tv, %values[%c0] : memref<5xf32>
  memref.store %y0, %values[%c1] : memref<5xf32>
  memref.store %y1, %values[%c2] : memref<5xf32>
  memref.store %col0, %values[%c3] : memref<5xf32>
  memref.store %col1, %values[%c4] : memref<5xf32>
  scf.for %i = %c0 to %c5 step %c1 {
    %v = memref.load %values[%i] : memref<5xf32>
    %k = arith.fptosi %v : f32 to i64
    %slot = arith.addi %i, %c3 : index
    memref.store %k, %report[%slot] : memref<8xi64>
  }
  %unranked = memref.cast %report : memref<8xi64> to memref<*xi64>
  call @printMemrefI64(%unranked) : (memref<*xi64>) -> ()
  return
}
