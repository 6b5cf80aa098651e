#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adjit/runtime/DType.h"
#include "adjit/runtime/Device.h"
#include "adjit/runtime/Shape.h"

namespace adjit {

class Array;

namespace detail {

// The bytes behind an Array's handles. Donating them to a jitted call
// (JitOptions::donate) moves them to a new ArrayMemory, the call's output:
// every handle of this one is then invalid, never stale.
struct ArrayMemory {
  enum class Owner { host_allocator, device_allocator, caller };
  ArrayMemory(void* data, size_t bytes, Device device, Owner owner)
      : data(data), bytes(bytes), device(device), owner(owner) {}
  ~ArrayMemory();  // returns the bytes to their allocator
  ArrayMemory(const ArrayMemory&) = delete;
  ArrayMemory& operator=(const ArrayMemory&) = delete;

  void* data;
  size_t bytes;
  Device device;
  Owner owner;
  // Set (under the donation lock, after donated_to) when a call took the
  // bytes; read without the lock by every access.
  std::atomic<bool> donated{false};
  // A donating call running now holds them: a second one is refused.
  bool claimed = false;
  std::string donated_to;  // the call that took them, for the error
};

// JitOptions::donate, before the call runs: reserves `array`'s bytes for
// the call named `receiver`, so that a second call donating them (another
// thread's) is refused instead of both taking them. Throws RuntimeError
// when donated or reserved already. release_claim undoes it for a call
// that failed before taking them.
void claim_donation(const Array& array, const std::string& receiver);
void release_claim(const Array& array);

// JitOptions::donate. A new handle owning `array`'s bytes; `array` and every
// other handle of them become invalid (a RuntimeError naming `receiver`).
Array take_donated(const Array& array, const std::string& receiver);
// Invalidates `array`'s handles without reusing its bytes, which are freed
// (unless caller-owned).
void invalidate_donated(const Array& array, const std::string& receiver);
// Whether the bytes are the allocator's (not a view of caller memory), so a
// donation can hand them on.
bool owns_memory(const Array& array);
// Whether two arrays' bytes overlap (on one device).
bool overlap(const Array& a, const Array& b);
// What the handles and copies of one Array share (null for a moved-from
// one): which of a call's arguments are one Array, read without the bytes'
// address, which a donation on another thread may be taking.
const void* memory_identity(const Array& array);

}  // namespace detail

// Concrete data: a row-major, contiguous buffer with a shape and a dtype, in
// host memory (64-byte aligned unless it is a view of caller memory) or in a
// GPU's memory (see device() and to()). Array is a handle: copies share the
// buffer (use copy() for a deep copy), and the buffer lives as long as its
// last handle. An Array donated to a jitted call (JitOptions::donate) is
// invalid afterwards, with every copy of its handle: reading its data throws
// adjit::RuntimeError.
class Array {
 public:
  // An f32[0] array, so that Array can sit in default-constructed containers.
  Array();
  Array(const Array&) = default;
  Array& operator=(const Array&) = default;
  // A moved-from Array holds no value: reading it throws RuntimeError, and
  // assigning it a new one makes it usable again.
  Array(Array&& other) noexcept;
  Array& operator=(Array&& other) noexcept;
  ~Array() = default;

  // Throws when values.size() differs from the number of elements of `shape`.
  template <class T>
  static Array from(std::vector<T> values, Shape shape);
  template <class T>
  static Array scalar(T value);

  // Uninitialized contents, from the caching allocator (the device's, for a
  // GPU).
  static Array empty(Shape shape, DType dtype);
  static Array empty(Shape shape, DType dtype, Device device);
  static Array zeros(Shape shape, DType dtype = DType::f32);
  static Array ones(Shape shape, DType dtype = DType::f32);
  // Integer dtypes need an integral value in range; i1 stores value != 0.
  static Array full(Shape shape, double value, DType dtype = DType::f32);
  // Standard normal samples, identical across runs and machines for one seed.
  // Floating dtypes only.
  static Array randn(Shape shape, uint64_t seed, DType dtype = DType::f32);
  // Samples of U[lo, hi) rounded down into the dtype, so hi never appears.
  // For i32/i64 these are the integers lo..hi-1 (lo and hi must be integral);
  // for i1 the integers 0 and 1 (0 <= lo < hi <= 2: random bools with 0, 2).
  static Array uniform(Shape shape, uint64_t seed, double lo = 0, double hi = 1,
                       DType dtype = DType::f32);
  // Wraps caller-owned memory without copying or owning it: the memory must
  // outlive every handle, and be aligned at least to the element size.
  static Array view(void* data, Shape shape, DType dtype);

  // A deep copy on the same device.
  Array copy() const;

  // Where the buffer lives.
  Device device() const { return memory_ ? memory_->device : Device::cpu(); }
  // Waits until this array's value has been computed and returns it: a call
  // on a GPU returns before its kernels finish (JAX's block_until_ready).
  // Reading the array (to_vector, item, to(Device::cpu())) waits by itself.
  const Array& block_until_ready() const {
    device().synchronize();
    return *this;
  }
  // This array on `device`: the same handle when it is already there, else a
  // copy (host <-> GPU through the CUDA driver).
  Array to(Device device) const;

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t size() const { return size_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  size_t nbytes() const { return static_cast<size_t>(size_) * dtype_size(dtype_); }

  // The buffer's address: a device address for a GPU array. Throws
  // RuntimeError for a donated array.
  void* raw_data() { return live_memory().data; }
  const void* raw_data() const { return live_memory().data; }
  // Whether this array was donated to a jitted call (and is now invalid).
  bool is_donated() const { return memory_ && memory_->donated.load(std::memory_order_acquire); }

  // The typed accessors require T to be exactly the element type of dtype().
  // data() requires host memory; to_vector() and item() copy from a GPU.
  template <class T>
  T* data() {
    check_element_type<T>("data");
    check_on_host("data");
    return static_cast<T*>(raw_data());
  }
  template <class T>
  const T* data() const {
    check_element_type<T>("data");
    check_on_host("data");
    return static_cast<const T*>(raw_data());
  }
  template <class T>
  std::vector<T> to_vector() const {
    check_element_type<T>("to_vector");
    if (!device().is_cpu()) return to(Device::cpu()).to_vector<T>();
    const T* first = static_cast<const T*>(raw_data());
    return std::vector<T>(first, first + size_);
  }
  // For one-element arrays of any rank.
  template <class T>
  T item() const {
    (void)live_memory();  // a moved-from or donated Array says so first
    check_element_type<T>("item");
    check_one_element();
    if (!device().is_cpu()) return to(Device::cpu()).item<T>();
    return *static_cast<const T*>(raw_data());
  }

 private:
  Array(std::shared_ptr<detail::ArrayMemory> memory, Shape shape, DType dtype, int64_t size);
  friend Array detail::take_donated(const Array&, const std::string&);
  friend void detail::invalidate_donated(const Array&, const std::string&);
  friend void detail::claim_donation(const Array&, const std::string&);
  friend void detail::release_claim(const Array&);
  friend bool detail::owns_memory(const Array&);
  friend const void* detail::memory_identity(const Array&);

  const detail::ArrayMemory& live_memory() const {
    if (!memory_ || memory_->donated.load(std::memory_order_acquire)) [[unlikely]]
      throw_no_value();
    return *memory_;
  }
  // Donated or moved from.
  [[noreturn]] void throw_no_value() const;

  template <class T>
  void check_element_type(std::string_view accessor) const {
    if (dtype_of<T>() != dtype_) throw_element_type_mismatch(accessor, dtype_of<T>());
  }
  [[noreturn]] void throw_element_type_mismatch(std::string_view accessor, DType requested) const;
  void check_one_element() const;
  void check_on_host(std::string_view accessor) const;
  static void check_value_count(size_t value_count, const Shape& shape);
  // empty() and full(), their errors naming `caller` ("Array::zeros").
  static Array allocate(std::string_view caller, Shape shape, DType dtype, Device device);
  static Array filled(std::string_view caller, Shape shape, double value, DType dtype);

  std::shared_ptr<detail::ArrayMemory> memory_;
  Shape shape_;
  DType dtype_;
  int64_t size_;
};

template <class T>
Array Array::from(std::vector<T> values, Shape shape) {
  check_value_count(values.size(), shape);
  Array array = empty(std::move(shape), dtype_of<T>());
  // std::copy rather than memcpy: std::vector<bool> has no contiguous data().
  std::copy(values.begin(), values.end(), static_cast<T*>(array.raw_data()));
  return array;
}

template <class T>
Array Array::scalar(T value) {
  return from(std::vector<T>{value}, Shape{});
}

// numpy-like one-line form, e.g. "f32[2,3] [[1, 2, 3], [4, 5, 6]]"; past 1000
// elements only the first and last 3 entries of each axis are shown.
std::ostream& operator<<(std::ostream& out, const Array& array);
std::string to_string(const Array& array);

}  // namespace adjit
