// adjit-expand-bf16: bf16 <-> f32 conversions become integer bit
// manipulation (LLVM's x86 backend has none without AVX512-BF16); nothing
// else of upstream's arith-expand runs.
// RUN: adjit-opt %s -split-input-file --adjit-expand-bf16 | FileCheck %s

// Widening: the 16 bits become the high half of an f32.
// CHECK-LABEL: func.func @widen
// CHECK-NOT:   arith.extf
// CHECK:       %[[BITS:.*]] = arith.bitcast %arg0 : bf16 to i16
// CHECK-NEXT:  %[[WIDE:.*]] = arith.extui %[[BITS]] : i16 to i32
// CHECK-NEXT:  %[[HIGH:.*]] = arith.shli %[[WIDE]], %{{.*}} : i32
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %[[HIGH]] : i32 to f32
// CHECK-NEXT:  return %[[F]]
func.func @widen(%x: bf16) -> f32 {
  %y = arith.extf %x : bf16 to f32
  return %y : f32
}

// -----

// Narrowing rounds to nearest even (add 0x7fff plus the lowest kept bit,
// then drop 16 bits) and gives a quiet NaN (0x7fc0 = 32704) for NaN.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT:   arith.truncf
// CHECK-DAG:   arith.constant 32704 : i16
// CHECK-DAG:   arith.constant 32767 : i32
// CHECK:       %[[NAN:.*]] = arith.cmpf une, %arg0, %arg0 : f32
// CHECK:       arith.addi
// CHECK:       arith.shrui
// CHECK:       %[[R:.*]] = arith.select %[[NAN]], %{{.*}}, %{{.*}} : i16
// CHECK-NEXT:  arith.bitcast %[[R]] : i16 to bf16
func.func @narrow(%x: f32) -> bf16 {
  %y = arith.truncf %x : f32 to bf16
  return %y : bf16
}

// -----

// Left alone: max/min (arith-expand's expansion would lose the sign of
// zero) and conversions between other float types.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:  arith.maximumf
// CHECK-NEXT:  arith.minimumf
// CHECK-NEXT:  arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:  arith.truncf %{{.*}} : f64 to f32
func.func @kept(%x: f32, %y: f32, %h: f16, %d: f64) -> (f32, f32, f32, f32) {
  %a = arith.maximumf %x, %y : f32
  %b = arith.minimumf %x, %y : f32
  %c = arith.extf %h : f16 to f32
  %e = arith.truncf %d : f64 to f32
  return %a, %b, %c, %e : f32, f32, f32, f32
}
