// The process's compile cache: a program traced again into the same IR
// (vjp, jvp and hvp called on Arrays trace at every call; a second jit of
// one function) links the machine code compiled the first time; a captured
// value that changed is a new program; the bound drops the entries used
// longest ago; a cache directory named later still gets the entry.
#include "scratch_dir.h"
#include "test_support.h"

#include <adjit/compiler/CompileCache.h>
#include <adjit/compiler/ProcessCompileCache.h>

#include <cmath>
#include <filesystem>
#include <memory>

using namespace adjit;
using namespace adjit::test;
namespace fs = std::filesystem;

namespace {

ProcessCompileCache& cache() { return ProcessCompileCache::instance(); }

Tensor poly(Tensor x) { return sum(x * x * 3.0 + exp(x)); }

Array points() { return Array::from<double>({0.5, -1.0, 2.0}, {3}); }

ProcessCompileCache::Object bytes(size_t size) {
  return std::make_shared<const std::string>(size, 'x');
}

}  // namespace

TEST_CASE("process compile cache: vjp, jvp and hvp called on Arrays compile once", "[cache]") {
  cache().clear();
  auto f = [](Tensor x) { return sum(tanh(x) * x); };
  auto pullback_of = [&] {
    auto [y, pullback] = vjp(f, points());
    return std::make_pair(y.item<double>(), pullback(Array::scalar<double>(1.0)).to_vector<double>());
  };
  auto first = pullback_of();
  ProcessCompileCache::Info compiled = cache().info();
  CHECK(compiled.misses >= 2);  // the outputs and the pullback
  CHECK(compiled.entries >= 2);
  auto second = pullback_of();
  CHECK(cache().info().misses == compiled.misses);
  CHECK(cache().info().hits >= compiled.hits + 2);
  CHECK(second == first);
  for (int i = 0; i < 3; ++i) {
    double x = std::vector<double>{0.5, -1.0, 2.0}[i];
    double t = std::tanh(x);
    CHECK(first.second[i] == Approx(t + x * (1 - t * t)));
  }

  Array tangent = Array::from<double>({1.0, 0.0, -2.0}, {3});
  auto [y1, dy1] = jvp(f, points(), tangent);
  uint64_t misses = cache().info().misses;
  auto [y2, dy2] = jvp(f, points(), tangent);
  CHECK(cache().info().misses == misses);
  CHECK(dy2.item<double>() == dy1.item<double>());

  Array hv1 = hvp(f, points(), tangent);
  misses = cache().info().misses;
  Array hv2 = hvp(f, points(), tangent);
  CHECK(cache().info().misses == misses);
  CHECK(hv2.to_vector<double>() == hv1.to_vector<double>());
}

TEST_CASE("process compile cache: a captured value that changed compiles again", "[cache]") {
  // The value is part of the traced IR, so of the key: never a stale result.
  cache().clear();
  for (double scale : {2.0, 3.0, 2.0}) {
    uint64_t misses = cache().info().misses;
    auto [y, pullback] = vjp([scale](Tensor x) { return sum(x * scale); }, points());
    CHECK(y.item<double>() == Approx(1.5 * scale));
    CHECK(pullback(Array::scalar<double>(1.0)).to_vector<double>() ==
          std::vector<double>(3, scale));
    if (scale == 3.0) CHECK(cache().info().misses > misses);
    if (scale == 2.0 && misses > 0) CHECK(cache().info().misses == misses);  // seen before
  }
}

TEST_CASE("process compile cache: two jits of one function share its compilation", "[cache]") {
  cache().clear();
  auto f = jit(poly);
  double value = f(points()).item<double>();
  ProcessCompileCache::Info compiled = cache().info();
  auto g = jit(poly);
  CHECK(g(points()).item<double>() == value);
  CHECK(g.cache_info().misses == 1);  // g traced: a miss of its own cache
  CHECK(cache().info().misses == compiled.misses);
  CHECK(cache().info().hits == compiled.hits + 1);
}

TEST_CASE("process compile cache: a directory named later gets the entry", "[cache]") {
  cache().clear();
  jit(poly)(points());
  ScratchDir dir("adjit-process-cache-test");
  auto f = jit(poly, {.cache_dir = dir.path()});
  uint64_t hits = cache().info().hits;
  CHECK(f(points()).item<double>() == Approx(jit(poly)(points()).item<double>()));
  CHECK(cache().info().hits > hits);
  CHECK(CompileCache(dir.path()).info().entries == 1);
}

TEST_CASE("process compile cache: the entries used longest ago go past the bound", "[cache]") {
  ProcessCompileCache small(100);
  small.store("a", bytes(40));
  small.store("b", bytes(40));
  CHECK(small.load("a"));  // now used more recently than b
  small.store("c", bytes(40));
  CHECK(small.info().entries == 2);
  CHECK(small.info().bytes == 80);
  CHECK_FALSE(small.load("b"));
  CHECK(small.load("a"));
  CHECK(small.load("c"));
  small.store("huge", bytes(101));  // larger than all of it: not kept, nothing dropped
  CHECK_FALSE(small.load("huge"));
  CHECK(small.info().entries == 2);
  small.store("a", bytes(10));  // replaces
  CHECK(small.info().bytes == 50);
  small.remove("c");
  CHECK(small.info().entries == 1);
  ProcessCompileCache::Info info = small.info();
  CHECK(info.hits == 3);
  CHECK(info.misses == 2);
  CHECK(info.max_bytes == 100);

  ProcessCompileCache off(0);
  CHECK_FALSE(off.enabled());
  off.store("a", bytes(1));
  CHECK_FALSE(off.load("a"));
  CHECK(off.info().entries == 0);
}
