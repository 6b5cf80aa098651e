// Plain recursion is an error naming the cycle, not a crash or a hang.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
