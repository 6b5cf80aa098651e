// Gathers whose base has a strided innermost dimension (a take of a slice
// with strides) read a unit-stride view of the same buffer from the base
// element, at the indices times the stride; unit-stride gathers stay. Vector
// reads along a strided dimension become gathers at 0, s, 2s, ... from such
// a view; contiguous ones, and writes, stay.
// RUN: adjit-opt %s -split-input-file --adjit-unit-stride-gathers | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-unit-stride-gathers | mlir-opt -split-input-file --expand-strided-metadata --convert-vector-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm --convert-arith-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @strided_1d
// CHECK-SAME: (%[[S:.*]]: memref<2xf32, strided<[2]>>, %[[I:.*]]: vector<3xindex>
// CHECK-DAG: %[[TWO:.*]] = arith.constant dense<2> : vector<3xindex>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[BUFFER:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[S]]
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BUFFER]] to offset: [%[[C0]]], sizes: [%{{.*}}], strides: [1] : memref<f32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: %[[POSITIONS:.*]] = arith.muli %[[I]], %[[TWO]] : vector<3xindex>
// CHECK: vector.gather %[[VIEW]][%[[C0]]] [%[[POSITIONS]]]
// CHECK-SAME: memref<?xf32, strided<[1], offset: ?>>, vector<3xindex>
// LLVM-LABEL: llvm.func @strided_1d
// LLVM-NOT: unrealized_conversion_cast
// LLVM: llvm.intr.masked.gather
func.func @strided_1d(%s: memref<2xf32, strided<[2]>>, %i: vector<3xindex>) -> vector<3xf32> {
  %c0 = arith.constant 0 : index
  %all = arith.constant dense<true> : vector<3xi1>
  %none = arith.constant dense<0.0> : vector<3xf32>
  %v = vector.gather %s[%c0] [%i], %all, %none : memref<2xf32, strided<[2]>>, vector<3xindex>, vector<3xi1>, vector<3xf32> into vector<3xf32>
  return %v : vector<3xf32>
}

// -----

// The base element of a row of a 2-d view: its offset folds every base
// index times its stride; i32 indices become index first.
// CHECK-LABEL: func.func @strided_rows
// CHECK-SAME: (%[[S:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[R:.*]]: index, %[[I:.*]]: vector<4xi32>
// CHECK: %[[BUFFER:.*]], %[[OFFSET:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[S]]
// CHECK: %[[ROW:.*]] = arith.muli %[[R]], %[[STRIDES]]#0
// CHECK: %[[START:.*]] = arith.addi %[[OFFSET]], %[[ROW]]
// CHECK: %[[EXTENT:.*]] = arith.muli %[[SIZES]]#1, %[[STRIDES]]#1
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BUFFER]] to offset: [%[[START]]], sizes: [%[[EXTENT]]], strides: [1]
// CHECK: %[[WIDE:.*]] = arith.index_cast %[[I]] : vector<4xi32> to vector<4xindex>
// CHECK: %[[SCALE:.*]] = vector.broadcast %[[STRIDES]]#1 : index to vector<4xindex>
// CHECK: %[[POSITIONS:.*]] = arith.muli %[[WIDE]], %[[SCALE]] : vector<4xindex>
// CHECK: vector.gather %[[VIEW]][%{{.*}}] [%[[POSITIONS]]]
func.func @strided_rows(%s: memref<?x?xf32, strided<[?, ?], offset: ?>>, %r: index, %i: vector<4xi32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %all = arith.constant dense<true> : vector<4xi1>
  %none = arith.constant dense<0.0> : vector<4xf32>
  %v = vector.gather %s[%r, %c0] [%i], %all, %none : memref<?x?xf32, strided<[?, ?], offset: ?>>, vector<4xi32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// CHECK-LABEL: func.func @unit_stride
// CHECK-NOT: memref.reinterpret_cast
// CHECK: vector.gather %arg0[%{{.*}}, %{{.*}}] [%arg1]
func.func @unit_stride(%s: memref<4x8xf32, strided<[16, 1], offset: ?>>, %i: vector<4xindex>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %all = arith.constant dense<true> : vector<4xi1>
  %none = arith.constant dense<0.0> : vector<4xf32>
  %v = vector.gather %s[%c0, %c0] [%i], %all, %none : memref<4x8xf32, strided<[16, 1], offset: ?>>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// A strided slice's elements (a batch's entry [i, j] of 3x3 matrices, 9
// floats apart) read as one gather, with the transfer's padding as the
// pass-through.
// CHECK-LABEL: func.func @strided_read
// CHECK-SAME: (%[[S:.*]]: memref<4096xf32, strided<[9], offset: 8>>, %[[I:.*]]: index)
// CHECK-DAG: %[[POSITIONS:.*]] = arith.constant dense<[0, 9, 18, 27, 36, 45, 54, 63, 72, 81, 90, 99, 108, 117, 126, 135, 144, 153, 162, 171, 180, 189, 198, 207, 216, 225, 234, 243, 252, 261, 270, 279]> : vector<32xindex>
// CHECK-DAG: %[[EXTENT:.*]] = arith.constant 280 : index
// CHECK-DAG: %[[PAD:.*]] = arith.constant dense<-1.000000e+00> : vector<32xf32>
// CHECK-DAG: %[[ALL:.*]] = arith.constant dense<true> : vector<32xi1>
// CHECK: %[[BUFFER:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[S]]
// CHECK: %[[FROM_I:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.addi %[[FROM_I]], %{{.*}} : index
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BUFFER]] to offset: [%[[START]]], sizes: [%[[EXTENT]]], strides: [1]
// CHECK: vector.gather %[[VIEW]][%{{.*}}] [%[[POSITIONS]]], %[[ALL]], %[[PAD]]
// CHECK-NOT: vector.transfer_read
// LLVM-LABEL: llvm.func @strided_read
// LLVM: llvm.intr.masked.gather
func.func @strided_read(%s: memref<4096xf32, strided<[9], offset: 8>>, %i: index) -> vector<32xf32> {
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %s[%i], %pad {in_bounds = [true]} : memref<4096xf32, strided<[9], offset: 8>>, vector<32xf32>
  return %v : vector<32xf32>
}

// -----

// A column of a row-major matrix read as one gather, at multiples of the
// row stride from the first element.
// CHECK-LABEL: func.func @column_read
// CHECK-SAME: (%[[M:.*]]: memref<64x16xf64>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[POSITIONS:.*]] = arith.constant dense<[0, 16, 32, 48, 64, 80, 96, 112]> : vector<8xindex>
// CHECK: %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%[[START]]], sizes: [%{{.*}}], strides: [1]
// CHECK: vector.gather %[[VIEW]][%{{.*}}] [%[[POSITIONS]]]
// LLVM-LABEL: llvm.func @column_read
// LLVM: llvm.intr.masked.gather
func.func @column_read(%m: memref<64x16xf64>, %i: index, %j: index) -> vector<8xf64> {
  %pad = arith.constant 0.0 : f64
  %v = vector.transfer_read %m[%i, %j], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<64x16xf64>, vector<8xf64>
  return %v : vector<8xf64>
}

// -----

// Contiguous, possibly out-of-bounds and i1 reads stay (bools take a byte
// each, which only loads and stores lower), and so do strided writes.
// CHECK-LABEL: func.func @transfers_that_stay
// CHECK-NOT: vector.gather
// CHECK-NOT: vector.scatter
// CHECK: vector.transfer_read %arg0
// CHECK: vector.transfer_read %arg1
// CHECK: vector.transfer_read %arg2
// CHECK: vector.transfer_write
func.func @transfers_that_stay(%m: memref<64x16xf32>, %s: memref<64xf32, strided<[4]>>, %flags: memref<64xi1, strided<[4]>>, %i: index) -> (vector<16xf32>, vector<16xf32>, vector<16xi1>) {
  %pad = arith.constant 0.0 : f32
  %no = arith.constant false
  %a = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true]} : memref<64x16xf32>, vector<16xf32>
  %b = vector.transfer_read %s[%i], %pad : memref<64xf32, strided<[4]>>, vector<16xf32>
  %c = vector.transfer_read %flags[%i], %no {in_bounds = [true]} : memref<64xi1, strided<[4]>>, vector<16xi1>
  vector.transfer_write %a, %s[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32, strided<[4]>>
  return %a, %b, %c : vector<16xf32>, vector<16xf32>, vector<16xi1>
}

