// Solve x^3 + a x = b for x with Newton's method in a while_loop, whose
// iteration count depends on the data, and differentiate the solution with
// respect to the parameters a and b through the loop. The gradient agrees
// with the implicit function theorem: for F(x, a, b) = x^3 + a x - b = 0,
// dx/da = -x / (3x^2 + a) and dx/db = 1 / (3x^2 + a).
// Run: build/examples/adjit-example-newton_solve
#include <adjit/adjit.h>

#include <cmath>
#include <cstdio>

using adjit::Array;
using adjit::Tensor;

// One root per element of a and b (a > 0, so F is monotonic in x).
Tensor solve(const Tensor& a, const Tensor& b) {
  auto [x, iterations] = adjit::while_loop(
      [&](std::tuple<Tensor, Tensor> c) {
        auto [x, n] = c;
        Tensor residual = x * x * x + a * x - b;
        return adjit::logical_and(adjit::max(adjit::abs(residual)) > 1e-12, n < 100);
      },
      [&](std::tuple<Tensor, Tensor> c) {
        auto [x, n] = c;
        Tensor step = (x * x * x + a * x - b) / (3.0 * x * x + a);
        return std::make_tuple(x - step, n + 1);
      },
      std::make_tuple(adjit::zeros_like(b), adjit::full({}, 0, adjit::DType::i32)));
  return x;
}

int main() {
  Array a = Array::from<double>({1.0, 2.0, 0.5}, {3});
  Array b = Array::from<double>({2.0, -3.0, 10.0}, {3});

  auto roots = adjit::jit(solve);
  // d(sum x)/da and d(sum x)/db: each x depends on its own a and b only.
  auto gradients = adjit::grad<0, 1>([](Tensor a, Tensor b) { return adjit::sum(solve(a, b)); });

  Array x = roots(a, b);
  auto [dx_da, dx_db] = gradients(a, b);
  double worst = 0;
  for (int i = 0; i < 3; ++i) {
    double xi = x.data<double>()[i], ai = a.data<double>()[i];
    double want_da = -xi / (3 * xi * xi + ai), want_db = 1 / (3 * xi * xi + ai);
    std::printf("a=%4.1f b=%5.1f  x=%.12f  dx/da=%.12f (IFT %.12f)  dx/db=%.12f (IFT %.12f)\n",
                ai, b.data<double>()[i], xi, dx_da.data<double>()[i], want_da,
                dx_db.data<double>()[i], want_db);
    worst = std::max({worst, std::abs(dx_da.data<double>()[i] - want_da),
                      std::abs(dx_db.data<double>()[i] - want_db)});
  }
  std::printf("largest difference from the implicit function theorem: %.3g\n", worst);
  return worst < 1e-9 ? 0 : 1;
}
