#ifndef ADJIT_BENCH_REFERENCES_H
#define ADJIT_BENCH_REFERENCES_H

#include <cstddef>
#include <string>
#include <vector>

// Hand-written references, compiled with -O3 -march=native.
// a = b + s c with plain stores: the core reads each line of `a` before it
// writes it (a read for ownership), so 4 streams move for the 3 counted.
void triad(float* a, const float* b, const float* c, float s, size_t n);
// The same with nontemporal stores, which write `a`'s lines without reading
// them, as adjit's streamed results are written (adjit-stream-stores).
void triad_nontemporal(float* a, const float* b, const float* c, float s, size_t n);
float read_sum(const float* a, size_t n);
// W1 in one pass: returns sum(tanh(x) sigmoid(x) + x^2/2), writes d/dx.
float w1_handfused(const float* x, float* dx, size_t n);
// W5 (spring chain, symplectic Euler) and its adjoint by hand: returns the
// loss sum(v^2)/2 after `steps` steps, writes d/dp0 (n) and d/dk (n - 1).
float w5_hand_adjoint(const float* p0, const float* v0, const float* k, int n, int steps, float dt,
                      float* dp0, float* dk);
// One sgemm C = A B (m x k times k x n) with `threads` OpenBLAS threads;
// false when OpenBLAS is not available.
bool sgemm(const float* a, const float* b, float* c, int m, int n, int k, int threads);

// The f32 FMA peak of one core, W2's limit (docs/performance.md). The
// kernels worth measuring on this CPU (read at run time), widest first:
//   "avx512f"  16 independent chains of zmm FMAs (_mm512_fmadd_ps)
//   "avx2+fma" 12 chains of ymm FMAs (16 ymm registers without AVX-512);
//              measured beside avx512f too, the faster one is the peak
//   "sse2"     12 chains of xmm multiply + add, x86 without AVX2 and FMA
//   "scalar"   64 chains of float a*b+c the compiler vectorizes, off x86
std::vector<std::string> fma_peak_variants();
// Runs `rounds` rounds of `variant`'s kernel (one FMA, or multiply + add,
// per chain per round) and returns the f32 flops done: 2 per lane per FMA.
// The chains' sum goes to *sink so that nothing is optimized away.
double fma_peak_kernel(const std::string& variant, long rounds, float* sink);

#endif
