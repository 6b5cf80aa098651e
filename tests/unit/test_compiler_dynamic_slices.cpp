// dynamic_slice and dynamic_update_slice: blocks at run-time starts
// (negative ones counted from the end as JAX's, then clamped as XLA's), against references, inside loops (a buffer filled
// row by row, in place), their gradients in both modes, and their errors.
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

Vec ramp(int64_t n) {
  Vec v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return v;
}

// Negative starts counted from the end (jax.lax.dynamic_slice's), then
// clamped into [0, size - block], as XLA's.
std::vector<int64_t> clamped(const std::vector<int64_t>& starts, const Shape& shape,
                             const Shape& block) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < starts.size(); ++d) {
    int64_t start = starts[d] < 0 ? starts[d] + shape[d] : starts[d];
    out.push_back(std::clamp<int64_t>(start, 0, shape[d] - block[d]));
  }
  return out;
}

Vec slice_reference(const Vec& x, const Shape& shape, const std::vector<int64_t>& starts,
                    const Shape& sizes) {
  std::vector<int64_t> at = clamped(starts, shape, sizes);
  Vec out;
  for (int64_t o = 0; o < count(sizes); ++o) {
    std::vector<int64_t> index = unravel(o, sizes);
    for (size_t d = 0; d < index.size(); ++d) index[d] += at[d];
    out.push_back(x[ravel(index, shape)]);
  }
  return out;
}

Vec update_reference(Vec x, const Shape& shape, const Vec& update, const Shape& block,
                     const std::vector<int64_t>& starts) {
  std::vector<int64_t> at = clamped(starts, shape, block);
  for (int64_t o = 0; o < count(block); ++o) {
    std::vector<int64_t> index = unravel(o, block);
    for (size_t d = 0; d < index.size(); ++d) index[d] += at[d];
    x[ravel(index, shape)] = update[o];
  }
  return x;
}

}  // namespace

TEST_CASE("tracer ops: dynamic_slice and dynamic_update_slice at clamped starts (f32, f64, i32)",
          "[tracer][ops][dynamic]") {
  Shape shape{5, 6};
  Shape block{2, 3};
  for (DType dtype : {F32, F64, I32})
    for (std::vector<int64_t> starts : std::vector<std::vector<int64_t>>{
             {0, 0}, {1, 2}, {3, 3}, {4, 5}, {-2, 1}, {9, -1}, {2, 100}, {-5, -4}, {-9, -7}}) {
      INFO(type_string(dtype, shape) << " starts " << starts[0] << ", " << starts[1]);
      Vec x = ramp(count(shape));
      Vec update = map(ramp(count(block)), [](double v) { return -1 - v; });
      // One start a traced i32, the other an i64 tensor: both kinds of start.
      auto read = jit([block](Tensor x, Tensor i, Tensor j) { return dynamic_slice(x, {i, j}, block); });
      Array got = read(make(x, shape, dtype), Array::scalar<int32_t>(static_cast<int32_t>(starts[0])),
                       Array::scalar<int64_t>(starts[1]));
      CHECK_EXACT("dynamic_slice", got, dtype, block, slice_reference(x, shape, starts, block));
      auto write = jit([](Tensor x, Tensor u, Tensor i, Tensor j) {
        return dynamic_update_slice(x, u, {i, j});
      });
      Array written = write(make(x, shape, dtype), make(update, block, dtype),
                            Array::scalar<int32_t>(static_cast<int32_t>(starts[0])),
                            Array::scalar<int64_t>(starts[1]));
      CHECK_EXACT("dynamic_update_slice", written, dtype, shape,
                  update_reference(x, shape, update, block, starts));
    }
  // C++ integers as starts, an update converted to x's dtype, a whole-size block.
  Array x = make(ramp(6), {2, 3}, F32);
  Array got = jit([](Tensor x) { return dynamic_update_slice(x, full({1, 3}, 2.5, DType::f64), {1, 0}); })(x);
  CHECK_EXACT("C++ starts", got, F32, Shape({2, 3}), (Vec{0, 1, 2, 2.5, 2.5, 2.5}));
  Array whole = jit([](Tensor x, Tensor i) { return dynamic_slice(x, {i, i}, {2, 3}); })(
      x, Array::scalar<int32_t>(7));
  CHECK_EXACT("whole", whole, F32, Shape({2, 3}), ramp(6));
  // Negative C++ starts count from the end too (jax.lax.dynamic_slice([0..4], -2, 2) is [3, 4]).
  Array tail = jit([](Tensor x) { return dynamic_slice(x, {-2}, {2}); })(make(ramp(5), {5}, F32));
  CHECK_EXACT("negative C++ start", tail, F32, Shape({2}), (Vec{3, 4}));
  Array end = jit([](Tensor x) { return dynamic_update_slice(x, full({2}, 9.0), {-1}); })(
      make(ramp(5), {5}, F32));
  CHECK_EXACT("negative C++ start, update", end, F32, Shape({5}), (Vec{0, 1, 2, 9, 9}));
}

TEST_CASE("tracer ops: a fori_loop fills a buffer row by row and reads rows back (1 and 2 threads)",
          "[tracer][ops][dynamic][control-flow]") {
  const int64_t steps = 40, width = 37;
  for (int threads : {1, 2}) {
    INFO(threads << " thread(s)");
    auto run = jit(
        [](Tensor h0, Tensor w) {
          Tensor buffer = full({steps, width}, 0.0);
          auto [h, filled] = fori_loop(
              0, steps,
              [&](Tensor i, std::tuple<Tensor, Tensor> carry) {
                auto [h, b] = carry;
                Tensor next = tanh(h * w + 0.1);
                return std::make_tuple(next, dynamic_update_slice(b, expand_dims(next, 0), {i, 0}));
              },
              std::make_tuple(h0, buffer));
          // Read back every other row at a traced start, in reverse.
          Tensor total = fori_loop(0, steps / 2, [&](Tensor k, Tensor acc) {
            return acc + dynamic_slice(filled, {(steps - 1) - k * 2, 0}, {1, width});
          }, full({1, width}, 0.0));
          return std::make_tuple(filled, total);
        },
        {.threads = threads});
    Vec h0 = map(ramp(width), [](double v) { return std::sin(v); });
    Vec w = map(ramp(width), [](double v) { return std::cos(0.3 * v); });
    auto [filled, total] = run(make(h0, {width}, F32), make(w, {width}, F32));
    Vec want(static_cast<size_t>(steps * width)), want_total(static_cast<size_t>(width), 0.0);
    std::vector<float> h(h0.begin(), h0.end());
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t c = 0; c < width; ++c) {
        h[c] = std::tanh(h[c] * static_cast<float>(w[c]) + 0.1f);
        want[t * width + c] = h[c];
      }
    for (int64_t k = 0; k < steps / 2; ++k)
      for (int64_t c = 0; c < width; ++c) want_total[c] += want[(steps - 1 - 2 * k) * width + c];
    CHECK_ARRAY("buffer", filled, F32, Shape({steps, width}), want, (Tol{1e-6, 1e-6}));
    CHECK_ARRAY("rows read back", total, F32, Shape({1, width}), want_total, (Tol{1e-5, 1e-5}));
  }
}

TEST_CASE("tracer ops: 200 updates unrolled at trace time compile in moments",
          "[tracer][ops][dynamic]") {
  // x.at[i].set(...) written out 200 times: one chain of insert_slice ops,
  // whose bufferization took minutes (adjit-bound-insert-chains). Row i
  // becomes 2 x[i] + i, from i = 0 to 199, each update reading the last.
  const int64_t n = 200;
  auto f = jit([](Tensor x) {
    Tensor acc = x;
    for (int64_t i = 0; i < n; ++i)
      acc = dynamic_update_slice(acc, slice(acc, {i, 0}, {i + 1, 3}) * 2.0 + static_cast<double>(i),
                                 {i, 0});
    return acc;
  });
  Vec x = ramp(n * 3);
  Vec want = map(x, [](double v) { return 2 * v + std::floor(v / 3); });
  CHECK_EXACT("chain", f(make(x, {n, 3}, F64)), F64, Shape({n, 3}), want);
}

TEST_CASE("ad ops: dynamic_slice and dynamic_update_slice gradients (both modes, loops)",
          "[ad][ad-ops][dynamic]") {
  for (DType dtype : {F32, F64}) {
    Array x = make(map(ramp(30), [](double v) { return std::sin(0.7 * v); }), {5, 6}, dtype);
    Array u = make(map(ramp(6), [](double v) { return std::cos(v); }), {2, 3}, dtype);
    for (int32_t start : {-1, 2, 4}) {
      INFO("start " << start);
      Array i = Array::scalar<int32_t>(start);
      expect_grads("dynamic_slice", FN(dynamic_slice(x[0] * x[0], {x[1], 1}, {2, 4})), {x, i});
      expect_grads("dynamic_update_slice",
                   FN(dynamic_update_slice(x[0] * x[0], sin(x[1]), {x[2], x[2]}) * 2.0),
                   {x, u, i});
      expect_grads("read after write",
                   FN(dynamic_slice(dynamic_update_slice(x[0], x[1] * x[1], {x[2], 1}), {1, x[2]}, {3, 3})),
                   {x, u, i});
    }
    // Through a loop that writes one row per step into a carried buffer.
    Array h0 = make(map(ramp(4), [](double v) { return 0.2 * v - 0.3; }), {4}, dtype);
    Array w = make(map(ramp(4), [](double v) { return std::cos(v); }), {4}, dtype);
    expect_grads("buffer filled in a fori_loop", FN([&] {
                   auto [h, b] = fori_loop(
                       0, 6,
                       [&](Tensor t, std::tuple<Tensor, Tensor> c) {
                         auto [h, b] = c;
                         Tensor next = tanh(h * x[1] + 0.1);
                         return std::make_tuple(next, dynamic_update_slice(b, expand_dims(next, 0), {t, 0}));
                       },
                       std::make_tuple(x[0], zeros_like(broadcast_to(expand_dims(x[0], 0), {6, 4}))));
                   return sum(b * b) + sum(h);
                 }()),
                 {h0, w});
  }
}

TEST_CASE("tracer ops: dynamic slices' errors name the op, the operands and the line",
          "[tracer][ops][dynamic]") {
  auto message = [](std::function<Tensor(Tensor, Tensor)> f) {
    return what_of<TraceError>([&] {
      jit([f](Tensor x, Tensor i) { return f(x, i); })(Array::zeros({4, 5}), Array::scalar<int32_t>(1));
    });
  };
  std::string e = message([](Tensor x, Tensor i) { return dynamic_slice(x, {i}, {2, 2}); });
  INFO(e);
  for (const char* part : {"adjit::dynamic_slice", "needs one start per dimension of f32[4,5], got 1",
                           "test_compiler_dynamic_slices.cpp:"})
    CHECK(contains(e, part));
  CHECK(contains(message([](Tensor x, Tensor i) { return dynamic_slice(x, {i, 0}, {2, 6}); }),
                 "sizes [2,6] do not fit in f32[4,5] (dimension 1)"));
  CHECK(contains(message([](Tensor x, Tensor i) { return dynamic_slice(x, {i, 0.5}, {2, 2}); }),
                 "start 1 must be an integer"));
  CHECK(contains(message([](Tensor x, Tensor i) { return dynamic_slice(x, {x, 0}, {2, 2}); }),
                 "start 0 must be a 0-d i32 or i64 tensor, got f32[4,5]"));
  CHECK(contains(message([](Tensor x, Tensor i) { return dynamic_update_slice(x, x, {i}); }),
                 "adjit::dynamic_update_slice"));
  CHECK(contains(message([](Tensor x, Tensor i) { return dynamic_update_slice(x, full({5}, 1.0), {i, 0}); }),
                 "the update f32[5] needs the rank of f32[4,5]"));
  CHECK(contains(message([](Tensor x, Tensor i) { return dynamic_update_slice(x, full({5, 5}, 1.0), {i, 0}); }),
                 "the update f32[5,5] does not fit in f32[4,5] (dimension 0)"));
}
