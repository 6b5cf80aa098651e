// adjit-jam-stencil-rows: a row loop whose inner loop reads three or more
// rows of one buffer computes blocks of `rows` rows in one pass over the
// columns, each row with its own carried values and each row of the
// buffer read once, and the ops after it row by row; the rows left keep
// the original loop. Loops whose reordering could change what they read
// or write are left alone.
// RUN: adjit-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(adjit-jam-stencil-rows))' | FileCheck %s
// RUN: adjit-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(adjit-jam-stencil-rows{rows=1}))' | FileCheck %s --check-prefix=ONE
// RUN: not adjit-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(adjit-jam-stencil-rows{rows=0}))' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: adjit-jam-stencil-rows: rows must be positive, got 0
// ONE-LABEL: func.func @sum_of_three_rows
// ONE: scf.for %{{.*}} = %c0 to %c6 step %c1

// Rows i, i + 1 and i + 2 of x summed and squared, each row's total added
// to %acc: 6 rows, a block of 4 and 2 left.
// CHECK-LABEL: func.func @sum_of_three_rows
// CHECK: scf.for %[[I:.*]] = %c0 to %[[END:.*]] step %[[FOUR:.*]] {
// CHECK: %[[V0:.*]] = memref.subview %{{.*}}[%[[I]], 0] [1, 64] [1, 1]
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: memref.subview %{{.*}}[%[[I1]], 0] [1, 64] [1, 1]
// CHECK: %[[SUMS:.*]]:4 = scf.for %[[J:.*]] = %c0 to %c64 step %c16 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// Rows i to i + 5, each read once for the four rows that read it.
// CHECK-COUNT-6: vector.transfer_read
// CHECK-NOT: vector.transfer_read
// CHECK: scf.yield
// CHECK: }
// CHECK: %[[T0:.*]] = memref.load %[[ACC:.*]][] : memref<f32>
// CHECK: vector.reduction <add>, %[[SUMS]]#0, %[[T0]]
// CHECK: memref.store
// CHECK: memref.load %[[ACC]][]
// CHECK: vector.reduction <add>, %[[SUMS]]#1
// CHECK: memref.store
// CHECK: vector.reduction <add>, %[[SUMS]]#2
// CHECK: vector.reduction <add>, %[[SUMS]]#3
// CHECK: }
// CHECK: scf.for %{{.*}} = %{{.*}} to %c6 step %c1 {
// CHECK: vector.reduction
// CHECK: }
// CHECK: return
func.func @sum_of_three_rows(%x: memref<8x64xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %x0 = memref.subview %x[0, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1]>>
  %x1 = memref.subview %x[1, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1], offset: 64>>
  %x2 = memref.subview %x[2, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1], offset: 128>>
  scf.for %i = %c0 to %c6 step %c1 {
    %r0 = memref.subview %x0[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1]>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r1 = memref.subview %x1[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1], offset: 64>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r2 = memref.subview %x2[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1], offset: 128>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %s = scf.for %j = %c0 to %c64 step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {
      %v0 = vector.transfer_read %r0[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v1 = vector.transfer_read %r1[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v2 = vector.transfer_read %r2[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %p = arith.addf %v0, %v1 : vector<16xf32>
      %q = arith.addf %p, %v2 : vector<16xf32>
      %sq = arith.mulf %q, %q : vector<16xf32>
      %n = arith.addf %a, %sq : vector<16xf32>
      scf.yield %n : vector<16xf32>
    }
    %t = memref.load %acc[] : memref<f32>
    %u = vector.reduction <add>, %s, %t : vector<16xf32> into f32
    memref.store %u, %acc[] : memref<f32>
  }
  return
}

// -----

// Output rows written through row %i of a view from outside, by the jammed
// loop and by a loop over the last column (not jammed: it reads one row of
// each buffer): 8 rows, two blocks of 4 and none left.
// CHECK-LABEL: func.func @output_rows
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %{{.*}} {
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16 {
// CHECK-COUNT-4: vector.transfer_write
// CHECK: }
// CHECK-COUNT-4: scf.for %{{.*}} = %c0 to %c1 step %c1 {
// CHECK-NOT: scf.for
// CHECK: return
func.func @output_rows(%x: memref<10x33xf32>, %y: memref<8x33xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %f0 = arith.constant 0.0 : f32
  %x0 = memref.subview %x[0, 0] [8, 33] [1, 1] : memref<10x33xf32> to memref<8x33xf32, strided<[33, 1]>>
  %x1 = memref.subview %x[1, 0] [8, 33] [1, 1] : memref<10x33xf32> to memref<8x33xf32, strided<[33, 1], offset: 33>>
  %x2 = memref.subview %x[2, 0] [8, 33] [1, 1] : memref<10x33xf32> to memref<8x33xf32, strided<[33, 1], offset: 66>>
  scf.for %i = %c0 to %c8 step %c1 {
    %r0 = memref.subview %x0[%i, 0] [1, 33] [1, 1] : memref<8x33xf32, strided<[33, 1]>> to memref<1x33xf32, strided<[33, 1], offset: ?>>
    %r1 = memref.subview %x1[%i, 0] [1, 33] [1, 1] : memref<8x33xf32, strided<[33, 1], offset: 33>> to memref<1x33xf32, strided<[33, 1], offset: ?>>
    %r2 = memref.subview %x2[%i, 0] [1, 33] [1, 1] : memref<8x33xf32, strided<[33, 1], offset: 66>> to memref<1x33xf32, strided<[33, 1], offset: ?>>
    %out = memref.subview %y[%i, 0] [1, 33] [1, 1] : memref<8x33xf32> to memref<1x33xf32, strided<[33, 1], offset: ?>>
    scf.for %j = %c0 to %c32 step %c16 {
      %v0 = vector.transfer_read %r0[%c0, %j], %f0 {in_bounds = [true]} : memref<1x33xf32, strided<[33, 1], offset: ?>>, vector<16xf32>
      %v1 = vector.transfer_read %r1[%c0, %j], %f0 {in_bounds = [true]} : memref<1x33xf32, strided<[33, 1], offset: ?>>, vector<16xf32>
      %v2 = vector.transfer_read %r2[%c0, %j], %f0 {in_bounds = [true]} : memref<1x33xf32, strided<[33, 1], offset: ?>>, vector<16xf32>
      %p = arith.subf %v0, %v1 : vector<16xf32>
      %q = arith.addf %p, %v2 : vector<16xf32>
      vector.transfer_write %q, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x33xf32, strided<[33, 1], offset: ?>>
    }
    scf.for %k = %c0 to %c1 step %c1 {
      %e = memref.load %r1[%c0, %c32] : memref<1x33xf32, strided<[33, 1], offset: ?>>
      memref.store %e, %out[%c0, %c32] : memref<1x33xf32, strided<[33, 1], offset: ?>>
    }
  }
  return
}

// -----

// Left alone: two rows (x[i + 1] - x[i] streamed slower jammed); views
// that differ in their columns only; a loop that writes the buffer it reads
// shifted rows of (row i + 1 would read what row i wrote).
// CHECK-LABEL: func.func @two_rows
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK-LABEL: func.func @shifted_columns
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK-LABEL: func.func @in_place
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
func.func @two_rows(%x: memref<8x64xf32>, %y: memref<6x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %x0 = memref.subview %x[0, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1]>>
  %x1 = memref.subview %x[1, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1], offset: 64>>
  scf.for %i = %c0 to %c6 step %c1 {
    %r0 = memref.subview %x0[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1]>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r1 = memref.subview %x1[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1], offset: 64>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %out = memref.subview %y[%i, 0] [1, 64] [1, 1] : memref<6x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    scf.for %j = %c0 to %c64 step %c16 {
      %v0 = vector.transfer_read %r0[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v1 = vector.transfer_read %r1[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %d = arith.subf %v1, %v0 : vector<16xf32>
      vector.transfer_write %d, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>
    }
  }
  return
}
func.func @shifted_columns(%x: memref<6x66xf32>, %y: memref<6x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %x0 = memref.subview %x[0, 0] [6, 64] [1, 1] : memref<6x66xf32> to memref<6x64xf32, strided<[66, 1]>>
  %x1 = memref.subview %x[0, 1] [6, 64] [1, 1] : memref<6x66xf32> to memref<6x64xf32, strided<[66, 1], offset: 1>>
  %x2 = memref.subview %x[0, 2] [6, 64] [1, 1] : memref<6x66xf32> to memref<6x64xf32, strided<[66, 1], offset: 2>>
  scf.for %i = %c0 to %c6 step %c1 {
    %r0 = memref.subview %x0[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[66, 1]>> to memref<1x64xf32, strided<[66, 1], offset: ?>>
    %r1 = memref.subview %x1[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[66, 1], offset: 1>> to memref<1x64xf32, strided<[66, 1], offset: ?>>
    %r2 = memref.subview %x2[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[66, 1], offset: 2>> to memref<1x64xf32, strided<[66, 1], offset: ?>>
    %out = memref.subview %y[%i, 0] [1, 64] [1, 1] : memref<6x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    scf.for %j = %c0 to %c64 step %c16 {
      %v0 = vector.transfer_read %r0[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[66, 1], offset: ?>>, vector<16xf32>
      %v1 = vector.transfer_read %r1[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[66, 1], offset: ?>>, vector<16xf32>
      %v2 = vector.transfer_read %r2[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[66, 1], offset: ?>>, vector<16xf32>
      %p = arith.addf %v0, %v1 : vector<16xf32>
      %q = arith.addf %p, %v2 : vector<16xf32>
      vector.transfer_write %q, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>
    }
  }
  return
}
func.func @in_place(%x: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %x0 = memref.subview %x[0, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1]>>
  %x1 = memref.subview %x[1, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1], offset: 64>>
  %x2 = memref.subview %x[2, 0] [6, 64] [1, 1] : memref<8x64xf32> to memref<6x64xf32, strided<[64, 1], offset: 128>>
  scf.for %i = %c0 to %c6 step %c1 {
    %r0 = memref.subview %x0[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1]>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r1 = memref.subview %x1[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1], offset: 64>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r2 = memref.subview %x2[%i, 0] [1, 64] [1, 1] : memref<6x64xf32, strided<[64, 1], offset: 128>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    scf.for %j = %c0 to %c64 step %c16 {
      %v0 = vector.transfer_read %r0[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v1 = vector.transfer_read %r1[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v2 = vector.transfer_read %r2[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %p = arith.addf %v0, %v1 : vector<16xf32>
      %q = arith.addf %p, %v2 : vector<16xf32>
      vector.transfer_write %q, %r1[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>
    }
  }
  return
}

// -----

// Rows 2i, 2i + 1 and 2i + 2: jammed, but no row of a block reads another's
// (row k of the block is 2 rows on, not one): all 12 reads stay.
// CHECK-LABEL: func.func @every_other_row
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %{{.*}} {
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args
// CHECK-COUNT-12: vector.transfer_read
// CHECK: scf.yield
func.func @every_other_row(%x: memref<16x64xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %x0 = memref.subview %x[0, 0] [14, 64] [1, 1] : memref<16x64xf32> to memref<14x64xf32, strided<[64, 1]>>
  %x1 = memref.subview %x[1, 0] [14, 64] [1, 1] : memref<16x64xf32> to memref<14x64xf32, strided<[64, 1], offset: 64>>
  %x2 = memref.subview %x[2, 0] [14, 64] [1, 1] : memref<16x64xf32> to memref<14x64xf32, strided<[64, 1], offset: 128>>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.muli %i, %c2 : index
    %r0 = memref.subview %x0[%r, 0] [1, 64] [1, 1] : memref<14x64xf32, strided<[64, 1]>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r1 = memref.subview %x1[%r, 0] [1, 64] [1, 1] : memref<14x64xf32, strided<[64, 1], offset: 64>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %r2 = memref.subview %x2[%r, 0] [1, 64] [1, 1] : memref<14x64xf32, strided<[64, 1], offset: 128>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %s = scf.for %j = %c0 to %c64 step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {
      %v0 = vector.transfer_read %r0[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v1 = vector.transfer_read %r1[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %v2 = vector.transfer_read %r2[%c0, %j], %f0 {in_bounds = [true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
      %p = arith.addf %v0, %v1 : vector<16xf32>
      %q = arith.addf %p, %v2 : vector<16xf32>
      %n = arith.addf %a, %q : vector<16xf32>
      scf.yield %n : vector<16xf32>
    }
    %t = memref.load %acc[] : memref<f32>
    %u = vector.reduction <add>, %s, %t : vector<16xf32> into f32
    memref.store %u, %acc[] : memref<f32>
  }
  return
}
