// Must not compile: value_and_grad of a function with two results. The
// test passes when the compiler says so in adjit's words.
#include <adjit/adjit.h>

#include <tuple>

int main() {
  auto f = adjit::value_and_grad(
      [](adjit::Tensor x) { return std::make_tuple(adjit::sum(x), adjit::sum(x * x)); });
  f(adjit::Array::ones({3}));
}
