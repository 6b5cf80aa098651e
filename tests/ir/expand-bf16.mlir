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
// then drop 16 bits); a NaN keeps its sign and leading payload, quieted
// (its high 16 bits | 0x40), as x86's vcvtneps2bf16 does, not upstream's
// +NaN (0x7fc0).
// CHECK-LABEL: func.func @narrow
// CHECK-NOT:   arith.truncf
// CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : i32
// CHECK-DAG:   %[[C7FFF:.*]] = arith.constant 32767 : i32
// CHECK-DAG:   %[[C40:.*]] = arith.constant 64 : i32
// CHECK:       %[[BITS:.*]] = arith.bitcast %arg0 : f32 to i32
// CHECK:       %[[HIGH:.*]] = arith.shrui %[[BITS]], %[[C16]] : i32
// CHECK:       %[[BIAS:.*]] = arith.addi %{{.*}}, %[[C7FFF]] : i32
// CHECK:       %[[SUM:.*]] = arith.addi %[[BITS]], %[[BIAS]] : i32
// CHECK:       %[[ROUNDED:.*]] = arith.shrui %[[SUM]], %[[C16]] : i32
// CHECK:       %[[QUIET:.*]] = arith.ori %[[HIGH]], %[[C40]] : i32
// CHECK:       %[[NAN:.*]] = arith.cmpf uno, %arg0, %arg0 : f32
// CHECK:       %[[R:.*]] = arith.select %[[NAN]], %[[QUIET]], %[[ROUNDED]] : i32
// CHECK-NEXT:  %[[NARROW:.*]] = arith.trunci %[[R]] : i32 to i16
// CHECK-NEXT:  arith.bitcast %[[NARROW]] : i16 to bf16
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
