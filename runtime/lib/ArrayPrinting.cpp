#include <cmath>
#include <iterator>
#include <ostream>

#include <fmt/format.h>

#include "ElementConversion.h"
#include "adjit/runtime/Array.h"

namespace adjit {
namespace {

// numpy's defaults: summarize past 1000 elements, keeping 3 at each edge.
constexpr int64_t kSummarizeAbove = 1000;
constexpr int64_t kEdgeItems = 3;

template <class T>
class ArrayFormatter {
 public:
  ArrayFormatter(const Array& array, std::string& out)
      : elements_(static_cast<const T*>(array.raw_data())),
        shape_(array.shape()),
        strides_(shape_.size()),
        summarize_(array.size() > kSummarizeAbove),
        out_(out) {
    int64_t stride = 1;
    for (size_t axis = shape_.size(); axis-- > 0;) {
      strides_[axis] = stride;
      stride *= shape_[axis];
    }
  }

  void format() { format_axis(0, 0); }

 private:
  // Appends the sub-array at `axis` whose first element is at `offset`.
  void format_axis(size_t axis, int64_t offset) {
    if (axis == shape_.size()) {
      append_element(elements_[offset]);
      return;
    }
    int64_t length = shape_[axis];
    bool elide = summarize_ && length > 2 * kEdgeItems;
    out_ += '[';
    for (int64_t index = 0; index < length; ++index) {
      if (index > 0) out_ += ", ";
      if (elide && index == kEdgeItems) {
        out_ += "..., ";
        index = length - kEdgeItems;
      }
      format_axis(axis + 1, offset + index * strides_[axis]);
    }
    out_ += ']';
  }

  // Floating elements with six significant digits, like printf's %g: "1",
  // "0.5", "1e+10", "-inf"; a NaN is "nan" whatever its sign bit (0 / 0
  // makes one with the bit set on x86), as numpy prints it.
  void append_element(T value) {
    if constexpr (std::is_same_v<T, bool>) {
      out_ += value ? "true" : "false";
    } else if constexpr (detail::is_floating_v<T>) {
      double v = detail::to_double(value);
      if (std::isnan(v)) out_ += "nan";
      else fmt::format_to(std::back_inserter(out_), "{:g}", v);
    } else {
      fmt::format_to(std::back_inserter(out_), "{}", value);
    }
  }

  const T* elements_;
  const Shape& shape_;
  std::vector<int64_t> strides_;  // row-major, in elements
  bool summarize_;
  std::string& out_;
};

}  // namespace

std::string to_string(const Array& shown) {
  const Array array = shown.to(Device::cpu());
  std::string text = type_string(array.dtype(), array.shape()) + ' ';
  if (!shown.device().is_cpu()) text = shown.device().str() + ' ' + text;
  visit_dtype(array.dtype(),
              [&]<class T>(std::type_identity<T>) { ArrayFormatter<T>(array, text).format(); });
  return text;
}

std::ostream& operator<<(std::ostream& out, const Array& array) { return out << to_string(array); }

}  // namespace adjit
