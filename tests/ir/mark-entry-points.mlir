// adjit-mark-entry-points: public functions are what callers invoke with
// their own buffers. Their arguments are not writable, they get C
// interface wrappers, and a result that is an argument or repeats another
// result is copied (each result has its own buffer). A donated argument
// (adjit.aliasing_output) is writable instead, and its result says which
// argument it shares a buffer with. Private functions are left alone.
// RUN: adjit-opt %s --adjit-mark-entry-points | FileCheck %s

// CHECK-LABEL: func.func @entry
// CHECK-SAME:  %arg0: tensor<4xf32> {bufferization.writable = false}
// CHECK-SAME:  %arg1: tensor<4xf32> {bufferization.writable = false}
// CHECK-SAME:  attributes {llvm.emit_c_interface}
// CHECK:       %[[SUM:.*]] = arith.addf %arg0, %arg1
// CHECK-NEXT:  %[[ARG_COPY:.*]] = bufferization.alloc_tensor() copy(%arg0)
// CHECK-NEXT:  %[[REPEAT_COPY:.*]] = bufferization.alloc_tensor() copy(%[[SUM]])
// CHECK-NEXT:  return %[[ARG_COPY]], %[[SUM]], %[[REPEAT_COPY]]
func.func @entry(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = arith.addf %x, %y : tensor<4xf32>
  return %x, %z, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func private @helper
// CHECK-SAME:  (%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:  return %arg0
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @donated
// CHECK-SAME:  %arg0: tensor<4xf32> {bufferization.writable = true}
// CHECK-SAME:  %arg1: tensor<4xf32> {bufferization.writable = false}
// CHECK-SAME:  -> (tensor<f32>, tensor<4xf32> {adjit.aliasing_input = 0 : i64})
// CHECK-NOT:   adjit.aliasing_output
func.func @donated(%w: tensor<4xf32> {adjit.aliasing_output = 1 : i64}, %g: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %n = arith.subf %w, %g : tensor<4xf32>
  %s = tensor.empty() : tensor<f32>
  return %s, %n : tensor<f32>, tensor<4xf32>
}
