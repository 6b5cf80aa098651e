// adjit-math-to-libm: math ops that need libm for accuracy become calls
// (f64 tanh/erf/expm1/log1p/sin/cos, f32 sin/cos and whatever
// approximation left); the rest stays for LLVM's intrinsics.
// RUN: adjit-opt %s --adjit-math-to-libm | FileCheck %s

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
