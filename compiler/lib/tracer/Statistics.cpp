// numpy's histograms and covariances (histogram, histogram_bin_edges, cov,
// corrcoef), composed as JAX composes them: bins by searchsorted and
// counts by bincount (adjit.search_sorted, adjit.scatter_add); covariances
// by a centered matmul. Differentiable where JAX's are: histogram in its
// weights, cov and corrcoef in their data.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <limits>

#include <fmt/format.h>

namespace adjit {

using detail::describe;
using detail::Recorder;

namespace {

// `bins` + 1 evenly spaced edges from lo to hi (0-d Tensors), exactly hi
// last, as jnp.linspace computes them: lo (1 - s) + hi s with s = i / bins.
Tensor even_edges(const Tensor& lo, const Tensor& hi, int64_t bins, SourceLocation loc) {
  Tensor s = arange(bins + 1, lo.dtype(), loc) / static_cast<double>(bins);
  Tensor edges = lo * (1.0 - s) + hi * s;
  return where(adjit::equal(arange(bins + 1, DType::i32, loc), bins, loc), hi, edges, loc);
}

void check_bins(Recorder& r, int64_t bins) {
  if (bins < 1) r.fail(fmt::format("needs at least one bin, got bins = {}", bins));
  // Its bin edges are one vector, and a bin's index an i32.
  if (bins > std::numeric_limits<int32_t>::max() - 1)
    r.fail(fmt::format("bins = {} is more than i32 indices count", bins));
}

Tensor bin_edges_of(Recorder& r, const Tensor& a, int64_t bins,
                    std::optional<std::pair<double, double>> range, SourceLocation loc) {
  check_bins(r, bins);
  if (range && !(range->first <= range->second))
    r.fail(fmt::format("range ({}, {}) must have its lower end first", range->first,
                       range->second));
  if (!range && a.size() == 0)
    r.fail(fmt::format("of the empty {} needs a range", describe(a)));
  detail::AtUserLine at_user(loc);
  DType dtype = detail::inexact(a.dtype());
  Tensor values = cast(a, dtype, loc);
  Tensor lo = range ? full({}, range->first, dtype, loc) : min(values, {}, false, loc);
  Tensor hi = range ? full({}, range->second, dtype, loc) : max(values, {}, false, loc);
  // An empty range widens to half a unit each way, as numpy's.
  Tensor flat = adjit::equal(lo, hi, loc);
  return even_edges(where(flat, lo - 0.5, lo, loc), where(flat, hi + 0.5, hi, loc), bins, loc);
}

HistogramResult histogram_over(Recorder& r, const Tensor& a, const Tensor& edges,
                               const std::optional<Tensor>& weights, bool density,
                               SourceLocation loc) {
  if (weights && weights->shape() != a.shape())
    r.fail(fmt::format("weights {} must have the shape of a {}", describe(*weights),
                       describe(a)));
  detail::AtUserLine at_user(loc);
  int64_t n = a.size(), bins = edges.shape()[0] - 1;
  Tensor values = reshape(cast(a, edges.dtype(), loc), {n}, loc);
  // Bin i holds edges[i] <= v < edges[i + 1], the last bin its right edge
  // too; below the first edge goes to slot 0 and past the last to slot
  // bins + 1, both dropped.
  Tensor slot = searchsorted(edges, values, "right", loc);
  Tensor last_edge = slice(edges, {bins}, {bins + 1}, {}, loc);
  slot = where(adjit::equal(values, last_edge, loc), bins, slot, loc);
  Tensor counts =
      weights ? bincount(slot, reshape(*weights, {n}, loc), bins + 1, loc) : bincount(slot, bins + 1, loc);
  Tensor hist = slice(counts, {1}, {bins + 1}, {}, loc);
  if (density) {
    Tensor real = cast(hist, detail::inexact(hist.dtype()), loc);
    hist = real / diff(edges, 1, 0, loc) / sum(real, {}, false, loc);
  }
  return {hist, edges};
}

}  // namespace

Tensor histogram_bin_edges(const Tensor& a, int64_t bins,
                           std::optional<std::pair<double, double>> range, SourceLocation loc) {
  Recorder r("histogram_bin_edges", loc, {&a});
  return bin_edges_of(r, a, bins, range, loc);
}

HistogramResult histogram(const Tensor& a, int64_t bins,
                          std::optional<std::pair<double, double>> range,
                          std::optional<Tensor> weights, bool density, SourceLocation loc) {
  Recorder r("histogram", loc, {&a});
  return histogram_over(r, a, bin_edges_of(r, a, bins, range, loc), weights, density, loc);
}

HistogramResult histogram(const Tensor& a, const Tensor& bin_edges, std::optional<Tensor> weights,
                          bool density, SourceLocation loc) {
  Recorder r("histogram", loc, {&a, &bin_edges});
  if (bin_edges.rank() != 1 || bin_edges.shape()[0] < 2)
    r.fail(fmt::format("needs bin_edges as a vector of at least 2 edges, got {}",
                       describe(bin_edges)));
  DType dtype = detail::inexact(detail::promote(a.dtype(), bin_edges.dtype()));
  return histogram_over(r, a, cast(bin_edges, dtype, loc), weights, density, loc);
}

Tensor cov(const Tensor& m, bool rowvar, bool bias, std::optional<int64_t> ddof,
           SourceLocation loc) {
  Recorder r("cov", loc, {&m});
  if (m.rank() > 2)
    r.fail(fmt::format("needs a vector or a matrix of observations, got {}", describe(m)));
  detail::AtUserLine at_user(loc);
  Tensor x = cast(m, detail::inexact(m.dtype()), loc);
  if (x.rank() < 2) x = reshape(x, {1, x.size()}, loc);
  if (!rowvar && x.shape()[0] != 1) x = transpose(x, {1, 0}, loc);
  int64_t variables = x.shape()[0], observations = x.shape()[1];
  double divisor = static_cast<double>(observations - ddof.value_or(bias ? 0 : 1));
  Tensor centered = x - mean(x, {1}, true, loc);
  Tensor c = matmul(centered, transpose(centered, {1, 0}, loc), loc) / divisor;
  return variables == 1 ? reshape(c, {}, loc) : c;
}

Tensor corrcoef(const Tensor& x, bool rowvar, SourceLocation loc) {
  Recorder r("corrcoef", loc, {&x});
  detail::AtUserLine at_user(loc);
  Tensor c = cov(x, rowvar, false, std::nullopt, loc);
  if (c.rank() == 0) return c / c;
  Tensor deviation = sqrt(diagonal(c, 0, 0, 1, loc), loc);
  int64_t n = deviation.size();
  return clip(c / reshape(deviation, {n, 1}, loc) / reshape(deviation, {1, n}, loc), -1.0, 1.0,
              loc);
}

}  // namespace adjit
