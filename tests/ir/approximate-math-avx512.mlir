// adjit-approximate-math{avx512=1}: exp of a vector of 16k f32 scales
// 2^k * e^r with x86vector's scalef (vscalefps), 16 lanes at a time; k is
// x / ln 2 rounded by adding 1.5 * 2^23. Other exps keep upstream's pattern,
// and so does everything without the option.
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math="avx512=1" | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-approximate-math | FileCheck %s --check-prefix=GENERIC

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
