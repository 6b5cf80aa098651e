// Issue 14: integer division by zero and INT_MIN / -1 raised SIGFPE.
func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %q = adjit.div %a, %b : tensor<4xi32>
  %p = adjit.pow %a, %b : tensor<4xi32>
  %s = adjit.add %q, %p : tensor<4xi32>
  return %s : tensor<4xi32>
}
