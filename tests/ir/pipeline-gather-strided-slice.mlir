// A gather from a slice with strides (take(slice(x, {0}, {3}, {2}), i, 0)):
// the vectorized gather reads the strided view through a unit-stride one
// (adjit-unit-stride-gathers) and lowers to one masked gather, with no cast
// left that LLVM IR could not translate.
// RUN: adjit-opt %s --adjit-pipeline-bufferized="vector-bits=512" | FileCheck %s --check-prefix=BUF
// RUN: adjit-opt %s --adjit-pipeline-llvm="vector-bits=512" | FileCheck %s --check-prefix=LLVM
// BUF-LABEL: func.func @take_of_strided_slice
// BUF: %[[VIEW:.*]] = memref.subview %arg0[0] [2] [2] : memref<6xf32> to memref<2xf32, strided<[2]>>
// BUF: vector.gather %[[VIEW]]
// LLVM-LABEL: llvm.func @take_of_strided_slice
// LLVM-NOT: unrealized_conversion_cast
// LLVM: llvm.intr.masked.gather
// LLVM-NOT: unrealized_conversion_cast
func.func @take_of_strided_slice(%x: tensor<6xf32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  %s = adjit.slice %x, start = [0], limit = [3], stride = [2] : (tensor<6xf32>) -> tensor<2xf32>
  %g = adjit.gather %s[%i], axis = 0 : (tensor<2xf32>, tensor<3xi32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
