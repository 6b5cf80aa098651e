// Vector writes into a large result that the function never reads become
// nontemporal stores. A result it also reads, a small one, a temporary, and
// writes that are not one contiguous vector store stay as they are; so does
// a result whose rows are not whole cache lines or that any store writes
// less than whole lines of (lines written partly nontemporally are slow).
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-stream-stores{min-bytes=4096}))" | FileCheck %s

// CHECK-LABEL: func.func @written_once
// CHECK-SAME: (%[[X:[^:]*]]: memref<64x1024xf32>, %[[OUT:[^:]*]]: memref<64x1024xf32>)
// CHECK: %[[ROW:.*]] = memref.subview %[[OUT]]
// CHECK: vector.store %{{.*}}, %[[ROW]][%{{.*}}, %{{.*}}] {nontemporal = true} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] {nontemporal = true} : memref<64x1024xf32>, vector<16xf32>
// CHECK-NOT: vector.transfer_write
func.func @written_once(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %x[%r, %j], %zero {in_bounds = [true]} : memref<64x1024xf32>, vector<32xf32>
      vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  %s = vector.transfer_read %x[%c0, %c0], %zero {in_bounds = [true]} : memref<64x1024xf32>, vector<16xf32>
  vector.store %s, %out[%c1, %c0] : memref<64x1024xf32>, vector<16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: nontemporal
func.func @left_alone(%x: memref<64x1024xf32>, %read: memref<64x1024xf32>,
                      %small: memref<32xf32>, %columns: memref<1024x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %temporary = memref.alloc() : memref<64x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %v = vector.transfer_read %x[%r, %c0], %zero {in_bounds = [true]} : memref<64x1024xf32>, vector<32xf32>
    // A result that the function reads back.
    vector.transfer_write %v, %read[%r, %c0] {in_bounds = [true]} : vector<32xf32>, memref<64x1024xf32>
    %back = vector.transfer_read %read[%r, %c32], %zero {in_bounds = [true]} : memref<64x1024xf32>, vector<32xf32>
    // A result smaller than min-bytes.
    vector.transfer_write %back, %small[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
    // A temporary.
    vector.transfer_write %v, %temporary[%r, %c0] {in_bounds = [true]} : vector<32xf32>, memref<64x1024xf32>
    // Along a strided dimension, and one that may run out of bounds.
    vector.transfer_write %v, %columns[%c0, %r] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<32xf32>, memref<1024x64xf32>
    vector.transfer_write %v, %columns[%r, %c32] : vector<32xf32>, memref<1024x64xf32>
  }
  memref.dealloc %temporary : memref<64x1024xf32>
  return
}

// -----

// Rows of 10 floats (40 bytes) are not whole lines; a result with rows of
// whole lines that one store writes 8 bytes of keeps plain stores for all.
// CHECK-LABEL: func.func @partial_lines
// CHECK-NOT: nontemporal
func.func @partial_lines(%x: memref<4096x16xf32>, %short: memref<4096x10xf32>, %mixed: memref<4096x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c4096 step %c1 {
    %v = vector.transfer_read %x[%r, %c0], %zero {in_bounds = [true]} : memref<4096x16xf32>, vector<10xf32>
    vector.transfer_write %v, %short[%r, %c0] {in_bounds = [true]} : vector<10xf32>, memref<4096x10xf32>
    %w = vector.transfer_read %x[%r, %c0], %zero {in_bounds = [true]} : memref<4096x16xf32>, vector<16xf32>
    vector.transfer_write %w, %mixed[%r, %c0] {in_bounds = [true]} : vector<16xf32>, memref<4096x16xf32>
    %p = vector.transfer_read %x[%r, %c0], %zero {in_bounds = [true]} : memref<4096x16xf32>, vector<2xf32>
    vector.transfer_write %p, %mixed[%r, %c0] {in_bounds = [true]} : vector<2xf32>, memref<4096x16xf32>
  }
  return
}

// -----

// Rows of 3 floats written through a view of them collapsed to one row of
// whole lines, by whole-line stores only, stream; written through the rows
// themselves (a view of rows of 3, 12 bytes), they do not.
// CHECK-LABEL: func.func @collapsed_rows
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<4096x3xf32> into memref<12288xf32>
// CHECK: vector.store %{{.*}}, %[[FLAT]][%{{.*}}] {nontemporal = true} : memref<12288xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<3xf32>, memref<4096x3xf32>
// CHECK-NOT: nontemporal
func.func @collapsed_rows(%x: memref<12288xf32>, %flat: memref<4096x3xf32>, %rows: memref<4096x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %c12288 = arith.constant 12288 : index
  %zero = arith.constant 0.0 : f32
  %view = memref.collapse_shape %flat [[0, 1]] : memref<4096x3xf32> into memref<12288xf32>
  scf.for %i = %c0 to %c12288 step %c16 {
    %v = vector.transfer_read %x[%i], %zero {in_bounds = [true]} : memref<12288xf32>, vector<16xf32>
    vector.transfer_write %v, %view[%i] {in_bounds = [true]} : vector<16xf32>, memref<12288xf32>
  }
  scf.for %r = %c0 to %c4096 step %c1 {
    %v = vector.transfer_read %x[%r], %zero {in_bounds = [true]} : memref<12288xf32>, vector<3xf32>
    vector.transfer_write %v, %rows[%r, %c0] {in_bounds = [true]} : vector<3xf32>, memref<4096x3xf32>
  }
  return
}
