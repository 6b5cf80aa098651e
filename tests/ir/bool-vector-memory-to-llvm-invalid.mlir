// adjit-convert-bool-vector-memory-to-llvm refuses a vector access of i1
// memory that it does not lower a byte per element: upstream's lowering
// would read or write LLVM's bit-packed <N x i1> instead.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics --adjit-convert-bool-vector-memory-to-llvm

func.func @masked(%in: memref<32xi1>, %mask: vector<16xi1>, %pass: vector<16xi1>) -> vector<16xi1> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'vector.maskedload' op accesses memory of i1 (a byte per element) in a form that only a 1-D in-bounds vector.load or vector.store can lower}}
  %v = vector.maskedload %in[%c0], %mask, %pass : memref<32xi1>, vector<16xi1>, vector<16xi1> into vector<16xi1>
  return %v : vector<16xi1>
}

// -----

func.func @out_of_bounds(%in: memref<20xi1>, %j: index) -> vector<16xi1> {
  %false = arith.constant false
  // expected-error @+1 {{'vector.transfer_read' op accesses memory of i1 (a byte per element) in a form that only a 1-D in-bounds vector.load or vector.store can lower}}
  %v = vector.transfer_read %in[%j], %false : memref<20xi1>, vector<16xi1>
  return %v : vector<16xi1>
}

// -----

func.func @two_dimensional(%in: memref<4x32xi1>) -> vector<2x16xi1> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'vector.load' op accesses memory of i1 (a byte per element) in a form that only a 1-D in-bounds vector.load or vector.store can lower}}
  %v = vector.load %in[%c0, %c0] : memref<4x32xi1>, vector<2x16xi1>
  return %v : vector<2x16xi1>
}
