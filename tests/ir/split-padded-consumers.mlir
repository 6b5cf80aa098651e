// adjit-split-padded-consumers: an elementwise generic that reads pads
// through the identity runs as one generic per box that the pads' edges
// cut, the largest first, reading each pad's source in place or using its
// padding value; cheap producers of the sources are computed again on
// slices. Pads read otherwise are lowered to a copy and fills.
// RUN: adjit-opt %s --adjit-split-padded-consumers -split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: adjit run %s --entry stencil_gradient --arg 'f32[5]=1,2,4,8,16' --arg 'f32[]=0.5' | FileCheck %s --check-prefix=RUN1
// RUN: adjit run %s --entry two_dimensions --arg 'f32[2,3]=iota' | FileCheck %s --check-prefix=RUN2

// The adjoint of x[1:] - x[:-1]: two pads of the same differences summed.
// The interior reads both sources at shifted offsets; each end reads one
// source and the padding value, which the body uses as a constant.
// CHECK-LABEL: func.func @shifted_sum
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[E:.*]] = tensor.empty() : tensor<5xf32>
// CHECK: %[[A0:.*]] = tensor.extract_slice %[[A]][0] [3] [1]
// CHECK: %[[B1:.*]] = tensor.extract_slice %[[B]][1] [3] [1]
// CHECK: %[[O1:.*]] = tensor.extract_slice %[[E]][1] [3] [1]
// CHECK: %[[MID:.*]] = linalg.generic {{.*}} ins(%[[A0]], %[[B1]] : tensor<3xf32>, tensor<3xf32>) outs(%[[O1]] : tensor<3xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[MID]] into %[[E]][1] [3] [1]
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[B]][0] [1] [1]
// CHECK: %[[O0:.*]] = tensor.extract_slice %[[R1]][0] [1] [1]
// CHECK: %[[LOW:.*]] = linalg.generic {{.*}} ins(%[[B0]] : tensor<1xf32>) outs(%[[O0]] : tensor<1xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[ZERO]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[R2:.*]] = tensor.insert_slice %[[LOW]] into %[[R1]][0] [1] [1]
// CHECK: %[[A3:.*]] = tensor.extract_slice %[[A]][3] [1] [1]
// CHECK: %[[HIGH:.*]] = linalg.generic {{.*}} ins(%[[A3]] : tensor<1xf32>)
// CHECK: %[[R3:.*]] = tensor.insert_slice %[[HIGH]] into %[[R2]][4] [1] [1]
// CHECK: return %[[R3]]
func.func @shifted_sum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %pa = tensor.pad %a low[1] high[0] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<5xf32>
  %pb = tensor.pad %b low[0] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%pa, %pb : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// A cheap producer of a pad's source is computed again on the slice each
// piece reads (so that fusion joins them), once per slice however many
// operands read it; the padding value from a tensor is used in the body as
// it is. A broadcast operand is sliced along the dimensions it has.
// CHECK-LABEL: func.func @recomputed_source
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[P:.*]]: tensor<f32>, %[[ROW:.*]]: tensor<4xf32>)
// CHECK: %[[V:.*]] = tensor.extract %[[P]][] : tensor<f32>
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[X]][0, 0] [2, 4] [1, 1]
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[X0]] : tensor<2x4xf32>)
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 4] [1, 1]
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[X1]] : tensor<2x4xf32>)
// CHECK: %[[MID:.*]] = linalg.generic {{.*}} ins(%[[D]], %[[U]], %[[D]], %[[ROW]] : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>)
// CHECK: tensor.insert_slice %[[MID]] into %{{.*}}[1, 0] [2, 4] [1, 1]
// CHECK: %[[X2:.*]] = tensor.extract_slice %[[X]][0, 0] [1, 4] [1, 1]
// CHECK: %[[U0:.*]] = linalg.generic {{.*}} ins(%[[X2]] : tensor<1x4xf32>)
// CHECK: %[[TOP:.*]] = linalg.generic {{.*}} ins(%[[U0]], %[[ROW]] : tensor<1x4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[V]], %[[B]] : f32
// CHECK-NEXT: %[[M2:.*]] = arith.mulf %[[M]], %[[V]] : f32
// CHECK-NEXT: arith.mulf %[[M2]], %[[R]] : f32
// CHECK: tensor.insert_slice %[[TOP]] into %{{.*}}[0, 0] [1, 4] [1, 1]
// CHECK: %[[X3:.*]] = tensor.extract_slice %[[X]][2, 0] [1, 4] [1, 1]
// CHECK: %[[D2:.*]] = linalg.generic {{.*}} ins(%[[X3]] : tensor<1x4xf32>)
// CHECK: %[[BOTTOM:.*]] = linalg.generic {{.*}} ins(%[[D2]], %[[D2]], %[[ROW]] : tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>)
// CHECK: tensor.insert_slice %[[BOTTOM]] into %{{.*}}[3, 0] [1, 4] [1, 1]
// CHECK-NOT: linalg.generic
func.func @recomputed_source(%x: tensor<3x4xf32>, %p: tensor<f32>, %row: tensor<4xf32>) -> tensor<4x4xf32> {
  %v = tensor.extract %p[] : tensor<f32>
  %e3 = tensor.empty() : tensor<3x4xf32>
  %twice = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e3 : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  %down = tensor.pad %twice low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<3x4xf32> to tensor<4x4xf32>
  %up = tensor.pad %twice low[0, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<3x4xf32> to tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%down, %up, %down, %row : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>)
      outs(%e4 : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %r: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %m2 = arith.mulf %m, %c : f32
    %m3 = arith.mulf %m2, %r : f32
    linalg.yield %m3 : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Pads in two dimensions cut 3 x 3 boxes; the largest (rows 1-2, columns
// 1-2) comes first.
// CHECK-LABEL: func.func @two_pads_two_dimensions
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2xf32>)
// CHECK: tensor.insert_slice %[[FIRST]] into %{{.*}}[1, 1] [2, 2] [1, 1]
// CHECK-COUNT-8: tensor.insert_slice
// CHECK-NOT: tensor.insert_slice
func.func @two_pads_two_dimensions(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %pa = tensor.pad %a low[1, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<3x3xf32> to tensor<4x4xf32>
  %pb = tensor.pad %b low[0, 0] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<3x3xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%pa, %pb : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Negative: a pad read transposed, by a reduction, or returned is not
// split; it is lowered to its source copied into an empty tensor and the
// slabs around it filled.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tensor.pad
// CHECK: %[[V:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[I:.*]] = tensor.insert_slice %{{.*}} into %[[E]][1, 0] [2, 3] [1, 1]
// CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : f32) outs(%{{.*}} : tensor<1x3xf32>)
// CHECK: %[[P:.*]] = tensor.insert_slice %[[F]] into %[[I]][0, 0] [1, 3] [1, 1]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, {{.*}}} ins(%[[P]] : tensor<3x3xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<3x3xf32>)
// CHECK: return %{{.*}}, %{{.*}}, %[[P]]
func.func @kept(%x: tensor<2x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<3x3xf32>) {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %one : f32
  } : tensor<2x3xf32> to tensor<3x3xf32>
  %e = tensor.empty() : tensor<3x3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<3x3xf32>) outs(%e1 : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<3xf32>
  return %t, %s, %p : tensor<3x3xf32>, tensor<3xf32>, tensor<3x3xf32>
}

// -----

// Negative: a loop's new carry stays one generic (which may then overwrite
// the old carry in place); its pad is lowered.
// CHECK-LABEL: func.func @loop_carry
// CHECK: scf.for
// CHECK: tensor.insert_slice
// CHECK: linalg.fill
// CHECK: %[[NEXT:.*]] = linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: scf.yield %[[NEXT]]
func.func @loop_carry(%x: tensor<4xf32>, %c0: tensor<5xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %step = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %step iter_args(%c = %c0) -> tensor<5xf32> {
    %p = tensor.pad %x low[1] high[0] {
    ^bb0(%j: index):
      tensor.yield %zero : f32
    } : tensor<4xf32> to tensor<5xf32>
    %e = tensor.empty() : tensor<5xf32>
    %next = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                            iterator_types = ["parallel"]}
        ins(%p, %c : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<5xf32>
    scf.yield %next : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}

// -----

// A producer whose pads one consumer reads many times is computed once:
// recomputing it for each of the four slices would repeat its five loads
// and six ops per element three more times (adjit-fuse-elementwise's cost
// rule), where slices of its result are read from the cache (the 5-point
// Laplacian's gradient at 1024 x 1024: 1.66x faster).
// CHECK-LABEL: func.func @stencil_of_five_reads
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32>
// CHECK: %[[L:.*]] = linalg.generic {{.*}} ins(%[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: tensor.pad
// CHECK-NOT: tensor.extract_slice %[[A]]
// CHECK: tensor.extract_slice %[[L]][0] [1] [1]
// CHECK-NOT: tensor.extract_slice %[[A]]
// CHECK: tensor.extract_slice %[[L]][3] [1] [1]
// CHECK-NOT: tensor.extract_slice %[[A]]
// CHECK: return
func.func @stencil_of_five_reads(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<7xf32> {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b, %c, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%e4 : tensor<4xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %x4: f32, %out: f32):
    %m = arith.mulf %x4, %four : f32
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.addf %s0, %x2 : f32
    %s2 = arith.addf %s1, %x3 : f32
    %s3 = arith.subf %s2, %m : f32
    %s4 = arith.addf %s3, %s3 : f32
    linalg.yield %s4 : f32
  } -> tensor<4xf32>
  %p0 = tensor.pad %l low[0] high[3] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<7xf32>
  %p1 = tensor.pad %l low[1] high[2] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<7xf32>
  %p2 = tensor.pad %l low[2] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<7xf32>
  %p3 = tensor.pad %l low[3] high[0] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<7xf32>
  %e7 = tensor.empty() : tensor<7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%p0, %p1, %p2, %p3 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>)
      outs(%e7 : tensor<7xf32>) {
  ^bb0(%y0: f32, %y1: f32, %y2: f32, %y3: f32, %out: f32):
    %t0 = arith.addf %y0, %y1 : f32
    %t1 = arith.addf %t0, %y2 : f32
    %t2 = arith.addf %t1, %y3 : f32
    linalg.yield %t2 : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

// Numbers through the whole pipeline: the adjoint of x[1:] - x[:-1] at
// x = 1, 2, 4, 8, 16, d[i-1] - d[i] for the differences d = 1, 2, 4, 8,
// with the second pad's padding value 0.5 (instead of 0) at its end.
// RUN1: out0 = f32[5] [-1, -1, -2, -4, 8.5]
func.func @stencil_gradient(%x: tensor<5xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  %hi = adjit.slice %x, start = [1], limit = [5], stride = [1] : (tensor<5xf32>) -> tensor<4xf32>
  %lo = adjit.slice %x, start = [0], limit = [4], stride = [1] : (tensor<5xf32>) -> tensor<4xf32>
  %d = adjit.sub %hi, %lo : tensor<4xf32>
  %n = adjit.neg %d : tensor<4xf32>
  %zero = adjit.constant dense<0.0> : tensor<f32>
  %pd = adjit.pad %d, %zero, low = [1], high = [0], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
  %pn = adjit.pad %n, %v, low = [0], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
  %g = adjit.add %pd, %pn : tensor<5xf32>
  return %g : tensor<5xf32>
}

// Pads along both dimensions of x = [[0, 1, 2], [3, 4, 5]]: the sum of x
// moved down one row and of x moved right one column, in 3 x 4.
// RUN2: out0 = f32[3,4] {{\[\[}}0, 0, 1, 2], [0, 4, 6, 5], [3, 4, 5, 0]]
func.func @two_dimensions(%x: tensor<2x3xf32>) -> tensor<3x4xf32> {
  %zero = adjit.constant dense<0.0> : tensor<f32>
  %down = adjit.pad %x, %zero, low = [1, 0], high = [0, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
  %right = adjit.pad %x, %zero, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
  %s = adjit.add %down, %right : tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}
