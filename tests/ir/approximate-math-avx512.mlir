// adjit-approximate-math{avx512=1}: exp of a vector of 16k f32 scales
// 2^k * e^r with x86vector's scalef (vscalefps), 16 lanes at a time; k is
// x / ln 2 rounded by adding 1.5 * 2^23. Other exps keep upstream's pattern,
// and so does everything without the option.
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math="avx512=1" | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math | FileCheck %s --check-prefix=GENERIC
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math="avx512=1 one-division=1" | FileCheck %s --check-prefix=ONE
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math="avx512=1 one-division=1 reciprocal-by-newton-step=1" | FileCheck %s --check-prefix=NEWTON

// CHECK-LABEL: func.func @exp_two_registers
// CHECK-SAME:  (%[[X:.*]]: vector<32xf32>)
// CHECK-NOT:   math.exp
// CHECK-DAG:   %[[HI:.*]] = arith.constant dense<8.900000e+01> : vector<32xf32>
// CHECK-DAG:   %[[LO:.*]] = arith.constant dense<-1.040000e+02> : vector<32xf32>
// CHECK-DAG:   %[[SHIFTER:.*]] = arith.constant dense<0x4B400000> : vector<32xf32>
// CHECK:       %[[T:.*]] = math.fma %{{.*}}, %{{.*}}, %[[SHIFTER]] : vector<32xf32>
// CHECK:       %[[K:.*]] = arith.subf %[[T]], %[[SHIFTER]] : vector<32xf32>
// CHECK:       %[[Y:.*]] = arith.addf
// CHECK-DAG:   %[[ALL:.*]] = arith.constant -1 : i16
// CHECK-DAG:   %[[ROUNDING:.*]] = arith.constant 4 : i32
// CHECK:       %[[Y0:.*]] = vector.extract_strided_slice %[[Y]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK:       %[[K0:.*]] = vector.extract_strided_slice %[[K]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK:       %[[S0:.*]] = x86vector.avx512.mask.scalef %[[Y0]], %[[K0]], %[[Y0]], %[[ALL]], %[[ROUNDING]] : vector<16xf32>
// CHECK:       %[[R0:.*]] = vector.insert_strided_slice %[[S0]], %[[Y]] {offsets = [0], strides = [1]}
// CHECK:       %[[Y1:.*]] = vector.extract_strided_slice %[[Y]] {offsets = [16], sizes = [16], strides = [1]}
// CHECK:       %[[K1:.*]] = vector.extract_strided_slice %[[K]] {offsets = [16], sizes = [16], strides = [1]}
// CHECK:       %[[S1:.*]] = x86vector.avx512.mask.scalef %[[Y1]], %[[K1]], %[[Y1]], %[[ALL]], %[[ROUNDING]] : vector<16xf32>
// CHECK:       %[[R1:.*]] = vector.insert_strided_slice %[[S1]], %[[R0]] {offsets = [16], strides = [1]}
// CHECK:       return %[[R1]]
// GENERIC-LABEL: func.func @exp_two_registers
// GENERIC-NOT:   x86vector
// GENERIC:       math.floor
func.func @exp_two_registers(%x: vector<32xf32>) -> vector<32xf32> {
  %e = math.exp %x : vector<32xf32>
  return %e : vector<32xf32>
}

// -----

// One register: no slices.
// CHECK-LABEL: func.func @exp_one_register
// CHECK-NOT:   vector.extract_strided_slice
// CHECK:       %[[S:.*]] = x86vector.avx512.mask.scalef {{.*}} : vector<16xf32>
// CHECK-NEXT:  return %[[S]]
func.func @exp_one_register(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp %x : vector<16xf32>
  return %e : vector<16xf32>
}

// -----

// Scalars, 8 lanes and f64 are not what vscalefps on 16 f32 lanes serves.
// CHECK-LABEL: func.func @exp_elsewhere
// CHECK-NOT:   x86vector
// CHECK:       math.floor {{.*}} : f32
// CHECK:       math.floor {{.*}} : vector<8xf32>
// CHECK:       math.exp {{.*}} : vector<16xf64>
func.func @exp_elsewhere(%s: f32, %v: vector<8xf32>, %d: vector<16xf64>)
    -> (f32, vector<8xf32>, vector<16xf64>) {
  %a = math.exp %s : f32
  %b = math.exp %v : vector<8xf32>
  %c = math.exp %d : vector<16xf64>
  return %a, %b, %c : f32, vector<8xf32>, vector<16xf64>
}

// -----

// tanh(x) and sigmoid(x) = 1 / (1 + exp(-x)) (LogisticOp's scalar rule) of
// one operand share one exponential: e = exp(-|x|), 1 - e and 1 + e from a
// table of 2^(j/32) (vpermi2ps, with the entries' own rounding from a second
// table), a cubic and vscalefps, then tanh = copysign(u, x) / (1 + e^2) with
// u = (1 - e) (1 + e), and sigmoid = (x < 0 ? e : 1) / (1 + e). k = n / 32 is
// one subtraction from the rounded product, and the low part of k ln 2 joins
// the table's offset beside the high part: short chains. The sigmoid's
// negation, exp and sum go.
// CHECK-LABEL: func.func @tanh_and_sigmoid_share_exponential
// CHECK-SAME:  (%[[X:.*]]: vector<32xf32>)
// CHECK-NOT:   math.tanh
// CHECK-NOT:   math.exp
// CHECK:       %[[ABS:.*]] = math.absf %[[X]] : vector<32xf32>
// CHECK:       arith.negf %[[ABS]] : vector<32xf32>
// CHECK:       %[[NEG_ABS:.*]] = arith.select
// CHECK:       %[[SHIFTED:.*]] = math.fma %[[NEG_ABS]], %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK:       %[[K:.*]] = arith.subf %[[SHIFTED]], %{{.*}} : vector<32xf32>
// CHECK:       %[[INDEX:.*]] = arith.bitcast %[[SHIFTED]] : vector<32xf32> to vector<32xi32>
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.ps.512"({{.*}}) : (vector<16xf32>, vector<16xi32>, vector<16xf32>) -> vector<16xf32>
// CHECK:       %[[CORRECTION:.*]] = math.fma %[[K]], %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK:       %[[HIGH:.*]] = math.fma %[[K]], %{{.*}}, %[[NEG_ABS]] : vector<32xf32>
// CHECK:       %[[R:.*]] = arith.subf %[[HIGH]], %[[CORRECTION]] : vector<32xf32>
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpermi2var.ps.512"({{.*}}) : (vector<16xf32>, vector<16xi32>, vector<16xf32>) -> vector<16xf32>
// CHECK-COUNT-2: x86vector.avx512.mask.scalef
// CHECK:       %[[E:.*]] = math.fma %[[POWER:.*]], %[[EXPM1:.*]], %[[POWER]] : vector<32xf32>
// CHECK:       %[[ONE_MINUS_POWER:.*]] = arith.subf %{{.*}}, %[[POWER]] : vector<32xf32>
// CHECK:       %[[M:.*]] = math.fma %{{.*}}, %[[EXPM1]], %[[ONE_MINUS_POWER]] : vector<32xf32>
// CHECK:       %[[ONE_PLUS_POWER:.*]] = arith.addf %{{.*}}, %[[POWER]] : vector<32xf32>
// CHECK:       %[[ONE_PLUS_E:.*]] = math.fma %[[POWER]], %[[EXPM1]], %[[ONE_PLUS_POWER]] : vector<32xf32>
// CHECK:       %[[U:.*]] = arith.mulf %[[M]], %[[ONE_PLUS_E]] : vector<32xf32>
// CHECK:       %[[ONE_PLUS_E2:.*]] = math.fma %[[E]], %[[E]], %{{.*}} : vector<32xf32>
// CHECK:       %[[SIGNED:.*]] = math.copysign %[[U]], %[[X]] : vector<32xf32>
// CHECK:       %[[TANH:.*]] = arith.divf %[[SIGNED]], %[[ONE_PLUS_E2]] : vector<32xf32>
// CHECK:       %[[NEGATIVE:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : vector<32xf32>
// CHECK:       %[[NUMERATOR:.*]] = arith.select %[[NEGATIVE]], %[[E]], %{{.*}} : vector<32xi1>, vector<32xf32>
// CHECK:       %[[SIGMOID:.*]] = arith.divf %[[NUMERATOR]], %[[ONE_PLUS_E]] : vector<32xf32>
// CHECK-NOT:   math.exp
// CHECK:       return %[[TANH]], %[[SIGMOID]]
// With `one-division` (targets that divide slowly) they share one division
// too, by the product of both denominators.
// ONE-LABEL: func.func @tanh_and_sigmoid_share_exponential
// ONE-SAME:  (%[[X:.*]]: vector<32xf32>)
// ONE:       %[[E:.*]] = math.fma %[[POWER:.*]], %[[EXPM1:.*]], %[[POWER]] : vector<32xf32>
// ONE:       %[[ONE_PLUS_E:.*]] = math.fma %[[POWER]], %[[EXPM1]], %{{.*}} : vector<32xf32>
// ONE:       %[[U:.*]] = arith.mulf %{{.*}}, %[[ONE_PLUS_E]] : vector<32xf32>
// ONE:       %[[ONE_PLUS_E2:.*]] = math.fma %[[E]], %[[E]], %{{.*}} : vector<32xf32>
// ONE:       %[[DENOMINATOR:.*]] = arith.mulf %[[ONE_PLUS_E]], %[[ONE_PLUS_E2]] : vector<32xf32>
// ONE:       %[[RECIPROCAL:.*]] = arith.divf %{{.*}}, %[[DENOMINATOR]] : vector<32xf32>
// ONE:       %[[TANH_NUMERATOR:.*]] = arith.mulf %[[U]], %[[ONE_PLUS_E]] : vector<32xf32>
// ONE:       %[[SIGNED:.*]] = math.copysign %[[TANH_NUMERATOR]], %[[X]] : vector<32xf32>
// ONE:       %[[TANH:.*]] = arith.mulf %[[SIGNED]], %[[RECIPROCAL]] : vector<32xf32>
// ONE:       %[[NEGATIVE:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : vector<32xf32>
// ONE:       %[[NUMERATOR:.*]] = arith.select %[[NEGATIVE]], %[[E]], %{{.*}} : vector<32xi1>, vector<32xf32>
// ONE:       %[[SIGMOID_NUMERATOR:.*]] = arith.mulf %[[NUMERATOR]], %[[ONE_PLUS_E2]] : vector<32xf32>
// ONE:       %[[SIGMOID:.*]] = arith.mulf %[[SIGMOID_NUMERATOR]], %[[RECIPROCAL]] : vector<32xf32>
// ONE-NOT:   arith.divf
// ONE:       return %[[TANH]], %[[SIGMOID]]
// With `reciprocal-by-newton-step` that division is vrcp14ps's estimate r of
// 1 / d, one register at a time, and a Newton step r + r (1 - d r).
// NEWTON-LABEL: func.func @tanh_and_sigmoid_share_exponential
// NEWTON-NOT:   arith.divf
// NEWTON:       llvm.call_intrinsic "llvm.x86.avx512.rcp14.ps.512"(%[[LOW:.*]], %[[LOW]], %{{.*}}) : (vector<16xf32>, vector<16xf32>, i16) -> vector<16xf32>
// NEWTON:       llvm.call_intrinsic "llvm.x86.avx512.rcp14.ps.512"(%[[HIGH:.*]], %[[HIGH]], %{{.*}})
// NEWTON:       %[[ESTIMATE:.*]] = vector.insert_strided_slice %{{.*}} {offsets = [16], strides = [1]} : vector<16xf32> into vector<32xf32>
// NEWTON:       %[[NEGATED:.*]] = arith.negf %[[DENOMINATOR:.*]] : vector<32xf32>
// NEWTON:       %[[RESIDUAL:.*]] = math.fma %[[NEGATED]], %[[ESTIMATE]], %{{.*}} : vector<32xf32>
// NEWTON:       %[[INVERSE:.*]] = math.fma %[[RESIDUAL]], %[[ESTIMATE]], %[[ESTIMATE]] : vector<32xf32>
// NEWTON:       %[[TANH:.*]] = arith.mulf %{{.*}}, %[[INVERSE]] : vector<32xf32>
// NEWTON:       %[[SIGMOID:.*]] = arith.mulf %{{.*}}, %[[INVERSE]] : vector<32xf32>
// NEWTON-NOT:   arith.divf
// NEWTON:       return %[[TANH]], %[[SIGMOID]]
// Without the options the two share an exponential built without tables
// (approximate-math.mlir).
// GENERIC-LABEL: func.func @tanh_and_sigmoid_share_exponential
// GENERIC-NOT:   llvm.call_intrinsic
// GENERIC:       arith.shrsi %{{.*}} : vector<32xi32>
// GENERIC-NOT:   math.exp
// GENERIC:       return
func.func @tanh_and_sigmoid_share_exponential(%x: vector<32xf32>)
    -> (vector<32xf32>, vector<32xf32>) {
  %one = arith.constant dense<1.0> : vector<32xf32>
  %t = math.tanh %x : vector<32xf32>
  %n = arith.negf %x : vector<32xf32>
  %e = math.exp %n : vector<32xf32>
  %d = arith.addf %one, %e : vector<32xf32>
  %s = arith.divf %one, %d : vector<32xf32>
  return %t, %s : vector<32xf32>, vector<32xf32>
}

// -----

// Of two operands, nothing is shared: tanh keeps its rational polynomial,
// exp its own scaling. 8 lanes, which are not whole registers, share the
// exponential built without tables.
// CHECK-LABEL: func.func @tanh_and_sigmoid_apart
// CHECK-NOT:   llvm.call_intrinsic
// CHECK:       arith.constant dense<7.99881172> : vector<16xf32>
// CHECK:       x86vector.avx512.mask.scalef
// CHECK-NOT:   llvm.call_intrinsic
// CHECK:       arith.shrsi %{{.*}} : vector<8xi32>
// CHECK-NOT:   llvm.call_intrinsic
// CHECK:       return
// Their divisions stay divisions with `reciprocal-by-newton-step`: the
// tanh's and the sigmoid's of two operands, and the one that the 8 lanes
// share, which are not whole registers.
// NEWTON-LABEL: func.func @tanh_and_sigmoid_apart
// NEWTON-NOT:   rcp14
// NEWTON:       arith.divf %{{.*}}, %{{.*}} : vector<16xf32>
// NEWTON:       arith.divf %{{.*}}, %{{.*}} : vector<16xf32>
// NEWTON-NOT:   rcp14
// NEWTON:       arith.divf %{{.*}}, %{{.*}} : vector<8xf32>
// NEWTON-NOT:   rcp14
// NEWTON:       return
func.func @tanh_and_sigmoid_apart(%x: vector<16xf32>, %y: vector<16xf32>, %z: vector<8xf32>)
    -> (vector<16xf32>, vector<16xf32>, vector<8xf32>, vector<8xf32>) {
  %one = arith.constant dense<1.0> : vector<16xf32>
  %t = math.tanh %x : vector<16xf32>
  %n = arith.negf %y : vector<16xf32>
  %e = math.exp %n : vector<16xf32>
  %d = arith.addf %e, %one : vector<16xf32>
  %s = arith.divf %one, %d : vector<16xf32>
  %one8 = arith.constant dense<1.0> : vector<8xf32>
  %t8 = math.tanh %z : vector<8xf32>
  %n8 = arith.negf %z : vector<8xf32>
  %e8 = math.exp %n8 : vector<8xf32>
  %d8 = arith.addf %e8, %one8 : vector<8xf32>
  %s8 = arith.divf %one8, %d8 : vector<8xf32>
  return %t, %s, %t8, %s8 : vector<16xf32>, vector<16xf32>, vector<8xf32>, vector<8xf32>
}

