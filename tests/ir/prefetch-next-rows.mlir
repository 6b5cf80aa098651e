// A row loop of several passes prefetches, in its heaviest pass, the next
// rows of the caller's buffers that it reads: one prefetch per 64-byte line,
// spread over that pass's iterations. Rows written only, rows of
// temporaries, the same row every iteration, short rows, strided views and
// single-pass loops get none.
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-prefetch-next-rows))" | FileCheck %s
// With no minimum, the short row is prefetched too; the column is still no row.
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-prefetch-next-rows{min-row-bytes=0}))" | FileCheck %s --check-prefix=ANY-ROW
// RUN: not adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-prefetch-next-rows{line-bytes=0}))" 2>&1 | FileCheck %s --check-prefix=BAD-LINE
// BAD-LINE: line-bytes must be positive, got 0

// CHECK-DAG: #[[LINE0:.*]] = affine_map<(d0) -> ((d0 floordiv 32) * 32)>
// CHECK-DAG: #[[LINE1:.*]] = affine_map<(d0) -> (((d0 floordiv 32) * 2 + 1) * 16)>
// CHECK-LABEL: func.func @two_passes
// CHECK-SAME: (%[[X:[^:]*]]: memref<64x1024xf32>, %[[C:[^:]*]]: memref<64x1024xf32>, %{{[^:]*}}: memref<1x1024xf32>, %{{[^:]*}}: memref<64x1024xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[R:[^ ]*]] = %{{.*}} to %{{.*}} step %[[ONE]] {
// The light pass reads x and prefetches nothing.
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
// CHECK: %[[NEXT:.*]] = arith.addi %[[R]], %[[ONE]] : index
// CHECK: %[[NEXT_X:.*]] = memref.subview %[[X]][%[[NEXT]], 0] [1, 1024] [1, 1]
// CHECK: %[[NEXT_C:.*]] = memref.subview %[[C]][%[[NEXT]], 0] [1, 1024] [1, 1]
// CHECK: scf.for %[[J:[^ ]*]] =
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[I0:.*]] = affine.apply #[[LINE0]](%[[J]])
// CHECK: memref.prefetch %[[NEXT_X]][%[[ZERO]], %[[I0]]], read, locality<3>, data
// CHECK: %[[I1:.*]] = affine.apply #[[LINE1]](%[[J]])
// CHECK: memref.prefetch %[[NEXT_X]][%[[ZERO]], %[[I1]]], read, locality<3>, data
// CHECK: memref.prefetch %[[NEXT_C]][%[[ZERO]], %[[I0]]], read, locality<3>, data
// CHECK: memref.prefetch %[[NEXT_C]][%[[ZERO]], %[[I1]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_write
func.func @two_passes(%x: memref<64x1024xf32>, %c: memref<64x1024xf32>,
                      %gamma: memref<1x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %crow = memref.subview %c[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %g = memref.subview %gamma[0, 0] [1, 1024] [1, 1] : memref<1x1024xf32> to memref<1x1024xf32, strided<[1024, 1]>>
    %sum = scf.for %j = %c0 to %c1024 step %c32 iter_args(%acc = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %a = arith.addf %acc, %v : vector<32xf32>
      scf.yield %a : vector<32xf32>
    }
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %crow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %w = vector.transfer_read %g[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1]>>, vector<32xf32>
      %p = arith.mulf %v, %w : vector<32xf32>
      %q = arith.addf %p, %sum : vector<32xf32>
      %t = math.tanh %q : vector<32xf32>
      vector.transfer_write %t, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @one_pass
// CHECK-NOT: memref.prefetch
func.func @one_pass(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      vector.transfer_write %v, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// A temporary's rows, short rows (128 floats, 512 bytes) and columns (a
// stride of 1024) are left alone.
// CHECK-LABEL: func.func @not_rows_of_the_caller
// CHECK-NOT: memref.prefetch
// ANY-ROW-LABEL: func.func @not_rows_of_the_caller
// ANY-ROW: memref.prefetch %{{.*}} : memref<1x128xf32
// ANY-ROW-NOT: memref.prefetch
func.func @not_rows_of_the_caller(%short: memref<64x128xf32>, %x: memref<1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  %temporary = memref.alloc() : memref<64x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %trow = memref.subview %temporary[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %srow = memref.subview %short[%r, 0] [1, 128] [1, 1] : memref<64x128xf32> to memref<1x128xf32, strided<[128, 1], offset: ?>>
    %column = memref.subview %x[0, %r] [1024, 1] [1, 1] : memref<1024x64xf32> to memref<1024x1xf32, strided<[64, 1], offset: ?>>
    %s = scf.for %j = %c0 to %c128 step %c32 iter_args(%acc = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %srow[%c0, %j], %zero {in_bounds = [true]} : memref<1x128xf32, strided<[128, 1], offset: ?>>, vector<32xf32>
      %a = arith.addf %acc, %v : vector<32xf32>
      scf.yield %a : vector<32xf32>
    }
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %trow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %e = memref.load %column[%j, %c0] : memref<1024x1xf32, strided<[64, 1], offset: ?>>
      %b = vector.broadcast %e : f32 to vector<32xf32>
      %p = arith.mulf %v, %b : vector<32xf32>
      %q = arith.addf %p, %s : vector<32xf32>
      %t = math.tanh %q : vector<32xf32>
      vector.transfer_write %t, %trow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  memref.dealloc %temporary : memref<64x1024xf32>
  return
}
