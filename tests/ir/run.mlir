// End to end through the driver: parse, every pipeline stage, ORC JIT, run on
// arrays given on the command line. Every expected value is exact.
// RUN: adjit run %s --entry add --arg 'f32[3]=1,2,3' --arg 'f32[3]=10,20,30.5' | FileCheck %s --check-prefix=ADD
// RUN: adjit run %s --entry iota | FileCheck %s --check-prefix=IOTA
// RUN: adjit run %s --entry argmax --arg 'f32[3,4]=1,5,5,2,nan,3,nan,9,-inf,-inf,-inf,-inf' --arg 'i32[5]=-3,7,-9,7,0' | FileCheck %s --check-prefix=ARGMAX
// RUN: adjit run %s --entry slice --arg 'i64[3,4]=iota' | FileCheck %s --check-prefix=SLICE
// RUN: adjit run %s --entry concatenate --arg 'f32[2,2]=1,2,3,4' --arg 'f32[1,2]=5,6' | FileCheck %s --check-prefix=CONCAT
// RUN: adjit run %s --entry gather --arg 'i32[4,2]=iota' --arg 'i32[2,2]=3,-1,7,1' | FileCheck %s --check-prefix=GATHER
// RUN: adjit run %s --entry reduce_int --arg 'i32[2,3]=1,2,3,4,5,6' | FileCheck %s --check-prefix=REDUCE
// RUN: adjit run %s --entry scatter_add --arg 'i32[4,2]=zeros' --arg 'i64[5]=0,3,0,-9,99' --arg 'i32[5,2]=1,2,3,4,5,6,7,8,9,10' | FileCheck %s --check-prefix=SCATTER
// RUN: adjit run %s --entry pad --arg 'i32[2,2]=1,2,3,4' --arg 'i32[]=9' | FileCheck %s --check-prefix=PAD
// RUN: adjit run %s --entry transpose --arg 'i64[2,3]=iota' | FileCheck %s --check-prefix=TRANSPOSE
// RUN: adjit run %s --entry broadcast --arg 'f64[2]=1.5,-2' | FileCheck %s --check-prefix=BROADCAST
// RUN: adjit run %s --entry matmul --arg 'i32[2,3]=1,2,3,4,5,6' --arg 'i32[3,2]=1,0,0,1,1,1' | FileCheck %s --check-prefix=MATMUL
// RUN: adjit run %s --entry batch_matmul --arg 'f32[2,1,2]=1,2,3,4' --arg 'f32[2,2,1]=5,6,7,8' | FileCheck %s --check-prefix=BMM
// RUN: adjit run %s --entry convert --arg 'f32[8]=-2.7,2.7,3e9,-3e9,nan,inf,-inf,-0.0' | FileCheck %s --check-prefix=CONVERT
// RUN: adjit run %s --entry integer_ops --arg 'i32[4]=-7,7,2,-2' --arg 'i32[4]=2,-2,10,3' | FileCheck %s --check-prefix=INT
// RUN: adjit run %s --entry compare_select --arg 'f32[4]=nan,-0.0,-3,2.5' --arg 'f32[4]=1,0,-3,nan' | FileCheck %s --check-prefix=CMP
// RUN: adjit run %s --entry empty_reduce --arg 'f32[2,0]=zeros' --arg 'i32[0]=zeros' | FileCheck %s --check-prefix=EMPTY
// RUN: adjit run %s --entry half --arg 'f16[3]=1,2,65504' --arg 'bf16[2]=1,256' | FileCheck %s --check-prefix=HALF
// RUN: adjit run %s --entry constants | FileCheck %s --check-prefix=CONST
// RUN: adjit run %s --entry relu --arg 'f32[70]=-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf,-1.5,-0.0,0,2.5,nan,-inf,inf' --arg 'i64[3]=-3,0,4' | FileCheck %s --check-prefix=RELU
// RUN: adjit run %s --entry integer_pow --arg 'f32[6]=-1.5,0,-0.0,2,inf,nan' --arg 'i32[3]=3,-2,7' --arg 'f16[2]=2,300' | FileCheck %s --check-prefix=IPOW

// ADD: out0 = f32[3] [11, 22, 33.5]
func.func @add(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = adjit.add %x, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// IOTA: out0 = i32[2,3] {{\[\[}}0, 1, 2], [0, 1, 2]]
// IOTA-NEXT: out1 = f64[4] [0, 1, 2, 3]
// IOTA-NEXT: out2 = i64[3,2] {{\[\[}}0, 0], [1, 1], [2, 2]]
func.func @iota() -> (tensor<2x3xi32>, tensor<4xf64>, tensor<3x2xi64>) {
  %0 = adjit.iota dim = 1 : tensor<2x3xi32>
  %1 = adjit.iota dim = 0 : tensor<4xf64>
  %2 = adjit.iota dim = 0 : tensor<3x2xi64>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<4xf64>, tensor<3x2xi64>
}

// Ties keep the first index, the first NaN wins, all -inf gives 0.
// ARGMAX: out0 = i64[3] [1, 0, 0]
// ARGMAX-NEXT: out1 = i32[] 1
func.func @argmax(%x: tensor<3x4xf32>, %i: tensor<5xi32>) -> (tensor<3xi64>, tensor<i32>) {
  %0 = adjit.argmax %x, axis = 1 : (tensor<3x4xf32>) -> tensor<3xi64>
  %1 = adjit.argmax %i, axis = 0 : (tensor<5xi32>) -> tensor<i32>
  return %0, %1 : tensor<3xi64>, tensor<i32>
}

// x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
// SLICE: out0 = i64[2,2] {{\[\[}}1, 3], [9, 11]]
// SLICE-NEXT: out1 = i64[1,4] {{\[\[}}4, 5, 6, 7]]
func.func @slice(%x: tensor<3x4xi64>) -> (tensor<2x2xi64>, tensor<1x4xi64>) {
  %0 = adjit.slice %x, start = [0, 1], limit = [3, 4], stride = [2, 2] : (tensor<3x4xi64>) -> tensor<2x2xi64>
  %1 = adjit.slice %x, start = [1, 0], limit = [2, 4], stride = [1, 1] : (tensor<3x4xi64>) -> tensor<1x4xi64>
  return %0, %1 : tensor<2x2xi64>, tensor<1x4xi64>
}

// CONCAT: out0 = f32[3,2] {{\[\[}}1, 2], [3, 4], [5, 6]]
// CONCAT-NEXT: out1 = f32[2,4] {{\[\[}}1, 2, 1, 2], [3, 4, 3, 4]]
func.func @concatenate(%a: tensor<2x2xf32>, %b: tensor<1x2xf32>) -> (tensor<3x2xf32>, tensor<2x4xf32>) {
  %0 = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %1 = adjit.concatenate(%a, %a) dim = 1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<2x4xf32>
}

// Out-of-range indices are clamped: -1 reads row 0, 7 reads row 3.
// GATHER: out0 = i32[2,2,2] {{\[\[\[}}6, 7], [0, 1]], {{\[\[}}6, 7], [2, 3]]]
// GATHER-NEXT: out1 = i32[4,2] {{\[\[}}1, 1], [3, 3], [5, 5], [7, 7]]
func.func @gather(%t: tensor<4x2xi32>, %i: tensor<2x2xi32>) -> (tensor<2x2x2xi32>, tensor<4x2xi32>) {
  %0 = adjit.gather %t[%i], axis = 0 : (tensor<4x2xi32>, tensor<2x2xi32>) -> tensor<2x2x2xi32>
  %one = adjit.constant dense<[1, 1]> : tensor<2xi32>
  %1 = adjit.gather %t[%one], axis = 1 : (tensor<4x2xi32>, tensor<2xi32>) -> tensor<4x2xi32>
  return %0, %1 : tensor<2x2x2xi32>, tensor<4x2xi32>
}

// REDUCE: out0 = i32[2] [6, 15]
// REDUCE-NEXT: out1 = i32[3] [4, 5, 6]
// REDUCE-NEXT: out2 = i32[] 1
// REDUCE-NEXT: out3 = i32[] 21
func.func @reduce_int(%x: tensor<2x3xi32>) -> (tensor<2xi32>, tensor<3xi32>, tensor<i32>, tensor<i32>) {
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
  %1 = adjit.reduce max %x, dims = [0] : (tensor<2x3xi32>) -> tensor<3xi32>
  %2 = adjit.reduce min %x, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<i32>
  %3 = adjit.reduce sum %x, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<i32>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<3xi32>, tensor<i32>, tensor<i32>
}

// Repeated indices accumulate; indices are clamped like gather's.
// SCATTER: out0 = i32[4,2] {{\[\[}}13, 16], [0, 0], [0, 0], [12, 14]]
func.func @scatter_add(%b: tensor<4x2xi32>, %i: tensor<5xi64>, %u: tensor<5x2xi32>) -> tensor<4x2xi32> {
  %0 = adjit.scatter_add %u into %b[%i], axis = 0 : (tensor<4x2xi32>, tensor<5xi64>, tensor<5x2xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// PAD: out0 = i32[4,4] {{\[\[}}9, 9, 9, 9], [1, 2, 9, 9], [9, 9, 9, 9], [3, 4, 9, 9]]
func.func @pad(%x: tensor<2x2xi32>, %z: tensor<i32>) -> tensor<4x4xi32> {
  %0 = adjit.pad %x, %z, low = [1, 0], high = [0, 2], interior = [1, 0] : (tensor<2x2xi32>, tensor<i32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// TRANSPOSE: out0 = i64[3,2] {{\[\[}}0, 3], [1, 4], [2, 5]]
func.func @transpose(%x: tensor<2x3xi64>) -> tensor<3x2xi64> {
  %0 = adjit.transpose %x, perm = [1, 0] : (tensor<2x3xi64>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// BROADCAST: out0 = f64[2,3] {{\[\[}}1.5, 1.5, 1.5], [-2, -2, -2]]
// BROADCAST-NEXT: out1 = f64[3,2] {{\[\[}}1.5, -2], [1.5, -2], [1.5, -2]]
func.func @broadcast(%x: tensor<2xf64>) -> (tensor<2x3xf64>, tensor<3x2xf64>) {
  %0 = adjit.broadcast_in_dim %x, dims = [0] : (tensor<2xf64>) -> tensor<2x3xf64>
  %1 = adjit.broadcast_in_dim %x, dims = [1] : (tensor<2xf64>) -> tensor<3x2xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<3x2xf64>
}

// MATMUL: out0 = i32[2,2] {{\[\[}}4, 5], [10, 11]]
func.func @matmul(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// BMM: out0 = f32[2,1,1] {{\[\[\[}}17]], {{\[\[}}53]]]
func.func @batch_matmul(%a: tensor<2x1x2xf32>, %b: tensor<2x2x1xf32>) -> tensor<2x1x1xf32> {
  %0 = adjit.dot_general %a, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// Truncation toward zero, saturation, NaN -> 0; to i1 is x != 0.
// CONVERT: out0 = i32[8] [-2, 2, 2147483647, -2147483648, 0, 2147483647, -2147483648, 0]
// CONVERT-NEXT: out1 = i64[8] [-2, 2, 3000000000, -3000000000, 0, 9223372036854775807, -9223372036854775808, 0]
// CONVERT-NEXT: out2 = i1[8] [true, true, true, true, true, true, true, false]
// CONVERT-NEXT: out3 = f32[8] [1, 1, 1, 1, 1, 1, 1, 0]
func.func @convert(%x: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xi64>, tensor<8xi1>, tensor<8xf32>) {
  %0 = adjit.convert %x : tensor<8xf32> to tensor<8xi32>
  %1 = adjit.convert %x : tensor<8xf32> to tensor<8xi64>
  %2 = adjit.convert %x : tensor<8xf32> to tensor<8xi1>
  %3 = adjit.convert %2 : tensor<8xi1> to tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xi32>, tensor<8xi64>, tensor<8xi1>, tensor<8xf32>
}

// Integer division truncates; integer pow with a negative exponent is 0 for
// |x| > 1. (Integer abs is in run-integer-abs.mlir: it does not lower yet.)
// INT: out0 = i32[4] [-3, -3, 0, 0]
// INT-NEXT: out1 = i32[4] [49, 0, 1024, -8]
// INT-NEXT: out2 = i32[4] [-1, 1, 1, -1]
// INT-NEXT: out3 = i32[4] [7, -7, -2, 2]
func.func @integer_ops(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = adjit.div %x, %y : tensor<4xi32>
  %1 = adjit.pow %x, %y : tensor<4xi32>
  %2 = adjit.sign %x : tensor<4xi32>
  %3 = adjit.neg %x : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// Comparisons with NaN are false except ne; select picks per element; sign
// and floor keep -0; the logical ops combine masks.
// CMP: out0 = i1[4] [true, false, false, true]
// CMP-NEXT: out1 = i1[4] [false, true, true, false]
// CMP-NEXT: out2 = i1[4] [false, false, false, false]
// CMP-NEXT: out3 = f32[4] [1, -0, -3, nan]
// CMP-NEXT: out4 = f32[4] [nan, -0, -1, 1]
// CMP-NEXT: out5 = f32[4] [nan, -0, -3, 2]
// CMP-NEXT: out6 = i1[4] [false, true, true, false]
// CMP-NEXT: out7 = i1[4] [true, true, true, true]
// CMP-NEXT: out8 = i1[4] [false, false, false, false]
func.func @compare_select(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %ne = adjit.compare ne, %x, %y : tensor<4xf32>
  %eq = adjit.compare eq, %x, %y : tensor<4xf32>
  %gt = adjit.compare gt, %x, %y : tensor<4xf32>
  %ge = adjit.compare ge, %x, %y : tensor<4xf32>
  %le = adjit.compare le, %x, %y : tensor<4xf32>
  %lt = adjit.compare lt, %x, %y : tensor<4xf32>
  %sel = adjit.select %ge, %x, %y : tensor<4xi1>, tensor<4xf32>
  %sign = adjit.sign %x : tensor<4xf32>
  %floor = adjit.floor %x : tensor<4xf32>
  %ngt = adjit.not %gt : tensor<4xi1>
  %and = adjit.and %ngt, %le : tensor<4xi1>
  %or = adjit.or %ne, %eq : tensor<4xi1>
  %both = adjit.and %lt, %gt : tensor<4xi1>
  return %ne, %eq, %gt, %sel, %sign, %floor, %and, %or, %both : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Reductions over an empty dimension give the identity.
// EMPTY: out0 = f32[2] [0, 0]
// EMPTY-NEXT: out1 = f32[2] [-inf, -inf]
// EMPTY-NEXT: out2 = f32[2] [inf, inf]
// EMPTY-NEXT: out3 = i32[] -2147483648
// EMPTY-NEXT: out4 = i32[] 2147483647
func.func @empty_reduce(%x: tensor<2x0xf32>, %i: tensor<0xi32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>) {
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x0xf32>) -> tensor<2xf32>
  %1 = adjit.reduce max %x, dims = [1] : (tensor<2x0xf32>) -> tensor<2xf32>
  %2 = adjit.reduce min %x, dims = [1] : (tensor<2x0xf32>) -> tensor<2xf32>
  %3 = adjit.reduce max %i, dims = [0] : (tensor<0xi32>) -> tensor<i32>
  %4 = adjit.reduce min %i, dims = [0] : (tensor<0xi32>) -> tensor<i32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>
}

// f16 and bf16: 65504 + 65504 overflows f16 to inf; the bf16 sum of 8 ones
// is exact; 256 + 1 rounds to 256 in bf16 (8 significant bits).
// HALF: out0 = f16[3] [2, 4, inf]
// HALF-NEXT: out1 = bf16[] 8
// HALF-NEXT: out2 = bf16[2] [2, 256]
func.func @half(%h: tensor<3xf16>, %b: tensor<2xbf16>) -> (tensor<3xf16>, tensor<bf16>, tensor<2xbf16>) {
  %0 = adjit.add %h, %h : tensor<3xf16>
  %ones = adjit.constant dense<1.0> : tensor<8xbf16>
  %1 = adjit.reduce sum %ones, dims = [0] : (tensor<8xbf16>) -> tensor<bf16>
  %one = adjit.constant dense<1.0> : tensor<2xbf16>
  %2 = adjit.add %b, %one : tensor<2xbf16>
  return %0, %1, %2 : tensor<3xf16>, tensor<bf16>, tensor<2xbf16>
}

// A function without inputs whose results are all folded constants.
// CONST: out0 = i64[2,2] {{\[\[}}1, 3], [2, 4]]
// CONST-NEXT: out1 = f32[] 6
func.func @constants() -> (tensor<2x2xi64>, tensor<f32>) {
  %c = adjit.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %0 = adjit.transpose %c, perm = [1, 0] : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %a = adjit.constant dense<2.0> : tensor<f32>
  %b = adjit.constant dense<3.0> : tensor<f32>
  %1 = adjit.mul %a, %b : tensor<f32>
  return %0, %1 : tensor<2x2xi64>, tensor<f32>
}

// relu: NaN passes, -0 and -inf give +0, integers too; 70 elements run as
// whole vectors and a remainder.
// RELU: out0 = f32[70] {{\[}}0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf, 0, 0, 0, 2.5, nan, 0, inf]
// RELU-NEXT: out1 = i64[3] [0, 0, 4]
func.func @relu(%x: tensor<70xf32>, %i: tensor<3xi64>) -> (tensor<70xf32>, tensor<3xi64>) {
  %0 = adjit.relu %x : tensor<70xf32>
  %1 = adjit.relu %i : tensor<3xi64>
  return %0, %1 : tensor<70xf32>, tensor<3xi64>
}

// integer_pow: x^3 keeps the sign (-0 too), x^-2 of 0 is inf, NaN^0 is 1;
// integers wrap (7^12 mod 2^32); f16 computes in f32 and rounds once
// (300^2 = 90000 overflows f16 to inf).
// IPOW: out0 = f32[6] [-3.375, 0, -0, 8, inf, nan]
// IPOW-NEXT: out1 = f32[6] [0.444444, inf, inf, 0.25, 0, nan]
// IPOW-NEXT: out2 = f32[6] [1, 1, 1, 1, 1, 1]
// IPOW-NEXT: out3 = i32[3] [531441, 4096, 956385313]
// IPOW-NEXT: out4 = f16[2] [4, inf]
func.func @integer_pow(%x: tensor<6xf32>, %i: tensor<3xi32>, %h: tensor<2xf16>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi32>, tensor<2xf16>) {
  %0 = adjit.integer_pow %x, 3 : tensor<6xf32>
  %1 = adjit.integer_pow %x, -2 : tensor<6xf32>
  %2 = adjit.integer_pow %x, 0 : tensor<6xf32>
  %3 = adjit.integer_pow %i, 12 : tensor<3xi32>
  %4 = adjit.integer_pow %h, 2 : tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi32>, tensor<2xf16>
}
