#include "adjit/runtime/GpuProgram.h"

#include <charconv>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adjit/runtime/Error.h"

namespace adjit::gpu {
namespace {

constexpr std::string_view kMagic = "adjit-gpu-program";
constexpr int kVersion = 2;

const char* kind_name(Buffer::Kind kind) {
  switch (kind) {
    case Buffer::Kind::input: return "input";
    case Buffer::Kind::output: return "output";
    case Buffer::Kind::temporary: return "temporary";
    case Buffer::Kind::constant: return "constant";
  }
  return "?";
}

std::string hex(std::string_view bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    text += digits[c >> 4];
    text += digits[c & 15];
  }
  return text;
}

// Appends " n" for each number: nothing for none.
template <class Numbers>
void append_each_after_space(std::string& text, const Numbers& numbers) {
  for (auto number : numbers) fmt::format_to(std::back_inserter(text), " {}", number);
}

void write_type(std::string& text, const TensorType& type) {
  fmt::format_to(std::back_inserter(text), "type {} {}", dtype_name(type.dtype), type.shape.size());
  append_each_after_space(text, type.shape);
  text += '\n';
}

// Whitespace-separated tokens of the text, with the line of each for errors.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::string_view token() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (start == pos_) fail("unexpected end of the program");
    return text_.substr(start, pos_ - start);
  }
  void expect(std::string_view word) {
    if (std::string_view got = token(); got != word)
      fail(fmt::format("expected '{}', got '{}'", word, got));
  }
  template <class T>
  T number() {
    std::string_view t = token();
    T value{};
    auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (error != std::errc() || end != t.data() + t.size())
      fail(fmt::format("expected a number, got '{}'", t));
    return value;
  }
  size_t count(size_t limit) {
    auto n = number<size_t>();
    if (n > limit) fail(fmt::format("count {} is larger than the program", n));
    return n;
  }
  std::string bytes_from_hex() {
    std::string_view t = token();
    if (t == "-") return {};
    if (t.size() % 2) fail("odd number of hex digits");
    std::string bytes(t.size() / 2, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) {
      auto [end, error] = std::from_chars(t.data() + 2 * i, t.data() + 2 * i + 2,
                                          reinterpret_cast<unsigned char&>(bytes[i]), 16);
      if (error != std::errc() || end != t.data() + 2 * i + 2) fail("bad hex digits");
    }
    return bytes;
  }
  // The rest after one newline: the image's raw bytes.
  std::string_view raw(size_t n) {
    if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
    if (text_.size() - pos_ < n) fail("the image is truncated");
    std::string_view bytes = text_.substr(pos_, n);
    pos_ += n;
    return bytes;
  }
  TensorType type() {
    auto dtype = parse_dtype(token());
    if (!dtype) fail("unknown dtype");
    TensorType type{*dtype, Shape(count(64))};
    for (int64_t& d : type.shape) d = number<int64_t>();
    return type;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("malformed GPU program (line {}): {}", line_, what));
  }
  size_t remaining() const { return text_.size() - pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::string GpuProgram::serialize() const {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{} {}\narch {}\nformat {}\n", kMagic, kVersion, arch, format);
  fmt::format_to(out, "constants {}\n", constants.size());
  for (const std::string& bytes : constants)
    fmt::format_to(out, "constant {}\n", bytes.empty() ? "-" : hex(bytes));
  fmt::format_to(out, "entries {}\n", entries.size());
  for (const EntryPlan& plan : entries) {
    fmt::format_to(out, "entry {}\n", plan.signature.name);
    fmt::format_to(out, "inputs {}\n", plan.signature.inputs.size());
    for (const TensorType& t : plan.signature.inputs) write_type(text, t);
    fmt::format_to(out, "outputs {}\n", plan.signature.outputs.size());
    for (const TensorType& t : plan.signature.outputs) write_type(text, t);
    fmt::format_to(out, "buffers {}\n", plan.buffers.size());
    for (const Buffer& b : plan.buffers)
      fmt::format_to(out, "buffer {} {} {}\n", kind_name(b.kind), b.index, b.bytes);
    fmt::format_to(out, "steps {}\n", plan.steps.size());
    for (const Step& step : plan.steps) {
      if (step.kind == Step::Kind::gemm) {
        const Gemm& g = step.gemm;
        fmt::format_to(out, "gemm {} {} {} {} {} {}\n", g.element_bits, g.batch, g.m, g.n, g.k,
                       g.accumulate ? "accumulate" : "overwrite");
        for (int o = 0; o < 3; ++o)
          fmt::format_to(out, "  operand {} {} {}\n", g.buffers[o], g.offsets[o],
                         fmt::join(g.strides[o], " "));
        continue;
      }
      if (step.kind != Step::Kind::launch) {
        fmt::format_to(out, "{} {}\n", step.kind == Step::Kind::allocate ? "allocate" : "release",
                       step.buffer);
        continue;
      }
      fmt::format_to(out, "launch {} {} {} {} {}\n", step.kernel, fmt::join(step.grid, " "),
                     fmt::join(step.block, " "), step.shared_bytes, step.arguments.size());
      for (const KernelArgument& a : step.arguments) {
        if (a.kind == KernelArgument::Kind::scalar) {
          fmt::format_to(out, "  scalar {} {}\n", a.bytes, a.bits);
          continue;
        }
        fmt::format_to(out, "  buffer {} {} {}", a.buffer, a.offset, a.sizes.size());
        append_each_after_space(text, a.sizes);
        append_each_after_space(text, a.strides);
        text += '\n';
      }
    }
  }
  fmt::format_to(out, "image {}\n", image.size());
  text += image;
  return text;
}

GpuProgram GpuProgram::deserialize(std::string_view text) {
  Reader in(text);
  const size_t limit = text.size();
  if (in.token() != kMagic) in.fail("not an adjit GPU program");
  if (int version = in.number<int>(); version != kVersion)
    in.fail(fmt::format("version {}; this adjit reads version {}", version, kVersion));
  GpuProgram program;
  in.expect("arch");
  program.arch = in.token();
  in.expect("format");
  program.format = in.token();
  if (program.format != "ptx" && program.format != "cubin")
    in.fail(fmt::format("unknown format {}", program.format));
  in.expect("constants");
  program.constants.resize(in.count(limit));
  for (std::string& bytes : program.constants) {
    in.expect("constant");
    bytes = in.bytes_from_hex();
  }
  in.expect("entries");
  program.entries.resize(in.count(limit));
  for (EntryPlan& plan : program.entries) {
    in.expect("entry");
    plan.signature.name = in.token();
    in.expect("inputs");
    plan.signature.inputs.resize(in.count(limit));
    for (TensorType& t : plan.signature.inputs) in.expect("type"), t = in.type();
    in.expect("outputs");
    plan.signature.outputs.resize(in.count(limit));
    for (TensorType& t : plan.signature.outputs) in.expect("type"), t = in.type();
    in.expect("buffers");
    plan.buffers.resize(in.count(limit));
    for (Buffer& b : plan.buffers) {
      in.expect("buffer");
      std::string_view kind = in.token();
      if (kind == "input") b.kind = Buffer::Kind::input;
      else if (kind == "output") b.kind = Buffer::Kind::output;
      else if (kind == "temporary") b.kind = Buffer::Kind::temporary;
      else if (kind == "constant") b.kind = Buffer::Kind::constant;
      else in.fail(fmt::format("unknown buffer kind '{}'", kind));
      b.index = in.number<int>();
      b.bytes = in.number<size_t>();
      size_t bound = b.kind == Buffer::Kind::input    ? plan.signature.inputs.size()
                     : b.kind == Buffer::Kind::output ? plan.signature.outputs.size()
                     : b.kind == Buffer::Kind::constant ? program.constants.size()
                                                        : SIZE_MAX;
      if (b.index < 0 || static_cast<size_t>(b.index) >= bound) in.fail("buffer index out of range");
    }
    in.expect("steps");
    plan.steps.resize(in.count(limit));
    auto buffer_index = [&] {
      int b = in.number<int>();
      if (b < 0 || static_cast<size_t>(b) >= plan.buffers.size())
        in.fail(fmt::format("no buffer {}", b));
      return b;
    };
    for (Step& step : plan.steps) {
      std::string_view kind = in.token();
      if (kind == "allocate" || kind == "release") {
        step.kind = kind == "allocate" ? Step::Kind::allocate : Step::Kind::release;
        step.buffer = buffer_index();
        if (plan.buffers[step.buffer].kind != Buffer::Kind::temporary)
          in.fail("only temporaries are allocated and released");
        continue;
      }
      if (kind == "gemm") {
        step.kind = Step::Kind::gemm;
        Gemm& g = step.gemm;
        g.element_bits = in.number<int>();
        if (g.element_bits != 32 && g.element_bits != 64)
          in.fail(fmt::format("gemm of {}-bit elements", g.element_bits));
        g.batch = in.number<int64_t>();
        g.m = in.number<int64_t>();
        g.n = in.number<int64_t>();
        g.k = in.number<int64_t>();
        std::string_view mode = in.token();
        if (mode != "accumulate" && mode != "overwrite")
          in.fail(fmt::format("gemm mode '{}' (accumulate or overwrite)", mode));
        g.accumulate = mode == "accumulate";
        for (int o = 0; o < 3; ++o) {
          in.expect("operand");
          g.buffers[o] = buffer_index();
          g.offsets[o] = in.number<int64_t>();
          for (int64_t& stride : g.strides[o]) stride = in.number<int64_t>();
        }
        continue;
      }
      if (kind != "launch") in.fail(fmt::format("unknown step '{}'", kind));
      step.kind = Step::Kind::launch;
      step.kernel = in.token();
      for (unsigned& g : step.grid) g = in.number<unsigned>();
      for (unsigned& b : step.block) b = in.number<unsigned>();
      step.shared_bytes = in.number<unsigned>();
      step.arguments.resize(in.count(limit));
      for (KernelArgument& a : step.arguments) {
        std::string_view argument_kind = in.token();
        if (argument_kind == "scalar") {
          a.kind = KernelArgument::Kind::scalar;
          a.bytes = in.number<int>();
          if (a.bytes != 4 && a.bytes != 8) in.fail("scalars have 4 or 8 bytes");
          a.bits = in.number<uint64_t>();
        } else if (argument_kind == "buffer") {
          a.kind = KernelArgument::Kind::buffer;
          a.buffer = buffer_index();
          a.offset = in.number<int64_t>();
          size_t rank = in.count(64);
          a.sizes.resize(rank);
          a.strides.resize(rank);
          for (int64_t& s : a.sizes) s = in.number<int64_t>();
          for (int64_t& s : a.strides) s = in.number<int64_t>();
        } else {
          in.fail(fmt::format("unknown kernel argument '{}'", argument_kind));
        }
      }
    }
  }
  in.expect("image");
  size_t bytes = in.number<size_t>();
  program.image = std::string(in.raw(bytes));
  return program;
}

}  // namespace adjit::gpu
