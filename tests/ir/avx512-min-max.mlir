// adjit-avx512-min-max: vector maximumf and minimumf of f32 and f64 in
// whole zmm registers become vrangeps and vrangepd (control 5: max, 4: min,
// the sign from the comparison) with NaN lanes replaced by the operands'
// sum; other types and widths are left to LLVM.
// RUN: adjit-opt %s -split-input-file --adjit-avx512-min-max | FileCheck %s

// CHECK-LABEL: func.func @one_register
// CHECK-DAG: %[[MAX:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[ALL:.*]] = arith.constant -1 : i16
// CHECK-DAG: %[[CURRENT:.*]] = arith.constant 4 : i32
// CHECK: %[[RANGED:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%arg0, %arg1, %[[MAX]], %arg0, %[[ALL]], %[[CURRENT]])
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %arg0, %arg1 : vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %arg0, %arg1 : vector<16xf32>
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[SUM]], %[[RANGED]]
// CHECK-NOT: arith.maximumf
// CHECK: return %[[R]]
func.func @one_register(%x: vector<16xf32>, %y: vector<16xf32>) -> vector<16xf32> {
  %m = arith.maximumf %x, %y : vector<16xf32>
  return %m : vector<16xf32>
}

// -----

// Two registers: one vrangeps each, minimum's control 4.
// CHECK-LABEL: func.func @two_registers
// CHECK-DAG: %[[MIN:.*]] = arith.constant 4 : i32
// CHECK: vector.extract_strided_slice %arg0 {offsets = [0], sizes = [16], strides = [1]}
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"({{.*}}, %[[MIN]],
// CHECK: vector.insert_strided_slice {{.*}} {offsets = [0], strides = [1]} : vector<16xf32> into vector<32xf32>
// CHECK: vector.extract_strided_slice %arg0 {offsets = [16], sizes = [16], strides = [1]}
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"
// CHECK: arith.cmpf uno, %arg0, %arg1 : vector<32xf32>
// CHECK-NOT: arith.minimumf
func.func @two_registers(%x: vector<32xf32>, %y: vector<32xf32>) -> vector<32xf32> {
  %m = arith.minimumf %x, %y : vector<32xf32>
  return %m : vector<32xf32>
}

// -----

// f64: vrangepd over 8 lanes, an i8 mask.
// CHECK-LABEL: func.func @f64
// CHECK-DAG: %[[ALL:.*]] = arith.constant -1 : i8
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.mask.range.pd.512"(%arg0, %arg1, %{{.*}}, %arg0, %[[ALL]], %{{.*}}) : (vector<8xf64>, vector<8xf64>, i32, vector<8xf64>, i8, i32) -> vector<8xf64>
// CHECK: arith.cmpf uno, %arg0, %arg1 : vector<8xf64>
// CHECK-NOT: arith.maximumf
func.func @f64(%x: vector<8xf64>, %y: vector<8xf64>) -> vector<8xf64> {
  %m = arith.maximumf %x, %y : vector<8xf64>
  return %m : vector<8xf64>
}

// -----

// Left alone: partial registers, a scalar, maxnumf, f16.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.maximumf %arg0, %arg0 : vector<10xf32>
// CHECK: arith.maximumf %arg1, %arg1 : vector<4xf64>
// CHECK: arith.minimumf %arg2, %arg2 : f32
// CHECK: arith.maxnumf %arg3, %arg3 : vector<16xf32>
// CHECK: arith.maximumf %arg4, %arg4 : vector<32xf16>
func.func @left_alone(%a: vector<10xf32>, %b: vector<4xf64>, %c: f32, %d: vector<16xf32>, %e: vector<32xf16>) -> (vector<10xf32>, vector<4xf64>, f32, vector<16xf32>, vector<32xf16>) {
  %0 = arith.maximumf %a, %a : vector<10xf32>
  %1 = arith.maximumf %b, %b : vector<4xf64>
  %2 = arith.minimumf %c, %c : f32
  %3 = arith.maxnumf %d, %d : vector<16xf32>
  %4 = arith.maximumf %e, %e : vector<32xf16>
  return %0, %1, %2, %3, %4 : vector<10xf32>, vector<4xf64>, f32, vector<16xf32>, vector<32xf16>
}
