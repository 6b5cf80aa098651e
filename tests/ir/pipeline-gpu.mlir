// The cuda target's stages: at `gpu` the host function allocates and
// launches kernels outlined into one gpu.module (no CPU tiling, and a row
// reduction merges with no sibling: each keeps its own launch); at `nvvm`
// the kernels are
// LLVM and NVVM with an sm_90 target attached.
// RUN: adjit-opt %s --adjit-pipeline-gpu | FileCheck %s --check-prefix=GPU
// RUN: adjit-opt %s --adjit-pipeline-nvvm | FileCheck %s --check-prefix=NVVM

// GPU: module attributes {gpu.container_module}
// GPU-LABEL: func.func @softmax_rows
// GPU-NOT: linalg.
// GPU: gpu.launch_func @kernels::@softmax_rows_kernel
// GPU: gpu.launch_func @kernels::@softmax_rows_kernel_0
// GPU: gpu.module @kernels
// GPU: gpu.func @softmax_rows_kernel({{.*}}) kernel
// GPU: gpu.func @softmax_rows_kernel_0({{.*}}) kernel
// GPU-NOT: gpu.module

// NVVM: gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// NVVM: llvm.func @softmax_rows_kernel({{.*}}) attributes {gpu.kernel
// NVVM: nvvm.read.ptx.sreg.ctaid.x
// NVVM: nvvm.shfl.sync
func.func @softmax_rows(%z: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %m = adjit.reduce max %z, dims = [1] : (tensor<64x512xf32>) -> tensor<64xf32>
  %mb = adjit.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x512xf32>
  %shifted = adjit.sub %z, %mb : tensor<64x512xf32>
  %e = adjit.exp %shifted : tensor<64x512xf32>
  %s = adjit.reduce sum %e, dims = [1] : (tensor<64x512xf32>) -> tensor<64xf32>
  %sb = adjit.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x512xf32>
  %p = adjit.div %e, %sb : tensor<64x512xf32>
  return %p : tensor<64x512xf32>
}
