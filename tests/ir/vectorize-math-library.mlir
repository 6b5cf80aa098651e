// adjit-vectorize with vector-math-library: generics of f64
// transcendentals and f32 pow become vector code (which
// adjit-math-to-libm turns into calls of libmvec's variants); without
// it they stay for LLVM, as libm calls one element at a time.
// RUN: adjit-opt %s --adjit-vectorize="vector-bits=512 vector-math-library=true" --canonicalize --mlir-print-local-scope | FileCheck %s
// RUN: adjit-opt %s --adjit-vectorize="vector-bits=512" --canonicalize --mlir-print-local-scope | FileCheck %s --check-prefix=LIBM
// RUN: adjit-opt %s --adjit-pipeline-fused="vector-bits=512" | FileCheck %s --check-prefix=LIBM
// RUN: adjit-opt %s --adjit-vectorize="vector-bits=512 vector-math-library=true" --adjit-math-to-libm="vector-isa=e" --canonicalize | FileCheck %s --check-prefix=CALLS

// 40 f64 per row: a step of four registers would leave no second step,
// so two registers (16 lanes) twice, then 8. tanh waits on a long chain,
// exp and the division do not change that.
// CHECK-LABEL: func.func @tanh_times_exp
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<40xf64>, vector<16xf64>
// CHECK: math.tanh %[[X]] : vector<16xf64>
// CHECK: math.exp %[[X]] : vector<16xf64>
// CHECK: vector.transfer_write {{.*}} : vector<16xf64>, tensor<40xf64>
// CHECK: math.tanh %{{.*}} : vector<8xf64>
// CHECK-NOT: linalg.generic
// LIBM-LABEL: func.func @tanh_times_exp
// LIBM-NOT: vector.
// LIBM: linalg.generic
// LIBM-NOT: vector.
// CALLS-LABEL: func.func @tanh_times_exp
// CALLS-COUNT-2: call @_ZGVeN8v_tanh
// CALLS-COUNT-2: call @_ZGVeN8v_exp
// CALLS: call @_ZGVeN8v_tanh
// CALLS: call @_ZGVeN8v_exp
// CALLS-NOT: math.
func.func @tanh_times_exp(%x: tensor<40xf64>) -> tensor<40xf64> {
  %empty = tensor.empty() : tensor<40xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<40xf64>) outs(%empty : tensor<40xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = math.tanh %in : f64
    %e = math.exp %in : f64
    %r = arith.mulf %t, %e : f64
    linalg.yield %r : f64
  } -> tensor<40xf64>
  return %y : tensor<40xf64>
}

// f32 pow is the library's too; f16 math is not.
// CHECK-LABEL: func.func @pow_f32
// CHECK: math.powf %{{.*}}, %{{.*}} : vector<32xf32>
// LIBM-LABEL: func.func @pow_f32
// LIBM-NOT: vector.
func.func @pow_f32(%x: tensor<64xf32>) -> tensor<64xf32> {
  %empty = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.powf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %y : tensor<64xf32>
}
