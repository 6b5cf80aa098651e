// Linear algebra (jnp.linalg.cholesky, solve, inv, slogdet, det, eigh,
// eigvalsh, qr, svd, svdvals, matrix_rank, pinv, lstsq, norm;
// jax.scipy.linalg's solve_triangular and cho_solve): dtypes, vectors and
// batch broadcasting here; each factorization is one adjit op
// (adjit.cholesky, adjit.triangular_solve, adjit.solve, adjit.slogdet,
// adjit.eigh, adjit.qr, adjit.svd) on f32 or f64 batches of matrices. pinv
// (and lstsq on it) is svd with its own derivative rules in both modes.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"
#include "adjit/detail/Transforms.h"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <type_traits>

namespace adjit {

using detail::describe;
using detail::Recorder;

namespace {

namespace ir = mlir::adjit;

// Integers and bools solve in f32, as jnp.linalg's; f16 and bf16 are
// widened for the factorization and rounded back after it.
DType solver_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

void check_square(Recorder& r, const Tensor& a) {
  int rank = a.rank();
  if (rank < 2 || a.shape()[rank - 1] != a.shape()[rank - 2])
    r.fail(fmt::format("needs a square matrix or a batch of them ([..., n, n]), got {}",
                       describe(a)));
}

void check_matrices(Recorder& r, const Tensor& a) {
  if (a.rank() < 2)
    r.fail(fmt::format("needs a matrix or a batch of them ([..., m, n]), got {}", describe(a)));
}

// a and b of a system a x = b, broadcast to common batch dimensions, in the
// solver's dtype, with b as a matrix of right-hand sides; and how to shape
// the solution back.
struct System {
  Tensor a, b;
  DType result;
  Shape result_shape;
};

// b is a vector where its rank is `vector_rank`, else matrices.
System system(Recorder& r, const Tensor& a, const Tensor& b, int vector_rank) {
  check_square(r, a);
  bool b_is_vector = b.rank() == vector_rank;
  int64_t n = a.shape().back();
  if (b.rank() < 1 || (!b_is_vector && b.rank() < 2))
    r.fail(fmt::format("needs right-hand sides b as vectors [..., n] of rank {} or matrices "
                       "[..., n, k], got {} for a {}",
                       vector_rank, describe(b), describe(a)));
  int64_t rows = b.shape()[b.rank() - (b_is_vector ? 1 : 2)];
  if (rows != n)
    r.fail(fmt::format("b {} has {} rows but a {} is {}x{}", describe(b), rows, describe(a), n,
                       n));
  Shape a_batch(a.shape().begin(), a.shape().end() - 2);
  Shape b_batch(b.shape().begin(), b.shape().end() - (b_is_vector ? 1 : 2));
  auto batch = detail::broadcast_shapes(a_batch, b_batch);
  if (!batch)
    r.fail(fmt::format("batch dimensions of a {} and b {} cannot be broadcast together",
                       describe(a), describe(b)));
  DType result = detail::inexact(detail::promote(a.dtype(), b.dtype()));
  DType solver = solver_dtype(result);
  int64_t columns = b_is_vector ? 1 : b.shape().back();
  Shape matrix = *batch, rhs = *batch, result_shape = *batch;
  matrix.insert(matrix.end(), {n, n});
  rhs.insert(rhs.end(), {n, columns});
  result_shape.push_back(n);
  if (!b_is_vector) result_shape.push_back(columns);
  Tensor b_matrix = b_is_vector ? r.reshape(b, [&] {
    Shape s = b.shape();
    s.push_back(1);
    return s;
  }())
                                : b;
  return {r.broadcast(r.convert(a, solver), matrix),
          r.broadcast(r.convert(b_matrix, solver), rhs), result, result_shape};
}

Tensor solution(Recorder& r, const System& s, const Tensor& x) {
  return r.convert(r.reshape(x, s.result_shape), s.result);
}

// numpy.finfo(dtype).eps of a floating-point dtype.
double machine_epsilon(DType dtype) {
  return dtype == DType::f64 ? 0x1p-52 : dtype == DType::f32 ? 0x1p-23
       : dtype == DType::f16 ? 0x1p-10 : 0x1p-7;
}

// x with its last two axes swapped: each matrix's transpose.
Tensor transposed(const Tensor& x, SourceLocation loc) {
  std::vector<int> perm(x.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[x.rank() - 1], perm[x.rank() - 2]);
  return transpose(x, perm, loc);
}

}  // namespace

namespace linalg {

Tensor cholesky(const Tensor& a, SourceLocation loc) {
  Recorder r("cholesky", loc, {&a});
  check_square(r, a);
  DType result = detail::inexact(a.dtype());
  Tensor x = r.convert(a, solver_dtype(result));
  Tensor l = r.emit<ir::CholeskyOp>(r.value(x).getType(), r.value(x));
  return r.convert(l, result);
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a,
                        bool unit_diagonal, SourceLocation loc) {
  Recorder r("triangular_solve", loc, {&a, &b});
  System s = system(r, a, b, /*vector_rank=*/a.rank() - 1);
  Tensor x = r.emit<ir::TriangularSolveOp>(r.value(s.b).getType(), r.value(s.a), r.value(s.b),
                                           lower, transpose_a, unit_diagonal);
  return solution(r, s, x);
}

Tensor cho_solve(const Tensor& l, const Tensor& b, SourceLocation loc) {
  detail::AtUserLine at_user(loc);
  Tensor y = triangular_solve(l, b, /*lower=*/true, false, false, loc);
  return triangular_solve(l, y, /*lower=*/true, /*transpose_a=*/true, false, loc);
}

Tensor solve(const Tensor& a, const Tensor& b, SourceLocation loc) {
  Recorder r("solve", loc, {&a, &b});
  System s = system(r, a, b, /*vector_rank=*/1);
  Tensor x = r.emit<ir::SolveOp>(r.value(s.b).getType(), r.value(s.a), r.value(s.b));
  return solution(r, s, x);
}

Tensor inv(const Tensor& a, SourceLocation loc) {
  Recorder r("inv", loc, {&a});
  check_square(r, a);
  detail::AtUserLine at_user(loc);
  int64_t n = a.shape().back();
  Tensor identity = cast(adjit::equal(reshape(arange(n, DType::i32, loc), {n, 1}, loc),
                               arange(n, DType::i32, loc), loc),
                         detail::inexact(a.dtype()), loc);
  return solve(a, broadcast_to(identity, a.shape(), loc), loc);
}

namespace {
// The two results of the one-operand op OpTy (slogdet, eigh, qr) on the
// matrices a, square ones unless OpTy is qr, in a's dtype; errors name
// `op_name`, the user's op.
template <class OpTy>
std::pair<Tensor, Tensor> two_results(const char* op_name, const Tensor& a, SourceLocation loc) {
  Recorder r(op_name, loc, {&a});
  if constexpr (std::is_same_v<OpTy, ir::QrOp>)
    check_matrices(r, a);
  else
    check_square(r, a);
  DType result = detail::inexact(a.dtype());
  Tensor x = r.convert(a, solver_dtype(result));
  auto op = r.builder().create<OpTy>(r.location(), r.value(x));
  return {r.convert(r.trace().wrap(op->getResult(0)), result),
          r.convert(r.trace().wrap(op->getResult(1)), result)};
}
}  // namespace

SlogdetResult slogdet(const Tensor& a, SourceLocation loc) {
  auto [sign, logabsdet] = two_results<ir::SlogdetOp>("slogdet", a, loc);
  return {sign, logabsdet};
}

Tensor det(const Tensor& a, SourceLocation loc) {
  detail::AtUserLine at_user(loc);
  auto [sign, logabsdet] = slogdet(a, loc);
  return sign * exp(logabsdet, loc);
}

EighResult eigh(const Tensor& a, SourceLocation loc) {
  auto [eigenvalues, eigenvectors] = two_results<ir::EighOp>("eigh", a, loc);
  return {eigenvalues, eigenvectors};
}

Tensor eigvalsh(const Tensor& a, SourceLocation loc) {
  return two_results<ir::EighOp>("eigvalsh", a, loc).first;
}

SvdResult svd(const Tensor& a, SourceLocation loc) {
  Recorder r("svd", loc, {&a});
  check_matrices(r, a);
  DType result = detail::inexact(a.dtype());
  Tensor x = r.convert(a, solver_dtype(result));
  auto op = r.builder().create<ir::SvdOp>(r.location(), r.value(x));
  auto wrapped = [&](mlir::Value v) { return r.convert(r.trace().wrap(v), result); };
  return {wrapped(op.getU()), wrapped(op.getS()), wrapped(op.getVh())};
}

Tensor svdvals(const Tensor& a, SourceLocation loc) {
  detail::AtUserLine at_user(loc);
  return svd(a, loc).s;
}

Tensor matrix_rank(const Tensor& a, std::optional<double> tol, SourceLocation loc) {
  Recorder r("matrix_rank", loc, {&a});
  check_matrices(r, a);
  if (tol && !(*tol >= 0)) r.fail(fmt::format("tol = {} must not be negative", *tol));
  detail::AtUserLine at_user(loc);
  int64_t m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1];
  Tensor s = stop_gradient(svdvals(a, loc), loc);
  if (std::min(m, n) == 0) return sum(cast(s, DType::i32, loc), {-1}, false, loc);
  DType dtype = s.dtype();
  double eps = machine_epsilon(dtype);
  Tensor threshold = tol ? full({}, *tol, dtype, loc)
                         : max(s, {-1}, true, loc) * (static_cast<double>(std::max(m, n)) * eps);
  return sum(cast(s > threshold, DType::i32, loc), {-1}, false, loc);
}

namespace {
// Which singular values a pseudo-inverse inverts: those above `rtol` times
// the largest (pinv's rule), or with `inclusive` those from it on that are
// not zero (lstsq's, numpy's). The others count as zero.
struct Cutoff {
  double rtol;
  bool inclusive;

  Tensor kept(const Tensor& s, SourceLocation loc) const {
    Tensor bound = max(s, {-1}, true, loc) * rtol;
    return inclusive ? logical_and(s >= bound, s > 0.0, loc) : s > bound;
  }
};

// The pseudo-inverses of x's matrices (f32 or f64, none empty), with the
// derivative of Golub and Pereyra (1973) in both modes, as JAX's pinv: exact
// where the rank does not change, finite at every rank, and differentiable
// again. Differentiating through svd instead would be infinite wherever
// singular values repeat or vanish, as they do at any rank deficiency.
Tensor pseudo_inverse(const Tensor& x, Cutoff cutoff, SourceLocation loc) {
  DType dtype = x.dtype();
  Shape inverse_shape = x.shape();
  std::swap(inverse_shape[x.rank() - 1], inverse_shape[x.rank() - 2]);
  auto forward = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Tensor a = parameter(dtype, x.shape());
    auto [u, s, vh] = svd(a, loc);
    Tensor inverted = where(cutoff.kept(s, loc), s, INFINITY, loc);
    return std::vector<Tensor>{
        matmul(transposed(vh, loc), transposed(u, loc) / expand_dims(inverted, -1, loc), loc)};
  };
  // With a p = pinv(a) of a [m, n]: the cotangent of a for p's g is
  // -p^T g p^T + (I - a p) g^T p p^T + p^T p g^T (I - p a) ...
  auto backward = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Tensor a = parameter(dtype, x.shape());
    Tensor p = parameter(dtype, inverse_shape), g = parameter(dtype, inverse_shape);
    Tensor pt = transposed(p, loc), gt = transposed(g, loc);
    Tensor left = matmul(gt, matmul(p, pt, loc), loc);
    Tensor right = matmul(matmul(pt, p, loc), gt, loc);
    return std::vector<Tensor>{-matmul(pt, matmul(g, pt, loc), loc) + left -
                               matmul(a, matmul(p, left, loc), loc) + right -
                               matmul(matmul(right, p, loc), a, loc)};
  };
  // ... and the tangent of p for a's da: its transpose,
  // -p da p + p p^T da^T (I - a p) + (I - p a) da^T p^T p.
  auto tangent = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Tensor a = parameter(dtype, x.shape());
    Tensor p = parameter(dtype, inverse_shape), da = parameter(dtype, x.shape());
    Tensor pt = transposed(p, loc), dat = transposed(da, loc);
    Tensor left = matmul(matmul(p, pt, loc), dat, loc);
    Tensor right = matmul(dat, matmul(pt, p, loc), loc);
    return std::vector<Tensor>{-matmul(p, matmul(da, p, loc), loc) + left -
                               matmul(matmul(left, a, loc), p, loc) + right -
                               matmul(p, matmul(a, right, loc), loc)};
  };
  detail::TraceBody tangent_rule = tangent;
  return detail::call_with_custom_vjp({x}, forward, backward, loc, &tangent_rule).front();
}
}  // namespace

Tensor pinv(const Tensor& a, std::optional<double> rtol, SourceLocation loc) {
  Recorder r("pinv", loc, {&a});
  check_matrices(r, a);
  if (rtol && !(*rtol >= 0)) r.fail(fmt::format("rtol = {} must not be negative", *rtol));
  detail::AtUserLine at_user(loc);
  DType result = detail::inexact(a.dtype());
  Tensor x = cast(a, solver_dtype(result), loc);
  int64_t m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1];
  Shape inverse_shape = a.shape();
  std::swap(inverse_shape[a.rank() - 1], inverse_shape[a.rank() - 2]);
  if (m == 0 || n == 0) return full(inverse_shape, 0.0, result, loc);
  double cutoff = rtol ? *rtol : 10.0 * static_cast<double>(std::max(m, n)) *
                                     machine_epsilon(x.dtype());
  return cast(pseudo_inverse(x, {cutoff, /*inclusive=*/false}, loc), result, loc);
}

LstsqResult lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond,
                  SourceLocation loc) {
  Recorder r("lstsq", loc, {&a, &b});
  if (a.rank() != 2)
    r.fail(fmt::format("needs a matrix a [m, n], got {}", describe(a)));
  if (b.rank() != 1 && b.rank() != 2)
    r.fail(fmt::format("needs b as a vector [m] or a matrix [m, k], got {}", describe(b)));
  int64_t m = a.shape()[0], n = a.shape()[1];
  if (b.shape()[0] != m)
    r.fail(fmt::format("b {} has {} rows but a {} has {}", describe(b), b.shape()[0],
                       describe(a), m));
  detail::AtUserLine at_user(loc);
  DType result = detail::inexact(detail::promote(a.dtype(), b.dtype()));
  DType solver = solver_dtype(result);
  Tensor x = cast(a, solver, loc);
  Tensor rhs = cast(b.rank() == 1 ? reshape(b, {m, 1}, loc) : b, solver, loc);
  int64_t k = rhs.shape()[1];
  double eps = machine_epsilon(solver);
  Cutoff cutoff{!rcond ? eps * static_cast<double>(std::max(m, n)) : *rcond < 0 ? eps : *rcond,
                /*inclusive=*/true};
  bool empty = std::min(m, n) == 0;
  Tensor solution = empty ? full({n, k}, 0.0, solver, loc)
                          : matmul(pseudo_inverse(x, cutoff, loc), rhs, loc);
  Tensor s = empty ? full({0}, 0.0, solver, loc) : svdvals(x, loc);
  Tensor rank = empty ? full({}, 0, DType::i32, loc)
                      : sum(cast(cutoff.kept(stop_gradient(s, loc), loc), DType::i32, loc), {},
                            false, loc);
  Tensor misfit = rhs - matmul(x, solution, loc);
  Tensor residuals = sum(misfit * misfit, {0}, false, loc);
  if (b.rank() == 1) solution = reshape(solution, {n}, loc);
  return {cast(solution, result, loc), cast(residuals, result, loc), rank, cast(s, result, loc)};
}

namespace {
// A norm's order: a number, a name ("fro", "nuc"), or neither (the default).
struct Order {
  std::optional<double> number;
  std::string name;
  bool is_default() const { return !number && name.empty(); }
  std::string describe() const { return number ? fmt::format("{}", *number) : "'" + name + "'"; }
};

Tensor norm_of(const Tensor& x, const Order& ord, Axes axes, bool keepdims, SourceLocation loc) {
  Recorder r("norm", loc, {&x});
  int rank = x.rank();
  if (axes.empty()) {
    if (!ord.is_default() && rank != 1 && rank != 2)
      r.fail(fmt::format("ord {} needs a vector or a matrix, or one or two axes, got {}",
                         ord.describe(), describe(x)));
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (int& a : axes) a = r.axis(a, rank, x);
  if (axes.size() == 2 && axes[0] == axes[1])
    r.fail(fmt::format("the two axes of a matrix norm are both axis {} of {}", axes[0], describe(x)));
  if (!ord.is_default() && axes.size() > 2)
    r.fail(fmt::format("ord {} needs one or two axes, got {} of {}", ord.describe(), axes.size(),
                       describe(x)));
  detail::AtUserLine at_user(loc);
  Tensor v = is_floating(x.dtype()) ? x : cast(x, DType::f32, loc);
  Tensor magnitude = abs(v, loc);
  if (ord.is_default() || (axes.size() == 1 && ord.number == 2.0) || ord.name == "fro") {
    if (ord.name == "fro" && axes.size() != 2)
      r.fail(fmt::format("ord 'fro' is a matrix norm: it needs two axes, got {}", axes.size()));
    return sqrt(sum(v * v, axes, keepdims, loc), loc);
  }
  if (axes.size() == 1) {
    if (!ord.number)
      r.fail(fmt::format("ord {} is a matrix norm: it needs two axes", ord.describe()));
    double p = *ord.number;
    if (p == INFINITY) return max(magnitude, axes, keepdims, loc);
    if (p == -INFINITY) return min(magnitude, axes, keepdims, loc);
    if (p == 0) return sum(cast(not_equal(v, 0.0, loc), v.dtype(), loc), axes, keepdims, loc);
    if (p == 1) return sum(magnitude, axes, keepdims, loc);
    return pow(sum(pow(magnitude, p, loc), axes, keepdims, loc), 1.0 / p, loc);
  }
  int rows = axes[0], cols = axes[1];
  // The result with the two axes kept as ones, then dropped unless keepdims.
  Shape kept = x.shape();
  kept[rows] = kept[cols] = 1;
  Shape dropped;
  for (int d = 0; d < rank; ++d)
    if (d != rows && d != cols) dropped.push_back(x.shape()[d]);
  auto shaped = [&](const Tensor& t) { return reshape(t, keepdims ? kept : dropped, loc); };
  if (ord.number == 1.0 || ord.number == -1.0 || ord.number == INFINITY ||
      ord.number == -INFINITY) {
    bool columns = std::fabs(*ord.number) == 1;
    Tensor sums = sum(magnitude, {columns ? rows : cols}, true, loc);
    Axes across{columns ? cols : rows};
    return shaped(*ord.number > 0 ? max(sums, across, true, loc) : min(sums, across, true, loc));
  }
  if (ord.number == 2.0 || ord.number == -2.0 || ord.name == "nuc") {
    std::vector<int> perm;
    for (int d = 0; d < rank; ++d)
      if (d != rows && d != cols) perm.push_back(d);
    perm.insert(perm.end(), {rows, cols});
    Tensor s = svdvals(transpose(v, perm, loc), loc);
    Tensor reduced = ord.name == "nuc" ? sum(s, {-1}, false, loc)
                     : *ord.number > 0 ? max(s, {-1}, false, loc)
                                       : min(s, {-1}, false, loc);
    return shaped(reduced);
  }
  r.fail(fmt::format("ord {} is not a matrix norm (numpy's: 'fro', 'nuc', 1, -1, 2, -2, inf, "
                     "-inf)",
                     ord.describe()));
}
}  // namespace

Tensor norm(const Tensor& x, std::optional<double> ord, Axes axes, bool keepdims,
            SourceLocation loc) {
  return norm_of(x, Order{ord, ""}, std::move(axes), keepdims, loc);
}

Tensor norm(const Tensor& x, const std::string& ord, Axes axes, bool keepdims,
            SourceLocation loc) {
  if (ord != "fro" && ord != "nuc") {
    Recorder r("norm", loc, {&x});
    r.fail(fmt::format("ord '{}' is not a norm's name (numpy's: 'fro', 'nuc')", ord));
  }
  return norm_of(x, Order{std::nullopt, ord}, std::move(axes), keepdims, loc);
}

QrResult qr(const Tensor& a, SourceLocation loc) {
  auto [q, r] = two_results<ir::QrOp>("qr", a, loc);
  return {q, r};
}

}  // namespace linalg
}  // namespace adjit
