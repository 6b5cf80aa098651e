// Must not compile: a mutable lambda changes its own state, and jit traces
// once per signature, possibly on several threads at once. The test passes
// when the compiler says so in adjit's words.
#include <adjit/adjit.h>

int main() {
  int traces = 0;
  auto f = adjit::jit([traces](adjit::Tensor x) mutable {
    ++traces;
    return x * 2.0;
  });
  f(adjit::Array::ones({3}));
}
