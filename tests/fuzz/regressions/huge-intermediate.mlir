// Issue 14: a 256 GiB temporary aborted the process when run.
func.func @huge(%x: tensor<f32>, %v: tensor<262144x16xf32>) -> tensor<262144x16xf32> {
  %b = adjit.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<262144x262144xf32>
  %e = adjit.exp %b : tensor<262144x262144xf32>
  %m = adjit.dot_general %e, %v, batch = [] x [], contract = [1] x [0] : (tensor<262144x262144xf32>, tensor<262144x16xf32>) -> tensor<262144x16xf32>
  return %m : tensor<262144x16xf32>
}
