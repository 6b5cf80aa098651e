// adjit-plan-buffers: a top-level temporary of static size gets an offset
// in the function's arena and lives from just before its first use (a view
// of it counts) to just after its last use (a use inside a loop counts as
// the loop); temporaries live at the same time never overlap, and a dead
// one's bytes serve those made later. One of run-time size is allocated
// and freed at those points instead; temporaries it cannot follow keep
// their place.
// RUN: adjit-opt %s -split-input-file --adjit-plan-buffers | FileCheck %s

// %a dies at the copy into %b; %c is made after that and takes %a's bytes.
// Upstream deallocation freed all three at the end.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:  %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK:       arith.constant 1024
// CHECK-NEXT:  %[[A:.*]] = adjit.arena_buffer %[[ARENA]][0] : memref<8192xi8> to memref<1024xf32>
// CHECK-NEXT:  linalg.fill {{.*}} outs(%[[A]]
// CHECK-NEXT:  %[[B:.*]] = adjit.arena_buffer %[[ARENA]][4096] : memref<8192xi8> to memref<1024xf32>
// CHECK-NEXT:  linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT:  adjit.arena_release %[[A]]
// CHECK-NEXT:  %[[C:.*]] = adjit.arena_buffer %[[ARENA]][0] : memref<8192xi8> to memref<1024xf32>
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[SB:.*]] = memref.subview %[[B]]
// CHECK-NEXT:    %[[SC:.*]] = memref.subview %[[C]]
// CHECK-NEXT:    linalg.copy ins(%[[SB]] {{.*}} outs(%[[SC]]
// CHECK-NEXT:  }
// CHECK-NEXT:  adjit.arena_release %[[B]]
// CHECK-NEXT:  linalg.copy ins(%[[C]] {{.*}} outs(%arg0
// CHECK-NEXT:  adjit.arena_release %[[C]]
// CHECK-NEXT:  memref.dealloc %[[ARENA]]
// CHECK-NEXT:  return
func.func @chain(%out: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<1024xf32>)
  linalg.copy ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>)
  scf.for %i = %c0 to %c1024 step %c256 {
    %sb = memref.subview %b[%i] [256] [1] : memref<1024xf32> to memref<256xf32, strided<[1], offset: ?>>
    %sc = memref.subview %c[%i] [256] [1] : memref<1024xf32> to memref<256xf32, strided<[1], offset: ?>>
    linalg.copy ins(%sb : memref<256xf32, strided<[1], offset: ?>>) outs(%sc : memref<256xf32, strided<[1], offset: ?>>)
  }
  linalg.copy ins(%c : memref<1024xf32>) outs(%out : memref<1024xf32>)
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  memref.dealloc %c : memref<1024xf32>
  return
}

// -----

// A view made at the top level counts as a use: the buffer is allocated
// before it. A buffer of run-time size is not in the arena: its own
// allocation moves instead.
// CHECK-LABEL: func.func @views
// CHECK:       arith.constant
// CHECK-NEXT:  %[[A:.*]] = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT:  %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT:  linalg.fill {{.*}} outs(%[[V]]
// CHECK-NEXT:  linalg.copy ins(%[[V]]
// CHECK-NEXT:  memref.dealloc %[[A]]
// CHECK-NEXT:  return
func.func @views(%out: memref<4xf32>, %n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  %v = memref.subview %a[0] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1]>>
  linalg.fill ins(%zero : f32) outs(%v : memref<4xf32, strided<[1]>>)
  linalg.copy ins(%v : memref<4xf32, strided<[1]>>) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// Greedy by size: the largest buffer (%b) is placed first, at 0; %c, live
// with it, above it; %a, live with %b only, above %b too (where %c will be
// later); %d, live with %c only, in the gap %b leaves once dead. The arena
// is 6144 bytes, the most bytes live at once.
// CHECK-LABEL: func.func @sizes
// CHECK-NEXT:  %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<6144xi8>
// CHECK:       %[[A:.*]] = adjit.arena_buffer %[[ARENA]][4096] : memref<6144xi8> to memref<256xf32>
// CHECK:       %[[B:.*]] = adjit.arena_buffer %[[ARENA]][0] : memref<6144xi8> to memref<1024xf32>
// CHECK:       memref.load %[[A]]
// CHECK-NEXT:  adjit.arena_release %[[A]]
// CHECK-NEXT:  %[[C:.*]] = adjit.arena_buffer %[[ARENA]][4096] : memref<6144xi8> to memref<512xf32>
// CHECK:       memref.load %[[B]]
// CHECK-NEXT:  adjit.arena_release %[[B]]
// CHECK-NEXT:  %[[D:.*]] = adjit.arena_buffer %[[ARENA]][0] : memref<6144xi8> to memref<256xf32>
func.func @sizes(%out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<1024xf32>
  %c = memref.alloc() : memref<512xf32>
  %d = memref.alloc() : memref<256xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<256xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<1024xf32>)
  %va = memref.load %a[%c0] : memref<256xf32>
  linalg.fill ins(%va : f32) outs(%c : memref<512xf32>)
  %vb = memref.load %b[%c0] : memref<1024xf32>
  linalg.fill ins(%vb : f32) outs(%d : memref<256xf32>)
  %vc = memref.load %c[%c0] : memref<512xf32>
  %vd = memref.load %d[%c0] : memref<256xf32>
  %sum = arith.addf %vc, %vd : f32
  memref.store %sum, %out[] : memref<f32>
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<1024xf32>
  memref.dealloc %c : memref<512xf32>
  memref.dealloc %d : memref<256xf32>
  return
}

// -----

// An alignment above a cache line that an allocation asks for is kept, and
// the arena itself gets it; the 4-byte buffer, needing only 4, goes just
// above the other.
// CHECK-LABEL: func.func @aligned
// CHECK-NEXT:  %[[ARENA:.*]] = memref.alloc() {alignment = 128 : i64} : memref<128xi8>
// CHECK:       adjit.arena_buffer %[[ARENA]][64] : memref<128xi8> to memref<1xf32>
// CHECK:       adjit.arena_buffer %[[ARENA]][0] : memref<128xi8> to memref<16xf32>
func.func @aligned(%out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<1xf32>
  %b = memref.alloc() {alignment = 128 : i64} : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<1xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<16xf32>)
  %va = memref.load %a[%c0] : memref<1xf32>
  %vb = memref.load %b[%c0] : memref<16xf32>
  %sum = arith.addf %va, %vb : f32
  memref.store %sum, %out[] : memref<f32>
  memref.dealloc %a : memref<1xf32>
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

// Left in place: a buffer passed to a call (the callee might keep it), one
// a loop carries out as its result, one freed inside a branch, and a
// parallel chunk's own temporary.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:  %[[CALLED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:  %[[CARRIED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:  %[[BRANCH:.*]] = memref.alloc() : memref<4xf32>
// CHECK:       scf.forall
// CHECK-NEXT:    %[[CHUNK:.*]] = memref.alloc() : memref<4xf32>
func.func private @keep(memref<4xf32>)
func.func @kept(%c: i1, %n: index) {
  %called = memref.alloc() : memref<4xf32>
  %carried = memref.alloc() : memref<4xf32>
  %branch = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  func.call @keep(%called) : (memref<4xf32>) -> ()
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %carried) -> (memref<4xf32>) {
    scf.yield %x : memref<4xf32>
  }
  func.call @keep(%r) : (memref<4xf32>) -> ()
  scf.if %c {
    memref.dealloc %branch : memref<4xf32>
  }
  scf.forall (%j) in (2) {
    %chunk = memref.alloc() : memref<4xf32>
    memref.dealloc %chunk : memref<4xf32>
  }
  memref.dealloc %called : memref<4xf32>
  memref.dealloc %carried : memref<4xf32>
  return
}
