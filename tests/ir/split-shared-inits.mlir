// adjit-split-shared-inits: a fill that starts several ops (CSE merged
// them) is cloned before each op that uses it as its init, so each output
// is filled in place instead of copied from one shared buffer; other uses
// keep the original. An empty tensor (or a slice of one) repeated among one
// op's output inits, unread by its body, gets a fresh one per repeat, and
// an empty tensor several ops use gets one per use.
// RUN: adjit-opt %s -split-input-file --adjit-split-shared-inits | FileCheck %s

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_inits
// CHECK-NOT:   linalg.fill
// CHECK:       %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8xf32>)
// CHECK-NEXT:  %[[A:.*]] = linalg.generic {{.*}} outs(%[[Z1]] : tensor<8xf32>)
// CHECK:       %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8xf32>)
// CHECK-NEXT:  %[[B:.*]] = linalg.generic {{.*}} outs(%[[Z2]] : tensor<8xf32>)
// CHECK-NOT:   linalg.fill
// CHECK:       return %[[A]], %[[B]]
func.func @two_inits(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// A use that is not an init (an input, a return) keeps the original fill.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @kept_for_input
// CHECK:       %[[Z:.*]] = linalg.fill
// CHECK:       %[[Z1:.*]] = linalg.fill
// CHECK-NEXT:  linalg.generic {{.*}} ins(%[[Z]] : tensor<8xf32>) outs(%[[Z1]] : tensor<8xf32>)
func.func @kept_for_input(%x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a : tensor<8xf32>
}

// -----

// One empty tensor, and one slice of it, as the init of several outputs of
// one op: each repeat gets its own empty tensor, and so does each op (the
// slice reads the original). An init the body reads (an accumulator) and a
// repeated real tensor stay.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @repeated_empties
// CHECK-SAME:  (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  linalg.generic {{.*}} outs(%[[E0]], %[[E1]], %[[E2]], %[[X]], %[[X]] :
// CHECK:       %[[S:.*]] = tensor.extract_slice %[[E]][0] [4] [1]
// CHECK:       %[[E3:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:  linalg.generic {{.*}} outs(%[[S]], %[[E3]], %[[S]] :
func.func @repeated_empties(%x: tensor<8xf32>, %y: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a:5 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e, %e, %e, %x, %x : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32):
    %n = arith.negf %in : f32
    linalg.yield %in, %n, %in, %n, %in : f32, f32, f32, f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  %s = tensor.extract_slice %e[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %b:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<4xf32>) outs(%s, %s, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32, %acc: f32):
    %sum = arith.addf %in, %acc : f32
    linalg.yield %in, %in, %sum : f32, f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %a#0, %a#1, %a#2, %a#3, %a#4, %b#0, %b#1, %b#2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// One empty tensor as the init of an op and of another in a loop: each use
// gets its own, made where the original is (one made in the loop would be
// allocated in every iteration).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @empty_shared_by_ops
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:  linalg.generic {{.*}} outs(%[[E0]] :
// CHECK:       scf.for
// CHECK-NOT:   tensor.empty
// CHECK:       linalg.generic {{.*}} outs(%[[E]] :
// CHECK:       scf.yield
func.func @empty_shared_by_ops(%x: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n2 = arith.negf %in : f32
    linalg.yield %n2 : f32
  } -> tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%acc : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.addf %in, %in : f32
      linalg.yield %d : f32
    } -> tensor<8xf32>
    scf.yield %b : tensor<8xf32>
  }
  return %a, %r : tensor<8xf32>, tensor<8xf32>
}

// -----

// A reshape of an empty tensor is an empty tensor of its own shape (made
// where the original is), so that two ops writing into one collapsed empty
// tensor get one each.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reshaped_empty
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-NEXT:  %[[F:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       linalg.generic {{.*}} outs(%[[E]] :
// CHECK:       linalg.generic {{.*}} outs(%[[F]] :
func.func @reshaped_empty(%x: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<32xf32>) outs(%c : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<32xf32>) outs(%c : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  return %a, %b : tensor<32xf32>, tensor<32xf32>
}
