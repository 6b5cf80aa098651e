#pragma once

#include <iosfwd>
#include <string>

namespace adjit {

// Where an Array's memory lives and where compiled code runs: the host CPU
// or one CUDA GPU. Computation follows its arguments' device.
class Device {
 public:
  enum class Kind { cpu, cuda };

  static Device cpu() { return Device(Kind::cpu, 0); }
  // Names a GPU without touching the driver; the first use of its memory or
  // of code compiled for it loads the CUDA driver and throws
  // adjit::RuntimeError when there is no driver or no such device.
  static Device cuda(int index = 0);

  Kind kind() const { return kind_; }
  int index() const { return index_; }
  bool is_cpu() const { return kind_ == Kind::cpu; }
  bool is_cuda() const { return kind_ == Kind::cuda; }
  bool operator==(const Device&) const = default;
  // "cpu" or "cuda:0".
  std::string str() const;

  // Waits until every computation and copy queued on this device has
  // finished (calls on a GPU return before their kernels end). Throws
  // adjit::RuntimeError when queued work failed. Nothing to wait for on the
  // CPU.
  void synchronize() const;

  // How many CUDA devices this process can use: 0 without a driver.
  static int cuda_device_count();

 private:
  Device(Kind kind, int index) : kind_(kind), index_(index) {}
  Kind kind_;
  int index_;
};

// Writes device.str().
std::ostream& operator<<(std::ostream& os, const Device& device);

}  // namespace adjit
