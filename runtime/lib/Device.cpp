#include "adjit/runtime/Device.h"

#include <fmt/format.h>

#include <ostream>

#include "adjit/runtime/Error.h"
#include "cuda/CudaDriver.h"

namespace adjit {

Device Device::cuda(int index) {
  if (index < 0)
    throw Error(fmt::format("Device::cuda: the device index must be >= 0, got {}", index));
  return Device(Kind::cuda, index);
}

std::string Device::str() const {
  return is_cpu() ? "cpu" : fmt::format("cuda:{}", index_);
}

std::ostream& operator<<(std::ostream& os, const Device& device) { return os << device.str(); }

void Device::synchronize() const {
  if (is_cuda()) cuda::synchronize(index_);
}

int Device::cuda_device_count() {
  if (!cuda::driver_available()) return 0;
  int count = 0;
  if (cuda::driver().cuDeviceGetCount(&count) != cuda::CUDA_SUCCESS) return 0;
  return count;
}

}  // namespace adjit
