// Regression: adjit.convert rounds once (round-to-odd through f32/f64) for
// f64 -> f16/bf16 and integer -> bf16, matching the constant folder:
//   f64 1.0004882812500009 (= 1 + 2^-11 + tiny) -> f16 is 1.00098 (not 1)
//   i32 16842753 (= 2^24 + 2^16 + 1) -> bf16 is 16908288 (not 16777216)
// RUN: adjit run %s --entry f64_to_f16 --arg 'f64[1]=1.0004882812500009' | FileCheck %s --check-prefix=F16
// RUN: adjit run %s --entry folded_f64_to_f16 | FileCheck %s --check-prefix=F16
// RUN: adjit run %s --entry i32_to_bf16 --arg 'i32[1]=16842753' | FileCheck %s --check-prefix=BF16
// RUN: adjit run %s --entry folded_i32_to_bf16 | FileCheck %s --check-prefix=BF16

// F16: out0 = f16[1] [1.00098]
func.func @f64_to_f16(%x: tensor<1xf64>) -> tensor<1xf16> {
  %0 = adjit.convert %x : tensor<1xf64> to tensor<1xf16>
  return %0 : tensor<1xf16>
}

func.func @folded_f64_to_f16() -> tensor<1xf16> {
  %c = adjit.constant dense<1.0004882812500009> : tensor<1xf64>
  %0 = adjit.convert %c : tensor<1xf64> to tensor<1xf16>
  return %0 : tensor<1xf16>
}

// BF16: out0 = bf16[1] [1.69083e+07]
func.func @i32_to_bf16(%x: tensor<1xi32>) -> tensor<1xbf16> {
  %0 = adjit.convert %x : tensor<1xi32> to tensor<1xbf16>
  return %0 : tensor<1xbf16>
}

func.func @folded_i32_to_bf16() -> tensor<1xbf16> {
  %c = adjit.constant dense<16842753> : tensor<1xi32>
  %0 = adjit.convert %c : tensor<1xi32> to tensor<1xbf16>
  return %0 : tensor<1xbf16>
}
