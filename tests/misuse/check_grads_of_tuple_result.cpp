// Must not compile: check_grads of a function with two results. The test
// passes when the compiler says so in adjit's words.
#include <adjit/adjit.h>

#include <tuple>

int main() {
  adjit::check_grads(
      [](adjit::Tensor x) { return std::make_tuple(adjit::sin(x), x * x); },
      {adjit::Array::ones({3})});
}
