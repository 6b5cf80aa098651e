#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include "adjit/runtime/ArraySpec.h"

#include <cmath>
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Npy.h"
#include "scratch_dir.h"

using namespace adjit;
using Catch::Contains;

namespace {

using TempDirectory = ScratchDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A hand-made .npy file: version major.0 with the given header dict and data.
std::string npy_bytes(int major_version, std::string header, const std::string& data) {
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major_version);
  bytes += '\0';
  size_t length_bytes = major_version == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i)
    bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return bytes + header + data;
}

bool same_contents(const Array& a, const Array& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

}  // namespace

TEST_CASE("npy files round-trip every NumPy dtype", "[runtime][npy]") {
  TempDirectory directory;
  std::vector<Array> arrays = {
      Array::randn({2, 3}, 1, DType::f16),
      Array::randn({4}, 2, DType::f32),
      Array::randn({2, 2, 2}, 3, DType::f64),
      Array::from<bool>({true, false, false, true, true}, {5}),
      Array::from<int32_t>({-1, 0, 2147483647}, {3, 1}),
      Array::from<int64_t>({-9'000'000'000, 5}, {2}),
      Array::scalar(2.5f),
      Array::zeros({0, 3}, DType::i32),
  };
  for (const Array& array : arrays) {
    CAPTURE(to_string(array));
    std::string path = directory.file("array.npy");
    save_npy(array, path);
    std::string bytes = read_file(path);
    REQUIRE(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
    size_t header_length = size_t{static_cast<unsigned char>(bytes[8])} |
                           size_t{static_cast<unsigned char>(bytes[9])} << 8;
    CHECK((10 + header_length) % 64 == 0);
    CHECK(bytes[10 + header_length - 1] == '\n');
    CHECK(bytes.size() == 10 + header_length + array.nbytes());
    Array loaded = load_npy(path);
    CHECK(same_contents(loaded, array));
  }
}

TEST_CASE("npy headers follow NumPy's dict syntax", "[runtime][npy]") {
  TempDirectory directory;
  std::string path = directory.file("header.npy");
  save_npy(Array::zeros({2, 3}), path);
  CHECK(read_file(path).find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") == 10);
  save_npy(Array::zeros({5}, DType::i1), path);
  CHECK(read_file(path).find("{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }") == 10);
  save_npy(Array::scalar(int64_t{1}), path);
  CHECK(read_file(path).find("{'descr': '<i8', 'fortran_order': False, 'shape': (), }") == 10);
}

TEST_CASE("npy version 2.0 files load", "[runtime][npy]") {
  TempDirectory directory;
  std::string path = directory.file("v2.npy");
  int32_t values[] = {7, 8};
  write_file(path, npy_bytes(2, "{\"descr\": \"<i4\", \"shape\": (1, 2), \"fortran_order\": False}",
                             std::string(reinterpret_cast<const char*>(values), sizeof values)));
  Array loaded = load_npy(path);
  CHECK(loaded.shape() == Shape{1, 2});
  CHECK(loaded.to_vector<int32_t>() == std::vector<int32_t>{7, 8});
}

TEST_CASE("npy booleans load as 0 or 1", "[runtime][npy]") {
  TempDirectory directory;
  std::string path = directory.file("bool.npy");
  write_file(path, npy_bytes(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                             std::string("\x00\x02\x01", 3)));
  Array loaded = load_npy(path);
  CHECK(loaded.to_vector<bool>() == std::vector<bool>{false, true, true});
  CHECK(static_cast<const unsigned char*>(loaded.raw_data())[1] == 1);
}

TEST_CASE("npy errors name the file and the problem", "[runtime][npy]") {
  TempDirectory directory;
  std::string path = directory.file("bad.npy");
  auto load_with_header = [&](const std::string& header,
                              const std::string& data = std::string(8, '\0')) {
    write_file(path, npy_bytes(1, header, data));
    return load_npy(path);
  };
  REQUIRE_THROWS_WITH(
      load_with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }"),
      Contains("load_npy") && Contains(path) && Contains("'>f4'") && Contains("<f4"));
  REQUIRE_THROWS_WITH(load_with_header("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }"),
                      Contains(path) && Contains("unsupported dtype descr '<u2'"));
  REQUIRE_THROWS_WITH(load_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }"),
                      Contains(path) && Contains("'<f4'") && Contains("fortran_order=True"));
  REQUIRE_THROWS_WITH(
      load_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"),
      Contains(path) && Contains("truncated data") && Contains("16 bytes") && Contains("has 8"));
  REQUIRE_THROWS_WITH(
      load_with_header("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, "
                       "'shape': (1,), }"),
      Contains(path) && Contains("unsupported dtype: a structured dtype"));
  REQUIRE_THROWS_WITH(load_with_header("{'descr': '<f4', 'shape': (2,), }"),
                      Contains("malformed header") && Contains("'fortran_order'"));
  REQUIRE_THROWS_WITH(
      load_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,x), }"),
      Contains("malformed header"));
  REQUIRE_THROWS_WITH(load_with_header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }"),
                      Contains("expected True or False"));

  write_file(path, "PK\x03\x04 not numpy");
  REQUIRE_THROWS_WITH(load_npy(path), Contains(path) && Contains("not a .npy file"));
  write_file(path, std::string("\x93NUMPY\x01\x00\xff", 9));
  REQUIRE_THROWS_WITH(load_npy(path), Contains("truncated header"));
  REQUIRE_THROWS_WITH(load_npy(directory.file("missing.npy")),
                      Contains("missing.npy") && Contains("No such file"));
  REQUIRE_THROWS_WITH(
      save_npy(Array::zeros({2}, DType::bf16), directory.file("b.npy")),
      Contains("save_npy") && Contains("b.npy") && Contains("bf16 has no NumPy dtype"));
  REQUIRE_THROWS_WITH(save_npy(Array::zeros({2}), directory.file("no/such/dir.npy")),
                      Contains("save_npy") && Contains("no/such/dir.npy"));

  // Lengths the file cannot hold are refused before anything that long is
  // allocated: a 4 GiB header in 25 bytes, 8 GiB of data in 128.
  write_file(path, std::string("\x93NUMPY\x02\x00\xf0\xff\xff\xff", 12) + "{'descr': '<f");
  REQUIRE_THROWS_WITH(load_npy(path), Contains("truncated header") && Contains("4294967280"));
  REQUIRE_THROWS_WITH(
      load_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824,), }"),
      Contains("truncated data") && Contains("8589934592 bytes"));
  // A failed save leaves an existing file as it was.
  std::string kept = directory.file("kept.npy");
  Array a = Array::from<float>({1, 2, 3}, {3});
  save_npy(a, kept);
  Array b = std::move(a);
  REQUIRE_THROWS_WITH(save_npy(a, kept), Contains("save_npy") && Contains("kept.npy") &&
                                             Contains("moved from"));
  CHECK(load_npy(kept).to_vector<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE("array specs with explicit values", "[runtime][spec]") {
  Array matrix = parse_array_spec("f32[2,2]=1,2,3,4");
  CHECK(matrix.shape() == Shape{2, 2});
  CHECK(matrix.to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  CHECK(parse_array_spec("f32[]=3").item<float>() == 3);
  CHECK(parse_array_spec("i32[]=3").item<int32_t>() == 3);
  CHECK(parse_array_spec("f64[3]=-1.5, 2e3 ,inf").to_vector<double>() ==
        std::vector<double>{-1.5, 2000, INFINITY});
  CHECK(parse_array_spec("i64[2]=-9000000000,7").to_vector<int64_t>() ==
        std::vector<int64_t>{-9'000'000'000, 7});
  CHECK(parse_array_spec("i1[3]=true,false,1").to_vector<bool>() ==
        std::vector<bool>{true, false, true});
  CHECK(parse_array_spec("f16[1]=0.1").item<half>().bits == half::from_float(0.1f).bits);
  CHECK(parse_array_spec("bf16[1]=3").item<bfloat16>().to_float() == 3);
  CHECK(parse_array_spec("f32[0]=").size() == 0);
}

TEST_CASE("array specs with generators", "[runtime][spec]") {
  CHECK(same_contents(parse_array_spec("f32[1000]=randn:7"), Array::randn({1000}, 7)));
  CHECK(same_contents(parse_array_spec("f64[4]=uniform:7"),
                      Array::uniform({4}, 7, 0, 1, DType::f64)));
  CHECK(same_contents(parse_array_spec("f32[3,3]=zeros"), Array::zeros({3, 3})));
  CHECK(same_contents(parse_array_spec("i64[2]=ones"), Array::ones({2}, DType::i64)));
  CHECK(parse_array_spec("f32[5]=fill:2.5").to_vector<float>() == std::vector<float>(5, 2.5f));
  CHECK(parse_array_spec("i1[2]=fill:true").to_vector<bool>() == std::vector<bool>{true, true});
  CHECK(parse_array_spec("i32[10]=iota").to_vector<int32_t>() ==
        std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(parse_array_spec("f32[2,2]=iota").to_vector<float>() == std::vector<float>{0, 1, 2, 3});
}

TEST_CASE("array specs load npy files", "[runtime][spec]") {
  TempDirectory directory;
  Array original = Array::from<double>({1, 2, 3}, {3});
  std::string path = directory.file("x.npy");
  save_npy(original, path);
  CHECK(same_contents(parse_array_spec("@" + path), original));
  CHECK(same_contents(parse_array_spec(path), original));
  REQUIRE_THROWS_WITH(parse_array_spec("@" + directory.file("absent.npy")),
                      Contains("invalid array spec '@") && Contains("absent.npy"));
}

TEST_CASE("array spec errors quote the spec and say what is wrong", "[runtime][spec]") {
  REQUIRE_THROWS_WITH(parse_array_spec("f33[2]=1,2"),
                      "invalid array spec 'f33[2]=1,2': unknown dtype 'f33' "
                      "(expected one of f16, bf16, f32, f64, i1, i32, i64)");
  REQUIRE_THROWS_WITH(parse_array_spec("1,2,3"), Contains("invalid array spec '1,2,3'") &&
                                                     Contains("expected DTYPE[SHAPE]=VALUES"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2,,3]=zeros"),
                      Contains("'f32[2,,3]=zeros'") && Contains("malformed shape '[2,,3]'") &&
                          Contains("dimension '' at character 7"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2,-3]=zeros"),
                      Contains("malformed shape '[2,-3]'") && Contains("'-3'"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2,x]=zeros"), Contains("dimension 'x'"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2,3=zeros"),
                      Contains("malformed shape") && Contains("missing ']'"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2]"), Contains("expected '=' after f32[2]"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2]:1,2"), Contains("expected '=' after f32[2]"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2,2]=1,2,3"),
                      "invalid array spec 'f32[2,2]=1,2,3': expected 4 values for f32[2,2], got 3");
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2]="), Contains("expected 2 values for f32[2], got 0"));
  REQUIRE_THROWS_WITH(
      parse_array_spec("f32[3]=1,x,3"),
      "invalid array spec 'f32[3]=1,x,3': value 2 'x' at character 10 is not a valid f32");
  REQUIRE_THROWS_WITH(parse_array_spec("i32[2]=1,2.5"),
                      Contains("value 2 '2.5'") && Contains("valid i32"));
  REQUIRE_THROWS_WITH(parse_array_spec("i32[1]=3000000000"),
                      Contains("'3000000000'") && Contains("is out of range for i32"));
  // A finite literal that would round to infinity is refused, not inf.
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2]=1e100,1"),
                      Contains("value 1 '1e100' at character 8 is out of range for f32"));
  REQUIRE_THROWS_WITH(parse_array_spec("f16[1]=70000"), Contains("is out of range for f16"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[3]=fill:-1e39"),
                      Contains("fill value '-1e39' at character 13 is out of range for f32"));
  CHECK(std::isinf(parse_array_spec("f32[1]=inf").item<float>()));
  CHECK(parse_array_spec("f64[1]=1e300").item<double>() == 1e300);
  REQUIRE_THROWS_WITH(parse_array_spec("i1[2]=true,yes"),
                      Contains("value 2 'yes'") && Contains("valid i1"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2]=randn:x"),
                      Contains("seed 'x' is not a non-negative integer"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[2]=uniform:-1"), Contains("seed '-1'"));
  REQUIRE_THROWS_WITH(parse_array_spec("i32[2]=randn:1"),
                      Contains("'i32[2]=randn:1'") && Contains("i32 is not floating point"));
  REQUIRE_THROWS_WITH(parse_array_spec("f32[5]=fill:abc"),
                      Contains("fill value 'abc' at character 13 is not a valid f32"));
  REQUIRE_THROWS_WITH(parse_array_spec("i1[3]=iota"), Contains("iota needs a numeric dtype"));
}
