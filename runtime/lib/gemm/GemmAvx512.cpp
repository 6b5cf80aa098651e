// The GEMM kernels for AVX-512 (built with -mavx512f -mfma).
#define ADJIT_GEMM_ISA avx512
#define ADJIT_GEMM_VECTOR_BYTES 64
#define ADJIT_GEMM_MR 8
#include "GemmKernels.inc"
