// The cuda target's stages: at `gpu` the host function allocates and
// launches kernels outlined into one gpu.module (named after its kernel
// when it is the only one). Softmax's row group is one kernel with a
// thread block per row: its two reductions are block-wide all-reduces,
// each with shared memory for the warps' partials, and their initial
// values are filled row by row. At `nvvm` the kernels are LLVM and NVVM
// with an sm_90 target attached.
// RUN: adjit-opt %s --adjit-pipeline-gpu | FileCheck %s --check-prefix=GPU
// RUN: adjit-opt %s --adjit-pipeline-nvvm | FileCheck %s --check-prefix=NVVM

// GPU: module attributes {gpu.container_module}
// GPU-LABEL: func.func @softmax_rows
// GPU-NOT: linalg.
// GPU: gpu.launch_func @softmax_rows_kernel::@softmax_rows_kernel blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1)
// GPU-NOT: gpu.launch_func
// GPU: gpu.module @softmax_rows_kernel
// GPU: gpu.func @softmax_rows_kernel({{.*}}) workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>) kernel
// GPU: gpu.shuffle xor
// GPU: gpu.barrier
// GPU-NOT: gpu.module

// NVVM: gpu.module @softmax_rows_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
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
