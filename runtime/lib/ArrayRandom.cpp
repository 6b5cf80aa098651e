// Array::randn and Array::uniform. Every element is a pure function of (seed,
// element index), so results do not depend on generation order or threading.
// Only integer arithmetic and IEEE operations are used, except log/cos/sin in
// randn: another libm may differ in the last bit of a double, which almost
// never survives rounding to the element type.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "ElementConversion.h"
#include "adjit/runtime/Array.h"
#include "adjit/runtime/Error.h"

namespace adjit {
namespace {

// splitmix64's output function: a bijection with full avalanche.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Output number `counter` of a splitmix64 stream started at a mixed seed, so
// that nearby seeds give unrelated streams.
class CounterRandom {
 public:
  explicit CounterRandom(uint64_t seed) : key_(mix64(seed)) {}

  uint64_t bits(uint64_t counter) const {
    constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;
    return mix64(key_ + (counter + 1) * kGoldenGamma);
  }

  // Uniform on [0, 1) with 53 random bits.
  double uniform(uint64_t counter) const {
    return static_cast<double>(bits(counter) >> 11) * 0x1p-53;
  }

  // Box–Muller turns uniform pair number index/2 into two independent
  // normals: the cosine one for even indices, the sine one for odd.
  double normal(uint64_t index) const {
    uint64_t pair = index / 2;
    double radius = std::sqrt(-2.0 * std::log(1.0 - uniform(2 * pair)));  // 1 - u > 0
    double angle = 2.0 * std::numbers::pi * uniform(2 * pair + 1);
    return index % 2 == 0 ? radius * std::cos(angle) : radius * std::sin(angle);
  }

 private:
  uint64_t key_;
};

__extension__ using uint128_t = unsigned __int128;

// One step toward -inf for the sign-magnitude 16-bit float formats.
template <class T>
T next_below(T value) {
  if (value.bits & 0x8000) return {static_cast<uint16_t>(value.bits + 1)};
  if (value.bits == 0) return {0x8001};
  return {static_cast<uint16_t>(value.bits - 1)};
}

// The largest T not above `value`, so that a sample below hi stays below hi.
template <class T>
T round_down(double value) {
  if constexpr (std::is_same_v<T, double>) {
    return value;
  } else if constexpr (std::is_same_v<T, float>) {
    float nearest = static_cast<float>(value);
    return nearest > value ? std::nextafter(nearest, -INFINITY) : nearest;
  } else {
    T nearest = detail::from_double<T>(value);
    return nearest.to_float() > value ? next_below(nearest) : nearest;
  }
}

std::string format_bounds(double lo, double hi) {
  return fmt::format("lo={:g}, hi={:g}", lo, hi);
}

}  // namespace

Array Array::randn(Shape shape, uint64_t seed, DType dtype) {
  if (!is_floating(dtype))
    throw Error(
        fmt::format("Array::randn: dtype {} is not floating point (use f16, bf16, f32 or f64)",
                    dtype_name(dtype)));
  Array array = allocate("Array::randn", std::move(shape), dtype, Device::cpu());
  const auto element_count = static_cast<uint64_t>(array.size());
  CounterRandom random(seed);
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (detail::is_floating_v<T>) {
      T* out = static_cast<T*>(array.raw_data());
      for (uint64_t i = 0; i < element_count; ++i)
        out[i] = detail::from_double<T>(random.normal(i));
    }
  });
  return array;
}

Array Array::uniform(Shape shape, uint64_t seed, double lo, double hi, DType dtype) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi))
    throw Error(fmt::format("Array::uniform: the bounds must be finite with lo < hi, got {}",
                            format_bounds(lo, hi)));
  Array array = allocate("Array::uniform", std::move(shape), dtype, Device::cpu());
  const auto element_count = static_cast<uint64_t>(array.size());
  CounterRandom random(seed);
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* out = static_cast<T*>(array.raw_data());
    if constexpr (detail::is_integer_v<T> || std::is_same_v<T, bool>) {
      // i1 holds the integers 0 and 1.
      bool in_range;
      if constexpr (std::is_same_v<T, bool>)
        in_range = lo >= 0 && hi <= 2 && std::trunc(lo) == lo && std::trunc(hi) == hi;
      else
        in_range = detail::holds_exactly<T>(lo) && detail::holds_exactly<T>(hi);
      if (!in_range)
        throw Error(
            fmt::format("Array::uniform: the bounds for {} must be integers in range{}, got {}",
                        dtype_name(dtype), std::is_same_v<T, bool> ? " (0 <= lo < hi <= 2)" : "",
                        format_bounds(lo, hi)));
      // Integers lo..hi-1 by multiply-shift: exact, without floating point.
      auto low = static_cast<int64_t>(lo);
      uint64_t count = static_cast<uint64_t>(static_cast<int64_t>(hi)) - static_cast<uint64_t>(low);
      for (uint64_t i = 0; i < element_count; ++i) {
        auto offset = static_cast<uint64_t>((static_cast<uint128_t>(random.bits(i)) * count) >> 64);
        out[i] = static_cast<T>(static_cast<uint64_t>(low) + offset);
      }
    } else if constexpr (detail::is_floating_v<T>) {
      // lo + (hi - lo) * u can round up to hi in double; clamp below it.
      double largest_below_hi = std::nextafter(hi, lo);
      for (uint64_t i = 0; i < element_count; ++i)
        out[i] = round_down<T>(std::min(lo + (hi - lo) * random.uniform(i), largest_below_hi));
    }
  });
  return array;
}

}  // namespace adjit
