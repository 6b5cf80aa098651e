// pad and conv (lax.pad, lax.conv_general_dilated with channels last)
// against plain C++ references written from their definitions, their
// gradients through check_grads in both modes, the output shapes JAX gives
// for the padding modes, and the errors of bad options.
#include "test_support.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

Vec wave(const Shape& shape, double step) { return sine_wave(shape, step, 0.3); }

// lax.pad from its definition: each output position either maps back to an
// input element or holds the padding value.
Vec pad_reference(const Vec& x, const Shape& shape, const Shape& low, const Shape& high,
                  const Shape& interior, double value, Shape& out_shape) {
  out_shape.clear();
  for (size_t d = 0; d < shape.size(); ++d)
    out_shape.push_back(low[d] + high[d] + shape[d] + std::max<int64_t>(shape[d] - 1, 0) * interior[d]);
  Vec out(static_cast<size_t>(count(out_shape)));
  for (int64_t o = 0; o < count(out_shape); ++o) {
    std::vector<int64_t> at = unravel(o, out_shape), from(shape.size());
    bool inside = true;
    for (size_t d = 0; d < shape.size() && inside; ++d) {
      int64_t q = at[d] - low[d];
      inside = q >= 0 && q % (interior[d] + 1) == 0 && q / (interior[d] + 1) < shape[d];
      from[d] = inside ? q / (interior[d] + 1) : 0;
    }
    out[o] = inside ? x[ravel(from, shape)] : value;
  }
  return out;
}

struct ConvCase {
  const char* name;
  Shape x, w;
  ConvOptions options;
  Shape want;  // the output shape, as jax.lax.conv_general_dilated gives it
};

// The convolution from its definition: output position o, kernel tap k and
// input channel c of group g read the input at o * stride + k * rhs_dilation
// - low in the lhs-dilated input, where that lands on an input element.
Vec conv_reference(const Vec& x, const Shape& xs, const Vec& w, const Shape& ws,
                   const ConvOptions& o, const Shape& out_shape) {
  size_t spatial = xs.size() - 2;
  int64_t groups = o.feature_group_count, cin = xs.back(), cout = ws.back();
  int64_t cg = cin / groups, og = cout / groups;
  auto option = [](const Shape& s, size_t d) { return s.empty() ? int64_t{1} : s[d]; };
  std::vector<int64_t> low(spatial, 0);
  for (size_t d = 0; d < spatial; ++d) {
    if (!o.explicit_padding.empty()) {
      low[d] = o.explicit_padding[d].first;
    } else if (o.padding != Padding::valid) {
      int64_t stride = option(o.strides, d), k = (ws[d] - 1) * option(o.rhs_dilation, d) + 1;
      int64_t out = (xs[d + 1] + stride - 1) / stride;
      int64_t total = std::max<int64_t>((out - 1) * stride + k - xs[d + 1], 0);
      low[d] = o.padding == Padding::same ? total / 2 : total - total / 2;
    }
  }
  Shape taps(ws.begin(), ws.begin() + spatial);
  Vec out(static_cast<size_t>(count(out_shape)), 0.0);
  for (int64_t flat = 0; flat < count(out_shape); ++flat) {
    std::vector<int64_t> at = unravel(flat, out_shape);
    int64_t g = at.back() / og;
    double acc = 0;
    for (int64_t t = 0; t < count(taps); ++t) {
      std::vector<int64_t> k = unravel(t, taps), from{at[0]};
      bool inside = true;
      for (size_t d = 0; d < spatial && inside; ++d) {
        int64_t q = at[d + 1] * option(o.strides, d) + k[d] * option(o.rhs_dilation, d) - low[d];
        int64_t dil = option(o.lhs_dilation, d);
        inside = q >= 0 && q % dil == 0 && q / dil < xs[d + 1];
        from.push_back(q / dil);
      }
      if (!inside) continue;
      from.push_back(0);
      for (int64_t c = 0; c < cg; ++c) {
        from.back() = g * cg + c;
        std::vector<int64_t> wi = k;
        wi.push_back(c);
        wi.push_back(at.back());
        acc += x[ravel(from, xs)] * w[ravel(wi, ws)];
      }
    }
    out[flat] = acc;
  }
  return out;
}

std::vector<ConvCase> conv_cases() {
  using P = std::vector<std::pair<int64_t, int64_t>>;
  return {
      {"1-D valid", {1, 5, 2}, {3, 2, 4}, {}, {1, 3, 4}},
      {"2-D valid", {2, 7, 6, 3}, {3, 3, 3, 5}, {}, {2, 5, 4, 5}},
      {"same, stride 2, odd input", {2, 7, 6, 3}, {3, 3, 3, 5},
       {.strides = {2, 2}, .padding = Padding::same}, {2, 4, 3, 5}},
      {"same, stride 2, even input", {2, 6, 6, 3}, {3, 3, 3, 5},
       {.strides = {2, 2}, .padding = Padding::same}, {2, 3, 3, 5}},
      {"same_lower, stride 2", {2, 6, 6, 3}, {3, 3, 3, 5},
       {.strides = {2, 2}, .padding = Padding::same_lower}, {2, 3, 3, 5}},
      {"same, kernel dilation", {2, 6, 6, 3}, {3, 2, 3, 5},
       {.strides = {1, 2}, .padding = Padding::same, .rhs_dilation = {2, 1}}, {2, 6, 3, 5}},
      {"two groups", {2, 6, 6, 4}, {3, 3, 2, 6},
       {.padding = Padding::same, .feature_group_count = 2}, {2, 6, 6, 6}},
      {"depthwise, multiplier 2", {2, 6, 6, 4}, {3, 3, 1, 8},
       {.padding = Padding::same, .feature_group_count = 4}, {2, 6, 6, 8}},
      {"depthwise, strided", {2, 6, 6, 4}, {3, 3, 1, 4},
       {.strides = {2, 1}, .feature_group_count = 4}, {2, 2, 4, 4}},
      {"transposed (lhs dilation)", {2, 5, 5, 3}, {3, 3, 3, 2},
       {.explicit_padding = P{{2, 2}, {1, 2}}, .lhs_dilation = {2, 2}}, {2, 11, 10, 2}},
      {"negative padding crops", {2, 5, 5, 3}, {3, 3, 3, 2},
       {.explicit_padding = P{{-1, 2}, {1, -1}}}, {2, 4, 3, 2}},
      {"3-D, same", {1, 4, 5, 3, 2}, {2, 3, 2, 2, 3},
       {.strides = {1, 2, 1}, .padding = Padding::same}, {1, 4, 3, 3, 3}},
      {"1x1 kernel, stride 3", {3, 8, 2}, {1, 2, 4}, {.strides = {3}}, {3, 3, 4}},
      {"kernel larger than the input: empty", {2, 3, 3, 2}, {5, 5, 2, 2}, {}, {2, 0, 0, 2}},
      {"groups, strides, dilation, padding", {2, 9, 9, 6}, {3, 3, 2, 9},
       {.strides = {2, 2}, .explicit_padding = P{{1, 0}, {2, 1}}, .rhs_dilation = {2, 2},
        .feature_group_count = 3},
       {2, 3, 4, 9}},
      // 16 channels: patch rows of a cache line or more are gathered.
      {"16 channels, same, stride, kernel dilation", {2, 7, 6, 16}, {3, 2, 16, 4},
       {.strides = {2, 1}, .padding = Padding::same, .rhs_dilation = {1, 2}}, {2, 4, 6, 4}},
      {"16 channels, two groups", {2, 5, 5, 32}, {3, 3, 16, 8}, {.feature_group_count = 2},
       {2, 3, 3, 8}},
      {"16 channels, transposed", {1, 4, 4, 16}, {3, 3, 16, 2},
       {.explicit_padding = P{{2, 2}, {2, 2}}, .lhs_dilation = {2, 2}}, {1, 9, 9, 2}},
      {"16 channels, cropped", {2, 5, 5, 16}, {3, 3, 16, 3},
       {.explicit_padding = P{{-1, 1}, {0, -1}}}, {2, 3, 2, 3}},
      // More than 64 taps (a long filter): gathered, depthwise too.
      {"100 taps, one channel, same", {1, 120, 1}, {100, 1, 2}, {.padding = Padding::same},
       {1, 120, 2}},
      {"depthwise, 70 taps", {1, 80, 2}, {70, 1, 2}, {.feature_group_count = 2}, {1, 11, 2}},
  };
}

}  // namespace

TEST_CASE("tracer ops: pad (low, high, interior, negative amounts, a tensor value)",
          "[tracer][ops][conv]") {
  struct Case {
    Shape shape, low, high, interior;
  };
  for (const Case& c : std::vector<Case>{{{5}, {2}, {1}, {0}},
                                         {{3, 4}, {1, 0}, {2, 3}, {1, 2}},
                                         {{4, 3}, {-1, 2}, {1, -2}, {0, 1}},
                                         {{2, 3}, {0, 0}, {0, 0}, {0, 0}},
                                         {{0, 2}, {1, 0}, {1, 1}, {3, 0}}})
    for (DType dtype : {F32, F64, I32}) {
      INFO(type_string(dtype, c.shape) << " low " << shape_string(c.low) << " high "
                                       << shape_string(c.high));
      // The values the array holds, rounded to its dtype.
      Vec x = values(make(map(wave(c.shape, 0.7), [](double v) { return std::round(v * 9) / 8; }),
                          c.shape, dtype));
      // The reference pads by the positive amounts, then crops the negative ones.
      Shape low = c.low, high = c.high, padded_shape;
      for (auto* amounts : {&low, &high})
        for (int64_t& a : *amounts) a = std::max<int64_t>(a, 0);
      Vec padded = pad_reference(x, c.shape, low, high, c.interior, 7, padded_shape);
      Shape want_shape;
      std::vector<int64_t> start;
      for (size_t d = 0; d < c.shape.size(); ++d) {
        start.push_back(std::max<int64_t>(-c.low[d], 0));
        want_shape.push_back(padded_shape[d] - start[d] - std::max<int64_t>(-c.high[d], 0));
      }
      Vec want;
      for (int64_t o = 0; o < count(want_shape); ++o) {
        std::vector<int64_t> at = unravel(o, want_shape);
        for (size_t d = 0; d < at.size(); ++d) at[d] += start[d];
        want.push_back(padded[ravel(at, padded_shape)]);
      }
      Array got = jit([c](Tensor t) { return pad(t, c.low, c.high, 7, c.interior); })(
          make(x, c.shape, dtype));
      CHECK_EXACT("pad by a number", got, dtype, want_shape, want);
      Array by_tensor = jit([c](Tensor t, Tensor v) { return pad(t, c.low, c.high, v, c.interior); })(
          make(x, c.shape, dtype), make({7}, {}, F64));
      CHECK_EXACT("pad by a 0-d tensor", by_tensor, dtype, want_shape, want);
    }
}

TEST_CASE("ad ops: pad's gradients (operand and padding value, both modes)", "[ad][ad-ops][conv]") {
  for (DType dtype : {F32, F64}) {
    Array x = make(wave({3, 4}, 0.9), {3, 4}, dtype);
    Array v = make({0.4}, {}, dtype);
    expect_grads("pad with interior", FN(sum(pad(x[0], {1, 0}, {2, 1}, x[1], {1, 2}) * pad(x[0], {1, 0}, {2, 1}, x[1], {1, 2}))), {x, v});
    expect_grads("pad cropping", FN(pad(x[0], {-1, 2}, {1, -2}, x[1], {0, 1}) * 1.5), {x, v});
  }
  // The value's gradient counts the padded positions: 3 x 4 padded to 6 x 8 adds 36.
  auto g = grad<1>([](Tensor x, Tensor v) { return sum(pad(x, {1, 0}, {2, 1}, v, {0, 1})); });
  CHECK(g(Array::ones({3, 4}), Array::scalar(0.0f)).item<float>() == 36.0f);
}

TEST_CASE("tracer ops: pad's errors name the op, the operand and the line", "[tracer][ops][conv]") {
  auto message = [](std::function<Tensor(Tensor)> f) {
    return what_of<TraceError>([&] { jit([f](Tensor x) { return f(x); })(Array::zeros({3, 4})); });
  };
  std::string e = message([](Tensor x) { return pad(x, {1}, {1, 1}); });
  INFO(e);
  for (const char* part : {"adjit::pad", "f32[3,4]", "need 2 entries", "test_compiler_convolution.cpp:"})
    CHECK(contains(e, part));
  e = message([](Tensor x) { return pad(x, {0, 0}, {0, 0}, 0, {-1, 0}); });
  CHECK(contains(e, "interior padding must be non-negative"));
  e = message([](Tensor x) { return pad(x, {-2, 0}, {-2, 0}); });
  CHECK(contains(e, "would have -1 elements"));
  e = message([](Tensor x) { return pad(x, {1, 1}, {1, 1}, sum(x, {0})); });
  CHECK(contains(e, "a number or a 0-d tensor, got f32[4]"));
  // Sizes beyond int64 are errors, not wrapped around (to 0: a crash).
  const int64_t most = std::numeric_limits<int64_t>::max();
  e = message([most](Tensor x) { return pad(x, {most, 0}, {most - 1, 0}); });
  CHECK(contains(e, "dimension 0 of the result would have more elements than int64 counts"));
  e = message([](Tensor x) { return pad(x, {0, 0}, {0, 0}, 0, {0, int64_t{1} << 62}); });
  CHECK(contains(e, "dimension 1 of the result would have more elements than int64 counts"));
  e = message([most](Tensor x) { return pad(x, {-most, 0}, {-most, 0}); });
  CHECK(contains(e, "would have -18446744073709551611 elements"));
}

TEST_CASE("tracer ops: conv against a reference from its definition (f32, f64, 1 and 2 threads)",
          "[tracer][ops][conv]") {
  for (const ConvCase& c : conv_cases())
    for (DType dtype : {F32, F64})
      for (int threads : {1, 2}) {
        INFO(c.name << " " << type_string(dtype, c.x) << " * " << shape_string(c.w) << ", "
                    << threads << " thread(s)");
        Vec x = wave(c.x, 0.37), w = wave(c.w, 0.11);
        ConvOptions options = c.options;
        auto f = jit([options](Tensor x, Tensor w) { return conv(x, w, options); },
                     {.threads = threads});
        Array got = f(make(x, c.x, dtype), make(w, c.w, dtype));
        Vec want = conv_reference(x, c.x, w, c.w, c.options, c.want);
        double tol = dtype == F32 ? 1e-5 : 1e-12;
        CHECK_ARRAY("conv", got, dtype, c.want, want, (Tol{tol, tol}));
      }
}

TEST_CASE("ad ops: conv's gradients through check_grads (both modes)", "[ad][ad-ops][conv]") {
  for (const ConvCase& c : conv_cases()) {
    if (count(c.want) == 0) continue;
    // Small enough for central differences over every element.
    if (count(c.x) + count(c.w) > 600) continue;
    INFO(c.name);
    ConvOptions options = c.options;
    Array x = make(wave(c.x, 0.37), c.x, F64), w = make(wave(c.w, 0.11), c.w, F64);
    Array weights = make(wave(c.want, 0.23), c.want, F64);
    expect_grads(c.name, FN(sum(conv(x[0], x[1], options) * x[2])), {x, w, weights});
  }
  // A smaller f32 case, and an integer input converted by promotion.
  Array x = make(wave({1, 4, 3, 2}, 0.5), {1, 4, 3, 2}, F32);
  Array w = make(wave({2, 2, 2, 3}, 0.3), {2, 2, 2, 3}, F32);
  expect_grads("f32, same, stride 2",
               FN(conv(x[0], x[1], {.strides = {2, 1}, .padding = Padding::same}) * 0.5), {x, w});
}

TEST_CASE("tracer ops: conv traces one GEMM over gathered or copied patches, depthwise none",
          "[tracer][ops][conv]") {
  auto count_of = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  auto regular = jit([](Tensor x, Tensor w) { return conv(x, w, {.padding = Padding::same}); });
  std::string ir = regular.lower(Array::zeros({2, 8, 8, 4}), Array::zeros({3, 3, 4, 6})).ir("traced");
  CHECK(count_of(ir, "adjit.dot_general") == 1);
  CHECK(count_of(ir, "adjit.pad") == 1);
  CHECK(count_of(ir, "adjit.concatenate") == 1);  // 4 channels: a copy per tap
  ir = regular.lower(Array::zeros({2, 8, 8, 16}), Array::zeros({3, 3, 16, 6})).ir("traced");
  CHECK(count_of(ir, "adjit.dot_general") == 1);
  CHECK(count_of(ir, "adjit.gather") == 1);  // 16 channels: one gather of the patches
  CHECK(count_of(ir, "adjit.concatenate") == 0);
  auto depthwise = jit([](Tensor x, Tensor w) {
    return conv(x, w, {.padding = Padding::same, .feature_group_count = 4});
  });
  ir = depthwise.lower(Array::zeros({2, 8, 8, 4}), Array::zeros({3, 3, 1, 4})).ir("traced");
  CHECK(count_of(ir, "adjit.dot_general") == 0);
  // A long filter: traced tap by tap, its ops took seconds to compile
  // (256 taps of one channel: minutes, before concatenations were grouped).
  ir = regular.lower(Array::zeros({1, 300, 1}), Array::zeros({65, 1, 1})).ir("traced");
  CHECK(count_of(ir, "adjit.gather") == 1);
  CHECK(count_of(ir, "adjit.slice") <= 1);
  ir = depthwise.lower(Array::zeros({1, 300, 4}), Array::zeros({65, 1, 4})).ir("traced");
  CHECK(count_of(ir, "adjit.gather") == 1);
  CHECK(count_of(ir, "adjit.dot_general") == 1);
}

TEST_CASE("tracer ops: conv's errors name the op, the operands and the line",
          "[tracer][ops][conv]") {
  auto message = [](Shape xs, Shape ws, ConvOptions options) {
    return what_of<TraceError>([&] {
      jit([options](Tensor x, Tensor w) { return conv(x, w, options); })(Array::zeros(xs),
                                                                          Array::zeros(ws));
    });
  };
  std::string e = message({2, 5, 3}, {3, 3, 3, 4}, {});
  INFO(e);
  for (const char* part : {"adjit::conv", "f32[2,5,3]", "f32[3,3,3,4]", "test_compiler_convolution.cpp:"})
    CHECK(contains(e, part));
  e = message({2, 5, 5, 4}, {3, 3, 3, 6}, {});
  CHECK(contains(e, "has 3 input channels per group"));
  e = message({2, 5, 5, 4}, {3, 3, 2, 6}, {.feature_group_count = 3});
  CHECK(contains(e, "feature_group_count 3 must divide"));
  e = message({2, 5, 5, 4}, {3, 3, 4, 6}, {.strides = {1}});
  CHECK(contains(e, "strides has 1 entries; the operands have 2 spatial dimensions"));
  e = message({2, 5, 5, 4}, {3, 3, 4, 6}, {.rhs_dilation = {1, 0}});
  CHECK(contains(e, "rhs_dilation must be >= 1"));
  e = message({2, 5, 5, 4}, {3, 3, 4, 6}, {.padding = Padding::same, .lhs_dilation = {2, 2}});
  CHECK(contains(e, "give explicit_padding"));
  e = message({2, 5, 5, 4}, {3, 3, 4, 6}, {.explicit_padding = {{-3, -3}, {0, 0}}});
  CHECK(contains(e, "cropped to -1 elements"));
  // Dilations and paddings whose sizes int64 cannot count: the conv says
  // so (not the slice or pad it is made of).
  for (ConvOptions huge : {ConvOptions{.rhs_dilation = {std::numeric_limits<int64_t>::max(), 1}},
                           ConvOptions{.lhs_dilation = {std::numeric_limits<int64_t>::max(), 1}},
                           ConvOptions{.explicit_padding = {{0, std::numeric_limits<int64_t>::max()},
                                                            {0, 0}}}}) {
    e = message({2, 5, 5, 4}, {3, 3, 4, 6}, huge);
    CHECK(contains(e, "adjit::conv: spatial dimension 0 of f32[2,5,5,4], dilated and padded, is "
                      "larger than int64 counts"));
  }
  e = message({2, 5, 5, 4}, {0, 3, 4, 6}, {});
  CHECK(contains(e, "empty spatial dimension 0"));
  e = what_of<TraceError>([] {
    jit([](Tensor x, Tensor w) { return conv(x > 0.0, w > 0.0); })(Array::zeros({1, 3, 2}),
                                                                   Array::zeros({1, 2, 2}));
  });
  CHECK(contains(e, "needs numeric operands"));
}

namespace {

struct PoolCase {
  const char* name;
  Shape x, window;
  PoolOptions options;
  Shape want;  // the output shape, as jax.lax.reduce_window gives it
};

std::vector<PoolCase> pool_cases() {
  using P = std::vector<std::pair<int64_t, int64_t>>;
  return {
      {"2-D valid", {2, 7, 6, 3}, {3, 3}, {}, {2, 5, 4, 3}},
      {"same, stride 2", {2, 7, 6, 3}, {3, 3}, {.strides = {2, 2}, .padding = Padding::same},
       {2, 4, 3, 3}},
      {"same_lower, uneven", {2, 7, 6, 3}, {2, 3},
       {.strides = {2, 1}, .padding = Padding::same_lower}, {2, 4, 6, 3}},
      {"same, not counting the padding", {2, 7, 6, 3}, {3, 3},
       {.strides = {2, 2}, .padding = Padding::same, .count_include_pad = false}, {2, 4, 3, 3}},
      {"3-D, explicit", {1, 5, 4, 3, 2}, {2, 2, 2},
       {.strides = {1, 2, 1}, .explicit_padding = P{{1, 0}, {0, 1}, {1, 1}},
        .count_include_pad = false},
       {1, 5, 2, 4, 2}},
      {"1-D", {3, 9, 4}, {3}, {.strides = {2}, .padding = Padding::same}, {3, 5, 4}},
      // Windows that tile the input: one reduction of the input reshaped.
      {"tiling 2 x 2, the rest cut", {2, 7, 6, 3}, {2, 2}, {.strides = {2, 2}}, {2, 3, 3, 3}},
      {"tiling 3 x 2, same needs no padding", {2, 6, 6, 3}, {3, 2},
       {.strides = {3, 2}, .padding = Padding::same}, {2, 2, 3, 3}},
      // One window per dimension tiles it whatever the stride: a global pool.
      {"global, strided", {2, 6, 5, 3}, {6, 5}, {.strides = {2, 3}}, {2, 1, 1, 3}},
      {"global, padded", {2, 6, 5, 3}, {8, 7},
       {.explicit_padding = P{{1, 1}, {1, 1}}, .count_include_pad = false}, {2, 1, 1, 3}},
      // Long windows (maxima past 4 taps, sums past 12) double: windows of
      // 2, 4, ... elements, then one term per set bit of the size (7 = 4 +
      // 2 + 1, 13 = 8 + 4 + 1).
      {"7 wide, same", {2, 9, 8, 3}, {7, 1}, {.padding = Padding::same}, {2, 9, 8, 3}},
      {"13 wide, stride 2, padded", {1, 40, 3, 2}, {13, 2},
       {.strides = {2, 1}, .explicit_padding = P{{2, 1}, {0, 0}}, .count_include_pad = false},
       {1, 16, 2, 2}},
  };
}

// Pools from their definition: window positions o * stride + k - low that
// land inside the input.
Vec pool_reference(const Vec& x, const Shape& xs, const Shape& window, const PoolOptions& o,
                   const Shape& out_shape, bool take_max) {
  size_t spatial = window.size();
  std::vector<int64_t> low(spatial, 0);
  for (size_t d = 0; d < spatial; ++d) {
    int64_t stride = o.strides.empty() ? 1 : o.strides[d];
    if (!o.explicit_padding.empty()) {
      low[d] = o.explicit_padding[d].first;
    } else if (o.padding != Padding::valid) {
      int64_t out = (xs[d + 1] + stride - 1) / stride;
      int64_t total = std::max<int64_t>((out - 1) * stride + window[d] - xs[d + 1], 0);
      low[d] = o.padding == Padding::same ? total / 2 : total - total / 2;
    }
  }
  Vec out;
  for (int64_t flat = 0; flat < count(out_shape); ++flat) {
    std::vector<int64_t> at = unravel(flat, out_shape);
    double best = -kInf, total = 0;
    int64_t inside_count = 0;
    for (int64_t t = 0; t < count(window); ++t) {
      std::vector<int64_t> k = unravel(t, window), from{at[0]};
      bool inside = true;
      for (size_t d = 0; d < spatial; ++d) {
        int64_t q = at[d + 1] * (o.strides.empty() ? 1 : o.strides[d]) + k[d] - low[d];
        inside = inside && q >= 0 && q < xs[d + 1];
        from.push_back(q);
      }
      if (!inside) continue;
      from.push_back(at.back());
      double v = x[ravel(from, xs)];
      best = std::max(best, v);
      total += v;
      ++inside_count;
    }
    double divisor = o.count_include_pad ? static_cast<double>(count(window)) : inside_count;
    out.push_back(take_max ? best : total / divisor);
  }
  return out;
}

}  // namespace

TEST_CASE("tracer ops: max_pool and avg_pool against references (f32, f64, i32)",
          "[tracer][ops][conv]") {
  for (const PoolCase& c : pool_cases())
    for (DType dtype : {F32, F64, I32}) {
      INFO(c.name << " " << type_string(dtype, c.x));
      // The values the array holds (integers: the wave times 50, rounded).
      Vec x = values(make(map(wave(c.x, 0.37), [&](double v) { return dtype == I32 ? std::round(v * 50) : v; }),
                          c.x, dtype));
      PoolOptions options = c.options;
      Shape window = c.window;
      Array got_max = jit([options, window](Tensor t) { return max_pool(t, window, options); })(
          make(x, c.x, dtype));
      CHECK_EXACT("max_pool", got_max, dtype, c.want,
                  pool_reference(x, c.x, c.window, c.options, c.want, true));
      Array got_avg = jit([options, window](Tensor t) { return avg_pool(t, window, options); })(
          make(x, c.x, dtype));
      DType avg_type = dtype == I32 ? F32 : dtype;
      double tol = avg_type == F32 ? 1e-6 : 1e-14;
      CHECK_ARRAY("avg_pool", got_avg, avg_type, c.want,
                  pool_reference(x, c.x, c.window, c.options, c.want, false), (Tol{tol, tol}));
    }
}

TEST_CASE("ad ops: max_pool's and avg_pool's gradients through check_grads (both modes)",
          "[ad][ad-ops][conv]") {
  for (const PoolCase& c : pool_cases()) {
    INFO(c.name);
    PoolOptions options = c.options;
    Shape window = c.window;
    // Distinct values: central differences of a maximum need no tie nearby.
    Vec ramp(static_cast<size_t>(count(c.x)));
    for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = 0.01 * static_cast<double>((i * 37) % ramp.size());
    Array x = make(ramp, c.x, F64);
    Array weights = make(wave(c.want, 0.23), c.want, F64);
    expect_grads(std::string("max_pool ") + c.name, FN(sum(max_pool(x[0], window, options) * x[1])),
                 {x, weights});
    expect_grads(std::string("avg_pool ") + c.name, FN(sum(avg_pool(x[0], window, options) * x[1])),
                 {x, weights});
  }
  // Tied maxima share the gradient; it sums to 1 per window.
  auto g = grad([](Tensor x) { return sum(max_pool(x, {2, 2}, {.strides = {2, 2}})); });
  Array tied = g(Array::ones({1, 2, 2, 1}));
  Vec shares = values(tied);
  CHECK(shares[0] + shares[1] + shares[2] + shares[3] == 1.0);
  for (double share : shares) CHECK(share > 0);
}

TEST_CASE("tracer ops: the pools' errors name the op, the operand and the line",
          "[tracer][ops][conv]") {
  auto message = [](Shape xs, Shape window, PoolOptions options, bool take_max) {
    return what_of<TraceError>([&] {
      jit([=](Tensor x) { return take_max ? max_pool(x, window, options) : avg_pool(x, window, options); })(
          Array::zeros(xs));
    });
  };
  std::string e = message({2, 5}, {2}, {}, true);
  INFO(e);
  for (const char* part : {"adjit::max_pool", "f32[2,5]", "test_compiler_convolution.cpp:"})
    CHECK(contains(e, part));
  e = message({2, 5, 5, 3}, {2}, {}, false);
  CHECK(contains(e, "adjit::avg_pool"));
  CHECK(contains(e, "window has 1 entries; x f32[2,5,5,3] has 2 spatial dimensions"));
  e = message({2, 5, 5, 3}, {2, 0}, {}, true);
  CHECK(contains(e, "window sizes must be >= 1"));
  e = message({2, 5, 5, 3}, {2, 2}, {.strides = {1, 2, 3}}, true);
  CHECK(contains(e, "strides has 3 entries"));
  e = what_of<TraceError>(
      [] { jit([](Tensor x) { return max_pool(x > 0.0, {2}); })(Array::zeros({1, 4, 2})); });
  CHECK(contains(e, "needs a numeric operand"));
}

TEST_CASE("tracer ops: pools whose windows do not fit give empty results at once",
          "[tracer][ops][conv]") {
  // No window fits: an empty result, without an op per window element
  // (a window of 2^62 rows once never finished tracing).
  for (int64_t rows : {int64_t{5}, int64_t{1} << 40, std::numeric_limits<int64_t>::max()}) {
    INFO("window rows " << rows);
    auto pools = jit([rows](Tensor x) {
      return std::make_tuple(max_pool(x, {rows, 1}), avg_pool(x, {rows, 1}));
    });
    auto [maxima, means] = pools(Array::ones({1, 4, 4, 1}, I32));
    CHECK(maxima.shape() == Shape{1, 0, 4, 1});
    CHECK(maxima.dtype() == I32);
    CHECK(means.shape() == Shape{1, 0, 4, 1});
    CHECK(means.dtype() == F32);
  }
  // Its gradient is empty too.
  Array g = jit(grad([](Tensor x) { return sum(max_pool(x, {9, 1})); }))(Array::ones({1, 4, 4, 1}));
  CHECK(g.to_vector<float>() == std::vector<float>(16, 0.0f));
}

TEST_CASE("tracer ops: pools whose windows tile the input reduce it reshaped, others pad",
          "[tracer][ops][conv]") {
  auto traced = [](Shape window, PoolOptions options) {
    auto f = jit([=](Tensor x) { return max_pool(x, window, options); });
    return f.lower(Array::zeros({2, 8, 8, 4})).ir("traced");
  };
  std::string tiled = traced({2, 2}, {.strides = {2, 2}});
  CHECK(contains(tiled, "adjit.reduce"));
  CHECK(!contains(tiled, "adjit.pad"));
  CHECK(!contains(tiled, "adjit.max "));
  std::string overlapping = traced({3, 3}, {.strides = {2, 2}, .padding = Padding::same});
  CHECK(contains(overlapping, "adjit.pad"));
  CHECK(contains(overlapping, "adjit.max "));
  CHECK(!contains(overlapping, "adjit.reduce"));
}

TEST_CASE("tracer ops: a pool's ops grow with the log of its window, not its area",
          "[tracer][ops][conv]") {
  // A 31 x 31 window: per dimension 4 doublings and 4 more terms (31 =
  // 16 + 8 + 4 + 2 + 1), where one op per element was 960 ops, and a
  // gradient that took minutes to compile.
  auto f = jit(value_and_grad([](Tensor x) {
    return sum(avg_pool(x, {31, 31}, {.padding = Padding::same, .count_include_pad = false}));
  }));
  auto lowered = f.lower(Array::zeros({1, 64, 64, 2}));
  std::string traced = lowered.ir("traced");
  size_t adds = 0;
  for (size_t at = traced.find("adjit.add "); at != std::string::npos;
       at = traced.find("adjit.add ", at + 1))
    ++adds;
  CHECK(adds == 2 * 2 * 8);  // the sums and the counts, 8 per dimension (the gradient comes later)
}
