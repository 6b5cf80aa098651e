#include <cstdint>
#include <cstdlib>
#include <string>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "adjit/runtime/Gemm.h"
#include "adjit/runtime/Threads.h"

namespace {

int64_t address(const void* p) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(p)); }

// One operand stored row- or column-major, with a batch stride.
template <class T>
struct Stored {
  std::vector<T> data;
  int64_t batch_stride, row_stride, col_stride;
  Stored(int64_t batch, int64_t rows, int64_t cols, bool transposed, std::mt19937& rng)
      : data(batch * rows * cols), batch_stride(rows * cols),
        row_stride(transposed ? 1 : cols), col_stride(transposed ? rows : 1) {
    std::normal_distribution<double> normal;
    for (T& x : data) x = static_cast<T>(normal(rng));
  }
  T at(int64_t q, int64_t r, int64_t c) const {
    return data[q * batch_stride + r * row_stride + c * col_stride];
  }
};

template <class T>
void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const Stored<T>& a, const Stored<T>& b,
          std::vector<T>& c, bool accumulate) {
  auto call = sizeof(T) == 4 ? adjit_gemm_f32 : adjit_gemm_f64;
  call(batch, m, n, k, address(a.data.data()), a.batch_stride, a.row_stride, a.col_stride,
       address(b.data.data()), b.batch_stride, b.row_stride, b.col_stride, address(c.data()),
       m * n, n, 1, accumulate);
}

// Every transposition, accumulate or overwrite, edges of every tile size,
// several blocks of A (m = 530 and 1100: with a 2 MiB L2, blocks of 252
// rows and a last one of 278 or 92), A packed whole beside several panels
// of B (m = 100, n = 600: panels of 256 or 512 columns and a last one)
// and k in unequal slices (700 = 240 + 240 + 220), against a
// double-precision loop. C of at most a vector's lanes of columns (2 to
// 16 on the kernels of every instruction set) take the narrow kernels
// when A is stored by rows: k within B's rows held in registers (3, 8),
// just past them (17: a partial vector of A), and in several slices of B
// (1030), with rows left over by every tile (45, 77); so do C of at most
// that many rows with B stored transposed and k of 16 vectors or more
// (3, 7 and 12 rows, k = 300 and 600), computed as C^T = B^T A^T. C and A
// of dense rows of at most 4 take whole groups of rows in whole vectors
// (points times 3 x 3 or 3 x 4, 4 x 4, 2 x 2, a column from 3) and their
// last rows as above (m x k x n): 300 x 3 x 3, 100 x 4 x 4 (batched),
// 77 x 3 x 4, 50 x 2 x 2, 35 x 3 x 1 (batched), 41 x 4 x 3.
template <class T>
void check_against_reference(double tolerance) {
  std::mt19937 rng(7);
  for (auto [batch, m, n, k] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{1, 1, 1, 1},
                                {2, 13, 35, 7}, {1, 37, 71, 300}, {3, 50, 9, 513}, {1, 5, 1, 1000},
                                {1, 32, 256, 256}, {1, 48, 100, 600}, {1, 530, 33, 300},
                                {1, 1100, 40, 300}, {1, 100, 600, 700}, {1, 300, 3, 3},
                                {2, 45, 8, 8}, {1, 77, 16, 17}, {2, 45, 10, 1030},
                                {1, 9, 4, 200}, {1, 6, 2, 9}, {1, 12, 70, 600},
                                {1, 7, 70, 600}, {2, 3, 40, 300}, {2, 100, 4, 4},
                                {1, 77, 4, 3}, {1, 50, 2, 2}, {3, 35, 1, 3}, {1, 41, 3, 4}})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (bool accumulate : {false, true}) {
          Stored<T> a(batch, m, k, ta, rng), b(batch, k, n, tb, rng);
          std::vector<T> c(batch * m * n, T(0.5));
          gemm(batch, m, n, k, a, b, c, accumulate);
          double worst = 0;
          for (int64_t q = 0; q < batch; ++q)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double expected = accumulate ? 0.5 : 0;
                for (int64_t p = 0; p < k; ++p) expected += double(a.at(q, i, p)) * b.at(q, p, j);
                worst = std::max(worst, std::abs(expected - c[(q * m + i) * n + j]) /
                                            (1 + std::abs(expected)));
              }
          INFO(batch << "x" << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb
                     << " accumulate=" << accumulate << " isa=" << adjit::gemm::isa());
          CHECK(worst < tolerance);
        }
}

}  // namespace

TEST_CASE("gemm f32 matches a double-precision loop for every operand layout", "[gemm]") {
  check_against_reference<float>(1e-4);
}

TEST_CASE("gemm f64 matches a double-precision loop for every operand layout", "[gemm]") {
  check_against_reference<double>(1e-12);
}

TEST_CASE("ADJIT_GEMM_ISA asks for narrower kernels, never wider", "[gemm]") {
  const char* requested = std::getenv("ADJIT_GEMM_ISA");
  std::string used = adjit::gemm::isa();
  if (requested && std::string(requested) == "baseline") CHECK(used == "baseline");
  if (requested && std::string(requested) == "avx2") CHECK(used != "avx512");
}

TEST_CASE("gemm with k = 0 writes zeros or leaves C", "[gemm]") {
  std::mt19937 rng(1);
  Stored<float> a(1, 3, 0, false, rng), b(1, 0, 4, false, rng);
  std::vector<float> c(12, 2.0f);
  gemm<float>(1, 3, 4, 0, a, b, c, true);
  CHECK(c == std::vector<float>(12, 2.0f));
  gemm<float>(1, 3, 4, 0, a, b, c, false);
  CHECK(c == std::vector<float>(12, 0.0f));
}

TEST_CASE("gemm results are identical for every thread count", "[gemm][threads]") {
  std::mt19937 rng(3);
  // 260 columns: the register tiles; 10 and 3: the narrow kernels.
  for (int64_t n : {260, 10, 3}) {
    int64_t k = n == 3 ? 5 : 500;
    Stored<float> a(1, 300, k, false, rng), b(1, k, n, true, rng);
    std::vector<float> one(300 * n), two(300 * n), three(300 * n);
    {
      adjit::threads::CallThreads scope(1);
      gemm<float>(1, 300, n, k, a, b, one, false);
    }
    {
      adjit::threads::CallThreads scope(2);
      gemm<float>(1, 300, n, k, a, b, two, false);
    }
    {
      adjit::threads::CallThreads scope(3);
      gemm<float>(1, 300, n, k, a, b, three, false);
    }
    INFO("n = " << n);
    CHECK(one == two);
    CHECK(one == three);
  }
}

TEST_CASE("concurrent calls share the requested threads", "[threads]") {
  adjit::threads::CallThreads outer(4);
  CHECK(adjit::threads::current() == 4);
  {
    adjit::threads::CallThreads inner(4);  // a second call running at once
    CHECK(adjit::threads::current() == 2);
  }
  CHECK(adjit::threads::current() == 4);
}
