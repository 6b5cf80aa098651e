#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "adjit/runtime/Array.h"

namespace adjit {

// The calling ABI of compiled code. MLIR lowers a ranked memref of rank R to
//   struct { T* allocated; T* aligned; int64_t offset;
//            int64_t sizes[R]; int64_t strides[R]; }   // rank 0: first three
// and the generated `adjit_entry_<name>(void** descriptors)` wrappers take the
// address of one such struct per argument, inputs first, then outputs.

// Words (8 bytes each) in the descriptor of a rank-R memref.
constexpr size_t memref_descriptor_words(int rank) { return 3 + 2 * static_cast<size_t>(rank); }

// The descriptor of one Array: contiguous row-major strides, offset 0, both
// pointers at the array's data. It points into the array, which must outlive
// it. Compiled code writes through output descriptors, so the pointers are not
// const even for a const Array.
class MemRefDescriptor {
 public:
  explicit MemRefDescriptor(const Array& array);

  void* get() { return words(); }
  int rank() const { return rank_; }

 private:
  // Ranks up to this keep their words inline, without a heap allocation.
  static constexpr int kInlineRank = 4;

  int64_t* words() { return rank_ <= kInlineRank ? inline_words_.data() : heap_words_.data(); }

  int rank_;
  std::array<int64_t, memref_descriptor_words(kInlineRank)> inline_words_;
  std::vector<int64_t> heap_words_;
};

// The `void** descriptors` argument for one call. The arrays must outlive it.
class PackedArguments {
 public:
  PackedArguments(std::span<const Array> inputs, std::span<const Array> outputs);
  // data() points into this object: a copy would point into the original.
  PackedArguments(const PackedArguments&) = delete;
  PackedArguments& operator=(const PackedArguments&) = delete;
  PackedArguments(PackedArguments&&) = default;
  PackedArguments& operator=(PackedArguments&&) = default;

  // Entry i is the address of the descriptor of argument i.
  void** data() { return descriptor_addresses_.data(); }
  size_t size() const { return descriptor_addresses_.size(); }

 private:
  std::vector<MemRefDescriptor> descriptors_;
  std::vector<void*> descriptor_addresses_;
};

}  // namespace adjit
