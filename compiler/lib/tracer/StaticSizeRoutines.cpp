// numpy's routines whose result size depends on the values (nonzero,
// flatnonzero, argwhere, unique, unique_all), with the static `size` that
// JAX requires under jit: the first `size` results, the rest filled. Built
// as JAX builds them, from cumulative sums, counts (adjit.scatter_add) and
// a sort (adjit.argsort); unique's values are a gather of x, so their
// gradient goes to each value's first occurrence.
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace adjit {

using detail::describe;
using detail::Recorder;

namespace {

// Indices are i32, as JAX's: x must have fewer elements than i32 counts.
void check_sizes(Recorder& r, const Tensor& x, int64_t size) {
  if (size < 0) r.fail(fmt::format("size = {} must not be negative", size));
  if (x.size() > std::numeric_limits<int32_t>::max() ||
      size > std::numeric_limits<int32_t>::max())
    r.fail(fmt::format("{} has more elements than its i32 indices can count", describe(x)));
}

// Of the bool vector `mask` [n], the positions (i32 [size]) of its first
// `size` true elements, then n where it has fewer: cumsum(bincount(
// cumsum(mask))), JAX's way (the count of elements before the k-th true one).
Tensor true_positions(const Tensor& mask, int64_t size, SourceLocation loc) {
  Tensor running = cumsum(cast(mask, DType::i32, loc), 0, false, loc);
  return cumsum(bincount(running, size, loc), 0, false, loc);
}

// Whether slot k < size holds one of the mask's true elements.
Tensor filled_slots(const Tensor& mask, int64_t size, SourceLocation loc) {
  return arange(size, DType::i32, loc) < sum(cast(mask, DType::i32, loc), {}, false, loc);
}

// The sorted values of x (flattened), whether each is the first of its run
// of equal values, and the permutation that sorted them.
struct SortedRuns {
  Tensor sorted, first, perm;
};

SortedRuns sorted_runs(const Tensor& x, bool equal_nan, SourceLocation loc) {
  int64_t n = x.size();
  Tensor flat = reshape(x, {n}, loc);
  Tensor perm = argsort(flat, 0, false, loc);
  Tensor sorted = take(flat, perm, 0, loc);
  Tensor head = full({1}, 1, DType::i1, loc);
  if (n == 1) return {sorted, head, perm};
  Tensor next = slice(sorted, {1}, {n}, {}, loc), previous = slice(sorted, {0}, {n - 1}, {}, loc);
  Tensor differs = not_equal(next, previous, loc);
  if (equal_nan && is_floating(x.dtype()))
    differs = logical_and(
        differs, logical_not(logical_and(isnan(next, loc), isnan(previous, loc), loc), loc), loc);
  return {sorted, concat({head, differs}, 0, loc), perm};
}

UniqueAllResult unique_sets(Recorder& r, const Tensor& x, int64_t size,
                            std::optional<double> fill_value, bool equal_nan, SourceLocation loc) {
  check_sizes(r, x, size);
  int64_t n = x.size();
  if (n == 0) {
    if (size > 0 && !fill_value)
      r.fail(fmt::format("of the empty {} needs a fill_value for its {} slots", describe(x), size));
    detail::AtUserLine at_user(loc);
    Tensor no_index = full({size}, 0, DType::i32, loc);
    return {full({size}, fill_value.value_or(0), x.dtype(), loc), no_index,
            full(x.shape(), 0, DType::i32, loc), no_index};
  }
  detail::AtUserLine at_user(loc);
  auto [sorted, first, perm] = sorted_runs(x, equal_nan, loc);
  // Slots past the count read run 0 (position 0), as JAX's, unless filled.
  Tensor positions = true_positions(first, size, loc);
  Tensor valid = filled_slots(first, size, loc);
  positions = where(valid, positions, 0, loc);
  Tensor values = take(sorted, positions, 0, loc);
  if (fill_value) values = where(valid, values, full({}, *fill_value, x.dtype(), loc), loc);
  // Each sorted element's run, sent back to its place in x.
  Tensor run = cumsum(cast(first, DType::i32, loc), 0, false, loc) - 1;
  Tensor inverse = reshape(segment_sum(run, perm, n, loc), x.shape(), loc);
  return {values, take(perm, positions, 0, loc), inverse, bincount(run, size, loc)};
}

}  // namespace

std::vector<Tensor> nonzero(const Tensor& x, int64_t size, std::optional<int64_t> fill_value,
                            SourceLocation loc) {
  Recorder r("nonzero", loc, {&x});
  if (x.rank() == 0)
    r.fail(fmt::format("needs at least one dimension, got {} (use reshape(x, {{1}}))",
                       describe(x)));
  check_sizes(r, x, size);
  detail::AtUserLine at_user(loc);
  int64_t n = x.size();
  if (n == 0)
    return std::vector<Tensor>(x.rank(), full({size}, fill_value.value_or(0), DType::i32, loc));
  Tensor flat = reshape(x, {n}, loc);
  Tensor mask = x.dtype() == DType::i1 ? flat : not_equal(flat, 0, loc);
  Tensor positions = true_positions(mask, size, loc);
  Tensor valid = filled_slots(mask, size, loc);
  // Each dimension's index from the flat position, row-major.
  std::vector<Tensor> indices;
  int64_t stride = n;
  for (int64_t extent : x.shape()) {
    stride /= extent;
    Tensor index = remainder(floor_divide(positions, stride, loc), extent, loc);
    indices.push_back(where(valid, index, fill_value.value_or(0), loc));
  }
  return indices;
}

Tensor flatnonzero(const Tensor& x, int64_t size, std::optional<int64_t> fill_value,
                   SourceLocation loc) {
  Recorder r("flatnonzero", loc, {&x});
  detail::AtUserLine at_user(loc);
  return nonzero(reshape(x, {x.size()}, loc), size, fill_value, loc).front();
}

Tensor argwhere(const Tensor& x, int64_t size, std::optional<int64_t> fill_value,
                SourceLocation loc) {
  Recorder r("argwhere", loc, {&x});
  detail::AtUserLine at_user(loc);
  return stack(nonzero(x, size, fill_value, loc), 1, loc);
}

Tensor unique(const Tensor& x, int64_t size, std::optional<double> fill_value, bool equal_nan,
              SourceLocation loc) {
  Recorder r("unique", loc, {&x});
  return unique_sets(r, x, size, fill_value, equal_nan, loc).values;
}

UniqueAllResult unique_all(const Tensor& x, int64_t size, std::optional<double> fill_value,
                           SourceLocation loc) {
  Recorder r("unique_all", loc, {&x});
  return unique_sets(r, x, size, fill_value, /*equal_nan=*/false, loc);
}

}  // namespace adjit
