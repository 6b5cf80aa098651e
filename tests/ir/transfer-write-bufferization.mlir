// RUN: adjit-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --split-input-file | FileCheck %s

// A vector<2xf64> written at [0, 0] of a tensor<1x3xf64> leaves element 2
// as it was. The row stays in use (%row is read after the write), so the
// write goes out of place: its new buffer starts as a copy of the row.
// (MLIR 19's own model paired the vector's 2 with the row's 1 and skipped
// the copy: element 2 was left uninitialized.)

// CHECK-LABEL: func.func @partial_row_write
//       CHECK:   %[[ROW:.*]] = memref.subview
//       CHECK:   %[[COPY:.*]] = memref.alloc() {{.*}} : memref<1x3xf64>
//       CHECK:   memref.copy %[[ROW]], %[[COPY]]
//       CHECK:   vector.transfer_write %{{.*}}, %[[COPY]][%{{.*}}, %{{.*}}] {in_bounds = [true]}
func.func @partial_row_write(%m: tensor<3x3xf64>, %v: vector<2xf64>) -> (tensor<1x3xf64>, tensor<1x3xf64>) {
  %c0 = arith.constant 0 : index
  %row = tensor.extract_slice %m[0, 0] [1, 3] [1, 1] : tensor<3x3xf64> to tensor<1x3xf64>
  %written = vector.transfer_write %v, %row[%c0, %c0] {in_bounds = [true]} : vector<2xf64>, tensor<1x3xf64>
  return %written, %row : tensor<1x3xf64>, tensor<1x3xf64>
}

// -----

// A write of every element needs no copy, also where the vector runs
// along the last dimension and the others have size 1.

// CHECK-LABEL: func.func @whole_row_write
//       CHECK:   %[[FRESH:.*]] = memref.alloc() {{.*}} : memref<1x3xf64>
//   CHECK-NOT:   memref.copy
//       CHECK:   vector.transfer_write %{{.*}}, %[[FRESH]]
func.func @whole_row_write(%m: tensor<3x3xf64>, %v: vector<3xf64>) -> (tensor<1x3xf64>, tensor<1x3xf64>) {
  %c0 = arith.constant 0 : index
  %row = tensor.extract_slice %m[0, 0] [1, 3] [1, 1] : tensor<3x3xf64> to tensor<1x3xf64>
  %written = vector.transfer_write %v, %row[%c0, %c0] {in_bounds = [true]} : vector<3xf64>, tensor<1x3xf64>
  return %written, %row : tensor<1x3xf64>, tensor<1x3xf64>
}

// -----

// A column written through a permutation map covers the 3 rows it runs
// along, not the columns: the other columns are copied.

// CHECK-LABEL: func.func @column_write
//       CHECK:   memref.alloc() {{.*}} : memref<3x2xf64>
//       CHECK:   memref.copy
//       CHECK:   vector.transfer_write
func.func @column_write(%m: tensor<3x2xf64>, %v: vector<3xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>) {
  %c0 = arith.constant 0 : index
  %written = vector.transfer_write %v, %m[%c0, %c0] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<3xf64>, tensor<3x2xf64>
  return %written, %m : tensor<3x2xf64>, tensor<3x2xf64>
}
