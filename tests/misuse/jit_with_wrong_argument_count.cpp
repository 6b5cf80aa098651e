// Must not compile: the jitted function takes one argument and is called
// with two. The test passes when the compiler says so in adjit's words.
#include <adjit/adjit.h>

int main() {
  auto f = adjit::jit([](adjit::Tensor x) { return x * 2.0; });
  f(adjit::Array::ones({3}), adjit::Array::ones({3}));
}
