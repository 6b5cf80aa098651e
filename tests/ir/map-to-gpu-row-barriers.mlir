// In a row group's thread block, a barrier follows an op only when the next
// one touches an element that another thread wrote (or writes one that
// another thread touched) since the last barrier, and at the end of a row.
// Thread 0 fills a row's scalar, folds the row's sum into it and derives
// another scalar from it: no barrier until every thread reads that scalar.
// The elementwise op that writes the row's temporary and the reduction that
// reads it stride over the same positions on the same threads: no barrier
// between them.
// RUN: adjit-opt %s --adjit-map-to-gpu --canonicalize | FileCheck %s

#matrix = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#vector = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @row_barriers
// CHECK: gpu.launch
// CHECK: scf.for
// The sum, then the scalar t = sum - 1: thread 0 alone.
// CHECK-NOT: gpu.barrier
// CHECK: gpu.all_reduce add
// CHECK-NOT: gpu.barrier
// CHECK: arith.subf
// Every thread reads t.
// CHECK: gpu.barrier
// CHECK: arith.mulf
// The row's temporary, then its sum: the same threads.
// CHECK-NOT: gpu.barrier
// CHECK: gpu.all_reduce add
// Every thread reads the sum.
// CHECK: gpu.barrier
// CHECK: arith.addf
// The end of the row.
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @row_barriers(%x: memref<64x512xf32>, %y: memref<64x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  scf.forall (%chunk) in (32) {
    %first_row = arith.muli %chunk, %c2 : index
    %s = memref.alloc() : memref<1xf32>
    %t = memref.alloc() : memref<1xf32>
    %q = memref.alloc() : memref<1xf32>
    %tmp = memref.alloc() : memref<1x512xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      %row = arith.addi %first_row, %i : index
      %x_row = memref.subview %x[%row, 0] [1, 512] [1, 1] : memref<64x512xf32> to memref<1x512xf32, strided<[512, 1], offset: ?>>
      %y_row = memref.subview %y[%row, 0] [1, 512] [1, 1] : memref<64x512xf32> to memref<1x512xf32, strided<[512, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%s : memref<1xf32>)
      linalg.generic {indexing_maps = [#matrix, #rows], iterator_types = ["parallel", "reduction"]}
          ins(%x_row : memref<1x512xf32, strided<[512, 1], offset: ?>>) outs(%s : memref<1xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %r = arith.addf %acc, %in fastmath<reassoc> : f32
        linalg.yield %r : f32
      }
      linalg.generic {indexing_maps = [#vector, #vector], iterator_types = ["parallel"]}
          ins(%s : memref<1xf32>) outs(%t : memref<1xf32>) {
      ^bb0(%in: f32, %out: f32):
        %r = arith.subf %in, %one : f32
        linalg.yield %r : f32
      }
      linalg.generic {indexing_maps = [#matrix, #rows, #matrix], iterator_types = ["parallel", "parallel"]}
          ins(%x_row, %t : memref<1x512xf32, strided<[512, 1], offset: ?>>, memref<1xf32>) outs(%tmp : memref<1x512xf32>) {
      ^bb0(%in: f32, %tr: f32, %out: f32):
        %r = arith.mulf %in, %tr : f32
        linalg.yield %r : f32
      }
      linalg.fill ins(%zero : f32) outs(%q : memref<1xf32>)
      linalg.generic {indexing_maps = [#matrix, #rows], iterator_types = ["parallel", "reduction"]}
          ins(%tmp : memref<1x512xf32>) outs(%q : memref<1xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %r = arith.addf %acc, %in fastmath<reassoc> : f32
        linalg.yield %r : f32
      }
      linalg.generic {indexing_maps = [#matrix, #rows, #matrix], iterator_types = ["parallel", "parallel"]}
          ins(%tmp, %q : memref<1x512xf32>, memref<1xf32>) outs(%y_row : memref<1x512xf32, strided<[512, 1], offset: ?>>) {
      ^bb0(%in: f32, %qr: f32, %out: f32):
        %r = arith.addf %in, %qr : f32
        linalg.yield %r : f32
      }
    }
    memref.dealloc %s : memref<1xf32>
    memref.dealloc %t : memref<1xf32>
    memref.dealloc %q : memref<1xf32>
    memref.dealloc %tmp : memref<1x512xf32>
  }
  return
}
