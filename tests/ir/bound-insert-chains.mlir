// adjit-bound-insert-chains: a chain of insert_slice ops updating one
// tensor continues in a copy every 32 links, which bounds the alias sets
// that one-shot bufferization analyses (their time grows with about the
// fourth power of a chain's length). Shorter chains are left alone.
// RUN: adjit-opt %s -split-input-file --adjit-bound-insert-chains | FileCheck %s

// CHECK-LABEL: func.func @chain_of_40
// CHECK-COUNT-32: tensor.insert_slice
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) : tensor<64xf32>
// CHECK-NEXT: tensor.insert_slice %{{.*}} into %[[COPY]]
// CHECK-COUNT-7: tensor.insert_slice
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @chain_of_40(%x: tensor<64xf32>, %u: tensor<1xf32>) -> tensor<64xf32> {
  %0 = tensor.insert_slice %u into %x[0] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %1 = tensor.insert_slice %u into %0[1] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %2 = tensor.insert_slice %u into %1[2] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %3 = tensor.insert_slice %u into %2[3] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %4 = tensor.insert_slice %u into %3[4] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %5 = tensor.insert_slice %u into %4[5] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %6 = tensor.insert_slice %u into %5[6] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %7 = tensor.insert_slice %u into %6[7] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %8 = tensor.insert_slice %u into %7[8] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %9 = tensor.insert_slice %u into %8[9] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %10 = tensor.insert_slice %u into %9[10] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %11 = tensor.insert_slice %u into %10[11] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %12 = tensor.insert_slice %u into %11[12] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %13 = tensor.insert_slice %u into %12[13] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %14 = tensor.insert_slice %u into %13[14] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %15 = tensor.insert_slice %u into %14[15] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %16 = tensor.insert_slice %u into %15[16] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %17 = tensor.insert_slice %u into %16[17] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %18 = tensor.insert_slice %u into %17[18] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %19 = tensor.insert_slice %u into %18[19] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %20 = tensor.insert_slice %u into %19[20] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %21 = tensor.insert_slice %u into %20[21] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %22 = tensor.insert_slice %u into %21[22] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %23 = tensor.insert_slice %u into %22[23] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %24 = tensor.insert_slice %u into %23[24] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %25 = tensor.insert_slice %u into %24[25] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %26 = tensor.insert_slice %u into %25[26] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %27 = tensor.insert_slice %u into %26[27] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %28 = tensor.insert_slice %u into %27[28] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %29 = tensor.insert_slice %u into %28[29] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %30 = tensor.insert_slice %u into %29[30] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %31 = tensor.insert_slice %u into %30[31] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %32 = tensor.insert_slice %u into %31[32] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %33 = tensor.insert_slice %u into %32[33] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %34 = tensor.insert_slice %u into %33[34] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %35 = tensor.insert_slice %u into %34[35] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %36 = tensor.insert_slice %u into %35[36] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %37 = tensor.insert_slice %u into %36[37] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %38 = tensor.insert_slice %u into %37[38] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %39 = tensor.insert_slice %u into %38[39] [1] [1] : tensor<1xf32> into tensor<64xf32>
  return %39 : tensor<64xf32>
}

// -----

// 32 links: unchanged.
// CHECK-LABEL: func.func @chain_of_32
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @chain_of_32(%x: tensor<64xf32>, %u: tensor<1xf32>) -> tensor<64xf32> {
  %0 = tensor.insert_slice %u into %x[0] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %1 = tensor.insert_slice %u into %0[1] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %2 = tensor.insert_slice %u into %1[2] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %3 = tensor.insert_slice %u into %2[3] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %4 = tensor.insert_slice %u into %3[4] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %5 = tensor.insert_slice %u into %4[5] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %6 = tensor.insert_slice %u into %5[6] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %7 = tensor.insert_slice %u into %6[7] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %8 = tensor.insert_slice %u into %7[8] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %9 = tensor.insert_slice %u into %8[9] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %10 = tensor.insert_slice %u into %9[10] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %11 = tensor.insert_slice %u into %10[11] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %12 = tensor.insert_slice %u into %11[12] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %13 = tensor.insert_slice %u into %12[13] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %14 = tensor.insert_slice %u into %13[14] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %15 = tensor.insert_slice %u into %14[15] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %16 = tensor.insert_slice %u into %15[16] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %17 = tensor.insert_slice %u into %16[17] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %18 = tensor.insert_slice %u into %17[18] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %19 = tensor.insert_slice %u into %18[19] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %20 = tensor.insert_slice %u into %19[20] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %21 = tensor.insert_slice %u into %20[21] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %22 = tensor.insert_slice %u into %21[22] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %23 = tensor.insert_slice %u into %22[23] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %24 = tensor.insert_slice %u into %23[24] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %25 = tensor.insert_slice %u into %24[25] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %26 = tensor.insert_slice %u into %25[26] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %27 = tensor.insert_slice %u into %26[27] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %28 = tensor.insert_slice %u into %27[28] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %29 = tensor.insert_slice %u into %28[29] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %30 = tensor.insert_slice %u into %29[30] [1] [1] : tensor<1xf32> into tensor<64xf32>
  %31 = tensor.insert_slice %u into %30[31] [1] [1] : tensor<1xf32> into tensor<64xf32>
  return %31 : tensor<64xf32>
}
