// adjit-math-to-libm with vector-isa: vectors of f64 transcendentals and
// of f32 pow call glibc's libmvec variants of the x86-64 vector function
// ABI, a register's lanes per call.
// RUN: adjit-opt %s --adjit-math-to-libm="vector-isa=e" | FileCheck %s
// RUN: adjit-opt %s --adjit-math-to-libm="vector-isa=d" | FileCheck %s --check-prefix=AVX2
// RUN: adjit-opt %s --adjit-math-to-libm | FileCheck %s --check-prefix=NONE
// RUN: not adjit-opt %s --adjit-math-to-libm="vector-isa=avx" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: adjit-math-to-libm: vector-isa 'avx' is not b, c, d or e

// Two AVX-512 registers of f64: two calls of the 8-lane variant.
// CHECK-LABEL: func.func @tanh_two_registers
// CHECK:       %[[LOW:.*]] = vector.extract_strided_slice %arg0 {offsets = [0], sizes = [8], strides = [1]}
// CHECK:       %[[T0:.*]] = call @_ZGVeN8v_tanh(%[[LOW]]) : (vector<8xf64>) -> vector<8xf64>
// CHECK:       %[[R0:.*]] = vector.insert_strided_slice %[[T0]], %{{.*}} {offsets = [0], strides = [1]}
// CHECK:       %[[HIGH:.*]] = vector.extract_strided_slice %arg0 {offsets = [8], sizes = [8], strides = [1]}
// CHECK:       %[[T1:.*]] = call @_ZGVeN8v_tanh(%[[HIGH]])
// CHECK:       %[[R1:.*]] = vector.insert_strided_slice %[[T1]], %[[R0]] {offsets = [8], strides = [1]}
// CHECK:       return %[[R1]]
// AVX2-LABEL:  func.func @tanh_two_registers
// AVX2-COUNT-4: call @_ZGVdN4v_tanh({{.*}}) : (vector<4xf64>) -> vector<4xf64>
// NONE-LABEL:  func.func @tanh_two_registers
// NONE-NOT:    call
// NONE:        math.tanh %arg0 : vector<16xf64>
func.func @tanh_two_registers(%x: vector<16xf64>) -> vector<16xf64> {
  %0 = math.tanh %x : vector<16xf64>
  return %0 : vector<16xf64>
}

// One register: the call takes the vector itself.
// CHECK-LABEL: func.func @each_function
// CHECK-NEXT:  call @_ZGVeN8v_exp(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_expm1(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_log(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_log1p(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_log2(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_erf(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_sin(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_cos(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_atan(%arg0)
// CHECK-NEXT:  call @_ZGVeN8v_cbrt(%arg0)
// CHECK-NEXT:  call @_ZGVeN8vv_atan2(%arg0, %arg1)
// CHECK-NEXT:  call @_ZGVeN8vv_pow(%arg0, %arg1)
func.func @each_function(%x: vector<8xf64>, %y: vector<8xf64>)
    -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>,
        vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>) {
  %0 = math.exp %x : vector<8xf64>
  %1 = math.expm1 %x : vector<8xf64>
  %2 = math.log %x : vector<8xf64>
  %3 = math.log1p %x : vector<8xf64>
  %4 = math.log2 %x : vector<8xf64>
  %5 = math.erf %x : vector<8xf64>
  %6 = math.sin %x : vector<8xf64>
  %7 = math.cos %x : vector<8xf64>
  %8 = math.atan %x : vector<8xf64>
  %9 = math.cbrt %x : vector<8xf64>
  %10 = math.atan2 %x, %y : vector<8xf64>
  %11 = math.powf %x, %y : vector<8xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>,
        vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>
}

// A vector's last lanes short of a register run in a register filled up
// with ones (harmless arguments for every function).
// CHECK-LABEL: func.func @remainder
// CHECK:       %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<8xf64>
// CHECK:       call @_ZGVeN8v_log({{.*}}) : (vector<8xf64>)
// CHECK:       %[[TAIL:.*]] = vector.extract_strided_slice %arg0 {offsets = [8], sizes = [5], strides = [1]}
// CHECK:       %[[PADDED:.*]] = vector.insert_strided_slice %[[TAIL]], %[[ONES]] {offsets = [0], strides = [1]} : vector<5xf64> into vector<8xf64>
// CHECK:       %[[LOGS:.*]] = call @_ZGVeN8v_log(%[[PADDED]])
// CHECK:       %[[FIVE:.*]] = vector.extract_strided_slice %[[LOGS]] {offsets = [0], sizes = [5], strides = [1]}
// CHECK:       vector.insert_strided_slice %[[FIVE]], %{{.*}} {offsets = [8], strides = [1]} : vector<5xf64> into vector<13xf64>
func.func @remainder(%x: vector<13xf64>) -> vector<13xf64> {
  %0 = math.log %x : vector<13xf64>
  return %0 : vector<13xf64>
}

// f32 functions without a polynomial of adjit-approximate-math (pow, tan,
// the inverse and hyperbolic ones) call libmvec; the others (tanh) stay
// for it.
// CHECK-LABEL: func.func @f32
// CHECK-NEXT:  call @_ZGVeN16vv_powf(%arg0, %arg1) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:  math.tanh %arg0 : vector<16xf32>
// CHECK-NEXT:  call @_ZGVeN16v_tanf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_asinf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_acosf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_sinhf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_coshf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_asinhf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_acoshf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_atanhf(%arg0)
// CHECK-NEXT:  call @_ZGVeN16v_atanf(%arg0)
// AVX2-LABEL:  func.func @f32
// AVX2-COUNT-2: call @_ZGVdN8v_asinf({{.*}}) : (vector<8xf32>) -> vector<8xf32>
func.func @f32(%x: vector<16xf32>, %y: vector<16xf32>)
    -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
        vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
        vector<16xf32>) {
  %0 = math.powf %x, %y : vector<16xf32>
  %1 = math.tanh %x : vector<16xf32>
  %2 = math.tan %x : vector<16xf32>
  %3 = math.asin %x : vector<16xf32>
  %4 = math.acos %x : vector<16xf32>
  %5 = math.sinh %x : vector<16xf32>
  %6 = math.cosh %x : vector<16xf32>
  %7 = math.asinh %x : vector<16xf32>
  %8 = math.acosh %x : vector<16xf32>
  %9 = math.atanh %x : vector<16xf32>
  %10 = math.atan %x : vector<16xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
      : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
        vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
        vector<16xf32>
}

// pow by 0, 1, 2, -1 and 0.5 stays for LLVM, which computes it exactly (1,
// x, x * x, 1 / x, a square root); by 3 it is a call.
// CHECK-LABEL: func.func @pow_llvm_folds
// CHECK-COUNT-5: math.powf
// CHECK-NEXT:  call @_ZGVeN8vv_pow
func.func @pow_llvm_folds(%x: vector<8xf64>, %s: f64)
    -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>) {
  %c0 = arith.constant dense<0.0> : vector<8xf64>
  %c1 = arith.constant dense<1.0> : vector<8xf64>
  %c2 = arith.constant dense<2.0> : vector<8xf64>
  %cm1 = arith.constant dense<-1.0> : vector<8xf64>
  %half = arith.constant 0.5 : f64
  %chalf = vector.broadcast %half : f64 to vector<8xf64>
  %c3 = arith.constant dense<3.0> : vector<8xf64>
  %0 = math.powf %x, %c0 : vector<8xf64>
  %1 = math.powf %x, %c1 : vector<8xf64>
  %2 = math.powf %x, %c2 : vector<8xf64>
  %3 = math.powf %x, %cm1 : vector<8xf64>
  %4 = math.powf %x, %chalf : vector<8xf64>
  %5 = math.powf %x, %c3 : vector<8xf64>
  return %0, %1, %2, %3, %4, %5
      : vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>
}

// Scalars keep their libm calls; n-D vectors stay for LLVM.
// CHECK-LABEL: func.func @not_one_dimensional
// CHECK-NEXT:  call @tanh(%arg0) : (f64) -> f64
// CHECK-NEXT:  math.tanh %arg1 : vector<2x8xf64>
func.func @not_one_dimensional(%d: f64, %m: vector<2x8xf64>) -> (f64, vector<2x8xf64>) {
  %0 = math.tanh %d : f64
  %1 = math.tanh %m : vector<2x8xf64>
  return %0, %1 : f64, vector<2x8xf64>
}

// One declaration per variant.
// CHECK: func.func private @_ZGVeN8v_tanh(vector<8xf64>) -> vector<8xf64>
// CHECK-NOT: func.func private @_ZGVeN8v_tanh
