// adjit-sink-insert-slices: a block write whose destination is still read
// after it moves down to just before its first user.
// RUN: adjit-opt %s --adjit-sink-insert-slices -split-input-file | FileCheck %s

// A reverse loop's step: row i of the carried buffer is read, the row is
// zeroed, and the read row is used after: the zeroing moves below the use.
// CHECK-LABEL: func.func @zero_row_after_reading_it
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[BUF:.*]][%{{.*}}, 0] [1, 4] [1, 1]
// CHECK-NEXT: %[[USE:.*]] = arith.addf
// CHECK-NEXT: %[[ZEROED:.*]] = tensor.insert_slice %{{.*}} into %[[BUF]]
// CHECK-NEXT: scf.yield %[[ZEROED]], %[[USE]]
func.func @zero_row_after_reading_it(%buf0: tensor<8x4xf32>, %zeros: tensor<1x4xf32>, %acc0: tensor<1x4xf32>) -> (tensor<8x4xf32>, tensor<1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%buf = %buf0, %acc = %acc0) -> (tensor<8x4xf32>, tensor<1x4xf32>) {
    %row = tensor.extract_slice %buf[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<1x4xf32>
    %zeroed = tensor.insert_slice %zeros into %buf[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<8x4xf32>
    %use = arith.addf %row, %acc : tensor<1x4xf32>
    scf.yield %zeroed, %use : tensor<8x4xf32>, tensor<1x4xf32>
  }
  return %r#0, %r#1 : tensor<8x4xf32>, tensor<1x4xf32>
}

// -----

// Nothing reads the destination after the write (a concatenation's chain of
// writes): nothing moves.
// CHECK-LABEL: func.func @chain_stays
// CHECK: %[[A:.*]] = tensor.insert_slice
// CHECK-NEXT: %[[B:.*]] = tensor.insert_slice %{{.*}} into %[[A]]
// CHECK-NEXT: %[[N:.*]] = arith.negf
// CHECK-NEXT: return %[[B]], %[[N]]
func.func @chain_stays(%e: tensor<2x4xf32>, %a: tensor<1x4xf32>, %b: tensor<1x4xf32>) -> (tensor<2x4xf32>, tensor<1x4xf32>) {
  %0 = tensor.insert_slice %a into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  %1 = tensor.insert_slice %b into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  %n = arith.negf %a : tensor<1x4xf32>
  return %1, %n : tensor<2x4xf32>, tensor<1x4xf32>
}

// -----

// The write's own user comes before the later read: it moves only that far.
// CHECK-LABEL: func.func @stops_at_first_user
// CHECK: tensor.extract_slice
// CHECK-NEXT: %[[W:.*]] = tensor.insert_slice
// CHECK-NEXT: tensor.extract_slice %[[W]]
// CHECK-NEXT: arith.addf
func.func @stops_at_first_user(%buf: tensor<8x4xf32>, %u: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %row = tensor.extract_slice %buf[0, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<1x4xf32>
  %w = tensor.insert_slice %u into %buf[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<8x4xf32>
  %r = tensor.extract_slice %w[1, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<1x4xf32>
  %s = arith.addf %row, %u : tensor<1x4xf32>
  %later = tensor.extract_slice %buf[2, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<1x4xf32>
  return %r, %later : tensor<1x4xf32>, tensor<1x4xf32>
}
