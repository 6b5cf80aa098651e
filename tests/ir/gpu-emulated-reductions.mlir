// What adjit-map-to-gpu's kernels compute, run on the CPU: each gpu.launch
// becomes loops over its blocks and threads (adjit-emulate-gpu-launches,
// with the GPU's barrier and all-reduce semantics), and the results are
// checked against closed forms. The inputs are small integers, so that
// every sum is exact in f32 whatever the order. Covered: chunked full
// reductions with a partial last chunk and thread remainders, the folds
// that take 4 positions at a time, a sum merged with a per-point output
// (W1's value and gradient in one kernel), row sums of 1000 and of 1024
// (exactly 4 positions per thread), column sums split over chunks (alone
// and two in one kernel), and a large elementwise op with 4 points per
// thread. Where a kernel function fills its outputs first (linalg.fill, as
// bufferized reductions do), the fill folds into the reduction's kernel:
// the caller leaves garbage there to show that nothing reads it.
// RUN: adjit-opt %s --adjit-map-to-gpu --canonicalize --adjit-emulate-gpu-launches \
// RUN:   | mlir-opt --lower-affine --convert-scf-to-cf --expand-strided-metadata --finalize-memref-to-llvm \
// RUN:       --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:       --reconcile-unrealized-casts \
// RUN:   | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils \
// RUN:   | FileCheck %s

#vector = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
#matrix = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#columns = affine_map<(d0, d1) -> (d1)>

// sum(x) and 2x in one generic (what MergeGenerics makes of W1's value and
// gradient on the cuda target): one chunked block reduction that writes
// the per-point output as it folds.
func.func @sum_and_twice(%x: memref<1048613xf32>, %s: memref<f32>, %y: memref<1048613xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<f32>)
  linalg.generic {indexing_maps = [#vector, #scalar, #vector], iterator_types = ["reduction"]}
      ins(%x : memref<1048613xf32>) outs(%s, %y : memref<f32>, memref<1048613xf32>) {
  ^bb0(%in: f32, %acc: f32, %out: f32):
    %sum = arith.addf %acc, %in : f32
    %twice = arith.addf %in, %in : f32
    linalg.yield %sum, %twice : f32, f32
  }
  return
}

func.func @full_max(%x: memref<70000xf32>, %m: memref<f32>) {
  linalg.generic {indexing_maps = [#vector, #scalar], iterator_types = ["reduction"]}
      ins(%x : memref<70000xf32>) outs(%m : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %acc, %in : f32
    linalg.yield %r : f32
  }
  return
}

func.func @row_sums_1000(%x: memref<8x1000xf32>, %s: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.generic {indexing_maps = [#matrix, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  }
  return
}

func.func @row_sums_1024(%x: memref<8x1024xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#matrix, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1024xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  }
  return
}

// Rows of 3: a thread per row keeps its sum in a register, starting from
// the folded fill's value.
func.func @short_row_sums(%x: memref<1000x3xf32>, %s: memref<1000xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<1000xf32>)
  linalg.generic {indexing_maps = [#matrix, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1000x3xf32>) outs(%s : memref<1000xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  }
  return
}

func.func @column_sums(%x: memref<300x64xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#matrix, #columns], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<300x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  }
  return
}

// Two column sums in one generic (MergeGenerics' W3 dgamma and dbeta):
// two accumulators through the column form's shared memory and chunks.
func.func @column_sums_and_squares(%x: memref<300x64xf32>, %s: memref<64xf32>, %q: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  linalg.fill ins(%zero : f32) outs(%q : memref<64xf32>)
  linalg.generic {indexing_maps = [#matrix, #columns, #columns], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<300x64xf32>) outs(%s, %q : memref<64xf32>, memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32, %squares: f32):
    %r = arith.addf %acc, %in : f32
    %square = arith.mulf %in, %in : f32
    %r2 = arith.addf %squares, %square : f32
    linalg.yield %r, %r2 : f32, f32
  }
  return
}

func.func @twice_plus_one(%x: memref<1024x1024xf32>, %y: memref<1024x1024xf32>) {
  linalg.generic {indexing_maps = [#matrix, #matrix], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1024x1024xf32>) outs(%y : memref<1024x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %twice = arith.addf %in, %in : f32
    %one = arith.constant 1.0 : f32
    %r = arith.addf %twice, %one : f32
    linalg.yield %r : f32
  }
  return
}

func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}

// Prints a vector of f32 holding integers as i64.
func.func @print_integers(%v: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %v, %c0 : memref<?xf32>
  %ints = memref.alloc(%n) : memref<?xi64>
  scf.for %i = %c0 to %n step %c1 {
    %f = memref.load %v[%i] : memref<?xf32>
    %k = arith.fptosi %f : f32 to i64
    memref.store %k, %ints[%i] : memref<?xi64>
  }
  %unranked = memref.cast %ints : memref<?xi64> to memref<*xi64>
  call @printMemrefI64(%unranked) : (memref<*xi64>) -> ()
  memref.dealloc %ints : memref<?xi64>
  return
}

// x[i] = i mod m, as f32.
func.func @fill_modulo(%v: memref<?xf32>, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %v, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %m : index
    %k = arith.index_cast %r : index to i64
    %f = arith.sitofp %k : i64 to f32
    memref.store %f, %v[%i] : memref<?xf32>
  }
  return
}

// The number of points where y != a * x + b.
func.func @mismatches(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %b: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %count = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %xi = memref.load %x[%i] : memref<?xf32>
    %yi = memref.load %y[%i] : memref<?xf32>
    %ax = arith.mulf %a, %xi : f32
    %want = arith.addf %ax, %b : f32
    %same = arith.cmpf oeq, %yi, %want : f32
    %next = arith.addf %acc, %one : f32
    %r = arith.select %same, %acc, %next : f32
    scf.yield %r : f32
  }
  return %count : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %report = memref.alloc() : memref<2xf32>
  %report_dyn = memref.cast %report : memref<2xf32> to memref<?xf32>

  // x[i] = i mod 8 over 2^20 + 37 points: sum 131076 * 28 + 10.
  // CHECK: [3670138, 0]
  %x1 = memref.alloc() : memref<1048613xf32>
  %x1d = memref.cast %x1 : memref<1048613xf32> to memref<?xf32>
  %c8 = arith.constant 8 : index
  call @fill_modulo(%x1d, %c8) : (memref<?xf32>, index) -> ()
  %s1 = memref.alloc() : memref<f32>
  %garbage = arith.constant 100000.0 : f32
  memref.store %garbage, %s1[] : memref<f32>
  %y1 = memref.alloc() : memref<1048613xf32>
  %y1d = memref.cast %y1 : memref<1048613xf32> to memref<?xf32>
  call @sum_and_twice(%x1, %s1, %y1) : (memref<1048613xf32>, memref<f32>, memref<1048613xf32>) -> ()
  %sum1 = memref.load %s1[] : memref<f32>
  %bad1 = call @mismatches(%x1d, %y1d, %two, %zero) : (memref<?xf32>, memref<?xf32>, f32, f32) -> f32
  memref.store %sum1, %report[%c0] : memref<2xf32>
  memref.store %bad1, %report[%c1] : memref<2xf32>
  call @print_integers(%report_dyn) : (memref<?xf32>) -> ()

  // x[i] = i mod 1000, one 5000 at 54321: the maximum of 18 chunks.
  // CHECK: [5000, 999]
  %x2 = memref.alloc() : memref<70000xf32>
  %x2d = memref.cast %x2 : memref<70000xf32> to memref<?xf32>
  %c1000 = arith.constant 1000 : index
  call @fill_modulo(%x2d, %c1000) : (memref<?xf32>, index) -> ()
  %m2 = memref.alloc() : memref<f32>
  %lowest = arith.constant 0xFF800000 : f32
  memref.store %lowest, %m2[] : memref<f32>
  call @full_max(%x2, %m2) : (memref<70000xf32>, memref<f32>) -> ()
  %max_without = memref.load %m2[] : memref<f32>
  %c54321 = arith.constant 54321 : index
  %big = arith.constant 5000.0 : f32
  memref.store %big, %x2[%c54321] : memref<70000xf32>
  memref.store %lowest, %m2[] : memref<f32>
  call @full_max(%x2, %m2) : (memref<70000xf32>, memref<f32>) -> ()
  %max_with = memref.load %m2[] : memref<f32>
  memref.store %max_with, %report[%c0] : memref<2xf32>
  memref.store %max_without, %report[%c1] : memref<2xf32>
  call @print_integers(%report_dyn) : (memref<?xf32>) -> ()

  // x[r, c] = (1000 r + c) mod 7: the rows' sums differ.
  // CHECK: [2997, 2998, 2999, 3000, 3001, 3002, 3003, 2997]
  %x3 = memref.alloc() : memref<8000xf32>
  %x3d = memref.cast %x3 : memref<8000xf32> to memref<?xf32>
  %c7 = arith.constant 7 : index
  call @fill_modulo(%x3d, %c7) : (memref<?xf32>, index) -> ()
  %x3m = memref.expand_shape %x3 [[0, 1]] output_shape [8, 1000] : memref<8000xf32> into memref<8x1000xf32>
  %s3 = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %garbage, %s3[%i] : memref<8xf32>
  }
  call @row_sums_1000(%x3m, %s3) : (memref<8x1000xf32>, memref<8xf32>) -> ()
  %s3d = memref.cast %s3 : memref<8xf32> to memref<?xf32>
  call @print_integers(%s3d) : (memref<?xf32>) -> ()

  // x[r, c] = (1024 r + c) mod 13 over rows of 1024 (4 positions per
  // thread).
  // CHECK: [6129, 6138, 6147, 6156, 6139, 6135, 6144, 6153]
  %x4 = memref.alloc() : memref<8192xf32>
  %x4d = memref.cast %x4 : memref<8192xf32> to memref<?xf32>
  %c13 = arith.constant 13 : index
  call @fill_modulo(%x4d, %c13) : (memref<?xf32>, index) -> ()
  %x4m = memref.expand_shape %x4 [[0, 1]] output_shape [8, 1024] : memref<8192xf32> into memref<8x1024xf32>
  %s4 = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %s4[%i] : memref<8xf32>
  }
  call @row_sums_1024(%x4m, %s4) : (memref<8x1024xf32>, memref<8xf32>) -> ()
  %s4d = memref.cast %s4 : memref<8xf32> to memref<?xf32>
  call @print_integers(%s4d) : (memref<?xf32>) -> ()

  // x[r, c] = (3 r + c) mod 5 over 1000 rows of 3: the first 8 sums.
  // CHECK: [3, 7, 6, 5, 9, 3, 7, 6]
  %x7 = memref.alloc() : memref<3000xf32>
  %x7d = memref.cast %x7 : memref<3000xf32> to memref<?xf32>
  %c5 = arith.constant 5 : index
  call @fill_modulo(%x7d, %c5) : (memref<?xf32>, index) -> ()
  %x7m = memref.expand_shape %x7 [[0, 1]] output_shape [1000, 3] : memref<3000xf32> into memref<1000x3xf32>
  %s7 = memref.alloc() : memref<1000xf32>
  %c1000_rows = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000_rows step %c1 {
    memref.store %garbage, %s7[%i] : memref<1000xf32>
  }
  call @short_row_sums(%x7m, %s7) : (memref<1000x3xf32>, memref<1000xf32>) -> ()
  %s7head = memref.subview %s7[0] [8] [1] : memref<1000xf32> to memref<8xf32, strided<[1]>>
  %s7copy = memref.alloc() : memref<8xf32>
  memref.copy %s7head, %s7copy : memref<8xf32, strided<[1]>> to memref<8xf32>
  %s7d = memref.cast %s7copy : memref<8xf32> to memref<?xf32>
  call @print_integers(%s7d) : (memref<?xf32>) -> ()

  // x[r, c] = (64 r + c) mod 7 over 300 rows: columns 0, 1, 2, ... sum to
  // 897, 903, 902, 901, 900, 899, 898, repeating.
  // CHECK: [897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897, 903, 902, 901, 900, 899, 898, 897]
  %x5 = memref.alloc() : memref<19200xf32>
  %x5d = memref.cast %x5 : memref<19200xf32> to memref<?xf32>
  call @fill_modulo(%x5d, %c7) : (memref<?xf32>, index) -> ()
  %x5m = memref.expand_shape %x5 [[0, 1]] output_shape [300, 64] : memref<19200xf32> into memref<300x64xf32>
  %s5 = memref.alloc() : memref<64xf32>
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %s5[%i] : memref<64xf32>
  }
  call @column_sums(%x5m, %s5) : (memref<300x64xf32>, memref<64xf32>) -> ()
  %s5d = memref.cast %s5 : memref<64xf32> to memref<?xf32>
  call @print_integers(%s5d) : (memref<?xf32>) -> ()

  // The same sums beside the sums of squares, in one kernel.
  // CHECK: [897, 903, 902, 901, 900, 899, 898, 897,
  // CHECK: [3877, 3913, 3912, 3909, 3904, 3897, 3888, 3877, 3913, 3912,
  %q5 = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %garbage, %s5[%i] : memref<64xf32>
    memref.store %garbage, %q5[%i] : memref<64xf32>
  }
  call @column_sums_and_squares(%x5m, %s5, %q5) : (memref<300x64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  call @print_integers(%s5d) : (memref<?xf32>) -> ()
  %q5d = memref.cast %q5 : memref<64xf32> to memref<?xf32>
  call @print_integers(%q5d) : (memref<?xf32>) -> ()

  // y = 2x + 1 over 1024 x 1024 points, 4 per thread: no point differs.
  // CHECK: [0]
  %x6 = memref.alloc() : memref<1048576xf32>
  %x6d = memref.cast %x6 : memref<1048576xf32> to memref<?xf32>
  %c16 = arith.constant 16 : index
  call @fill_modulo(%x6d, %c16) : (memref<?xf32>, index) -> ()
  %x6m = memref.expand_shape %x6 [[0, 1]] output_shape [1024, 1024] : memref<1048576xf32> into memref<1024x1024xf32>
  %y6 = memref.alloc() : memref<1048576xf32>
  %y6d = memref.cast %y6 : memref<1048576xf32> to memref<?xf32>
  %y6m = memref.expand_shape %y6 [[0, 1]] output_shape [1024, 1024] : memref<1048576xf32> into memref<1024x1024xf32>
  call @twice_plus_one(%x6m, %y6m) : (memref<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  %one = arith.constant 1.0 : f32
  %bad6 = call @mismatches(%x6d, %y6d, %two, %one) : (memref<?xf32>, memref<?xf32>, f32, f32) -> f32
  %one_report = memref.alloc() : memref<1xf32>
  %one_report_dyn = memref.cast %one_report : memref<1xf32> to memref<?xf32>
  memref.store %bad6, %one_report[%c0] : memref<1xf32>
  call @print_integers(%one_report_dyn) : (memref<?xf32>) -> ()
  return
}
