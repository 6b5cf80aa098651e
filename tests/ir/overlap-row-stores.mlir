// A row loop whose last pass only writes a row of a result runs that pass
// one row late inside the next row's heaviest pass, and once more for the
// last row after the loop. Left alone: a last pass that reads a buffer the
// body writes before its heaviest pass, that writes a temporary or a
// result the function also reads or another pass writes, that needs
// another pass's result, or whose steps differ from the heaviest pass's.
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-overlap-row-stores))" | FileCheck %s

// CHECK-LABEL: func.func @layer_norm_like
// CHECK-SAME: (%[[X:[^:]*]]: memref<64x1024xf32>, %[[OUT:[^:]*]]: memref<64x1024xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[SCALAR:.*]] = memref.alloc() : memref<1xf32>
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<1x1024xf32>
// CHECK: %[[TMP2:.*]] = memref.alloc() : memref<1x1024xf32>
// CHECK: scf.for %[[R:[^ ]*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// Before the heaviest pass, what the previous row's store pass needs: the
// scalar and the temporary are written only after the heaviest pass, so
// they still hold the previous row's values.
// CHECK: %[[PREV:.*]] = arith.subi %[[R]], %[[C1]] : index
// CHECK: %[[HAS_PREV:.*]] = arith.cmpi sgt, %[[R]], %[[C0]] : index
// CHECK: %[[PREV_S:.*]] = memref.load %[[SCALAR]][%[[C0]]]
// CHECK: %[[PREV_ROW:.*]] = memref.subview %[[OUT]][%[[PREV]], 0] [1, 1024] [1, 1]
// CHECK: scf.for %[[J:[^ ]*]] = {{.*}} iter_args
// CHECK: math.tanh
// CHECK: vector.transfer_write %{{.*}}, %[[TMP]][%[[C0]], %[[J]]]
// CHECK: scf.if %[[HAS_PREV]] {
// CHECK: %[[T:.*]] = vector.transfer_read %[[TMP2]][%[[C0]], %[[J]]]
// CHECK: %[[B:.*]] = vector.broadcast %[[PREV_S]]
// CHECK: %[[V:.*]] = arith.addf %[[T]], %[[B]]
// CHECK: vector.transfer_write %[[V]], %[[PREV_ROW]][%[[C0]], %[[J]]]
// CHECK: }
// CHECK: scf.yield
// CHECK: }
// The light pass after it, then the scalar; the store pass is gone.
// CHECK: vector.transfer_write %{{.*}}, %[[TMP2]]
// CHECK: memref.store %{{.*}}, %[[SCALAR]][%[[C0]]]
// CHECK-NOT: memref.load
// CHECK-NOT: memref.subview
// CHECK-NOT: vector.transfer_write
// CHECK: }
// The last row's store pass, after the loop.
// CHECK: %[[ANY:.*]] = arith.cmpi sgt, %[[C64]], %[[C0]] : index
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[LAST:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK: %[[LAST_S:.*]] = memref.load %[[SCALAR]][%[[C0]]]
// CHECK: %[[LAST_ROW:.*]] = memref.subview %[[OUT]][%[[LAST]], 0] [1, 1024] [1, 1]
// CHECK: scf.for
// CHECK: vector.broadcast %[[LAST_S]]
// CHECK: vector.transfer_write %{{.*}}, %[[LAST_ROW]]
// CHECK: return
func.func @layer_norm_like(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  %scalar = memref.alloc() : memref<1xf32>
  %tmp = memref.alloc() : memref<1x1024xf32>
  %tmp2 = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c32 iter_args(%acc = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      %u = arith.mulf %t, %t : vector<32xf32>
      %w = arith.addf %u, %v : vector<32xf32>
      vector.transfer_write %w, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
      %a = arith.addf %acc, %w : vector<32xf32>
      scf.yield %a : vector<32xf32>
    }
    %total = vector.reduction <add>, %sum : vector<32xf32> into f32
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      %b = vector.broadcast %total : f32 to vector<32xf32>
      %v = arith.mulf %t, %b : vector<32xf32>
      vector.transfer_write %v, %tmp2[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
    memref.store %total, %scalar[%c0] : memref<1xf32>
    %s = memref.load %scalar[%c0] : memref<1xf32>
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp2[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      %b = vector.broadcast %s : f32 to vector<32xf32>
      %v = arith.addf %t, %b : vector<32xf32>
      vector.transfer_write %v, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The light pass writes the temporary the store pass reads: the previous
// row's values are gone by the heaviest pass.
// CHECK-LABEL: func.func @clobbered_before_heaviest
// CHECK-NOT: scf.if
// CHECK: return
func.func @clobbered_before_heaviest(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      vector.transfer_write %v, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      %u = math.exp %t : vector<32xf32>
      vector.transfer_write %u, %xrow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      vector.transfer_write %t, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The heaviest pass writes the temporary the last pass reads.
// CHECK-LABEL: func.func @clobbered_in_heaviest
// CHECK-NOT: scf.if
// CHECK: return
func.func @clobbered_in_heaviest(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      vector.transfer_write %t, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      vector.transfer_write %t, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The last pass writes a temporary, not a result.
// CHECK-LABEL: func.func @writes_a_temporary
// CHECK-NOT: scf.if
// CHECK: return
func.func @writes_a_temporary(%x: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<1x1024xf32>
  %other = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      vector.transfer_write %t, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      vector.transfer_write %t, %other[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
  }
  return
}

// -----

// The result is read too (the last pass reads what it wrote last row).
// CHECK-LABEL: func.func @result_read_back
// CHECK-NOT: scf.if
// CHECK: return
func.func @result_read_back(%out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c1 to %c64 step %c1 {
    %prow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %prow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      vector.transfer_write %t, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      vector.transfer_write %t, %prow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The last pass needs the heaviest pass's result, which the previous row's
// step cannot have.
// CHECK-LABEL: func.func @needs_a_pass_result
// CHECK-NOT: scf.if
// CHECK: return
func.func @needs_a_pass_result(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %acc = scf.for %j = %c0 to %c1024 step %c32 iter_args(%a = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      %e = math.exp %t : vector<32xf32>
      %n = arith.addf %a, %e : vector<32xf32>
      scf.yield %n : vector<32xf32>
    }
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      vector.transfer_write %acc, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The last pass steps by 64, the heaviest by 32.
// CHECK-LABEL: func.func @other_steps
// CHECK-NOT: scf.if
// CHECK: return
func.func @other_steps(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      vector.transfer_write %t, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
    }
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c64 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<64xf32>
      vector.transfer_write %t, %orow[%c0, %j] {in_bounds = [true]} : vector<64xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The heaviest pass writes the same result (another row of it): the store
// pass must not move past it.
// CHECK-LABEL: func.func @result_written_twice
// CHECK-NOT: scf.if
// CHECK: return
func.func @result_written_twice(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %xrow = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %last = memref.subview %out[63, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: 64512>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %xrow[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      %u = math.exp %t : vector<32xf32>
      vector.transfer_write %u, %last[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: 64512>>
    }
    %orow = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %t = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      vector.transfer_write %t, %orow[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}
