// Must not compile: grad<1> names the static int argument, which has no
// gradient. The test passes when the compiler says so in adjit's words.
#include <adjit/adjit.h>

int main() {
  auto g = adjit::grad<1>([](adjit::Tensor a, int k) { return adjit::sum(a * double(k)); });
  g(adjit::Array::ones({3}), 3);
}
