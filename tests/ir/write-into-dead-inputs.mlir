// adjit-write-into-dead-inputs: an elementwise generic writing a fresh tensor
// writes into an input that dies there (a loop carry, a temporary), and
// never into a function argument, a constant or a tensor read again later.
// RUN: adjit-opt %s --adjit-write-into-dead-inputs | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// A loop's carry is updated in place.
// CHECK-LABEL: func.func @carry
// CHECK: scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<8xf32>, tensor<8xf32>) outs(%[[C]] : tensor<8xf32>)
func.func @carry(%x: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%c = %x) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%c, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.addf %a, %b : f32
      linalg.yield %v : f32
    } -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// A while loop's body updates its carry in place; its condition only reads
// the carry it forwards (a generic there writes a fresh tensor).
// CHECK-LABEL: func.func @while_carry
// CHECK: scf.while (%[[B:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: } do {
// CHECK: ^bb0(%[[C:.*]]: tensor<8xf32>):
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<8xf32>, tensor<8xf32>) outs(%[[C]] : tensor<8xf32>)
func.func @while_carry(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.while (%b = %x) : (tensor<8xf32>) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%b : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %v = arith.negf %a : f32
      linalg.yield %v : f32
    } -> tensor<8xf32>
    %c0 = arith.constant 0 : index
    %first = tensor.extract %n[%c0] : tensor<8xf32>
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf olt, %first, %zero : f32
    scf.condition(%p) %b : tensor<8xf32>
  } do {
  ^bb0(%c: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%c, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.addf %a, %b : f32
      linalg.yield %v : f32
    } -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// A temporary read once is overwritten; the function argument is not, and
// a temporary read again later is not.
// CHECK-LABEL: func.func @temporaries
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<8xf32>) outs(%[[T]] : tensor<8xf32>)
// CHECK: %[[V:.*]] = linalg.generic {{.*}} ins(%[[U]] : tensor<8xf32>) outs(%[[E:.*]] : tensor<8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[V]], %[[U]] : tensor<8xf32>, tensor<8xf32>) outs(%[[V]] : tensor<8xf32>)
func.func @temporaries(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%u : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %w = math.cos %a : f32
    linalg.yield %w : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%v, %u : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %w = arith.mulf %a, %b : f32
    linalg.yield %w : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// Each output of a multi-output generic takes its own dead input.
// CHECK-LABEL: func.func @two_outputs
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8xf32>, tensor<8xf32>) outs(%[[A]], %[[B]] : tensor<8xf32>, tensor<8xf32>)
func.func @two_outputs(%x: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %x) -> (tensor<8xf32>, tensor<8xf32>) {
    %e = tensor.empty() : tensor<8xf32>
    %s:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
    ^bb0(%u: f32, %v: f32, %o: f32, %p: f32):
      %w = arith.addf %u, %v : f32
      %z = arith.mulf %u, %v : f32
      linalg.yield %w, %z : f32, f32
    } -> (tensor<8xf32>, tensor<8xf32>)
    scf.yield %s#0, %s#1 : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// A carry stored into a stack before the update dies at the update; one read
// after it does not.
// CHECK-LABEL: func.func @stored_first
// CHECK: scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}})
// CHECK: tensor.insert_slice %[[C]] into %[[S]]
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<8xf32>) outs(%[[C]] : tensor<8xf32>)
// CHECK-LABEL: func.func @read_after
// CHECK: scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK-NOT: outs(%[[C]]
// CHECK: tensor.insert_slice %[[C]] into %[[S]]
func.func @stored_first(%x: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %stack = tensor.empty() : tensor<4x8xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%c = %x, %s = %stack) -> (tensor<8xf32>, tensor<4x8xf32>) {
    %kept = tensor.insert_slice %c into %s[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    %e = tensor.empty() : tensor<8xf32>
    %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %v = math.tanh %a : f32
      linalg.yield %v : f32
    } -> tensor<8xf32>
    scf.yield %t, %kept : tensor<8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<4x8xf32>
}
func.func @read_after(%x: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %stack = tensor.empty() : tensor<4x8xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%c = %x, %s = %stack) -> (tensor<8xf32>, tensor<4x8xf32>) {
    %e = tensor.empty() : tensor<8xf32>
    %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %v = math.tanh %a : f32
      linalg.yield %v : f32
    } -> tensor<8xf32>
    %kept = tensor.insert_slice %c into %s[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    scf.yield %t, %kept : tensor<8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<4x8xf32>
}
