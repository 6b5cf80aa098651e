// Tensor products (jnp.tensordot, inner, vdot, kron): reshapes and
// transposes around one matmul (or a broadcast product), so that they take
// matmul's promotion, kernels and gradients.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace adjit {

using detail::describe;
using detail::Recorder;

namespace {

int64_t product_of(const Shape& shape, const std::vector<int>& dims) {
  int64_t n = 1;
  for (int d : dims) n *= shape[d];
  return n;
}

// a's free dimensions then b's, after contracting a's `contract_a` with
// b's `contract_b` (normalized, distinct, pairwise of equal sizes).
Tensor contract(const Tensor& a, const Tensor& b, const std::vector<int>& contract_a,
                const std::vector<int>& contract_b, SourceLocation loc) {
  std::vector<int> free_a, free_b;
  for (int d = 0; d < a.rank(); ++d)
    if (std::find(contract_a.begin(), contract_a.end(), d) == contract_a.end()) free_a.push_back(d);
  for (int d = 0; d < b.rank(); ++d)
    if (std::find(contract_b.begin(), contract_b.end(), d) == contract_b.end()) free_b.push_back(d);
  std::vector<int> perm_a = free_a, perm_b = contract_b;
  perm_a.insert(perm_a.end(), contract_a.begin(), contract_a.end());
  perm_b.insert(perm_b.end(), free_b.begin(), free_b.end());
  int64_t k = product_of(a.shape(), contract_a);
  Tensor left = reshape(transpose(a, perm_a, loc), {product_of(a.shape(), free_a), k}, loc);
  Tensor right = reshape(transpose(b, perm_b, loc), {k, product_of(b.shape(), free_b)}, loc);
  Shape shape;
  for (int d : free_a) shape.push_back(a.shape()[d]);
  for (int d : free_b) shape.push_back(b.shape()[d]);
  return reshape(matmul(left, right, loc), shape, loc);
}

}  // namespace

Tensor tensordot(const Tensor& a, const Tensor& b, const Axes& axes_a, const Axes& axes_b,
                 SourceLocation loc) {
  Recorder r("tensordot", loc, {&a, &b});
  if (axes_a.size() != axes_b.size())
    r.fail(fmt::format("needs as many axes of a as of b, got {} and {}", axes_a.size(),
                       axes_b.size()));
  std::vector<int> contract_a, contract_b;
  for (size_t i = 0; i < axes_a.size(); ++i) {
    int da = r.axis(axes_a[i], a.rank(), a), db = r.axis(axes_b[i], b.rank(), b);
    if (std::find(contract_a.begin(), contract_a.end(), da) != contract_a.end() ||
        std::find(contract_b.begin(), contract_b.end(), db) != contract_b.end())
      r.fail(fmt::format("contracts axis {} of a or {} of b twice", axes_a[i], axes_b[i]));
    if (a.shape()[da] != b.shape()[db])
      r.fail(fmt::format("contracts axis {} of a {} ({}) with axis {} of b {} ({})", axes_a[i],
                         describe(a), a.shape()[da], axes_b[i], describe(b), b.shape()[db]));
    contract_a.push_back(da);
    contract_b.push_back(db);
  }
  detail::AtUserLine at_user(loc);
  return contract(a, b, contract_a, contract_b, loc);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int axes, SourceLocation loc) {
  Recorder r("tensordot", loc, {&a, &b});
  if (axes < 0 || axes > a.rank() || axes > b.rank())
    r.fail(fmt::format("axes = {} must lie in [0, {}] for {} and {}", axes,
                       std::min(a.rank(), b.rank()), describe(a), describe(b)));
  Axes last_of_a, first_of_b;
  for (int i = 0; i < axes; ++i) {
    last_of_a.push_back(a.rank() - axes + i);
    first_of_b.push_back(i);
  }
  return tensordot(a, b, last_of_a, first_of_b, loc);
}

Tensor inner(const Tensor& a, const Tensor& b, SourceLocation loc) {
  Recorder r("inner", loc, {&a, &b});
  detail::AtUserLine at_user(loc);
  if (a.rank() == 0 || b.rank() == 0) return a * b;
  if (a.shape().back() != b.shape().back())
    r.fail(fmt::format("needs last axes of one size, got {} and {}", describe(a), describe(b)));
  return contract(a, b, {a.rank() - 1}, {b.rank() - 1}, loc);
}

Tensor vdot(const Tensor& a, const Tensor& b, SourceLocation loc) {
  Recorder r("vdot", loc, {&a, &b});
  int64_t n = product_of(a.shape(), [&] {
    std::vector<int> all(a.rank());
    for (int d = 0; d < a.rank(); ++d) all[d] = d;
    return all;
  }());
  int64_t m = product_of(b.shape(), [&] {
    std::vector<int> all(b.rank());
    for (int d = 0; d < b.rank(); ++d) all[d] = d;
    return all;
  }());
  if (n != m)
    r.fail(fmt::format("needs as many elements in a as in b, got {} and {}", describe(a),
                       describe(b)));
  detail::AtUserLine at_user(loc);
  return contract(reshape(a, {n}, loc), reshape(b, {n}, loc), {0}, {0}, loc);
}

Tensor kron(const Tensor& a, const Tensor& b, SourceLocation loc) {
  Recorder r("kron", loc, {&a, &b});
  detail::AtUserLine at_user(loc);
  // The lower rank padded with leading ones; then a's and b's axes
  // interleaved, each of a's entries times all of b, and each pair merged.
  int rank = std::max(a.rank(), b.rank());
  Shape sa(rank - a.rank(), 1), sb(rank - b.rank(), 1);
  sa.insert(sa.end(), a.shape().begin(), a.shape().end());
  sb.insert(sb.end(), b.shape().begin(), b.shape().end());
  Shape spread_a, spread_b, merged;
  for (int d = 0; d < rank; ++d) {
    spread_a.insert(spread_a.end(), {sa[d], 1});
    spread_b.insert(spread_b.end(), {1, sb[d]});
    merged.push_back(sa[d] * sb[d]);
  }
  return reshape(reshape(a, spread_a, loc) * reshape(b, spread_b, loc), merged, loc);
}

}  // namespace adjit
