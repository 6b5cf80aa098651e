// Linear algebra (jnp.linalg.cholesky, solve, inv, slogdet, det, eigh,
// eigvalsh, qr, svd, svdvals, matrix_rank, pinv, lstsq, norm;
// jax.scipy.linalg's solve_triangular, cho_solve, lu, lu_factor and
// lu_solve): dtypes, vectors and batch broadcasting here; each
// factorization is one adjit op (adjit.cholesky, adjit.triangular_solve,
// adjit.solve, adjit.slogdet, adjit.lu, adjit.eigh, adjit.qr, adjit.svd) on
// f32 or f64 batches of matrices. pinv (and lstsq on it) is svd with its
// own derivative rules in both modes, det its value with the adjugate as
// its derivative.
#include "MatrixChecks.h"
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/ControlFlow.h"
#include "adjit/Tensor.h"
#include "adjit/detail/Transforms.h"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <type_traits>

namespace adjit {

using detail::check_matrices;
using detail::check_square;
using detail::describe;
using detail::Recorder;

namespace {

namespace ir = mlir::adjit;

// Integers and bools solve in f32, as jnp.linalg's; f16 and bf16 are
// widened for the factorization and rounded back after it.
DType solver_dtype(DType dtype) { return dtype == DType::f64 ? DType::f64 : DType::f32; }

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

namespace {
// adjit.lu of the f32 or f64 matrices x: the packed factors, the pivots and
// the permutation.
struct Factorization {
  Tensor lu, pivots, permutation;
};
Factorization factor(Recorder& r, const Tensor& x) {
  auto op = r.builder().create<ir::LuOp>(r.location(), r.value(x));
  return {r.trace().wrap(op.getLu()), r.trace().wrap(op.getPivots()),
          r.trace().wrap(op.getPermutation())};
}

// The matrices x [..., m, n] cut to rows [row, row + rows) and columns
// [col, col + cols).
Tensor block(const Tensor& x, int64_t row, int64_t rows, int64_t col, int64_t cols,
             SourceLocation loc) {
  int last = x.rank() - 1;
  Shape starts(x.rank(), 0), limits = x.shape();
  starts[last - 1] = row;
  starts[last] = col;
  limits[last - 1] = row + rows;
  limits[last] = col + cols;
  return slice(x, starts, limits, {}, loc);
}

// The entry (i, j) of each matrix of x: a tensor of x's batch shape.
Tensor entry(const Tensor& x, int64_t i, int64_t j, SourceLocation loc) {
  return reshape(block(x, i, 1, j, 1, loc), Shape(x.shape().begin(), x.shape().end() - 2), loc);
}

// The entries [from, to) along x's last axis.
Tensor along_last(const Tensor& x, int64_t from, int64_t to, SourceLocation loc) {
  Shape starts(x.rank(), 0), limits = x.shape();
  starts.back() = from;
  limits.back() = to;
  return slice(x, starts, limits, {}, loc);
}

// The permutation matrices P whose row i is row permutation[i] of the
// identity (P a is a's rows in that order), for permutations [..., m].
Tensor permutation_matrices(const Tensor& permutation, DType dtype, SourceLocation loc) {
  int64_t m = permutation.shape().back();
  return cast(adjit::equal(expand_dims(permutation, -1, loc), arange(m, DType::i32, loc), loc),
              dtype, loc);
}

// The determinants of 1 x 1, 2 x 2 and 3 x 3 matrices by cofactor
// expansion, as JAX's: exact at singular matrices and for small integers.
Tensor small_determinant(const Tensor& x, SourceLocation loc) {
  auto at = [&](int64_t i, int64_t j) { return entry(x, i, j, loc); };
  switch (x.shape().back()) {
    case 1: return at(0, 0);
    case 2: return at(0, 0) * at(1, 1) - at(0, 1) * at(1, 0);
    default:
      return at(0, 0) * at(1, 1) * at(2, 2) + at(0, 1) * at(1, 2) * at(2, 0) +
             at(0, 2) * at(1, 0) * at(2, 1) - at(0, 2) * at(1, 1) * at(2, 0) -
             at(0, 0) * at(1, 2) * at(2, 1) - at(0, 1) * at(1, 0) * at(2, 2);
  }
}

// The adjugates adj(x) = det(x) x^-1 of matrices of up to 3 x 3 from their
// cofactors: polynomials, exact at every rank and to every order.
Tensor small_adjugate(const Tensor& x, SourceLocation loc) {
  int64_t n = x.shape().back();
  if (n == 1) return ones_like(x, loc);
  auto at = [&](int64_t i, int64_t j) { return entry(x, i % n, j % n, loc); };
  // adj[i][j] is the cofactor of (j, i); for n = 3 the cyclic minors
  // carry their signs.
  auto adjugate_entry = [&](int64_t i, int64_t j) {
    if (n == 2) return (i == j ? 1.0 : -1.0) * at(1 - j, 1 - i);
    return at(j + 1, i + 1) * at(j + 2, i + 2) - at(j + 1, i + 2) * at(j + 2, i + 1);
  };
  std::vector<Tensor> rows;
  int axis = x.rank() - 2;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Tensor> row;
    for (int64_t j = 0; j < n; ++j) row.push_back(adjugate_entry(i, j));
    rows.push_back(stack(row, axis, loc));
  }
  return stack(rows, axis, loc);
}

// The adjugates by LU (JAX's _cofactor_solve with b = I): with P x = L U,
// adj(x) = det(x) U^-1 L^-1 P, where det(x) U^-1 is computed without
// dividing by U's last diagonal entry (it becomes the reciprocal of the
// product of the others, and L^-1 P's other rows are scaled by det(x)):
// exact wherever that entry is the only zero one. Also says, per matrix,
// whether the result is finite (it is not where another is zero).
std::pair<Tensor, Tensor> adjugate_by_lu(const Tensor& x, SourceLocation loc) {
  Recorder r("det", loc, {&x});
  int64_t n = x.shape().back();
  Factorization f = factor(r, x);
  Tensor exchanges = sum(cast(not_equal(f.pivots, arange(n, DType::i32, loc), loc), DType::i32,
                              loc),
                         {-1}, true, loc);
  Tensor sign = 1.0 - 2.0 * cast(exchanges % 2, x.dtype(), loc);
  Tensor partial = cumprod(diagonal(f.lu, 0, -2, -1, loc), -1, false, loc) * sign;
  Tensor determinant = expand_dims(along_last(partial, n - 1, n, loc), -1, loc);
  Tensor before_last = expand_dims(along_last(partial, n - 2, n - 1, loc), -1, loc);
  Tensor last_row = reshape(adjit::equal(arange(n, DType::i32, loc), n - 1, loc), {n, 1}, loc);
  Tensor last_entry = logical_and(last_row, adjit::equal(arange(n, DType::i32, loc), n - 1, loc), loc);
  Tensor u = where(last_entry, 1.0 / before_last, f.lu, loc);
  Tensor y = triangular_solve(u, permutation_matrices(f.permutation, x.dtype(), loc),
                              /*lower=*/true, false, /*unit_diagonal=*/true, loc);
  Tensor adjugate = triangular_solve(u, where(last_row, y, y * determinant, loc),
                                     /*lower=*/false, false, false, loc);
  return {adjugate, all(isfinite(adjugate, loc), {-2, -1}, true, loc)};
}

// The adjugates by the singular value decomposition x = u s vh: adj(x) =
// det(u) det(vh) vh^T diag(the products of the other singular values) u^T,
// right at every rank (one zero singular value leaves a rank-1 adjugate,
// more a zero one). Not differentiated: singular vectors have infinite
// derivatives where singular values repeat.
Tensor adjugate_by_svd(const Tensor& x, SourceLocation loc) {
  auto [u, s, vh] = svd(stop_gradient(x, loc), loc);
  int last = s.rank() - 1;
  int64_t n = s.shape().back();
  // The products before and after each singular value, without dividing.
  Shape none(s.rank(), 0), one(s.rank(), 0);
  one.back() = 1;
  Tensor before = pad(along_last(cumprod(s, last, false, loc), 0, n - 1, loc), one, none, 1.0,
                      {}, loc);
  Tensor after = pad(along_last(cumprod(s, last, /*reverse=*/true, loc), 1, n, loc), none, one,
                     1.0, {}, loc);
  Tensor signs = slogdet(u, loc).sign * slogdet(vh, loc).sign;
  Tensor scaled = transposed(vh, loc) * expand_dims(before * after, -2, loc);
  return expand_dims(expand_dims(signs, -1, loc), -1, loc) * matmul(scaled, transposed(u, loc), loc);
}

// The adjugates of the square matrices x (more than 3 x 3), by LU, or where
// LU meets an early zero pivot (a singular matrix), by the SVD: only then,
// and only for those matrices. Differentiated as it is computed, which is
// right where LU is finite, NaN elsewhere (adjugate_with_derivative).
Tensor adjugate_by_lu_or_svd(const Tensor& x, SourceLocation loc) {
  auto [by_lu, finite] = adjugate_by_lu(x, loc);
  return cond(
      all(finite, {}, false, loc),
      [](const Tensor&, const Tensor& adj, const Tensor&) { return adj; },
      [&](const Tensor& matrices, const Tensor& adj, const Tensor& lu_finite) {
        return where(lu_finite, adj, adjugate_by_svd(matrices, loc), loc);
      },
      x, by_lu, finite);
}

// D[f] = the first-order change of adj(diag(s)) for a change f of
// diag(s): -f_ij q_ij off the diagonal, sum_m q_im f_mm on it, where q_ij
// is the product of the singular values but the i-th and the j-th (0 for
// i = j). No division: exact at every rank. D is its own adjoint.
Tensor diagonal_adjugate_change(const Tensor& s, const Tensor& f, SourceLocation loc) {
  int64_t n = s.shape().back();
  Tensor i = reshape(arange(n, DType::i32, loc), {n, 1, 1}, loc);
  Tensor j = reshape(arange(n, DType::i32, loc), {1, n, 1}, loc);
  Tensor k = reshape(arange(n, DType::i32, loc), {1, 1, n}, loc);
  Tensor left_out = logical_or(adjit::equal(k, i, loc), adjit::equal(k, j, loc), loc);
  Tensor spread = expand_dims(expand_dims(s, -2, loc), -2, loc);  // [..., 1, 1, n]
  Tensor q = prod(where(left_out, 1.0, spread, loc), {-1}, false, loc);
  q = where(adjit::equal(reshape(i, {n, 1}, loc), reshape(j, {1, n}, loc), loc), 0.0, q, loc);
  Tensor on_diagonal = sum(q * expand_dims(diagonal(f, 0, -2, -1, loc), -2, loc), {-1}, false, loc);
  return expand_dims(on_diagonal, -1, loc) * eye(n, n, 0, s.dtype(), loc) - f * q;
}

// The change of adj(x) for a change e of x (or, `adjoint`, the cotangent of
// x for a cotangent e of adj(x)) from x's SVD x = u diag(s) vh: adj(x) =
// c vh^T adj(diag(s)) u^T with c = det(u) det(vh), so the change is
// c vh^T D[u^T e vh^T] u^T (the cotangent c u D[vh e u] vh). The SVD is
// differentiated: a third derivative is right where singular values are
// distinct, infinite or NaN where they repeat.
Tensor adjugate_change_by_svd(const Tensor& x, const Tensor& e, bool adjoint, SourceLocation loc) {
  auto [u, s, vh] = svd(x, loc);
  Tensor c = expand_dims(expand_dims(slogdet(u, loc).sign * slogdet(vh, loc).sign, -1, loc), -1, loc);
  Tensor ut = transposed(u, loc), v = transposed(vh, loc);
  if (adjoint) return c * matmul(u, matmul(diagonal_adjugate_change(s, matmul(vh, matmul(e, u, loc), loc), loc), vh, loc), loc);
  return c * matmul(v, matmul(diagonal_adjugate_change(s, matmul(ut, matmul(e, v, loc), loc), loc), ut, loc), loc);
}

// The change of adj(x) for a change e (or, `adjoint`, x's cotangent for
// adj(x)'s cotangent e), given adj = adj(x). Where det(x) != 0, adj(x) = det(x) x^-1 gives
// (tr(adj e) adj - adj e adj) / det (its adjoint: (<e, adj> adj^T -
// adj^T e adj^T) / det), differentiable to every order; elsewhere (and
// where that is not finite) the SVD's formula.
Tensor adjugate_change(const Tensor& x, const Tensor& adj, const Tensor& e, bool adjoint,
                       SourceLocation loc) {
  Tensor adj_t = transposed(adj, loc);
  auto [sign, logabsdet] = slogdet(x, loc);
  Tensor determinant = expand_dims(expand_dims(sign * exp(logabsdet, loc), -1, loc), -1, loc);
  Tensor by_inverse =
      adjoint ? sum(e * adj, {-2, -1}, true, loc) * adj_t - matmul(adj_t, matmul(e, adj_t, loc), loc)
              : sum(adj_t * e, {-2, -1}, true, loc) * adj - matmul(adj, matmul(e, adj, loc), loc);
  by_inverse = by_inverse / determinant;
  Tensor regular = logical_and(not_equal(determinant, 0.0, loc),
                               all(isfinite(by_inverse, loc), {-2, -1}, true, loc), loc);
  return cond(
      all(regular, {}, false, loc),
      [](const Tensor&, const Tensor&, const Tensor& change, const Tensor&) { return change; },
      [&](const Tensor& matrices, const Tensor& changes, const Tensor& change, const Tensor& ok) {
        return where(ok, change, adjugate_change_by_svd(matrices, changes, adjoint, loc), loc);
      },
      x, e, by_inverse, regular);
}

// The adjugates of the square matrices x, for det's derivative, with their
// own derivative rules (adjugate_change), so that det's second derivative
// is right at singular matrices too.
Tensor adjugate(const Tensor& x, SourceLocation loc) {
  if (x.shape().back() <= 3) return small_adjugate(x, loc);
  DType dtype = x.dtype();
  Shape shape = x.shape();
  auto forward = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    return std::vector<Tensor>{adjugate_by_lu_or_svd(parameter(dtype, shape), loc)};
  };
  // The rules read the forward result rather than computing it again.
  auto rule = [&](bool adjoint) {
    return [&, adjoint](detail::ParameterFn parameter, std::vector<size_t>&) {
      Tensor matrices = parameter(dtype, shape);
      Tensor adj = parameter(dtype, shape);
      Tensor change = parameter(dtype, shape);
      return std::vector<Tensor>{adjugate_change(matrices, adj, change, adjoint, loc)};
    };
  };
  auto backward = rule(/*adjoint=*/true);
  auto tangent = rule(/*adjoint=*/false);
  detail::TraceBody tangent_rule = tangent;
  return detail::call_with_custom_vjp({x}, forward, backward, loc, &tangent_rule).front();
}
}  // namespace

Tensor det(const Tensor& a, SourceLocation loc) {
  Recorder r("det", loc, {&a});
  check_square(r, a);
  detail::AtUserLine at_user(loc);
  DType result = detail::inexact(a.dtype());
  Tensor x = cast(a, solver_dtype(result), loc);
  DType dtype = x.dtype();
  int64_t n = a.shape().back();
  Shape batch(a.shape().begin(), a.shape().end() - 2);
  if (n == 0) return full(batch, 1.0, result, loc);
  auto forward = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Tensor matrices = parameter(dtype, x.shape());
    if (n <= 3) return std::vector<Tensor>{small_determinant(matrices, loc)};
    auto [sign, logabsdet] = slogdet(matrices, loc);
    return std::vector<Tensor>{sign * exp(logabsdet, loc)};
  };
  // d det = tr(adj(a) da): the cotangent of a is g adj(a)^T.
  auto backward = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Tensor matrices = parameter(dtype, x.shape());
    parameter(dtype, batch);
    Tensor g = parameter(dtype, batch);
    Tensor cofactors = transposed(adjugate(matrices, loc), loc);
    return std::vector<Tensor>{expand_dims(expand_dims(g, -1, loc), -1, loc) * cofactors};
  };
  auto tangent = [&](detail::ParameterFn parameter, std::vector<size_t>&) {
    Tensor matrices = parameter(dtype, x.shape());
    parameter(dtype, batch);
    Tensor da = parameter(dtype, x.shape());
    Tensor cofactors = transposed(adjugate(matrices, loc), loc);
    return std::vector<Tensor>{sum(cofactors * da, {-2, -1}, false, loc)};
  };
  detail::TraceBody tangent_rule = tangent;
  return cast(detail::call_with_custom_vjp({x}, forward, backward, loc, &tangent_rule).front(),
              result, loc);
}

LuResult lu(const Tensor& a, SourceLocation loc) {
  Recorder r("lu", loc, {&a});
  check_matrices(r, a);
  DType result = detail::inexact(a.dtype());
  Factorization f = factor(r, r.convert(a, solver_dtype(result)));
  detail::AtUserLine at_user(loc);
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = std::min(m, n);
  Tensor p = transposed(permutation_matrices(f.permutation, result, loc), loc);
  Tensor l = tril(block(f.lu, 0, m, 0, k, loc), -1, loc) + eye(m, k, 0, f.lu.dtype(), loc);
  Tensor u = triu(block(f.lu, 0, k, 0, n, loc), 0, loc);
  return {p, cast(l, result, loc), cast(u, result, loc)};
}

LuFactorResult lu_factor(const Tensor& a, SourceLocation loc) {
  Recorder r("lu_factor", loc, {&a});
  check_matrices(r, a);
  DType result = detail::inexact(a.dtype());
  Factorization f = factor(r, r.convert(a, solver_dtype(result)));
  return {r.convert(f.lu, result), f.pivots};
}

Tensor lu_solve(const LuFactorResult& lu_and_piv, const Tensor& b, int trans,
                SourceLocation loc) {
  const Tensor& lu = lu_and_piv.lu;
  const Tensor& piv = lu_and_piv.piv;
  Recorder r("lu_solve", loc, {&lu, &piv, &b});
  check_square(r, lu);
  Shape expected(lu.shape().begin(), lu.shape().end() - 1);
  if (piv.shape() != expected || (piv.dtype() != DType::i32 && piv.dtype() != DType::i64))
    r.fail(fmt::format("needs integer pivots [..., {}] with lu's batch dimensions, got {} for "
                       "lu {}",
                       lu.rank() >= 1 ? lu.shape().back() : 0, describe(piv), describe(lu)));
  if (trans < 0 || trans > 2)
    r.fail(fmt::format("trans = {} must be 0 (a x = b), 1 or 2 (a^T x = b)", trans));
  System s = system(r, lu, b, /*vector_rank=*/lu.rank() - 1);
  detail::AtUserLine at_user(loc);
  int64_t n = lu.shape().back();
  Shape batch(s.a.shape().begin(), s.a.shape().end() - 2);
  Shape pivots_shape = batch;
  pivots_shape.push_back(n);
  Tensor permutation = lu_pivots_to_permutation(
      broadcast_to(cast(piv, DType::i32, loc), pivots_shape, loc), n, loc);
  Tensor rows = expand_dims(permutation, -1, loc);
  Tensor x;
  if (trans == 0) {
    // a = P^T L U: x = U^-1 L^-1 P b.
    Tensor y = triangular_solve(s.a, take_along_axis(s.b, rows, -2, loc), /*lower=*/true, false,
                                /*unit_diagonal=*/true, loc);
    x = triangular_solve(s.a, y, /*lower=*/false, false, false, loc);
  } else {
    // a^T = U^T L^T P: x = P^T L^-T U^-T b.
    Tensor y = triangular_solve(s.a, s.b, /*lower=*/false, /*transpose_a=*/true, false, loc);
    Tensor z = triangular_solve(s.a, y, /*lower=*/true, /*transpose_a=*/true,
                                /*unit_diagonal=*/true, loc);
    x = take_along_axis(z, expand_dims(argsort(permutation, -1, false, loc), -1, loc), -2, loc);
  }
  return solution(r, s, x);
}

Tensor lu_pivots_to_permutation(const Tensor& pivots, int64_t permutation_size,
                                SourceLocation loc) {
  Recorder r("lu_pivots_to_permutation", loc, {&pivots});
  if (pivots.rank() < 1 || (pivots.dtype() != DType::i32 && pivots.dtype() != DType::i64))
    r.fail(fmt::format("needs integer pivots [..., k], got {}", describe(pivots)));
  int64_t k = pivots.shape().back();
  if (permutation_size < k)
    r.fail(fmt::format("permutation_size = {} is smaller than the {} pivots of {}",
                       permutation_size, k, describe(pivots)));
  Shape shape = pivots.shape();
  shape.back() = permutation_size;
  Tensor p = r.convert(pivots, DType::i32);
  return r.emit<ir::LuPivotsToPermutationOp>(r.type(DType::i32, shape), r.value(p),
                                             permutation_size);
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
  bool given_axes = !axes.empty();
  if (axes.empty()) {
    if (!ord.is_default() && rank != 1 && rank != 2)
      r.fail(fmt::format("ord {} needs a vector or a matrix, or one or two axes, got {}",
                         ord.describe(), describe(x)));
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (int& a : axes) a = r.axis(a, rank, x);
  if (axes.size() == 2 && axes[0] == axes[1])
    r.fail(fmt::format("the two axes of a matrix norm are both axis {} of {}", axes[0], describe(x)));
  // All axes of x flattened is the default norm's; axes given are one (a
  // vector norm) or two (a matrix norm), as numpy's and JAX's.
  if ((given_axes || !ord.is_default()) && axes.size() > 2)
    r.fail(fmt::format("{} needs one or two axes, got {} of {}",
                       ord.is_default() ? std::string("a norm over given axes")
                                        : "ord " + ord.describe(),
                       axes.size(), describe(x)));
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
