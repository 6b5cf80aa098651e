#ifndef ADJIT_BENCH_REFERENCES_H
#define ADJIT_BENCH_REFERENCES_H

#include <cstddef>

// Hand-written references, compiled with -O3 -march=native.
void triad(float* a, const float* b, const float* c, float s, size_t n);  // a = b + s c
float read_sum(const float* a, size_t n);
// W1 in one pass: returns sum(tanh(x) sigmoid(x) + x^2/2), writes d/dx.
float w1_handfused(const float* x, float* dx, size_t n);
// One sgemm C = A B (m x k times k x n) with `threads` OpenBLAS threads;
// false when OpenBLAS is not available.
bool sgemm(const float* a, const float* b, float* c, int m, int n, int k, int threads);

#endif
