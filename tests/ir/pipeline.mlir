// The named pipeline stages of DESIGN.md §2 through adjit-opt.
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-optimized | FileCheck %s --check-prefix=OPT
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-linalg | FileCheck %s --check-prefix=LINALG
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-fused="vector-bits=512" | FileCheck %s --check-prefix=FUSED
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-bufferized="vector-bits=512" | FileCheck %s --check-prefix=BUF
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-llvm="vector-bits=512" | FileCheck %s --check-prefix=LLVM

// An elementwise chain with a bias broadcast: the optimized stage folds the
// multiplication by one and CSEs the duplicate tanh; fusion then leaves one
// linalg.generic that reads x and the bias directly, which adjit-vectorize
// makes one loop over the rows, each row one vector of 8 lanes.

// OPT-LABEL: func.func @chain
// OPT-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// OPT-NEXT: %[[BB:.*]] = adjit.broadcast_in_dim %[[B]], dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
// OPT-NEXT: %[[S:.*]] = adjit.add %[[X]], %[[BB]] : tensor<4x8xf32>
// OPT-NEXT: %[[T:.*]] = adjit.tanh %[[S]] : tensor<4x8xf32>
// OPT-NEXT: %[[M:.*]] = adjit.mul %[[T]], %[[T]] : tensor<4x8xf32>
// OPT-NEXT: %[[E:.*]] = adjit.exp %[[M]] : tensor<4x8xf32>
// OPT-NEXT: return %[[E]]

// LINALG-LABEL: func.func @chain
// LINALG-NOT: adjit.
// LINALG-COUNT-5: linalg.generic
// LINALG-NOT: linalg.generic
// LINALG: return

// FUSED-LABEL: func.func @chain
// FUSED-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// FUSED: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// FUSED-NEXT: %[[R:.*]] = scf.for %[[I:.*]] = %c0 to %c4 step %c1 iter_args(%[[OUT:.*]] = %[[E]]) -> (tensor<4x8xf32>)
// FUSED-NEXT: %[[IX:.*]] = vector.transfer_read %[[X]][%[[I]], %c0], %{{.*}} {in_bounds = [true]} : tensor<4x8xf32>, vector<8xf32>
// FUSED-NEXT: %[[IB:.*]] = vector.transfer_read %[[B]][%c0], %{{.*}} {in_bounds = [true]} : tensor<8xf32>, vector<8xf32>
// FUSED-NEXT: %[[S:.*]] = arith.addf %[[IX]], %[[IB]] : vector<8xf32>
// FUSED-NEXT: %[[T:.*]] = math.tanh %[[S]] : vector<8xf32>
// FUSED-NEXT: %[[M:.*]] = arith.mulf %[[T]], %[[T]] : vector<8xf32>
// FUSED-NEXT: %[[EX:.*]] = math.exp %[[M]] : vector<8xf32>
// FUSED-NEXT: %[[W:.*]] = vector.transfer_write %[[EX]], %[[OUT]][%[[I]], %c0] {in_bounds = [true]} : vector<8xf32>, tensor<4x8xf32>
// FUSED-NEXT: scf.yield %[[W]]
// FUSED-NEXT: }
// FUSED-NEXT: return %[[R]]
// FUSED-NEXT: }

// The bufferized function writes its result into a caller-owned out-param and
// has no tensors left.
// BUF-LABEL: func.func @chain
// BUF-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<4x8xf32>) attributes {llvm.emit_c_interface}
// BUF-NOT: tensor
// BUF-NOT: memref.alloc
// BUF: vector.transfer_read %[[X]]
// BUF: vector.transfer_read %[[B]]
// BUF: vector.transfer_write %{{.*}}, %[[OUT]]
// BUF-NOT: tensor
// BUF: return
// BUF-NEXT: }

// LLVM-LABEL: llvm.func @chain
// LLVM-LABEL: llvm.func @_mlir_ciface_chain(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM: llvm.call @chain(
// LLVM-LABEL: llvm.func @adjit_entry_chain(
// LLVM-SAME: %[[ARGS:.*]]: !llvm.ptr) {
// LLVM-NEXT: %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LLVM-NEXT: %[[A0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// LLVM-NEXT: %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LLVM-NEXT: %[[A1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// LLVM-NEXT: %[[P2:.*]] = llvm.getelementptr %[[ARGS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LLVM-NEXT: %[[A2:.*]] = llvm.load %[[P2]] : !llvm.ptr -> !llvm.ptr
// LLVM-NEXT: llvm.call @_mlir_ciface_chain(%[[A0]], %[[A1]], %[[A2]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// LLVM-NEXT: llvm.return
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %bb = adjit.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = adjit.add %x, %bb : tensor<4x8xf32>
  %1 = adjit.tanh %0 : tensor<4x8xf32>
  %one = adjit.constant dense<1.0> : tensor<4x8xf32>
  %2 = adjit.mul %1, %one : tensor<4x8xf32>
  %3 = adjit.tanh %0 : tensor<4x8xf32>
  %4 = adjit.mul %2, %3 : tensor<4x8xf32>
  %5 = adjit.exp %4 : tensor<4x8xf32>
  return %5 : tensor<4x8xf32>
}

// -----

// Inputs are not writable (bufferization.writable = false on every argument
// of an entry point): scatter_add must not accumulate into its base argument
// in place, but into a copy that then goes to the out-param.

// BUF-LABEL: func.func @scatter_into_argument
// BUF-SAME: (%[[BASE:.*]]: memref<5xf32>, %[[IDS:.*]]: memref<3xi32>, %[[UPD:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<5xf32>)
// BUF-NOT: memref.store %{{.*}}, %[[BASE]]
// BUF-NOT: memref.store %{{.*}}, %[[IDS]]
// BUF-NOT: memref.store %{{.*}}, %[[UPD]]
// BUF-NOT: outs(%[[BASE]]
// BUF: memref.store
// BUF-NOT: memref.store %{{.*}}, %[[BASE]]
// BUF-NOT: outs(%[[BASE]]
// BUF: return

// LLVM-LABEL: llvm.func @adjit_entry_scatter_into_argument(%{{.*}}: !llvm.ptr)
// LLVM-COUNT-4: llvm.getelementptr
// LLVM: llvm.call @_mlir_ciface_scatter_into_argument
func.func @scatter_into_argument(%base: tensor<5xf32>, %ids: tensor<3xi32>, %upd: tensor<3xf32>) -> tensor<5xf32> {
  %0 = adjit.scatter_add %upd into %base[%ids], axis = 0 : (tensor<5xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Several public functions each get an entry point; a private helper is
// inlined into its caller (and removed), and several results become several
// out-params.

// BUF-LABEL: func.func @two_results
// BUF-SAME: (%{{.*}}: memref<3xf32>, %{{.*}}: memref<3xf32>, %{{.*}}: memref<f32>) attributes {llvm.emit_c_interface}
// BUF-LABEL: func.func @other
// BUF-SAME: (%{{.*}}: memref<2xi64>, %{{.*}}: memref<2xi64>) attributes {llvm.emit_c_interface}
// BUF-NOT: @helper

// LLVM-NOT: llvm.func @adjit_entry_helper
// LLVM-DAG: llvm.func @adjit_entry_two_results(
// LLVM-DAG: llvm.func @adjit_entry_other(
// LLVM-NOT: llvm.func @adjit_entry_helper
func.func private @helper(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = adjit.sin %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

func.func @two_results(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %0 = func.call @helper(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = adjit.reduce sum %0, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %0, %1 : tensor<3xf32>, tensor<f32>
}

func.func @other(%x: tensor<2xi64>) -> tensor<2xi64> {
  %0 = adjit.mul %x, %x : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// add, mul, max and min are commutative: the optimized stage's CSE takes
// x*y and y*x for one value (reverse mode makes both from a product of a
// value with itself).
// OPT-LABEL: func.func @commutative_operands
// OPT-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// OPT-NEXT: %[[M:.*]] = adjit.mul %[[X]], %[[Y]] : tensor<4xf32>
// OPT-NEXT: %[[A:.*]] = adjit.add %[[X]], %[[Y]] : tensor<4xf32>
// OPT-NEXT: %[[MX:.*]] = adjit.max %[[X]], %[[Y]] : tensor<4xf32>
// OPT-NEXT: %[[MN:.*]] = adjit.min %[[X]], %[[Y]] : tensor<4xf32>
// OPT-NEXT: return %[[M]], %[[M]], %[[A]], %[[A]], %[[MX]], %[[MX]], %[[MN]], %[[MN]]
func.func @commutative_operands(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = adjit.mul %x, %y : tensor<4xf32>
  %1 = adjit.mul %y, %x : tensor<4xf32>
  %2 = adjit.add %x, %y : tensor<4xf32>
  %3 = adjit.add %y, %x : tensor<4xf32>
  %4 = adjit.max %x, %y : tensor<4xf32>
  %5 = adjit.max %y, %x : tensor<4xf32>
  %6 = adjit.min %x, %y : tensor<4xf32>
  %7 = adjit.min %y, %x : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// adjit.gelu after differentiation: adjit-expand-composites writes out its
// formula, which its derivative rule built alike, so CSE leaves one tanh for
// the value and the gradient.
// OPT-LABEL: func.func @value_and_grad_gelu
// OPT-NOT: adjit.gelu
// OPT: adjit.tanh
// OPT-NOT: adjit.tanh
// OPT-NOT: adjit.gelu
// OPT: return
// LINALG-LABEL: func.func @value_and_grad_gelu
// LINALG-COUNT-1: math.tanh
// LINALG-NOT: math.tanh
// LINALG: return
func.func private @sum_gelu(%x: tensor<8xf32>) -> tensor<f32> {
  %y = adjit.gelu %x approximate : tensor<8xf32>
  %s = adjit.reduce sum %y, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @value_and_grad_gelu(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %v = call @sum_gelu(%x) : (tensor<8xf32>) -> tensor<f32>
  %g = adjit.grad @sum_gelu(%x) wrt [0] : (tensor<8xf32>) -> tensor<8xf32>
  return %v, %g : tensor<f32>, tensor<8xf32>
}

// -----

// The exact gelu alike: its value and its derivative (Phi(x) + x phi(x))
// share Phi and its exponential; the density has one more.
// OPT-LABEL: func.func @value_and_grad_gelu_exact
// OPT-COUNT-2: adjit.exp
// OPT-NOT: adjit.exp
// OPT-NOT: adjit.gelu
// OPT: return
func.func private @sum_gelu_exact(%x: tensor<8xf32>) -> tensor<f32> {
  %y = adjit.gelu %x : tensor<8xf32>
  %s = adjit.reduce sum %y, dims = [0] : (tensor<8xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @value_and_grad_gelu_exact(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %v = call @sum_gelu_exact(%x) : (tensor<8xf32>) -> tensor<f32>
  %g = adjit.grad @sum_gelu_exact(%x) wrt [0] : (tensor<8xf32>) -> tensor<8xf32>
  return %v, %g : tensor<f32>, tensor<8xf32>
}
