// Issue 14: integer division by a constant zero compiled to `ret void`.
func.func @f() -> (tensor<i32>, tensor<i32>) {
  %a = adjit.constant dense<7> : tensor<i32>
  %z = adjit.constant dense<0> : tensor<i32>
  %min = adjit.constant dense<-2147483648> : tensor<i32>
  %m1 = adjit.constant dense<-1> : tensor<i32>
  %q = adjit.div %a, %z : tensor<i32>
  %r = adjit.div %min, %m1 : tensor<i32>
  return %q, %r : tensor<i32>, tensor<i32>
}
