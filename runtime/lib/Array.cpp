#include "adjit/runtime/Array.h"

#include <cstring>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "ElementConversion.h"
#include "adjit/runtime/Allocator.h"
#include "adjit/runtime/Error.h"
#include "cuda/DeviceMemory.h"

namespace adjit {

Array::Array() : Array(empty(Shape{0}, DType::f32)) {}

Array::Array(std::shared_ptr<detail::ArrayMemory> memory, Shape shape, DType dtype, int64_t size)
    : memory_(std::move(memory)), shape_(std::move(shape)), dtype_(dtype), size_(size) {}

// The moved-from handle: no memory, shape [], 0 elements.
Array::Array(Array&& other) noexcept
    : memory_(std::move(other.memory_)),
      shape_(std::move(other.shape_)),
      dtype_(other.dtype_),
      size_(std::exchange(other.size_, 0)) {
  other.shape_.clear();
}

Array& Array::operator=(Array&& other) noexcept {
  if (this != &other) {
    memory_ = std::move(other.memory_);
    shape_ = std::move(other.shape_);
    other.shape_.clear();
    dtype_ = other.dtype_;
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

namespace detail {

namespace {
// Returns the bytes to their allocator.
void release(ArrayMemory& memory) {
  if (!memory.data) return;
  if (memory.owner == ArrayMemory::Owner::host_allocator)
    release_buffer(memory.data, memory.bytes);
  else if (memory.owner == ArrayMemory::Owner::device_allocator)
    cuda::release(memory.device.index(), memory.data, memory.bytes);
  memory.data = nullptr;
}
}  // namespace

ArrayMemory::~ArrayMemory() { release(*this); }

namespace {
// Donations change an ArrayMemory that other threads' handles share: its
// bookkeeping (claimed, donated_to, the taking of data) happens under one
// lock. Donations are rare; reads check the atomic `donated` alone.
std::mutex donation_lock;
}  // namespace

// (throw_no_value takes the lock: the errors are thrown after it is let go.)
void claim_donation(const Array& array, const std::string& receiver) {
  {
    std::lock_guard lock(donation_lock);
    ArrayMemory* memory = array.memory_.get();
    bool live = memory && !memory->donated.load(std::memory_order_relaxed);
    if (live && !memory->claimed) {
      memory->claimed = true;
      return;
    }
    if (live)
      throw RuntimeError(fmt::format(
          "this Array ({}) is being donated to a call running now (on another thread); donate "
          "it once, to {} or to the other",
          type_string(array.dtype_, array.shape_), receiver));
  }
  array.throw_no_value();  // moved from, or donated
}

void release_claim(const Array& array) {
  std::lock_guard lock(donation_lock);
  if (array.memory_) array.memory_->claimed = false;
}

Array take_donated(const Array& array, const std::string& receiver) {
  {
    std::lock_guard lock(donation_lock);
    ArrayMemory* old = array.memory_.get();
    if (old && !old->donated.load(std::memory_order_relaxed)) {
      auto taken = std::make_shared<ArrayMemory>(old->data, old->bytes, old->device, old->owner);
      old->data = nullptr;
      old->donated_to = receiver;
      old->donated.store(true, std::memory_order_release);
      return Array(std::move(taken), array.shape_, array.dtype_, array.size_);
    }
  }
  array.throw_no_value();  // moved from, or donated
}

void invalidate_donated(const Array& array, const std::string& receiver) {
  std::lock_guard lock(donation_lock);
  if (!array.memory_ || array.memory_->donated.load(std::memory_order_relaxed)) return;
  ArrayMemory& memory = *array.memory_;
  release(memory);
  memory.donated_to = receiver;
  memory.donated.store(true, std::memory_order_release);
}

bool owns_memory(const Array& array) {
  return array.memory_ && array.memory_->owner != ArrayMemory::Owner::caller;
}

const void* memory_identity(const Array& array) { return array.memory_.get(); }

bool overlap(const Array& a, const Array& b) {
  auto* a_bytes = static_cast<const char*>(a.raw_data());
  auto* b_bytes = static_cast<const char*>(b.raw_data());
  return a.device() == b.device() && a.nbytes() > 0 && b.nbytes() > 0 &&
         a_bytes < b_bytes + b.nbytes() && b_bytes < a_bytes + a.nbytes();
}

}  // namespace detail

void Array::throw_no_value() const {
  if (!memory_)
    throw RuntimeError("this Array was moved from (std::move) and holds no value; assign it a "
                       "new one to use it again");
  std::lock_guard lock(detail::donation_lock);  // donated_to is written under it
  throw RuntimeError(fmt::format(
      "this Array ({}) was donated to {} and is no longer valid: its memory was handed to "
      "that call (JitOptions::donate); use the call's results instead",
      type_string(dtype_, shape_), memory_->donated_to));
}

Array Array::empty(Shape shape, DType dtype) { return empty(std::move(shape), dtype, Device::cpu()); }

Array Array::empty(Shape shape, DType dtype, Device device) {
  return allocate("Array::empty", std::move(shape), dtype, device);
}

Array Array::allocate(std::string_view caller, Shape shape, DType dtype, Device device) {
  int64_t size = num_elements(shape, caller);
  size_t element_size = dtype_size(dtype);
  if (static_cast<uint64_t>(size) > PTRDIFF_MAX / element_size)
    throw Error(fmt::format("{}: {} is too large to allocate", caller, type_string(dtype, shape)));
  size_t bytes = static_cast<size_t>(size) * element_size;
  using Owner = detail::ArrayMemory::Owner;
  // The bytes are allocated last, so that no failure can leak them.
  auto memory = std::make_shared<detail::ArrayMemory>(
      nullptr, bytes, device, device.is_cuda() ? Owner::device_allocator : Owner::host_allocator);
  memory->data = device.is_cuda() ? cuda::allocate(device.index(), bytes) : allocate_buffer(bytes);
  return Array(std::move(memory), std::move(shape), dtype, size);
}

Array Array::zeros(Shape shape, DType dtype) {
  Array array = allocate("Array::zeros", std::move(shape), dtype, Device::cpu());
  std::memset(array.raw_data(), 0, array.nbytes());  // all-zero bits are 0 in every dtype
  return array;
}

Array Array::ones(Shape shape, DType dtype) {
  return filled("Array::ones", std::move(shape), 1, dtype);
}

Array Array::full(Shape shape, double value, DType dtype) {
  return filled("Array::full", std::move(shape), value, dtype);
}

Array Array::filled(std::string_view caller, Shape shape, double value, DType dtype) {
  return visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (detail::is_integer_v<T>) {
      if (!detail::holds_exactly<T>(value))
        throw Error(fmt::format("{}: {:g} is not representable as {}", caller, value,
                                dtype_name(dtype)));
    }
    Array array = allocate(caller, std::move(shape), dtype, Device::cpu());
    std::fill_n(static_cast<T*>(array.raw_data()), array.size(), detail::from_double<T>(value));
    return array;
  });
}

Array Array::view(void* data, Shape shape, DType dtype) {
  int64_t size = num_elements(shape, "Array::view");
  if (!data)
    throw Error(fmt::format("Array::view: data for {} is null", type_string(dtype, shape)));
  if (reinterpret_cast<uintptr_t>(data) % dtype_size(dtype) != 0)
    throw Error(fmt::format("Array::view: data for {} is not aligned to its {}-byte elements",
                            type_string(dtype, shape), dtype_size(dtype)));
  size_t bytes = static_cast<size_t>(size) * dtype_size(dtype);
  return Array(std::make_shared<detail::ArrayMemory>(data, bytes, Device::cpu(),
                                                     detail::ArrayMemory::Owner::caller),
               std::move(shape), dtype, size);
}

Array Array::copy() const {
  Array duplicate = empty(shape_, dtype_, device());
  if (device().is_cuda())
    cuda::copy_on_device(device().index(), duplicate.raw_data(), raw_data(), nbytes());
  else
    std::memcpy(duplicate.raw_data(), raw_data(), nbytes());
  return duplicate;
}

Array Array::to(Device target) const {
  (void)live_memory();
  if (target == device()) return *this;
  if (target.is_cuda() && device().is_cuda()) return to(Device::cpu()).to(target);
  try {
    Array moved = empty(shape_, dtype_, target);
    if (target.is_cuda())
      cuda::copy_to_device(target.index(), moved.raw_data(), raw_data(), nbytes());
    else
      cuda::copy_to_host(device().index(), moved.raw_data(), raw_data(), nbytes());
    return moved;
  } catch (const RuntimeError& e) {
    throw RuntimeError(fmt::format("Array::to: cannot copy {} from {} to {}: {}",
                                   type_string(dtype_, shape_), device().str(), target.str(),
                                   e.what()));
  }
}

void Array::check_on_host(std::string_view accessor) const {
  if (!device().is_cpu())
    throw Error(fmt::format(
        "Array::{}: array {} is on {}; copy it to the host with .to(adjit::Device::cpu())",
        accessor, type_string(dtype_, shape_), device().str()));
}

void Array::throw_element_type_mismatch(std::string_view accessor, DType requested) const {
  throw Error(fmt::format("Array::{}<{}>: array is {}, element type must be {}", accessor,
                          cpp_type_name(requested), type_string(dtype_, shape_),
                          cpp_type_name(dtype_)));
}

void Array::check_one_element() const {
  if (size_ != 1)
    throw Error(
        fmt::format("Array::item<{}>: array is {} with {} elements, item() needs exactly one",
                    cpp_type_name(dtype_), type_string(dtype_, shape_), size_));
}

void Array::check_value_count(size_t value_count, const Shape& shape) {
  int64_t expected = num_elements(shape, "Array::from");
  if (value_count != static_cast<uint64_t>(expected))
    throw Error(fmt::format("Array::from: {} values given for shape {}, which has {} elements",
                            value_count, shape_string(shape), expected));
}

}  // namespace adjit
