// A 2-layer MLP forward pass with softmax, written in the adjit dialect:
// matmuls, bias broadcasts, tanh and a numerically stable softmax.
//   probs = softmax(tanh(x @ w1 + b1) @ w2 + b2)
//   x: f32[4,8]  w1: f32[8,16]  b1: f32[16]  w2: f32[16,3]  b2: f32[3]
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
               %w2: tensor<16x3xf32>, %b2: tensor<3xf32>) -> tensor<4x3xf32> {
  %h0 = adjit.dot_general %x, %w1, batch = [] x [], contract = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %b1b = adjit.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %h1 = adjit.add %h0, %b1b : tensor<4x16xf32>
  %h = adjit.tanh %h1 : tensor<4x16xf32>
  %z0 = adjit.dot_general %h, %w2, batch = [] x [], contract = [1] x [0]
      : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %b2b = adjit.broadcast_in_dim %b2, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %z = adjit.add %z0, %b2b : tensor<4x3xf32>
  // softmax over axis 1: exp(z - max(z)) / sum(exp(z - max(z)))
  %m = adjit.reduce max %z, dims = [1] : (tensor<4x3xf32>) -> tensor<4xf32>
  %mb = adjit.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
  %shifted = adjit.sub %z, %mb : tensor<4x3xf32>
  %e = adjit.exp %shifted : tensor<4x3xf32>
  %s = adjit.reduce sum %e, dims = [1] : (tensor<4x3xf32>) -> tensor<4xf32>
  %sb = adjit.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
  %probs = adjit.div %e, %sb : tensor<4x3xf32>
  return %probs : tensor<4x3xf32>
}
