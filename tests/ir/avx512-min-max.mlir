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

// -----

// A NaN-skipping maximum (minimum) that advances a reduction's accumulator
// started without NaN: vmaxps (vminps) with the accumulator second, which
// it returns for a NaN element. Register by register.
// CHECK-LABEL: func.func @accumulators
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[LOW:.*]] = %{{.*}})
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.max.ps.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, i32) -> vector<16xf32>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.min.pd.512"(%{{.*}}, %[[LOW]], %{{.*}}) : (vector<8xf64>, vector<8xf64>, i32) -> vector<8xf64>
// CHECK-NOT: arith.maxnumf
// CHECK-NOT: arith.minnumf
func.func @accumulators(%x: memref<1024xf32>, %y: memref<512xf64>) -> (vector<32xf32>, vector<8xf64>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %low = arith.constant dense<0xFF800000> : vector<32xf32>
  %high = arith.constant dense<0x7FF0000000000000> : vector<8xf64>
  %pad = arith.constant 0.0 : f32
  %padd = arith.constant 0.0 : f64
  %r:2 = scf.for %i = %c0 to %c1024 step %c32 iter_args(%acc = %low, %least = %high) -> (vector<32xf32>, vector<8xf64>) {
    %v = vector.transfer_read %x[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<32xf32>
    %m = arith.maxnumf %acc, %v : vector<32xf32>
    %w = vector.transfer_read %y[%c8], %padd {in_bounds = [true]} : memref<512xf64>, vector<8xf64>
    %n = arith.minnumf %w, %least : vector<8xf64>
    scf.yield %m, %n : vector<32xf32>, vector<8xf64>
  }
  return %r#0, %r#1 : vector<32xf32>, vector<8xf64>
}

// -----

// Left to LLVM's maxnum: an accumulator started at NaN (maxnumf's neutral
// element), and a maxnumf that does not advance an accumulator.
// CHECK-LABEL: func.func @nan_start
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.maxnumf
// CHECK: arith.maxnumf
func.func @nan_start(%x: memref<1024xf32>, %z: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %nan = arith.constant dense<0xFFC00000> : vector<16xf32>
  %pad = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %nan) -> (vector<16xf32>) {
    %v = vector.transfer_read %x[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<16xf32>
    %m = arith.maxnumf %acc, %v : vector<16xf32>
    scf.yield %m : vector<16xf32>
  }
  %other = arith.maxnumf %r, %z : vector<16xf32>
  return %r, %other : vector<16xf32>, vector<16xf32>
}
