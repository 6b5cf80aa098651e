// A row loop whose first pass only reduces rows of a buffer that the loop
// never writes runs that pass one row early, inside the previous row's
// heaviest pass, narrowed to its steps; the row loop carries the sums, and
// the first row's are computed before it. Left alone: a first pass that
// writes memory, one that reads a buffer the row loop writes, a wider pass
// whose sums go elsewhere than to a reduction or to one that may not
// reassociate, and steps that do not divide.
// RUN: adjit-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(adjit-overlap-row-reductions))" | FileCheck %s

// CHECK-LABEL: func.func @layer_norm_like
// CHECK-SAME: (%[[X:[^:]*]]: memref<64x1024xf32>, %[[OUT:[^:]*]]: memref<64x1024xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// The first row's sums, before the loop, in steps of 32.
// CHECK: %[[ANY:.*]] = arith.cmpi sgt, %[[C64]], %[[C0]] : index
// CHECK: %[[FIRST:.*]] = scf.if %[[ANY]] -> (vector<32xf32>) {
// CHECK: %[[ROW0:.*]] = memref.subview %[[X]][%[[C0]], 0] [1, 1024] [1, 1]
// CHECK: %[[SUM0:.*]] = scf.for %[[J0:[^ ]*]] = %{{.*}} to %{{.*}} step %[[C32]] iter_args(%[[A0:.*]] = %[[ZERO32:.*]]) -> (vector<32xf32>) {
// CHECK: %[[V0:.*]] = vector.transfer_read %[[ROW0]][%[[C0]], %[[J0]]], %{{.*}} {in_bounds = [true]} : {{.*}}, vector<32xf32>
// CHECK: %[[S0:.*]] = arith.addf %[[A0]], %[[V0]] fastmath<reassoc> : vector<32xf32>
// CHECK: scf.yield %[[S0]] : vector<32xf32>
// CHECK: scf.yield %[[SUM0]] : vector<32xf32>
// CHECK: } else {
// CHECK: scf.yield %[[ZERO32]] : vector<32xf32>
// CHECK: scf.for %[[R:[^ ]*]] = %[[C0]] to %[[C64]] step %[[C1]] iter_args(%[[SUM:.*]] = %[[FIRST]]) -> (vector<32xf32>) {
// The row's own sums come from the loop: its pass is gone.
// CHECK-NOT: scf.for
// CHECK: %[[TOTAL:.*]] = vector.reduction <add>, %[[SUM]] fastmath<reassoc> : vector<32xf32> into f32
// CHECK: %[[MEAN:.*]] = arith.divf %[[TOTAL]]
// The next row, or this one in the last iteration.
// CHECK: %[[AFTER:.*]] = arith.addi %[[R]], %[[C1]] : index
// CHECK: %[[HAS:.*]] = arith.cmpi slt, %[[AFTER]], %[[C64]] : index
// CHECK: %[[NEXT:.*]] = arith.select %[[HAS]], %[[AFTER]], %[[R]] : index
// CHECK: %[[NEXT_ROW:.*]] = memref.subview %[[X]][%[[NEXT]], 0] [1, 1024] [1, 1]
// CHECK: %{{.*}}:2 = scf.for %[[J:[^ ]*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[A:.*]] = %[[ZERO32]]) -> (vector<32xf32>, vector<32xf32>) {
// CHECK: math.tanh
// CHECK: %[[V:.*]] = vector.transfer_read %[[NEXT_ROW]][%[[C0]], %[[J]]], %{{.*}} {in_bounds = [true]} : {{.*}}, vector<32xf32>
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[V]] fastmath<reassoc> : vector<32xf32>
// CHECK: scf.yield %{{.*}}, %[[S]] : vector<32xf32>, vector<32xf32>
// CHECK: scf.yield %{{.*}}#1 : vector<32xf32>
// CHECK: return
func.func @layer_norm_like(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %init64 = arith.constant dense<0.0> : vector<64xf32>
  %init = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c64 iter_args(%a = %init64) -> (vector<64xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<64xf32>
      %s = arith.addf %a, %v fastmath<reassoc> : vector<64xf32>
      scf.yield %s : vector<64xf32>
    }
    %total = vector.reduction <add>, %sum fastmath<reassoc> : vector<64xf32> into f32
    %mean = arith.divf %total, %n : f32
    %out_row = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %acc = scf.for %j = %c0 to %c1024 step %c32 iter_args(%a = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %m = vector.broadcast %mean : f32 to vector<32xf32>
      %c = arith.subf %v, %m : vector<32xf32>
      %t = math.tanh %c : vector<32xf32>
      %s = arith.addf %a, %t fastmath<reassoc> : vector<32xf32>
      vector.transfer_write %t, %out_row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
      scf.yield %s : vector<32xf32>
    }
  }
  return
}

// -----

// Steps equal: nothing to narrow, and the sums may go anywhere.
// CHECK-LABEL: func.func @same_steps
// CHECK: %[[FIRST:.*]] = scf.if
// CHECK: scf.for %{{.*}} iter_args(%[[SUM:.*]] = %[[FIRST]]) -> (vector<32xf32>) {
// CHECK: arith.mulf %[[SUM]], %[[SUM]] : vector<32xf32>
// CHECK: arith.select
// CHECK: %[[RESULT:.*]] = scf.for
// CHECK: scf.yield %[[RESULT]] : vector<32xf32>
func.func @same_steps(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c32 iter_args(%a = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %s = arith.addf %a, %v : vector<32xf32>
      scf.yield %s : vector<32xf32>
    }
    %square = arith.mulf %sum, %sum : vector<32xf32>
    %out_row = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %c = arith.mulf %v, %square : vector<32xf32>
      %t = math.tanh %c : vector<32xf32>
      vector.transfer_write %t, %out_row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// The first pass reads the row that the loop writes: reading it a row
// early would read it before it is written.
// CHECK-LABEL: func.func @reads_what_the_loop_writes
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %{{.*}} step %{{.*}} iter_args
// CHECK: vector.reduction
func.func @reads_what_the_loop_writes(%x: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c32 iter_args(%a = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %s = arith.addf %a, %v fastmath<reassoc> : vector<32xf32>
      scf.yield %s : vector<32xf32>
    }
    %total = vector.reduction <add>, %sum fastmath<reassoc> : vector<32xf32> into f32
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %m = vector.broadcast %total : f32 to vector<32xf32>
      %c = arith.subf %v, %m : vector<32xf32>
      %t = math.tanh %c : vector<32xf32>
      vector.transfer_write %t, %row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}

// -----

// A first pass that writes (a temporary) is no pure reduction.
// CHECK-LABEL: func.func @first_pass_writes
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %{{.*}} step %{{.*}} iter_args
// CHECK: vector.transfer_write
// CHECK: vector.reduction
func.func @first_pass_writes(%x: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<32xf32>
  %tmp = memref.alloc() : memref<1x1024xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c32 iter_args(%a = %init) -> (vector<32xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      vector.transfer_write %v, %tmp[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32>
      %s = arith.addf %a, %v fastmath<reassoc> : vector<32xf32>
      scf.yield %s : vector<32xf32>
    }
    %total = vector.reduction <add>, %sum fastmath<reassoc> : vector<32xf32> into f32
    %out_row = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %tmp[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32>, vector<32xf32>
      %m = vector.broadcast %total : f32 to vector<32xf32>
      %c = arith.subf %v, %m : vector<32xf32>
      %t = math.tanh %c : vector<32xf32>
      vector.transfer_write %t, %out_row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  memref.dealloc %tmp : memref<1x1024xf32>
  return
}

// -----

// Narrowing would sum in another order: left alone where the reduction
// may not reassociate, and where the sums go to something else than a
// reduction.
// CHECK-LABEL: func.func @narrowing_not_allowed
// CHECK-NOT: scf.if
// CHECK: vector<64xf32>
// CHECK: vector<64xf32>
func.func @narrowing_not_allowed(%x: memref<64x1024xf32>, %y: memref<64x1024xf32>,
                                 %out: memref<64x1024xf32>, %sums: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %init64 = arith.constant dense<0.0> : vector<64xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c64 iter_args(%a = %init64) -> (vector<64xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<64xf32>
      %s = arith.addf %a, %v : vector<64xf32>
      scf.yield %s : vector<64xf32>
    }
    %total = vector.reduction <add>, %sum : vector<64xf32> into f32
    %out_row = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %m = vector.broadcast %total : f32 to vector<32xf32>
      %c = arith.subf %v, %m : vector<32xf32>
      %t = math.tanh %c : vector<32xf32>
      vector.transfer_write %t, %out_row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %y[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    %sum = scf.for %j = %c0 to %c1024 step %c64 iter_args(%a = %init64) -> (vector<64xf32>) {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<64xf32>
      %s = arith.addf %a, %v fastmath<reassoc> : vector<64xf32>
      scf.yield %s : vector<64xf32>
    }
    vector.transfer_write %sum, %sums[%r, %c0] {in_bounds = [true]} : vector<64xf32>, memref<64x64xf32>
    %out_row = memref.subview %out[%r, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    scf.for %j = %c0 to %c1024 step %c32 {
      %v = vector.transfer_read %row[%c0, %j], %zero {in_bounds = [true]} : memref<1x1024xf32, strided<[1024, 1], offset: ?>>, vector<32xf32>
      %t = math.tanh %v : vector<32xf32>
      vector.transfer_write %t, %out_row[%c0, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x1024xf32, strided<[1024, 1], offset: ?>>
    }
  }
  return
}
