#ifndef ADJIT_TENSOR_H
#define ADJIT_TENSOR_H

// Symbolic tensors and the traced ops of DESIGN.md §5. A Tensor exists only
// while a function is being traced; every op records itself, with the
// caller's source line, into the function being built. Shape and dtype
// errors throw adjit::TraceError naming the op, the operands and that line.

#include "adjit/runtime/DType.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Shape.h"

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace adjit {

namespace detail {
class TraceContext;
}

using SourceLocation = std::source_location;

class Tensor {
 public:
  /// A placeholder that belongs to no trace; using it in an op throws.
  Tensor() = default;

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t size() const { return num_elements(shape_); }

  /// Always throws: a traced value has no truth value at trace time.
  explicit operator bool() const;

  // For the tracer: the MLIR value (as an opaque pointer) and its trace,
  // identified by a serial number too, since a later trace may reuse the
  // address of one that has ended.
  Tensor(detail::TraceContext* trace, uint64_t trace_serial, void* value, DType dtype, Shape shape)
      : trace_(trace), trace_serial_(trace_serial), value_(value), dtype_(dtype),
        shape_(std::move(shape)) {}
  detail::TraceContext* trace() const { return trace_; }
  uint64_t trace_serial() const { return trace_serial_; }
  void* value() const { return value_; }

 private:
  detail::TraceContext* trace_ = nullptr;
  uint64_t trace_serial_ = 0;
  void* value_ = nullptr;
  DType dtype_ = DType::f32;
  Shape shape_;
};

/// One operand of an arithmetic operator: a Tensor or a C++ number. Numbers
/// are "weak" as in JAX: `x * 2.0` keeps x's dtype (an f32 stays f32). The
/// implicit conversion captures the caller's source line for the operator.
struct Operand {
  Operand(const Tensor& t, SourceLocation loc = SourceLocation::current())
      : tensor(&t), location(loc) {}
  Operand(double v, SourceLocation loc = SourceLocation::current())
      : number(v), location(loc) {}
  Operand(float v, SourceLocation loc = SourceLocation::current())
      : number(v), location(loc) {}
  /// Any integer type (int, int64_t, size_t, long long, ...): `x *
  /// v.size()` is an integer literal like `x * 2`.
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Operand(T v, SourceLocation loc = SourceLocation::current())
      : number(static_cast<double>(v)),
        integer(static_cast<int64_t>(v)),
        is_integer(true),
        beyond_int64(std::is_unsigned_v<T> && static_cast<uint64_t>(v) > INT64_MAX),
        location(loc) {}
  /// A bool is the weakest: `bools + true` stays bool (or), `x * true`
  /// keeps x's dtype.
  Operand(bool v, SourceLocation loc = SourceLocation::current())
      : number(v), integer(v), is_integer(true), is_bool(true), location(loc) {}

  const Tensor* tensor = nullptr;
  double number = 0;
  int64_t integer = 0;  // an integer number exactly (a double rounds beyond 2^53)
  bool is_integer = false;
  bool is_bool = false;
  bool beyond_int64 = false;  // an unsigned integer no i64 holds
  SourceLocation location;
};

Tensor operator+(Operand a, Operand b);
Tensor operator-(Operand a, Operand b);
Tensor operator*(Operand a, Operand b);
/// True division, as numpy: integer operands give f32.
Tensor operator/(Operand a, Operand b);
/// numpy's %: remainder(a, b), with b's sign.
Tensor operator%(Operand a, Operand b);
Tensor operator-(Operand a);
Tensor operator<(Operand a, Operand b);
Tensor operator<=(Operand a, Operand b);
Tensor operator>(Operand a, Operand b);
Tensor operator>=(Operand a, Operand b);

using Axes = std::vector<int>;

#define ADJIT_UNARY(name) Tensor name(const Tensor& x, SourceLocation loc = SourceLocation::current());
ADJIT_UNARY(exp)
ADJIT_UNARY(log)
ADJIT_UNARY(log1p)
ADJIT_UNARY(expm1)
ADJIT_UNARY(sqrt)
ADJIT_UNARY(rsqrt)
ADJIT_UNARY(square)
ADJIT_UNARY(abs)
ADJIT_UNARY(sign)
ADJIT_UNARY(floor)
ADJIT_UNARY(sin)
ADJIT_UNARY(cos)
ADJIT_UNARY(tanh)
ADJIT_UNARY(sigmoid)
ADJIT_UNARY(relu)
ADJIT_UNARY(erf)
ADJIT_UNARY(ceil)
ADJIT_UNARY(round)  // to the nearest integer, ties to even, as numpy
ADJIT_UNARY(tan)
ADJIT_UNARY(asin)
ADJIT_UNARY(acos)
ADJIT_UNARY(atan)
ADJIT_UNARY(sinh)
ADJIT_UNARY(cosh)
ADJIT_UNARY(asinh)
ADJIT_UNARY(acosh)
ADJIT_UNARY(atanh)
ADJIT_UNARY(cbrt)
ADJIT_UNARY(log2)
ADJIT_UNARY(log10)
ADJIT_UNARY(logical_not)
ADJIT_UNARY(stop_gradient)
ADJIT_UNARY(zeros_like)
ADJIT_UNARY(ones_like)
#undef ADJIT_UNARY

/// x^n for an integer n known at trace time (JAX's `lax.integer_pow`):
/// repeated multiplication, derivative n x^(n-1). A negative n gives
/// 1 / x^-n and needs a floating-point x.
Tensor integer_pow(const Tensor& x, int64_t exponent,
                   SourceLocation loc = SourceLocation::current());

Tensor gelu(const Tensor& x, bool tanh_approx = true, SourceLocation loc = SourceLocation::current());

#define ADJIT_BINARY(name) \
  Tensor name(Operand a, Operand b, SourceLocation loc = SourceLocation::current());
ADJIT_BINARY(pow)
ADJIT_BINARY(maximum)
ADJIT_BINARY(minimum)
// The angle of the point (b, a) in (-pi, pi], as std::atan2 and numpy.arctan2(a, b).
ADJIT_BINARY(atan2)
ADJIT_BINARY(equal)
ADJIT_BINARY(not_equal)
// logical_and, logical_or (and logical_not above) take any dtype, nonzero
// being true, as numpy's. On bools, + and maximum are or, * and minimum and;
// <, <= order false before true.
ADJIT_BINARY(logical_and)
ADJIT_BINARY(logical_or)
/// jnp.logaddexp: log(exp(a) + exp(b)), without overflow; integers give f32.
ADJIT_BINARY(logaddexp)
/// jnp.fmod: the remainder of a / b truncated toward zero, with a's sign
/// (C's fmod); jnp.remainder (jnp.mod, numpy's %): a - floor(a / b) b, with
/// b's sign; jnp.floor_divide: floor(a / b). Integers stay integers (bools
/// become i32) and are exact; dividing them by 0 gives JAX's results:
/// fmod and remainder 0 (as numpy), floor_divide XLA's -1 (0 // 0) or -2
/// (numpy's 0).
/// Gradients as JAX's: d/da 1, d/db -trunc(a / b) (fmod), -floor(a / b)
/// (remainder); floor_divide's are zero.
ADJIT_BINARY(fmod)
ADJIT_BINARY(remainder)
ADJIT_BINARY(floor_divide)
#undef ADJIT_BINARY

/// jnp.isnan, jnp.isinf, jnp.isfinite: bool tensors of x's shape (an
/// integer or bool is never NaN or infinite).
Tensor isnan(const Tensor& x, SourceLocation loc = SourceLocation::current());
Tensor isinf(const Tensor& x, SourceLocation loc = SourceLocation::current());
Tensor isfinite(const Tensor& x, SourceLocation loc = SourceLocation::current());
/// jnp.isclose: |a - b| <= atol + rtol |b| elementwise (bool); infinities
/// are close only to themselves, NaN to nothing (to NaN with `equal_nan`).
/// jnp.allclose: whether all are (a 0-d bool).
Tensor isclose(Operand a, Operand b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false, SourceLocation loc = SourceLocation::current());
Tensor allclose(Operand a, Operand b, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false, SourceLocation loc = SourceLocation::current());
/// jnp.nan_to_num: NaN replaced by `nan`, +inf and -inf by `posinf` and
/// `neginf` (by default the dtype's largest and lowest finite values).
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt,
                  SourceLocation loc = SourceLocation::current());

/// x limited to [lo, hi], as jnp.clip: minimum(maximum(x, lo), hi).
Tensor clip(const Tensor& x, Operand lo, Operand hi,
            SourceLocation loc = SourceLocation::current());

/// Elementwise choice with broadcasting. A `cond` of another dtype is read
/// as numpy reads it: nonzero is true (so is NaN).
Tensor where(const Tensor& cond, Operand a, Operand b,
             SourceLocation loc = SourceLocation::current());

// Reductions over `axes` (empty: all axes); negative axes count from the end.
Tensor sum(const Tensor& x, Axes axes = {}, bool keepdims = false,
           SourceLocation loc = SourceLocation::current());
Tensor mean(const Tensor& x, Axes axes = {}, bool keepdims = false,
            SourceLocation loc = SourceLocation::current());
Tensor max(const Tensor& x, Axes axes = {}, bool keepdims = false,
           SourceLocation loc = SourceLocation::current());
Tensor min(const Tensor& x, Axes axes = {}, bool keepdims = false,
           SourceLocation loc = SourceLocation::current());
/// jnp.prod: 1 over an empty axis; bools multiply as i32. A tree of
/// products, as JAX differentiates it: the gradient is exact where elements
/// are zero (a product of the others, not prod / x).
Tensor prod(const Tensor& x, Axes axes = {}, bool keepdims = false,
            SourceLocation loc = SourceLocation::current());
/// jnp.var and jnp.std: the mean squared deviation from the mean, over
/// N - ddof (N the number of elements reduced); integers give f32.
/// (`keepdims` comes before `ddof`, as in sum and mean.)
Tensor var(const Tensor& x, Axes axes = {}, bool keepdims = false, int ddof = 0,
           SourceLocation loc = SourceLocation::current());
Tensor std(const Tensor& x, Axes axes = {}, bool keepdims = false, int ddof = 0,
           SourceLocation loc = SourceLocation::current());
/// jnp.nansum, jnp.nanmean, jnp.nanmax, jnp.nanmin: sum, mean, max and min
/// leaving NaN elements out (nanmean divides by the count of the others;
/// where all are NaN, nansum is 0, the others NaN). Integers have no NaN.
Tensor nansum(const Tensor& x, Axes axes = {}, bool keepdims = false,
              SourceLocation loc = SourceLocation::current());
Tensor nanmean(const Tensor& x, Axes axes = {}, bool keepdims = false,
               SourceLocation loc = SourceLocation::current());
Tensor nanmax(const Tensor& x, Axes axes = {}, bool keepdims = false,
              SourceLocation loc = SourceLocation::current());
Tensor nanmin(const Tensor& x, Axes axes = {}, bool keepdims = false,
              SourceLocation loc = SourceLocation::current());
/// jnp.count_nonzero: the number (i32) of nonzero elements (NaN counts).
Tensor count_nonzero(const Tensor& x, Axes axes = {}, bool keepdims = false,
                     SourceLocation loc = SourceLocation::current());
/// jnp.average with weights (broadcast against x): sum(x w) / sum(w) over
/// `axes`; integers give f32.
Tensor average(const Tensor& x, const Tensor& weights, Axes axes = {}, bool keepdims = false,
               SourceLocation loc = SourceLocation::current());
/// jnp.any and jnp.all: whether any (every) element is nonzero (NaN is);
/// false (true) over an empty axis.
Tensor any(const Tensor& x, Axes axes = {}, bool keepdims = false,
           SourceLocation loc = SourceLocation::current());
Tensor all(const Tensor& x, Axes axes = {}, bool keepdims = false,
           SourceLocation loc = SourceLocation::current());
/// Cumulative reductions along `axis` (jnp.cumsum, jnp.cumprod, lax.cummax,
/// lax.cummin, lax.cumlogsumexp): element i reduces elements 0..i, or i..n-1
/// with `reverse`. Sums and products of bools count in i32; cumlogsumexp
/// of integers is f32. An associative scan of log2(n) levels, as JAX's.
Tensor cumsum(const Tensor& x, int axis, bool reverse = false,
              SourceLocation loc = SourceLocation::current());
Tensor cumprod(const Tensor& x, int axis, bool reverse = false,
               SourceLocation loc = SourceLocation::current());
Tensor cummax(const Tensor& x, int axis, bool reverse = false,
              SourceLocation loc = SourceLocation::current());
Tensor cummin(const Tensor& x, int axis, bool reverse = false,
              SourceLocation loc = SourceLocation::current());
Tensor cumlogsumexp(const Tensor& x, int axis, bool reverse = false,
                    SourceLocation loc = SourceLocation::current());
/// Index of the first maximum along `axis`, as i32.
Tensor argmax(const Tensor& x, int axis, SourceLocation loc = SourceLocation::current());
/// Index of the first minimum along `axis` (the first NaN if any), as i32.
Tensor argmin(const Tensor& x, int axis, SourceLocation loc = SourceLocation::current());
Tensor logsumexp(const Tensor& x, Axes axes = {}, bool keepdims = false,
                 SourceLocation loc = SourceLocation::current());
Tensor softmax(const Tensor& x, int axis = -1, SourceLocation loc = SourceLocation::current());
Tensor log_softmax(const Tensor& x, int axis = -1,
                   SourceLocation loc = SourceLocation::current());

/// numpy.matmul: 1-D operands are promoted to matrices, leading (batch)
/// dimensions broadcast.
Tensor matmul(const Tensor& a, const Tensor& b, SourceLocation loc = SourceLocation::current());
/// numpy.einsum: "ij,jk->ik", "bij,bjk->bik", "ii->i" (a diagonal),
/// "...ij,...jk->...ik" (the ellipsis broadcasts). Without "->" the output
/// is the ellipsis, then the subscripts used once, in alphabetical order.
/// Operands are contracted left to right, each pair in one dot_general.
Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands,
              SourceLocation loc = SourceLocation::current());
Tensor einsum(const std::string& subscripts, const Tensor& a,
              SourceLocation loc = SourceLocation::current());
Tensor einsum(const std::string& subscripts, const Tensor& a, const Tensor& b,
              SourceLocation loc = SourceLocation::current());
Tensor einsum(const std::string& subscripts, const Tensor& a, const Tensor& b, const Tensor& c,
              SourceLocation loc = SourceLocation::current());
/// Linear algebra (namespace adjit::linalg, as jnp.linalg: `solve` and `inv`
/// are common names) on the last two dimensions, matrices; leading dimensions
/// are batches, broadcast against each other. Integers and bools give f32,
/// f16 and bf16 are computed in f32 and rounded back. A matrix that cannot
/// be factored gives NaN (cholesky) or infinities and NaN (solves), as
/// JAX's. Gradients in both modes, as JAX's rules (docs/guide/ops.md).
namespace linalg {
/// jnp.linalg.cholesky: the lower triangular L with L L^T = (a + a^T) / 2.
Tensor cholesky(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jax.scipy.linalg.solve_triangular: x with op(a) x = b, op(a) = a or a^T
/// (`transpose_a`), reading only a's lower (`lower`) or upper triangle and,
/// with `unit_diagonal`, taking its diagonal as ones. b is [..., n, k], or a
/// vector [..., n] when its rank is a's minus one.
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a = false,
                        bool unit_diagonal = false,
                        SourceLocation loc = SourceLocation::current());
/// jax.scipy.linalg.cho_solve: x with (l l^T) x = b, for l = cholesky(a);
/// b as in triangular_solve.
Tensor cho_solve(const Tensor& l, const Tensor& b, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.solve: x with a x = b, by LU factorization with partial
/// pivoting. b is [..., n, k], or a vector [n] when it has rank 1 (numpy 2).
Tensor solve(const Tensor& a, const Tensor& b, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.inv: solve(a, identity).
Tensor inv(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.slogdet: of each matrix of a [..., n, n], the sign of its
/// determinant (1, -1, or 0 where singular) and the log of its absolute
/// value (-inf where singular), both [...]: det = sign * exp(logabsdet),
/// which neither overflows nor underflows. By LU factorization with
/// partial pivoting. `auto [sign, logabsdet] = linalg::slogdet(a);`
struct SlogdetResult {
  Tensor sign, logabsdet;
};
SlogdetResult slogdet(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.det: for 2 x 2 and 3 x 3 matrices the cofactor expansion,
/// else sign * exp(logabsdet) of slogdet. Its gradient is the transposed
/// adjugate, finite at singular matrices too (JAX's rule, in both modes);
/// its second derivative is exact at singular matrices as well.
Tensor det(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jax.scipy.linalg.lu: of each matrix of a [..., m, n], with k = min(m,
/// n), a = p l u with the permutation matrix p [..., m, m], the unit lower
/// triangular l [..., m, k] and the upper triangular u [..., k, n], by
/// Gaussian elimination with partial pivoting (LAPACK's getrf). Gradients
/// in both modes where u's first k rows are invertible (JAX's rule).
/// `auto [p, l, u] = linalg::lu(a);`
struct LuResult {
  Tensor p, l, u;
};
LuResult lu(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jax.scipy.linalg.lu_factor: lu's l (below the diagonal; its unit
/// diagonal implied) and u in one matrix [..., m, n], and LAPACK's pivots
/// piv [..., k] (i32, from 0: row i was exchanged with row piv[i] at step
/// i). Factor once, then solve with lu_solve as often as needed.
struct LuFactorResult {
  Tensor lu, piv;
};
LuFactorResult lu_factor(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jax.scipy.linalg.lu_solve: x with a x = b (`trans` 0) or a^T x = b (1 or
/// 2), for lu_and_piv = lu_factor(a) of square matrices. b as in
/// triangular_solve: [..., n, k], or a vector [..., n] when its rank is one
/// less than lu's. Differentiable in b and in the factors.
Tensor lu_solve(const LuFactorResult& lu_and_piv, const Tensor& b, int trans = 0,
                SourceLocation loc = SourceLocation::current());
/// jax.lax.linalg.lu_pivots_to_permutation: the permutation [..., size]
/// (i32) that the exchanges of `pivots` [..., k] make of 0, 1, ..., size -
/// 1, size >= k: row i of p^T a is row permutation[i] of a.
Tensor lu_pivots_to_permutation(const Tensor& pivots, int64_t permutation_size,
                                SourceLocation loc = SourceLocation::current());
/// jnp.linalg.matrix_power: each square matrix of a to the integer power
/// n by repeated squaring (log2 |n| products); n = 0 gives identities (of
/// a's dtype), n < 0 powers of inv(a).
Tensor matrix_power(const Tensor& a, int64_t n, SourceLocation loc = SourceLocation::current());
/// jax.scipy.linalg.expm: the matrix exponential of each square matrix of
/// a, by scaling and squaring with a Padé approximant (Higham 2005; JAX's
/// degrees and thresholds: up to 13 in f64, 7 in f32). A matrix that needs
/// more than max_squarings squarings gives NaN. Differentiable (through
/// the approximant, its solve and the squarings), in both modes.
Tensor expm(const Tensor& a, int max_squarings = 16,
            SourceLocation loc = SourceLocation::current());
/// jnp.linalg.eigh: of each matrix's symmetric part (a + a^T) / 2 in
/// a [..., n, n], the eigenvalues [..., n] in ascending order and the
/// orthonormal eigenvectors [..., n, n] as columns (the column for each
/// eigenvalue; its sign is not specified), by the cyclic Jacobi method.
/// Gradients are infinite where eigenvalues repeat, as JAX's.
/// `auto [w, v] = linalg::eigh(a);`
struct EighResult {
  Tensor eigenvalues, eigenvectors;
};
EighResult eigh(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.eigvalsh: eigh's eigenvalues.
Tensor eigvalsh(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.qr (mode "reduced"): of each matrix of a [..., m, n], with
/// k = min(m, n), q [..., m, k] with orthonormal columns and the upper
/// triangular r [..., k, n] with a = q r, by Householder reflections with
/// LAPACK's sign conventions (r's diagonal signs are numpy's and JAX's).
/// Gradients where r's first k columns are invertible: JAX's rule for
/// m >= n, PyTorch's for m < n. `auto [q, r] = linalg::qr(a);`
struct QrResult {
  Tensor q, r;
};
QrResult qr(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.svd(a, full_matrices=False): of each matrix of a [..., m, n],
/// with k = min(m, n), u [..., m, k] and vh [..., k, n] with orthonormal
/// columns and rows, and the singular values s [..., k] in descending
/// order, a = u diag(s) vh; by the one-sided Jacobi method. A singular
/// vector's sign is not specified. Gradients as JAX's: infinite where
/// singular values repeat (or, where m != n, are zero).
/// `auto [u, s, vh] = linalg::svd(a);`
struct SvdResult {
  Tensor u, s, vh;
};
SvdResult svd(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.svdvals: svd's singular values.
Tensor svdvals(const Tensor& a, SourceLocation loc = SourceLocation::current());
/// jnp.linalg.matrix_rank: of each matrix, the number (i32) of singular
/// values above `tol` (by default max(m, n) eps times the largest).
Tensor matrix_rank(const Tensor& a, std::optional<double> tol = std::nullopt,
                   SourceLocation loc = SourceLocation::current());
/// jnp.linalg.pinv: the Moore-Penrose pseudo-inverse [..., n, m] of each
/// matrix of a [..., m, n], from its SVD, inverting the singular values
/// above `rtol` times the largest (by default 10 max(m, n) eps) and taking
/// the others as zero. Gradients in both modes by Golub and Pereyra's
/// formula, as JAX's: finite at every rank.
Tensor pinv(const Tensor& a, std::optional<double> rtol = std::nullopt,
            SourceLocation loc = SourceLocation::current());
/// jnp.linalg.lstsq: the x of least norm among those minimizing
/// |a x - b|^2, for a [m, n] and b [m] or [m, k] (x [n] or [n, k]); the
/// squared residuals [k] (k = 1 for a vector b), the rank (i32, the
/// singular values not below rcond times the largest, by default max(m, n)
/// eps, and not zero: a zero matrix has rank 0 and x = 0, as numpy's) and
/// a's singular values. x = pinv(a) b and its gradients are pinv's.
/// `auto [x, residuals, rank, s] = linalg::lstsq(a, b);`
struct LstsqResult {
  Tensor x, residuals, rank, s;
};
LstsqResult lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond = std::nullopt,
                  SourceLocation loc = SourceLocation::current());
/// jnp.linalg.norm. Over one axis a vector norm: ord 2 (the default), 1,
/// INFINITY (max |x|), -INFINITY (min |x|), 0 (the count of nonzeros) or
/// any p (sum |x|^p)^(1/p). Over two axes (rows, then columns) a matrix
/// norm: "fro" (the default), "nuc" (the sum of the singular values), 2
/// and -2 (the largest and smallest singular value), 1 and -1 (the largest
/// and smallest column sum of |x|), INFINITY and -INFINITY (row sums).
/// Without axes: every axis with the default ord (the 2-norm of all
/// entries), else a vector's or a matrix's axes. Integers give f32.
Tensor norm(const Tensor& x, std::optional<double> ord = std::nullopt, Axes axes = {},
            bool keepdims = false, SourceLocation loc = SourceLocation::current());
Tensor norm(const Tensor& x, const std::string& ord, Axes axes = {}, bool keepdims = false,
            SourceLocation loc = SourceLocation::current());
}  // namespace linalg

/// Empty `perm` reverses the dimensions.
Tensor transpose(const Tensor& x, std::vector<int> perm = {},
                 SourceLocation loc = SourceLocation::current());
/// One entry may be -1: inferred from the element count.
Tensor reshape(const Tensor& x, Shape shape, SourceLocation loc = SourceLocation::current());
Tensor broadcast_to(const Tensor& x, Shape shape, SourceLocation loc = SourceLocation::current());
Tensor expand_dims(const Tensor& x, int axis, SourceLocation loc = SourceLocation::current());
Tensor squeeze(const Tensor& x, int axis, SourceLocation loc = SourceLocation::current());
Tensor slice(const Tensor& x, Shape starts, Shape limits, Shape strides = {},
             SourceLocation loc = SourceLocation::current());
Tensor concat(const std::vector<Tensor>& xs, int axis,
              SourceLocation loc = SourceLocation::current());
/// jnp.stack: tensors of one shape along a new axis `axis` (of the
/// result's rank: -1 puts it last); dtypes promote as concat's.
Tensor stack(const std::vector<Tensor>& xs, int axis = 0,
             SourceLocation loc = SourceLocation::current());
/// jnp.split's second argument: a number of equal sections (`split(x, 3)`),
/// or the indices where sections start (`split(x, {2, 5})`: x[:2], x[2:5],
/// x[5:]; an index past the end gives empty sections, as numpy's).
struct IndicesOrSections {
  IndicesOrSections(int64_t sections) : sections(sections) {}
  IndicesOrSections(std::initializer_list<int64_t> indices) : indices(indices) {}
  IndicesOrSections(std::vector<int64_t> indices) : indices(std::move(indices)) {}
  std::optional<int64_t> sections;
  std::vector<int64_t> indices;
};
/// jnp.split: x cut along `axis` into sections (equal ones must divide the
/// axis exactly).
std::vector<Tensor> split(const Tensor& x, IndicesOrSections indices_or_sections, int axis = 0,
                          SourceLocation loc = SourceLocation::current());
/// jnp.flip: x with the order of `axes` reversed (empty: every axis).
Tensor flip(const Tensor& x, Axes axes = {}, SourceLocation loc = SourceLocation::current());
/// jnp.roll: elements shifted by `shift` along `axis`, those leaving one
/// end entering at the other; without an axis, over x flattened (the shape
/// is kept). The second form rolls several axes, each by its own shift.
Tensor roll(const Tensor& x, int64_t shift, std::optional<int> axis = std::nullopt,
            SourceLocation loc = SourceLocation::current());
Tensor roll(const Tensor& x, Shape shifts, Axes axes,
            SourceLocation loc = SourceLocation::current());
/// jnp.tile: x repeated reps[d] times along each dimension; the shorter of
/// x's shape and reps is padded with leading ones.
Tensor tile(const Tensor& x, Shape reps, SourceLocation loc = SourceLocation::current());
/// jnp.repeat with a number of repeats: each element `repeats` times in a
/// row along `axis`; without an axis, over x flattened (a vector results).
Tensor repeat(const Tensor& x, int64_t repeats, std::optional<int> axis = std::nullopt,
              SourceLocation loc = SourceLocation::current());
/// jnp.tril and jnp.triu: the matrices of x [..., m, n] with the elements
/// above (below) diagonal k set to zero (k > 0: above the main diagonal).
Tensor tril(const Tensor& x, int k = 0, SourceLocation loc = SourceLocation::current());
Tensor triu(const Tensor& x, int k = 0, SourceLocation loc = SourceLocation::current());
/// jnp.diff: the n-th differences x[i+1] - x[i] along `axis` (bools: !=).
Tensor diff(const Tensor& x, int n = 1, int axis = -1,
            SourceLocation loc = SourceLocation::current());
/// jnp.argsort: the indices (i32) that sort x along `axis`: a stable sort
/// (equal elements keep their order), NaN after every number (before them
/// with `descending`), -0 equal to +0, as jnp.argsort(x, axis,
/// descending=...). n log n comparisons per row (a heap sort).
Tensor argsort(const Tensor& x, int axis = -1, bool descending = false,
               SourceLocation loc = SourceLocation::current());
/// jnp.sort: x sorted along `axis`, take_along_axis(x, argsort(x)): its
/// gradient takes each cotangent back to its element's place.
Tensor sort(const Tensor& x, int axis = -1, bool descending = false,
            SourceLocation loc = SourceLocation::current());
/// jnp.take_along_axis: out[..., i, ...] = x[..., indices[..., i, ...], ...]
/// along `axis`, for integer indices of x's rank (the other dimensions
/// broadcast); a negative index counts from the end, and one still out of
/// range is clamped, as take's.
Tensor take_along_axis(const Tensor& x, const Tensor& indices, int axis,
                       SourceLocation loc = SourceLocation::current());
/// jnp.searchsorted: for each element of v, the index (i32) where it would
/// be inserted into the ascending vector `a` to keep it sorted: before
/// the elements equal to it (side "left") or after them ("right"), NaN
/// after every number. A binary search per value; `a` is not checked.
Tensor searchsorted(const Tensor& a, const Tensor& v, const std::string& side = "left",
                    SourceLocation loc = SourceLocation::current());
/// jnp.interp: the piecewise linear function through the points (xp, fp)
/// (vectors, xp ascending) at x; fp[0] left of xp[0] and fp[-1] right of
/// xp[-1], or `left` and `right`. Integers give f32. Gradients for x, xp
/// and fp, as JAX's (no NaN where two xp coincide).
Tensor interp(const Tensor& x, const Tensor& xp, const Tensor& fp,
              std::optional<double> left = std::nullopt, std::optional<double> right = std::nullopt,
              SourceLocation loc = SourceLocation::current());
/// jnp.histogram_bin_edges: `bins` + 1 evenly spaced edges over `range`, by
/// default [min(a), max(a)] (widened by 0.5 each way where it is empty, as
/// numpy's), as jnp.linspace computes them; integers give f32.
Tensor histogram_bin_edges(const Tensor& a, int64_t bins = 10,
                           std::optional<std::pair<double, double>> range = std::nullopt,
                           SourceLocation loc = SourceLocation::current());
/// jnp.histogram: of a's elements (flattened), how many fall in each bin
/// (i32, or the sums of their `weights`, of a's shape), and the edges:
/// `bins` equal bins over `range` (histogram_bin_edges), or the given
/// ascending `bin_edges`. Bin i holds edges[i] <= v < edges[i + 1], the
/// last one its right edge too; values outside are not counted. With
/// `density`, counts / bin width / total. Differentiable in `weights`.
/// `auto [hist, edges] = histogram(x, 20);`
struct HistogramResult {
  Tensor hist, bin_edges;
};
HistogramResult histogram(const Tensor& a, int64_t bins = 10,
                          std::optional<std::pair<double, double>> range = std::nullopt,
                          std::optional<Tensor> weights = std::nullopt, bool density = false,
                          SourceLocation loc = SourceLocation::current());
HistogramResult histogram(const Tensor& a, const Tensor& bin_edges,
                          std::optional<Tensor> weights = std::nullopt, bool density = false,
                          SourceLocation loc = SourceLocation::current());
/// jnp.cov: the covariance matrix of the variables in m's rows (its
/// columns with `rowvar` false), observations along the other axis,
/// normalized by N - 1 (N with `bias`, N - ddof with `ddof`); one variable
/// gives a 0-d Tensor. Integers give f32.
Tensor cov(const Tensor& m, bool rowvar = true, bool bias = false,
           std::optional<int64_t> ddof = std::nullopt,
           SourceLocation loc = SourceLocation::current());
/// jnp.corrcoef: cov(x, rowvar) / (s s^T) with s the standard deviations,
/// clipped to [-1, 1].
Tensor corrcoef(const Tensor& x, bool rowvar = true, SourceLocation loc = SourceLocation::current());
/// jnp.nonzero(x, size=size, fill_value=fill_value): for each dimension of
/// x, the indices (i32 [size]) of its first `size` nonzero elements in
/// row-major order (NaN is nonzero); slots past their count hold
/// `fill_value` (by default 0). A jitted result's shape cannot depend on
/// the values: `size` is required, as under jax.jit.
std::vector<Tensor> nonzero(const Tensor& x, int64_t size,
                            std::optional<int64_t> fill_value = std::nullopt,
                            SourceLocation loc = SourceLocation::current());
/// jnp.flatnonzero: nonzero of x flattened.
Tensor flatnonzero(const Tensor& x, int64_t size, std::optional<int64_t> fill_value = std::nullopt,
                   SourceLocation loc = SourceLocation::current());
/// jnp.argwhere: nonzero's indices as rows, [size, rank].
Tensor argwhere(const Tensor& x, int64_t size, std::optional<int64_t> fill_value = std::nullopt,
                SourceLocation loc = SourceLocation::current());
/// jnp.unique(x, size=size, fill_value=fill_value): the first `size`
/// distinct values of x (flattened) in ascending order (argsort's: NaN
/// last, -0 = +0, the first occurrence's value kept); slots past their
/// count hold `fill_value`, or by default the smallest value (JAX's).
/// NaNs count as one value with `equal_nan`, else each is distinct.
/// Differentiable: each value's gradient goes to its first occurrence.
Tensor unique(const Tensor& x, int64_t size, std::optional<double> fill_value = std::nullopt,
              bool equal_nan = true, SourceLocation loc = SourceLocation::current());
/// jnp.unique_all (NaNs distinct, as the array API's): unique's values,
/// the index in x (flattened, i32) of each one's first occurrence, for
/// each element of x the index of its value among them (x's shape), and
/// how often each occurs (0 in the slots past the count).
/// `auto [values, indices, inverse_indices, counts] = unique_all(x, 8);`
struct UniqueAllResult {
  Tensor values, indices, inverse_indices, counts;
};
UniqueAllResult unique_all(const Tensor& x, int64_t size,
                           std::optional<double> fill_value = std::nullopt,
                           SourceLocation loc = SourceLocation::current());
/// lax.top_k: the k largest elements along the last axis, largest first,
/// and their indices (i32); equal elements in index order. Floats rank in
/// IEEE 754's totalOrder, as lax.top_k's: +NaN above +inf, +0 above -0,
/// -NaN (the x86 NaN of 0/0 or inf - inf) below -inf.
/// `auto [values, indices] = top_k(x, 3);`
struct TopKResult {
  Tensor values, indices;
};
TopKResult top_k(const Tensor& x, int64_t k, SourceLocation loc = SourceLocation::current());
/// jnp.median over `axes` (all when empty): the middle element, or the
/// mean of the middle two, of each sorted set; NaN where one is NaN or
/// the set is empty. Integers give f32. The gradient goes to the middle
/// elements.
Tensor median(const Tensor& x, Axes axes = {}, bool keepdims = false,
              SourceLocation loc = SourceLocation::current());
/// jnp.quantile (q in [0, 1]) and jnp.percentile (q in [0, 100]) with
/// linear interpolation (numpy's default method): of each set over
/// `axes` sorted into s[0..N-1], at h = q (N - 1), s[floor(h)] (1 - w) +
/// s[ceil(h)] w with w = h - floor(h); NaN as median.
Tensor quantile(const Tensor& x, double q, Axes axes = {}, bool keepdims = false,
                SourceLocation loc = SourceLocation::current());
Tensor percentile(const Tensor& x, double q, Axes axes = {}, bool keepdims = false,
                  SourceLocation loc = SourceLocation::current());
/// jnp.outer: a [m] times b [n] as a matrix [m, n] (others are flattened).
Tensor outer(const Tensor& a, const Tensor& b, SourceLocation loc = SourceLocation::current());
/// jnp.tensordot: a's axes `axes_a` contracted with b's `axes_b` (pairwise
/// of equal sizes), the result's axes a's others then b's others; with an
/// integer, a's last `axes` axes with b's first `axes`. One matmul.
Tensor tensordot(const Tensor& a, const Tensor& b, const Axes& axes_a, const Axes& axes_b,
                 SourceLocation loc = SourceLocation::current());
Tensor tensordot(const Tensor& a, const Tensor& b, int axes = 2,
                 SourceLocation loc = SourceLocation::current());
/// jnp.inner: the sums over a's and b's last axes (a * b for a scalar);
/// jnp.vdot: the dot product of a and b flattened.
Tensor inner(const Tensor& a, const Tensor& b, SourceLocation loc = SourceLocation::current());
Tensor vdot(const Tensor& a, const Tensor& b, SourceLocation loc = SourceLocation::current());
/// jnp.kron: the Kronecker product, a block per entry of a (the lower rank
/// padded with leading axes of size 1).
Tensor kron(const Tensor& a, const Tensor& b, SourceLocation loc = SourceLocation::current());
/// jnp.polyval: the polynomial with coefficients p (a vector, highest
/// degree first) at each element of x, by Horner's rule.
Tensor polyval(const Tensor& p, const Tensor& x, SourceLocation loc = SourceLocation::current());
/// jnp.vander: the Vandermonde matrix [n, N] of the vector x [n] (N = n by
/// default): columns x^(N-1) ... x^0, or x^0 ... x^(N-1) with `increasing`.
Tensor vander(const Tensor& x, std::optional<int64_t> n = std::nullopt, bool increasing = false,
              SourceLocation loc = SourceLocation::current());
/// jnp.trapezoid: the integral of the samples y along `axis` by the
/// trapezoidal rule, at the points x (a vector of y's samples, or y's
/// shape) or dx apart. Integers give f32.
Tensor trapezoid(const Tensor& y, std::optional<Tensor> x = std::nullopt, double dx = 1.0,
                 int axis = -1, SourceLocation loc = SourceLocation::current());
/// jnp.convolve and jnp.correlate of two non-empty vectors, mode "full"
/// (every overlap, n + m - 1), "same" (max(n, m), centered) or "valid"
/// (full overlaps only), as JAX's. Integers give f32.
Tensor convolve(const Tensor& a, const Tensor& v, const std::string& mode = "full",
                SourceLocation loc = SourceLocation::current());
Tensor correlate(const Tensor& a, const Tensor& v, const std::string& mode = "valid",
                 SourceLocation loc = SourceLocation::current());
/// jnp.cross of 3-vectors along `axis` of each (leading dimensions
/// broadcast); the result's vectors lie along its last axis unless `axis`
/// is given for both operands, as numpy's axisc defaults to axis.
Tensor cross(const Tensor& a, const Tensor& b, int axis = -1,
             SourceLocation loc = SourceLocation::current());
/// numpy.diagonal: the entries x[..., i, i + offset, ...] of axes `axis1`
/// and `axis2` (a negative offset: below the main diagonal), along a new
/// last axis after the remaining ones (jnp.linalg.diagonal is
/// diagonal(x, 0, -2, -1)).
Tensor diagonal(const Tensor& x, int offset = 0, int axis1 = 0, int axis2 = 1,
                SourceLocation loc = SourceLocation::current());
/// numpy.trace: the sums of diagonal(x, offset, axis1, axis2).
Tensor trace(const Tensor& x, int offset = 0, int axis1 = 0, int axis2 = 1,
             SourceLocation loc = SourceLocation::current());
/// lax.pad: dimension d gets low[d] copies of `value` before its first
/// element, high[d] after its last and interior[d] between each two (empty
/// `interior`: none). A negative low or high removes that many elements from
/// that end instead. `value` is a number (taking x's dtype) or a 0-d Tensor,
/// which is differentiable: its gradient sums the cotangent over the padding.
Tensor pad(const Tensor& x, Shape low, Shape high, Operand value = 0.0, Shape interior = {},
           SourceLocation loc = SourceLocation::current());
/// lax.dynamic_slice: the block of shape `sizes` whose first element is at
/// `starts` (one per dimension: C++ integers or 0-d integer Tensors known
/// only at run time, such as a fori_loop's counter). Each start is clamped
/// so that the block lies inside x.
Tensor dynamic_slice(const Tensor& x, const std::vector<Operand>& starts, Shape sizes,
                     SourceLocation loc = SourceLocation::current());
/// lax.dynamic_update_slice (jnp's x.at[...].set): x with the block of
/// update's shape at `starts` (clamped as dynamic_slice's) replaced by
/// update, converted to x's dtype. A loop's carried buffer is updated in
/// place.
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update,
                            const std::vector<Operand>& starts,
                            SourceLocation loc = SourceLocation::current());
/// numpy.take along `axis`: a negative index counts from the end (-1 is the
/// last); one still out of range is clamped to the first or last. (jnp.take's
/// mode="clip" clamps without counting from the end: -1 gives the first.)
Tensor take(const Tensor& x, const Tensor& indices, int axis,
            SourceLocation loc = SourceLocation::current());
/// jax.ops.segment_sum: out[s, ...] sums the rows data[i, ...] whose
/// segment_ids[i] is s, for s in [0, num_segments); rows with ids outside
/// that range are dropped, as JAX's. data [m, ...], segment_ids [m]
/// integers; bools add as i32. Differentiable in data (its gradient
/// gathers the cotangent by id).
Tensor segment_sum(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                   SourceLocation loc = SourceLocation::current());
/// jax.ops.segment_max and segment_min: out[s, ...] is the max (min) of
/// the rows data[i, ...] whose segment_ids[i] is s; a segment no row
/// reaches holds the lowest (highest) value of the dtype: -inf (+inf) for
/// floats, false (true) for bools. Ids out of range are dropped; NaN
/// propagates. Differentiable in data: rows tied for a segment's extremum
/// share its cotangent equally, as JAX's.
Tensor segment_max(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                   SourceLocation loc = SourceLocation::current());
Tensor segment_min(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                   SourceLocation loc = SourceLocation::current());
/// jnp.bincount with a static `length`: out[k] counts the elements of the
/// integer vector x equal to k (or sums their `weights`), k in [0,
/// length); as JAX's, negative elements count as 0 and those from
/// `length` on are dropped. Counts are i32.
Tensor bincount(const Tensor& x, int64_t length, SourceLocation loc = SourceLocation::current());
Tensor bincount(const Tensor& x, const Tensor& weights, int64_t length,
                SourceLocation loc = SourceLocation::current());
Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype = DType::f32,
               SourceLocation loc = SourceLocation::current());
Tensor cast(const Tensor& x, DType dtype, SourceLocation loc = SourceLocation::current());
/// How a convolution pads its spatial dimensions when no explicit amounts
/// are given (TF's and JAX's padding strings).
enum class Padding {
  valid,       ///< none: only windows that lie inside the input
  same,        ///< output size ceil(input / stride); an odd amount's extra at the end
  same_lower,  ///< as `same`, the extra at the start
};

/// Options of conv(), lax.conv_general_dilated's. Per-dimension lists have
/// one entry per spatial dimension, or none for all 1 (no padding).
struct ConvOptions {
  Shape strides;
  Padding padding = Padding::valid;
  /// (low, high) per spatial dimension; when given, replaces `padding`. A
  /// negative amount crops.
  std::vector<std::pair<int64_t, int64_t>> explicit_padding;
  Shape lhs_dilation;  ///< input dilation: a transposed convolution (explicit padding only)
  Shape rhs_dilation;  ///< kernel dilation (atrous convolution)
  int64_t feature_group_count = 1;  ///< input channels in groups (depthwise: all of them)
};

/// lax.conv_general_dilated with channels last (TF's NHWC and HWIO): x is
/// [batch, spatial..., C_in], w is [spatial..., C_in / groups, C_out], the
/// result [batch, spatial'..., C_out], for any number of spatial dimensions.
/// Like every ML framework's, a cross-correlation (the kernel is not
/// flipped). Group g's C_out / groups outputs read its C_in / groups inputs.
Tensor conv(const Tensor& x, const Tensor& w, ConvOptions options = {},
            SourceLocation loc = SourceLocation::current());

/// Options of max_pool and avg_pool (flax.linen's pools). Per-dimension
/// lists as ConvOptions'.
struct PoolOptions {
  Shape strides;  ///< empty: 1 in every dimension, as in flax (Keras: the window)
  Padding padding = Padding::valid;
  std::vector<std::pair<int64_t, int64_t>> explicit_padding;  ///< as ConvOptions'
  /// avg_pool: divide by the whole window (flax's default), or by the number
  /// of the window's elements inside the input.
  bool count_include_pad = true;
};

/// The maximum over each `window` of x [batch, spatial..., C]'s spatial
/// dimensions (padding never wins). The gradient goes to each window's
/// maximum; tied maxima share it (JAX gives it all to one of them).
Tensor max_pool(const Tensor& x, Shape window, PoolOptions options = {},
                SourceLocation loc = SourceLocation::current());
/// The mean over each `window` of x [batch, spatial..., C]'s spatial
/// dimensions; integers are averaged in f32.
Tensor avg_pool(const Tensor& x, Shape window, PoolOptions options = {},
                SourceLocation loc = SourceLocation::current());

/// Constants and ranges need a trace to live in: call them while tracing.
Tensor full(Shape shape, double value, DType dtype = DType::f32,
            SourceLocation loc = SourceLocation::current());
Tensor arange(int64_t n, DType dtype = DType::i32, SourceLocation loc = SourceLocation::current());
/// jnp.linspace: `num` evenly spaced values from start to stop (stop
/// included with `endpoint`), computed in f64 and rounded once.
Tensor linspace(double start, double stop, int64_t num, bool endpoint = true,
                DType dtype = DType::f32, SourceLocation loc = SourceLocation::current());
/// jnp.meshgrid of vectors: one tensor per vector, each vector broadcast
/// along its own axis; "xy" indexing (the default) swaps the first two
/// axes of the result's shape, "ij" does not.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing = "xy",
                             SourceLocation loc = SourceLocation::current());
/// jnp.eye: the n x m matrix (m = n by default) with ones on diagonal k
/// (k > 0 above the main one) and zeros elsewhere.
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, int k = 0,
           DType dtype = DType::f32, SourceLocation loc = SourceLocation::current());

}  // namespace adjit

#endif
