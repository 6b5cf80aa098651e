// Accuracy of the JIT-compiled transcendental ops (exp, expm1, log, log1p,
// sqrt, rsqrt, sin, cos, tanh, logistic, erf, tan, asin, acos, atan, sinh,
// cosh, asinh, acosh, atanh, cbrt) over their whole useful range.
//
// f32: >= 131072 points per function, each evaluated by the compiled
// `adjit.<op>` on an f32 tensor and compared with the C library's double
// precision function on the same (f32) input. The double result has 29 more
// significant bits than f32, so it is the exact value for this purpose.
//
// f64: the same kind of point set drawn directly in double, compared with the
// C library's long double function (64-bit significand on x86-64, 11 bits
// more than double) on the same input.
//
// The error of one point, err = |got - ref| / max(|ref|, floor(x)):
//   - floor(x) = 0 for every function but sin and cos: err is the relative
//     error. Points whose reference is below 1e-30 in magnitude are skipped
//     (the requirement is stated for |ref| >= 1e-30; tiny results of erf,
//     tanh, expm1, ... near 0 are still covered from 1e-30 up).
//   - sin and cos: floor(x) = eps * max(1, |x|) with eps = 2^-24 (f32) or
//     2^-53 (f64). Away from the zeros of sin/cos (|ref| >= floor) err is the
//     relative error. Within about half an input ulp of a zero k*pi/2 the
//     result can be arbitrarily small; demanding relative accuracy there
//     needs pi to far more than 2 * 24 bits (Payne-Hanek reduction). Instead
//     the absolute error must stay below 5e-7 * eps * max(1, |x|), which any
//     argument reduction with pi/2 to about 3 * 24 bits (a three-constant
//     Cody-Waite split in f32) meets, and a single-constant one does not.
// Requirement: err <= 5e-7 for f32 (about 4 ulp), err <= 1e-15 for f64 (about
// 4.5 ulp; the only double-rounding ops are rsqrt = 1/sqrt and logistic =
// 1/(1+e^-x), a few roundings each, so well below that).
//
// The measured maximum (as err and in ulps of the result, the latter over the
// points where relative accuracy is demanded) is printed for every function,
// with the worst input.
#include "jit_test_support.h"

#include <iomanip>
#include <iostream>

using namespace adjit;
using namespace adjit::jit_test;

namespace {

struct MathFn {
  std::string name;
  double (*ref32)(double);
  long double (*ref64)(long double);
  bool trig;
};

const MathFn& math_fn(const std::string& name) {
  static const std::vector<MathFn> fns = {
      {"exp", [](double x) { return std::exp(x); }, [](long double x) { return std::exp(x); }, false},
      {"expm1", [](double x) { return std::expm1(x); }, [](long double x) { return std::expm1(x); },
       false},
      {"log", [](double x) { return std::log(x); }, [](long double x) { return std::log(x); }, false},
      {"log1p", [](double x) { return std::log1p(x); }, [](long double x) { return std::log1p(x); },
       false},
      {"sqrt", [](double x) { return std::sqrt(x); }, [](long double x) { return std::sqrt(x); },
       false},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); },
       [](long double x) { return 1 / std::sqrt(x); }, false},
      {"sin", [](double x) { return std::sin(x); }, [](long double x) { return std::sin(x); }, true},
      {"cos", [](double x) { return std::cos(x); }, [](long double x) { return std::cos(x); }, true},
      {"tanh", [](double x) { return std::tanh(x); }, [](long double x) { return std::tanh(x); },
       false},
      {"logistic", [](double x) { return 1 / (1 + std::exp(-x)); },
       [](long double x) { return 1 / (1 + std::exp(-x)); }, false},
      {"erf", [](double x) { return std::erf(x); }, [](long double x) { return std::erf(x); }, false},
      {"tan", [](double x) { return std::tan(x); }, [](long double x) { return std::tan(x); }, true},
      {"asin", [](double x) { return std::asin(x); }, [](long double x) { return std::asin(x); },
       false},
      {"acos", [](double x) { return std::acos(x); }, [](long double x) { return std::acos(x); },
       false},
      {"atan", [](double x) { return std::atan(x); }, [](long double x) { return std::atan(x); },
       false},
      {"sinh", [](double x) { return std::sinh(x); }, [](long double x) { return std::sinh(x); },
       false},
      {"cosh", [](double x) { return std::cosh(x); }, [](long double x) { return std::cosh(x); },
       false},
      {"asinh", [](double x) { return std::asinh(x); },
       [](long double x) { return std::asinh(x); }, false},
      {"acosh", [](double x) { return std::acosh(x); },
       [](long double x) { return std::acosh(x); }, false},
      {"atanh", [](double x) { return std::atanh(x); },
       [](long double x) { return std::atanh(x); }, false},
      {"cbrt", [](double x) { return std::cbrt(x); }, [](long double x) { return std::cbrt(x); },
       false},
  };
  for (const MathFn& f : fns)
    if (f.name == name) return f;
  throw std::logic_error("unknown function " + name);
}

// Point sets. `uniform(lo, hi, n)` evenly random; `log_spaced(a, b, n,
// both_signs)` with log10|x| uniform in [log10 a, log10 b].
class Points {
 public:
  explicit Points(uint64_t seed) : rng_(seed) {}
  Points& uniform(double lo, double hi, size_t n) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (size_t i = 0; i < n; ++i) values_.push_back(d(rng_));
    return *this;
  }
  Points& log_spaced(double a, double b, size_t n, bool both_signs, double offset = 0) {
    std::uniform_real_distribution<double> d(std::log10(a), std::log10(b));
    for (size_t i = 0; i < n; ++i) {
      double v = std::pow(10.0, d(rng_));
      if (both_signs && (i & 1)) v = -v;
      values_.push_back(offset + v);
    }
    return *this;
  }
  Points& add(std::vector<double> v) {
    values_.insert(values_.end(), v.begin(), v.end());
    return *this;
  }
  std::vector<double> take() { return std::move(values_); }

 private:
  std::mt19937_64 rng_;
  std::vector<double> values_;
};

// The domains: the whole useful range of each function, dense near 0 (and
// near 1 for log, near -1 for log1p), 131072 points or more.
std::vector<double> points_for(const std::string& name) {
  constexpr size_t kQuarter = 32768;
  uint64_t seed = 1469598103934665603ull;  // FNV-1a of the name: fixed across platforms
  for (char c : name) seed = (seed ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Points p(seed);
  if (name == "exp")
    return p.uniform(-87, 88, 2 * kQuarter).uniform(-1, 1, kQuarter)
        .log_spaced(1e-30, 1, kQuarter, true).take();
  if (name == "expm1")
    return p.uniform(-20, 88, 2 * kQuarter).uniform(-1, 1, kQuarter)
        .log_spaced(1e-30, 1, kQuarter, true).take();
  if (name == "log")
    return p.log_spaced(1e-30, 1e30, 2 * kQuarter, false)
        .log_spaced(1e-8, 0.5, kQuarter, true, 1.0)  // 1 +- small: the zero of log
        .uniform(0.5, 2, kQuarter).take();
  if (name == "log1p") {
    std::vector<double> v = p.log_spaced(1e-30, 1e30, 2 * kQuarter, false)
                                .log_spaced(1e-30, 0.999, kQuarter, false)
                                .log_spaced(1e-7, 0.5, kQuarter, false)
                                .take();
    for (size_t i = 2 * kQuarter; i < 3 * kQuarter; ++i) v[i] = -v[i];  // (-1, 0), dense near 0
    for (size_t i = 3 * kQuarter; i < v.size(); ++i) v[i] = v[i] - 1;   // just above -1
    return v;
  }
  if (name == "sqrt" || name == "rsqrt")
    return p.log_spaced(1e-30, 1e30, 3 * kQuarter, false)
        .log_spaced(1.4e-45, 1.2e-38, kQuarter / 2, false)  // subnormals
        .uniform(0, 4, kQuarter / 2).take();
  // f32 vectors reduce |x| <= 1e5 themselves and call libm for any vector
  // with a larger lane (ApproximateMath.cpp): both ranges, and vectors
  // that mix them.
  if (name == "sin" || name == "cos")
    return p.uniform(-1e4, 1e4, 2 * kQuarter).uniform(-10, 10, kQuarter / 2)
        .uniform(-2e5, 2e5, kQuarter / 4).log_spaced(1e5, 1e30, kQuarter / 4, true)
        .log_spaced(1e-30, 1, kQuarter, true).take();
  // tan: its zeros and poles at multiples of pi/2 (trig's absolute floor
  // near the zeros), small arguments, large ones.
  if (name == "tan")
    return p.uniform(-10, 10, 2 * kQuarter).uniform(-1e4, 1e4, kQuarter)
        .log_spaced(1e-30, 1, kQuarter, true).take();
  // asin, acos, atanh: (-1, 1), dense near 0 and near +-1.
  if (name == "asin" || name == "acos" || name == "atanh") {
    std::vector<double> v = p.uniform(-1, 1, 2 * kQuarter)
                                .log_spaced(1e-30, 1, kQuarter / 2, true)
                                .log_spaced(1e-7, 0.5, kQuarter / 2, false)
                                .log_spaced(1e-7, 0.5, kQuarter / 2, false)
                                .add({-1.0, 1.0, 0.0, -0.0})
                                .take();
    size_t near_one = 2 * kQuarter + kQuarter / 2;
    for (size_t i = near_one; i < near_one + kQuarter / 2; ++i) v[i] = 1 - v[i];
    for (size_t i = near_one + kQuarter / 2; i < near_one + kQuarter; ++i) v[i] = v[i] - 1;
    return v;
  }
  if (name == "sinh" || name == "cosh")
    return p.uniform(-88, 88, 2 * kQuarter).uniform(-2, 2, kQuarter)
        .log_spaced(1e-30, 1, kQuarter, true).take();
  // acosh: [1, 1e30], dense just above 1.
  if (name == "acosh")
    return p.log_spaced(1, 1e30, 2 * kQuarter, false)
        .log_spaced(1e-7, 1, kQuarter, false, 1.0).uniform(1, 10, kQuarter).add({1.0}).take();
  // atan, asinh, cbrt: all of the line.
  if (name == "atan" || name == "asinh" || name == "cbrt")
    return p.log_spaced(1e-30, 1e30, 2 * kQuarter, true).uniform(-10, 10, kQuarter)
        .log_spaced(1e-30, 1, kQuarter, true).take();
  // tanh, logistic, erf
  return p.uniform(-20, 20, 2 * kQuarter).uniform(-2, 2, kQuarter)
      .log_spaced(1e-30, 1, kQuarter, true).take();
}

struct Accuracy {
  size_t points = 0, checked = 0, failures = 0, nonfinite_mismatches = 0;
  double max_err = 0, worst_err_x = 0, worst_got = 0, worst_ref = 0;
  double max_ulp = 0, worst_ulp_x = 0;
  // Max err per band of inputs: sign x decade of |x| (index 0 for |x| < 1e-30,
  // then 1e-30.. up to 1e30), to show where a failing function goes wrong.
  std::map<std::pair<int, int>, double> band_max;
};

// The error of `r`, the results of `fn` on the inputs `x` (of `dtype`), as
// described at the top of the file.
Accuracy compare(const MathFn& fn, DType dtype, const Array& x, const Array& r, double bound) {
  std::vector<long double> in = to_long_doubles(x), got = to_long_doubles(r);
  double eps = dtype == F32 ? 0x1p-24 : 0x1p-53;
  Accuracy a;
  a.points = in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    long double ref = dtype == F32 ? static_cast<long double>(fn.ref32(static_cast<double>(in[i])))
                                   : fn.ref64(in[i]);
    long double g = got[i];
    if (!std::isfinite(ref) || !std::isfinite(g)) {
      bool same = (std::isnan(ref) && std::isnan(g)) || ref == g;
      // An overflowing result may round to the largest finite value or inf.
      if (!same) ++a.nonfinite_mismatches;
      continue;
    }
    long double floor = fn.trig ? eps * std::max(1.0L, std::fabs(in[i])) : 0.0L;
    if (!fn.trig && std::fabs(ref) < 1e-30L) continue;
    ++a.checked;
    long double diff = std::fabs(g - ref);
    double err = static_cast<double>(diff / std::max(std::fabs(ref), floor));
    if (err > bound) ++a.failures;
    int decade = in[i] == 0 ? -31
                            : std::clamp(static_cast<int>(std::floor(std::log10(std::fabs(in[i])))),
                                         -31, 30);
    double& band = a.band_max[{std::signbit(in[i]) ? -1 : 1, decade}];
    band = std::max(band, err);
    if (err > a.max_err || std::isnan(err)) {
      a.max_err = err, a.worst_err_x = static_cast<double>(in[i]);
      a.worst_got = static_cast<double>(g), a.worst_ref = static_cast<double>(ref);
    }
    if (std::fabs(ref) >= floor) {
      double ulps = static_cast<double>(diff / ulp_of(static_cast<double>(ref), dtype));
      if (ulps > a.max_ulp) a.max_ulp = ulps, a.worst_ulp_x = static_cast<double>(in[i]);
    }
  }
  return a;
}

// Runs adjit.<name> in `dtype` on `values` (rounded to the dtype) and
// measures its error.
Accuracy measure(const MathFn& fn, DType dtype, const std::vector<double>& values, double bound) {
  Shape shape{static_cast<int64_t>(values.size())};
  Array x = from_doubles(values, shape, dtype);
  return compare(fn, dtype, x, run1(unary_module(fn.name, dtype, shape), {x}), bound);
}

void report(const std::string& name, DType dtype, const Accuracy& a, double bound) {
  std::ostringstream line;
  line << std::setprecision(3) << "[accuracy] " << std::setw(8) << std::left << name << " "
       << dtype_name(dtype) << ": max err " << std::setw(9) << a.max_err << " (bound " << bound
       << "), max " << std::setw(7) << a.max_ulp << " ulp at x=" << std::setprecision(9)
       << a.worst_ulp_x << "; worst err at x=" << a.worst_err_x << " got " << a.worst_got
       << " want " << std::setprecision(17) << a.worst_ref << "; " << a.checked << "/" << a.points
       << " points checked";
  if (a.failures) line << ", " << a.failures << " over the bound";
  if (a.nonfinite_mismatches) line << ", " << a.nonfinite_mismatches << " inf/NaN mismatches";
  if (a.failures) {
    line << "\n    max err where it exceeds the bound, by sign and decade of x:";
    int n = 0;
    for (const auto& [key, err] : a.band_max) {
      if (err <= bound) continue;
      if (n++ % 5 == 0) line << "\n     ";
      std::string band = key.second == -31 ? std::string("|x|<1e-30")
                                            : "1e" + std::to_string(key.second) + "..";
      line << std::setprecision(2) << "  " << (key.first < 0 ? "-" : "+") << band << ": " << err;
    }
  }
  std::cout << line.str() << std::endl;
}

void require_accurate(const std::string& name, DType dtype, const Accuracy& a, double bound) {
  report(name, dtype, a, bound);
  INFO(name << " on " << dtype_name(dtype) << ": worst x = " << number(a.worst_err_x) << " got "
            << number(a.worst_got) << " want " << number(a.worst_ref));
  CHECK(a.points >= 100000);
  CHECK(a.checked >= a.points * 9 / 10);
  CHECK(a.nonfinite_mismatches == 0);
  CHECK(a.max_err <= bound);
}

void check_accuracy(const std::string& name, DType dtype) {
  const MathFn& fn = math_fn(name);
  double bound = dtype == F32 ? 5e-7 : 1e-15;
  // The same domains for both: the points are drawn as doubles, which
  // from_doubles rounds to f32 for the f32 case.
  std::vector<double> values = points_for(name);
  require_accurate(name, dtype, measure(fn, dtype, values, bound), bound);
}

}  // namespace

// TAGS apply to the f32 case only.
#define ADJIT_ACCURACY_CASE(NAME, TAGS)                                                        \
  TEST_CASE("accuracy of f32 " NAME " over its range", "[math-accuracy][accuracy-f32]" TAGS) { \
    check_accuracy(NAME, F32);                                                                 \
  }                                                                                            \
  TEST_CASE("accuracy of f64 " NAME " over its range", "[math-accuracy][accuracy-f64]") {      \
    check_accuracy(NAME, F64);                                                                 \
  }

// f32 sin and cos do not use the upstream polynomial, whose argument
// reduction was off by up to 2 (relative) for |x| in the thousands and got
// the sign of small negative arguments wrong.
ADJIT_ACCURACY_CASE("sin", "")
ADJIT_ACCURACY_CASE("cos", "")
ADJIT_ACCURACY_CASE("tanh", "")
ADJIT_ACCURACY_CASE("logistic", "")
ADJIT_ACCURACY_CASE("erf", "")
ADJIT_ACCURACY_CASE("exp", "")
ADJIT_ACCURACY_CASE("expm1", "")
ADJIT_ACCURACY_CASE("log", "")
ADJIT_ACCURACY_CASE("log1p", "")
ADJIT_ACCURACY_CASE("sqrt", "")
ADJIT_ACCURACY_CASE("rsqrt", "")
ADJIT_ACCURACY_CASE("tan", "")
ADJIT_ACCURACY_CASE("asin", "")
ADJIT_ACCURACY_CASE("acos", "")
ADJIT_ACCURACY_CASE("atan", "")
ADJIT_ACCURACY_CASE("sinh", "")
ADJIT_ACCURACY_CASE("cosh", "")
ADJIT_ACCURACY_CASE("asinh", "")
ADJIT_ACCURACY_CASE("acosh", "")
ADJIT_ACCURACY_CASE("atanh", "")
ADJIT_ACCURACY_CASE("cbrt", "")

// A module with more than 64 vector sin and cos (ApproximateMath.cpp:
// kMaxInlinedSinCos) calls one function per kind and vector type instead of
// inlining each: the same code, so the same accuracy, with infinities and
// NaN in the mix for the branch to libm.
TEST_CASE("f32 sin and cos called, not inlined, in a module of many", "[math-accuracy]") {
  constexpr int64_t kSlices = 64;
  std::vector<double> values = points_for("sin");
  REQUIRE(values.size() % kSlices == 0);
  const int64_t width = static_cast<int64_t>(values.size()) / kSlices;
  for (int64_t slice = 0; slice < kSlices; ++slice) {
    const double special[] = {INFINITY, -INFINITY, NAN};
    values[slice * width + 7] = special[slice % 3];
  }
  auto f = adjit::jit(
      [width](Tensor x) {
        std::vector<Tensor> sines, cosines;
        for (int64_t i = 0; i < kSlices; ++i) {
          Tensor row = slice(x, {i, 0}, {i + 1, width});
          sines.push_back(sin(row));
          cosines.push_back(cos(row));
        }
        return std::make_pair(concat(sines, 0), concat(cosines, 0));
      },
      {.name = "many_sin_cos"});
  Array x = from_doubles(values, {kSlices, width}, F32);
  std::string llvm = f.lower(x).ir("llvm");
  CHECK(llvm.find("no_inline") != std::string::npos);
  CHECK(llvm.find("call @adjit_sinf_v") != std::string::npos);
  CHECK(llvm.find("call @adjit_cosf_v") != std::string::npos);
  auto [sines, cosines] = f(x);
  const double bound = 5e-7;
  require_accurate("sin", F32, compare(math_fn("sin"), F32, x, sines, bound), bound);
  require_accurate("cos", F32, compare(math_fn("cos"), F32, x, cosines, bound), bound);
}

// log on subnormal inputs (1.4e-45 .. 1.2e-38), measured on its own so that
// the main log case keeps measuring the normal range.
// (Regression: the f32 polynomial returned log(FLT_MIN) for every subnormal.)
TEST_CASE("accuracy of f32 log on subnormal inputs", "[math-accuracy][accuracy-f32]") {
  std::vector<double> values = Points(7).log_spaced(1.4e-45, 1.17e-38, 16384, false).take();
  Accuracy a = measure(math_fn("log"), F32, values, 5e-7);
  report("log(sub)", F32, a, 5e-7);
  INFO("worst x = " << number(a.worst_err_x) << " got " << number(a.worst_got) << " want "
                    << number(a.worst_ref));
  CHECK(a.max_err <= 5e-7);
}

// tanh and logistic of one operand in one loop share one exponential
// (adjit-approximate-math: from a table on AVX-512, from its bits
// elsewhere), an approximation other than either op's own, and, tuned for
// a CPU that divides slowly, one division. A select keeps both in the loop
// and returns one of them: all of tanh, then all of logistic. Both
// tunings run on any x86 host (tuning never changes which instructions
// exist).
TEST_CASE("accuracy of f32 tanh and logistic of one operand", "[math-accuracy][accuracy-f32]") {
  std::vector<double> values = points_for("tanh");
  values.insert(values.end(), {0.0, -0.0, 1e-40, -1e-40, 87.5, -87.5, 89, -89, 100, -100, 103.5,
                               -103.5, 110, -110, 1e30, -1e30});
  Shape shape{static_cast<int64_t>(values.size())};
  TensorType t{F32, shape}, mask{I1, shape};
  std::string mlir = func_text({t, mask}, {t},
                               "  %t = adjit.tanh %a0 : " + tensor_type(t) +
                                   "\n  %s = adjit.logistic %a0 : " + tensor_type(t) +
                                   "\n  %r0 = adjit.select %a1, %t, %s : " + tensor_type(mask) +
                                   ", " + tensor_type(t) + "\n");
  Array x = from_doubles(values, shape, F32);
  for (const char* tune_cpu : {"znver4", "sapphirerapids"}) {
    INFO("tuned for " << tune_cpu);
    CompileOptions options;
    options.tune_cpu = tune_cpu;
    Executable executable = Program::parse(mlir, "<tanh and logistic>", options).compile();
    for (bool tanh : {true, false}) {
      std::string name = std::string(tanh ? "tanh" : "logistic") + " (shared, " + tune_cpu + ")";
      Array choice = from_doubles(std::vector<double>(values.size(), tanh), shape, I1);
      Array result = executable.run("f", {x, choice}).at(0);
      require_accurate(name, F32, compare(math_fn(tanh ? "tanh" : "logistic"), F32, x, result, 5e-7),
                       5e-7);
    }
  }
}

// The odd functions give -0 for -0 (as libm does), on every lane of a vector
// and in the scalar tail: the polynomials that work on |x| put the sign back.
TEST_CASE("odd functions keep the sign of zero", "[math-accuracy]") {
  for (DType dtype : {F32, F64})
    for (const char* name : {"sin", "tanh", "erf", "expm1", "log1p"}) {
      std::vector<double> values(37, 0.0);
      for (size_t i = 0; i < values.size(); i += 2) values[i] = -0.0;
      Shape shape{static_cast<int64_t>(values.size())};
      Array x = from_doubles(values, shape, dtype);
      std::vector<long double> got = to_long_doubles(run1(unary_module(name, dtype, shape), {x}));
      for (size_t i = 0; i < values.size(); ++i) {
        INFO(name << " on " << dtype_name(dtype) << " at " << i);
        CHECK(got[i] == 0);
        CHECK(std::signbit(got[i]) == std::signbit(values[i]));
      }
    }
}

// gelu(x) = x Phi(x) has x's sign also where it rounds to zero, as JAX's:
// at -0, at tiny negative x, and in the tanh form below about -9, where
// 1 + tanh is 0 (0.5 x + 0.5 x tanh gave +0 for each). Every lane of a
// vector and the scalar tail.
TEST_CASE("gelu keeps the sign of x where it rounds to zero", "[math-accuracy]") {
  std::vector<double> pattern{-0.0, 0.0, -1e-30, -1e-45, -20, -100, 1e-30, -1e30};
  std::vector<double> values;
  while (values.size() < 37) values.push_back(pattern[values.size() % pattern.size()]);
  Shape shape{static_cast<int64_t>(values.size())};
  for (DType dtype : {F32, F64})
    for (bool approximate : {true, false}) {
      auto value = adjit::jit([approximate](Tensor t) { return gelu(t, approximate); });
      Array x = from_doubles(values, shape, dtype);
      std::vector<long double> in = to_long_doubles(x), got = to_long_doubles(value(x));
      for (size_t i = 0; i < values.size(); ++i) {
        INFO(dtype_name(dtype) << (approximate ? " tanh form" : " exact") << " at " << i
                               << ", x = " << static_cast<double>(in[i]) << ": "
                               << static_cast<double>(got[i]));
        CHECK(std::signbit(got[i]) == std::signbit(in[i]));
        if (in[i] == 0) CHECK(got[i] == 0);
      }
    }
}

// The exact gelu, x Phi(x), on f32 and f64 takes Phi from erfc, so that
// the negative tail keeps its digits: from 1 + erf(x / sqrt(2)) all of them
// were lost below x = -5.4 in f32 (0 instead of -1.4e-7 there) and -8.3 in
// f64. Its derivative, Phi(x) + x phi(x), alike. The bound grows with
// x^2 / 2, the exponent whose rounding the result inherits.
TEST_CASE("the gelu of f16 and bf16 is rounded once from f32, in either form", "[math-accuracy]") {
  // In f16 1 + erf(x / sqrt 2) cancels: gelu(-4) was 0, not -1.27e-4; the
  // tanh form rounded after each op: bf16 gelu(-1) was -0.16015625.
  for (bool approximate : {false, true}) {
    auto value = adjit::jit([approximate](Tensor t) { return gelu(t, approximate); });
    auto derivative = adjit::grad([approximate](Tensor t) { return sum(gelu(t, approximate)); });
    // The tanh form's 1 + tanh cancels in f32 too below -3: not its tail.
    std::vector<double> points = approximate
                                     ? std::vector<double>{-3, -1.75, -1, -0.25, 0.5, 2, 5}
                                     : std::vector<double>{-6, -4, -3.25, -3, -1, -0.25, 0.5, 2, 5};
    for (DType dtype : {F16, BF16}) {
      Array x = from_doubles(points, {static_cast<int64_t>(points.size())}, dtype);
      std::vector<long double> in = to_long_doubles(x), got = to_long_doubles(value(x)),
                               slope = to_long_doubles(derivative(x));
      // Half an ulp of the format, and a little for f32's own error; f16's
      // subnormals (gelu(-6) = -5.9e-9) are 6e-8 apart.
      double ulp = dtype == F16 ? 0x1p-10 : 0x1p-7, floor = dtype == F16 ? 0x1p-25 : 0;
      for (size_t i = 0; i < in.size(); ++i) {
        INFO(dtype_name(dtype) << (approximate ? " tanh form" : " exact") << " x = "
                               << static_cast<double>(in[i]));
        long double want, want_slope;
        if (approximate) {
          long double k = std::sqrt(2 / M_PIl), c = 0.044715L;
          long double t = std::tanh(k * (in[i] + c * in[i] * in[i] * in[i]));
          want = 0.5L * in[i] * (1 + t);
          want_slope = 0.5L * (1 + t) + 0.5L * in[i] * (1 - t * t) * k * (1 + 3 * c * in[i] * in[i]);
        } else {
          long double cdf = 0.5L * std::erfc(-in[i] / std::sqrt(2.0L));
          want = in[i] * cdf;
          want_slope = cdf + in[i] * std::exp(-in[i] * in[i] / 2) / std::sqrt(2 * M_PIl);
        }
        CHECK(std::fabs(static_cast<double>(got[i] - want)) <=
              0.51 * ulp * std::fabs(static_cast<double>(want)) + floor);
        CHECK(std::fabs(static_cast<double>(slope[i] - want_slope)) <=
              0.51 * ulp * std::fabs(static_cast<double>(want_slope)) + floor);
      }
    }
  }
}

TEST_CASE("accuracy of the exact gelu and its derivative", "[math-accuracy]") {
  for (DType dtype : {F32, F64}) {
    bool f32 = dtype == F32;
    std::vector<double> values = Points(11).uniform(f32 ? -13 : -37, 10, 200000)
                                     .uniform(-1, 1, 20000).log_spaced(1e-30, 1, 20000, true)
                                     .take();
    Shape shape{static_cast<int64_t>(values.size())};
    Array x = from_doubles(values, shape, dtype);
    std::vector<long double> in = to_long_doubles(x);
    auto value = adjit::jit([](Tensor t) { return gelu(t, false); });
    auto derivative = adjit::grad([](Tensor t) { return sum(gelu(t, false)); });
    std::vector<long double> got = to_long_doubles(value(x));
    std::vector<long double> slope = to_long_doubles(derivative(x));
    double worst_value = 0, worst_slope = 0, worst_value_x = 0, worst_slope_x = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      long double cdf = 0.5L * std::erfc(-in[i] / std::sqrt(2.0L));
      long double want = in[i] * cdf;
      long double want_slope = cdf + in[i] * std::exp(-in[i] * in[i] / 2) / std::sqrt(2 * M_PIl);
      double exponent = static_cast<double>(in[i] * in[i] / 2);
      double bound = f32 ? 5e-7 + 8e-8 * exponent : 2e-15 + 2.5e-16 * exponent;
      if (std::fabs(want) >= (f32 ? 1e-30L : 1e-300L)) {
        double err = static_cast<double>(std::fabs(got[i] - want) / std::fabs(want)) / bound;
        if (err > worst_value) worst_value = err, worst_value_x = static_cast<double>(in[i]);
      }
      // Relative to 0.25 at least: between x = -2 and 0 the derivative's two
      // terms, each up to 0.3, cancel (it crosses 0 near x = -0.75), so Phi's
      // error counts up to twice there.
      double err = static_cast<double>(std::fabs(slope[i] - want_slope) /
                                       std::max(std::fabs(want_slope), 0.25L)) / (2 * bound);
      if (err > worst_slope) worst_slope = err, worst_slope_x = static_cast<double>(in[i]);
    }
    INFO(dtype_name(dtype) << ": worst value at x = " << worst_value_x << ", derivative at x = "
                           << worst_slope_x << " (errors over their bounds)");
    CHECK(worst_value <= 1);
    CHECK(worst_slope <= 1);
  }
}

// f64 transcendentals and f32 pow call glibc's vector math library, a
// register of lanes per call, where this process has it
// (JitOptions::vector_math_library): within 4 ulp of libm's one call per
// element, at every length (whole registers, and a tail padded to one),
// with libm's special values.
namespace {

template <int operands = 1, class F>
void check_vector_math_library(const char* name, DType dtype, F f, double lo, double hi) {
  auto vector_math = adjit::jit(f, {.name = "vector_math"});
  auto libm = adjit::jit(f, {.name = "libm", .vector_math_library = false});
  const double inf = INFINITY;
  const std::vector<double> specials{NAN, inf, -inf, 0.0, -0.0, 1e-310, -1e-310, 1e300, -1e300,
                                     710.0, -746.0, 1.0, -1.0, 0.5};
  for (int64_t length : {1, 7, 8, 13, 16, 37, 100}) {
    std::vector<Array> args;
    for (int k = 0; k < operands; ++k) {
      std::vector<double> values = uniform_values(length, lo, hi, 7 + k);
      for (int64_t i = 0; i < length && i < static_cast<int64_t>(specials.size()); ++i)
        values[i * 7 % length] = specials[(i + 3 * k) % specials.size()];
      args.push_back(from_doubles(values, {length}, dtype));
    }
    std::vector<long double> got, want;
    if constexpr (operands == 1) {
      got = to_long_doubles(vector_math(args[0]));
      want = to_long_doubles(libm(args[0]));
    } else {
      got = to_long_doubles(vector_math(args[0], args[1]));
      want = to_long_doubles(libm(args[0], args[1]));
    }
    for (int64_t i = 0; i < length; ++i) {
      INFO(name << " on " << dtype_name(dtype) << "[" << length << "] at " << i << ": got "
                << number(got[i]) << ", libm " << number(want[i]));
      if (std::isnan(want[i]) || std::isinf(want[i]) || want[i] == 0) {
        CHECK((std::isnan(got[i]) ? std::isnan(want[i]) : got[i] == want[i]));
        // A NaN's sign means nothing (libmvec's acos gives -NaN for NaN).
        if (!std::isnan(want[i])) CHECK(std::signbit(got[i]) == std::signbit(want[i]));
      } else {
        CHECK(std::fabs(static_cast<double>(got[i] - want[i])) <=
              4 * ulp_of(static_cast<double>(want[i]), dtype));
      }
    }
  }
  // On x86-64 glibc 2.35 or later the library's variants are called.
#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
  Array x = from_doubles(uniform_values(64, lo, hi, 1), {64}, dtype);
  auto llvm_of = [&](const auto& jitted) {
    if constexpr (operands == 1)
      return jitted.lower(x).ir("llvm");
    else
      return jitted.lower(x, x).ir("llvm");
  };
  CHECK(contains(llvm_of(vector_math), "@_ZGV"));
  CHECK_FALSE(contains(llvm_of(libm), "@_ZGV"));
#endif
}

}  // namespace

TEST_CASE("f64 math through the vector math library agrees with libm", "[math-accuracy]") {
  check_vector_math_library("exp", F64, [](Tensor x) { return exp(x); }, -700, 700);
  check_vector_math_library("expm1", F64, [](Tensor x) { return expm1(x); }, -40, 40);
  check_vector_math_library("log", F64, [](Tensor x) { return log(x); }, 1e-300, 1e300);
  check_vector_math_library("log1p", F64, [](Tensor x) { return log1p(x); }, -0.999, 1e10);
  check_vector_math_library("tanh", F64, [](Tensor x) { return tanh(x); }, -20, 20);
  check_vector_math_library("erf", F64, [](Tensor x) { return erf(x); }, -6, 6);
  check_vector_math_library("sin", F64, [](Tensor x) { return sin(x); }, -1e6, 1e6);
  check_vector_math_library("cos", F64, [](Tensor x) { return cos(x); }, -100, 100);
  check_vector_math_library<2>("pow", F64, [](Tensor x, Tensor y) { return pow(x, y); }, 0, 10);
  check_vector_math_library<2>("pow", F32, [](Tensor x, Tensor y) { return pow(x, y); }, 0, 10);
}

// The functions without an f32 polynomial call libmvec in f32 as in f64.
TEST_CASE("trigonometric and hyperbolic math through the vector math library agrees with libm",
          "[math-accuracy]") {
  for (DType dtype : {F32, F64}) {
    check_vector_math_library("tan", dtype, [](Tensor x) { return tan(x); }, -100, 100);
    check_vector_math_library("asin", dtype, [](Tensor x) { return asin(x); }, -1, 1);
    check_vector_math_library("acos", dtype, [](Tensor x) { return acos(x); }, -1, 1);
    check_vector_math_library("atan", dtype, [](Tensor x) { return atan(x); }, -1e3, 1e3);
    check_vector_math_library("sinh", dtype, [](Tensor x) { return sinh(x); }, -80, 80);
    check_vector_math_library("cosh", dtype, [](Tensor x) { return cosh(x); }, -80, 80);
    check_vector_math_library("asinh", dtype, [](Tensor x) { return asinh(x); }, -1e6, 1e6);
    check_vector_math_library("acosh", dtype, [](Tensor x) { return acosh(x); }, 1, 1e6);
    check_vector_math_library("atanh", dtype, [](Tensor x) { return atanh(x); }, -1, 1);
    check_vector_math_library("cbrt", dtype, [](Tensor x) { return cbrt(x); }, -1e6, 1e6);
    check_vector_math_library<2>("atan2", dtype, [](Tensor y, Tensor x) { return atan2(y, x); },
                                 -10, 10);
  }
}
