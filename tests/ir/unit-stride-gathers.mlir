// Gathers whose base has a strided innermost dimension (a take of a slice
// with strides) read a unit-stride view of the same buffer from the base
// element, at the indices times the stride; unit-stride gathers stay.
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
