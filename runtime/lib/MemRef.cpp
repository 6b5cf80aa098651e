#include "adjit/runtime/MemRef.h"

namespace adjit {

MemRefDescriptor::MemRefDescriptor(const Array& array) : rank_(array.rank()), inline_words_{} {
  if (rank_ > kInlineRank) heap_words_.resize(memref_descriptor_words(rank_));
  int64_t* out = words();
  auto data = reinterpret_cast<intptr_t>(array.raw_data());
  out[0] = data;  // allocated
  out[1] = data;  // aligned
  out[2] = 0;     // offset
  int64_t* sizes = out + 3;
  int64_t* strides = sizes + rank_;
  const Shape& shape = array.shape();
  int64_t stride = 1;
  for (size_t axis = shape.size(); axis-- > 0;) {
    sizes[axis] = shape[axis];
    strides[axis] = stride;
    stride *= sizes[axis];
  }
}

PackedArguments::PackedArguments(std::span<const Array> inputs, std::span<const Array> outputs) {
  descriptors_.reserve(inputs.size() + outputs.size());
  for (const Array& input : inputs) descriptors_.emplace_back(input);
  for (const Array& output : outputs) descriptors_.emplace_back(output);
  descriptor_addresses_.reserve(descriptors_.size());
  for (MemRefDescriptor& descriptor : descriptors_)
    descriptor_addresses_.push_back(descriptor.get());
}

}  // namespace adjit
