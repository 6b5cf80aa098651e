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
