#include "references.h"

#include <cstdint>
#include <stdexcept>

#ifdef ADJIT_HAVE_OPENBLAS
#include <cblas.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#define ADJIT_BENCH_X86 1
#include <immintrin.h>
#endif

void triad(float* a, const float* b, const float* c, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void triad_nontemporal(float* a, const float* b, const float* c, float s, size_t n) {
  size_t i = 0;
  // Up to the first 64-byte boundary of `a` with plain stores.
  for (; i < n && reinterpret_cast<uintptr_t>(a + i) % 64 != 0; ++i) a[i] = b[i] + s * c[i];
#if defined(__AVX512F__)
  const __m512 vs = _mm512_set1_ps(s);
  for (; i + 16 <= n; i += 16)
    _mm512_stream_ps(a + i, _mm512_add_ps(_mm512_loadu_ps(b + i),
                                          _mm512_mul_ps(vs, _mm512_loadu_ps(c + i))));
#elif defined(__AVX__)
  const __m256 vs = _mm256_set1_ps(s);
  for (; i + 8 <= n; i += 8)
    _mm256_stream_ps(a + i, _mm256_add_ps(_mm256_loadu_ps(b + i),
                                          _mm256_mul_ps(vs, _mm256_loadu_ps(c + i))));
#elif defined(__SSE2__)
  const __m128 vs = _mm_set1_ps(s);
  for (; i + 4 <= n; i += 4)
    _mm_stream_ps(a + i, _mm_add_ps(_mm_loadu_ps(b + i), _mm_mul_ps(vs, _mm_loadu_ps(c + i))));
#endif
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
#if defined(__SSE2__)
  _mm_sfence();  // the streamed lines are in memory before the timer stops
#endif
}

float read_sum(const float* a, size_t n) {
  // Sixteen partial sums let the compiler vectorize without -ffast-math.
  float partial[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) partial[j] += a[i + j];
  float total = 0;
  for (float p : partial) total += p;
  for (; i < n; ++i) total += a[i];
  return total;
}

bool sgemm(const float* a, const float* b, float* c, int m, int n, int k, int threads) {
#ifdef ADJIT_HAVE_OPENBLAS
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
  return true;
#else
  (void)a, (void)b, (void)c, (void)m, (void)n, (void)k, (void)threads;
  return false;
#endif
}

// ------------------------------------------------------------ FMA peak ----
//
// Each kernel runs independent chains acc = acc * m + a, one vector FMA per
// chain per round: enough chains to cover FMA latency times the FMA ports
// of any current core (4 cycles x 2 ports = 8 in flight), all in registers.
// With m = 1 - 2^-10 and a = 2^-10 every chain converges to 1 from its
// distinct start, so the values stay normal floats however long it runs;
// the distinct starts keep the compiler from merging the chains. The
// kernels are noinline so that they can be found in the disassembly:
//   objdump -d --no-show-raw-insn -C build/bench/adjit-bench |
//     awk '/<.*fma_avx512.*>:$/,/ret/' | grep -c 'vfmadd...ps.*zmm'
// (16 on GCC 12, docs/performance.md).

namespace {

constexpr float kMul = 1.0f - 1.0f / 1024, kAdd = 1.0f / 1024;

#ifdef ADJIT_BENCH_X86
__attribute__((target("avx512f"), noinline)) float fma_avx512(long rounds, float m, float a) {
  constexpr int kChains = 16;  // of 32 zmm registers
  const __m512 vm = _mm512_set1_ps(m), va = _mm512_set1_ps(a);
  __m512 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(0.01f * j);
  for (long r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], vm, va);
  }
  __m512 total = acc[0];
  for (int j = 1; j < kChains; ++j) total = _mm512_add_ps(total, acc[j]);
  alignas(64) float lanes[16];  // not _mm512_reduce_add_ps: GCC 12 warns in it
  _mm512_store_ps(lanes, total);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

__attribute__((target("avx2,fma"), noinline)) float fma_avx2(long rounds, float m, float a) {
  constexpr int kChains = 12;  // + 2 constants in 16 ymm registers
  const __m256 vm = _mm256_set1_ps(m), va = _mm256_set1_ps(a);
  __m256 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(0.01f * j);
  for (long r = 0; r < rounds; ++r) {
#pragma GCC unroll 12
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], vm, va);
  }
  __m256 total = acc[0];
  for (int j = 1; j < kChains; ++j) total = _mm256_add_ps(total, acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, total);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

// For CPUs without FMA: multiply, then add. GCC would contract the two into
// an FMA where the rest of the file targets one (-march=native), so it is
// told not to; clang does not contract across intrinsics.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
__attribute__((target("sse2"), noinline)) float fma_sse2(long rounds, float m, float a) {
  constexpr int kChains = 12;  // + 2 constants in 16 xmm registers
  const __m128 vm = _mm_set1_ps(m), va = _mm_set1_ps(a);
  __m128 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm_set1_ps(0.01f * j);
  for (long r = 0; r < rounds; ++r) {
#pragma GCC unroll 12
    for (int j = 0; j < kChains; ++j) acc[j] = _mm_add_ps(_mm_mul_ps(acc[j], vm), va);
  }
  __m128 total = acc[0];
  for (int j = 1; j < kChains; ++j) total = _mm_add_ps(total, acc[j]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, total);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#endif

// Off x86: a plain loop that the compiler vectorizes (not checked); 64
// chains still leave several vector chains per FMA unit after it does.
__attribute__((noinline)) float fma_scalar(long rounds, float m, float a) {
  constexpr int kChains = 64;
  float acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = 0.01f * j;
  for (long r = 0; r < rounds; ++r)
    for (int j = 0; j < kChains; ++j) acc[j] = acc[j] * m + a;
  float sum = 0;
  for (float x : acc) sum += x;
  return sum;
}

}  // namespace

std::vector<std::string> fma_peak_variants() {
  std::vector<std::string> variants;
#ifdef ADJIT_BENCH_X86
  __builtin_cpu_init();
  // AVX2 is measured beside AVX-512: on cores with one 512-bit FMA unit,
  // or a lower clock for 512-bit work, it can be as fast or faster.
  if (__builtin_cpu_supports("avx512f")) variants.push_back("avx512f");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) variants.push_back("avx2+fma");
  if (variants.empty()) variants.push_back("sse2");  // part of x86-64
#else
  variants.push_back("scalar");
#endif
  return variants;
}

double fma_peak_kernel(const std::string& variant, long rounds, float* sink) {
  // Flops per round: chains x lanes x 2.
#ifdef ADJIT_BENCH_X86
  if (variant == "avx512f") {
    *sink = fma_avx512(rounds, kMul, kAdd);
    return 2.0 * 16 * 16 * rounds;
  }
  if (variant == "avx2+fma") {
    *sink = fma_avx2(rounds, kMul, kAdd);
    return 2.0 * 12 * 8 * rounds;
  }
  if (variant == "sse2") {
    *sink = fma_sse2(rounds, kMul, kAdd);
    return 2.0 * 12 * 4 * rounds;
  }
#endif
  if (variant == "scalar") {
    *sink = fma_scalar(rounds, kMul, kAdd);
    return 2.0 * 64 * rounds;
  }
  throw std::invalid_argument("fma_peak_kernel: unknown variant '" + variant + "'");
}
