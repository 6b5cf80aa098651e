// cond, fori_loop, scan and while_loop: values against plain C++ loops,
// gradients with check_grads (reverse and forward mode, orders 1 and 2),
// and the errors of mismatched carries and branches.
#include "test_support.h"

#include <adjit/runtime/Allocator.h>

#include <cmath>
#include <tuple>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

Array f64(const Vec& v, Shape shape) { return make(v, std::move(shape), F64); }

// One RNN step: tanh(h * w + x), elementwise.
Tensor rnn_step(const Tensor& h, const Tensor& x, const Tensor& w) { return tanh(h * w + x); }

}  // namespace

//===----------------------------------------------------------------------===//
// cond
//===----------------------------------------------------------------------===//

TEST_CASE("control flow: cond runs the branch the predicate picks", "[control-flow]") {
  auto f = jit([](Tensor p, Tensor x) {
    return cond(p > 0.0, [](Tensor a) { return sin(a) * 2.0; }, [](Tensor a) { return a * a; },
                x);
  });
  Array x = f64({0.5, -1.0, 2.0}, {3});
  CHECK(mismatch(f(Array::scalar(1.0), x), F64, {3}, map(values(x), [](double v) {
                   return std::sin(v) * 2;
                 })) == "");
  CHECK(mismatch(f(Array::scalar(-1.0), x), F64, {3},
                 map(values(x), [](double v) { return v * v; })) == "");
}

TEST_CASE("control flow: cond gradients, closures, tuples, nested conds", "[control-flow][ad]") {
  // The branches close over y; a nested cond in the then branch.
  Fn f = [](const std::vector<Tensor>& a) {
    Tensor x = a[0], y = a[1];
    auto [u, v] = cond(
        sum(x) > 0.0,
        [&](Tensor t) {
          Tensor inner = cond(sum(y) > 1.0, [&](Tensor s) { return exp(s) * y; },
                              [&](Tensor s) { return s * 3.0; }, t);
          return std::make_tuple(inner, sin(t) * y);
        },
        [&](Tensor t) { return std::make_tuple(t * y, cos(t)); }, x);
    return sum(u * v);
  };
  Array x = f64({0.3, 0.7, -0.2}, {3}), y = f64({0.9, 0.4, 1.1}, {3});
  expect_grads("cond, then/then", f, {x, y}, 2);
  expect_grads("cond, then/else", f, {x, f64({0.1, 0.2, 0.3}, {3})}, 2);
  expect_grads("cond, else", f, {f64({-0.3, -0.7, 0.2}, {3}), y}, 2);
}

TEST_CASE("control flow: cond errors name both branches' types and the line",
          "[control-flow][errors]") {
  auto f = jit([](Tensor p, Tensor x) {
    return cond(p, [](Tensor a) { return a; }, [](Tensor a) { return sum(a); }, x);
  });
  std::string m = what_of<TraceError>([&] { f(Array::scalar(true), Array::zeros({3})); });
  INFO(m);
  CHECK(contains(m, "adjit::cond"));
  CHECK(contains(m, "f32[3] from then_fn but f32[] from else_fn"));
  CHECK(contains(m, "test_compiler_control_flow.cpp:" + std::to_string(__LINE__ - 6)));

  auto g = jit([](Tensor p, Tensor x) {
    return cond(p, [](Tensor a) { return a; }, [](Tensor a) { return -a; }, x);
  });
  CHECK(contains(what_of<TraceError>([&] { g(Array::zeros({2}, I1), Array::zeros({3})); }),
                 "the predicate must be a 0-d bool Tensor, got i1[2]"));

  // Outside a trace the error names cond, not a branch's function.
  Tensor untraced;
  std::string outside = what_of<TraceError>(
      [&] { cond(untraced, [](Tensor a) { return a; }, [](Tensor a) { return a; }, untraced); });
  INFO(outside);
  CHECK(contains(outside, "adjit::cond:"));
  CHECK_FALSE(contains(outside, "cond_"));
}

//===----------------------------------------------------------------------===//
// fori_loop
//===----------------------------------------------------------------------===//

TEST_CASE("control flow: fori_loop matches a C++ loop, with static and traced bounds",
          "[control-flow]") {
  auto body = [](Tensor i, std::tuple<Tensor, Tensor> c) {
    auto [h, acc] = c;
    Tensor next = tanh(h * 0.9 + cast(i, F64) * 0.1);
    return std::make_tuple(next, acc + sum(next));
  };
  auto reference = [](const Vec& h0, int lo, int hi) {
    Vec h = h0;
    double acc = 0;
    for (int i = lo; i < hi; ++i)
      for (double& v : h) v = std::tanh(v * 0.9 + i * 0.1), acc += v;
    return std::make_pair(h, acc);
  };
  Array h0 = f64({0.1, -0.4, 0.8, 0.0}, {4});
  auto fixed = jit([&](Tensor h) {
    return fori_loop(2, 9, body, std::make_tuple(h, full({}, 0.0, F64)));
  });
  auto [h, acc] = fixed(h0);
  auto want = reference(values(h0), 2, 9);
  CHECK(mismatch(h, F64, {4}, want.first, 1e-12) == "");
  CHECK(mismatch(acc, F64, {}, {want.second}, 1e-12) == "");

  auto traced = jit([&](Tensor h, Tensor lo, Tensor hi) {
    return fori_loop(lo, hi, body, std::make_tuple(h, full({}, 0.0, F64)));
  });
  for (auto [lo, hi] : {std::pair{0, 5}, std::pair{3, 3}, std::pair{4, 1}}) {
    auto [h2, acc2] = traced(h0, Array::scalar<int32_t>(lo), Array::scalar<int32_t>(hi));
    auto w = reference(values(h0), lo, hi);
    CHECK(mismatch(h2, F64, {4}, w.first, 1e-12) == "");
    CHECK(mismatch(acc2, F64, {}, {w.second}, 1e-12) == "");
  }

  // Bounds of any C++ integer type: a container's size, long long, unsigned.
  std::vector<int> steps(9);
  auto sized = jit([&](Tensor h) {
    return fori_loop(2LL, steps.size(), body, std::make_tuple(h, full({}, 0.0, F64)));
  });
  CHECK(mismatch(std::get<0>(sized(h0)), F64, {4}, want.first, 1e-12) == "");
  auto unsigned_bounds = jit([&](Tensor h) {
    return fori_loop(uint8_t{2}, 9u, body, std::make_tuple(h, full({}, 0.0, F64)));
  });
  CHECK(mismatch(std::get<1>(unsigned_bounds(h0)), F64, {}, {want.second}, 1e-12) == "");
  auto huge = jit([&](Tensor h) {
    return fori_loop(0, ~uint64_t{0}, body, std::make_tuple(h, full({}, 0.0, F64)));
  });
  std::string error = what_of([&] { huge(h0); });
  CHECK(contains(error, "the upper bound 18446744073709551615 does not fit in int32"));
  CHECK(contains(error, "test_compiler_control_flow.cpp"));
}

TEST_CASE("control flow: fori_loop gradients (matmuls, reductions, nesting, zero trips)",
          "[control-flow][ad]") {
  // A small RNN over a weight matrix, with a reduction in the carry.
  Fn rnn = [](const std::vector<Tensor>& a) {
    auto [h, acc] = fori_loop(
        0, 6,
        [&](Tensor i, std::tuple<Tensor, Tensor> c) {
          auto [hc, s] = c;
          Tensor next = tanh(matmul(hc, a[1]) + a[2] * cast(i, F64));
          return std::make_tuple(next, s + mean(next * next));
        },
        std::make_tuple(a[0], full({}, 0.0, F64)));
    return sum(h) + acc;
  };
  Array h0 = Array::randn({2, 3}, 1, F64), w = Array::randn({3, 3}, 2, F64),
        b = Array::randn({3}, 3, F64);
  expect_grads("fori_loop rnn", rnn, {h0, w, b}, 2);

  Fn nested = [](const std::vector<Tensor>& a) {
    Tensor r = fori_loop(0, 3, [&](Tensor, Tensor x) {
      return fori_loop(0, 2, [&](Tensor, Tensor y) { return sin(y) * a[1] + x * 0.5; }, x);
    }, a[0]);
    return sum(r * r);
  };
  expect_grads("nested fori_loop", nested, {f64({0.2, 0.5}, {2}), f64({1.1, 0.7}, {2})}, 2);

  Fn none = [](const std::vector<Tensor>& a) {
    Tensor r = fori_loop(5, 5, [&](Tensor, Tensor x) { return x * a[1]; }, a[0] * 2.0);
    return sum(r);
  };
  expect_grads("zero-trip fori_loop", none, {f64({0.2, 0.5}, {2}), f64({1.1, 0.7}, {2})});
}

TEST_CASE("control flow: gradients with carries passed through unchanged or whose final values "
          "are unused", "[control-flow][ad]") {
  // The canonicalizer turns w into an invariant, drops `dead` (it feeds
  // only itself) and keeps v (it feeds x) though v's final value is unused.
  for (int64_t every : {0, 2}) {
    Fn f = [every](const std::vector<Tensor>& a) {
      auto [x, w, dead, v] = fori_loop(
          0, 4,
          [&](Tensor, std::tuple<Tensor, Tensor, Tensor, Tensor> c) {
            auto [xc, wc, dc, vc] = c;
            return std::make_tuple(sin(xc) * wc + vc * 0.3, wc, dc * exp(xc),
                                   vc * 0.9 + cos(xc));
          },
          std::make_tuple(a[0], a[1], a[0] * 2.0, a[1] * 0.5), {.checkpoint_every = every});
      return sum(x * w);
    };
    std::string name = every ? "checkpointed carries" : "carries";
    expect_grads(name, f, {f64({0.4, -0.7}, {2}), f64({1.3, 0.6}, {2})}, 2);

    std::vector<Array> args{f64({0.4, -0.7}, {2}), f64({1.3, 0.6}, {2})};
    Vec x = values(args[0]), w = values(args[1]), v = {w[0] * 0.5, w[1] * 0.5};
    for (int step = 0; step < 4; ++step)
      for (int k = 0; k < 2; ++k) {
        double next_x = std::sin(x[k]) * w[k] + v[k] * 0.3;
        v[k] = v[k] * 0.9 + std::cos(x[k]);
        x[k] = next_x;
      }
    Array value = jit(f)(args);
    CHECK(mismatch(value, F64, {}, {x[0] * w[0] + x[1] * w[1]}, 1e-12) == "");
  }
}

TEST_CASE("control flow: gradients through a loop whose trip count is traced",
          "[control-flow][ad]") {
  Fn f = [](const std::vector<Tensor>& a) {
    Tensor r = fori_loop(1, a[2], [&](Tensor i, Tensor x) {
      return sin(x) * a[1] + cast(i, F64) * 0.1;
    }, a[0]);
    return sum(r * r);
  };
  for (int n : {6, 1, 0}) {
    std::vector<Array> args{f64({0.3, -0.6}, {2}), f64({1.2, 0.8}, {2}),
                            Array::scalar<int32_t>(n)};
    expect_grads("traced bound " + std::to_string(n), f, args, 2);
  }
}

//===----------------------------------------------------------------------===//
// scan
//===----------------------------------------------------------------------===//

TEST_CASE("control flow: scan stacks per-step outputs and differentiates", "[control-flow][ad]") {
  auto f = jit([](Tensor h0, Tensor xs, Tensor w) {
    return scan([&](Tensor h, Tensor x) {
      Tensor next = rnn_step(h, x, w);
      return std::make_pair(next, next * 2.0);
    }, h0, xs);
  });
  Array h0 = f64({0.1, -0.2}, {2}), xs = Array::randn({5, 2}, 7, F64), w = f64({0.8, -0.5}, {2});
  auto [h, ys] = f(h0, xs, w);
  Vec hv = values(h0), xv = values(xs), wv = values(w), want_ys;
  for (int t = 0; t < 5; ++t)
    for (int k = 0; k < 2; ++k) {
      hv[k] = std::tanh(hv[k] * wv[k] + xv[t * 2 + k]);
      want_ys.push_back(hv[k] * 2);
    }
  CHECK(mismatch(h, F64, {2}, hv, 1e-12) == "");
  CHECK(mismatch(ys, F64, {5, 2}, want_ys, 1e-12) == "");

  Fn loss = [](const std::vector<Tensor>& a) {
    auto [h, ys] = scan([&](Tensor hc, Tensor x) {
      Tensor next = rnn_step(hc, x, a[2]);
      return std::make_pair(next, sum(next * x));
    }, a[0], a[1]);
    return sum(h * h) + sum(ys);
  };
  expect_grads("scan", loss, {h0, xs, w}, 2);
}

TEST_CASE("control flow: scan over a tuple of xs with a vector carry", "[control-flow][ad]") {
  Fn loss = [](const std::vector<Tensor>& a) {
    auto [carry, ys] = scan(
        [&](std::vector<Tensor> c, std::tuple<Tensor, Tensor> x) {
          auto [u, v] = x;
          std::vector<Tensor> next{c[0] * u + c[1], sin(c[1]) + v};
          return std::make_pair(next, c[0] * v);
        },
        std::vector<Tensor>{a[0], a[0] * 0.5}, std::make_tuple(a[1], a[2]));
    return sum(carry[0]) + sum(carry[1] * carry[1]) + sum(ys);
  };
  expect_grads("scan with structures", loss,
               {f64({0.3, 0.1}, {2}), Array::randn({4, 2}, 3, F64),
                Array::randn({4, 2}, 4, F64)}, 2);
}

//===----------------------------------------------------------------------===//
// while_loop
//===----------------------------------------------------------------------===//

TEST_CASE("control flow: while_loop runs a data-dependent number of times", "[control-flow]") {
  // Newton's method for sqrt(a): the iteration count depends on a.
  auto newton = jit([](Tensor a) {
    auto [x, n] = while_loop(
        [&](std::tuple<Tensor, Tensor> c) {
          return abs(std::get<0>(c) * std::get<0>(c) - a) > 1e-12;
        },
        [&](std::tuple<Tensor, Tensor> c) {
          auto [x, n] = c;
          return std::make_tuple((x + a / x) * 0.5, n + 1);
        },
        std::make_tuple(a, full({}, 0, I32)));
    return std::make_tuple(x, n);
  });
  auto [x4, n4] = newton(Array::scalar(4.0));
  auto [x1e6, n1e6] = newton(Array::scalar(1e6));
  CHECK(std::fabs(x4.item<double>() - 2.0) < 1e-12);
  CHECK(std::fabs(x1e6.item<double>() - 1000.0) < 1e-9);
  CHECK(n1e6.item<int32_t>() > n4.item<int32_t>());
}

TEST_CASE("control flow: gradients through a while_loop with a data-dependent trip count",
          "[control-flow][ad]") {
  // The trip count depends on the data; so do the gradients (piecewise
  // smooth: check_grads perturbs too little to cross a step).
  Fn f = [](const std::vector<Tensor>& a) {
    auto [x, k] = while_loop([&](std::tuple<Tensor, Tensor> c) { return sum(std::get<0>(c)) < 10.0; },
                             [&](std::tuple<Tensor, Tensor> c) {
                               auto [x, k] = c;
                               return std::make_tuple(x * a[1] + sin(x), k + 1);
                             },
                             std::make_tuple(a[0], full({}, 0, I32)));
    return sum(x * x) + cast(k, F64);
  };
  for (double scale : {1.0, 0.1})
    expect_grads("while_loop", f, {f64({0.3 * scale, 0.6 * scale}, {2}), f64({1.5, 1.2}, {2})},
                 2);
  // No iteration at all: the gradient of the identity.
  expect_grads("while_loop, zero trips", f, {f64({6.0, 5.0}, {2}), f64({1.5, 1.2}, {2})}, 2);
}

TEST_CASE("control flow: carries that change type are errors naming the carry and line",
          "[control-flow][errors]") {
  auto f = jit([](Tensor x) {
    return fori_loop(0, 3, [](Tensor, Tensor c) { return sum(c); }, x);
  });
  std::string m = what_of<TraceError>([&] { f(Array::zeros({3})); });
  INFO(m);
  CHECK(contains(m, "adjit::fori_loop"));
  CHECK(contains(m, "carry 0 enters the loop as f32[3] but body_fn returns f32[]"));
  CHECK(contains(m, "test_compiler_control_flow.cpp:" + std::to_string(__LINE__ - 6)));

  auto g = jit([](Tensor x) {
    return while_loop([](Tensor c) { return c; }, [](Tensor c) { return c; }, x);
  });
  CHECK(contains(what_of<TraceError>([&] { g(Array::zeros({3})); }),
                 "cond_fn must return one 0-d bool Tensor, got f32[3]"));

  auto h = jit([](Tensor x, Tensor xs) {
    return scan([](Tensor c, Tensor r) { return std::make_pair(c + r, r); }, x, xs).first;
  });
  CHECK(contains(what_of<TraceError>([&] { h(Array::zeros({3}), Array::zeros({})); }),
                 "has no leading dimension to scan over"));
}

TEST_CASE("control flow: a Newton solve in a while_loop has the implicit function theorem's "
          "gradient", "[control-flow][ad]") {
  // x solves x^3 + a x = b; dx/da = -x / (3x^2 + a), dx/db = 1 / (3x^2 + a).
  auto solve = [](const Tensor& a, const Tensor& b) {
    return while_loop([&](Tensor x) { return max(abs(x * x * x + a * x - b)) > 1e-13; },
                      [&](Tensor x) { return x - (x * x * x + a * x - b) / (3.0 * x * x + a); },
                      zeros_like(b));
  };
  Array a = f64({1.0, 2.0, 0.5, 3.0}, {4}), b = f64({2.0, -3.0, 10.0, 0.1}, {4});
  Array x = jit(solve)(a, b);
  auto [da, db] = grad<0, 1>([&](Tensor a, Tensor b) { return sum(solve(a, b)); })(a, b);
  Vec xv = values(x), av = values(a), want_da, want_db;
  for (size_t i = 0; i < xv.size(); ++i) {
    want_da.push_back(-xv[i] / (3 * xv[i] * xv[i] + av[i]));
    want_db.push_back(1 / (3 * xv[i] * xv[i] + av[i]));
  }
  CHECK(mismatch(da, F64, {4}, want_da, 1e-12) == "");
  CHECK(mismatch(db, F64, {4}, want_db, 1e-12) == "");
}

TEST_CASE("control flow: the stack of a while_loop's gradient is freed after every call",
          "[control-flow][ad][memory]") {
  // The trip count, and so the stack's size, changes from call to call.
  auto g = grad([](Tensor x, Tensor limit) {
    Tensor r = while_loop([&](Tensor c) { return sum(c) < sum(limit); },
                          [&](Tensor c) { return c * 1.5 + 0.25; }, x);
    return sum(r * r);
  });
  Array x = f64({0.5, 0.25, 1.0}, {3});
  g(x, Array::scalar(10.0));  // compile, and warm up the allocator
  size_t live_before = adjit::allocator_stats().live_bytes;
  for (double limit : {10.0, 1e3, 1e6, 50.0, 1e9}) {
    Array dx = g(x, Array::scalar(limit));
    CHECK(std::isfinite(values(dx)[0]));
  }
  CHECK(adjit::allocator_stats().live_bytes == live_before);
}

//===----------------------------------------------------------------------===//
// checkpoint
//===----------------------------------------------------------------------===//

TEST_CASE("control flow: checkpoint recomputes in the backward pass, with the same gradients",
          "[control-flow][ad][checkpoint]") {
  auto block = [](Tensor x, Tensor w) { return tanh(matmul(x, w)) * sin(x); };
  auto plain = [&](Tensor x, Tensor w) { return sum(block(block(x, w), w)); };
  auto remat = [&](Tensor x, Tensor w) {
    auto layer = checkpoint(block);
    return sum(layer(layer(x, w), w));
  };
  Array x = Array::randn({4, 3}, 1, F64), w = Array::randn({3, 3}, 2, F64);
  auto [gx, gw] = grad<0, 1>(plain)(x, w);
  auto [cx, cw] = grad<0, 1>(remat)(x, w);
  CHECK(mismatch(cx, gx, 1e-13) == "");
  CHECK(mismatch(cw, gw, 1e-13) == "");
  Fn f = [&](const std::vector<Tensor>& a) { return remat(a[0], a[1]); };
  expect_grads("checkpoint", f, {x, w}, 2);

  // The recomputation stays in the optimized IR: the block's matmul runs
  // twice per layer forward (once forward, once recomputed) instead of
  // being merged with the forward pass by CSE. (adjit-rematerialize, off
  // here, would add recomputations of its own to both.)
  auto count = [](const std::string& ir, const std::string& what) {
    size_t n = 0;
    for (size_t at = ir.find(what); at != std::string::npos; at = ir.find(what, at + 1)) ++n;
    return n;
  };
  JitOptions no_remat{.rematerialize = false};
  std::string stored = jit(value_and_grad<1>(plain), no_remat).lower(x, w).ir("optimized");
  std::string recomputed = jit(value_and_grad<1>(remat), no_remat).lower(x, w).ir("optimized");
  CHECK(count(recomputed, "adjit.optimization_barrier") == 2);
  CHECK(count(recomputed, "adjit.tanh") == count(stored, "adjit.tanh") + 2);
}

TEST_CASE("control flow: nested loops and conds with matmuls inside, both modes, order 2",
          "[control-flow][ad]") {
  // An inner loop with a matmul (its residuals are stacked) inside an outer
  // loop, a cond inside the inner loop, and a while_loop inside a cond.
  Fn f = [](const std::vector<Tensor>& a) {
    Tensor w = a[1];
    Tensor h = fori_loop(0, 3, [&](Tensor i, Tensor outer) {
      Tensor inner = fori_loop(0, 2, [&](Tensor j, Tensor x) {
        Tensor y = tanh(matmul(x, w));
        return cond(sum(cast(i + j, F64)) > 1.5, [&](Tensor t) { return t * 0.5 + x; },
                    [&](Tensor t) { return sin(t); }, y);
      }, outer);
      return inner + outer * 0.1;
    }, a[0]);
    Tensor g = cond(sum(h) > -100.0, [&](Tensor t) {
      return while_loop([&](Tensor c) { return sum(abs(c)) < 4.0; },
                        [&](Tensor c) { return c * 1.5 + 0.01 * sum(matmul(c, w)); }, t);
    }, [&](Tensor t) { return t; }, h);
    return sum(g * g);
  };
  expect_grads("nested", f, {Array::randn({2, 3}, 5, F64), Array::randn({3, 3}, 6, F64)}, 2);
}

TEST_CASE("control flow: a fori_loop checkpointed every k iterations has the same gradients "
          "and keeps fewer carries", "[control-flow][ad][checkpoint]") {
  auto loss = [](int k) {
    return [k](Tensor x, Tensor w) {
      Tensor h = fori_loop(0, 50, [&](Tensor i, Tensor c) {
        return tanh(matmul(c, w) + cast(i, F64) * 0.01);
      }, x, {.checkpoint_every = k});
      return sum(h * h);
    };
  };
  // A contracting map (small weights): 50 steps of a chaotic one would defeat
  // the finite differences.
  Array x = Array::randn({4, 8}, 1, F64);
  Array w = make(map(values(Array::randn({8, 8}, 2, F64)), [](double v) { return 0.3 * v; }),
                 {8, 8}, F64);
  auto [gx, gw] = grad<0, 1>(loss(0))(x, w);
  for (int k : {1, 7, 50, 64}) {
    INFO("checkpoint_every " << k);
    auto [cx, cw] = grad<0, 1>(loss(k))(x, w);
    CHECK(mismatch(cx, gx, 1e-12) == "");
    CHECK(mismatch(cw, gw, 1e-12) == "");
  }
  Fn f = [&](const std::vector<Tensor>& a) { return loss(7)(a[0], a[1]); };
  expect_grads("checkpoint_every 7", f, {x, w}, 2);
  // With traced bounds too (segments counted at run time).
  Fn traced = [&](const std::vector<Tensor>& a) {
    Tensor h = fori_loop(0, a[2], [&](Tensor, Tensor c) { return tanh(matmul(c, a[1])); }, a[0],
                         {.checkpoint_every = 4});
    return sum(h * h);
  };
  expect_grads("checkpoint_every with a traced bound", traced,
               {x, w, Array::scalar<int32_t>(13)}, 2);
}

TEST_CASE("control flow: a scan checkpointed every k iterations has the same gradients "
          "and holds less memory", "[control-flow][ad][checkpoint]") {
  // Two rows per step (f64 inputs and integer steps), two outputs per step.
  auto loss = [](int k, int64_t steps) {
    return [k, steps](Tensor h0, Tensor w, Tensor xs) {
      Tensor counts = arange(steps, I32);
      auto [h, ys] = scan(
          [&](Tensor h, std::pair<Tensor, Tensor> row) {
            Tensor next = tanh(matmul(h, w) + row.first * cast(row.second, F64) * 0.1);
            return std::make_pair(next, std::make_tuple(sum(next * next), next * 0.5));
          },
          h0, std::make_pair(xs, counts), {.checkpoint_every = k});
      return sum(std::get<0>(ys)) + sum(std::get<1>(ys) * xs) + sum(h);
    };
  };
  Array h0 = Array::randn({8}, 1, F64), xs = Array::randn({23, 8}, 3, F64);
  Array w = make(map(values(Array::randn({8, 8}, 2, F64)), [](double v) { return 0.3 * v; }),
                 {8, 8}, F64);
  auto [gh, gw, gx] = grad<0, 1, 2>(loss(0, 23))(h0, w, xs);
  // 23 = 5 segments of 4 and 3 more; 7: 3 and 2; 23 and 30: one loop.
  for (int k : {1, 4, 7, 23, 30}) {
    INFO("checkpoint_every " << k);
    auto [ch, cw, cx] = grad<0, 1, 2>(loss(k, 23))(h0, w, xs);
    CHECK(mismatch(ch, gh, 1e-12) == "");
    CHECK(mismatch(cw, gw, 1e-12) == "");
    CHECK(mismatch(cx, gx, 1e-12) == "");
  }
  Fn f = [&](const std::vector<Tensor>& a) { return loss(4, 23)(a[0], a[1], a[2]); };
  expect_grads("scan checkpointed every 4", f, {h0, w, xs}, 2);
  // An empty scan has nothing to checkpoint.
  Array no_rows = Array::zeros({0, 8}, F64);
  auto [eh, ew, ex] = grad<0, 1, 2>(loss(0, 0))(h0, w, no_rows);
  auto [ch, cw, cx] = grad<0, 1, 2>(loss(4, 0))(h0, w, no_rows);
  CHECK(mismatch(ch, eh, 0) == "");
  CHECK(mismatch(cw, ew, 0) == "");
  CHECK(cx.size() == 0);

  // Over 400 steps of 64 values, every 20th carry instead of all of them.
  Array long_xs = Array::randn({400, 64}, 4, F64), long_h0 = Array::randn({64}, 5, F64);
  Array long_w = make(map(values(Array::randn({64, 64}, 6, F64)), [](double v) { return 0.1 * v; }),
                      {64, 64}, F64);
  auto plan = [&](int k) {
    return jit(grad<1>(loss(k, 400))).lower(long_h0, long_w, long_xs).memory_plan();
  };
  int64_t kept = plan(0).peak_bytes, checkpointed = plan(20).peak_bytes;
  INFO("peak bytes " << kept << " kept, " << checkpointed << " checkpointed");
  // Kept: a stack of all 400 carries (200 KiB, tanh's output carried by the
  // reverse loop rather than stacked again); checkpointed: 20 of them, and
  // a segment's stacks. Most of the difference is that stack.
  CHECK(kept - checkpointed > int64_t{400} * 64 * 8 / 2);
}

// sum(h * h) after an RNN cell stepped in a while_loop until a counter
// carried beside h reaches `steps` (the trip count depends on the data),
// checkpointed every k iterations (0: not).
static auto rnn_while_loss(int k, double steps) {
  return [k, steps](Tensor h0, Tensor w) {
    auto [h, n] = while_loop([&](std::pair<Tensor, Tensor> c) { return c.second < steps; },
                             [&](std::pair<Tensor, Tensor> c) {
                               return std::make_pair(tanh(matmul(c.first, w) + 0.01),
                                                     c.second + 1.0);
                             },
                             std::make_pair(h0, zeros_like(sum(h0))), {.checkpoint_every = k});
    return sum(h * h);
  };
}

TEST_CASE("control flow: a while_loop checkpointed every k iterations has the same gradients "
          "and holds less memory", "[control-flow][ad][checkpoint]") {
  auto loss = rnn_while_loss;
  Array h0 = Array::randn({3, 8}, 1, F64);
  Array w = make(map(values(Array::randn({8, 8}, 2, F64)), [](double v) { return 0.3 * v; }),
                 {8, 8}, F64);
  auto [gh, gw] = grad<0, 1>(loss(0, 30))(h0, w);
  for (int k : {1, 4, 7, 30, 64}) {
    INFO("checkpoint_every " << k);
    auto [ch, cw] = grad<0, 1>(loss(k, 30))(h0, w);
    CHECK(mismatch(ch, gh, 1e-12) == "");
    CHECK(mismatch(cw, gw, 1e-12) == "");
  }
  Fn f = [&](const std::vector<Tensor>& a) { return loss(4, 30)(a[0], a[1]); };
  expect_grads("while_loop checkpointed every 4", f, {h0, w}, 2);

  // Its stacks are sized at run time, outside the memory plan: what the
  // call holds at its peak, from the allocator.
  auto peak = [&](int k) {
    auto g = jit(grad<1>(loss(k, 2000)));
    g(h0, w);
    reset_allocator_peak();
    size_t before = allocator_stats().live_bytes;
    g(h0, w);
    return allocator_stats().peak_live_bytes - before;
  };
  size_t kept = peak(0), checkpointed = peak(45);
  INFO("peak bytes " << kept << " kept, " << checkpointed << " checkpointed");
  CHECK(checkpointed * 4 < kept);
  // Kept: one stack, of the carries (tanh's output, the next carry, is not
  // stacked again), doubling as it grows, so the old and the new buffer are
  // live together: under 3x its 2000 rows (1.57 MB when tanh's output had
  // a stack of its own).
  CHECK(kept < 3 * 2000 * sizeof(double[3][8]));
}

TEST_CASE("control flow: a while_loop's gradient runs the loop once, its stacks growing",
          "[control-flow][ad]") {
  // 1500 steps of an RNN cell: the carries' stacks outgrow their first
  // buffers several times. tanh's output, which the adjoint reads (it
  // would need the matmul again), is the next carry: the reverse loop
  // carries it. checkpoint_every = 1 takes the other route: count, then a
  // counted loop keeping every carry and recomputing the rest.
  auto loss = rnn_while_loss;
  for (DType dtype : {F64, F32}) {
    INFO(dtype_name(dtype));
    Array h0 = Array::randn({3, 8}, 1, dtype);
    Array w = make(map(values(Array::randn({8, 8}, 2, F64)), [](double v) { return 0.3 * v; }),
                   {8, 8}, dtype);
    auto [gh, gw] = grad<0, 1>(loss(0, 1500))(h0, w);
    auto [ch, cw] = grad<0, 1>(loss(1, 1500))(h0, w);
    double tolerance = dtype == F64 ? 1e-12 : 1e-5;
    CHECK(mismatch(gh, ch, tolerance) == "");
    CHECK(mismatch(gw, cw, tolerance) == "");
  }
  // One forward loop (stacking), then the reverse loop: no counting pass.
  Array h0 = Array::randn({3, 8}, 1, F64), w = Array::randn({8, 8}, 2, F64);
  std::string ir = jit(grad<1>(loss(0, 20))).lower(h0, w).ir("optimized");
  INFO(ir);
  CHECK(occurrences(ir, "adjit.while") == 1);
  CHECK(occurrences(ir, "adjit.for") == 1);
  // One stack: a result of the while loop, an operand of the reverse loop.
  CHECK(occurrences(ir, "tensor<?x3x8xf64>") == 2);
  // A while_loop running no iteration: the stacks stay empty.
  auto [zh, zw] = grad<0, 1>(loss(0, -1))(h0, w);
  CHECK(mismatch(zh, make(map(values(h0), [](double v) { return 2 * v; }), {3, 8}, F64), 0) == "");
  CHECK(mismatch(zw, Array::zeros({8, 8}, F64), 0) == "");
}

TEST_CASE("control flow: API forms: closures only, std::array carries, tuple results, "
          "mixed bounds", "[control-flow]") {
  auto f = jit([](Tensor x, Tensor n) {
    // cond with no operands: the branches only close over x.
    Tensor a = cond(sum(x) > 0.0, [&] { return x * 2.0; }, [&] { return -x; });
    // A std::array carry, a Tensor lower bound and a C++ upper bound.
    std::array<Tensor, 2> c = fori_loop(n, 4, [&](Tensor i, std::array<Tensor, 2> s) {
      return std::array<Tensor, 2>{s[0] + cast(i, F64), s[1] * 2.0};
    }, std::array<Tensor, 2>{a, a});
    // scan whose body returns a std::tuple.
    auto [last, ys] = scan([](Tensor h, Tensor r) { return std::make_tuple(h + r, h * r); },
                           sum(x), x);
    return std::make_tuple(c[0], c[1], last, ys);
  });
  Array x = f64({1.0, 2.0}, {2});
  auto [c0, c1, last, ys] = f(x, Array::scalar<int32_t>(1));
  // a = 2x; i = 1, 2, 3: c0 = a + 6, c1 = a * 8.
  CHECK(mismatch(c0, F64, {2}, {8.0, 10.0}) == "");
  CHECK(mismatch(c1, F64, {2}, {16.0, 32.0}) == "");
  // h = 3 -> 4 -> 6; ys = [3 * 1, 4 * 2].
  CHECK(mismatch(last, F64, {}, {6.0}) == "");
  CHECK(mismatch(ys, F64, {2}, {3.0, 8.0}) == "");
}

TEST_CASE("control flow: a Tensor computed inside a body and used after it is a clear error",
          "[control-flow][errors]") {
  // As JAX's UnexpectedTracerError: the body's values leave it only as its
  // results. The message names the construct's line and the use's line.
  auto leak = [](const std::string& which) {
    return jit([which](Tensor x) {
      Tensor leaked;
      Tensor y;
      if (which == "fori_loop")
        y = fori_loop(0, 3, [&](Tensor, Tensor c) { leaked = c * 2.0; return c + 1.0; }, x);
      else if (which == "cond")
        y = cond(sum(x) > 0.0, [&](Tensor a) { leaked = a * 3.0; return a; },
                 [](Tensor a) { return a; }, x);
      else if (which == "scan")
        y = scan([&](Tensor c, Tensor r) { leaked = r; return std::make_pair(c + r, c); }, x,
                 reshape(x, {1, 2})).first;
      else if (which == "while_loop")
        y = while_loop([&](Tensor c) { leaked = c * 2.0; return sum(c) < 3.0; },
                       [](Tensor c) { return c + 1.0; }, x);
      else if (which == "grad")
        y = grad([&](Tensor z) { leaked = z * 3.0; return sum(leaked); })(x);
      else
        y = checkpoint([&](Tensor z) { leaked = z * 3.0; return z; })(x);
      return y + leaked;
    });
  };
  for (std::string which : {"fori_loop", "cond", "scan", "while_loop", "grad", "checkpoint"}) {
    INFO(which);
    auto f = leak(which);
    std::string message = what_of([&] { f(Array::ones({2})); });
    INFO(message);
    CHECK(contains(message, "adjit::add: an operand, f32[2], is a Tensor computed inside"));
    CHECK(contains(message, "used after that function returned"));
    CHECK(contains(message, "test_compiler_control_flow.cpp:"));
    CHECK_THROWS_AS(f(Array::ones({2})), TraceError);
  }
  // Returned directly: the result is named, with the line that jitted it.
  int jitted_line = __LINE__ + 1;
  auto returned = jit([](Tensor x) {
    Tensor leaked;
    fori_loop(0, 2, [&](Tensor, Tensor c) { leaked = c; return c; }, x);
    return leaked;
  });
  std::string message = what_of([&] { returned(Array::ones({2})); });
  INFO(message);
  CHECK(contains(message, "result 0 of the traced function 'fn' (jitted at "));
  CHECK(contains(message, "test_compiler_control_flow.cpp:" + std::to_string(jitted_line) + ")"));
  CHECK(contains(message, "adjit::fori_loop (at "));
  // The function still traces and runs once the body is fixed.
  auto fixed = jit([](Tensor x) { return fori_loop(0, 3, [](Tensor, Tensor c) { return c + 1.0; }, x); });
  CHECK(fixed(Array::ones({2})).to_vector<float>() == std::vector<float>{4, 4});
}

TEST_CASE("control flow: third-order reverse mode through a run-time trip count is refused",
          "[control-flow][errors]") {
  // The stacks of such a loop are dynamically shaped, and their cotangents
  // would need adding: a CompileError naming the loop, not a crash.
  auto f = [](Tensor x, Tensor n) {
    return sum(fori_loop(0, n, [&](Tensor, Tensor c) { return sin(c * x); }, x));
  };
  auto g1 = [f](Tensor x, Tensor n) { return sum(grad(f)(x, n)); };
  auto g2 = [g1](Tensor x, Tensor n) { return sum(grad(g1)(x, n)); };
  Array x = f64({0.5, 0.7}, {2});
  Array n = Array::scalar<int32_t>(3);
  Array second = grad(g1)(x, n);  // second order works
  CHECK(std::isfinite(second.to_vector<double>()[0]));
  std::string message = what_of([&] { grad(g2)(x, n); });
  INFO(message);
  CHECK(contains(message, "trip count is known only at run time"));
  CHECK_THROWS_AS(grad(g2)(x, n), CompileError);
}
