// Regression: max/min order -0.0 below +0.0 at run time as the folder does
// (the llvm stage no longer runs arith-expand-ops, whose expansion ignored
// the sign of zero).
// RUN: adjit run %s --entry elementwise --arg 'f32[3]=0,-0.0,1' --arg 'f32[3]=-0.0,0,2' | FileCheck %s --check-prefix=ELEM
// RUN: adjit run %s --entry reduction --arg 'f64[2]=0,-0.0' | FileCheck %s --check-prefix=RED
// RUN: adjit run %s --entry folded | FileCheck %s --check-prefix=ELEM

// ELEM: out0 = f32[3] [0, 0, 2]
// ELEM-NEXT: out1 = f32[3] [-0, -0, 1]
func.func @elementwise(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = adjit.max %x, %y : tensor<3xf32>
  %1 = adjit.min %x, %y : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// The same values through the constant folder (three elements, so that the
// folded results are not splats; see run-negative-zero-constant.mlir).
func.func @folded() -> (tensor<3xf32>, tensor<3xf32>) {
  %x = adjit.constant dense<[0.0, -0.0, 1.0]> : tensor<3xf32>
  %y = adjit.constant dense<[-0.0, 0.0, 2.0]> : tensor<3xf32>
  %0 = adjit.max %x, %y : tensor<3xf32>
  %1 = adjit.min %x, %y : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// RED: out0 = f64[] 0
// RED-NEXT: out1 = f64[] -0
func.func @reduction(%x: tensor<2xf64>) -> (tensor<f64>, tensor<f64>) {
  %0 = adjit.reduce max %x, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  %1 = adjit.reduce min %x, dims = [0] : (tensor<2xf64>) -> tensor<f64>
  return %0, %1 : tensor<f64>, tensor<f64>
}
