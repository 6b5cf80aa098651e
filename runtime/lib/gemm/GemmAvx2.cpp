// The GEMM kernels for AVX2 (built with -mavx2 -mfma).
#define ADJIT_GEMM_ISA avx2
#define ADJIT_GEMM_VECTOR_BYTES 32
#define ADJIT_GEMM_MR 6
#include "GemmKernels.inc"
