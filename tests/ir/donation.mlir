// Donated arguments (JitOptions::donate, `adjit.aliasing_output = R` on an
// argument): the op computing result R writes into the argument
// (adjit-write-into-dead-inputs), bufferization does it in place, and the
// result is returned without copying it into its out-parameter, which the
// caller passes as the same buffer (adjit-elide-donated-copies); the
// function is marked adjit.donates_buffers, as two of its arguments may
// then be one buffer.
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-fused | FileCheck %s --check-prefix=FUSED
// RUN: adjit-opt %s -split-input-file --adjit-pipeline-bufferized | FileCheck %s --check-prefix=BUF

// An SGD update: w - 0.5 * g, computed in w's buffer.
// The loops carry the argument, and each vector of w is read from the
// carried value just before the same vector is written there.
// FUSED-LABEL: func.func @sgd
// FUSED:       scf.for {{.*}} iter_args(%{{.*}} = %arg0)
// FUSED-NOT:   vector.transfer_read %arg0
// FUSED:       %[[OLD:.*]] = vector.transfer_read %[[W:.*]][%[[I:.*]], %[[J:.*]]],
// FUSED-NEXT:  %[[G:.*]] = vector.transfer_read %arg1[%[[I]], %[[J]]],
// FUSED:       vector.transfer_write %{{.*}}, %[[W]][%[[I]], %[[J]]]
// BUF-LABEL:   func.func @sgd
// BUF-SAME:    (%arg0: memref<64x32xf32>, %arg1: memref<64x32xf32>, %arg2: memref<64x32xf32>)
// BUF-SAME:    attributes {adjit.donates_buffers
// BUF-NOT:     memref.alloc
// BUF:         vector.transfer_read %arg0
// BUF:         vector.transfer_write %{{.*}}, %arg0
// BUF-NOT:     copy
// BUF:         return
func.func @sgd(%w: tensor<64x32xf32> {adjit.aliasing_output = 0 : i64}, %g: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = adjit.constant dense<0.5> : tensor<64x32xf32>
  %s = adjit.mul %c, %g : tensor<64x32xf32>
  %n = adjit.sub %w, %s : tensor<64x32xf32>
  return %n : tensor<64x32xf32>
}

// -----

// Without donation the update writes a fresh tensor: arguments are
// read-only to compiled code.
// FUSED-LABEL: func.func @not_donated
// FUSED:       %[[EMPTY:.*]] = tensor.empty() : tensor<64x32xf32>
// FUSED:       scf.for {{.*}} iter_args(%{{.*}} = %[[EMPTY]])
// FUSED:       vector.transfer_read %arg0
// BUF-LABEL:   func.func @not_donated
// BUF-NOT:     adjit.donates_buffers
// BUF-NOT:     vector.transfer_write {{.*}} %arg0
// BUF:         vector.transfer_write %{{.*}}, %arg2
func.func @not_donated(%w: tensor<64x32xf32>, %g: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = adjit.constant dense<0.5> : tensor<64x32xf32>
  %s = adjit.mul %c, %g : tensor<64x32xf32>
  %n = adjit.sub %w, %s : tensor<64x32xf32>
  return %n : tensor<64x32xf32>
}

// -----

// A donated argument read after the op that computes its result is not
// overwritten there: the result gets a buffer of its own (not hoisted into
// its out-parameter, which is the argument's buffer), copied into the
// out-parameter at the end. The other result is written in place of its
// out-parameter.
// FUSED-LABEL: func.func @read_later
// FUSED:       %[[EMPTY:.*]] = tensor.empty() : tensor<64x32xf32>
// FUSED:       scf.for {{.*}} iter_args(%{{.*}} = %[[EMPTY]], %{{.*}} = %[[EMPTY]])
// BUF-LABEL:   func.func @read_later
// BUF-SAME:    (%arg0: memref<64x32xf32>, %arg1: memref<64x32xf32>, %arg2: memref<64x32xf32>, %arg3: memref<64x32xf32>)
// BUF:         %[[ARENA:.*]] = memref.alloc() {{.*}} : memref<8192xi8>
// BUF:         %[[OWN:.*]] = adjit.arena_buffer %[[ARENA]][0] : memref<8192xi8> to memref<64x32xf32>
// BUF:         scf.for
// BUF:         memref.subview %[[OWN]]
// BUF:         memref.subview %arg3
// BUF:         linalg.copy ins(%[[OWN]] : memref<64x32xf32>) outs(%arg2 : memref<64x32xf32>)
// BUF-NEXT:    adjit.arena_release %[[OWN]]
// BUF-NEXT:    memref.dealloc %[[ARENA]]
// BUF-NEXT:    return
func.func @read_later(%w: tensor<64x32xf32> {adjit.aliasing_output = 0 : i64}, %g: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %n = adjit.sub %w, %g : tensor<64x32xf32>
  %e = adjit.exp %n : tensor<64x32xf32>
  %m = adjit.mul %e, %w : tensor<64x32xf32>
  return %n, %m : tensor<64x32xf32>, tensor<64x32xf32>
}
