// A chain of masses and springs (W5 of the benchmarks) simulated for 1000
// steps of symplectic Euler in a fori_loop, and differentiated through the
// whole simulation: gradient descent on the spring stiffnesses brings the
// chain's final kinetic energy down.
// Run: build/examples/adjit-example-spring_chain
#include <adjit/adjit.h>

#include <cstdio>

using adjit::Array;
using adjit::Tensor;

constexpr int64_t kMasses = 64;
constexpr int kSteps = 1000;
constexpr double kDt = 0.01;

// Kinetic energy after kSteps steps from positions p0 at rest.
Tensor final_energy(const Tensor& p0, const Tensor& k) {
  auto [p, v] = adjit::fori_loop(
      0, kSteps,
      [&](Tensor, std::tuple<Tensor, Tensor> c) {
        auto [p, v] = c;
        // Spring j pulls masses j and j+1 toward rest length 1; free ends.
        Tensor tension = k * (adjit::slice(p, {1}, {kMasses}) - adjit::slice(p, {0}, {kMasses - 1}) - 1.0);
        Tensor zero = adjit::full({1}, 0.0);
        Tensor force = adjit::concat({tension, zero}, 0) - adjit::concat({zero, tension}, 0);
        Tensor next_v = v + kDt * force;
        return std::make_tuple(p + kDt * next_v, next_v);
      },
      std::make_tuple(p0, adjit::zeros_like(p0)));
  return 0.5 * adjit::sum(v * v);
}

int main() {
  Array p0 = Array::randn({kMasses}, 1);
  for (int64_t i = 0; i < kMasses; ++i) p0.data<float>()[i] = i + 0.2f * p0.data<float>()[i];
  Array k = Array::full({kMasses - 1}, 1.0);

  auto energy_and_grad = adjit::value_and_grad<1>(final_energy);
  // Stiffnesses stay positive: a step, then a floor.
  auto update = adjit::jit([](Tensor k, Tensor g) { return adjit::maximum(k - 0.5 * g, 0.05); });
  float first = 0, last = 0;
  for (int step = 0; step <= 40; ++step) {
    auto [energy, dk] = energy_and_grad(p0, k);
    k = update(k, dk);
    last = energy.item<float>();
    if (step == 0) first = last;
    if (step % 10 == 0) std::printf("step %2d  final kinetic energy %.6f\n", step, last);
  }
  std::printf("energy fell from %.6f to %.6f\n", first, last);
  return last < 0.5f * first ? 0 : 1;
}
