#pragma once

// cuBLAS, loaded at run time like the driver (no CUDA headers or link-time
// dependency), for the gemm steps of GPU programs.

#include "adjit/runtime/GpuProgram.h"

namespace adjit::cuda {

// Whether libcublas could be loaded (never throws).
bool cublas_available();

// Runs one gemm step on `device`'s default stream; `pointers` are the
// plan's buffers. Throws adjit::RuntimeError without cuBLAS or on an error.
// ADJIT_GPU_MATMUL=tf32 lets f32 products use TF32 tensor cores (10-bit
// mantissa inputs, f32 accumulation; JAX's default precision on GPUs);
// the default is full f32.
void run_gemm(int device, const gpu::Gemm& gemm, void* const* pointers);

}  // namespace adjit::cuda
