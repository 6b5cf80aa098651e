// Regression: an entry that returns an argument, or one value twice, gets a
// copy per result (LLVM 19's buffer-results-to-out-params crashed on both).
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-bufferized | FileCheck %s

// CHECK-LABEL: func.func @returns_argument
// CHECK-SAME: (%[[X:.*]]: memref<2x2xf32>, %[[OUT:.*]]: memref<2x2xf32>)
// CHECK: linalg.copy ins(%[[X]] : memref<2x2xf32>) outs(%[[OUT]] : memref<2x2xf32>)
func.func @returns_argument(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  return %x : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @folds_to_argument
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK: linalg.copy ins(%[[X]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
func.func @folds_to_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = adjit.constant dense<1.0> : tensor<4xf32>
  %0 = adjit.mul %x, %one : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @same_result_twice
// CHECK-SAME: (%{{.*}}: memref<2xf32>, %[[OUT0:.*]]: memref<2xf32>, %[[OUT1:.*]]: memref<2xf32>)
func.func @same_result_twice(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %y = adjit.add %x, %x : tensor<2xf32>
  return %y, %y : tensor<2xf32>, tensor<2xf32>
}
