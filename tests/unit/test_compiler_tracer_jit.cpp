// adjit::jit around the tracer: nested argument/result structures, static
// arguments, the signature cache (counts, LRU, max_traces, retrace log,
// threads), errors that point at the user's line, lower()/save()/dumps,
// jitted functions inlined into other traces, and Array misuse errors.
//
// No function here returns one of its arguments unchanged or the same value
// twice, except in the test of exactly that, which runs in a child process:
// both used to crash the compiler (tests/ir/pipeline-return-aliases.mlir).
#include "test_support.h"
#include "scratch_dir.h"

#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <type_traits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <latch>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

using namespace adjit;
using namespace adjit::test;

namespace {

// "" when `got` has this dtype and shape and every element is within
// rel * |want| + abs of the reference (exactly equal unless given).
std::string mismatch(const Array& got, DType dtype, const Shape& shape, const Vec& want,
                     double rel = 0, double abs = 0) {
  return adjit::test::mismatch(got, dtype, shape, want, Tol{rel, abs});
}
// The exact f32 result of an f32 computation done in double.
Vec f32(const Vec& v) {
  Vec out;
  for (double x : v) out.push_back(static_cast<float>(x));
  return out;
}

// Redirects std::cerr into a string for its lifetime.
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(buffer_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  std::string take() {
    std::string s = buffer_.str();
    buffer_.str("");
    return s;
  }

 private:
  std::ostringstream buffer_;
  std::streambuf* old_;
};

using TempDir = ScratchDir;

// Runs `body` in a child process (for cases that may crash the process):
// "exit N" with body's return value, "signal N", or "exception: ...".
std::string in_child_process(const std::function<int()>& body, unsigned timeout_s = 60) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    // Catch's fatal-signal handlers would report from the child too.
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGALRM}) std::signal(sig, SIG_DFL);
    alarm(timeout_s);
    int code = 100;
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child exception: %s\n", e.what());
      code = 101;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "unknown status";
}

}  // namespace

//===----------------------------------------------------------------------===//
// 3. Nested structures
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: tuple/pair/array/vector arguments and results, nested",
          "[tracer][jit][structure]") {
  auto f = adjit::jit(
      [](std::tuple<Tensor, Tensor> t, std::pair<Tensor, Tensor> p, std::array<Tensor, 2> a,
         std::vector<Tensor> v, std::tuple<Tensor, std::vector<Tensor>> tv) {
        auto [t0, t1] = t;
        std::vector<Tensor> scaled;
        for (size_t i = 0; i < v.size(); ++i) scaled.push_back(v[i] * static_cast<double>(i + 2));
        std::vector<Tensor> inner;
        for (const Tensor& x : std::get<1>(tv)) inner.push_back(x - std::get<0>(tv));
        return std::make_tuple(t0 + t1, std::pair{p.first * p.second, p.first - p.second},
                               std::array<Tensor, 2>{a[0] + 10.0, a[1] + 20.0}, scaled,
                               std::make_tuple(std::get<0>(tv) * 3.0, inner));
      },
      {.name = "structures"});
  const Shape s{2, 2};
  Array t0 = Array::uniform(s, 1, -1, 1), t1 = Array::uniform(s, 2, -1, 1),
        p0 = Array::uniform(s, 3, -1, 1), p1 = Array::uniform(s, 4, -1, 1),
        a0 = Array::uniform(s, 5, -1, 1), a1 = Array::uniform({3}, 6, -1, 1),
        v0 = Array::uniform(s, 7, -1, 1), v1 = Array::uniform({5}, 8, -1, 1),
        v2 = Array::uniform({1}, 9, -1, 1), c = Array::uniform(s, 10, -1, 1),
        w0 = Array::uniform(s, 11, -1, 1);

  auto result = f(std::make_tuple(t0, t1), std::pair{p0, p1}, std::array<Array, 2>{a0, a1},
                  std::vector<Array>{v0, v1, v2}, std::make_tuple(c, std::vector<Array>{w0}));
  static_assert(std::is_same_v<decltype(result),
                               std::tuple<Array, std::pair<Array, Array>, std::array<Array, 2>,
                                          std::vector<Array>,
                                          std::tuple<Array, std::vector<Array>>>>);
  auto& [added, pr, arr, vec, nested] = result;
  CHECK(mismatch(added, F32, s, f32(zip(values(t0), values(t1), std::plus<>()))) == "");
  CHECK(mismatch(pr.first, F32, s, f32(zip(values(p0), values(p1), std::multiplies<>()))) == "");
  CHECK(mismatch(pr.second, F32, s, f32(zip(values(p0), values(p1), std::minus<>()))) == "");
  CHECK(mismatch(arr[0], F32, s, f32(map(values(a0), [](double x) { return x + 10; }))) == "");
  CHECK(mismatch(arr[1], F32, {3}, f32(map(values(a1), [](double x) { return x + 20; }))) == "");
  REQUIRE(vec.size() == 3);
  CHECK(mismatch(vec[0], F32, s, f32(map(values(v0), [](double x) { return 2 * x; }))) == "");
  CHECK(mismatch(vec[1], F32, {5}, f32(map(values(v1), [](double x) { return 3 * x; }))) == "");
  CHECK(mismatch(vec[2], F32, {1}, f32(map(values(v2), [](double x) { return 4 * x; }))) == "");
  CHECK(mismatch(std::get<0>(nested), F32, s, f32(map(values(c), [](double x) { return 3 * x; })))
        == "");
  REQUIRE(std::get<1>(nested).size() == 1);
  CHECK(mismatch(std::get<1>(nested)[0], F32, s, f32(zip(values(w0), values(c), std::minus<>())))
        == "");
  CHECK(f.cache_info().misses == 1);

  // Vector lengths are part of the signature, and so are the result's.
  auto again = f(std::make_tuple(t0, t1), std::pair{p0, p1}, std::array<Array, 2>{a0, a1},
                 std::vector<Array>{v1}, std::make_tuple(c, std::vector<Array>{w0, v0, c}));
  CHECK(f.cache_info().misses == 2);
  REQUIRE(std::get<3>(again).size() == 1);
  CHECK(mismatch(std::get<3>(again)[0], F32, {5},
                 f32(map(values(v1), [](double x) { return 2 * x; }))) == "");
  REQUIRE(std::get<1>(std::get<4>(again)).size() == 3);
  CHECK(mismatch(std::get<1>(std::get<4>(again))[1], F32, s,
                 f32(zip(values(v0), values(c), std::minus<>()))) == "");
  // Same structure and types again: a hit.
  f(std::make_tuple(t1, t0), std::pair{p1, p0}, std::array<Array, 2>{a0, a1},
    std::vector<Array>{v0, v1, v2}, std::make_tuple(c, std::vector<Array>{w0}));
  CHECK(f.cache_info().misses == 2);
  CHECK(f.cache_info().hits == 1);
}

TEST_CASE("tracer jit: vector of (weight, bias) pairs, pair and array results",
          "[tracer][jit][structure]") {
  // An MLP-style parameter list.
  auto forward = adjit::jit(
      [](Tensor x, std::vector<std::pair<Tensor, Tensor>> layers) {
        Tensor h = x;
        for (const auto& [w, b] : layers) h = tanh(matmul(h, w) + b);
        return std::pair{h, sum(h)};
      },
      {.name = "mlp"});
  Array x = Array::randn({3, 4}, 1), w1 = Array::randn({4, 5}, 2), b1 = Array::randn({5}, 3),
        w2 = Array::randn({5, 2}, 4), b2 = Array::randn({2}, 5);
  auto [h, total] = forward(x, std::vector<std::pair<Array, Array>>{{w1, b1}, {w2, b2}});
  static_assert(std::is_same_v<decltype(h), Array>);
  // Reference in double.
  auto dense = [](const Vec& in, int64_t rows, int64_t k, const Vec& w, const Vec& b, int64_t n) {
    Vec out(rows * n);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = b[j];
        for (int64_t l = 0; l < k; ++l) acc += in[i * k + l] * w[l * n + j];
        out[i * n + j] = std::tanh(acc);
      }
    return out;
  };
  Vec h1 = dense(values(x), 3, 4, values(w1), values(b1), 5);
  Vec h2 = dense(h1, 3, 5, values(w2), values(b2), 2);
  CHECK(mismatch(h, F32, {3, 2}, h2, 1e-5, 1e-5) == "");
  double s = 0;
  for (double v : h2) s += v;
  CHECK(mismatch(total, F32, {}, {s}, 1e-5, 1e-5) == "");

  auto split = adjit::jit(
      [](Tensor x) {
        return std::array<Tensor, 3>{slice(x, {0}, {2}), slice(x, {2}, {5}), slice(x, {5}, {6})};
      },
      {.name = "split"});
  Array y = Array::uniform({6}, 7, -1, 1);
  std::array<Array, 3> parts = split(y);
  Vec Y = values(y);
  CHECK(mismatch(parts[0], F32, {2}, Vec(Y.begin(), Y.begin() + 2)) == "");
  CHECK(mismatch(parts[1], F32, {3}, Vec(Y.begin() + 2, Y.begin() + 5)) == "");
  CHECK(mismatch(parts[2], F32, {1}, Vec(Y.begin() + 5, Y.end())) == "");
}

TEST_CASE("tracer jit: a tuple holding one tuple or one pair comes back with that structure",
          "[tracer][jit][structure]") {
  // Regression: StructureTraits<std::tuple<Ts...>>::rebuild returned
  // `std::tuple{rebuilt...}`; with a single element that is itself a tuple
  // or pair, class template argument deduction copies/converts it instead of
  // wrapping it, so `std::tuple<std::tuple<Tensor, Tensor>>` comes back as
  // `std::tuple<Array, Array>` and `std::tuple<std::pair<...>>` likewise.
  auto f = adjit::jit(
      [](Tensor x) { return std::tuple<std::tuple<Tensor, Tensor>>{{x + 1.0, x + 2.0}}; },
      {.name = "tuple_of_tuple"});
  auto g = adjit::jit(
      [](Tensor x) { return std::tuple<std::pair<Tensor, Tensor>>{{x + 1.0, x + 2.0}}; },
      {.name = "tuple_of_pair"});
  auto r = f(Array::zeros({2}));
  auto q = g(Array::zeros({2}));
  CHECK(std::is_same_v<decltype(r), std::tuple<std::tuple<Array, Array>>>);
  CHECK(std::is_same_v<decltype(q), std::tuple<std::pair<Array, Array>>>);
}

//===----------------------------------------------------------------------===//
// 4. Static arguments
//===----------------------------------------------------------------------===//

namespace {
enum class Mode { add, mul };
}

TEST_CASE("tracer jit: a long double static keys the cache with all its digits",
          "[tracer][jit][static]") {
  auto f = adjit::jit([](Tensor x, long double k) { return k > 1.0L ? x * 2.0 : x * 3.0; });
  long double above = std::nextafter(1.0L, 2.0L);
  REQUIRE(static_cast<double>(above) == 1.0);  // the same as a double
  CHECK(f(Array::ones({1}), 1.0L).item<float>() == 3);
  CHECK(f(Array::ones({1}), above).item<float>() == 2);
  CHECK(f.cache_info().misses == 2);
}

TEST_CASE("tracer jit: a moved-from jitted function says so when called", "[tracer][jit]") {
  auto f = adjit::jit([](Tensor x) { return x * 2.0; });
  auto g = std::move(f);
  CHECK(g(Array::ones({1})).item<float>() == 2);
  CHECK_THROWS_WITH(f(Array::ones({1})), Catch::Contains("was moved from"));  // NOLINT(bugprone-use-after-move)
  CHECK_THROWS_AS(f.cache_info(), RuntimeError);
}

TEST_CASE("a moved-from Program or Executable is a RuntimeError, not a crash", "[jit]") {
  auto program = adjit::jit([](Tensor x) { return x * 2.0; }).lower(Array::ones({2}));
  auto moved = std::move(program);
  // NOLINTBEGIN(bugprone-use-after-move)
  CHECK_THROWS_WITH(program.ir(), Catch::Contains("Program was moved from"));
  CHECK_THROWS_WITH(program.signatures(), Catch::Contains("Program was moved from"));
  CHECK_THROWS_WITH(program.compile(), Catch::Contains("Program was moved from"));
  CHECK_THROWS_AS(program.memory_plan(), RuntimeError);
  auto executable = moved.compile();
  auto taken = std::move(executable);
  CHECK_THROWS_WITH(executable.run("fn", {Array::ones({2})}),
                    Catch::Contains("Executable was moved from"));
  // NOLINTEND(bugprone-use-after-move)
  CHECK(taken.run("fn", {Array::ones({2})})[0].to_vector<float>() == std::vector<float>{2, 2});
}

TEST_CASE("tracer jit: static int/double/bool/enum/string arguments key the cache",
          "[tracer][jit][static]") {
  int traces = 0;
  auto f = adjit::jit(
      [&traces](Tensor x, int k, double s, bool negate, Mode mode, std::string op) {
        ++traces;
        Tensor y = mode == Mode::add ? x + s : x * s;
        y = y + k;
        if (negate) y = -y;
        if (op == "exp") y = exp(y);
        else if (op == "tanh") y = tanh(y);
        return y;
      },
      {.name = "statics"});
  Array x = Array::uniform({5}, 1, -1, 1, F64);
  Vec X = values(x);
  auto reference = [&](int k, double s, bool negate, Mode mode, const std::string& op) {
    return map(X, [&](double v) {
      double y = (mode == Mode::add ? v + s : v * s) + k;
      if (negate) y = -y;
      return op == "exp" ? std::exp(y) : op == "tanh" ? std::tanh(y) : y;
    });
  };
  struct Call {
    int k;
    double s;
    bool negate;
    Mode mode;
    std::string op;
    bool miss;
  };
  const std::vector<Call> calls{
      {1, 2.5, false, Mode::add, "exp", true},  {1, 2.5, false, Mode::add, "exp", false},
      {2, 2.5, false, Mode::add, "exp", true},  {1, 0.5, false, Mode::add, "exp", true},
      {1, 2.5, true, Mode::add, "exp", true},   {1, 2.5, false, Mode::mul, "exp", true},
      {1, 2.5, false, Mode::add, "tanh", true}, {1, 2.5, false, Mode::add, "none", true},
      {2, 2.5, false, Mode::add, "exp", false}, {1, 2.5, true, Mode::add, "exp", false},
      {1, 2.5, false, Mode::add, "tanh", false}};
  uint64_t misses = 0, hits = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    INFO("call " << i << ": k=" << c.k << " s=" << c.s << " negate=" << c.negate
                 << " mode=" << static_cast<int>(c.mode) << " op=" << c.op);
    Array y = f(x, c.k, c.s, c.negate, c.mode, c.op);
    (c.miss ? misses : hits) += 1;
    CHECK(mismatch(y, F64, {5}, reference(c.k, c.s, c.negate, c.mode, c.op), 1e-12, 1e-14) == "");
    CHECK(f.cache_info().misses == misses);
    CHECK(f.cache_info().hits == hits);
  }
  CHECK(traces == static_cast<int>(misses));
  // A string literal is a static string too, keyed with its type: a
  // generic lambda may treat a const char* and a std::string differently.
  Array y = f(x, 1, 2.5, false, Mode::add, "exp");
  CHECK(f.cache_info().misses == misses + 1);
  CHECK(mismatch(y, F64, {5}, reference(1, 2.5, false, Mode::add, "exp"), 1e-12, 1e-14) == "");
  auto by_type = adjit::jit([](Tensor t, auto s) {
    return std::is_same_v<decltype(s), std::string> ? t + 1.0 : t + 2.0;
  });
  CHECK(mismatch(by_type(x, "x"), F64, {5}, map(X, [](double v) { return v + 2; }), 0, 0) == "");
  CHECK(mismatch(by_type(x, std::string("x")), F64, {5}, map(X, [](double v) { return v + 1; }),
                 0, 0) == "");
  CHECK(by_type.cache_info().misses == 2);
  // And a std::string_view parameter, given a view or a string.
  auto by_view = adjit::jit([](Tensor t, std::string_view op) { return op == "exp" ? exp(t) : t; });
  CHECK(mismatch(by_view(x, std::string_view("exp")), F64, {5},
                 map(X, [](double v) { return std::exp(v); }), 1e-12, 1e-14) == "");
  CHECK(mismatch(by_view(x, std::string("none")), F64, {5}, X, 0, 0) == "");
  CHECK(by_view.cache_info().misses == 2);

  // Baked into the IR: the only parameter is x; 2.5 is a constant.
  std::string ir = f.lower(x, 3, 2.5, false, Mode::mul, std::string("tanh")).ir("traced");
  INFO(ir);
  CHECK(contains(ir, "func.func @statics(%arg0: tensor<5xf64>) -> tensor<5xf64>"));
  CHECK(contains(ir, "2.500000e+00"));
  CHECK(contains(ir, "3.000000e+00"));
  CHECK(contains(ir, "adjit.mul"));
  CHECK(contains(ir, "adjit.tanh"));
  CHECK_FALSE(contains(ir, "adjit.exp"));
  CHECK_FALSE(contains(ir, "adjit.neg"));
}

//===----------------------------------------------------------------------===//
// 5. cache_info and the LRU bound
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: cache_info counts hits, misses, entries, compile time",
          "[tracer][jit][cache]") {
  auto f = adjit::jit([](Tensor x) { return x * 2.0 + 1.0; }, {.name = "counted"});
  CacheInfo info = f.cache_info();
  CHECK(info.hits == 0);
  CHECK(info.misses == 0);
  CHECK(info.entries == 0);
  CHECK(info.compile_seconds == 0);

  Array a = Array::uniform({3}, 1, -1, 1);
  Array r = f(a);
  CHECK(mismatch(r, F32, {3}, f32(map(values(a), [](double x) { return 2 * x + 1; }))) == "");
  info = f.cache_info();
  CHECK(info.hits == 0);
  CHECK(info.misses == 1);
  CHECK(info.entries == 1);
  CHECK(info.compile_seconds > 0);
  double seconds = info.compile_seconds;

  f(a);
  f(Array::uniform({3}, 2, -1, 1));  // same signature, other data
  info = f.cache_info();
  CHECK(info.hits == 2);
  CHECK(info.misses == 1);
  CHECK(info.entries == 1);
  CHECK(info.compile_seconds == seconds);

  f(Array::uniform({4}, 3, -1, 1));        // shape
  f(Array::uniform({3}, 4, -1, 1, F64));   // dtype
  f(Array::uniform({3, 1}, 5, -1, 1));     // rank
  info = f.cache_info();
  CHECK(info.hits == 2);
  CHECK(info.misses == 4);
  CHECK(info.entries == 4);
  CHECK(info.compile_seconds > seconds);
}

TEST_CASE("tracer jit: cache_size bounds the cache, least recently used out",
          "[tracer][jit][cache]") {
  auto f = adjit::jit([](Tensor x) { return x - 1.0; }, {.name = "lru", .cache_size = 2});
  Array A = Array::zeros({1}), B = Array::zeros({2}), C = Array::zeros({3});
  auto expect = [&](uint64_t hits, uint64_t misses, size_t entries) {
    CacheInfo info = f.cache_info();
    CHECK(info.hits == hits);
    CHECK(info.misses == misses);
    CHECK(info.entries == entries);
  };
  f(A);
  expect(0, 1, 1);
  f(B);
  expect(0, 2, 2);
  f(A);  // A is now more recent than B
  expect(1, 2, 2);
  f(C);  // evicts B
  expect(1, 3, 2);
  f(A);
  expect(2, 3, 2);
  f(C);
  expect(3, 3, 2);
  f(B);  // evicted: a miss again; evicts A (C was used last)
  expect(3, 4, 2);
  f(C);
  expect(4, 4, 2);
  f(A);  // evicted: a miss; evicts B
  expect(4, 5, 2);
  CHECK(values(f(C)) == (Vec{-1, -1, -1}));  // C survived
  expect(5, 5, 2);
  f(B);
  expect(5, 6, 2);
}

//===----------------------------------------------------------------------===//
// 6. Retrace log
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: log_retrace prints one line per miss naming what changed",
          "[tracer][jit][log]") {
  auto f = adjit::jit(
      [](Tensor x, Tensor y, int k) { return x * static_cast<double>(k) + sum(y); },
      {.name = "step", .log_retrace = true});
  CerrCapture cerr;
  f(Array::zeros({2, 3}), Array::zeros({4}), 3);
  CHECK(cerr.take() == "adjit::jit 'step': tracing (miss 1): first trace (f32[2,3], f32[4], 3)\n");
  f(Array::zeros({2, 3}), Array::ones({4}), 3);
  CHECK(cerr.take() == "");
  f(Array::zeros({5, 3}), Array::zeros({4}), 3);
  CHECK(cerr.take() == "adjit::jit 'step': tracing (miss 2): arg 0: f32[2,3] -> f32[5,3]\n");
  f(Array::zeros({2, 3}), Array::zeros({4}), 4);
  CHECK(cerr.take() == "adjit::jit 'step': tracing (miss 3): arg 2: 3 -> 4\n");
  f(Array::zeros({2, 3}, F64), Array::zeros({4}, F64), 3);
  CHECK(cerr.take() ==
        "adjit::jit 'step': tracing (miss 4): arg 0: f32[2,3] -> f64[2,3]; "
        "arg 1: f32[4] -> f64[4]\n");
  f(Array::zeros({5, 3}), Array::zeros({4}), 3);
  CHECK(cerr.take() == "");
}

TEST_CASE("tracer jit: retrace log describes static values and structures",
          "[tracer][jit][log]") {
  auto f = adjit::jit(
      [](std::vector<Tensor> xs, std::string op, bool flag, double s, Mode mode) {
        Tensor y = xs[0] * s;
        if (flag) y = y + 1.0;
        if (mode == Mode::mul) y = y * 2.0;
        return op == "exp" ? exp(y) : tanh(y);
      },
      {.name = "statics_log", .log_retrace = true});
  std::vector<Array> xs{Array::zeros({2}), Array::zeros({}, I32)};
  CerrCapture cerr;
  f(xs, std::string("exp"), true, 0.5, Mode::mul);
  CHECK(cerr.take() ==
        "adjit::jit 'statics_log': tracing (miss 1): first trace ([f32[2], i32[]], \"exp\", "
        "true, 0.5, enum 1)\n");
  f(xs, std::string("tanh"), true, 0.5, Mode::mul);
  CHECK(cerr.take() ==
        "adjit::jit 'statics_log': tracing (miss 2): arg 1: \"exp\" -> \"tanh\"\n");
  f(xs, std::string("exp"), false, 0.5, Mode::mul);
  CHECK(cerr.take() == "adjit::jit 'statics_log': tracing (miss 3): arg 2: true -> false\n");
  f(xs, std::string("exp"), true, 2.25, Mode::mul);
  CHECK(cerr.take() == "adjit::jit 'statics_log': tracing (miss 4): arg 3: 0.5 -> 2.25\n");
  f(xs, std::string("exp"), true, 0.5, Mode::add);
  CHECK(cerr.take() == "adjit::jit 'statics_log': tracing (miss 5): arg 4: enum 1 -> enum 0\n");
  f(std::vector<Array>{Array::zeros({3})}, std::string("exp"), true, 0.5, Mode::mul);
  CHECK(cerr.take() ==
        "adjit::jit 'statics_log': tracing (miss 6): arg 0: [f32[2], i32[]] -> [f32[3]]\n");
}

TEST_CASE("tracer jit: no retrace log by default, ADJIT_LOG=retrace enables it",
          "[tracer][jit][log]") {
  {
    auto quiet = adjit::jit([](Tensor x) { return x + 3.0; }, {.name = "quiet"});
    CerrCapture cerr;
    quiet(Array::zeros({2}));
    quiet(Array::zeros({3}));
    CHECK(cerr.take() == "");
  }
  setenv("ADJIT_LOG", "retrace", 1);
  auto logged = adjit::jit([](Tensor x) { return x + 4.0; }, {.name = "env_logged"});
  unsetenv("ADJIT_LOG");
  CerrCapture cerr;
  logged(Array::zeros({2}));
  CHECK(cerr.take() == "adjit::jit 'env_logged': tracing (miss 1): first trace (f32[2])\n");
  // A value it does not know is an error, not a log that never comes.
  setenv("ADJIT_LOG", "retraces", 1);
  CHECK_THROWS_WITH(adjit::jit([](Tensor x) { return x; }),
                    Catch::Contains("ADJIT_LOG must be 'retrace' (or unset), got 'retraces'"));
  unsetenv("ADJIT_LOG");
  CHECK_THROWS_WITH(adjit::jit([](Tensor x) { return x; }, {.max_traces = -1}),
                    Catch::Contains("JitOptions::max_traces must be 0 (no limit) or positive, got -1"));
}

//===----------------------------------------------------------------------===//
// 7. max_traces
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: max_traces counts the trace of a signature dropped from the cache",
          "[tracer][jit][cache]") {
  auto f = adjit::jit([](Tensor x) { return x + 1.0; },
                      {.name = "evicting", .max_traces = 2, .cache_size = 1});
  f(Array::zeros({2}));
  f(Array::zeros({3}));  // drops f32[2]
  CHECK_THROWS_AS(f(Array::zeros({2})), TraceError);  // would be trace 3
  CHECK(values(f(Array::zeros({3}))) == (Vec{1, 1, 1}));  // still cached
}

TEST_CASE("tracer jit: max_traces makes the next signature a TraceError",
          "[tracer][jit][cache]") {
  int line = __LINE__ + 1;
  auto f = adjit::jit([](Tensor x) { return x + 1.0; }, {.name = "guarded", .max_traces = 2});
  f(Array::zeros({2}));
  f(Array::zeros({3}));
  std::string message;
  try {
    f(Array::zeros({4}));
  } catch (const TraceError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(contains(message, "'guarded'"));
  CHECK(contains(message, "max_traces = 2"));
  CHECK(contains(message, "(f32[4])"));
  CHECK(contains(message, "(f32[2])"));
  CHECK(contains(message, "(f32[3])"));
  // A call's line cannot follow its variadic arguments: the error names
  // where the function was jitted.
  CHECK(contains(message, "(jitted at "));
  CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line)));
  CHECK_THROWS_AS(f(Array::zeros({4})), TraceError);
  // Earlier signatures still hit.
  CHECK(values(f(Array::zeros({2}))) == (Vec{1, 1}));
  CHECK(values(f(Array::zeros({3}))) == (Vec{1, 1, 1}));
  CacheInfo info = f.cache_info();
  CHECK(info.misses == 2);
  CHECK(info.hits == 2);
  CHECK(info.entries == 2);
}

//===----------------------------------------------------------------------===//
// 8. Threads
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: concurrent first calls of one signature compile once",
          "[tracer][jit][threads]") {
  auto f = adjit::jit([](Tensor x) { return tanh(x) * 2.0; }, {.name = "concurrent"});
  constexpr int kThreads = 8;
  std::vector<Array> inputs, outputs(kThreads);
  for (int i = 0; i < kThreads; ++i) inputs.push_back(Array::uniform({16}, 100 + i, -2, 2));
  std::vector<std::exception_ptr> errors(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        outputs[i] = f(inputs[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    INFO("thread " << i);
    REQUIRE_NOTHROW(errors[i] ? std::rethrow_exception(errors[i]) : void());
    CHECK(mismatch(outputs[i], F32, {16},
                   map(values(inputs[i]), [](double x) { return 2 * std::tanh(x); }), 1e-6, 1e-6)
          == "");
  }
  CacheInfo info = f.cache_info();
  CHECK(info.misses == 1);
  CHECK(info.hits == kThreads - 1);
  CHECK(info.entries == 1);
}

TEST_CASE("tracer jit: concurrent calls with different signatures", "[tracer][jit][threads]") {
  auto f = adjit::jit([](Tensor x, int k) { return x * static_cast<double>(k) + sum(x); },
                      {.name = "concurrent_many"});
  constexpr int kThreads = 8;
  std::vector<Array> inputs, outputs(kThreads);
  for (int i = 0; i < kThreads; ++i)
    inputs.push_back(Array::uniform({i + 1}, 200 + i, -1, 1, i % 2 ? F64 : F32));
  std::vector<std::exception_ptr> errors(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        for (int repeat = 0; repeat < 3; ++repeat) outputs[i] = f(inputs[i], i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    INFO("thread " << i);
    REQUIRE_NOTHROW(errors[i] ? std::rethrow_exception(errors[i]) : void());
    Vec x = values(inputs[i]);
    double total = 0;
    for (double v : x) total += v;
    CHECK(mismatch(outputs[i], i % 2 ? F64 : F32, {i + 1},
                   map(x, [&](double v) { return v * i + total; }), 1e-6, 1e-6) == "");
  }
  CacheInfo info = f.cache_info();
  CHECK(info.misses == kThreads);
  CHECK(info.hits == 2 * kThreads);
  CHECK(info.entries == kThreads);
}

TEST_CASE("tracer jit: only code with parallel regions sets OpenMP's team size",
          "[tracer][jit][threads]") {
  // A program without parallel regions never pays for OpenMP's start
  // (about a millisecond of a small function's first call); one with them
  // forks teams of the size the jitted function asks for. On a thread of
  // its own, whose OpenMP settings nothing has changed yet.
  int initial = 0, after_small = 0, after_large = 0, requested = 0;
  Array small_result, large_result;
  std::thread([&] {
    initial = omp_get_max_threads();
    requested = initial + 2;
    auto small = adjit::jit([](Tensor x) { return tanh(x); }, {.threads = requested});
    small_result = small(Array::full({16}, 0.5));
    after_small = omp_get_max_threads();
    auto large = adjit::jit([](Tensor x) { return tanh(x); }, {.threads = requested});
    large_result = large(Array::full({1 << 20}, 0.5));
    after_large = omp_get_max_threads();
  }).join();
  CHECK(after_small == initial);
  CHECK(after_large == requested);
  CHECK(mismatch(small_result, F32, {16}, Vec(16, std::tanh(0.5)), 1e-6, 1e-6) == "");
  CHECK(mismatch(large_result, F32, {1 << 20}, Vec(1 << 20, std::tanh(0.5)), 1e-6, 1e-6) == "");
}

//===----------------------------------------------------------------------===//
// 9. Errors point at the user's line
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: trace errors name the op, the shapes and the user's file:line",
          "[tracer][jit][errors]") {
  int line = 0;
  auto f = adjit::jit([&](Tensor a, Tensor b) {
    line = __LINE__; return matmul(a, b);
  });
  std::string message = what_of([&] { f(Array::zeros({2, 3}), Array::zeros({4, 5})); });
  INFO(message);
  CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line)));
  CHECK(contains(message, "adjit::matmul"));
  CHECK(contains(message, "f32[2,3]"));
  CHECK(contains(message, "f32[4,5]"));
  CHECK_THROWS_AS(f(Array::zeros({2, 3}), Array::zeros({4, 5})), TraceError);

  // Operators: the line of the expression.
  auto g = adjit::jit([&](Tensor a, Tensor b) {
    Tensor c = a * 2.0;
    line = __LINE__; return c + b;
  });
  message = what_of([&] { g(Array::zeros({3}), Array::zeros({4})); });
  INFO(message);
  CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line)));
  CHECK(contains(message, "adjit::add"));

  // Scalar on the left: still the line of the expression.
  auto g2 = adjit::jit([&](Tensor a) {
    line = __LINE__; return 2.0 * a + full({5}, 1.0);
  });
  message = what_of([&] { g2(Array::zeros({3})); });
  INFO(message);
  CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line)));

  // Other ops, with what went wrong.
  auto h = adjit::jit([&](Tensor a, int which) {
    line = __LINE__;
    switch (which) {
      case 0: return sum(a, {5});
      case 1: return reshape(a, {4, -1});
      case 2: return squeeze(a, 0);
      case 3: return slice(a, {0, 0}, {3, 3});
      case 4: return transpose(a, {0, 0});
      case 5: return take(a, a, 0);
      default: return concat({a, transpose(a)}, 0);
    }
  });
  struct Expect {
    int which;
    int offset;  // lines after `line`
    std::vector<std::string> parts;
  };
  const std::vector<Expect> expectations{
      {0, 2, {"adjit::sum", "5", "rank 2"}},
      {1, 3, {"adjit::reshape", "f32[2,3]", "[4,-1]"}},
      {2, 4, {"adjit::squeeze", "f32[2,3]", "size 2"}},
      {3, 5, {"adjit::slice", "f32[2,3]"}},
      {4, 6, {"adjit::transpose", "[0,0]", "permutation"}},
      {5, 7, {"adjit::take", "indices must be integers", "f32[2,3]"}},
      {6, 8, {"adjit::concat", "f32[2,3]", "f32[3,2]"}}};
  for (const Expect& e : expectations) {
    message = what_of([&] { h(Array::zeros({2, 3}), e.which); });
    INFO(message);
    CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line + e.offset)));
    for (const std::string& part : e.parts) CHECK(contains(message, part));
  }
}

TEST_CASE("tracer jit: a Tensor has no truth value, ops need a trace",
          "[tracer][jit][errors]") {
  auto f = adjit::jit([](Tensor x) {
    if (x > 0.0) return x * 2.0;
    return x * 3.0;
  });
  std::string message = what_of([&] { f(Array::zeros({3})); });
  INFO(message);
  CHECK(contains(message, "adjit::where"));
  CHECK_THROWS_AS(f(Array::zeros({3})), TraceError);

  auto g = adjit::jit([](Tensor x) { return x ? x * 2.0 : x * 3.0; });
  CHECK_THROWS_AS(g(Array::zeros({3})), TraceError);

  // Outside any trace.
  int line = __LINE__; message = what_of([] { full({2}, 1.0); });
  INFO(message);
  CHECK(contains(message, "adjit::full"));
  CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line)));
  CHECK_THROWS_AS(full({2}, 1.0), TraceError);
  CHECK_THROWS_AS(arange(3), TraceError);
  // A default-constructed Tensor belongs to no trace.
  Tensor none;
  CHECK_THROWS_AS(exp(none), TraceError);
  CHECK_THROWS_AS(none + 1.0, TraceError);
  CHECK(contains(what_of([&] { exp(none); }), "default-constructed"));
  // Also among several operands, after a live one.
  auto later = [&none](auto op) {
    return what_of([&] { adjit::jit([&](Tensor x) { return op(x, none); })(Array::zeros({3})); });
  };
  CHECK(contains(later([](Tensor x, Tensor n) { return concat({x, n}, 0); }), "default-constructed"));
  CHECK(contains(later([](Tensor x, Tensor n) { return einsum("i,i->i", {x, n}); }),
                 "adjit::einsum: an operand is a default-constructed Tensor"));
  CHECK(contains(later([](Tensor x, Tensor n) { return dynamic_slice(x, {n}, {1}); }),
                 "default-constructed"));

  // A failed trace leaves no trace behind: ops outside still throw.
  CHECK_THROWS_AS(f(Array::zeros({3})), TraceError);
  CHECK_THROWS_AS(zeros_like(none), TraceError);
  CHECK_THROWS_AS(full({2}, 1.0), TraceError);
}

TEST_CASE("tracer jit: a Tensor kept past its trace is rejected in another trace",
          "[tracer][jit][errors]") {
  // Runs in a child process: the stale Tensor may point into a destroyed
  // MLIR context.
  std::string status = in_child_process([] {
    Tensor kept;
    auto f = adjit::jit([&](Tensor x) {
      kept = x;
      return x * 2.0;
    });
    auto g = adjit::jit([&](Tensor x) { return x + kept; });
    f(Array::zeros({3}));
    try {
      g(Array::zeros({3}));
    } catch (const TraceError& e) {
      return std::string(e.what()).find("trace") != std::string::npos ? 0 : 2;
    }
    return 1;  // accepted a Tensor of a finished trace
  });
  CHECK(status == "exit 0");
}

//===----------------------------------------------------------------------===//
// 10. lower(), save(), dumps
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: lower() shows every stage, save() round-trips through Program",
          "[tracer][jit][lower]") {
  auto f = adjit::jit([](Tensor a, Tensor b) { return tanh(matmul(a, b)) + 1.0; },
                      {.name = "lowered"});
  Array a = Array::randn({3, 4}, 1), b = Array::randn({4, 2}, 2);
  Lowered lowered = f.lower(a, b);
  CHECK(f.cache_info().misses == 0);  // lower() does not cache
  std::string traced = lowered.ir("traced");
  INFO(traced);
  CHECK(contains(traced, "func.func @lowered(%arg0: tensor<3x4xf32>, %arg1: tensor<4x2xf32>)"));
  CHECK(contains(traced, "adjit.dot_general"));
  CHECK(contains(traced, "adjit.tanh"));
  CHECK(contains(traced, "adjit.add"));
  CHECK(lowered.ir() == traced);
  CHECK(contains(lowered.ir("optimized"), "adjit.dot_general"));
  CHECK(contains(lowered.ir("llvm-ir"), "adjit_entry_lowered"));
  CHECK_THROWS_AS(lowered.ir("no-such-stage"), Error);

  Array expected = f(a, b);
  TempDir dir;
  REQUIRE_FALSE(dir.path().empty());
  std::string path = dir.path() + "/lowered.mlir";
  lowered.save(path);
  Executable from_file = Program::parse_file(path).compile();
  std::vector<Array> outputs = from_file.run("lowered", {a, b});
  REQUIRE(outputs.size() == 1);
  CHECK(values(outputs[0]) == values(expected));
  CHECK(values(lowered.compile().run("lowered", {a, b})[0]) == values(expected));
  Vec want;
  {
    Vec A = values(a), B = values(b);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += A[i * 4 + k] * B[k * 2 + j];
        want.push_back(std::tanh(s) + 1);
      }
  }
  CHECK(mismatch(expected, F32, {3, 2}, want, 1e-5, 1e-6) == "");
}

TEST_CASE("tracer jit: dump_dir and ADJIT_DUMP_DIR write every stage",
          "[tracer][jit][lower]") {
  auto check_dump = [](const TempDir& dir, const std::string& name) {
    std::vector<std::string> files = dir.files();
    std::string listing;
    for (const auto& file : files) listing += file + "\n";
    INFO("files:\n" << listing);
    CHECK(files.size() == stage_names().size());
    for (const std::string& stage : stage_names()) {
      INFO("stage " << stage);
      bool found = false;
      for (const auto& file : files)
        found |= file.rfind(name + "-", 0) == 0 && contains(file, "-" + stage + ".");
      CHECK(found);
    }
  };
  {
    TempDir dir;
    auto f = adjit::jit([](Tensor x) { return exp(x) * 2.0; },
                        {.name = "dumped", .dump_dir = dir.path()});
    f(Array::zeros({4}));
    check_dump(dir, "dumped");
  }
  {
    TempDir dir;
    auto f = [&] {
      ScopedEnvironment dump("ADJIT_DUMP_DIR", dir.path());
      return adjit::jit([](Tensor x) { return sin(x) * 3.0; }, {.name = "env_dumped"});
    }();
    f(Array::zeros({4}));
    check_dump(dir, "env_dumped");
  }
}

//===----------------------------------------------------------------------===//
// 11. A jitted function inside another trace
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: a jitted function called on Tensors is inlined",
          "[tracer][jit][compose]") {
  auto inner = adjit::jit([](Tensor x, Tensor y) { return x * y + 1.0; }, {.name = "inner"});
  auto inner_tuple = adjit::jit(
      [](std::tuple<Tensor, Tensor> t) { return std::get<0>(t) - std::get<1>(t); },
      {.name = "inner_tuple"});
  auto outer = adjit::jit(
      [&](Tensor a, Tensor b) {
        return inner(a, b) * 2.0 + inner(b, b) + inner_tuple(std::make_tuple(a, b));
      },
      {.name = "outer"});
  Array a = Array::uniform({5}, 1, -2, 2, F64), b = Array::uniform({5}, 2, -2, 2, F64);
  Array r = outer(a, b);
  Vec A = values(a), B = values(b), want;
  for (size_t i = 0; i < A.size(); ++i)
    want.push_back((A[i] * B[i] + 1) * 2 + (B[i] * B[i] + 1) + (A[i] - B[i]));
  CHECK(mismatch(r, F64, {5}, want, 1e-13, 1e-13) == "");
  CHECK(outer.cache_info().misses == 1);
  CHECK(inner.cache_info().misses == 0);
  CHECK(inner.cache_info().hits == 0);
  CHECK(inner_tuple.cache_info().misses == 0);
  std::string ir = outer.lower(a, b).ir("traced");
  INFO(ir);
  CHECK_FALSE(contains(ir, "call"));
  CHECK_FALSE(contains(ir, "@inner"));
  // The inner function still works on its own.
  CHECK(mismatch(inner(a, b), F64, {5}, zip(A, B, [](double x, double y) { return x * y + 1; }),
                 1e-13, 1e-13) == "");
  CHECK(inner.cache_info().misses == 1);
}

TEST_CASE("tracer jit: zero arguments, 0-d arrays, unused arguments", "[tracer][jit]") {
  auto constant = adjit::jit([] { return arange(4, F32) * 2.0; }, {.name = "no_args"});
  CHECK(values(constant()) == (Vec{0, 2, 4, 6}));
  CHECK(values(constant()) == (Vec{0, 2, 4, 6}));
  CHECK(constant.cache_info().misses == 1);
  CHECK(constant.cache_info().hits == 1);

  auto scalar = adjit::jit([](Tensor x, Tensor unused) { return x * x + 0.5; },
                           {.name = "scalar"});
  Array r = scalar(Array::scalar(3.0f), Array::zeros({7}));
  CHECK(r.shape() == Shape{});
  CHECK(r.item<float>() == 9.5f);

  // Inputs are not modified; outputs are fresh buffers.
  auto twice = adjit::jit([](Tensor x) { return x * 2.0; }, {.name = "twice"});
  Array x = Array::from<float>({1, 2, 3}, {3});
  Array y = twice(x);
  y.data<float>()[0] = 100;
  CHECK(values(x) == (Vec{1, 2, 3}));
  CHECK(values(twice(x)) == (Vec{2, 4, 6}));
}

TEST_CASE("tracer jit: functions returning an argument or one value twice",
          "[tracer][jit]") {
  // These crashed the bufferized stage (SIGSEGV in
  // promoteBufferResultsToOutParams, tests/ir/pipeline-return-aliases.mlir).
  // Through the front end that is `return x;`, `return stop_gradient(x);`
  // (the documented identity), `return std::pair{y, y};`. Each case runs in
  // a child process so that a regression fails this test only; "exit 0"
  // means the results were right.
  auto run = [](auto body) { return in_child_process(body); };
  CHECK(run([] {
          auto f = adjit::jit([](Tensor x) { return x; });
          Array x = Array::from<float>({1, 2}, {2});
          Array y = f(x);
          y.data<float>()[0] = 5;  // a fresh buffer, not x
          return x.data<float>()[0] == 1 && y.data<float>()[1] == 2 ? 0 : 1;
        }) == "exit 0");
  CHECK(run([] {
          auto f = adjit::jit([](Tensor x) { return stop_gradient(x); });
          Array y = f(Array::from<float>({1, 2}, {2}));
          return y.data<float>()[0] == 1 && y.data<float>()[1] == 2 ? 0 : 1;
        }) == "exit 0");
  CHECK(run([] {
          auto f = adjit::jit([](Tensor x) {
            Tensor y = x * 2.0;
            return std::pair{y, y};
          });
          auto [a, b] = f(Array::from<float>({1, 2}, {2}));
          return a.data<float>()[1] == 4 && b.data<float>()[1] == 4 ? 0 : 1;
        }) == "exit 0");
}

//===----------------------------------------------------------------------===//
// 12. Array misuse
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: Array misuse throws adjit::Error with a clear message",
          "[tracer][jit][errors]") {
  Array a = Array::zeros({2, 3});
  CHECK_THROWS_AS(a.data<double>(), Error);
  std::string message = what_of([&] { a.data<double>(); });
  CHECK(contains(message, "data<double>"));
  CHECK(contains(message, "f32[2,3]"));
  CHECK(contains(message, "float"));

  message = what_of([&] { a.item<float>(); });
  CHECK(contains(message, "item"));
  CHECK(contains(message, "6 elements"));
  CHECK_THROWS_AS(a.item<float>(), Error);

  message = what_of([] { Array::from<float>({1, 2, 3}, {2, 2}); });
  CHECK(contains(message, "3 values"));
  CHECK(contains(message, "[2,2]"));
  CHECK_THROWS_AS(Array::from<float>({1, 2, 3}, {2, 2}), Error);

  // A jitted function's result arrays have the traced dtype.
  auto f = adjit::jit([](Tensor x) { return x > 0.0; }, {.name = "bools"});
  Array r = f(Array::from<float>({-1, 1}, {2}));
  CHECK_THROWS_AS(r.data<float>(), Error);
  CHECK(r.to_vector<bool>() == std::vector<bool>{false, true});
}

//===----------------------------------------------------------------------===//
// More cache behaviour
//===----------------------------------------------------------------------===//

TEST_CASE("tracer jit: exceptions from the user's code propagate, nothing is cached",
          "[tracer][jit][errors]") {
  int calls = 0;
  auto f = adjit::jit(
      [&calls](Tensor x) -> Tensor {
        ++calls;
        Tensor y = x * 2.0;
        if (y.shape()[0] == 3) throw std::runtime_error("user code says no");
        return y;
      },
      {.name = "throws", .max_traces = 1});
  CHECK_THROWS_WITH(f(Array::zeros({3})), "user code says no");
  CHECK_THROWS_AS(f(Array::zeros({3})), std::runtime_error);
  CHECK(calls == 2);
  CHECK(f.cache_info().entries == 0);
  // The failed traces left no trace current, and did not use up max_traces.
  CHECK_THROWS_AS(full({2}, 1.0), TraceError);
  CHECK(values(f(Array::ones({2}))) == (Vec{2, 2}));
  CHECK(f.cache_info().entries == 1);
  CHECK_THROWS_AS(f(Array::zeros({4})), TraceError);  // now max_traces is reached
}

TEST_CASE("tracer jit: two unnamed jitted functions dump to one directory without clashing",
          "[tracer][jit][lower]") {
  // Regression: dump files were named "<name>-<hash of the signature>-NN-<stage>",
  // so two functions with the default name "fn" (or any shared name) and the
  // same signature overwrite each other's dumps: ADJIT_DUMP_DIR keeps one
  // compiled function of the two, not one file per stage per compiled
  // function (DESIGN.md §2).
  TempDir dir;
  auto f = adjit::jit([](Tensor x) { return exp(x) + 1.0; }, {.dump_dir = dir.path()});
  auto g = adjit::jit([](Tensor x) { return cos(x) + 2.0; }, {.dump_dir = dir.path()});
  f(Array::zeros({2}));
  g(Array::zeros({2}));
  CHECK(dir.files().size() == 2 * stage_names().size());
  // Nor two signatures of one function that differ in a static double
  // (2.0 and 3.0 differ in their high bits only, which the file names'
  // half of the signature's hash ignored).
  TempDir other;
  auto scaled = adjit::jit([](Tensor x, double s) { return x * s; }, {.dump_dir = other.path()});
  scaled(Array::zeros({2}), 2.0);
  scaled(Array::zeros({2}), 3.0);
  CHECK(other.files().size() == 2 * stage_names().size());
}

TEST_CASE("tracer jit: function names with spaces or other characters",
          "[tracer][jit][lower]") {
  for (std::string name : {"train step", "step.v2", "step-1"}) {
    INFO("name '" << name << "'");
    std::string status = in_child_process([&] {
      auto f = adjit::jit([](Tensor x) { return x * 2.0 + 1.0; }, {.name = name});
      Array y = f(Array::ones({2}));
      return values(y) == Vec{3, 3} ? 0 : 1;
    });
    CHECK(status == "exit 0");
  }
}

TEST_CASE("tracer jit: returning a Tensor of no trace is a TraceError", "[tracer][jit][errors]") {
  auto f = adjit::jit([](Tensor x) { return std::pair{x * 2.0, Tensor{}}; }, {.name = "stray"});
  std::string message = what_of([&] { f(Array::zeros({2})); });
  INFO(message);
  CHECK_THROWS_AS(f(Array::zeros({2})), TraceError);
  CHECK(contains(message, "default-constructed"));
  CHECK(f.cache_info().entries == 0);
}

TEST_CASE("tracer jit: concat of no tensors names the user's line",
          "[tracer][jit][errors]") {
  // Regression: adjit::concat({}, axis) threw "adjit::concat needs at least one
  // tensor" without the "(at file:line)" every other trace error carries
  // (DESIGN.md §5: messages name the user's source line); the SourceLocation
  // parameter is ignored on that path (compiler/lib/tracer/Ops.cpp, concat).
  int line = 0;
  auto f = adjit::jit([&](Tensor x) {
    line = __LINE__; return concat({}, 0) + x;
  });
  std::string message = what_of([&] { f(Array::zeros({2})); });
  INFO(message);
  CHECK(contains(message, "adjit::concat"));
  CHECK(contains(message, "test_compiler_tracer_jit.cpp:" + std::to_string(line)));
}

// A jitted function that calls itself on arrays with the signature it is
// being traced for would wait for its own compilation forever.
TEST_CASE("tracer jit: a function calling itself while traced is a TraceError, not a hang",
          "[tracer][jit]") {
  std::function<Array(const Array&)> self;
  auto f = jit([&](Tensor x) {
    Array inner = self(Array::zeros({3}, F32));  // same signature, concrete arrays
    return x + 1.0f;
  }, {.name = "recursive"});
  self = [&](const Array& a) { return f(a); };
  std::string m = what_of<TraceError>([&] { f(Array::zeros({3}, F32)); });
  INFO(m);
  CHECK(contains(m, "'recursive' calls itself"));
  CHECK(contains(m, "f32[3]"));
  // The failed trace is not cached: a later call reports it again, no hang.
  CHECK(contains(what_of<TraceError>([&] { f(Array::zeros({3}, F32)); }), "calls itself"));
}

TEST_CASE("tracer jit: a call cycle through traces on two threads is a TraceError, not a hang",
          "[tracer][jit]") {
  // f(n = 1)'s trace calls f(2) and f(2)'s calls f(1), each started on its
  // own thread: each waits for the other's trace. Both traces start before
  // either calls (a rendezvous), so the cycle forms every time.
  std::function<Array(int)> call;
  std::atomic<int> started{0};
  auto f = jit([&](Tensor x, int n) {
    ++started;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    double inner = call(3 - n).item<float>();
    return x * inner;
  }, {.name = "cycle"});
  call = [&](int n) { return f(Array::ones({1}), n); };
  std::string errors[2];
  std::thread one([&] { errors[0] = what_of<TraceError>([&] { call(1); }); });
  std::thread two([&] { errors[1] = what_of<TraceError>([&] { call(2); }); });
  one.join();
  two.join();
  for (const std::string& e : errors) {
    INFO(e);
    CHECK(contains(e, "'cycle' calls itself"));
  }
}

TEST_CASE("tracer jit: jitted functions of one lambda type called inside each other's trace",
          "[tracer][jit]") {
  // Each call has its own arguments and cache key, also when another call
  // of the same lambda type is being traced on this thread.
  std::function<Array(const Array&)> other;
  auto make = [&](double scale) {
    return jit([&other, scale](Tensor x) {
      if (scale > 1) {
        Array inner = other(Array::full({3}, 7));
        CHECK(inner.to_vector<float>() == std::vector<float>{7, 7, 7});
      }
      return x * scale;
    });
  };
  auto identity = make(1.0), doubled = make(2.0);
  other = [&](const Array& a) { return identity(a); };
  CHECK(doubled(Array::full({2}, 5)).to_vector<float>() == std::vector<float>{10, 10});
  CHECK(doubled(Array::full({2}, 1)).to_vector<float>() == std::vector<float>{2, 2});
}

TEST_CASE("tracer jit: tensors too large to address and too many threads are clear errors",
          "[tracer][jit][errors]") {
  auto filled = jit([](Tensor x) { return x + sum(full({int64_t{1} << 62, 4}, 1.0)); });
  std::string m = what_of<TraceError>([&] { filled(Array::ones({2})); });
  INFO(m);
  CHECK(contains(m, "adjit::full: a tensor of f32[4611686018427387904,4] is too large"));
  auto counted = jit([](Tensor x) { return x + sum(cast(arange(INT64_MAX), F32)); });
  m = what_of<TraceError>([&] { counted(Array::ones({2})); });
  CHECK(contains(m, "adjit::arange: a tensor of i32[9223372036854775807] is too large"));
  auto reshaped = jit([](Tensor x) { return reshape(x, {-1, INT64_MAX, 4}); });
  CHECK(contains(what_of<TraceError>([&] { reshaped(Array::ones({2})); }),
                 "more elements than int64 counts"));
  CHECK(contains(what_of<Error>([] { jit([](Tensor x) { return x; }, {.threads = 100000}); }),
                 "thread count up to 4096, got 100000"));
  CHECK(contains(what_of<Error>([] { jit([](Tensor x) { return x; }, {.name = ""}); }),
                 "JitOptions::name must not be empty"));
}

TEST_CASE("tracer jit: a name with a '/' dumps into dump_dir", "[tracer][jit][lower]") {
  TempDir dir;
  auto f = jit([](Tensor x) { return x * 2.0; }, {.name = "../a/b", .dump_dir = dir.path()});
  CHECK(f(Array::ones({2})).to_vector<float>() == std::vector<float>{2, 2});
  std::vector<std::string> files = dir.files();
  REQUIRE(!files.empty());
  for (const std::string& file : files) CHECK(file.rfind(".._a_b-", 0) == 0);
}

// `if (tensor)` cannot be traced: the error says what to use instead and
// points at the user's line that computed the condition.
TEST_CASE("tracer jit: a Tensor used as a C++ condition names where and what to use",
          "[tracer][jit]") {
  auto f = jit([](Tensor x) {
    Tensor positive = x > 0.0f;  // this line is reported
    if (positive) return x;
    return -x;
  });
  std::string m = what_of<TraceError>([&] { f(Array::zeros({2}, F32)); });
  INFO(m);
  CHECK(contains(m, "adjit::where"));
  CHECK(contains(m, "adjit::cond(pred, then_fn, else_fn"));
  CHECK(contains(m, "adjit::while_loop"));
  CHECK(contains(m, "test_compiler_tracer_jit.cpp:" + std::to_string(__LINE__ - 9)));
  CHECK(contains(m, "use adjit::cond / where"));  // DESIGN.md §5's words
  // A parameter has no line of its own: its type and the line that jitted
  // its function are named instead.
  auto g = jit([](Tensor flag, Tensor x) { return flag ? x : -x; });
  int jitted_line = __LINE__ - 1;
  m = what_of<TraceError>([&] { g(Array::zeros({3}, DType::i1), Array::zeros({3}, F32)); });
  INFO(m);
  CHECK(contains(m, "the condition i1[3] is a parameter of the traced function 'fn' (jitted at "));
  CHECK(contains(m, "test_compiler_tracer_jit.cpp:" + std::to_string(jitted_line) + ")"));
  // A loop body's own parameter names the loop's line; a condition the body
  // captures names the line that computed it.
  auto h = jit([](Tensor x) {
    return fori_loop(0, 2, [](const Tensor&, const Tensor& y) { return y ? y : -y; }, x);
  });
  int loop_line = __LINE__ - 2;
  m = what_of<TraceError>([&] { h(Array::zeros({}, DType::i1)); });
  INFO(m);
  CHECK(contains(m, "is a parameter of the function traced for adjit::fori_loop (at "));
  CHECK(contains(m, "test_compiler_tracer_jit.cpp:" + std::to_string(loop_line) + ")"));
  auto k = jit([](Tensor x) {
    Tensor positive = x > 0.0f;  // this line is reported
    return fori_loop(0, 2, [&](const Tensor&, const Tensor& y) { return positive ? y : -y; }, x);
  });
  int computed_line = __LINE__ - 3;
  m = what_of<TraceError>([&] { k(Array::zeros({}, F32)); });
  INFO(m);
  CHECK(contains(m, "was computed at"));
  CHECK(contains(m, "test_compiler_tracer_jit.cpp:" + std::to_string(computed_line) + ")"));
}
