// adjit-pipeline-loops keeps a multiply and the add or subtract it feeds
// fused when the two land in different stages: LLVM contracts them into one
// FMA only within a stage, and a split pair costs a rounding step and an
// extra instruction on the critical path (the exact GELU's polynomial
// lost accuracy that way at 256 bits).
// RUN: adjit-opt %s --adjit-pipeline-loops="vector-bits=512 max-stages=4" --canonicalize | FileCheck %s
// RUN: adjit-opt %s --adjit-pipeline-loops="vector-bits=128" | FileCheck %s --check-prefix=SSE

// A chain of 48 latencies in four stages of 12: the multiply at depth 11
// feeds a subtract at depth 12, the one at depth 23 is subtracted from
// at depth 24, and the one at depth 35 is also stored, so it stays.
// CHECK-LABEL: func.func @contract_across_stages
// CHECK-DAG: %[[MINUS_ONE:.*]] = arith.constant dense<-1.000000e+00> : vector<8xf32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : vector<8xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: scf.for %[[I:.*]] = %c0 to %c1000 step %c8 iter_args(%[[X23:.*]] = %{{.*}}, %[[X35:.*]] = %{{.*}}, %[[X11:.*]] = %{{.*}})
// CHECK-DAG: %[[NEG:.*]] = arith.negf %[[X23]]
// CHECK-DAG: math.fma %[[X11]], %[[HALF]], %[[MINUS_ONE]]
// CHECK-DAG: math.fma %[[NEG]], %[[HALF]], %[[ONE]]
// CHECK: %[[PRODUCT:.*]] = arith.mulf %{{.*}}, %[[HALF]]
// CHECK: vector.store %[[X35]], %arg2[%[[I]]]
// CHECK: scf.yield %{{.*}}, %[[PRODUCT]], %{{.*}}
// CHECK-NOT: arith.subf
// SSE-LABEL: func.func @contract_across_stages
// SSE: scf.for %{{.*}} = %c0 to %c1024 step %c8 {
// SSE-COUNT-3: arith.mulf
// SSE-NOT: math.fma
func.func @contract_across_stages(%in: memref<1024xf32>, %out: memref<1024xf32>, %product: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %k = arith.constant dense<0.5> : vector<8xf32>
  %b = arith.constant dense<1.0> : vector<8xf32>
  scf.for %i = %c0 to %c1024 step %c8 {
    %v0 = vector.load %in[%i] : memref<1024xf32>, vector<8xf32>
    %v1 = arith.addf %v0, %b : vector<8xf32>
    %v2 = arith.addf %v1, %b : vector<8xf32>
    %v3 = arith.addf %v2, %b : vector<8xf32>
    %v4 = arith.addf %v3, %b : vector<8xf32>
    %v5 = arith.addf %v4, %b : vector<8xf32>
    %v6 = arith.addf %v5, %b : vector<8xf32>
    %v7 = arith.addf %v6, %b : vector<8xf32>
    %v8 = arith.addf %v7, %b : vector<8xf32>
    %v9 = arith.addf %v8, %b : vector<8xf32>
    %v10 = arith.addf %v9, %b : vector<8xf32>
    %v11 = arith.mulf %v10, %k : vector<8xf32>
    %v12 = arith.subf %v11, %b : vector<8xf32>
    %v13 = arith.addf %v12, %b : vector<8xf32>
    %v14 = arith.addf %v13, %b : vector<8xf32>
    %v15 = arith.addf %v14, %b : vector<8xf32>
    %v16 = arith.addf %v15, %b : vector<8xf32>
    %v17 = arith.addf %v16, %b : vector<8xf32>
    %v18 = arith.addf %v17, %b : vector<8xf32>
    %v19 = arith.addf %v18, %b : vector<8xf32>
    %v20 = arith.addf %v19, %b : vector<8xf32>
    %v21 = arith.addf %v20, %b : vector<8xf32>
    %v22 = arith.addf %v21, %b : vector<8xf32>
    %v23 = arith.mulf %v22, %k : vector<8xf32>
    %v24 = arith.subf %b, %v23 : vector<8xf32>
    %v25 = arith.addf %v24, %b : vector<8xf32>
    %v26 = arith.addf %v25, %b : vector<8xf32>
    %v27 = arith.addf %v26, %b : vector<8xf32>
    %v28 = arith.addf %v27, %b : vector<8xf32>
    %v29 = arith.addf %v28, %b : vector<8xf32>
    %v30 = arith.addf %v29, %b : vector<8xf32>
    %v31 = arith.addf %v30, %b : vector<8xf32>
    %v32 = arith.addf %v31, %b : vector<8xf32>
    %v33 = arith.addf %v32, %b : vector<8xf32>
    %v34 = arith.addf %v33, %b : vector<8xf32>
    %v35 = arith.mulf %v34, %k : vector<8xf32>
    %v36 = arith.addf %v35, %b : vector<8xf32>
    %v37 = arith.addf %v36, %b : vector<8xf32>
    %v38 = arith.addf %v37, %b : vector<8xf32>
    %v39 = arith.addf %v38, %b : vector<8xf32>
    %v40 = arith.addf %v39, %b : vector<8xf32>
    %v41 = arith.addf %v40, %b : vector<8xf32>
    %v42 = arith.addf %v41, %b : vector<8xf32>
    %v43 = arith.addf %v42, %b : vector<8xf32>
    %v44 = arith.addf %v43, %b : vector<8xf32>
    %v45 = arith.addf %v44, %b : vector<8xf32>
    %v46 = arith.addf %v45, %b : vector<8xf32>
    %v47 = arith.addf %v46, %b : vector<8xf32>
    vector.store %v35, %product[%i] : memref<1024xf32>, vector<8xf32>
    vector.store %v47, %out[%i] : memref<1024xf32>, vector<8xf32>
  }
  return
}
