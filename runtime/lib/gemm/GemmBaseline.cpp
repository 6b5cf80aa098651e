// The GEMM kernels for any CPU (16-byte vectors: SSE2 on x86-64).
#define ADJIT_GEMM_ISA baseline
#define ADJIT_GEMM_VECTOR_BYTES 16
#define ADJIT_GEMM_MR 6
#include "GemmKernels.inc"
