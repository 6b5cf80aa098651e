// The example module through the driver: the fused stage merges the bias add
// and tanh into one loop nest over vectors, and the LLVM IR has the packed
// entry point.
// RUN: adjit compile %examples/mlp.mlir --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: adjit compile %examples/mlp.mlir --emit=llvm-ir | FileCheck %s --check-prefix=LLVMIR
// RUN: rm -rf %t && adjit compile %examples/mlp.mlir --dump-dir %t && ls %t | FileCheck %s --check-prefix=DUMP

// FUSED: vector.transfer_read %arg2
// FUSED-NEXT: arith.addf %{{.*}}, %{{.*}} : vector<[[LANES:[0-9]+]]xf32>
// FUSED-NEXT: math.tanh %{{.*}} : vector<[[LANES]]xf32>
// FUSED-NEXT: vector.transfer_write

// LLVMIR: define void @adjit_entry_mlp(ptr

// DUMP: 01-traced.mlir
// DUMP-NEXT: 02-differentiated.mlir
// DUMP-NEXT: 03-optimized.mlir
// DUMP-NEXT: 04-linalg.mlir
// DUMP-NEXT: 05-fused.mlir
// DUMP-NEXT: 06-bufferized.mlir
// DUMP-NEXT: 07-llvm.mlir
// DUMP-NEXT: 08-llvm-ir.ll
// DUMP-NEXT: 09-asm.s
// DUMP-NEXT: 10-obj.o
