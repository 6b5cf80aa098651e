// adjit-approximate-math: f32 transcendentals become polynomial arithmetic
// (which vectorizes); f64 ops and f32 sin/cos are left for libm.
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math | FileCheck %s

// tanh: x clamped to about +-8 (NaN passes), times the ratio of two
// polynomials in x^2 (fma), which is near 1 for tiny x, so no select of x
// itself there.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-SAME:  (%[[X:.*]]: f32)
// CHECK-NOT:   math.tanh
// CHECK:       %[[HI:.*]] = arith.constant 7.99881172 : f32
// CHECK:       %[[LO:.*]] = arith.constant -7.99881172 : f32
// CHECK:       %[[BELOW:.*]] = arith.cmpf ule, %[[X]], %[[HI]] : f32
// CHECK:       %[[UPPER:.*]] = arith.select %[[BELOW]], %[[X]], %[[HI]] : f32
// CHECK:       %[[ABOVE:.*]] = arith.cmpf uge, %[[UPPER]], %[[LO]] : f32
// CHECK:       %[[CLAMPED:.*]] = arith.select %[[ABOVE]], %[[UPPER]], %[[LO]] : f32
// CHECK:       %[[X2:.*]] = arith.mulf %[[CLAMPED]], %[[CLAMPED]] : f32
// CHECK-COUNT-9: math.fma %[[X2]]
// CHECK:       %[[RATIO:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:       %[[T:.*]] = arith.mulf %[[CLAMPED]], %[[RATIO]] : f32
// CHECK-NOT:   arith.select
// CHECK:       return %[[T]]
func.func @tanh_f32(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  return %y : f32
}

// -----

// exp, log and erf too, and on vectors as well as scalars.
// CHECK-LABEL: func.func @more_f32
// CHECK-NOT:   math.exp
// CHECK-NOT:   math.log
// CHECK-NOT:   math.erf
// CHECK:       math.fma {{.*}} : vector<16xf32>
// CHECK:       return
func.func @more_f32(%x: f32, %v: vector<16xf32>) -> (f32, f32, vector<16xf32>) {
  %e = math.exp %x : f32
  %l = math.log %x : f32
  %r = math.erf %v : vector<16xf32>
  return %e, %l, %r : f32, f32, vector<16xf32>
}

// -----

// Left alone: f64 (the polynomials target single precision) and f32 sin
// and cos (upstream's argument reduction is inaccurate).
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:  math.tanh %{{.*}} : f64
// CHECK-NEXT:  math.exp %{{.*}} : f64
// CHECK-NEXT:  math.sin %{{.*}} : f32
// CHECK-NEXT:  math.cos %{{.*}} : f32
// CHECK-NEXT:  return
func.func @kept(%d: f64, %x: f32) -> (f64, f64, f32, f32) {
  %t = math.tanh %d : f64
  %e = math.exp %d : f64
  %s = math.sin %x : f32
  %c = math.cos %x : f32
  return %t, %e, %s, %c : f64, f64, f32, f32
}
