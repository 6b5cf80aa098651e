// numpy's array routines that rearrange, build, sort or search arrays
// (stack, split, flip, roll, tile, repeat, tril, triu, diff, linspace,
// meshgrid, eye; argsort, sort, take_along_axis, searchsorted, interp,
// top_k, median, quantile; segment_sum, segment_max, segment_min, bincount;
// outer and cross), composed of the traced ops (adjit.argsort,
// adjit.search_sorted, adjit.scatter_add and adjit.scatter_extremum where
// named; otherwise gathers, slices and arithmetic): their gradients are
// those ops' rules, and each checks its own arguments, so that errors name
// it.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace adjit {

using detail::describe;
using detail::Recorder;

namespace {

// x[start:limit] along `axis`.
Tensor part(const Tensor& x, int axis, int64_t start, int64_t limit, SourceLocation loc) {
  Shape starts(x.rank(), 0), limits = x.shape();
  starts[axis] = start;
  limits[axis] = limit;
  return slice(x, starts, limits, {}, loc);
}

// x with `axis` moved to position `to`.
Tensor move_axis(const Tensor& x, int axis, int to, SourceLocation loc) {
  if (axis == to) return x;
  std::vector<int> perm;
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis) perm.push_back(d);
  perm.insert(perm.begin() + to, axis);
  return transpose(x, perm, loc);
}

int64_t element_count(const Tensor& x) {
  int64_t n = 1;
  for (int64_t d : x.shape()) n *= d;
  return n;
}

// Row indices [m, 1] and column indices [1, n] of an m x n matrix (i64).
std::pair<Tensor, Tensor> matrix_indices(int64_t m, int64_t n, SourceLocation loc) {
  return {reshape(arange(m, DType::i64, loc), {m, 1}, loc),
          reshape(arange(n, DType::i64, loc), {1, n}, loc)};
}

// The matrices of x with the elements outside the triangle below (`lower`)
// or above diagonal k set to zero.
Tensor triangle(const char* name, const Tensor& x, int k, bool lower, SourceLocation loc) {
  Recorder r(name, loc, {&x});
  if (x.rank() < 2) r.fail(fmt::format("needs at least 2 dimensions, got {}", describe(x)));
  detail::AtUserLine at_user(loc);
  auto [row, col] = matrix_indices(x.shape()[x.rank() - 2], x.shape()[x.rank() - 1], loc);
  Tensor kept = lower ? col <= row + k : col >= row + k;
  return where(kept, x, zeros_like(x, loc), loc);
}

// x rolled by `shift` along `axis`.
Tensor roll_axis(const Tensor& x, int64_t shift, int axis, SourceLocation loc) {
  int64_t n = x.shape()[axis];
  if (n == 0) return x;
  int64_t s = ((shift % n) + n) % n;
  if (s == 0) return x;
  return concat({part(x, axis, n - s, n, loc), part(x, axis, 0, n - s, loc)}, axis, loc);
}

}  // namespace

Tensor stack(const std::vector<Tensor>& xs, int axis, SourceLocation loc) {
  Recorder r("stack", loc, {xs.empty() ? nullptr : &xs.front()});
  if (xs.empty()) r.fail("needs at least one tensor");
  int a = r.axis(axis, xs.front().rank() + 1, xs.front());
  for (size_t i = 1; i < xs.size(); ++i)
    if (xs[i].shape() != xs.front().shape())
      r.fail(fmt::format("needs tensors of one shape: {} (the first) and {} (number {})",
                         describe(xs.front()), describe(xs[i]), i));
  detail::AtUserLine at_user(loc);
  std::vector<Tensor> parts;
  for (const Tensor& t : xs) parts.push_back(expand_dims(t, a, loc));
  return concat(parts, a, loc);
}

std::vector<Tensor> split(const Tensor& x, IndicesOrSections indices_or_sections, int axis,
                          SourceLocation loc) {
  Recorder r("split", loc, {&x});
  if (x.rank() == 0) r.fail(fmt::format("cannot split the 0-d {}", describe(x)));
  int a = r.axis(axis, x.rank(), x);
  int64_t n = x.shape()[a];
  std::vector<int64_t> bounds{0};
  if (auto sections = indices_or_sections.sections) {
    if (*sections < 1) r.fail(fmt::format("needs at least one section, got {}", *sections));
    if (n % *sections)
      r.fail(fmt::format("{} sections do not divide axis {} of {} equally", *sections, a,
                         describe(x)));
    for (int64_t i = 1; i < *sections; ++i) bounds.push_back(i * (n / *sections));
  } else {
    // As Python's slices: a negative index counts from the end, and each
    // is clamped to the axis.
    for (int64_t index : indices_or_sections.indices)
      bounds.push_back(std::clamp<int64_t>(index < 0 ? index + n : index, 0, n));
  }
  bounds.push_back(n);
  detail::AtUserLine at_user(loc);
  std::vector<Tensor> sections;
  for (size_t i = 0; i + 1 < bounds.size(); ++i)
    sections.push_back(part(x, a, bounds[i], std::max(bounds[i], bounds[i + 1]), loc));
  return sections;
}

Tensor flip(const Tensor& x, Axes axes, SourceLocation loc) {
  Recorder r("flip", loc, {&x});
  std::vector<int64_t> dims = r.axes(axes, x);
  detail::AtUserLine at_user(loc);
  // Each axis gathered in reverse: n - 1, n - 2, ..., 0.
  Tensor flipped = x;
  for (int64_t d : dims) {
    int64_t n = x.shape()[d];
    if (n > 1)
      flipped = take(flipped, (n - 1) - arange(n, DType::i64, loc), static_cast<int>(d), loc);
  }
  return flipped;
}

Tensor roll(const Tensor& x, int64_t shift, std::optional<int> axis, SourceLocation loc) {
  Recorder r("roll", loc, {&x});
  if (axis) return roll_axis(x, shift, r.axis(*axis, x.rank(), x), loc);
  detail::AtUserLine at_user(loc);
  return reshape(roll_axis(reshape(x, {element_count(x)}, loc), shift, 0, loc), x.shape(), loc);
}

Tensor roll(const Tensor& x, Shape shifts, Axes axes, SourceLocation loc) {
  Recorder r("roll", loc, {&x});
  if (shifts.size() != axes.size())
    r.fail(fmt::format("needs one shift per axis, got shifts [{}] for axes [{}]",
                       fmt::join(shifts, ","), fmt::join(axes, ",")));
  detail::AtUserLine at_user(loc);
  Tensor rolled = x;
  for (size_t i = 0; i < axes.size(); ++i)
    rolled = roll_axis(rolled, shifts[i], r.axis(axes[i], x.rank(), x), loc);
  return rolled;
}

Tensor tile(const Tensor& x, Shape reps, SourceLocation loc) {
  Recorder r("tile", loc, {&x});
  for (int64_t rep : reps)
    if (rep < 0) r.fail(fmt::format("reps [{}] must not be negative", fmt::join(reps, ",")));
  size_t rank = std::max<size_t>(x.rank(), reps.size());
  Shape dims = x.shape();
  dims.insert(dims.begin(), rank - dims.size(), 1);
  reps.insert(reps.begin(), rank - reps.size(), 1);
  // Each dimension d as [1, dims[d]], broadcast to [reps[d], dims[d]] and
  // flattened.
  Shape spread, copies, tiled;
  for (size_t d = 0; d < rank; ++d) {
    spread.insert(spread.end(), {1, dims[d]});
    copies.insert(copies.end(), {reps[d], dims[d]});
    tiled.push_back(r.extent(static_cast<__int128>(reps[d]) * dims[d], d));
  }
  r.check_size(x.dtype(), tiled);
  detail::AtUserLine at_user(loc);
  return reshape(broadcast_to(reshape(x, spread, loc), copies, loc), tiled, loc);
}

Tensor repeat(const Tensor& x, int64_t repeats, std::optional<int> axis, SourceLocation loc) {
  Recorder r("repeat", loc, {&x});
  if (repeats < 0) r.fail(fmt::format("repeats {} must not be negative", repeats));
  int a = axis ? r.axis(*axis, x.rank(), x) : 0;
  detail::AtUserLine at_user(loc);
  Tensor v = axis ? x : reshape(x, {element_count(x)}, loc);
  // A new axis after `a`, broadcast to `repeats` and merged into it.
  Shape spread = v.shape(), copies = v.shape(), repeated = v.shape();
  spread.insert(spread.begin() + a + 1, 1);
  copies.insert(copies.begin() + a + 1, repeats);
  repeated[a] = r.extent(static_cast<__int128>(repeated[a]) * repeats, a);
  r.check_size(x.dtype(), repeated);
  return reshape(broadcast_to(reshape(v, spread, loc), copies, loc), repeated, loc);
}

Tensor tril(const Tensor& x, int k, SourceLocation loc) {
  return triangle("tril", x, k, /*lower=*/true, loc);
}
Tensor triu(const Tensor& x, int k, SourceLocation loc) {
  return triangle("triu", x, k, /*lower=*/false, loc);
}

Tensor diff(const Tensor& x, int n, int axis, SourceLocation loc) {
  Recorder r("diff", loc, {&x});
  if (n < 0) r.fail(fmt::format("the order n = {} must not be negative", n));
  if (x.rank() == 0) r.fail(fmt::format("needs at least 1 dimension, got {}", describe(x)));
  int a = r.axis(axis, x.rank(), x);
  detail::AtUserLine at_user(loc);
  Tensor d = x;
  for (int i = 0; i < n; ++i) {
    int64_t length = d.shape()[a];
    if (length == 0) break;
    Tensor later = part(d, a, 1, length, loc), earlier = part(d, a, 0, length - 1, loc);
    d = d.dtype() == DType::i1 ? not_equal(later, earlier, loc) : later - earlier;
  }
  return d;
}

namespace {
// argsort along the last axis of x (bools as i32): the whole permutation,
// or with `first` its first positions only (a partial sort).
// `total_order`: floats in IEEE 754's totalOrder (lax.top_k's).
Tensor argsort_rows(Recorder& r, const Tensor& x, bool descending, bool total_order = false,
                    std::optional<int64_t> first = std::nullopt) {
  Tensor keys = x.dtype() == DType::i1 ? r.convert(x, DType::i32) : x;
  Shape shape = x.shape();
  if (first) shape.back() = *first;
  return r.emit<mlir::adjit::ArgsortOp>(r.type(DType::i32, shape), r.value(keys), descending,
                                        total_order);
}
}  // namespace

Tensor argsort(const Tensor& x, int axis, bool descending, SourceLocation loc) {
  Recorder r("argsort", loc, {&x});
  if (x.rank() == 0) r.fail(fmt::format("needs at least 1 dimension, got {}", describe(x)));
  int a = r.axis(axis, x.rank(), x);
  detail::AtUserLine at_user(loc);
  int last = x.rank() - 1;
  return move_axis(argsort_rows(r, move_axis(x, a, last, loc), descending), last, a, loc);
}

Tensor sort(const Tensor& x, int axis, bool descending, SourceLocation loc) {
  Recorder r("sort", loc, {&x});
  if (x.rank() == 0) r.fail(fmt::format("needs at least 1 dimension, got {}", describe(x)));
  int a = r.axis(axis, x.rank(), x);
  detail::AtUserLine at_user(loc);
  return take_along_axis(x, argsort(x, a, descending, loc), a, loc);
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, int axis, SourceLocation loc) {
  Recorder r("take_along_axis", loc, {&x, &indices});
  if (indices.dtype() != DType::i32 && indices.dtype() != DType::i64)
    r.fail(fmt::format("needs integer indices, got {}", describe(indices)));
  if (indices.rank() != x.rank() || x.rank() == 0)
    r.fail(fmt::format("needs indices of x's rank (at least 1), got {} for {}", describe(indices),
                       describe(x)));
  int a = r.axis(axis, x.rank(), x);
  int64_t n = x.shape()[a], m = indices.shape()[a];
  Shape others_x = x.shape(), others_i = indices.shape();
  others_x[a] = others_i[a] = 1;
  auto others = detail::broadcast_shapes(others_x, others_i);
  if (!others)
    r.fail(fmt::format("the indices {} and {} cannot be broadcast together (but for axis {})",
                       describe(indices), describe(x), a));
  Shape result_shape = *others;
  result_shape[a] = m;
  r.check_size(x.dtype(), result_shape);
  int64_t results = 1;
  for (int64_t d : result_shape) results *= d;
  if (results == 0) return r.constant(0, x.dtype(), result_shape);
  if (n == 0) r.fail(fmt::format("cannot take from the empty axis {} of {}", a, describe(x)));
  detail::AtUserLine at_user(loc);
  // Both broadcast, the axis moved last and the rows flattened: each row's
  // indices offset by the row's start in x flattened, one take.
  Shape x_shape = *others, i_shape = *others;
  x_shape[a] = n;
  i_shape[a] = m;
  int last = x.rank() - 1;
  Tensor values = move_axis(broadcast_to(x, x_shape, loc), a, last, loc);
  Tensor positions = cast(move_axis(broadcast_to(indices, i_shape, loc), a, last, loc), DType::i64, loc);
  int64_t rows = results / m;
  positions = where(positions < 0, positions + n, positions, loc);
  positions = clip(positions, 0, n - 1, loc);
  positions = reshape(positions, {rows, m}, loc) + reshape(arange(rows, DType::i64, loc) * n, {rows, 1}, loc);
  Tensor taken = take(reshape(values, {rows * n}, loc), reshape(positions, {rows * m}, loc), 0, loc);
  Shape moved = values.shape();
  moved[last] = m;
  return move_axis(reshape(taken, moved, loc), last, a, loc);
}

Tensor searchsorted(const Tensor& a, const Tensor& v, const std::string& side,
                    SourceLocation loc) {
  Recorder r("searchsorted", loc, {&a, &v});
  if (side != "left" && side != "right")
    r.fail(fmt::format("side must be \"left\" or \"right\", got \"{}\"", side));
  if (a.rank() != 1) r.fail(fmt::format("needs a sorted vector, got {}", describe(a)));
  // Compared in their common dtype (bools as i32).
  DType dtype = detail::promote(a.dtype(), v.dtype());
  if (dtype == DType::i1) dtype = DType::i32;
  return r.emit<mlir::adjit::SearchSortedOp>(r.type(DType::i32, v.shape()),
                                              r.value(r.convert(a, dtype)),
                                              r.value(r.convert(v, dtype)), side == "right");
}

Tensor interp(const Tensor& x, const Tensor& xp, const Tensor& fp, std::optional<double> left,
              std::optional<double> right, SourceLocation loc) {
  Recorder r("interp", loc, {&x, &xp, &fp});
  if (xp.rank() != 1 || fp.rank() != 1 || xp.shape() != fp.shape() || xp.shape()[0] == 0)
    r.fail(fmt::format("needs points xp and fp as two vectors of one length (at least 1), got {} "
                       "and {}",
                       describe(xp), describe(fp)));
  DType dtype = detail::promote(detail::promote(x.dtype(), xp.dtype()), fp.dtype());
  if (!is_floating(dtype)) dtype = DType::f32;
  Tensor at = r.convert(x, dtype), xs = r.convert(xp, dtype), fs = r.convert(fp, dtype);
  int64_t n = xp.shape()[0];
  detail::AtUserLine at_user(loc);
  // As JAX: the segment [xp[i - 1], xp[i]] that x falls in (the first or
  // last beyond the ends), and no division where it is (nearly) empty.
  Tensor i = clip(searchsorted(xs, at, "right", loc), 1, n - 1, loc);
  Tensor x0 = take(xs, i - 1, 0, loc), f0 = take(fs, i - 1, 0, loc);
  Tensor dx = take(xs, i, 0, loc) - x0, df = take(fs, i, 0, loc) - f0;
  double epsilon = dtype == DType::f64 ? 0x1p-104 : dtype == DType::f32 ? 0x1p-46
                 : dtype == DType::f16 ? 0x1p-20 : 0x1p-14;  // spacing(eps)
  Tensor empty = abs(dx, loc) <= epsilon;
  Tensor f = where(empty, f0, f0 + (at - x0) / where(empty, 1, dx, loc) * df, loc);
  auto end = [&](const Tensor& t, int64_t k) { return reshape(part(t, 0, k, k + 1, loc), {}, loc); };
  Tensor below = left ? full({}, *left, dtype, loc) : end(fs, 0);
  Tensor above = right ? full({}, *right, dtype, loc) : end(fs, n - 1);
  f = where(at < end(xs, 0), below, f, loc);
  return where(at > end(xs, n - 1), above, f, loc);
}

TopKResult top_k(const Tensor& x, int64_t k, SourceLocation loc) {
  Recorder r("top_k", loc, {&x});
  if (x.rank() == 0) r.fail(fmt::format("needs at least 1 dimension, got {}", describe(x)));
  int64_t n = x.shape().back();
  if (k < 0 || k > n)
    r.fail(fmt::format("k = {} must lie in [0, {}] for {}", k, n, describe(x)));
  detail::AtUserLine at_user(loc);
  Tensor indices = argsort_rows(r, x, /*descending=*/true, /*total_order=*/true, k);
  return {take_along_axis(x, indices, x.rank() - 1, loc), indices};
}

namespace {
// The q-quantile over `axes` with linear interpolation (JAX's weights);
// errors name `name`.
Tensor quantile_of(const char* name, const Tensor& x, double q, const Axes& axes, bool keepdims,
                   SourceLocation loc) {
  Recorder r(name, loc, {&x});
  if (!(q >= 0 && q <= 1))
    r.fail(fmt::format("q = {} is outside [0, 1] ([0, 100] for percentile)", q));
  std::vector<int64_t> dims = r.axes(axes, x);
  detail::AtUserLine at_user(loc);
  // The reduced axes moved last and flattened into one.
  std::vector<int> perm;
  Shape kept, with_ones;
  int64_t n = 1;
  for (int d = 0; d < x.rank(); ++d) {
    bool reduced = std::binary_search(dims.begin(), dims.end(), int64_t{d});
    if (!reduced) perm.push_back(d), kept.push_back(x.shape()[d]);
    with_ones.push_back(reduced ? 1 : x.shape()[d]);
  }
  for (int64_t d : dims) perm.push_back(static_cast<int>(d)), n *= x.shape()[d];
  Shape result = keepdims ? with_ones : kept;
  Tensor v = is_floating(x.dtype()) ? x : cast(x, DType::f32, loc);
  double nan = std::numeric_limits<double>::quiet_NaN();
  if (n == 0) return full(result, nan, v.dtype(), loc);
  Shape rows = kept;
  rows.push_back(n);
  Tensor sorted = sort(reshape(transpose(v, perm, loc), rows, loc), -1, false, loc);
  int last = static_cast<int>(kept.size());
  double h = q * static_cast<double>(n - 1);
  int64_t low = static_cast<int64_t>(std::floor(h)), high = static_cast<int64_t>(std::ceil(h));
  double w = h - static_cast<double>(low);
  Tensor value = part(sorted, last, low, low + 1, loc) * (1 - w) +
                 part(sorted, last, high, high + 1, loc) * w;
  // NaN sorts last: the last element says whether any is NaN.
  Tensor any_nan = isnan(part(sorted, last, n - 1, n, loc), loc);
  return reshape(where(any_nan, nan, value, loc), result, loc);
}
}  // namespace

Tensor median(const Tensor& x, Axes axes, bool keepdims, SourceLocation loc) {
  return quantile_of("median", x, 0.5, axes, keepdims, loc);
}
Tensor quantile(const Tensor& x, double q, Axes axes, bool keepdims, SourceLocation loc) {
  return quantile_of("quantile", x, q, axes, keepdims, loc);
}
Tensor percentile(const Tensor& x, double q, Axes axes, bool keepdims, SourceLocation loc) {
  return quantile_of("percentile", x, q / 100, axes, keepdims, loc);
}

namespace {
// The work of segment_sum, segment_max and segment_min, errors named by
// `r`: the rows of `data` combined by `kind` into `num_segments` rows by
// id, starting from the combiner's identity (0, the lowest or the highest
// value); rows with ids out of range are dropped.
Tensor combine_by_id(Recorder& r, const Tensor& data, const Tensor& ids, int64_t num_segments,
                     mlir::adjit::ReduceKind kind, SourceLocation loc) {
  using mlir::adjit::ReduceKind;
  if (ids.dtype() != DType::i32 && ids.dtype() != DType::i64)
    r.fail(fmt::format("needs integer ids, got {}", describe(ids)));
  if (ids.rank() != 1 || data.rank() == 0 || data.shape()[0] != ids.shape()[0])
    r.fail(fmt::format("needs one id per row of the data, got ids {} for data {}", describe(ids),
                       describe(data)));
  if (num_segments < 0) r.fail(fmt::format("num_segments = {} must not be negative", num_segments));
  Shape shape = data.shape();
  shape[0] = num_segments;
  r.check_size(data.dtype(), shape);
  // Rows go to num_segments + 1 (the dropped ones last), counted in ids'
  // dtype.
  if (num_segments >= std::numeric_limits<int64_t>::max() ||
      (ids.dtype() == DType::i32 && num_segments >= std::numeric_limits<int32_t>::max()))
    r.fail(fmt::format("cannot number {} segments with {} ids", num_segments,
                       dtype_name(ids.dtype())));
  // Bools add as i32, and take their max and min as 0 and 1.
  bool bools = data.dtype() == DType::i1;
  Tensor v = bools ? r.convert(data, DType::i32) : data;
  Tensor identity = [&] {
    if (kind == ReduceKind::sum) return r.constant(0, v.dtype(), {});
    bool lowest = kind == ReduceKind::max;
    if (bools) return r.integer_constant(lowest ? 0 : 1, v.dtype(), {});
    if (v.dtype() == DType::i32 || v.dtype() == DType::i64) {
      bool wide = v.dtype() == DType::i64;
      int64_t low = wide ? std::numeric_limits<int64_t>::min()
                         : std::numeric_limits<int32_t>::min();
      int64_t high = wide ? std::numeric_limits<int64_t>::max()
                          : std::numeric_limits<int32_t>::max();
      return r.integer_constant(lowest ? low : high, v.dtype(), {});
    }
    double infinity = std::numeric_limits<double>::infinity();
    return r.constant(lowest ? -infinity : infinity, v.dtype(), {});
  }();
  detail::AtUserLine at_user(loc);
  auto result = [&](const Tensor& t) {
    return bools && kind != ReduceKind::sum ? cast(t, DType::i1, loc) : t;
  };
  if (num_segments == 0 || data.shape()[0] == 0) return result(broadcast_to(identity, shape, loc));
  // Dropped rows go to one more segment, sliced off: the data is read once,
  // by the scatter, not masked first.
  Shape padded = shape;
  padded[0] = num_segments + 1;
  Tensor base = broadcast_to(identity, padded, loc);
  Tensor valid = logical_and(ids >= 0, ids < num_segments, loc);
  Tensor rows = where(valid, ids, num_segments, loc);
  mlir::Type type = r.type(v.dtype(), padded);
  Tensor combined =
      kind == ReduceKind::sum
          ? r.emit<mlir::adjit::ScatterAddOp>(type, r.value(base), r.value(rows), r.value(v),
                                               int64_t{0})
          : r.emit<mlir::adjit::ScatterExtremumOp>(type, kind, r.value(base), r.value(rows),
                                                   r.value(v), int64_t{0});
  return result(part(combined, 0, 0, num_segments, loc));
}
}  // namespace

Tensor segment_sum(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                   SourceLocation loc) {
  Recorder r("segment_sum", loc, {&data, &segment_ids});
  return combine_by_id(r, data, segment_ids, num_segments, mlir::adjit::ReduceKind::sum, loc);
}

Tensor segment_max(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                   SourceLocation loc) {
  Recorder r("segment_max", loc, {&data, &segment_ids});
  return combine_by_id(r, data, segment_ids, num_segments, mlir::adjit::ReduceKind::max, loc);
}

Tensor segment_min(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                   SourceLocation loc) {
  Recorder r("segment_min", loc, {&data, &segment_ids});
  return combine_by_id(r, data, segment_ids, num_segments, mlir::adjit::ReduceKind::min, loc);
}

Tensor bincount(const Tensor& x, int64_t length, SourceLocation loc) {
  Recorder r("bincount", loc, {&x});
  detail::AtUserLine at_user(loc);
  return bincount(x, ones_like(cast(x, DType::i32, loc), loc), length, loc);
}

Tensor bincount(const Tensor& x, const Tensor& weights, int64_t length, SourceLocation loc) {
  Recorder r("bincount", loc, {&x, &weights});
  if (x.dtype() != DType::i32 && x.dtype() != DType::i64 && x.dtype() != DType::i1)
    r.fail(fmt::format("needs integers, got {}", describe(x)));
  if (x.rank() != 1 || weights.shape() != x.shape())
    r.fail(fmt::format("needs a vector and weights of its shape, got {} and {}", describe(x),
                       describe(weights)));
  detail::AtUserLine at_user(loc);
  Tensor bins = maximum(cast(x, x.dtype() == DType::i1 ? DType::i32 : x.dtype(), loc), 0, loc);
  return combine_by_id(r, weights, bins, length, mlir::adjit::ReduceKind::sum, loc);
}

Tensor outer(const Tensor& a, const Tensor& b, SourceLocation loc) {
  Recorder r("outer", loc, {&a, &b});
  detail::AtUserLine at_user(loc);
  return reshape(a, {element_count(a), 1}, loc) * reshape(b, {1, element_count(b)}, loc);
}

Tensor cross(const Tensor& a, const Tensor& b, int axis, SourceLocation loc) {
  Recorder r("cross", loc, {&a, &b});
  if (a.rank() == 0 || b.rank() == 0)
    r.fail(fmt::format("needs vectors, got {} and {}", describe(a), describe(b)));
  int axis_a = r.axis(axis, a.rank(), a), axis_b = r.axis(axis, b.rank(), b);
  if (a.shape()[axis_a] != 3 || b.shape()[axis_b] != 3)
    r.fail(fmt::format("needs vectors of 3 elements along axis {}, got {} and {}", axis,
                       describe(a), describe(b)));
  Shape leading_a = a.shape(), leading_b = b.shape();
  leading_a.erase(leading_a.begin() + axis_a);
  leading_b.erase(leading_b.begin() + axis_b);
  if (!detail::broadcast_shapes(leading_a, leading_b))
    r.fail(fmt::format("the vectors of {} and {} cannot be broadcast together", describe(a),
                       describe(b)));
  detail::AtUserLine at_user(loc);
  Tensor u = move_axis(a, axis_a, a.rank() - 1, loc), v = move_axis(b, axis_b, b.rank() - 1, loc);
  auto component = [&](const Tensor& t, int i) { return part(t, t.rank() - 1, i, i + 1, loc); };
  auto term = [&](int i, int j) {
    return component(u, i) * component(v, j) - component(u, j) * component(v, i);
  };
  Tensor c = concat({term(1, 2), term(2, 0), term(0, 1)}, -1, loc);
  return move_axis(c, c.rank() - 1, r.axis(axis, c.rank(), c), loc);
}

Tensor linspace(double start, double stop, int64_t num, bool endpoint, DType dtype,
                SourceLocation loc) {
  Recorder r("linspace", loc, {});
  if (num < 0) r.fail(fmt::format("needs num >= 0, got {}", num));
  detail::AtUserLine at_user(loc);
  // start + i step in f64 (the last exactly stop with `endpoint`), as
  // numpy computes it, then one rounding.
  int64_t steps = endpoint ? num - 1 : num;
  double step = steps > 0 ? (stop - start) / static_cast<double>(steps) : 0;
  Tensor values = arange(num, DType::f64, loc) * step + start;
  if (endpoint && num > 1)
    values = where(adjit::equal(arange(num, DType::i64, loc), num - 1, loc), stop, values, loc);
  return cast(values, dtype, loc);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing,
                             SourceLocation loc) {
  Recorder r("meshgrid", loc, {xs.empty() ? nullptr : &xs.front()});
  if (indexing != "xy" && indexing != "ij")
    r.fail(fmt::format("indexing must be \"xy\" or \"ij\", got \"{}\"", indexing));
  for (const Tensor& x : xs)
    if (x.rank() != 1) r.fail(fmt::format("needs vectors, got {}", describe(x)));
  detail::AtUserLine at_user(loc);
  Shape shape;
  for (const Tensor& x : xs) shape.push_back(x.shape()[0]);
  bool swapped = indexing == "xy" && xs.size() >= 2;
  if (swapped) std::swap(shape[0], shape[1]);
  std::vector<Tensor> grids;
  for (size_t i = 0; i < xs.size(); ++i) {
    // Vector i varies along axis i (axes 0 and 1 swapped for "xy").
    size_t axis = swapped && i < 2 ? 1 - i : i;
    Shape along(xs.size(), 1);
    along[axis] = xs[i].shape()[0];
    grids.push_back(broadcast_to(reshape(xs[i], along, loc), shape, loc));
  }
  return grids;
}

Tensor eye(int64_t n, std::optional<int64_t> m, int k, DType dtype, SourceLocation loc) {
  Recorder r("eye", loc, {});
  int64_t columns = m.value_or(n);
  if (n < 0 || columns < 0)
    r.fail(fmt::format("needs sizes >= 0, got {} x {}", n, columns));
  r.check_size(dtype, {n, columns});
  detail::AtUserLine at_user(loc);
  auto [row, col] = matrix_indices(n, columns, loc);
  return cast(adjit::equal(row + k, col, loc), dtype, loc);
}

}  // namespace adjit
