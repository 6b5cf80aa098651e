// adjit-approximate-math: f32 transcendentals become polynomial arithmetic
// (which vectorizes); f64 ops and scalar f32 sin/cos are left for libm.
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math="one-division=1" | FileCheck %s --check-prefix=ONE

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

// f32 erf keeps its argument's sign (the polynomial works on |x|, so erf(-0)
// would be +0 without the copysign).
// CHECK-LABEL: func.func @erf_sign
// CHECK-SAME:  (%[[X:.*]]: vector<16xf32>)
// CHECK-NOT:   math.erf
// CHECK:       %[[R:.*]] = math.copysign %{{.*}}, %[[X]] : vector<16xf32>
// CHECK-NEXT:  return %[[R]]
func.func @erf_sign(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.erf %x : vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// Left alone: f64 (the polynomials target single precision) and scalar f32
// sin and cos (upstream's argument reduction is inaccurate).
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

// -----

// Vectors of f32 sin: |x| reduced by pi/2 in three parts with FMAs, the
// quadrant's polynomial and sign; lanes beyond 1e5 (or inf, NaN: the
// comparison is unordered) take libm's result instead: a vector with such
// a lane calls the runtime once on a stack buffer and keeps libm's values
// for those lanes only. The code is a private function per vector type
// that each sin calls, inlined by LLVM (always_inline; with more than 64
// sin and cos in the module, no_inline): the caller's block stays whole.
// The buffer is in the function's entry block, which LLVM's inliner moves
// to the caller's start (here outside the loop; in an OpenMP region, to
// the start of the region).
// CHECK-LABEL: func.func @sin_vector
// CHECK-SAME:  (%[[V:.*]]: memref<64xf32>)
// CHECK:       scf.for
// CHECK:       %[[IN:.*]] = vector.load %[[V]]
// CHECK-NEXT:  %[[OUT:.*]] = func.call @adjit_sinf_v16(%[[IN]]) : (vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:  vector.store %[[OUT]], %[[V]]
// CHECK:       func.func private @adjit_sinf_lanes(i64, i64)
// CHECK:       func.func private @adjit_sinf_v16(%[[X:.*]]: vector<16xf32>) -> vector<16xf32> attributes {always_inline}
// CHECK-NEXT:  %[[BUF:.*]] = memref.alloca() : memref<16xf32>
// CHECK:       %[[ABS:.*]] = math.absf %[[X]] : vector<16xf32>
// CHECK:       %[[BEYOND:.*]] = arith.cmpf ugt, %[[ABS]], %{{.*}} : vector<16xf32>
// CHECK:       %[[ANY:.*]] = vector.reduction <or>, %[[BEYOND]]
// CHECK:       %[[K:.*]] = math.roundeven
// CHECK:       %[[R1:.*]] = math.fma %[[K]], %{{.*}}, %[[ABS]] : vector<16xf32>
// CHECK:       %[[R2:.*]] = math.fma %[[K]], %{{.*}}, %[[R1]] : vector<16xf32>
// CHECK:       %[[R3:.*]] = math.fma %[[K]], %{{.*}}, %[[R2]] : vector<16xf32>
// CHECK:       %[[Q:.*]] = arith.fptosi %[[K]] : vector<16xf32> to vector<16xi32>
// CHECK:       arith.select
// CHECK:       arith.bitcast %[[X]] : vector<16xf32> to vector<16xi32>
// CHECK:       %[[POLY:.*]] = arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK:       %[[Y:.*]] = scf.if %[[ANY]] -> (vector<16xf32>) {
// CHECK:         vector.store %[[X]], %[[BUF]]
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK:         %[[ADDR:.*]] = arith.index_cast %[[PTR]] : index to i64
// CHECK:         func.call @adjit_sinf_lanes(%[[ADDR]], %{{.*}})
// CHECK:         %[[LIBM:.*]] = vector.load %[[BUF]]
// CHECK:         %[[MIXED:.*]] = arith.select %[[BEYOND]], %[[LIBM]], %[[POLY]]
// CHECK:         scf.yield %[[MIXED]]
// CHECK:       } else {
// CHECK:         scf.yield %[[POLY]]
// CHECK:       }
// CHECK:       return %[[Y]]
func.func @sin_vector(%v: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %x = vector.load %v[%i] : memref<64xf32>, vector<16xf32>
    %y = math.sin %x : vector<16xf32>
    vector.store %y, %v[%i] : memref<64xf32>, vector<16xf32>
  }
  return
}

// -----

// cos is sin one quadrant on, without x's sign.
// CHECK-LABEL: func.func @cos_vector
// CHECK:       call @adjit_cosf_v32
// CHECK:       func.func private @adjit_cosf_v32
// CHECK:       %[[Q:.*]] = arith.fptosi
// CHECK:       arith.addi %[[Q]], %{{.*}} : vector<32xi32>
// CHECK-NOT:   arith.bitcast %{{.*}} : vector<32xf32> to vector<32xi32>
// CHECK:       arith.select
// CHECK:       arith.bitcast %{{.*}} : vector<32xf32> to vector<32xi32>
// CHECK-NOT:   arith.bitcast %{{.*}} : vector<32xf32> to vector<32xi32>
// CHECK:       scf.if
// CHECK:         func.call @adjit_cosf_lanes
func.func @cos_vector(%x: vector<32xf32>) -> vector<32xf32> {
  %y = math.cos %x : vector<32xf32>
  return %y : vector<32xf32>
}

// -----

// tanh(x) and sigmoid(x) = 1 / (1 + exp(-x)) of one operand share one
// exponential without AVX-512's table and scalef: e = exp(-|x|) = 2^k e^r,
// k rounded by adding 1.5 * 2^23, e^r - 1 = r + r^2 P(r), 2^k built from its
// bits as the product of two normal powers of two (so that e below 2^-126
// rounds as exp's subnormal results do). Then tanh = copysign(u, x) / (1 +
// e^2) with u = (1 - e) (1 + e), and sigmoid = (x < 0 ? e : 1) / (1 + e).
// Scalars and vectors of any length alike; the sigmoid's exp goes.
// CHECK-LABEL: func.func @tanh_and_sigmoid_share_exponential
// CHECK-SAME:  (%[[X:.*]]: f32, %[[V:.*]]: vector<8xf32>)
// CHECK:       %[[ABS:.*]] = math.absf %[[X]] : f32
// CHECK:       arith.constant 0x4B400000 : f32
// CHECK:       %[[SHIFTED:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:       %[[K:.*]] = arith.subf %[[SHIFTED]], %{{.*}} : f32
// CHECK:       %[[HIGH:.*]] = math.fma %[[K]], %{{.*}}, %{{.*}} : f32
// CHECK:       %[[R:.*]] = math.fma %[[K]], %{{.*}}, %[[HIGH]] : f32
// CHECK-COUNT-5: math.fma %[[R]]
// CHECK:       %[[R2:.*]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK:       %[[EXPM1:.*]] = math.fma %{{.*}}, %[[R2]], %[[R]] : f32
// CHECK:       %[[SHIFTER_BITS:.*]] = arith.constant 1262485504 : i32
// CHECK:       %[[BITS:.*]] = arith.bitcast %[[SHIFTED]] : f32 to i32
// CHECK:       %[[N:.*]] = arith.subi %[[BITS]], %[[SHIFTER_BITS]] : i32
// CHECK:       %[[HALF:.*]] = arith.shrsi %[[N]], %{{.*}} : i32
// CHECK:       %[[REST:.*]] = arith.subi %[[N]], %[[HALF]] : i32
// CHECK:       %[[MANTISSA_BITS:.*]] = arith.constant 23 : i32
// CHECK:       %[[BIAS:.*]] = arith.constant 127 : i32
// CHECK:       %[[REST_BIASED:.*]] = arith.addi %[[REST]], %[[BIAS]] : i32
// CHECK:       %[[REST_EXPONENT:.*]] = arith.shli %[[REST_BIASED]], %[[MANTISSA_BITS]] : i32
// CHECK:       %[[REST_POWER:.*]] = arith.bitcast %[[REST_EXPONENT]] : i32 to f32
// CHECK:       %[[HALF_BIASED:.*]] = arith.addi %[[HALF]], %{{.*}} : i32
// CHECK:       %[[HALF_EXPONENT:.*]] = arith.shli %[[HALF_BIASED]], %{{.*}} : i32
// CHECK:       %[[HALF_POWER:.*]] = arith.bitcast %[[HALF_EXPONENT]] : i32 to f32
// CHECK:       %[[POWER:.*]] = arith.mulf %[[HALF_POWER]], %[[REST_POWER]] : f32
// CHECK:       %[[E:.*]] = math.fma %[[POWER]], %[[EXPM1]], %[[POWER]] : f32
// CHECK:       %[[ONE_MINUS_POWER:.*]] = arith.subf %{{.*}}, %[[POWER]] : f32
// CHECK:       %[[NEG_POWER:.*]] = arith.negf %[[POWER]] : f32
// CHECK:       %[[M:.*]] = math.fma %[[NEG_POWER]], %[[EXPM1]], %[[ONE_MINUS_POWER]] : f32
// CHECK:       %[[ONE_PLUS_POWER:.*]] = arith.addf %{{.*}}, %[[POWER]] : f32
// CHECK:       %[[ONE_PLUS_E:.*]] = math.fma %[[POWER]], %[[EXPM1]], %[[ONE_PLUS_POWER]] : f32
// CHECK:       %[[U:.*]] = arith.mulf %[[M]], %[[ONE_PLUS_E]] : f32
// CHECK:       %[[ONE_PLUS_E2:.*]] = math.fma %[[E]], %[[E]], %{{.*}} : f32
// CHECK:       %[[SIGNED:.*]] = math.copysign %[[U]], %[[X]] : f32
// CHECK:       %[[TANH:.*]] = arith.divf %[[SIGNED]], %[[ONE_PLUS_E2]] : f32
// CHECK:       %[[NEGATIVE:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK:       %[[NUMERATOR:.*]] = arith.select %[[NEGATIVE]], %[[E]], %{{.*}} : f32
// CHECK:       %[[SIGMOID:.*]] = arith.divf %[[NUMERATOR]], %[[ONE_PLUS_E]] : f32
// CHECK:       math.absf %[[V]] : vector<8xf32>
// CHECK:       arith.shrsi %{{.*}} : vector<8xi32>
// CHECK:       %[[VTANH:.*]] = arith.divf %{{.*}} : vector<8xf32>
// CHECK:       %[[VSIGMOID:.*]] = arith.divf %{{.*}} : vector<8xf32>
// CHECK-NOT:   math.exp
// CHECK:       return %[[TANH]], %[[SIGMOID]], %[[VTANH]], %[[VSIGMOID]]
// With `one-division` the scalars and the vectors each share one division
// too (approximate-math-avx512.mlir checks its form).
// ONE-LABEL: func.func @tanh_and_sigmoid_share_exponential
// ONE:       arith.divf %{{.*}}, %{{.*}} : f32
// ONE-NOT:   arith.divf {{.*}} : f32
// ONE:       arith.divf %{{.*}}, %{{.*}} : vector<8xf32>
// ONE-NOT:   arith.divf
// ONE:       return
func.func @tanh_and_sigmoid_share_exponential(%x: f32, %v: vector<8xf32>)
    -> (f32, f32, vector<8xf32>, vector<8xf32>) {
  %one = arith.constant 1.0 : f32
  %t = math.tanh %x : f32
  %n = arith.negf %x : f32
  %e = math.exp %n : f32
  %d = arith.addf %one, %e : f32
  %s = arith.divf %one, %d : f32
  %one8 = arith.constant dense<1.0> : vector<8xf32>
  %t8 = math.tanh %v : vector<8xf32>
  %n8 = arith.negf %v : vector<8xf32>
  %e8 = math.exp %n8 : vector<8xf32>
  %d8 = arith.addf %e8, %one8 : vector<8xf32>
  %s8 = arith.divf %one8, %d8 : vector<8xf32>
  return %t, %s, %t8, %s8 : f32, f32, vector<8xf32>, vector<8xf32>
}
