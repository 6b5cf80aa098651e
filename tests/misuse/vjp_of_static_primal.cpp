// Must not compile: vjp differentiates every primal, and the int has no
// cotangent. The test passes when the compiler says so in adjit's words.
#include <adjit/adjit.h>

int main() {
  auto [y, pullback] =
      adjit::vjp([](adjit::Tensor a, int k) { return a * double(k); }, adjit::Array::ones({3}), 3);
  pullback(adjit::Array::ones({3}));
}
