// Regression: splat constants keep the sign of -0.0 (splats lower to
// generics yielding a scalar; LLVM 19 translated splat -0.0 tensors to zeros).
// RUN: adjit run %s | FileCheck %s

// CHECK: out0 = f32[2] [-0, -0]
// CHECK-NEXT: out1 = f16[3] [-0, -0, -0]
// CHECK-NEXT: out2 = f64[] -0
// CHECK-NEXT: out3 = f32[3] [-0, 1, -0]
func.func @negative_zero_constants() -> (tensor<2xf32>, tensor<3xf16>, tensor<f64>, tensor<3xf32>) {
  %a = adjit.constant dense<-0.0> : tensor<2xf32>
  %b = adjit.constant dense<-0.0> : tensor<3xf16>
  %c = adjit.constant dense<-0.0> : tensor<f64>
  %d = adjit.constant dense<[-0.0, 1.0, -0.0]> : tensor<3xf32>
  return %a, %b, %c, %d : tensor<2xf32>, tensor<3xf16>, tensor<f64>, tensor<3xf32>
}
