// The format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// A magic string, a version, a little-endian header length, then a Python
// dict literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline, then the raw data.
#include "adjit/runtime/Npy.h"

#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <algorithm>
#include <ranges>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adjit/runtime/Error.h"

namespace adjit {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader and writer copy little-endian data as is");

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy aligns the data to 64 bytes, so memory-mapped arrays are aligned.
constexpr size_t kDataAlignment = 64;

struct NpyType {
  DType dtype;
  std::string_view descr;
};
constexpr NpyType kNpyTypes[] = {{DType::f16, "<f2"}, {DType::f32, "<f4"}, {DType::f64, "<f8"},
                                 {DType::i1, "|b1"},  {DType::i32, "<i4"}, {DType::i64, "<i8"}};

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
};

// Parses the header dict. Throws a bare description of what is wrong; the
// caller adds the file name.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  NpyHeader parse() {
    NpyHeader header;
    bool has_descr = false, has_fortran_order = false, has_shape = false;
    expect('{');
    while (!consume('}')) {
      std::string key = parse_quoted();
      expect(':');
      if (key == "descr") {
        // A list of fields is a structured dtype: a valid file, not ours.
        if (consume('['))
          throw Error("unsupported dtype: a structured dtype (a record of named fields); "
                      "save each field as an array of its own");
        header.descr = parse_quoted();
        has_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = parse_bool();
        has_fortran_order = true;
      } else if (key == "shape") {
        header.shape = parse_shape();
        has_shape = true;
      } else {
        fail(fmt::format("unexpected key '{}'", key));
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    if (!has_descr || !has_fortran_order || !has_shape)
      fail("the header needs the keys 'descr', 'fortran_order' and 'shape'");
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::string_view unpadded = text_.substr(0, text_.find_last_not_of(" \n") + 1);
    throw Error(fmt::format("malformed header {}: {}", unpadded, what));
  }

  void skip_spaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_])))
      ++position_;
  }

  bool consume(char expected) {
    skip_spaces();
    if (position_ < text_.size() && text_[position_] == expected) {
      ++position_;
      return true;
    }
    return false;
  }

  void expect(char expected) {
    if (!consume(expected)) fail(fmt::format("expected '{}'", expected));
  }

  bool consume_word(std::string_view word) {
    skip_spaces();
    if (text_.substr(position_, word.size()) != word) return false;
    position_ += word.size();
    return true;
  }

  std::string parse_quoted() {
    skip_spaces();
    char quote = position_ < text_.size() ? text_[position_] : '\0';
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    size_t end = text_.find(quote, position_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(position_ + 1, end - position_ - 1));
    position_ = end + 1;
    return value;
  }

  bool parse_bool() {
    if (consume_word("True")) return true;
    if (consume_word("False")) return false;
    fail("expected True or False");
  }

  Shape parse_shape() {
    Shape shape;
    expect('(');
    while (!consume(')')) {
      skip_spaces();
      int64_t dimension = 0;
      auto [end, error] =
          std::from_chars(text_.data() + position_, text_.data() + text_.size(), dimension);
      if (error != std::errc() || dimension < 0) fail("expected a dimension");
      position_ = static_cast<size_t>(end - text_.data());
      shape.push_back(dimension);
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::string_view text_;
  size_t position_ = 0;
};

uint32_t read_little_endian(const unsigned char* bytes, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = value << 8 | bytes[i];
  return value;
}

// `file_bytes`: the file's size, so that a header or data length it
// cannot hold is refused before anything that long is allocated.
NpyHeader read_header(std::istream& in, uint64_t file_bytes) {
  char preamble[8];
  if (!in.read(preamble, sizeof preamble) || std::string_view(preamble, kMagic.size()) != kMagic)
    throw Error("not a .npy file (no \\x93NUMPY magic)");
  int major_version = static_cast<unsigned char>(preamble[6]);
  if (major_version < 1 || major_version > 3)
    throw Error(fmt::format("unsupported .npy format version {}", major_version));
  int length_bytes = major_version == 1 ? 2 : 4;
  unsigned char length[4];
  if (!in.read(reinterpret_cast<char*>(length), length_bytes)) throw Error("truncated header");
  uint64_t header_bytes = read_little_endian(length, length_bytes);
  if (header_bytes > file_bytes - static_cast<uint64_t>(in.tellg()))
    throw Error(fmt::format("truncated header: it claims {} bytes, the file has {} in all",
                            header_bytes, file_bytes));
  std::string text(header_bytes, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size())))
    throw Error("truncated header");
  return HeaderParser(text).parse();
}

DType dtype_for_descr(const std::string& descr) {
  for (const NpyType& type : kNpyTypes)
    if (type.descr == descr) return type.dtype;
  throw Error(fmt::format("unsupported dtype descr '{}' (supported: {})", descr,
                          fmt::join(kNpyTypes | std::views::transform(&NpyType::descr), ", ")));
}

std::string npy_error(std::string_view function, const std::string& path, std::string_view what) {
  return fmt::format("{}: '{}': {}", function, path, what);
}

// Python's tuple syntax: (), (5,), (2, 3).
std::string shape_tuple(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::string header_text(std::string_view descr, const Shape& shape) {
  std::string text = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr,
                                 shape_tuple(shape));
  // Pad with spaces so the data starts aligned; the header ends with a newline.
  size_t preamble_size = kMagic.size() + 2 + 2;  // magic, version, header length
  size_t end = preamble_size + text.size() + 1;
  size_t padded_end = (end + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  text.append(padded_end - end, ' ');
  return text + '\n';
}

}  // namespace

Array load_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(npy_error("load_npy", path, std::strerror(errno)));
  std::error_code size_error;
  uint64_t file_bytes = std::filesystem::file_size(path, size_error);
  if (size_error) throw Error(npy_error("load_npy", path, size_error.message()));
  try {
    NpyHeader header = read_header(in, file_bytes);
    DType dtype = dtype_for_descr(header.descr);
    if (header.fortran_order)
      throw Error(fmt::format(
          "descr '{}' with fortran_order=True is not supported; save a C-order array",
          header.descr));
    uint64_t data_bytes = 0;
    uint64_t left = file_bytes - static_cast<uint64_t>(in.tellg());
    if (__builtin_mul_overflow(static_cast<uint64_t>(num_elements(header.shape)),
                               dtype_size(dtype), &data_bytes) ||
        data_bytes > left)
      throw Error(fmt::format("truncated data: {} needs {} bytes, the file has {}",
                              type_string(dtype, header.shape), data_bytes, left));
    Array array = Array::empty(header.shape, dtype);
    auto* bytes = static_cast<char*>(array.raw_data());
    in.read(bytes, static_cast<std::streamsize>(array.nbytes()));
    if (static_cast<size_t>(in.gcount()) != array.nbytes())
      throw Error(fmt::format("truncated data: {} needs {} bytes, the file has {}",
                              type_string(dtype, header.shape), array.nbytes(), in.gcount()));
    if (dtype == DType::i1)  // a bool must hold 0 or 1, whatever byte the file has
      for (size_t i = 0; i < array.nbytes(); ++i) bytes[i] = bytes[i] != 0;
    return array;
  } catch (const Error& error) {
    throw Error(npy_error("load_npy", path, error.what()));
  }
}

bool has_npy_dtype(DType dtype) {
  return std::ranges::any_of(kNpyTypes, [&](const NpyType& type) { return type.dtype == dtype; });
}

void save_npy(const Array& array, const std::string& path) {
  std::optional<std::string_view> descr;
  for (const NpyType& type : kNpyTypes)
    if (type.dtype == array.dtype()) descr = type.descr;
  if (!descr)
    throw Error(npy_error(
        "save_npy", path,
        fmt::format("{} has no NumPy dtype; cast to f32 first", dtype_name(array.dtype()))));
  std::string header = header_text(*descr, array.shape());
  if (header.size() > UINT16_MAX)
    throw Error(npy_error(
        "save_npy", path,
        fmt::format("shape {} has too many dimensions", shape_string(array.shape()))));
  // Read (and checked: donated, moved from) before the file is opened, so
  // that a failure leaves an existing file as it was.
  Array host;
  try {
    host = array.to(Device::cpu());
    (void)host.raw_data();
  } catch (const Error& error) {
    throw Error(npy_error("save_npy", path, error.what()));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(npy_error("save_npy", path, std::strerror(errno)));
  const char version_and_length[4] = {1, 0, static_cast<char>(header.size() & 0xff),
                                      static_cast<char>(header.size() >> 8)};
  out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
  out.write(version_and_length, sizeof version_and_length);
  out << header;
  out.write(static_cast<const char*>(host.raw_data()),
            static_cast<std::streamsize>(array.nbytes()));
  if (!out.flush())
    throw Error(npy_error("save_npy", path, fmt::format("write failed: {}", std::strerror(errno))));
}

}  // namespace adjit
