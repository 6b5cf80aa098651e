#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include <catch2/catch.hpp>

#include "adjit/runtime/Array.h"
#include "adjit/runtime/Error.h"

using namespace adjit;
using Catch::Contains;

namespace {

bool is_aligned_64(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 64 == 0; }

Array iota_f32(Shape shape) {
  Array array = Array::empty(std::move(shape), DType::f32);
  float* out = array.data<float>();
  for (int64_t i = 0; i < array.size(); ++i) out[i] = static_cast<float>(i);
  return array;
}

}  // namespace

TEST_CASE("Array::from keeps values, shape and dtype", "[runtime][array]") {
  Array array = Array::from<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(array.shape() == Shape{2, 3});
  CHECK(array.dtype() == DType::f32);
  CHECK(array.size() == 6);
  CHECK(array.rank() == 2);
  CHECK(array.nbytes() == 24);
  CHECK(is_aligned_64(array.raw_data()));
  CHECK(array.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(array.data<float>()[4] == 5);

  Array flags = Array::from<bool>({true, false, true}, {3});
  CHECK(flags.dtype() == DType::i1);
  CHECK(flags.to_vector<bool>() == std::vector<bool>{true, false, true});

  Array halves = Array::from<half>({half::from_float(1.5f)}, {1});
  CHECK(halves.dtype() == DType::f16);
  CHECK(halves.item<half>().to_float() == 1.5f);
}

TEST_CASE("Array::scalar makes 0-d arrays", "[runtime][array]") {
  Array pi = Array::scalar(3.5);
  CHECK(pi.dtype() == DType::f64);
  CHECK(pi.rank() == 0);
  CHECK(pi.size() == 1);
  CHECK(pi.item<double>() == 3.5);
  CHECK(Array::scalar(int64_t{7}).item<int64_t>() == 7);
  CHECK(Array::scalar(true).item<bool>());
  CHECK(Array::from<float>({2}, {1, 1, 1}).item<float>() == 2);
}

TEST_CASE("Array misuse throws clear errors", "[runtime][array]") {
  Array array = Array::zeros({2, 3});
  REQUIRE_THROWS_WITH(array.data<double>(),
                      "Array::data<double>: array is f32[2,3], element type must be float");
  REQUIRE_THROWS_WITH(std::as_const(array).data<int32_t>(), Contains("Array::data<int32_t>"));
  REQUIRE_THROWS_WITH(
      array.to_vector<half>(),
      "Array::to_vector<adjit::half>: array is f32[2,3], element type must be float");
  REQUIRE_THROWS_WITH(array.item<float>(), Contains("Array::item<float>") && Contains("f32[2,3]") &&
                                               Contains("6 elements"));
  REQUIRE_THROWS_WITH(array.item<int64_t>(), Contains("element type must be float"));
  REQUIRE_THROWS_WITH(Array::from<float>({1, 2, 3, 4, 5}, {2, 3}),
                      Contains("5 values") && Contains("[2,3]") && Contains("6 elements"));
  REQUIRE_THROWS_WITH(Array::zeros({2, -3}),
                      Contains("Array::zeros: invalid shape [2,-3]: dimension 1 is negative"));
  REQUIRE_THROWS_WITH(Array::from<int32_t>({}, {-1}), Contains("Array::from:") && Contains("negative"));
  REQUIRE_THROWS_WITH(Array::empty({int64_t{1} << 60, 4}, DType::f64),
                      Contains("Array::empty: f64[1152921504606846976,4] is too large"));
  // Each factory names itself.
  REQUIRE_THROWS_WITH(Array::ones({-1}), Contains("Array::ones: invalid shape [-1]"));
  REQUIRE_THROWS_WITH(Array::full({-1}, 2), Contains("Array::full: invalid shape [-1]"));
  REQUIRE_THROWS_WITH(Array::randn({-1}, 1), Contains("Array::randn: invalid shape [-1]"));
  REQUIRE_THROWS_WITH(Array::uniform({-1}, 1), Contains("Array::uniform: invalid shape [-1]"));
  REQUIRE_THROWS_WITH(Array::zeros({int64_t{1} << 40, int64_t{1} << 40}),
                      Contains("Array::zeros:") && Contains("element count overflows int64"));
}

TEST_CASE("copying an Array shares the buffer, copy() does not", "[runtime][array]") {
  Array original = Array::from<int32_t>({1, 2, 3}, {3});
  Array shared = original;
  CHECK(shared.raw_data() == original.raw_data());
  shared.data<int32_t>()[0] = 10;
  CHECK(original.to_vector<int32_t>() == std::vector<int32_t>{10, 2, 3});

  Array deep = original.copy();
  CHECK(deep.raw_data() != original.raw_data());
  deep.data<int32_t>()[1] = 20;
  CHECK(original.to_vector<int32_t>() == std::vector<int32_t>{10, 2, 3});
  CHECK(deep.to_vector<int32_t>() == std::vector<int32_t>{10, 20, 3});
}

TEST_CASE("a moved-from Array holds no value until assigned", "[runtime][array]") {
  Array original = Array::from<float>({1, 2}, {2});
  Array moved = std::move(original);
  CHECK(moved.to_vector<float>() == std::vector<float>{1, 2});
  // Shape [] and no elements, and reading it is an error, not a crash.
  CHECK(original.size() == 0);  // NOLINT(bugprone-use-after-move): the point of the test
  CHECK(original.rank() == 0);
  CHECK(original.nbytes() == 0);
  CHECK_FALSE(original.is_donated());
  CHECK(original.device() == Device::cpu());
  CHECK_THROWS_WITH(original.to_vector<float>(), Catch::Contains("moved from"));
  CHECK_THROWS_WITH(original.item<float>(), Catch::Contains("moved from"));
  CHECK_THROWS_WITH(original.to(Device::cpu()), Catch::Contains("moved from"));
  CHECK_THROWS_AS(original.copy(), RuntimeError);
  Array copied = original;  // copying the empty handle is fine
  CHECK(copied.size() == 0);
  Array assigned;
  assigned = std::move(moved);
  CHECK(assigned.to_vector<float>() == std::vector<float>{1, 2});
  CHECK_THROWS_AS(moved.to_vector<float>(), RuntimeError);
  original = Array::from<float>({3}, {1});  // usable again
  CHECK(original.to_vector<float>() == std::vector<float>{3});
  assigned = std::move(assigned);  // a self-move keeps the value
  CHECK(assigned.to_vector<float>() == std::vector<float>{1, 2});
}

TEST_CASE("the buffer outlives the handle that created it", "[runtime][array]") {
  Array survivor;
  {
    Array temporary = Array::full({4}, 2.5);
    survivor = temporary;
  }
  CHECK(survivor.to_vector<float>() == std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f});
}

TEST_CASE("zeros, ones and full work for every dtype", "[runtime][array]") {
  for (DType dtype : all_dtypes) {
    CAPTURE(dtype_name(dtype));
    Array zeros = Array::zeros({3}, dtype);
    Array ones = Array::ones({3}, dtype);
    Array twos = Array::full({3}, 2, dtype);
    CHECK(zeros.dtype() == dtype);
    CHECK(ones.nbytes() == 3 * dtype_size(dtype));
    visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        CHECK(zeros.data<T>()[2].to_float() == 0.0f);
        CHECK(ones.data<T>()[2].to_float() == 1.0f);
        CHECK(twos.data<T>()[2].to_float() == 2.0f);
      } else {
        CHECK(zeros.data<T>()[2] == T(0));
        CHECK(ones.data<T>()[2] == T(1));
        CHECK(twos.data<T>()[2] == (std::is_same_v<T, bool> ? T(1) : T(2)));
      }
    });
  }
  CHECK(Array::full({2}, -0.1, DType::f64).to_vector<double>() == std::vector<double>{-0.1, -0.1});
  CHECK(Array::full({}, 3e9, DType::i64).item<int64_t>() == 3'000'000'000);
  REQUIRE_THROWS_WITH(Array::full({2}, 2.5, DType::i32),
                      Contains("Array::full") && Contains("2.5 is not representable as i32"));
  REQUIRE_THROWS_WITH(Array::full({2}, 3e9, DType::i32),
                      Contains("3e+09 is not representable as i32"));
}

TEST_CASE("empty and zero-size arrays have valid aligned storage", "[runtime][array]") {
  Array uninitialized = Array::empty({5, 7}, DType::f64);
  CHECK(uninitialized.size() == 35);
  CHECK(is_aligned_64(uninitialized.raw_data()));
  Array nothing = Array::zeros({0, 4});
  CHECK(nothing.size() == 0);
  CHECK(nothing.raw_data() != nullptr);
  CHECK(is_aligned_64(nothing.raw_data()));
  CHECK(nothing.to_vector<float>().empty());
  CHECK(nothing.copy().shape() == Shape{0, 4});

  Array default_constructed;
  CHECK(default_constructed.shape() == Shape{0});
  CHECK(default_constructed.dtype() == DType::f32);
  CHECK(default_constructed.raw_data() != nullptr);
}

TEST_CASE("Array::view wraps caller memory without copying", "[runtime][array]") {
  std::vector<float> storage = {1, 2, 3, 4, 5, 6};
  Array view = Array::view(storage.data(), {3, 2}, DType::f32);
  CHECK(view.raw_data() == storage.data());
  CHECK(view.data<float>()[5] == 6);
  view.data<float>()[0] = 42;
  CHECK(storage[0] == 42);
  Array shared = view;
  CHECK(shared.raw_data() == storage.data());
  Array detached = view.copy();
  CHECK(detached.raw_data() != storage.data());
  CHECK(detached.to_vector<float>() == storage);

  REQUIRE_THROWS_WITH(Array::view(nullptr, {2}, DType::f32), Contains("f32[2] is null"));
  auto* misaligned = reinterpret_cast<char*>(storage.data()) + 1;
  REQUIRE_THROWS_WITH(Array::view(misaligned, {2}, DType::f32), Contains("not aligned"));
  REQUIRE_THROWS_WITH(Array::view(storage.data(), {-2}, DType::f32),
                      Contains("Array::view: invalid shape [-2]"));
}

TEST_CASE("randn is reproducible and standard normal", "[runtime][array][random]") {
  Array first = Array::randn({100000}, 7);
  Array again = Array::randn({100000}, 7);
  Array other = Array::randn({100000}, 8);
  REQUIRE(first.to_vector<float>() == again.to_vector<float>());
  CHECK(first.to_vector<float>() != other.to_vector<float>());

  double sum = 0, sum_of_squares = 0;
  for (float value : first.to_vector<float>()) {
    sum += value;
    sum_of_squares += static_cast<double>(value) * value;
  }
  double mean = sum / 1e5;
  double stddev = std::sqrt(sum_of_squares / 1e5 - mean * mean);
  CHECK(std::abs(mean) < 0.02);  // ~6 standard errors
  CHECK(std::abs(stddev - 1) < 0.02);

  // A prefix does not depend on the total size: every element is a function
  // of (seed, index).
  Array prefix = Array::randn({3, 3}, 7);
  for (int i = 0; i < 9; ++i) CHECK(prefix.data<float>()[i] == first.data<float>()[i]);
}

TEST_CASE("random values are pinned for a seed", "[runtime][array][random]") {
  // Pinned so that a change of generator, or a platform difference, shows.
  CHECK(Array::uniform({3}, 42, 0, 1, DType::f64).to_vector<double>() ==
        std::vector<double>{0x1.31367e26140c7p-1, 0x1.486da5f92b86cp-3, 0x1.54c85f31d00d8p-3});
  CHECK(Array::randn({4}, 42).to_vector<float>() ==
        std::vector<float>{0x1.701644p-1f, 0x1.237baep+0f, 0x1.26f19ep-1f, 0x1.6f3792p-3f});
}

TEST_CASE("randn supports every floating dtype", "[runtime][array][random]") {
  std::vector<float> reference = Array::randn({64}, 3).to_vector<float>();
  Array halves = Array::randn({64}, 3, DType::f16);
  Array brains = Array::randn({64}, 3, DType::bf16);
  std::vector<double> doubles = Array::randn({64}, 3, DType::f64).to_vector<double>();
  for (size_t i = 0; i < reference.size(); ++i) {
    CHECK(halves.data<half>()[i].bits == half::from_float(reference[i]).bits);
    CHECK(brains.data<bfloat16>()[i].bits == bfloat16::from_float(reference[i]).bits);
    CHECK(static_cast<float>(doubles[i]) == reference[i]);
  }
  REQUIRE_THROWS_WITH(Array::randn({2}, 1, DType::i32),
                      Contains("Array::randn") && Contains("i32 is not floating point"));
  REQUIRE_THROWS_WITH(Array::randn({2}, 1, DType::i1), Contains("i1 is not floating point"));
}

TEST_CASE("uniform samples lie in lo <= x < hi", "[runtime][array][random]") {
  Array samples = Array::uniform({100000}, 11);
  CHECK(samples.to_vector<float>() == Array::uniform({100000}, 11).to_vector<float>());
  double sum = 0;
  for (float value : samples.to_vector<float>()) {
    REQUIRE(value >= 0.0f);
    REQUIRE(value < 1.0f);
    sum += value;
  }
  CHECK(sum / 1e5 == Approx(0.5).margin(0.005));

  for (DType dtype : {DType::f16, DType::bf16, DType::f64}) {
    Array narrow = Array::uniform({10000}, 5, -2, 3, dtype);
    visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
      if constexpr (!std::is_same_v<T, bool>) {
        for (const T& value : narrow.to_vector<T>()) {
          double number;
          if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
            number = value.to_float();
          else number = static_cast<double>(value);
          REQUIRE(number >= -2);
          REQUIRE(number < 3);
        }
      }
    });
  }
}

TEST_CASE("uniform integers cover lo..hi-1", "[runtime][array][random]") {
  std::vector<int32_t> labels = Array::uniform({1000}, 9, 0, 10, DType::i32).to_vector<int32_t>();
  std::vector<int> counts(10);
  for (int32_t label : labels) {
    REQUIRE(label >= 0);
    REQUIRE(label < 10);
    ++counts[static_cast<size_t>(label)];
  }
  for (int count : counts) CHECK(count > 50);
  std::vector<int64_t> wide = Array::uniform({100}, 9, -5, -3, DType::i64).to_vector<int64_t>();
  for (int64_t value : wide) REQUIRE((value == -5 || value == -4));

  REQUIRE_THROWS_WITH(Array::uniform({2}, 1, 0, 2.5, DType::i32), Contains("must be integers"));
  // i1 as the integers 0 and 1.
  std::vector<bool> bits = Array::uniform({1000}, 9, 0, 2, DType::i1).to_vector<bool>();
  auto set = std::count(bits.begin(), bits.end(), true);
  CHECK(set > 400);
  CHECK(set < 600);
  std::vector<bool> ones = Array::uniform({10}, 9, 1, 2, DType::i1).to_vector<bool>();
  CHECK(std::count(ones.begin(), ones.end(), true) == 10);
  CHECK(Array::uniform({10}, 9, 0, 1, DType::i1).to_vector<bool>() == std::vector<bool>(10, false));
  REQUIRE_THROWS_WITH(Array::uniform({2}, 1, 0, 3, DType::i1),
                      Contains("i1") && Contains("0 <= lo < hi <= 2"));
  REQUIRE_THROWS_WITH(Array::uniform({2}, 1, -1, 1, DType::i1), Contains("i1"));
  REQUIRE_THROWS_WITH(Array::uniform({2}, 1, 1, 1), Contains("lo < hi") && Contains("lo=1, hi=1"));
  REQUIRE_THROWS_WITH(Array::uniform({2}, 1, 0, INFINITY), Contains("finite"));
}

TEST_CASE("arrays print in a short numpy-like form", "[runtime][array][print]") {
  CHECK(to_string(Array::from<float>({1, 2, 3, 4, 5, 6}, {2, 3})) ==
        "f32[2,3] [[1, 2, 3], [4, 5, 6]]");
  CHECK(to_string(Array::scalar(int32_t{3})) == "i32[] 3");
  CHECK(to_string(Array::from<bool>({true, false}, {2})) == "i1[2] [true, false]");
  CHECK(to_string(Array::from<double>({0.1, 1.0 / 3, 1e10, -2.5e-7}, {4})) ==
        "f64[4] [0.1, 0.333333, 1e+10, -2.5e-07]");
  CHECK(to_string(Array::from<float>({NAN, INFINITY, -INFINITY, -NAN}, {4})) ==
        "f32[4] [nan, inf, -inf, nan]");
  CHECK(to_string(Array::from<int64_t>({-9'000'000'000}, {1})) == "i64[1] [-9000000000]");
  CHECK(to_string(Array::full({2}, 0.5, DType::f16)) == "f16[2] [0.5, 0.5]");
  CHECK(to_string(Array::full({1}, 1.0 / 3, DType::bf16)) == "bf16[1] [0.333984]");
  CHECK(to_string(Array::zeros({0})) == "f32[0] []");
  CHECK(to_string(Array::zeros({2, 0}, DType::i32)) == "i32[2,0] [[], []]");

  std::ostringstream stream;
  stream << Array::ones({1, 2}, DType::i64);
  CHECK(stream.str() == "i64[1,2] [[1, 1]]");
}

TEST_CASE("printing summarizes past 1000 elements", "[runtime][array][print]") {
  CHECK(to_string(iota_f32({1000})).find("...") == std::string::npos);
  CHECK(to_string(iota_f32({2000})) == "f32[2000] [0, 1, 2, ..., 1997, 1998, 1999]");
  CHECK(to_string(iota_f32({2, 600})) ==
        "f32[2,600] [[0, 1, 2, ..., 597, 598, 599], [600, 601, 602, ..., 1197, 1198, 1199]]");
  std::string grid = to_string(iota_f32({100, 100}));
  CHECK(grid.starts_with(
      "f32[100,100] [[0, 1, 2, ..., 97, 98, 99], [100, 101, 102, ..., 197, 198, 199], "
      "[200, 201, 202, ..., 297, 298, 299], ..., [9700, "));
  CHECK(grid.ends_with("[9900, 9901, 9902, ..., 9997, 9998, 9999]]"));
}
