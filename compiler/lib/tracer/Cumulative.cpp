// Cumulative reductions (jnp.cumsum, cumprod, lax.cummax, cummin,
// cumlogsumexp) as JAX computes them on CPUs and GPUs: an associative scan
// built from strided slices, the combining op and interior padding, log2(n)
// levels deep, with no loop. Every level fuses into elementwise code, the
// gradients come from those ops' rules, and it runs wherever they do. The
// scanned axis goes to the front first, so that each slice takes whole
// rows; a long axis of short rows is scanned in blocks.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <cmath>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace adjit {

using detail::Recorder;

namespace {

using Combine = std::function<Tensor(const Tensor&, const Tensor&)>;

// x[start:limit:stride] along `axis`.
Tensor along(const Tensor& x, int axis, int64_t start, int64_t limit, int64_t stride,
             SourceLocation loc) {
  Shape starts(x.rank(), 0), limits = x.shape(), strides(x.rank(), 1);
  starts[axis] = start;
  limits[axis] = limit;
  strides[axis] = stride;
  return slice(x, starts, limits, strides, loc);
}

// a[0], b[0], a[1], b[1], ... along `axis`, where a has as many elements
// as b or one more: each spread out by interior padding, the gaps zeros,
// then added (or, for bools, or-ed).
Tensor interleave(const Tensor& a, const Tensor& b, int axis, SourceLocation loc) {
  bool same = a.shape()[axis] == b.shape()[axis];
  Shape zeros(a.rank(), 0), interior = zeros, a_high = zeros, b_low = zeros, b_high = zeros;
  interior[axis] = 1;
  a_high[axis] = same ? 1 : 0;
  b_low[axis] = 1;
  b_high[axis] = same ? 0 : 1;
  return pad(a, zeros, a_high, 0, interior, loc) + pad(b, b_low, b_high, 0, interior, loc);
}

// The inclusive scan of x along `axis` under the associative `combine`:
// pairs combined, their scan (recursively) gives the odd positions, and
// each even one combines the odd one before it with its own element.
Tensor associative_scan(const Tensor& x, int axis, const Combine& combine, SourceLocation loc) {
  int64_t n = x.shape()[axis];
  if (n < 2) return x;
  Tensor pairs = combine(along(x, axis, 0, n - 1, 2, loc), along(x, axis, 1, n, 2, loc));
  Tensor odd = associative_scan(pairs, axis, combine, loc);
  std::vector<Tensor> even{along(x, axis, 0, 1, 1, loc)};
  int64_t rest = (n - 1) / 2;  // the even positions after the first
  if (rest > 0)
    even.push_back(combine(along(odd, axis, 0, rest, 1, loc), along(x, axis, 2, n, 2, loc)));
  return interleave(concat(even, axis, loc), odd, axis, loc);
}

// `axis` moved to the front: a permutation that is its own inverse.
std::vector<int> swap_with_front(int rank, int axis) {
  std::vector<int> perm(rank);
  for (int d = 0; d < rank; ++d) perm[d] = d;
  std::swap(perm[0], perm[axis]);
  return perm;
}

// A block length for scanning n elements of `row` elements each in blocks:
// the divisor of n nearest sqrt(n) from below, or 0 where blocks would not
// pay (rows that are long already, n short or without such a divisor).
int64_t block_length(int64_t n, int64_t row) {
  if (row >= 64 || n < 256) return 0;
  for (int64_t k = static_cast<int64_t>(std::sqrt(static_cast<double>(n))); k >= 16; --k)
    if (n % k == 0) return k;
  return 0;
}

// The scan along axis 0. Along it each strided slice takes whole rows; rows
// shorter than a vector would make every level a gather, so a long axis of
// short rows is cut into m blocks of k: the scans inside the blocks run
// side by side (blocks transposed to [k, m, ...]: rows of m), the blocks'
// totals are scanned, and each block after the first combines the total
// before it with its own scan.
Tensor scan_leading(const Tensor& x, const Combine& combine, SourceLocation loc) {
  int64_t n = x.shape()[0];
  int64_t k = block_length(n, n == 0 ? 0 : x.size() / n);
  if (k == 0) return associative_scan(x, 0, combine, loc);
  int64_t m = n / k;
  Shape blocked = x.shape();
  blocked[0] = k;
  blocked.insert(blocked.begin(), m);
  std::vector<int> perm = swap_with_front(static_cast<int>(blocked.size()), 1);
  Tensor within = associative_scan(transpose(reshape(x, blocked, loc), perm, loc), 0, combine, loc);
  Shape total_shape(blocked.begin() + 1, blocked.end());
  total_shape[0] = m;
  Tensor totals = reshape(along(within, 0, k - 1, k, 1, loc), total_shape, loc);
  Tensor before = scan_leading(along(totals, 0, 0, m - 1, 1, loc), combine, loc);
  Shape later_shape = within.shape();
  later_shape[1] = m - 1;
  Tensor later = combine(broadcast_to(expand_dims(before, 0, loc), later_shape, loc),
                         along(within, 1, 1, m, 1, loc));
  Tensor joined = concat({along(within, 1, 0, 1, 1, loc), later}, 1, loc);
  return reshape(transpose(joined, perm, loc), x.shape(), loc);
}

// The scan along `axis`, moved to the front where it is not there.
Tensor scan_along(const Tensor& x, int axis, const Combine& combine, SourceLocation loc) {
  if (axis == 0) return scan_leading(x, combine, loc);
  std::vector<int> perm = swap_with_front(x.rank(), axis);
  return transpose(scan_leading(transpose(x, perm, loc), combine, loc), perm, loc);
}

// x with `axis` reversed.
Tensor flip(const Tensor& x, int axis, SourceLocation loc) {
  int64_t n = x.shape()[axis];
  return take(x, (n - 1) - arange(n, DType::i32, loc), axis, loc);
}

// The cumulative reduction `name` of x along `axis`, from the end with
// `reverse`. `value_dtype` gives the dtype it computes in.
Tensor cumulative(const char* name, const Tensor& x, int axis, bool reverse, const Combine& combine,
                  DType (*value_dtype)(DType), SourceLocation loc) {
  Recorder r(name, loc, {&x});
  if (x.rank() == 0)
    r.fail(fmt::format("needs an axis to accumulate along; {} is 0-d", detail::describe(x)));
  int a = r.axis(axis, x.rank(), x);
  detail::AtUserLine at_user(loc);
  DType dtype = value_dtype(x.dtype());
  Tensor v = dtype == x.dtype() ? x : cast(x, dtype, loc);
  if (v.shape()[a] == 0) return v;
  if (!reverse) return scan_along(v, a, combine, loc);
  return flip(scan_along(flip(v, a, loc), a, combine, loc), a, loc);
}

// Sums and products of bools count in i32, as jnp's.
DType counting(DType dtype) { return dtype == DType::i1 ? DType::i32 : dtype; }
DType same(DType dtype) { return dtype; }

// log(e^a + e^b) without overflow: max + log1p(e^-|a - b|); where a - b is
// NaN (both infinite of one sign, or a NaN), a + b gives -inf, inf or NaN.
Tensor log_add_exp(const Tensor& a, const Tensor& b) {
  Tensor delta = a - b;
  Tensor larger = maximum(a, b);
  return where(not_equal(delta, delta), a + b, larger + log1p(exp(-abs(delta))));
}

}  // namespace

Tensor cumsum(const Tensor& x, int axis, bool reverse, SourceLocation loc) {
  return cumulative(
      "cumsum", x, axis, reverse, [](const Tensor& a, const Tensor& b) { return a + b; },
      counting, loc);
}
Tensor cumprod(const Tensor& x, int axis, bool reverse, SourceLocation loc) {
  return cumulative(
      "cumprod", x, axis, reverse, [](const Tensor& a, const Tensor& b) { return a * b; },
      counting, loc);
}
Tensor cummax(const Tensor& x, int axis, bool reverse, SourceLocation loc) {
  return cumulative(
      "cummax", x, axis, reverse, [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
      same, loc);
}
Tensor cummin(const Tensor& x, int axis, bool reverse, SourceLocation loc) {
  return cumulative(
      "cummin", x, axis, reverse, [](const Tensor& a, const Tensor& b) { return minimum(a, b); },
      same, loc);
}
Tensor cumlogsumexp(const Tensor& x, int axis, bool reverse, SourceLocation loc) {
  return cumulative("cumlogsumexp", x, axis, reverse, log_add_exp, detail::inexact, loc);
}

Tensor trapezoid(const Tensor& y, std::optional<Tensor> x, double dx, int axis,
                 SourceLocation loc) {
  Recorder r("trapezoid", loc, {&y});
  if (y.rank() == 0) r.fail(fmt::format("needs samples y along an axis, got {}", detail::describe(y)));
  int a = r.axis(axis, y.rank(), y);
  int64_t n = y.shape()[a];
  if (x && x->rank() != 1 && x->shape() != y.shape())
    r.fail(fmt::format("needs x as a vector of y's {} samples or of y's shape {}, got {}", n,
                       detail::describe(y), detail::describe(*x)));
  if (x && x->rank() == 1 && x->shape()[0] != n)
    r.fail(fmt::format("x {} has {} samples but y {} has {} along axis {}", detail::describe(*x),
                       x->shape()[0], detail::describe(y), n, axis));
  detail::AtUserLine at_user(loc);
  int last = y.rank() - 1;
  std::vector<int> perm;
  for (int d = 0; d < y.rank(); ++d)
    if (d != a) perm.push_back(d);
  perm.push_back(a);
  // The axis last, as JAX's: 0.5 * sum(d * (y[1:] + y[:-1])).
  Tensor samples = transpose(y, perm, loc);
  DType dtype = detail::inexact(samples.dtype());
  samples = cast(samples, dtype, loc);
  if (n < 2) return sum(samples, {last}, false, loc) * 0.0;
  Tensor steps = full({}, dx, dtype, loc);
  if (x) {
    Tensor points = x->rank() == 1 ? *x : transpose(*x, perm, loc);
    steps = diff(cast(points, detail::promote(dtype, x->dtype()), loc), 1, -1, loc);
  }
  Tensor upper = along(samples, last, 1, n, 1, loc), lower = along(samples, last, 0, n - 1, 1, loc);
  return 0.5 * sum(steps * (upper + lower), {last}, false, loc);
}

}  // namespace adjit
