// The timing of adjit-transformer-bench and adjit-conv-bench: a call's
// first run (tracing and compiling included) and the median of `reps`
// more, printed as one JSON line that bench/peers' scripts also print.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace adjit::bench {

inline double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

template <class F>
void time_calls(const char* workload, const std::string& variant, int reps, F&& call) {
  auto start = std::chrono::steady_clock::now();
  call();
  double first = milliseconds_since(start);
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    start = std::chrono::steady_clock::now();
    call();
    times.push_back(milliseconds_since(start));
  }
  std::sort(times.begin(), times.end());
  std::printf("{\"workload\":\"%s\",\"impl\":\"adjit\",\"variant\":\"%s\","
              "\"first_call_ms\":%.2f,\"median_ms\":%.3f}\n",
              workload, variant.c_str(), first, times.empty() ? 0 : times[times.size() / 2]);
}

}  // namespace adjit::bench
