// Regression: a broadcast_in_dim to the same type is the identity only when
// dims = [0, 1, ...]; with dims = [1, 0] on a square operand it transposes.
// RUN: adjit-opt %s -canonicalize | FileCheck %s
// RUN: adjit-opt %s --adjit-lower-to-linalg | FileCheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func @broadcast_permutes_square
// CHECK: adjit.broadcast_in_dim %{{.*}}, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
// LOWER-LABEL: func.func @broadcast_permutes_square
// LOWER: linalg.generic
func.func @broadcast_permutes_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = adjit.broadcast_in_dim %x, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
