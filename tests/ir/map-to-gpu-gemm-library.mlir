// With a GEMM library (cuBLAS), contractions stay on the host for the launch
// plan's gemm steps. A zero fill just before one is folded into it: the
// product overwrites its output (its library call gains `_overwrite`, the
// plan's gemm step does not accumulate), and no fill kernel is launched. A
// product that accumulates onto other values keeps them; a fill of another
// value stays a kernel.
// RUN: adjit-opt %s --adjit-map-to-gpu=gemm-library=true | FileCheck %s

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @products
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic {{.*}} library_call = "adjit_gemm_f32_overwrite"} ins(%arg0, %arg1
// CHECK-SAME: outs(%[[ZEROED:.*]] : memref<16x8xf32>)
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic {{.*}} library_call = "adjit_gemm_f32"} ins(%arg0, %arg1
// CHECK-SAME: outs(%arg2 : memref<16x8xf32>)
// The fill of ones runs as a kernel; its product accumulates.
// CHECK: gpu.launch
// CHECK: linalg.generic {{.*}} library_call = "adjit_gemm_f32"} ins(%arg0, %arg1
// CHECK-SAME: outs(%arg3 : memref<16x8xf32>)
func.func @products(%x: memref<16x32xf32>, %w: memref<32x8xf32>, %acc: memref<16x8xf32>,
                    %ones: memref<16x8xf32>) -> memref<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %y = memref.alloc() : memref<16x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<16x8xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "adjit_gemm_f32"}
      ins(%x, %w : memref<16x32xf32>, memref<32x8xf32>) outs(%y : memref<16x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "adjit_gemm_f32"}
      ins(%x, %w : memref<16x32xf32>, memref<32x8xf32>) outs(%acc : memref<16x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%one : f32) outs(%ones : memref<16x8xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], library_call = "adjit_gemm_f32"}
      ins(%x, %w : memref<16x32xf32>, memref<32x8xf32>) outs(%ones : memref<16x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  return %y : memref<16x8xf32>
}

