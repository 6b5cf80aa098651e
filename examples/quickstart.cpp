// adjit quickstart: trace a C++ lambda once, run it as native code, look at
// its IR. Build and run: ./scripts/demo.sh
#include <adjit/adjit.h>

#include <iostream>

int main() {
  // Tensor parameters are traced; `scale` is static: part of the cache key.
  auto f = adjit::jit(
      [](adjit::Tensor x, adjit::Tensor w, double scale) {
        adjit::Tensor h = adjit::tanh(adjit::matmul(x, w)) * scale;
        return std::make_tuple(adjit::sum(h * h), adjit::softmax(h, /*axis=*/1));
      },
      {.name = "quickstart"});

  adjit::Array x = adjit::Array::randn({2, 3}, /*seed=*/1);
  adjit::Array w = adjit::Array::randn({3, 4}, /*seed=*/2);

  auto [energy, probs] = f(x, w, 0.5);  // traces, compiles, runs
  std::cout << "energy = " << energy << "\nprobs  = " << probs << "\n";

  f(x, w, 0.5);                                  // cached: runs the compiled code
  f(adjit::Array::randn({5, 3}, 3), w, 0.5);     // new shape: traced again
  adjit::CacheInfo info = f.cache_info();
  std::cout << "cache: " << info.hits << " hit(s), " << info.misses << " trace(s), "
            << info.compile_seconds * 1e3 << " ms compiling\n\n";

  // Every pipeline stage is available as text (or set ADJIT_DUMP_DIR=dir).
  adjit::Lowered lowered = f.lower(x, w, 0.5);
  std::cout << "--- traced ---\n" << lowered.ir("traced");
  std::cout << "--- fused (first lines) ---\n" << lowered.ir("fused").substr(0, 600) << "...\n";
}
