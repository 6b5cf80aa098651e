#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "adjit/runtime/MemRef.h"

using namespace adjit;

namespace {

// The descriptor as compiled code sees it: a run of 64-bit words.
std::vector<int64_t> words_of(void* descriptor, int rank) {
  const auto* words = static_cast<const int64_t*>(descriptor);
  return std::vector<int64_t>(words, words + memref_descriptor_words(rank));
}

int64_t address_of(const Array& array) { return reinterpret_cast<intptr_t>(array.raw_data()); }

}  // namespace

TEST_CASE("a descriptor has row-major sizes and strides", "[runtime][memref]") {
  Array matrix = Array::zeros({2, 3, 4});
  MemRefDescriptor descriptor(matrix);
  int64_t data = address_of(matrix);
  CHECK(descriptor.rank() == 3);
  CHECK(words_of(descriptor.get(), 3) == std::vector<int64_t>{data, data, 0, 2, 3, 4, 12, 4, 1});
}

TEST_CASE("rank-0 descriptors hold only pointers and offset", "[runtime][memref]") {
  Array scalar = Array::scalar(1.0f);
  MemRefDescriptor descriptor(scalar);
  int64_t data = address_of(scalar);
  CHECK(words_of(descriptor.get(), 0) == std::vector<int64_t>{data, data, 0});
}

TEST_CASE("high-rank descriptors spill to the heap", "[runtime][memref]") {
  Array tensor = Array::zeros({2, 1, 3, 1, 2, 2}, DType::i1);
  MemRefDescriptor descriptor(tensor);
  int64_t data = address_of(tensor);
  CHECK(words_of(descriptor.get(), 6) ==
        std::vector<int64_t>{data, data, 0, 2, 1, 3, 1, 2, 2, 12, 12, 4, 4, 2, 1});
  MemRefDescriptor copied = descriptor;
  CHECK(copied.get() != descriptor.get());
  CHECK(words_of(copied.get(), 6) == words_of(descriptor.get(), 6));
}

TEST_CASE("packed arguments list inputs then outputs", "[runtime][memref]") {
  std::vector<Array> inputs = {Array::zeros({4}), Array::scalar(int32_t{2})};
  std::vector<Array> outputs = {Array::zeros({2, 2}, DType::f64)};
  PackedArguments arguments(inputs, outputs);
  REQUIRE(arguments.size() == 3);
  void** descriptors = arguments.data();
  CHECK(words_of(descriptors[0], 1) ==
        std::vector<int64_t>{address_of(inputs[0]), address_of(inputs[0]), 0, 4, 1});
  CHECK(words_of(descriptors[1], 0) ==
        std::vector<int64_t>{address_of(inputs[1]), address_of(inputs[1]), 0});
  CHECK(words_of(descriptors[2], 2) ==
        std::vector<int64_t>{address_of(outputs[0]), address_of(outputs[0]), 0, 2, 2, 2, 1});

  PackedArguments moved = std::move(arguments);
  CHECK(moved.data()[2] == descriptors[2]);
}

TEST_CASE("compiled code can write outputs through a descriptor", "[runtime][memref]") {
  // What a lowered kernel does with its output argument.
  struct Rank1Descriptor {
    float* allocated;
    float* aligned;
    int64_t offset;
    int64_t sizes[1];
    int64_t strides[1];
  };
  Array output = Array::zeros({3});
  std::vector<Array> no_inputs;
  PackedArguments arguments(no_inputs, std::vector<Array>{output});
  auto* descriptor = static_cast<Rank1Descriptor*>(arguments.data()[0]);
  for (int64_t i = 0; i < descriptor->sizes[0]; ++i)
    descriptor->aligned[descriptor->offset + i * descriptor->strides[0]] =
        static_cast<float>(i + 1);
  CHECK(output.to_vector<float>() == std::vector<float>{1, 2, 3});
}
