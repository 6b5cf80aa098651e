// Functions of square matrices (jnp.linalg.matrix_power,
// jax.scipy.linalg.expm), composed of matmuls and solves as JAX composes
// them, batched over leading dimensions; their gradients are those of the
// composition.
#include "MatrixChecks.h"
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/ControlFlow.h"
#include "adjit/Tensor.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

namespace adjit::linalg {

using detail::check_square;
using detail::Recorder;

namespace {

// Identity matrices [n, n] of `dtype`, which broadcast against a batch.
Tensor identity(int64_t n, DType dtype, SourceLocation loc) { return eye(n, n, 0, dtype, loc); }

// The numerator and denominator terms (U odd, V even) of a diagonal Padé
// approximant to exp, U + V over V - U (Higham 2005, as scipy and JAX).
struct PadeTerms {
  Tensor u, v;
};

// The even powers of the scaled matrix that the approximants share.
struct Powers {
  Tensor a, a2, a4, a6;
};

// U = A (sum of b[odd] A^(odd - 1)), V = sum of b[even] A^even, for the
// approximants of degree 3, 5, 7 and 9 (b's length degree + 1).
PadeTerms low_degree(const Powers& p, const std::vector<double>& b, SourceLocation loc) {
  int64_t n = p.a.shape().back();
  std::vector<Tensor> even{identity(n, p.a.dtype(), loc), p.a2, p.a4, p.a6};
  if (b.size() > 8) even.push_back(matmul(p.a6, p.a2, loc));
  Tensor odd = b[1] * even[0], plain = b[0] * even[0];
  for (size_t k = 1; 2 * k < b.size(); ++k) {
    odd = odd + b[2 * k + 1] * even[k];
    plain = plain + b[2 * k] * even[k];
  }
  return {matmul(p.a, odd, loc), plain};
}

// Degree 13 factors its high powers through A^6.
PadeTerms degree13(const Powers& p, SourceLocation loc) {
  const double b[] = {64764752532480000., 32382376266240000., 7771770303897600.,
                      1187353796428800.,  129060195264000.,   10559470521600.,
                      670442572800.,      33522128640.,       1323241920.,
                      40840800.,          960960.,            16380.,
                      182.,               1.};
  int64_t n = p.a.shape().back();
  Tensor i = identity(n, p.a.dtype(), loc);
  Tensor high_odd = matmul(p.a6, b[13] * p.a6 + b[11] * p.a4 + b[9] * p.a2, loc);
  Tensor u = matmul(p.a, high_odd + b[7] * p.a6 + b[5] * p.a4 + b[3] * p.a2 + b[1] * i, loc);
  Tensor high_even = matmul(p.a6, b[12] * p.a6 + b[10] * p.a4 + b[8] * p.a2, loc);
  Tensor v = high_even + b[6] * p.a6 + b[4] * p.a4 + b[2] * p.a2 + b[0] * i;
  return {u, v};
}

}  // namespace

Tensor matrix_power(const Tensor& a, int64_t n, SourceLocation loc) {
  Recorder r("matrix_power", loc, {&a});
  check_square(r, a);
  detail::AtUserLine at_user(loc);
  int64_t size = a.shape().back();
  if (n == 0) return broadcast_to(identity(size, a.dtype(), loc), a.shape(), loc);
  // Negative powers are those of the inverse (in a floating-point dtype).
  Tensor base = n < 0 ? inv(a, loc) : a;
  uint64_t remaining = n < 0 ? -static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  // Binary powering: log2(n) squarings, as numpy's.
  std::optional<Tensor> result;
  Tensor power = base;
  while (true) {
    if (remaining & 1) result = result ? matmul(*result, power, loc) : power;
    remaining >>= 1;
    if (!remaining) break;
    power = matmul(power, power, loc);
  }
  return *result;
}

Tensor expm(const Tensor& a, int max_squarings, SourceLocation loc) {
  Recorder r("expm", loc, {&a});
  check_square(r, a);
  if (max_squarings < 0)
    r.fail(fmt::format("max_squarings = {} must not be negative", max_squarings));
  detail::AtUserLine at_user(loc);
  DType result = detail::inexact(a.dtype());
  DType dtype = result == DType::f64 ? DType::f64 : DType::f32;
  Tensor x = cast(a, dtype, loc);
  if (num_elements(a.shape()) == 0) return cast(x, result, loc);  // 0 x 0, or an empty batch
  bool wide = dtype == DType::f64;
  // Scaling: A / 2^s with s = max(0, floor(log2(|A|_1 / maxnorm))) per
  // matrix, and the approximant's degree from |A|_1 (JAX's thresholds).
  Tensor norm1 = norm(x, 1.0, {-2, -1}, /*keepdims=*/true, loc);
  double max_norm = wide ? 5.371920351148152 : 3.925724783138660;
  Tensor squarings = maximum(floor(log2(norm1 / max_norm, loc), loc), 0.0, loc);
  Powers p;
  p.a = x / pow(full({}, 2.0, dtype, loc), squarings, loc);
  p.a2 = matmul(p.a, p.a, loc);
  p.a4 = matmul(p.a2, p.a2, loc);
  p.a6 = matmul(p.a4, p.a2, loc);
  std::vector<PadeTerms> terms{
      low_degree(p, {120., 60., 12., 1.}, loc),
      low_degree(p, {30240., 15120., 3360., 420., 30., 1.}, loc),
      low_degree(p, {17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.}, loc)};
  std::vector<double> thresholds{4.258730016922831e-001, 1.880152677804762e+000};
  if (wide) {
    terms.push_back(low_degree(p,
                               {17643225600., 8821612800., 2075673600., 302702400., 30270240.,
                                2162160., 110880., 3960., 90., 1.},
                               loc));
    terms.push_back(degree13(p, loc));
    thresholds = {1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                  2.097847961257068e+000};
  }
  // Each matrix's degree: the first whose threshold its norm is below.
  PadeTerms chosen = terms.back();
  for (size_t k = thresholds.size(); k-- > 0;) {
    Tensor below = norm1 < thresholds[k];
    chosen = {where(below, terms[k].u, chosen.u, loc), where(below, terms[k].v, chosen.v, loc)};
  }
  Tensor exp_scaled = solve(chosen.v - chosen.u, chosen.u + chosen.v, loc);
  // Squaring undoes the scaling: s squarings per matrix, as many steps as
  // the batch's largest s (none for matrices of small norm).
  Tensor steps =
      cast(minimum(max(squarings, {}, false, loc), static_cast<double>(max_squarings), loc),
           DType::i32, loc);
  Tensor squared = fori_loop(
      0, steps,
      [&](const Tensor& step, const Tensor& y) {
        return where(cast(step, dtype, loc) < squarings, matmul(y, y, loc), y, loc);
      },
      exp_scaled, {}, loc);
  // More squarings than allowed: NaN, as JAX's.
  return cast(where(squarings > static_cast<double>(max_squarings), NAN, squared, loc), result,
              loc);
}

}  // namespace adjit::linalg
