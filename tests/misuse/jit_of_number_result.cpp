// Must not compile: the jitted function returns a number, which is not
// traced. The test passes when the compiler says so in adjit's words.
#include <adjit/adjit.h>

int main() {
  auto f = adjit::jit([](adjit::Tensor) { return 3; });
  f(adjit::Array::ones({3}));
}
