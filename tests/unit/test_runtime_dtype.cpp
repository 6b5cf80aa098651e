#include <bit>
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "adjit/runtime/DType.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Shape.h"

using namespace adjit;

namespace {

float float_from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
uint16_t half_bits(float value) { return half::from_float(value).bits; }
uint16_t bfloat16_bits(float value) { return bfloat16::from_float(value).bits; }
bool is_half_nan(uint16_t bits) { return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0; }

}  // namespace

TEST_CASE("dtype names round-trip and sizes match storage", "[runtime][dtype]") {
  for (DType dtype : all_dtypes) REQUIRE(parse_dtype(dtype_name(dtype)) == dtype);
  CHECK(dtype_name(DType::bf16) == "bf16");
  CHECK_FALSE(parse_dtype("f33").has_value());
  CHECK_FALSE(parse_dtype("").has_value());
  CHECK(dtype_size(DType::f16) == 2);
  CHECK(dtype_size(DType::bf16) == 2);
  CHECK(dtype_size(DType::f32) == 4);
  CHECK(dtype_size(DType::f64) == 8);
  CHECK(dtype_size(DType::i1) == 1);
  CHECK(dtype_size(DType::i32) == 4);
  CHECK(dtype_size(DType::i64) == 8);
  CHECK(is_floating(DType::bf16));
  CHECK_FALSE(is_floating(DType::i1));
  CHECK(cpp_type_name(DType::f16) == "adjit::half");
  CHECK_THROWS_AS(dtype_name(static_cast<DType>(99)), Error);
}

TEST_CASE("dtype_of maps C++ element types", "[runtime][dtype]") {
  STATIC_REQUIRE(dtype_of<float>() == DType::f32);
  STATIC_REQUIRE(dtype_of<double>() == DType::f64);
  STATIC_REQUIRE(dtype_of<int32_t>() == DType::i32);
  STATIC_REQUIRE(dtype_of<int64_t>() == DType::i64);
  STATIC_REQUIRE(dtype_of<bool>() == DType::i1);
  STATIC_REQUIRE(dtype_of<half>() == DType::f16);
  STATIC_REQUIRE(dtype_of<bfloat16>() == DType::bf16);
}

TEST_CASE("half from_float rounds to nearest even", "[runtime][dtype][half]") {
  CHECK(half_bits(1.0f) == 0x3c00);
  CHECK(half_bits(-2.0f) == 0xc000);
  CHECK(half_bits(0.0f) == 0x0000);
  CHECK(half_bits(-0.0f) == 0x8000);
  CHECK(half_bits(65504.0f) == 0x7bff);
  // Halfway between 1 and 1 + 2^-10 goes to the even 1; the next tie goes up.
  CHECK(half_bits(1.0f + 0x1p-11f) == 0x3c00);
  CHECK(half_bits(1.0f + 3 * 0x1p-11f) == 0x3c02);
  CHECK(half_bits(std::nextafter(1.0f + 0x1p-11f, 2.0f)) == 0x3c01);
  // 65520 is halfway between 65504 and 2^16, which rounds to infinity.
  CHECK(half_bits(65519.0f) == 0x7bff);
  CHECK(half_bits(65520.0f) == 0x7c00);
  CHECK(half_bits(1e10f) == 0x7c00);
}

TEST_CASE("half handles inf, nan and subnormals", "[runtime][dtype][half]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(half_bits(inf) == 0x7c00);
  CHECK(half_bits(-inf) == 0xfc00);
  CHECK(is_half_nan(half_bits(std::numeric_limits<float>::quiet_NaN())));
  CHECK(is_half_nan(half_bits(float_from_bits(0x7f800001))));  // payload only in low bits
  CHECK(std::isnan(half{0x7e00}.to_float()));
  CHECK(half{0xfc00}.to_float() == -inf);

  CHECK(half_bits(0x1p-24f) == 0x0001);  // smallest subnormal
  CHECK(half_bits(0x1p-25f) == 0x0000);  // tie to even (zero)
  CHECK(half_bits(std::nextafter(0x1p-25f, 1.0f)) == 0x0001);
  CHECK(half_bits(3 * 0x1p-25f) == 0x0002);  // 1.5 units: tie to even
  CHECK(half_bits(0x1p-26f) == 0x0000);
  CHECK(half_bits(-0x1p-24f) == 0x8001);
  CHECK(half_bits(1023 * 0x1p-24f) == 0x03ff);              // largest subnormal
  CHECK(half_bits(1023.5f * 0x1p-24f) == 0x0400);           // rounds up into the normals
  CHECK(half_bits(0x1p-14f) == 0x0400);                     // smallest normal
  CHECK(half_bits(float_from_bits(0x00000001)) == 0x0000);  // float subnormal
  CHECK(half{0x0001}.to_float() == 0x1p-24f);
  CHECK(half{0x03ff}.to_float() == 1023 * 0x1p-24f);
  CHECK(std::signbit(half{0x8000}.to_float()));
}

TEST_CASE("half conversions are exact and tie to even exhaustively", "[runtime][dtype][half]") {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    half value{static_cast<uint16_t>(bits)};
    if (is_half_nan(value.bits)) {
      REQUIRE(std::isnan(value.to_float()));
      REQUIRE(is_half_nan(half_bits(value.to_float())));
      continue;
    }
    REQUIRE(half_bits(value.to_float()) == value.bits);
    // The float midpoint to the next half away from zero (exact: 12 bits).
    if ((bits & 0x7fff) < 0x7bff + 1) {
      half next{static_cast<uint16_t>(bits + 1)};
      if ((next.bits & 0x7c00) == 0x7c00) continue;
      float midpoint = (value.to_float() + next.to_float()) / 2;
      uint16_t even = (value.bits & 1) == 0 ? value.bits : next.bits;
      REQUIRE(half_bits(midpoint) == even);
    }
  }
}

TEST_CASE("bfloat16 conversions", "[runtime][dtype][bfloat16]") {
  CHECK(bfloat16_bits(1.0f) == 0x3f80);
  CHECK(bfloat16_bits(-1.0f) == 0xbf80);
  CHECK(bfloat16{0x3f80}.to_float() == 1.0f);
  CHECK(bfloat16_bits(float_from_bits(0x3f808000)) == 0x3f80);  // tie to even, down
  CHECK(bfloat16_bits(float_from_bits(0x3f818000)) == 0x3f82);  // tie to even, up
  CHECK(bfloat16_bits(float_from_bits(0x3f808001)) == 0x3f81);
  CHECK(bfloat16_bits(std::numeric_limits<float>::max()) == 0x7f80);  // rounds to inf
  CHECK(bfloat16_bits(-std::numeric_limits<float>::infinity()) == 0xff80);
  uint16_t nan_bits = bfloat16_bits(float_from_bits(0x7f800001));  // would truncate to inf
  CHECK(std::isnan(bfloat16{nan_bits}.to_float()));
  CHECK(bfloat16_bits(float_from_bits(0x00008000)) == 0x0000);  // subnormal tie to even
  CHECK(bfloat16_bits(float_from_bits(0x00018000)) == 0x0002);
  CHECK(bfloat16{0x0001}.to_float() == float_from_bits(0x00010000));
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    bfloat16 value{static_cast<uint16_t>(bits)};
    if (std::isnan(value.to_float())) continue;
    REQUIRE(bfloat16_bits(value.to_float()) == value.bits);
  }
}

TEST_CASE("shapes count elements and print", "[runtime][shape]") {
  CHECK(num_elements({}) == 1);
  CHECK(num_elements({2, 3, 4}) == 24);
  CHECK(num_elements({5, 0}) == 0);
  CHECK(type_string(DType::f32, {256, 784}) == "f32[256,784]");
  CHECK(type_string(DType::i32, {}) == "i32[]");
  REQUIRE_THROWS_WITH(num_elements({2, -1}),
                      Catch::Contains("[2,-1]") && Catch::Contains("dimension 1 is negative"));
  REQUIRE_THROWS_WITH(num_elements({int64_t{1} << 40, int64_t{1} << 40}),
                      Catch::Contains("overflows"));
}
