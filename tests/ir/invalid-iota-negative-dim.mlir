// Regression: negative I64Attr dims print as negative numbers.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics

func.func @iota_negative_dim() -> tensor<3xi64> {
  // expected-error @+1 {{'adjit.iota' op dim -1 is out of range for rank 1}}
  %0 = adjit.iota dim = -1 : tensor<3xi64>
  return %0 : tensor<3xi64>
}
