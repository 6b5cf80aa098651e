// call_into: results written into caller buffers, for loops that reuse them.
#include <adjit/adjit.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using adjit::Array;
using adjit::Tensor;
using Catch::Matchers::Contains;

TEST_CASE("call_into writes the results into the given arrays", "[jit][outputs]") {
  auto f = adjit::jit([](Tensor x) { return std::make_tuple(x * 2.0, adjit::sum(x)); });
  Array x = Array::from<float>({1, 2, 3}, {3});
  auto out = std::make_tuple(Array::empty({3}, adjit::DType::f32), Array::empty({}, adjit::DType::f32));
  const void* buffer = std::get<0>(out).raw_data();
  f.call_into(out, x);
  CHECK(std::get<0>(out).raw_data() == buffer);
  CHECK(std::get<0>(out).to_vector<float>() == std::vector<float>{2, 4, 6});
  CHECK(std::get<1>(out).item<float>() == 6);
  f(x);  // the ordinary call shares the compiled code
  CHECK(f.cache_info().misses == 1);
}

TEST_CASE("call_into rejects outputs that alias inputs or mismatch, and recovers",
          "[jit][outputs]") {
  auto f = adjit::jit([](Tensor x) { return x + 1.0; });
  Array x = Array::from<float>({1, 2}, {2});
  CHECK_THROWS_WITH(f.call_into(x, x), Contains("shares memory with input 0"));
  Array wrong = Array::empty({3}, adjit::DType::f32);
  CHECK_THROWS_WITH(f.call_into(wrong, x), Contains("must be f32[2], got f32[3]"));
  CHECK_THROWS_WITH(f.call_into(wrong, x), Contains("call_into"));
  // Two outputs in one buffer: one result would be lost.
  auto two = adjit::jit([](Tensor x) { return std::make_tuple(x + 1.0, x * 2.0); });
  Array shared = Array::empty({2}, adjit::DType::f32);
  auto both = std::make_tuple(shared, shared);
  CHECK_THROWS_WITH(two.call_into(both, x), Contains("outputs 0 and 1 share memory"));
  // Nothing from the failed calls lingers into the next one.
  Array out = Array::empty({2}, adjit::DType::f32);
  f.call_into(out, x);
  CHECK(out.to_vector<float>() == std::vector<float>{2, 3});
  CHECK(f(x).to_vector<float>() == std::vector<float>{2, 3});
}

TEST_CASE("Executable::run_into rejects outputs that share memory, as call_into does",
          "[jit][outputs]") {
  auto square = adjit::jit([](Tensor x) { return adjit::matmul(x, x); })
                    .lower(Array::ones({4, 4}))
                    .compile();
  Array a = Array::ones({4, 4});
  CHECK_THROWS_WITH(square.run_into("fn", {a}, {a}),
                    Contains("entry 'fn': output 0 shares memory with input 0"));
  CHECK(a.to_vector<float>() == std::vector<float>(16, 1.0f));  // not written
  // A view of part of the input overlaps it too.
  Array rows = Array::ones({8, 4});
  Array lower_half = Array::view(rows.data<float>() + 12, {4, 4}, adjit::DType::f32);
  Array upper = Array::view(rows.data<float>(), {4, 4}, adjit::DType::f32);
  CHECK_THROWS_WITH(square.run_into("fn", {upper}, {lower_half}), Contains("shares memory"));
  Array out = Array::empty({4, 4}, adjit::DType::f32);
  square.run_into("fn", {a}, {out});
  CHECK(out.to_vector<float>() == std::vector<float>(16, 4.0f));
}

TEST_CASE("a training loop alternates two buffer sets with call_into", "[jit][outputs]") {
  auto step = adjit::jit([](Tensor w) { return w - 0.5 * w; });
  Array a = Array::ones({4}), b = Array::empty({4}, adjit::DType::f32);
  for (int i = 0; i < 4; ++i) {
    step.call_into(b, a);
    std::swap(a, b);
  }
  CHECK(a.to_vector<float>() == std::vector<float>(4, 1.0f / 16));
}

// A result larger than any L2 cache that the function only writes is
// streamed with nontemporal stores (adjit-stream-stores), which x86 allows
// only at aligned addresses; a caller's buffer need only be aligned to its
// element, so each store checks its address and falls back to a plain one.
TEST_CASE("call_into a large result at any alignment: streamed stores check their address",
          "[jit][outputs]") {
  constexpr int64_t n = 4 << 20;  // 16 MiB of f32
  auto f = adjit::jit([](Tensor x) { return adjit::tanh(x) * 2.0 + x; });
  Array x = Array::randn({n}, 11);
#if defined(__x86_64__)
  std::string assembly = f.lower(x).ir("asm");
  CHECK((assembly.find("vmovntps") != std::string::npos ||
         assembly.find("movntps") != std::string::npos));
#endif
  Array want = f(x);
  std::vector<float> storage(n + 64);
  for (size_t misalignment : {size_t{0}, size_t{1}, size_t{4}, size_t{15}}) {
    INFO("output misaligned by " << misalignment << " floats from a 64-byte boundary");
    auto address = reinterpret_cast<uintptr_t>(storage.data());
    size_t first = ((64 - address % 64) % 64) / sizeof(float) + misalignment;
    Array out = Array::view(storage.data() + first, {n}, adjit::DType::f32);
    f.call_into(out, x);
    CHECK(std::memcmp(out.raw_data(), want.raw_data(), want.nbytes()) == 0);
  }
}
