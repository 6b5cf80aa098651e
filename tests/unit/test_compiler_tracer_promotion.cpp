// Type promotion (JAX-style lattice, weak C++ scalars) and numpy broadcasting
// in the tracing front end. Result dtypes and shapes are read off the traced
// Tensors through Jitted::lower(), which traces without compiling; a few
// cases also run end to end to check the values.
#include "test_support.h"

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;

namespace {

// An array of `dtype` and `shape` with small integral values (valid in every
// dtype, bool included).
Array sample(DType dtype, Shape shape = {2, 3}) {
  Vec v;
  for (int64_t i = 0; i < num_elements(shape); ++i)
    v.push_back(dtype == I1 ? static_cast<double>(i % 2) : static_cast<double>(i % 5) - 2);
  return make(v, shape, dtype);
}

// The type of what `op` makes of two traced arguments of these types.
using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;
std::string traced_type(const BinaryFn& op, DType a, const Shape& as, DType b, const Shape& bs) {
  std::string type;
  auto f = adjit::jit([&](Tensor x, Tensor y) {
    Tensor r = op(x, y);
    type = type_string(r.dtype(), r.shape());
    return r * 2;  // any result: lower() only traces
  });
  f.lower(sample(a, as), sample(b, bs));
  return type;
}
std::string traced_type(const BinaryFn& op, DType a, DType b) {
  return traced_type(op, a, {2, 3}, b, {2, 3});
}
using UnaryFn = std::function<Tensor(const Tensor&)>;
std::string traced_type(const UnaryFn& op, DType a, const Shape& as = {2, 3}) {
  std::string type;
  auto f = adjit::jit([&](Tensor x) {
    Tensor r = op(x);
    type = type_string(r.dtype(), r.shape());
    return r;
  });
  f.lower(sample(a, as));
  return type;
}

// The message of the TraceError that tracing `op` on these arguments throws.
std::string trace_error(const BinaryFn& op, DType a, const Shape& as, DType b, const Shape& bs) {
  auto f = adjit::jit([&](Tensor x, Tensor y) { return op(x, y); });
  return what_of<TraceError>([&] { f.lower(sample(a, as), sample(b, bs)); });
}

std::string trace_error(const UnaryFn& op, DType a, const Shape& as) {
  auto f = adjit::jit([&](Tensor x) { return op(x); });
  return what_of<TraceError>([&] { f.lower(sample(a, as)); });
}

const BinaryFn add = [](const Tensor& a, const Tensor& b) { return a + b; };

}  // namespace

TEST_CASE("tracer promotion: tensor with tensor follows the JAX lattice", "[tracer][promotion]") {
  struct Case {
    DType a, b, result;
  };
  const Case cases[] = {
      {F32, F64, F64},  {F64, F32, F64},  {F16, BF16, F32}, {BF16, F16, F32}, {F16, F32, F32},
      {BF16, F64, F64}, {F16, F16, F16},  {BF16, BF16, BF16}, {I32, F32, F32}, {F32, I32, F32},
      {I64, F16, F16},  {I32, BF16, BF16}, {I32, I64, I64}, {I64, I32, I64},  {I1, I32, I32},
      {I32, I1, I32},   {I1, I64, I64},   {I1, F32, F32},   {I32, I32, I32},  {I64, F64, F64}};
  for (const Case& c : cases) {
    INFO(dtype_name(c.a) << " + " << dtype_name(c.b));
    CHECK(traced_type(add, c.a, c.b) == type_string(c.result, {2, 3}));
  }
  // The same lattice for every binary op, comparisons keep i1.
  BinaryFn mul = [](const Tensor& a, const Tensor& b) { return a * b; };
  BinaryFn maxi = [](const Tensor& a, const Tensor& b) { return maximum(a, b); };
  BinaryFn less = [](const Tensor& a, const Tensor& b) { return a < b; };
  BinaryFn eq = [](const Tensor& a, const Tensor& b) { return equal(a, b); };
  BinaryFn pick = [](const Tensor& a, const Tensor& b) { return where(a > b, a, b); };
  BinaryFn mm = [](const Tensor& a, const Tensor& b) { return matmul(a, transpose(b)); };
  BinaryFn cat = [](const Tensor& a, const Tensor& b) { return concat({a, b}, 0); };
  CHECK(traced_type(mul, I32, F64) == "f64[2,3]");
  CHECK(traced_type(maxi, F16, F32) == "f32[2,3]");
  CHECK(traced_type(less, I32, F32) == "i1[2,3]");
  CHECK(traced_type(eq, I1, I32) == "i1[2,3]");
  CHECK(traced_type(pick, I32, F16) == "f16[2,3]");
  CHECK(traced_type(mm, F32, F64) == "f64[2,2]");
  CHECK(traced_type(mm, I32, I32) == "i32[2,2]");
  CHECK(traced_type(cat, I32, F32) == "f32[4,3]");
}

TEST_CASE("tracer promotion: C++ numbers are weak", "[tracer][promotion]") {
  struct Case {
    const char* expression;
    UnaryFn op;
    DType input, result;
  };
  const std::vector<Case> cases{
      {"f32 * 2.0", [](const Tensor& x) { return x * 2.0; }, F32, F32},
      {"2.0 * f32", [](const Tensor& x) { return 2.0 * x; }, F32, F32},
      {"f16 * 2.0", [](const Tensor& x) { return x * 2.0; }, F16, F16},
      {"bf16 + 1", [](const Tensor& x) { return x + 1; }, BF16, BF16},
      {"f64 - 0.5f", [](const Tensor& x) { return x - 0.5f; }, F64, F64},
      {"i32 + 1.5", [](const Tensor& x) { return x + 1.5; }, I32, F32},
      {"1.5 + i32", [](const Tensor& x) { return 1.5 + x; }, I32, F32},
      {"i32 + 2", [](const Tensor& x) { return x + 2; }, I32, I32},
      {"i64 + 2", [](const Tensor& x) { return x + 2; }, I64, I64},
      {"i64 * int64_t{3}", [](const Tensor& x) { return x * int64_t{3}; }, I64, I64},
      {"i64 * 2.5", [](const Tensor& x) { return x * 2.5; }, I64, F32},
      {"i1 + 1", [](const Tensor& x) { return x + 1; }, I1, I32},
      {"i1 * 1.5", [](const Tensor& x) { return x * 1.5; }, I1, F32},
      {"i32 / i32", [](const Tensor& x) { return x / x; }, I32, F32},
      {"i64 / 2", [](const Tensor& x) { return x / 2; }, I64, F32},
      {"2 / i32", [](const Tensor& x) { return 2 / x; }, I32, F32},
      {"f16 / 2", [](const Tensor& x) { return x / 2; }, F16, F16},
      {"i32 < 2.5", [](const Tensor& x) { return x < 2.5; }, I32, I1},
      {"pow(i32, 2)", [](const Tensor& x) { return pow(x, 2); }, I32, I32},
      {"maximum(f16, 0.0)", [](const Tensor& x) { return maximum(x, 0.0); }, F16, F16},
      {"where(c, 1, 2.5)", [](const Tensor& x) { return where(x > 0, 1, 2.5); }, I32, F32},
      {"where(c, 1, 0)", [](const Tensor& x) { return where(x > 0, 1, 0); }, F32, I32},
      {"mean(f16)", [](const Tensor& x) { return mean(x); }, F16, F16},
      {"mean(bf16)", [](const Tensor& x) { return mean(x, {0}); }, BF16, BF16},
      {"where(c, f16, 0.0)", [](const Tensor& x) { return where(x > 0, x, 0.0); }, F16, F16},
      {"exp(i32)", [](const Tensor& x) { return exp(x); }, I32, F32},
      {"sqrt(i64)", [](const Tensor& x) { return sqrt(x); }, I64, F32},
      {"abs(i32)", [](const Tensor& x) { return abs(x); }, I32, I32},
      {"floor(i32)", [](const Tensor& x) { return floor(x); }, I32, I32},
      {"floor(i64)", [](const Tensor& x) { return floor(x); }, I64, I64},
      {"floor(i1)", [](const Tensor& x) { return floor(x); }, I1, I1},
      {"-i64", [](const Tensor& x) { return -x; }, I64, I64},
      {"mean(i32)", [](const Tensor& x) { return mean(x); }, I32, F32},
      {"sum(i1)", [](const Tensor& x) { return sum(x, {1}); }, I1, I32},
      {"softmax(i32)", [](const Tensor& x) { return softmax(x); }, I32, F32},
      {"gelu(i32)", [](const Tensor& x) { return gelu(x); }, I32, F32},
      {"argmax(f16)", [](const Tensor& x) { return argmax(x, 0); }, F16, I32},
      // A bool is the weakest number: it keeps every dtype, bool included.
      {"i1 + true", [](const Tensor& x) { return x + true; }, I1, I1},
      {"true * i1", [](const Tensor& x) { return true * x; }, I1, I1},
      {"maximum(i1, true)", [](const Tensor& x) { return maximum(x, true); }, I1, I1},
      {"i32 * true", [](const Tensor& x) { return x * true; }, I32, I32},
      {"f16 + false", [](const Tensor& x) { return x + false; }, F16, F16},
      {"where(c, true, false)", [](const Tensor& x) { return where(x > 0, true, false); }, F32, I1},
      {"where(c, true, 1)", [](const Tensor& x) { return where(x > 0, true, 1); }, F32, I32},
      {"where(c, i1, false)", [](const Tensor& x) { return where(x, x, false); }, I1, I1},
  };
  for (const Case& c : cases) {
    INFO(c.expression << " on " << type_string(c.input, {2, 3}));
    std::string type = traced_type(c.op, c.input);
    CHECK(type.substr(0, type.find('[')) == dtype_name(c.result));
  }
}

TEST_CASE("tracer promotion: promoted values computed end to end", "[tracer][promotion]") {
  auto f = adjit::jit(
      [](Tensor h, Tensor b, Tensor i, Tensor j, Tensor flag, Tensor x, Tensor k) {
        return std::vector<Tensor>{h + b,    i / j,   i + 1.5, i + 2,   flag + i, x * 2.0,
                                   i / 2,    k * 2.5, x + i,   k + i,   k / j,    x * 3};
      },
      {.name = "promotion_values"});
  const Shape s{4};
  const Vec H{0.5, -1.25, 3.0009765625, 1000}, B{0.25, 2.5, 1.0078125, -3},
      I{7, -7, 1, 5}, J{2, 2, 3, -4}, FLAG{1, 0, 1, 1}, K{3, -9, 1000001, 0};
  Array x = Array::uniform(s, 11, -3, 3, F32), h = make(H, s, F16), b = make(B, s, BF16);
  Vec X = values(x), Hs = values(h), Bs = values(b);  // as stored (3.0009765625 -> 3 in f16)
  std::vector<Array> r =
      f(h, b, make(I, s, I32), make(J, s, I32), make(FLAG, s, I1), x, make(K, s, I64));
  REQUIRE(r.size() == 12);
  // f32 results: the exact value rounded once to f32.
  auto f32 = [&](const std::function<double(size_t)>& exact) {
    Vec v;
    for (size_t n = 0; n < 4; ++n) v.push_back(exact(n));
    return values(make(v, s, F32));
  };
  CHECK_EXACT("f16 + bf16 -> f32", r[0], F32, s, f32([&](size_t n) { return Hs[n] + Bs[n]; }));
  CHECK_EXACT("i32 / i32 -> f32 (true division)", r[1], F32, s,
              f32([&](size_t n) { return I[n] / J[n]; }));
  CHECK_EXACT("i32 + 1.5 -> f32", r[2], F32, s, f32([&](size_t n) { return I[n] + 1.5; }));
  CHECK_EXACT("i32 + 2 -> i32", r[3], I32, s, (Vec{9, -5, 3, 7}));
  CHECK_EXACT("i1 + i32 -> i32", r[4], I32, s, (Vec{8, -7, 2, 6}));
  CHECK_EXACT("f32 * 2.0 stays f32", r[5], F32, s, f32([&](size_t n) { return X[n] * 2; }));
  CHECK_EXACT("i32 / 2 -> f32", r[6], F32, s, (Vec{3.5, -3.5, 0.5, 2.5}));
  CHECK_EXACT("i64 * 2.5 -> f32", r[7], F32, s, f32([&](size_t n) { return K[n] * 2.5; }));
  CHECK_EXACT("f32 + i32 -> f32", r[8], F32, s, f32([&](size_t n) { return X[n] + I[n]; }));
  CHECK_EXACT("i64 + i32 -> i64", r[9], I64, s, (Vec{10, -16, 1000002, 5}));
  CHECK_EXACT("i64 / i32 -> f32", r[10], F32, s, f32([&](size_t n) { return K[n] / J[n]; }));
  CHECK_EXACT("f32 * 3 (int) stays f32", r[11], F32, s, f32([&](size_t n) { return X[n] * 3; }));
}

TEST_CASE("tracer promotion: integer literals are exact, and must fit", "[tracer][promotion]") {
  // 2^53 + 1 has no double: the literal keeps it as an integer.
  auto shifted = adjit::jit([](Tensor k) { return k + int64_t{9007199254740993}; });
  CHECK(shifted(make({0, -1}, {2}, I64)).to_vector<int64_t>() ==
        std::vector<int64_t>{9007199254740993, 9007199254740992});
  // As JAX's OverflowError: 3e9 is no i32; it is an i64.
  auto wide = [](const Tensor& k) { return k + int64_t{3000000000}; };
  std::string e = trace_error(wide, I32, {2});
  INFO(e);
  CHECK(contains(e, "adjit::add: the integer 3000000000 does not fit the operand's dtype i32"));
  CHECK(adjit::jit(wide)(make({1}, {1}, I64)).to_vector<int64_t>() ==
        std::vector<int64_t>{3000000001});
  // Every integer type is an integer literal: sizes, long long, unsigned.
  std::vector<int> three(3);
  auto sized = adjit::jit([&](Tensor k) { return k * three.size() + 2LL - 1u; });
  CHECK_EXACT("i32 * size_t + long long - unsigned", sized(make({1, -2}, {2}, I32)), I32,
              (Shape{2}), (Vec{4, -5}));
  auto huge = [](const Tensor& k) { return k + UINT64_MAX; };
  CHECK(contains(trace_error(huge, I64, {1}), "the integer 18446744073709551615 does not fit"));
  // where(c, 1, 0) of two integers is i32, as JAX's.
  auto choose = adjit::jit([](Tensor c) { return where(c, 1, -2); });
  CHECK_EXACT("where(c, 1, -2)", choose(make({1, 0}, {2}, I1)), I32, (Shape{2}), (Vec{1, -2}));
}

TEST_CASE("tracer promotion: arange counts within its dtype", "[tracer][promotion]") {
  // arange's last number must fit its dtype: 3e9 counts beyond i32.
  std::string arange_error =
      trace_error([](const Tensor&) { return arange(3000000000LL, I32); }, F32, {1});
  CHECK(contains(arange_error, "adjit::arange: n = 3000000000 counts beyond i32"));
  CHECK(contains(arange_error, "use i64"));
}

TEST_CASE("tracer promotion: bools as numpy has them", "[tracer][promotion]") {
  auto f = adjit::jit([](Tensor p, Tensor q, Tensor x) {
    return std::vector<Tensor>{p + q,           p * q,         maximum(p, q),
                               minimum(p, q),   p < q,         p >= q,
                               logical_and(x, q), logical_or(x, 0), logical_not(x),
                               where(x, 1.0, -1.0), logical_and(p, true), p + true,
                               q * true};
  });
  // x: nonzero is true, NaN too, -0 is not.
  Array p = make({0, 0, 1, 1}, {4}, I1), q = make({0, 1, 0, 1}, {4}, I1),
        x = make({0, -0.0, std::nan(""), -2}, {4}, F32);
  std::vector<Array> r = f(p, q, x);
  REQUIRE(r.size() == 13);
  CHECK_EXACT("p + q (or)", r[0], I1, (Shape{4}), (Vec{0, 1, 1, 1}));
  CHECK_EXACT("p * q (and)", r[1], I1, (Shape{4}), (Vec{0, 0, 0, 1}));
  CHECK_EXACT("maximum (or)", r[2], I1, (Shape{4}), (Vec{0, 1, 1, 1}));
  CHECK_EXACT("minimum (and)", r[3], I1, (Shape{4}), (Vec{0, 0, 0, 1}));
  CHECK_EXACT("p < q", r[4], I1, (Shape{4}), (Vec{0, 1, 0, 0}));
  CHECK_EXACT("p >= q", r[5], I1, (Shape{4}), (Vec{1, 0, 1, 1}));
  CHECK_EXACT("logical_and(f32, bool)", r[6], I1, (Shape{4}), (Vec{0, 0, 0, 1}));
  CHECK_EXACT("logical_or(f32, 0)", r[7], I1, (Shape{4}), (Vec{0, 0, 1, 1}));
  CHECK_EXACT("logical_not(f32)", r[8], I1, (Shape{4}), (Vec{1, 1, 0, 0}));
  CHECK_EXACT("where(f32, 1.0, -1.0)", r[9], F32, (Shape{4}), (Vec{-1, -1, 1, 1}));
  CHECK_EXACT("logical_and(p, true)", r[10], I1, (Shape{4}), (Vec{0, 0, 1, 1}));
  CHECK_EXACT("p + true (or)", r[11], I1, (Shape{4}), (Vec{1, 1, 1, 1}));
  CHECK_EXACT("q * true (and)", r[12], I1, (Shape{4}), (Vec{0, 1, 0, 1}));
}

TEST_CASE("tracer promotion: abs, square, relu, matmul and take of bools as JAX has them",
          "[tracer][promotion]") {
  auto f = adjit::jit([](Tensor p, Tensor m, Tensor n, Tensor x) {
    return std::vector<Tensor>{abs(p),       square(p),     relu(p), matmul(m, n),
                               matmul(p, p), take(x, p, 0), matmul(m, ones_like(n))};
  });
  // m (2x3) @ n (3x2): any of the ands; the last with every n true.
  Array p = make({0, 1, 1, 0}, {4}, I1), m = make({1, 0, 0, 0, 0, 0}, {2, 3}, I1),
        n = make({0, 1, 1, 1, 0, 1}, {3, 2}, I1), x = make({10, 20, 30}, {3}, F32);
  std::vector<Array> r = f(p, m, n, x);
  REQUIRE(r.size() == 7);
  CHECK_EXACT("abs(bool)", r[0], I1, (Shape{4}), (Vec{0, 1, 1, 0}));
  CHECK_EXACT("square(bool)", r[1], I32, (Shape{4}), (Vec{0, 1, 1, 0}));
  CHECK_EXACT("relu(bool)", r[2], I32, (Shape{4}), (Vec{0, 1, 1, 0}));
  CHECK_EXACT("matmul(bool, bool)", r[3], I1, (Shape{2, 2}), (Vec{0, 1, 0, 0}));
  CHECK_EXACT("matmul of bool vectors", r[4], I1, (Shape{}), (Vec{1}));
  CHECK_EXACT("take(x, bool indices)", r[5], F32, (Shape{4}), (Vec{10, 20, 20, 10}));
  CHECK_EXACT("matmul(bool, ones)", r[6], I1, (Shape{2, 2}), (Vec{1, 1, 0, 0}));
}

TEST_CASE("tracer promotion: mean of f16 and bf16 sums and divides in f32",
          "[tracer][promotion]") {
  // In f16 the count 65536 is inf (the mean was 0) and the sum 90000 too.
  auto average = adjit::jit([](Tensor x) { return mean(x); });
  CHECK_EXACT("mean of 256 x 256 halves", average(Array::full({256, 256}, 0.5, F16)), F16, (Shape{}),
              (Vec{0.5}));
  CHECK_EXACT("mean of 30000 threes", average(Array::full({30000}, 3, F16)), F16, (Shape{}), (Vec{3}));
  auto by_rows = adjit::jit([](Tensor x) { return mean(x, {0}); });
  CHECK_EXACT("mean over 70000 rows", by_rows(Array::full({70000, 2}, 1, F16)), F16, (Shape{2}),
              (Vec{1, 1}));
  // bf16: 256 ones and a zero average to 0.99611..., 0.99609375 in bf16 (a
  // count rounded to bf16, 256, gave 1).
  Vec ones(257, 1.0);
  ones.back() = 0;
  CHECK_EXACT("bf16 mean rounded once", average(make(ones, {257}, BF16)), BF16, (Shape{}),
              (Vec{0.99609375}));
}


TEST_CASE("tracer promotion: numpy broadcasting of shapes", "[tracer][promotion]") {
  BinaryFn mul = [](const Tensor& a, const Tensor& b) { return a * b; };
  CHECK(traced_type(add, F32, {3, 1}, F32, {4}) == "f32[3,4]");
  CHECK(traced_type(add, F32, {2, 1, 3}, F32, {5, 1}) == "f32[2,5,3]");
  CHECK(traced_type(add, F32, {}, F32, {2, 3}) == "f32[2,3]");
  CHECK(traced_type(add, F32, {1}, F32, {2, 3}) == "f32[2,3]");
  CHECK(traced_type(mul, F32, {4, 1, 1}, I32, {1, 3, 1}) == "f32[4,3,1]");
  CHECK(traced_type(add, F32, {0, 3}, F32, {1, 3}) == "f32[0,3]");
  CHECK(traced_type(add, F32, {2, 1}, F32, {2, 0}) == "f32[2,0]");

  // Values, with broadcasting in operators, where, comparisons and maximum.
  auto f = adjit::jit(
      [](Tensor a, Tensor r, Tensor p, Tensor q, Tensor s, Tensor m, Tensor c, Tensor one) {
        return std::vector<Tensor>{a + r,          p * q,       s + m,         m - s,
                                   where(c, r, a), a < r,       maximum(p, q), one + m};
      },
      {.name = "broadcast_values"});
  const Shape as{3, 1}, rs{4}, ps{2, 1, 3}, qs{5, 1}, ss{}, ms{2, 3}, cs{3, 1}, os{1};
  Array a = Array::uniform(as, 1, -2, 2, F32), r = Array::uniform(rs, 2, -2, 2, F32),
        p = Array::uniform(ps, 3, -2, 2, F32), q = Array::uniform(qs, 4, -2, 2, F32),
        sc = Array::scalar(1.25f), m = Array::uniform(ms, 6, -2, 2, F32),
        c = make({1, 0, 1}, cs, I1), one = Array::uniform(os, 8, -2, 2, F32);
  std::vector<Array> out = f(a, r, p, q, sc, m, c, one);
  REQUIRE(out.size() == 8);
  Vec A = values(a), R = values(r), P = values(p), Q = values(q), S = values(sc), M = values(m),
      C = values(c), O = values(one);
  auto round32 = [](const Vec& v, const Shape& shape) { return values(make(v, shape, F32)); };
  Shape t{3, 4};
  CHECK_EXACT("[3,1] + [4]", out[0], F32, t,
              round32(zip(broadcast_ref(A, as, t), broadcast_ref(R, rs, t), std::plus<>()), t));
  Shape u{2, 5, 3};
  CHECK_EXACT("[2,1,3] * [5,1]", out[1], F32, u,
              round32(zip(broadcast_ref(P, ps, u), broadcast_ref(Q, qs, u), std::multiplies<>()),
                      u));
  CHECK_EXACT("[] + [2,3]", out[2], F32, ms,
              round32(zip(broadcast_ref(S, ss, ms), M, std::plus<>()), ms));
  CHECK_EXACT("[2,3] - []", out[3], F32, ms,
              round32(zip(M, broadcast_ref(S, ss, ms), std::minus<>()), ms));
  {
    Vec want, cb = broadcast_ref(C, cs, t), rb = broadcast_ref(R, rs, t),
              ab = broadcast_ref(A, as, t);
    for (size_t n = 0; n < cb.size(); ++n) want.push_back(cb[n] != 0 ? rb[n] : ab[n]);
    CHECK_EXACT("where(c[3,1], r[4], a[3,1])", out[4], F32, t, want);
  }
  CHECK_EXACT("[3,1] < [4]", out[5], I1, t,
              zip(broadcast_ref(A, as, t), broadcast_ref(R, rs, t),
                  [](double x, double y) { return x < y ? 1.0 : 0.0; }));
  CHECK_EXACT("maximum([2,1,3], [5,1])", out[6], F32, u,
              zip(broadcast_ref(P, ps, u), broadcast_ref(Q, qs, u),
                  [](double x, double y) { return std::max(x, y); }));
  CHECK_EXACT("[1] + [2,3]", out[7], F32, ms,
              round32(zip(broadcast_ref(O, os, ms), M, std::plus<>()), ms));
}

TEST_CASE("tracer promotion: incompatible shapes and dtypes throw TraceError",
          "[tracer][promotion]") {
  auto contains_all = [](const std::string& text, std::initializer_list<const char*> parts) {
    for (const char* part : parts)
      if (text.find(part) == std::string::npos) return false;
    return true;
  };
  std::string e = trace_error(add, F32, {3}, F32, {4});
  INFO(e);
  CHECK(contains_all(e, {"adjit::add", "f32[3]", "f32[4]", "cannot be broadcast",
                         "test_compiler_tracer_promotion.cpp:"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return a * b; }, F32, {2, 3}, I32,
                  {3, 2});
  CHECK(contains_all(e, {"adjit::multiply", "f32[2,3]", "i32[3,2]"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return a - b; }, F32, {2, 1, 3}, F32,
                  {4, 2});
  CHECK(contains_all(e, {"adjit::subtract", "f32[2,1,3]", "f32[4,2]"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return where(a > 0, a, b); }, F32, {3},
                  F32, {4});
  CHECK(contains_all(e, {"adjit::where", "f32[3]", "f32[4]"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return matmul(a, b); }, F32, {2, 3, 4},
                  F32, {3, 4, 5});
  CHECK(contains_all(e, {"adjit::matmul", "batch", "f32[2,3,4]", "f32[3,4,5]"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return a - b; }, I1, {3}, I1, {3});
  CHECK(contains_all(e, {"adjit::subtract", "not defined for bool tensors", "i1[3]"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return logical_or(a, b); }, F32, {3},
                  F32, {2});
  CHECK(contains_all(e, {"adjit::logical_or", "f32[3]", "f32[2]", "cannot be broadcast"}));
  e = trace_error([](const Tensor& a) { return sum(a, {2}); }, F32, {2, 3});
  CHECK(contains_all(e, {"adjit::sum", "axis 2 is out of range for rank 2", "f32[2,3]"}));
  e = trace_error([](const Tensor& a) { return transpose(a, {0, 0}); }, F32, {2, 3});
  CHECK(contains_all(e, {"adjit::transpose", "[0,0] is not a permutation", "f32[2,3]"}));
  e = trace_error([](const Tensor& a, const Tensor& b) { return concat({a, b}, 0); }, F32, {2, 3},
                  F32, {2, 4});
  CHECK(contains_all(e, {"adjit::concat", "f32[2,3]", "f32[2,4]"}));

  // Through a jitted call: the error propagates and nothing is cached.
  auto f = adjit::jit([](Tensor a, Tensor b) { return a + b; }, {.name = "bad_shapes"});
  CHECK_THROWS_AS(f(sample(F32, {3}), sample(F32, {4})), TraceError);
  CHECK_THROWS_AS(f(sample(F32, {3}), sample(F32, {4})), TraceError);
  CHECK(f.cache_info().entries == 0);
  Array ok = f(sample(F32, {3}), sample(F32, {3}));
  CHECK(values(ok) == (Vec{-4, -2, 0}));
  CHECK(f.cache_info().entries == 1);
}
