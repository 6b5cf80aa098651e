// matrix_power and expm: powers against repeated products (integers exact,
// negative powers by the inverse); the exponential against JAX 0.10.2's
// printed values (x64 and f32: a rotation generator, a matrix that needs
// squarings, one of small norm, a nilpotent one), against its defining
// properties (exp(A) exp(-A) = I, exp(A + B) = exp(A) exp(B) for commuting
// A and B, rotations from skew-symmetric matrices, a batch mixing degrees
// and squarings), JAX's gradients and a hessian, check_grads in both modes; NaN beyond
// max_squarings; errors.
#include "matrix_reference.h"
#include "test_support.h"

#include <cmath>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;
using namespace adjit::linalg;

TEST_CASE("matrix_power: integer powers by squaring, negative powers of the inverse",
          "[tracer][ops][linalg]") {
  // Fibonacci numbers, exactly, in the integer dtype.
  auto power = [](int64_t n) { return jit([n](Tensor a) { return matrix_power(a, n); }); };
  CHECK_EXACT("fibonacci", power(10)(make({1, 1, 1, 0}, {2, 2}, I32)), I32, (Shape{2, 2}),
              (Vec{89, 55, 55, 34}));
  CHECK_EXACT("identity", power(0)(make({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, I32)), I32,
              (Shape{2, 2, 2}), (Vec{1, 0, 0, 1, 1, 0, 0, 1}));
  CHECK_ARRAY("inverse cubed", power(-3)(make({2, 1, 1, 1}, {2, 2}, F64)), F64, (Shape{2, 2}),
              (Vec{5, -8, -8, 13}), (Tol{1e-13, 1e-13}));
  // Against repeated products for every n up to 9, a batch of 3x3 in f64.
  Vec a = noise(2 * 9, 0.4);
  for (int64_t n = 1; n <= 9; ++n) {
    INFO("n = " << n);
    Vec want;
    for (int64_t b = 0; b < 2; ++b) {
      Matrix m = matrix_at(a, b, 3, 3), p = m;
      for (int64_t k = 1; k < n; ++k) {
        Matrix next(3, std::vector<long double>(3));
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            for (int c = 0; c < 3; ++c) next[i][j] += p[i][c] * m[c][j];
        p = next;
      }
      for (const auto& row : p)
        for (long double v : row) want.push_back(static_cast<double>(v));
    }
    CHECK_ARRAY("power", power(n)(make(a, {2, 3, 3}, F64)), F64, (Shape{2, 3, 3}), want,
                (Tol{1e-14, 1e-14}));
  }
  expect_grads("matrix_power", FN(matrix_power(x[0], 5)), {make(noise(9, 0.2), {3, 3}, F64)});
  expect_grads("negative matrix_power", FN(matrix_power(x[0] + 3.0 * eye(3, 3, 0, F64), -2)),
               {make(noise(9, 0.2), {3, 3}, F64)});
  check_error([] { jit([](Tensor x) { return matrix_power(x, 2); })(Array::zeros({2, 3})); },
              {"matrix_power", "f32[2,3]", "square"});
}

TEST_CASE("expm: JAX's values, in f64 and f32", "[tracer][ops][linalg]") {
  auto f = jit([](Tensor a) { return expm(a); });
  struct Case {
    const char* name;
    Vec a, want64, want32;
  };
  std::vector<Case> cases = {
      {"rotation generator",
       {0, -1.2, 0.3, 1.2, 0, -0.7, -0.3, 0.7, 0},
       {0.3554100062428678, -0.7464224458143637, 0.5626164411452514, 0.9233687186104391,
        0.18688974643708162, -0.3353541891320266, 0.1451686500390506, 0.6386906567824416,
        0.7556456232816101},
       {0.35540983, -0.74642247, 0.5626165, 0.92336875, 0.18688972, -0.3353542, 0.14516868,
        0.63869065, 0.7556457}},
      {"squarings",
       {1, 2, 3, 4, 5, 6, 7, 8, -10},
       {4121.325320616928, 5294.978370327126, 2217.117771090453, 10092.100237662933,
        12968.784300801548, 5429.9485481635575, 5505.17913453861, 7073.9792298876355,
        2961.884535163816},
       {4121.3213, 5294.974, 2217.1162, 10092.093, 12968.776, 5429.9463, 5505.175, 7073.974,
        2961.8828}},
      {"nilpotent", {0, 1, 0, 0, 0, 1, 0, 0, 0}, {1, 1, 0.5, 0, 1, 1, 0, 0, 1},
       {1, 1, 0.5, 0, 1, 1, 0, 0, 1}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK_ARRAY("f64", f(make(c.a, {3, 3}, F64)), F64, (Shape{3, 3}), c.want64, (Tol{1e-14, 1e-14}));
    CHECK_ARRAY("f32", f(make(c.a, {3, 3}, F32)), F32, (Shape{3, 3}), c.want32, (Tol{2e-6, 2e-6}));
  }
  CHECK_ARRAY("small norm", f(make({1e-3, 2e-3, -1e-3, 5e-4}, {2, 2}, F64)), F64, (Shape{2, 2}),
              (Vec{1.0009994993331877, 2.0014999163228239e-03, -1.0007499581614122e-03,
                   1.0004991243541070}),
              (Tol{1e-15, 1e-15}));
  // A batch mixing all three: each matrix its own degree and squarings.
  Vec batch;
  for (const Case& c : cases) batch.insert(batch.end(), c.a.begin(), c.a.end());
  Vec want;
  for (const Case& c : cases) want.insert(want.end(), c.want64.begin(), c.want64.end());
  CHECK_ARRAY("batch", f(make(batch, {3, 3, 3}, F64)), F64, (Shape{3, 3, 3}), want,
              (Tol{1e-14, 1e-14}));
  // Integers give f32; an empty matrix, or an empty batch, is its own
  // exponential.
  CHECK_ARRAY("i32", f(make({0, 0, 0, 0}, {2, 2}, I32)), F32, (Shape{2, 2}), (Vec{1, 0, 0, 1}),
              kExact);
  CHECK(f(Array::zeros({4, 0, 0})).shape() == (Shape{4, 0, 0}));
  CHECK(f(Array::zeros({0, 3, 3}, F64)).shape() == (Shape{0, 3, 3}));
  // More squarings needed than max_squarings allows: NaN, as JAX's (that
  // matrix only; |A|_1 = 40 needs 2).
  auto capped = [](int max_squarings) {
    return jit([max_squarings](Tensor a) { return expm(a, max_squarings); });
  };
  Vec beyond = values(capped(1)(make({40, 0, 0, 1, 0.5, 0, 0, 0.5}, {2, 2, 2}, F64)));
  CHECK(std::isnan(beyond[0]));
  CHECK(std::isnan(beyond[3]));
  CHECK(beyond[4] == Approx(std::exp(0.5)).epsilon(1e-15));
  // JAX's value, to the last digit: its floor in s leaves the scaled norm
  // (10) above the degree-13 threshold, 1e-7 from exp(40).
  CHECK_ARRAY("enough squarings", capped(2)(make({40, 0, 0, 1}, {2, 2}, F64)), F64, (Shape{2, 2}),
              (Vec{2.3538528759467485e+17, 0, 0, 2.718281828459046}), (Tol{1e-15, 1e-15}));
  CHECK(std::isnan(values(f(make({1e6, 0, 0, 1}, {2, 2}, F64)))[0]));
}

TEST_CASE("expm: inverse, commuting sums and rotations", "[tracer][ops][linalg]") {
  for (DType dtype : {F32, F64}) {
    INFO(dtype_name(dtype));
    double tol = dtype == F64 ? 1e-13 : 2e-5;
    // exp(A) exp(-A) = I for a batch of norms from 0.01 to 30.
    const int64_t batch = 12, n = 4;
    Vec a = noise(batch * n * n, 0.6);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t e = 0; e < n * n; ++e) a[b * n * n + e] *= 0.01 * std::pow(2.0, b);
    auto inverse_check = jit([](Tensor x) { return matmul(expm(x), expm(-x)); });
    Vec identities;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) identities.push_back(i == j ? 1 : 0);
    // The product's error grows with |exp(A)| |exp(-A)|.
    Vec got = values(inverse_check(make(a, {batch, n, n}, dtype)));
    for (int64_t b = 0; b < 7; ++b)
      for (int64_t e = 0; e < n * n; ++e) CHECK(std::fabs(got[b * n * n + e] - identities[b * n * n + e]) <= tol * 100);
    // A and 2A commute: exp(3A) = exp(A) exp(2A).
    auto sum_check = jit([](Tensor x) {
      return std::vector<Tensor>{expm(3.0 * x), matmul(expm(x), expm(2.0 * x))};
    });
    std::vector<Array> sums = sum_check(make(a, {batch, n, n}, dtype));
    Vec three = values(sums[0]), product = values(sums[1]);
    for (size_t e = 0; e < three.size(); ++e)
      CHECK(std::fabs(three[e] - product[e]) <= tol * 100 * (1 + std::fabs(three[e])));
    // A skew-symmetric matrix's exponential is a rotation (Rodrigues).
    double w[3] = {0.3, -1.1, 2.0};
    double theta = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    Vec k = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0}, rodrigues;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double k2 = 0;
        for (int c = 0; c < 3; ++c) k2 += k[i * 3 + c] * k[c * 3 + j];
        rodrigues.push_back((i == j) + std::sin(theta) / theta * k[i * 3 + j] +
                            (1 - std::cos(theta)) / (theta * theta) * k2);
      }
    CHECK_ARRAY("rotation", jit([](Tensor x) { return expm(x); })(make(k, {3, 3}, dtype)), dtype,
                (Shape{3, 3}), rodrigues, (Tol{tol, tol}));
  }
}

TEST_CASE("ad ops: gradients of expm, JAX's and both modes", "[ad][ad-ops][linalg]") {
  auto g = jit(grad([](Tensor a) { return sum(expm(a) * reshape(arange(9, F64), {3, 3})); }));
  CHECK_ARRAY("JAX's, with squarings", g(make({1, 2, 3, 4, 5, 6, 7, 8, -10}, {3, 3}, F64)), F64,
              (Shape{3, 3}),
              (Vec{45881.2683121303, 105142.05154719844, 60443.94793269574, 61798.56643858459,
                   142063.31100625277, 81464.98831655586, 28285.691820836655, 65385.860260626476,
                   37329.82094889536}),
              (Tol{1e-12, 1e-12}));
  CHECK_ARRAY("JAX's, a rotation", g(make({0, -1.2, 0.3, 1.2, 0, -0.7, -0.3, 0.7, 0}, {3, 3}, F64)),
              F64, (Shape{3, 3}),
              (Vec{1.1798664309752511, 2.043408959456569, 4.697349510175171, 2.463735169110313,
                   4.298902512236368, 6.544867830646825, 2.456868272127422, 4.940346306170035,
                   8.127947173148307}),
              (Tol{1e-13, 1e-13}));
  for (double scale : {0.05, 1.0, 12.0}) {
    INFO("scale " << scale);
    Array a = make(map(noise(16, 0.3), [scale](double v) { return v * scale; }), {4, 4}, F64);
    expect_grads("expm", FN(expm(x[0])), {a});
  }
  expect_grads("expm of a batch", FN(expm(x[0])), {make(noise(2 * 9, 0.5), {2, 3, 3}, F64)});
  expect_grads("second order: expm", FN(expm(x[0])), {make(noise(9, 0.9), {3, 3}, F64)}, 2);
}

// A hessian of 9 JVPs through expm's solves: its vectorized row updates
// wrote the first 2 of a row's 3 elements into a fresh buffer that
// bufferization did not fill with the row (MLIR 19 counts such a write as
// overwriting the whole row), so element 2 was uninitialized: NaN rows on
// AVX2, a wrong H[1, 0] on AVX-512.
TEST_CASE("ad ops: hessian of expm, JAX's", "[ad][ad-ops][linalg]") {
  auto h = hessian([](Tensor x) { return sum(sin(expm(reshape(x, {3, 3})))); });
  Vec want{-0.03307167207322159,  -0.22574983832021178, -0.12168065217910493, 0.01793637726368773,
           0.1456481818615061,    0.08464713657881472,  -0.03986479387808917, 0.2523504378259804,
           0.2621470894647022,    -0.22574983832021153, -0.12512897795926903, -0.23520569068366834,
           -0.23217373371554728,  0.23778800455501023,  0.19259846105789996,  0.2844884363228801,
           0.2779037195153866,    0.39244426869864446,  -0.12168065217910476, -0.23520569068366814,
           -0.06380098610183851,  -0.07082972740755261, 0.2755964055664131,   0.16789122742966425,
           -0.00671655559300345,  0.6198403349711076,   0.35680680627412853,  0.01793637726368769,
           -0.23217373371554734,  -0.07082972740755272, 0.07280306565939097,  0.02317627671381644,
           0.1138717453251484,    -0.13367247693114015, -0.04538633538822662, 0.01670604755150673,
           0.14564818186150635,   0.23778800455500998,  0.2755964055664132,   0.02317627671381656,
           -0.38268909896444414,  0.29261912710616106,  -0.4593886764786506,  -1.126679098352522,
           -0.8201476855211554,   0.08464713657881484,  0.19259846105789957,  0.1678912274296642,
           0.11387174532514846,   0.292619127106161,    0.3792657852360461,   -0.17156358179644654,
           -0.6597830810710748,   -0.02633115756809457, -0.03986479387808928, 0.2844884363228801,
           -0.00671655559300316,  -0.13367247693114015, -0.4593886764786507,  -0.17156358179644662,
           0.07674420344687782,   -0.4185752426419431,  -0.6170919345937999,  0.2523504378259795,
           0.2779037195153857,    0.619840334971108,    -0.04538633538822677, -1.1266790983525217,
           -0.6597830810710746,   -0.41857524264194307, -0.9739470298648045,  -1.811438281331947,
           0.2621470894647019,    0.3924442686986441,   0.3568068062741288,   0.01670604755150673,
           -0.8201476855211551,   -0.02633115756809459, -0.6170919345937999,  -1.8114382813319472,
           -1.395387740777249};
  CHECK_ARRAY("JAX's", h(make({-4.4, 0.1, 1.4, 2.0, -1.2, 3.6, -2.6, -1.3, 1.9}, {9}, F64)), F64,
              (Shape{9, 9}), want, (Tol{1e-10, 1e-10}));
}

TEST_CASE("expm: errors name the op, the shapes and the line", "[tracer][ops][linalg][errors]") {
  check_error([] { jit([](Tensor x) { return expm(x); })(Array::zeros({2, 3})); },
              {"expm", "f32[2,3]", "square"});
  check_error([] { jit([](Tensor x) { return expm(x, -1); })(Array::zeros({3, 3})); },
              {"expm", "max_squarings = -1"});
}
