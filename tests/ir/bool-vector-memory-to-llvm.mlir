// adjit-convert-bool-vector-memory-to-llvm: a vector of i1 is loaded from
// and stored to memory a byte per element (adjit's layout of i1 tensors,
// and LLVM's of a scalar i1), never as LLVM's bit-packed <N x i1>; in-bounds
// transfers become such loads and stores first; the access keeps its
// element's address (strides and offset) and its nontemporal hint (other
// vector accesses of i1 memory are refused:
// bool-vector-memory-to-llvm-invalid.mlir). f32 vectors are left to
// convert-vector-to-llvm.
// RUN: adjit-opt %s -split-input-file --adjit-convert-bool-vector-memory-to-llvm | FileCheck %s
// RUN: adjit-opt %s -split-input-file --adjit-convert-bool-vector-memory-to-llvm | mlir-opt -split-input-file --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir --split-input-file | FileCheck %s --check-prefix=IR

// CHECK-LABEL: func.func @load_and_store
// CHECK: %[[OFFSET:.*]] = llvm.mlir.constant(8 : index) : i64
// CHECK: %[[BASE:.*]] = llvm.getelementptr %{{.*}}[%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i1
// CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(128 : index) : i64
// CHECK: llvm.mul %{{.*}}, %[[STRIDE]] : i64
// CHECK: %[[BYTES:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
// CHECK-NEXT: %[[BOOLS:.*]] = llvm.trunc %[[BYTES]] : vector<32xi8> to vector<32xi1>
// CHECK: %[[NOT:.*]] = arith.xori %[[BOOLS]], %{{.*}} : vector<32xi1>
// CHECK: %[[OUT:.*]] = llvm.zext %[[NOT]] : vector<32xi1> to vector<32xi8>
// CHECK-NEXT: llvm.store %[[OUT]], %{{.*}} {alignment = 1 : i64, nontemporal} : vector<32xi8>, !llvm.ptr
// CHECK: vector.load %{{.*}} : memref<64xf32>, vector<16xf32>
// CHECK-NOT: vector<32xi1>, !llvm.ptr
// IR-LABEL: define <16 x float> @load_and_store
// IR: load <32 x i8>, ptr %{{.*}}, align 1
// IR: trunc <32 x i8> %{{.*}} to <32 x i1>
// IR: zext <32 x i1> %{{.*}} to <32 x i8>
// IR: store <32 x i8> %{{.*}}, ptr %{{.*}}, align 1, !nontemporal
// IR-NOT: <32 x i1>, ptr
func.func @load_and_store(%in: memref<4x64xi1, strided<[128, 1], offset: 8>>, %out: memref<64xi1>, %f: memref<64xf32>, %i: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %true = arith.constant dense<true> : vector<32xi1>
  %v = vector.load %in[%i, %c0] : memref<4x64xi1, strided<[128, 1], offset: 8>>, vector<32xi1>
  %n = arith.xori %v, %true : vector<32xi1>
  vector.store %n, %out[%c0] {nontemporal = true} : memref<64xi1>, vector<32xi1>
  %x = vector.load %f[%c0] : memref<64xf32>, vector<16xf32>
  return %x : vector<16xf32>
}

// -----

// An in-bounds transfer of bools, as adjit-vectorize makes after
// bufferization.
// CHECK-LABEL: func.func @transfers
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: llvm.trunc %{{.*}} : vector<16xi8> to vector<16xi1>
// CHECK: llvm.zext %{{.*}} : vector<16xi1> to vector<16xi8>
// CHECK: llvm.store %{{.*}} {alignment = 1 : i64} : vector<16xi8>, !llvm.ptr
// CHECK-NOT: vector.transfer
// IR-LABEL: define void @transfers
// IR: load <16 x i8>
// IR: store <16 x i8>
func.func @transfers(%in: memref<32xi1>, %out: memref<32xi1>, %j: index) {
  %false = arith.constant false
  %v = vector.transfer_read %in[%j], %false {in_bounds = [true]} : memref<32xi1>, vector<16xi1>
  vector.transfer_write %v, %out[%j] {in_bounds = [true]} : vector<16xi1>, memref<32xi1>
  return
}
