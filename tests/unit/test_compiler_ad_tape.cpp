// adjit::GradientTape inside traced functions (DESIGN.md §4-5): sources and
// tuples, persistent tapes, stop_recording, nested tapes, unconnected and
// unwatched sources, jacobian, non-scalar targets, the §5 training step,
// and agreement with the functional API (one set of rules).
#include "test_support.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

const Vec kX = {0.3, -0.7, 1.1};

}  // namespace

TEST_CASE("ad tape: gradient of a scalar with respect to one watched Tensor", "[ad][ad-tape]") {
  auto f = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = sum(sin(x) * x);
    return tape.gradient(y, x);
  });
  for (DType dtype : {F32, F64})
    CHECK(mismatch(f(make(kX, {3}, dtype)), dtype, {3},
                   map(kX, [](double x) { return std::cos(x) * x + std::sin(x); })) == "");
  // Same rules as the functional API.
  auto g = grad([](Tensor x) { return sum(sin(x) * x); });
  CHECK(mismatch(f(make(kX, {3}, F64)), g(make(kX, {3}, F64)), 1e-12) == "");
}

TEST_CASE("ad tape: several sources give a tuple, watch(vector)", "[ad][ad-tape]") {
  auto f = jit([](Tensor w, Tensor b, Tensor x) {
    GradientTape tape;
    tape.watch(std::vector<Tensor>{w, b});
    Tensor loss = sum(square(matmul(x, w) + b));
    auto [gw, gb] = tape.gradient(loss, w, b);
    return std::make_tuple(gw, gb);
  });
  Array w = make({1, -1, 0.5, 2}, {2, 2}, F64), b = make({0.5, -0.5}, {2}, F64),
        x = make({1, 2, 3, 4, 5, 6}, {3, 2}, F64);
  auto [gw, gb] = f(w, b, x);
  auto [rw, rb] = grad<0, 1>([](Tensor w, Tensor b, Tensor x) {
    return sum(square(matmul(x, w) + b));
  })(w, b, x);
  CHECK(mismatch(gw, rw, 1e-12) == "");
  CHECK(mismatch(gb, rb, 1e-12) == "");
  // The std::vector form of gradient().
  auto g = jit([](Tensor w, Tensor b) {
    GradientTape tape;
    tape.watch(w);
    tape.watch(b);
    std::vector<Tensor> grads = tape.gradient(sum(w * b * b), std::vector<Tensor>{b, w});
    return grads;
  });
  std::vector<Array> grads = g(make({1, 2}, {2}, F32), make({3, 4}, {2}, F32));
  REQUIRE(grads.size() == 2);
  CHECK(mismatch(grads[0], F32, {2}, {6, 16}) == "");
  CHECK(mismatch(grads[1], F32, {2}, {9, 16}) == "");
}

TEST_CASE("ad tape: a persistent tape answers twice, a non-persistent one throws",
          "[ad][ad-tape]") {
  auto twice = jit([](Tensor x) {
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    Tensor y = x * x;
    Tensor z = y * y;
    Tensor dy = tape.gradient(sum(y), x);
    Tensor dz = tape.gradient(sum(z), x);
    return std::make_tuple(dy, dz);
  });
  auto [dy, dz] = twice(make(kX, {3}, F64));
  CHECK(mismatch(dy, F64, {3}, map(kX, [](double x) { return 2 * x; })) == "");
  CHECK(mismatch(dz, F64, {3}, map(kX, [](double x) { return 4 * x * x * x; })) == "");
  // TapeOptions form.
  auto opts = jit([](Tensor x) {
    GradientTape tape(TapeOptions{.persistent = true});
    tape.watch(x);
    Tensor y = sum(exp(x));
    return tape.gradient(y, x) + tape.gradient(y, x);
  });
  CHECK(mismatch(opts(make(kX, {3}, F64)), F64, {3},
                 map(kX, [](double x) { return 2 * std::exp(x); })) == "");

  auto once = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = sum(x * x);
    Tensor a = tape.gradient(y, x);
    Tensor b = tape.gradient(y, x);
    return a + b;
  });
  std::string message = what_of<TraceError>([&] { once(make(kX, {3}, F32)); });
  INFO(message);
  CHECK(contains(message, "persistent"));
  // The second gradient()'s line, then the tape's.
  CHECK(contains(message, "test_compiler_ad_tape.cpp:" + std::to_string(__LINE__ - 7) +
                              "; tape created at "));
  CHECK(contains(message, "test_compiler_ad_tape.cpp:" + std::to_string(__LINE__ - 13) + ")"));
}

TEST_CASE("ad tape: ops under stop_recording do not contribute", "[ad][ad-tape]") {
  auto f = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor c;
    {
      auto pause = tape.stop_recording();
      c = x * x;  // a constant to this tape
    }
    Tensor y = sum(c * x);  // x^3, but only the explicit x counts: dy/dx = x^2
    return std::make_tuple(y, tape.gradient(y, x));
  });
  auto [y, g] = f(make(kX, {3}, F64));
  double cubes = 0;
  for (double x : kX) cubes += x * x * x;
  CHECK(mismatch(y, F64, {}, {cubes}) == "");
  CHECK(mismatch(g, F64, {3}, map(kX, [](double x) { return x * x; })) == "");
  // Recording resumes after the pause.
  auto resumed = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    { auto pause = tape.stop_recording(); }
    Tensor y = sum(x * x * x);
    return tape.gradient(y, x);
  });
  CHECK(mismatch(resumed(make(kX, {3}, F64)), F64, {3},
                 map(kX, [](double x) { return 3 * x * x; })) == "");
}

TEST_CASE("ad tape: nested tapes give second derivatives (6x for x^3)", "[ad][ad-tape]") {
  auto nested = jit([](Tensor x) {
    GradientTape outer;
    outer.watch(x);
    GradientTape inner;
    inner.watch(x);
    Tensor y = sum(x * x * x);
    Tensor dy = inner.gradient(y, x);
    return std::make_tuple(dy, outer.gradient(sum(dy), x));
  });
  for (DType dtype : {F32, F64}) {
    auto [dy, d2y] = nested(make(kX, {3}, dtype));
    CHECK(mismatch(dy, dtype, {3}, map(kX, [](double x) { return 3 * x * x; }), 1e-6) == "");
    CHECK(mismatch(d2y, dtype, {3}, map(kX, [](double x) { return 6 * x; }), 1e-6) == "");
  }
  // A tape inside a function differentiated by grad: the functional and
  // tape APIs compose.
  auto mixed = grad([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = sum(tanh(x));
    return sum(tape.gradient(y, x));
  });
  CHECK(mismatch(mixed(make(kX, {3}, F64)), F64, {3}, map(kX, [](double x) {
                   double t = std::tanh(x);
                   return -2 * t * (1 - t * t);
                 })) == "");
}

TEST_CASE("ad tape: unconnected, unwatched and error-on-unconnected sources", "[ad][ad-tape]") {
  auto zero = jit([](Tensor x, Tensor u) {
    GradientTape tape;
    tape.watch(x);
    tape.watch(u);
    Tensor y = sum(x * x);
    auto [gx, gu] = tape.gradient(y, x, u);
    return std::make_tuple(gx, gu);
  });
  auto [gx, gu] = zero(make({1, 2}, {2}, F32), make({1, 2, 3}, {3}, F64));
  CHECK(mismatch(gx, F32, {2}, {2, 4}) == "");
  CHECK(mismatch(gu, F64, {3}, {0, 0, 0}) == "");

  auto strict = jit([](Tensor x, Tensor u) {
    GradientTape tape(TapeOptions{.unconnected = UnconnectedGradients::error});
    tape.watch(x);
    tape.watch(u);
    Tensor y = sum(x * x);
    auto [a, b] = tape.gradient(y, x, u);
    return a + b;
  });
  std::string message = what_of<TraceError>([&] { strict(make({1, 2}, {2}, F32), make({1, 2}, {2}, F32)); });
  INFO(message);
  CHECK(contains(message, "does not depend on source 1"));
  CHECK(contains(message, "UnconnectedGradients::error"));
  // ... but a connected source is fine with the error option.
  auto strict_ok = jit([](Tensor x) {
    GradientTape tape(TapeOptions{.unconnected = UnconnectedGradients::error});
    tape.watch(x);
    return tape.gradient(sum(x * 3.0), x);
  });
  CHECK(mismatch(strict_ok(make({1, 2}, {2}, F32)), F32, {2}, {3, 3}) == "");

  auto unwatched = jit([](Tensor x, Tensor w) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = sum(x * w);
    return tape.gradient(y, w);
  });
  std::string why = what_of<TraceError>([&] { unwatched(make({1, 2}, {2}, F32), make({1, 2}, {2}, F32)); });
  INFO(why);
  CHECK(contains(why, "watch"));
  CHECK(contains(why, "test_compiler_ad_tape.cpp"));

  // An integer source has no gradient, as with adjit::grad (not zeros).
  auto integer = jit([](Tensor x) {
    GradientTape tape;
    Tensor i = cast(x, DType::i32);
    tape.watch(i);
    return tape.gradient(sum(x), i);
  });
  std::string integer_why = what_of<TraceError>([&] { integer(make({1, 2}, {2}, F32)); });
  INFO(integer_why);
  CHECK(contains(integer_why, "source 0 is i32[2]"));
  CHECK(contains(integer_why, "floating-point"));
  CHECK(contains(integer_why, "test_compiler_ad_tape.cpp"));
}

TEST_CASE("ad tape: watching an intermediate value, ops before the tape are not recorded",
          "[ad][ad-tape]") {
  auto f = jit([](Tensor x) {
    Tensor h = x * x;  // before the tape
    GradientTape tape;
    tape.watch(h);
    Tensor y = sum(h * h * 0.5 + x);
    return tape.gradient(y, h);  // d/dh (h^2/2 + x) = h
  });
  CHECK(mismatch(f(make(kX, {3}, F64)), F64, {3}, map(kX, [](double x) { return x * x; })) == "");
}

TEST_CASE("ad tape: watching a value computed on the tape", "[ad][ad-tape]") {
  // As TensorFlow: h's gradient starts at h, whatever h was computed from.
  auto f = jit([](Tensor x) {
    GradientTape tape;
    Tensor h = exp(x) * 2.0;
    tape.watch(h);
    Tensor y = sum(h * h * 0.5 + x);
    return tape.gradient(y, h);  // d/dh (h^2/2 + x) = h
  });
  CHECK(mismatch(f(make(kX, {3}, F64)), F64, {3},
                 map(kX, [](double x) { return 2 * std::exp(x); })) == "");
  // Watched both: x's derivative flows through h as well, h's starts at h.
  auto g = jit([](Tensor x) {
    GradientTape tape(/*persistent=*/true);  // asked twice
    tape.watch(x);
    Tensor h = x * x;
    tape.watch(h);
    Tensor y = sum(h * h * 0.5 + x);
    auto [gx, gh] = tape.gradient(y, x, h);
    return std::make_tuple(gx, gh, tape.jacobian(h * 3.0, h));
  });
  auto [gx, gh, jacobian] = g(make(kX, {3}, F64));
  CHECK(mismatch(gx, F64, {3}, map(kX, [](double x) { return 2 * x * x * x + 1; })) == "");
  CHECK(mismatch(gh, F64, {3}, map(kX, [](double x) { return x * x; })) == "");
  CHECK(mismatch(jacobian, F64, {3, 3}, {3, 0, 0, 0, 3, 0, 0, 0, 3}) == "");
  // The source's value is passed on exactly, -0 included: d/dh h^2 = 2h = -0.
  auto signed_zero = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor h = x * 1.0;
    tape.watch(h);
    return std::get<1>(tape.gradient(sum(h * h + x), x, h));
  });
  Array zero = signed_zero(make({-0.0}, {1}, F64));
  CHECK(std::signbit(zero.to_vector<double>()[0]));
}

TEST_CASE("ad tape: jacobian against a closed form", "[ad][ad-tape]") {
  // t = A (x * x) with A [2,3]: dt_i/dx_j = A_ij * 2 x_j.
  Vec A = {1, 2, 3, -1, 0.5, 4};
  auto f = jit([](Tensor a, Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor t = matmul(a, x * x);
    return tape.jacobian(t, x);
  });
  Array J = f(make(A, {2, 3}, F64), make(kX, {3}, F64));
  Vec want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) want.push_back(A[i * 3 + j] * 2 * kX[j]);
  CHECK(mismatch(J, F64, {2, 3}, want) == "");
  // Matrix target and matrix source: shape target + source.
  auto g = jit([](Tensor x) {
    GradientTape tape(true);
    tape.watch(x);
    Tensor t = sin(x) * 2.0;  // [2,2] -> J [2,2,2,2], diagonal 2 cos x
    return tape.jacobian(t, x);
  });
  Vec xs = {0.1, 0.2, 0.3, 0.4};
  Vec want2(16, 0.0);
  for (int k = 0; k < 4; ++k) want2[k * 4 + k] = 2 * std::cos(xs[k]);
  CHECK(mismatch(g(make(xs, {2, 2}, F64)), F64, {2, 2, 2, 2}, want2) == "");
  // A 0-d target: the jacobian is the gradient.
  auto s = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    return tape.jacobian(sum(x * x), x);
  });
  CHECK(mismatch(s(make(kX, {3}, F32)), F32, {3}, map(kX, [](double x) { return 2 * x; })) == "");
}

TEST_CASE("ad tape: a non-scalar target differentiates its sum", "[ad][ad-tape]") {
  auto f = jit([](Tensor x) {
    GradientTape tape(true);
    tape.watch(x);
    Tensor t = sin(x) * x;  // [3]
    return std::make_tuple(tape.gradient(t, x), tape.gradient(sum(t), x));
  });
  auto [a, b] = f(make(kX, {3}, F64));
  CHECK(mismatch(a, b, 1e-12) == "");
  CHECK(mismatch(a, F64, {3}, map(kX, [](double x) { return std::cos(x) * x + std::sin(x); })) ==
        "");
}

TEST_CASE("ad tape: the DESIGN.md §5 training step decreases the loss", "[ad][ad-tape]") {
  auto step = jit([](Tensor w, Tensor x, Tensor y) {
    GradientTape tape;
    tape.watch(w);
    Tensor loss = mean(square(matmul(x, w) - y));
    Tensor gw = tape.gradient(loss, w);
    return std::make_tuple(loss, w - 0.1 * gw);
  });
  Array w = Array::zeros({3, 1}), x = Array::randn({8, 3}, 1), y = Array::randn({8, 1}, 2);
  std::vector<float> losses;
  for (int i = 0; i < 6; ++i) {
    auto [l, w2] = step(w, x, y);
    losses.push_back(l.item<float>());
    w = w2;
  }
  for (size_t i = 1; i < losses.size(); ++i) CHECK(losses[i] < losses[i - 1]);
  CHECK(step.cache_info().misses == 1);
  CHECK(step.cache_info().hits == 5);
}

TEST_CASE("ad tape: custom_gradient and jitted calls are recorded", "[ad][ad-tape]") {
  auto scaled = custom_gradient([](Tensor a) { return exp(a); },
                                [](Tensor, Tensor, Tensor ct) { return ct * 100.0; });
  auto inner = jit([](Tensor a) { return a * a; });
  auto f = jit([scaled, inner](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = sum(scaled(x)) + sum(inner(x));
    return tape.gradient(y, x);
  });
  CHECK(mismatch(f(make(kX, {3}, F64)), F64, {3}, map(kX, [](double x) { return 100 + 2 * x; })) ==
        "");
}

TEST_CASE("ad tape: loops on the tape keep their static bounds", "[ad][ad-tape][control-flow]") {
  // A scan's rows are counted by its bounds: outlined with them as
  // arguments, its stacked input no longer matched its trip count.
  auto cubes = jit([](Tensor a) {
    GradientTape tape;
    tape.watch(a);
    auto [c, ys] = scan([](Tensor c, Tensor r) { return std::make_pair(c * r, c); }, a,
                        broadcast_to(a, {2, 3}));
    return tape.gradient(sum(c) + sum(ys), a);
  });
  CHECK(mismatch(cubes(make(kX, {3}, F64)), F64, {3},
                 map(kX, [](double x) { return 3 * x * x + 1 + 2 * x; })) == "");
  // Third order through a fori_loop with static bounds needs them static.
  auto body = [](Tensor, Tensor c) { return sin(c) * c; };
  auto on_tape = [body](Tensor a) {
    GradientTape tape;
    tape.watch(a);
    return sum(tape.gradient(sum(fori_loop(0, 3, body, a)), a));
  };
  auto functional = [body](Tensor a) { return sum(grad([body](Tensor b) {
                                         return sum(fori_loop(0, 3, body, b));
                                       })(a)); };
  auto third = [](auto g) {
    return grad([g](Tensor a) { return sum(grad(g)(a)); });
  };
  CHECK(mismatch(third(on_tape)(make(kX, {3}, F64)), third(functional)(make(kX, {3}, F64)),
                 1e-12) == "");
}

TEST_CASE("ad tape: a tape outside a traced function is a TraceError", "[ad][ad-tape]") {
  std::string message = what_of<TraceError>([] { GradientTape tape; });
  INFO(message);
  CHECK_FALSE(contains(message, "(no exception)"));
  CHECK_FALSE(contains(message, "not a TraceError"));
}

TEST_CASE("ad tape: jacobian keeps the non-persistent rule", "[ad][ad-tape][errors]") {
  // After gradient() (or a jacobian) a non-persistent tape answers no more,
  // and a jacobian's rows leave the tape as persistent as it was.
  auto after_gradient = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = x * x;
    Tensor g = tape.gradient(sum(y), x);
    return g + sum(tape.jacobian(y, x), {0});
  });
  std::string message = what_of([&] { after_gradient(make(kX, {3}, F64)); });
  INFO(message);
  CHECK(contains(message, "non-persistent tape"));
  CHECK_THROWS_AS(after_gradient(make(kX, {3}, F64)), TraceError);
  auto twice = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = x * x;
    return tape.jacobian(y, x) + tape.jacobian(y, x);
  });
  CHECK_THROWS_AS(twice(make(kX, {3}, F64)), TraceError);
  auto empty_then_gradient = jit([](Tensor x) {
    GradientTape tape;
    tape.watch(x);
    Tensor none = slice(x, {0}, {0});
    Tensor j = tape.jacobian(none, x);  // [0, 3], and the tape is used
    return tape.gradient(sum(x * x), x) + sum(j, {0});
  });
  CHECK_THROWS_AS(empty_then_gradient(make(kX, {3}, F64)), TraceError);
  // A persistent tape answers both.
  auto persistent = jit([](Tensor x) {
    GradientTape tape(true);
    tape.watch(x);
    Tensor y = x * x;
    return tape.gradient(sum(y), x) - sum(tape.jacobian(y, x), {0});
  });
  CHECK(mismatch(persistent(make(kX, {3}, F64)), F64, {3}, {0, 0, 0}) == "");
}

TEST_CASE("ad tape: errors name the failing call's line, a tape outliving its trace is refused",
          "[ad][ad-tape][errors]") {
  Tensor none;
  int line = 0;
  auto watch_default = jit([&](Tensor x) {
    GradientTape tape;
    line = __LINE__ + 1;
    tape.watch(none);
    return x;
  });
  std::string message = what_of<TraceError>([&] { watch_default(Array::ones({2})); });
  INFO(message);
  CHECK(contains(message, "default-constructed"));
  CHECK(contains(message, "test_compiler_ad_tape.cpp:" + std::to_string(line) + ";"));
  // A tape kept past its trace (here in a std::optional) answers nothing later.
  std::optional<GradientTape> kept;
  auto make = jit([&](Tensor x) {
    kept.emplace();
    kept->watch(x);
    return x * 2.0;
  });
  auto use = jit([&](Tensor x) {
    kept->watch(x);
    return x;
  });
  make(Array::ones({2}));
  message = what_of<TraceError>([&] { use(Array::ones({2})); });
  INFO(message);
  CHECK(contains(message, "the traced function the tape was created in has returned"));
}
