#include "adjit/runtime/ArraySpec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <ranges>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ElementConversion.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Npy.h"

namespace adjit {
namespace {

// Thrown with only the problem; parse_array_spec adds the spec.
[[noreturn]] void fail(const std::string& problem) { throw Error(problem); }

struct Token {
  std::string_view text;
  size_t column;  // 1-based position in the spec, for messages
};

// Splits `text` (which starts at 0-based `offset` in the spec) at commas and
// trims spaces around each piece. An empty text has no tokens.
std::vector<Token> split_commas(std::string_view text, size_t offset) {
  std::vector<Token> tokens;
  if (text.empty()) return tokens;
  size_t start = 0;
  while (true) {
    size_t comma = std::min(text.find(',', start), text.size());
    size_t first = start, last = comma;
    while (first < last && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
    while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
    tokens.push_back({text.substr(first, last - first), offset + first + 1});
    if (comma == text.size()) return tokens;
    start = comma + 1;
  }
}

// from_chars over the whole token, or nothing.
template <class Number>
std::optional<Number> parse_number(std::string_view text) {
  Number number{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return number;
}

template <class T>
std::optional<T> parse_element(std::string_view text) {
  if constexpr (std::is_same_v<T, bool>) {
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    return std::nullopt;
  } else if constexpr (detail::is_integer_v<T>) {
    return parse_number<T>(text);
  } else {
    std::optional<double> number = parse_number<double>(text);
    if (!number) return std::nullopt;
    T element = detail::from_double<T>(*number);
    // A finite literal that rounds to infinity is out of range, not inf.
    if (std::isfinite(*number) && !std::isfinite(detail::to_double(element))) return std::nullopt;
    return element;
  }
}

// Why `text` is not an element of `dtype`, after parse_element refused it.
std::string element_problem(std::string_view text, DType dtype) {
  std::optional<double> number = parse_number<double>(text);
  bool out_of_range = number && std::isfinite(*number) &&
                      (is_floating(dtype) || (dtype != DType::i1 && *number == std::trunc(*number)));
  if (out_of_range) return fmt::format("is out of range for {}", dtype_name(dtype));
  return fmt::format("is not a valid {}", dtype_name(dtype));
}

DType parse_dtype_or_fail(std::string_view name) {
  if (std::optional<DType> dtype = parse_dtype(name)) return *dtype;
  fail(fmt::format("unknown dtype '{}' (expected one of {})", name,
                   fmt::join(all_dtypes | std::views::transform(dtype_name), ", ")));
}

// `text` is the bracketed shape, e.g. "[2,3]".
Shape parse_shape(std::string_view text, size_t offset) {
  Shape shape;
  for (const Token& token : split_commas(text.substr(1, text.size() - 2), offset + 1)) {
    std::optional<int64_t> dimension = parse_number<int64_t>(token.text);
    if (!dimension || *dimension < 0)
      fail(fmt::format(
          "malformed shape '{}': dimension '{}' at character {} is not a non-negative integer",
          text, token.text, token.column));
    shape.push_back(*dimension);
  }
  return shape;
}

uint64_t parse_seed(std::string_view text) {
  std::optional<uint64_t> seed = parse_number<uint64_t>(text);
  if (!seed) fail(fmt::format("seed '{}' is not a non-negative integer", text));
  return *seed;
}

std::optional<std::string_view> after_prefix(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  return text.substr(prefix.size());
}

Array iota(Shape shape, DType dtype) {
  if (dtype == DType::i1) fail("iota needs a numeric dtype, not i1");
  Array array = Array::empty(std::move(shape), dtype);
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* out = static_cast<T*>(array.raw_data());
    for (int64_t i = 0; i < array.size(); ++i)
      out[i] = detail::from_double<T>(static_cast<double>(i));
  });
  return array;
}

Array fill(Shape shape, DType dtype, const Token& value) {
  Array array = Array::empty(std::move(shape), dtype);
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    std::optional<T> element = parse_element<T>(value.text);
    if (!element)
      fail(fmt::format("fill value '{}' at character {} {}", value.text, value.column,
                       element_problem(value.text, dtype)));
    std::fill_n(static_cast<T*>(array.raw_data()), array.size(), *element);
  });
  return array;
}

Array value_list(Shape shape, DType dtype, const std::vector<Token>& values) {
  if (static_cast<int64_t>(values.size()) != num_elements(shape))
    fail(fmt::format("expected {} values for {}, got {}", num_elements(shape),
                     type_string(dtype, shape), values.size()));
  Array array = Array::empty(std::move(shape), dtype);
  visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* out = static_cast<T*>(array.raw_data());
    for (size_t i = 0; i < values.size(); ++i) {
      std::optional<T> element = parse_element<T>(values[i].text);
      if (!element)
        fail(fmt::format("value {} '{}' at character {} {}", i + 1, values[i].text,
                         values[i].column, element_problem(values[i].text, dtype)));
      out[i] = *element;
    }
  });
  return array;
}

// `text` is what follows '=', starting at 0-based `offset` in the spec.
Array parse_values(std::string_view text, size_t offset, DType dtype, Shape shape) {
  if (text == "zeros") return Array::zeros(std::move(shape), dtype);
  if (text == "ones") return Array::ones(std::move(shape), dtype);
  if (text == "iota") return iota(std::move(shape), dtype);
  if (auto seed = after_prefix(text, "randn:"))
    return Array::randn(std::move(shape), parse_seed(*seed), dtype);
  if (auto seed = after_prefix(text, "uniform:"))
    return Array::uniform(std::move(shape), parse_seed(*seed), 0, 1, dtype);
  if (auto value = after_prefix(text, "fill:"))
    return fill(std::move(shape), dtype, {*value, offset + (text.size() - value->size()) + 1});
  for (std::string_view generator : {"randn", "uniform", "fill"})
    if (text == generator)
      fail(fmt::format("'{0}' needs a {1}: {0}:{2}", generator,
                       generator == "fill" ? "value" : "seed", generator == "fill" ? "2.5" : "1"));
  return value_list(std::move(shape), dtype, split_commas(text, offset));
}

Array parse_spec(std::string_view spec) {
  if (spec.starts_with('@')) return load_npy(std::string(spec.substr(1)));
  if (spec.ends_with(".npy")) return load_npy(std::string(spec));
  size_t open = spec.find('[');
  if (open == std::string_view::npos)
    fail("expected DTYPE[SHAPE]=VALUES (e.g. f32[2]=1,2) or a .npy file");
  DType dtype = parse_dtype_or_fail(spec.substr(0, open));
  size_t close = spec.find(']', open);
  if (close == std::string_view::npos)
    fail(fmt::format("malformed shape '{}': missing ']'", spec.substr(open)));
  Shape shape = parse_shape(spec.substr(open, close + 1 - open), open);
  if (close + 1 == spec.size() || spec[close + 1] != '=')
    fail(fmt::format("expected '=' after {0}, e.g. {0}=zeros", type_string(dtype, shape)));
  size_t values_offset = close + 2;
  return parse_values(spec.substr(values_offset), values_offset, dtype, std::move(shape));
}

}  // namespace

Array parse_array_spec(std::string_view spec) {
  try {
    return parse_spec(spec);
  } catch (const Error& error) {
    throw Error(fmt::format("invalid array spec '{}': {}", spec, error.what()));
  }
}

}  // namespace adjit
