// A module without loops gets LLVM's inliner and scalar clean-up instead of
// its whole -O3 pipeline (compiler/lib/CpuBackend.cpp): the function and
// MLIR's `_mlir_ciface_` wrapper are inlined into the entry point, whose
// memref descriptors are taken apart, so that only the entry point is left
// to get machine code. W6's `sin(x)*2+1` on f32[16].
// RUN: adjit compile %s --emit=llvm-ir | FileCheck %s
// RUN: adjit compile %s --emit=obj -o /dev/null --timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: adjit run %s --entry w6 --arg 'f32[16]=0,-0.0,1e6,3.14159265,-1.5707964,nan,inf,-inf,100000.5,1,2,3,4,5,6,7' | FileCheck %s --check-prefix=VALUES

// CHECK-NOT: define
// CHECK: define void @adjit_entry_w6(ptr
// CHECK-NOT: {{insertvalue|extractvalue|call void @w6|call void @_mlir_ciface_w6}}
// Lanes beyond the vector form's range go to libm's sinf.
// CHECK: call void @adjit_sinf_lanes
// CHECK-NOT: {{insertvalue|extractvalue}}
// CHECK: ret void
// CHECK-NOT: define

// TIMING-NOT: LLVM: -O3
// TIMING: LLVM: inlining and clean-up (no loops)
// TIMING-NOT: LLVM: -O3

// The values numpy gives for np.sin(x) * 2 + 1 in f32 (1e6 and 100000.5
// through libm).
// VALUES: out0 = f32[16] [1, 1, 0.300013, 1, -1, nan, nan, nan, 0.104507, 2.68294, 2.81859, 1.28224, -0.513605, -0.917849, 0.441169, 2.31397]
func.func @w6(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = adjit.sin %x : tensor<16xf32>
  %1 = adjit.constant dense<2.000000e+00> : tensor<16xf32>
  %2 = adjit.mul %0, %1 : tensor<16xf32>
  %3 = adjit.constant dense<1.000000e+00> : tensor<16xf32>
  %4 = adjit.add %2, %3 : tensor<16xf32>
  return %4 : tensor<16xf32>
}
