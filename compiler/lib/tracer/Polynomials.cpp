// Polynomials of sampled values (jnp.polyval, jnp.vander): Horner's rule
// and running products, elementwise ops that fuse, with exact integer
// powers and the gradients of products and sums.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace adjit {

using detail::describe;
using detail::Recorder;

Tensor polyval(const Tensor& p, const Tensor& x, SourceLocation loc) {
  Recorder r("polyval", loc, {&p, &x});
  if (p.rank() != 1)
    r.fail(fmt::format("needs the coefficients p as a vector, highest degree first, got {}",
                       describe(p)));
  detail::AtUserLine at_user(loc);
  int64_t terms = p.shape()[0];
  // Integers stay integers, as JAX's.
  DType dtype = detail::promote(p.dtype(), x.dtype());
  Tensor coefficients = cast(p, dtype, loc), points = cast(x, dtype, loc);
  // Horner's rule from zero, as JAX's: ((0 x + p0) x + p1) x + ...
  Tensor y = zeros_like(points, loc);
  for (int64_t i = 0; i < terms; ++i)
    y = y * points + reshape(slice(coefficients, {i}, {i + 1}, {}, loc), {}, loc);
  return y;
}

Tensor vander(const Tensor& x, std::optional<int64_t> n, bool increasing, SourceLocation loc) {
  Recorder r("vander", loc, {&x});
  if (x.rank() != 1) r.fail(fmt::format("needs a vector x, got {}", describe(x)));
  int64_t columns = n.value_or(x.shape()[0]);
  if (columns < 0) r.fail(fmt::format("N = {} must not be negative", columns));
  detail::AtUserLine at_user(loc);
  int64_t m = x.shape()[0];
  if (columns == 0) return full({m, 0}, 0, x.dtype(), loc);
  // x^0, x^1, ...: products, exact for integers. A few columns as running
  // products; more (the trace would grow with them) as a cumulative
  // product of x along the row, log2(N) levels deep.
  constexpr int64_t kRunningProducts = 32;
  if (columns <= kRunningProducts) {
    std::vector<Tensor> powers{ones_like(x, loc)};
    while (static_cast<int64_t>(powers.size()) < columns) powers.push_back(powers.back() * x);
    if (!increasing) std::reverse(powers.begin(), powers.end());
    return stack(powers, 1, loc);
  }
  Tensor repeated = broadcast_to(expand_dims(x, 1, loc), {m, columns - 1}, loc);
  Tensor powers = concat({full({m, 1}, 1, x.dtype(), loc), cast(cumprod(repeated, 1, false, loc), x.dtype(), loc)}, 1, loc);
  return increasing ? powers : flip(powers, {1}, loc);
}

}  // namespace adjit
