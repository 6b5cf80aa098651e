// adjit-math-to-libm: math ops that need libm for accuracy become calls
// (f64 tanh/erf/expm1/log1p/sin/cos, f32 sin/cos and whatever
// approximation left); the rest stays for LLVM's intrinsics.
// RUN: adjit-opt %s --split-input-file --adjit-math-to-libm | FileCheck %s
// RUN: adjit-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(adjit-math-to-libm{device-library}))" | FileCheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @calls
// CHECK-NEXT:  call @tanh(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @erf(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @expm1(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @log1p(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @sinf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:  call @cosf(%{{.*}}) : (f32) -> f32
func.func @calls(%d: f64, %x: f32) -> (f64, f64, f64, f64, f32, f32) {
  %0 = math.tanh %d : f64
  %1 = math.erf %d : f64
  %2 = math.expm1 %d : f64
  %3 = math.log1p %d : f64
  %4 = math.sin %x : f32
  %5 = math.cos %x : f32
  return %0, %1, %2, %3, %4, %5 : f64, f64, f64, f64, f32, f32
}

// Functions that LLVM 19 cannot lower at all: libm's, f32 and f64.
// CHECK-LABEL: func.func @no_intrinsic
// CHECK-NEXT:  call @tanf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:  call @asin(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @acosf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:  call @atan(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @atan2f(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT:  call @sinh(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @coshf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:  call @asinh(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @acoshf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:  call @atanh(%{{.*}}) : (f64) -> f64
// CHECK-NEXT:  call @cbrtf(%{{.*}}) : (f32) -> f32
func.func @no_intrinsic(%x: f32, %d: f64) -> (f32, f64, f32, f64, f32, f64, f32, f64, f32, f64, f32) {
  %0 = math.tan %x : f32
  %1 = math.asin %d : f64
  %2 = math.acos %x : f32
  %3 = math.atan %d : f64
  %4 = math.atan2 %x, %x : f32
  %5 = math.sinh %d : f64
  %6 = math.cosh %x : f32
  %7 = math.asinh %d : f64
  %8 = math.acosh %x : f32
  %9 = math.atanh %d : f64
  %10 = math.cbrt %x : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : f32, f64, f32, f64, f32, f64, f32, f64, f32, f64, f32
}

// What LLVM's intrinsics do well stays: fma and floor (the polynomials'),
// sqrt, exp, log.
// CHECK-LABEL: func.func @intrinsics
// CHECK-NOT:   call
// CHECK:       math.fma
// CHECK-NEXT:  math.floor
// CHECK-NEXT:  math.sqrt
// CHECK-NEXT:  math.exp
// CHECK-NEXT:  math.log
func.func @intrinsics(%x: f32, %d: f64) -> (f32, f32, f64, f64, f64) {
  %0 = math.fma %x, %x, %x : f32
  %1 = math.floor %x : f32
  %2 = math.sqrt %d : f64
  %3 = math.exp %d : f64
  %4 = math.log %d : f64
  return %0, %1, %2, %3, %4 : f32, f32, f64, f64, f64
}

// One declaration per libm function, however often it is called.
// CHECK-LABEL: func.func @twice
// CHECK-NEXT:  call @tanh
// CHECK-NEXT:  call @tanh
func.func @twice(%d: f64) -> f64 {
  %0 = math.tanh %d : f64
  %1 = math.tanh %0 : f64
  return %1 : f64
}
// CHECK:     func.func private @tanh(f64) -> f64
// CHECK-NOT: func.func private @tanh(

// -----

// In GPU kernels, with device-library: libdevice's functions for what
// neither LLVM nor upstream's GPU-to-NVVM lowering handles (roundeven is
// rint; copysign); tan, atan, atan2, cbrt and tanh stay for the latter (which calls
// libdevice too).
// GPU-LABEL: gpu.module @kernels
// GPU:       func.func @math
// GPU-NEXT:  llvm.call @__nv_asinf(%{{.*}}) : (f32) -> f32
// GPU-NEXT:  llvm.call @__nv_acos(%{{.*}}) : (f64) -> f64
// GPU-NEXT:  llvm.call @__nv_sinhf
// GPU-NEXT:  llvm.call @__nv_cosh(
// GPU-NEXT:  llvm.call @__nv_asinhf
// GPU-NEXT:  llvm.call @__nv_acosh(
// GPU-NEXT:  llvm.call @__nv_atanhf
// GPU-NEXT:  math.tan
// GPU-NEXT:  math.atan2
// GPU-NEXT:  math.tanh
// GPU-NEXT:  llvm.call @__nv_rintf(%{{.*}}) : (f32) -> f32
// GPU-NEXT:  llvm.call @__nv_copysign(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
// GPU:       llvm.func @__nv_asinf(f32) -> f32
// GPU-NEXT:  llvm.func @__nv_acos(f64) -> f64
gpu.module @kernels {
  func.func @math(%x: f32, %d: f64) -> (f32, f64, f32, f64, f32, f64, f32, f32, f32, f32, f32, f64) {
    %0 = math.asin %x : f32
    %1 = math.acos %d : f64
    %2 = math.sinh %x : f32
    %3 = math.cosh %d : f64
    %4 = math.asinh %x : f32
    %5 = math.acosh %d : f64
    %6 = math.atanh %x : f32
    %7 = math.tan %x : f32
    %8 = math.atan2 %x, %x : f32
    %9 = math.tanh %x : f32
    %10 = math.roundeven %x : f32
    %11 = math.copysign %d, %d : f64
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : f32, f64, f32, f64, f32, f64, f32, f32, f32, f32, f32, f64
  }
}
