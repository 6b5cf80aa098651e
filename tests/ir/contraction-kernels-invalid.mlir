// A generic marked for the GEMM kernel that is not a contraction it serves
// is an error, never a wrong call.
// RUN: adjit-opt %s -verify-diagnostics --adjit-contractions-to-calls

func.func @not_a_contraction(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{is marked for the runtime's GEMM kernel but is not a buffer contraction it serves}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"], library_call = "adjit_gemm_f32"} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
