// adjit-pipeline-loops: a vector loop whose body is one long dependence
// chain runs as a prologue, a kernel that interleaves the stages of three
// iterations, and an epilogue; loops it cannot reorder safely, or that do
// not need it, stay as they are.
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-loops="vector-bits=512" --canonicalize | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-loops="vector-bits=256" --canonicalize | FileCheck %s --check-prefix=AVX2

// A chain of 33 FMA latencies (a load and 32 operations): three stages.
// The kernel stops two steps early; its first operations belong to three
// different iterations.
// CHECK-LABEL: func.func @long_chain
// CHECK: vector.load %arg0[%c0]
// CHECK: vector.load %arg0[%c16]
// CHECK: %[[K:.*]]:{{[0-9]+}} = scf.for %[[I:.*]] = %c0 to %c992 step %c16 iter_args(
// CHECK: arith.mulf
// The multiply whose add falls in the next stage is kept fused with it.
// CHECK: math.fma
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: vector.store %{{.*}}, %arg1[%[[I]]]
// CHECK: scf.yield
// CHECK: vector.store %{{.*}}, %arg1[%c992]
// CHECK: vector.store %{{.*}}, %arg1[%c1008]
// At 256 bits there are registers for two stages only: the kernel stops
// one step early.
// AVX2-LABEL: func.func @long_chain
// AVX2: vector.load %arg0[%c0]
// AVX2: scf.for %[[I:.*]] = %c0 to %c1008 step %c16 iter_args(
// AVX2: %[[NEXT:.*]] = arith.addi %[[I]], %c16
// AVX2: vector.load %arg0[%[[NEXT]]]
// AVX2: vector.store %{{.*}}, %arg1[%[[I]]]
// AVX2: scf.yield
// AVX2: vector.store %{{.*}}, %arg1[%c1008]
// AVX2-LABEL: func.func @reload_and_accumulate
func.func @long_chain(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>

    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    vector.store %v31, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}

// -----

// The input is loaded again in the last stage instead of being carried
// from the first; the accumulator is carried by the kernel.
// CHECK-LABEL: func.func @reload_and_accumulate
// CHECK: scf.for %[[I:.*]] = %c0 to %c992 step %c16 iter_args(
// CHECK-DAG: vector.load %arg0[%[[I]]]
// CHECK-DAG: %[[I2:.*]] = arith.addi %[[I]], %c32
// CHECK-DAG: vector.load %arg0[%[[I2]]]
// CHECK: scf.yield
func.func @reload_and_accumulate(%in: memref<1024xf32>, %out: memref<1024xf32>, %zero: vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  %r = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %zero) -> vector<16xf32> {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    %y = arith.addf %v31, %x : vector<16xf32>
    vector.store %y, %out[%i] : memref<1024xf32>, vector<16xf32>
    %next = arith.addf %acc, %y : vector<16xf32>
    scf.yield %next : vector<16xf32>
  }
  vector.store %r, %out[%c0] : memref<1024xf32>, vector<16xf32>
  return
}

// -----

// A chain of 21 latencies is left as it is.
// CHECK-LABEL: func.func @short_chain
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c16 {
// CHECK-NOT: scf.for
func.func @short_chain(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    vector.store %v19, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}

// -----

// Steps of four registers already interleave four chains.
// CHECK-LABEL: func.func @four_registers
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c64 {
// CHECK-NOT: scf.for
func.func @four_registers(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<64xf32>
  %b = arith.constant dense<1.0> : vector<64xf32>
  scf.for %i = %c0 to %c1024 step %c64 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<64xf32>
    %v0 = arith.mulf %x, %k : vector<64xf32>
    %v1 = arith.addf %v0, %b : vector<64xf32>
    %v2 = arith.mulf %v1, %k : vector<64xf32>
    %v3 = arith.addf %v2, %b : vector<64xf32>
    %v4 = arith.mulf %v3, %k : vector<64xf32>
    %v5 = arith.addf %v4, %b : vector<64xf32>
    %v6 = arith.mulf %v5, %k : vector<64xf32>
    %v7 = arith.addf %v6, %b : vector<64xf32>
    %v8 = arith.mulf %v7, %k : vector<64xf32>
    %v9 = arith.addf %v8, %b : vector<64xf32>
    %v10 = arith.mulf %v9, %k : vector<64xf32>
    %v11 = arith.addf %v10, %b : vector<64xf32>
    %v12 = arith.mulf %v11, %k : vector<64xf32>
    %v13 = arith.addf %v12, %b : vector<64xf32>
    %v14 = arith.mulf %v13, %k : vector<64xf32>
    %v15 = arith.addf %v14, %b : vector<64xf32>
    %v16 = arith.mulf %v15, %k : vector<64xf32>
    %v17 = arith.addf %v16, %b : vector<64xf32>
    %v18 = arith.mulf %v17, %k : vector<64xf32>
    %v19 = arith.addf %v18, %b : vector<64xf32>
    %v20 = arith.mulf %v19, %k : vector<64xf32>
    %v21 = arith.addf %v20, %b : vector<64xf32>
    %v22 = arith.mulf %v21, %k : vector<64xf32>
    %v23 = arith.addf %v22, %b : vector<64xf32>
    %v24 = arith.mulf %v23, %k : vector<64xf32>
    %v25 = arith.addf %v24, %b : vector<64xf32>
    %v26 = arith.mulf %v25, %k : vector<64xf32>
    %v27 = arith.addf %v26, %b : vector<64xf32>
    %v28 = arith.mulf %v27, %k : vector<64xf32>
    %v29 = arith.addf %v28, %b : vector<64xf32>
    %v30 = arith.mulf %v29, %k : vector<64xf32>
    %v31 = arith.addf %v30, %b : vector<64xf32>
    vector.store %v31, %out[%i] : memref<1024xf32>, vector<64xf32>
  }
  return
}

// -----

// Four iterations are fewer than twice three stages.
// CHECK-LABEL: func.func @few_iterations
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16 {
// CHECK-NOT: scf.for
func.func @few_iterations(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c64 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    vector.store %v31, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}

// -----

// Each iteration writes the slice that the next one reads: pipelined, the
// next iterations' loads would run before the store.
// CHECK-LABEL: func.func @next_slice
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c16 {
// CHECK-NOT: scf.for
func.func @next_slice(%buf: memref<1040xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %buf[%i] : memref<1040xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    %j = arith.addi %i, %c16 : index
    vector.store %v31, %buf[%j] : memref<1040xf32>, vector<16xf32>
  }
  return
}

// -----

// A function with donated arguments (adjit-mark-entry-points marks it) may
// be passed one buffer as two of them.
// CHECK-LABEL: func.func @donated
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c16 {
// CHECK-NOT: scf.for
func.func @donated(%in: memref<1024xf32>, %out: memref<1024xf32>) attributes {adjit.donates_buffers} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    vector.store %v31, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}

// -----

// A private function's arguments may be one buffer.
// CHECK-LABEL: func.func private @private_arguments
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c16 {
// CHECK-NOT: scf.for
func.func private @private_arguments(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    vector.store %v31, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}

// -----

// A call's memory effects are unknown.
// CHECK-LABEL: func.func @call
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c16 {
// CHECK-NOT: scf.for
func.func @call(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %v10 = arith.mulf %v9, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    func.call @opaque() : () -> ()
    vector.store %v31, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}
func.func private @opaque()

// -----

// A clamp in the middle of the chain: its comparison moves to the stage of
// its select, so the kernel carries values, not a mask (x86 makes the
// compare and select one vmaxps only in one stage).
// CHECK-LABEL: func.func @clamp_in_chain
// CHECK: scf.for %{{.*}} = %c0 to %c992 step %c16 iter_args({{.*}}) -> ({{[^i]*}}) {
// CHECK: arith.cmpf
// CHECK: arith.select
// CHECK: scf.yield
func.func @clamp_in_chain(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<16xf32>
  %b = arith.constant dense<1.0> : vector<16xf32>
  %low = arith.constant dense<-8.0> : vector<16xf32>
  scf.for %i = %c0 to %c1024 step %c16 {
    %x = vector.load %in[%i] : memref<1024xf32>, vector<16xf32>
    %v0 = arith.mulf %x, %k : vector<16xf32>
    %v1 = arith.addf %v0, %b : vector<16xf32>
    %v2 = arith.mulf %v1, %k : vector<16xf32>
    %v3 = arith.addf %v2, %b : vector<16xf32>
    %v4 = arith.mulf %v3, %k : vector<16xf32>
    %v5 = arith.addf %v4, %b : vector<16xf32>
    %v6 = arith.mulf %v5, %k : vector<16xf32>
    %v7 = arith.addf %v6, %b : vector<16xf32>
    %v8 = arith.mulf %v7, %k : vector<16xf32>
    %v9 = arith.addf %v8, %b : vector<16xf32>
    %low_ok = arith.cmpf uge, %v9, %low : vector<16xf32>
    %clamped = arith.select %low_ok, %v9, %low : vector<16xi1>, vector<16xf32>
    %v10 = arith.mulf %clamped, %k : vector<16xf32>
    %v11 = arith.addf %v10, %b : vector<16xf32>
    %v12 = arith.mulf %v11, %k : vector<16xf32>
    %v13 = arith.addf %v12, %b : vector<16xf32>
    %v14 = arith.mulf %v13, %k : vector<16xf32>
    %v15 = arith.addf %v14, %b : vector<16xf32>
    %v16 = arith.mulf %v15, %k : vector<16xf32>
    %v17 = arith.addf %v16, %b : vector<16xf32>
    %v18 = arith.mulf %v17, %k : vector<16xf32>
    %v19 = arith.addf %v18, %b : vector<16xf32>
    %v20 = arith.mulf %v19, %k : vector<16xf32>
    %v21 = arith.addf %v20, %b : vector<16xf32>
    %v22 = arith.mulf %v21, %k : vector<16xf32>
    %v23 = arith.addf %v22, %b : vector<16xf32>
    %v24 = arith.mulf %v23, %k : vector<16xf32>
    %v25 = arith.addf %v24, %b : vector<16xf32>
    %v26 = arith.mulf %v25, %k : vector<16xf32>
    %v27 = arith.addf %v26, %b : vector<16xf32>
    %v28 = arith.mulf %v27, %k : vector<16xf32>
    %v29 = arith.addf %v28, %b : vector<16xf32>
    %v30 = arith.mulf %v29, %k : vector<16xf32>
    %v31 = arith.addf %v30, %b : vector<16xf32>
    %v32 = arith.mulf %v31, %k : vector<16xf32>
    vector.store %v32, %out[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}
