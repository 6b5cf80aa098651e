// ADJIT_PERF_MAP=1: the JIT lists the code it links in /tmp/perf-<pid>.map,
// so that perf names samples in compiled functions.
#include <adjit/adjit.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using adjit::Array;
using adjit::Tensor;
using Catch::Matchers::Contains;

namespace {

std::string perf_map_path() { return "/tmp/perf-" + std::to_string(::getpid()) + ".map"; }

struct MapLine {
  uint64_t start, size;
  std::string name;
};

std::vector<MapLine> read_perf_map() {
  std::ifstream in(perf_map_path());
  std::vector<MapLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    std::istringstream fields(text);
    MapLine line;
    fields >> std::hex >> line.start >> line.size >> line.name;
    if (fields) lines.push_back(line);
  }
  return lines;
}

// Whether [start, start + size) lies in one executable mapping of this process.
bool in_executable_mapping(uint64_t start, uint64_t size) {
  std::ifstream maps("/proc/self/maps");
  std::string range, permissions, rest;
  while (maps >> range >> permissions && std::getline(maps, rest)) {
    uint64_t low = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    uint64_t high = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (permissions[2] == 'x' && low <= start && start + size <= high) return true;
  }
  return false;
}

// Sets ADJIT_PERF_MAP for a scope; the map this process wrote goes with it.
struct PerfMapSetting {
  explicit PerfMapSetting(const char* value) { ::setenv("ADJIT_PERF_MAP", value, 1); }
  ~PerfMapSetting() {
    ::unsetenv("ADJIT_PERF_MAP");
    std::remove(perf_map_path().c_str());
  }
};

}  // namespace

TEST_CASE("ADJIT_PERF_MAP lists compiled functions, parallel bodies included, for perf",
          "[jit][perf]") {
  PerfMapSetting setting("1");
  size_t before = read_perf_map().size();
  // Large enough to run in parallel chunks: an outlined OpenMP body.
  auto f = adjit::jit([](Tensor x) { return adjit::exp(x) * 2.0 + adjit::sum(x); });
  Array x = Array::full({1 << 20}, 0.5);
  CHECK(f(x).to_vector<float>()[7] == Approx(std::exp(0.5f) * 2 + 0.5f * (1 << 20)));
  std::vector<MapLine> lines = read_perf_map();
  REQUIRE(lines.size() > before);
  bool entry = false, parallel_body = false;
  for (size_t i = before; i < lines.size(); ++i) {
    const MapLine& line = lines[i];
    INFO(line.name);
    CHECK(line.size > 0);
    CHECK(in_executable_mapping(line.start, line.size));
    entry |= line.name.rfind("adjit_entry_", 0) == 0;
    parallel_body |= line.name.find("omp_par") != std::string::npos;
  }
  CHECK(entry);
  CHECK(parallel_body);
}

TEST_CASE("ADJIT_PERF_MAP takes 0 or 1, a bad value fails the compilation, not the function",
          "[jit][perf]") {
  auto f = adjit::jit([](Tensor x) { return x * 3.0; });
  {
    PerfMapSetting setting("yes");
    CHECK_THROWS_WITH(f(Array::full({4}, 1.0)), Contains("ADJIT_PERF_MAP must be 0 or 1, not 'yes'"));
  }
  PerfMapSetting off("0");
  size_t before = read_perf_map().size();
  CHECK(f(Array::full({4}, 1.0)).to_vector<float>() == std::vector<float>(4, 3.0f));
  CHECK(read_perf_map().size() == before);
}
