// Compiled code frees every temporary it allocates (ownership-based buffer
// deallocation), and its temporaries come from the caching allocator.
#include <adjit/adjit.h>
#include <adjit/runtime/Allocator.h>

#include <catch2/catch.hpp>


TEST_CASE("compiled code releases every temporary buffer", "[compiler][memory]") {
  // The example MLP keeps intermediate buffers (matmul results) after
  // bufferization besides its output.
  adjit::Executable exe =
      adjit::Program::parse_file(ADJIT_SOURCE_DIR "/examples/mlp.mlir").compile();
  std::vector<adjit::Array> inputs;
  uint64_t seed = 1;
  for (const adjit::TensorType& type : exe.signature("mlp").inputs)
    inputs.push_back(adjit::Array::randn(type.shape, seed++));
  exe.run("mlp", inputs);  // warm up the allocator's size classes
  size_t live_before = adjit::allocator_stats().live_bytes;
  size_t hits_before = adjit::allocator_stats().hits;
  for (int i = 0; i < 50; ++i) exe.run("mlp", inputs);  // outputs are dropped each time
  adjit::AllocatorStats after = adjit::allocator_stats();
  CHECK(after.live_bytes == live_before);
  // Each run's output and temporaries were served from the cache.
  CHECK(after.hits - hits_before >= 50 * 2);
}

// A temporary too large to allocate ends the call with a RuntimeError naming
// its size; the temporaries the call had allocated are freed, and the same
// executable (and the process) keeps working. It used to abort the process.
TEST_CASE("compiled code that cannot allocate a temporary throws RuntimeError",
          "[compiler][memory]") {
  // exp(broadcast(x)) is materialized for the GEMM: 2^36 floats, 256 GiB.
  adjit::Executable exe = adjit::Program::parse(R"(
    func.func @huge(%x: tensor<f32>, %v: tensor<262144x16xf32>) -> tensor<262144x16xf32> {
      %small = adjit.exp %v : tensor<262144x16xf32>
      %b = adjit.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<262144x262144xf32>
      %e = adjit.exp %b : tensor<262144x262144xf32>
      %m = adjit.dot_general %e, %small, batch = [] x [], contract = [1] x [0] : (tensor<262144x262144xf32>, tensor<262144x16xf32>) -> tensor<262144x16xf32>
      return %m : tensor<262144x16xf32>
    }
    func.func @fine(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = adjit.exp %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
  )").compile();
  adjit::Array x = adjit::Array::scalar(1.0f), v = adjit::Array::zeros({262144, 16});
  size_t live_before = adjit::allocator_stats().live_bytes;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      exe.run("huge", {x, v});
      FAIL("a 256 GiB temporary was allocated");
    } catch (const adjit::RuntimeError& e) {
      std::string message = e.what();
      INFO(message);
      CHECK(message.find("could not allocate 274877906944 bytes") != std::string::npos);
    }
  }
  CHECK(adjit::allocator_stats().live_bytes == live_before);
  adjit::Array y = exe.run("fine", {adjit::Array::zeros({4})}).at(0);
  CHECK(y.data<float>()[0] == 1.0f);
}
