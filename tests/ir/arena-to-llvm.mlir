// adjit-convert-arena-to-llvm: an arena buffer is a call of the runtime's
// adjit_arena_buffer, declared as an allocation function (noalias result,
// only its own memory touched), and its release a call of
// adjit_arena_release, which touches the buffer: LLVM keeps the buffers of
// one arena apart and in order. Upstream's conversions then lower the
// arena itself, no unrealized cast is left, and LLVM IR has the
// attributes.
// RUN: adjit-opt %s --adjit-convert-arena-to-llvm | FileCheck %s
// RUN: adjit-opt %s --adjit-convert-arena-to-llvm | mlir-opt --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM
// RUN: adjit-opt %s --adjit-convert-arena-to-llvm | mlir-opt --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-DAG:   llvm.func @adjit_arena_buffer(!llvm.ptr, i64) -> (!llvm.ptr {llvm.noalias}) attributes {memory = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = readwrite>, no_unwind, will_return}
// CHECK-DAG:   llvm.func @adjit_arena_release(!llvm.ptr) attributes {memory = #llvm.memory_effects<other = none, argMem = readwrite, inaccessibleMem = readwrite>, no_unwind, will_return}
// CHECK-LABEL: func.func @two_buffers
// CHECK:       %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK:       %[[DESCRIPTOR:.*]] = builtin.unrealized_conversion_cast %[[ARENA]]
// CHECK:       %[[BASE_A:.*]] = llvm.extractvalue %[[DESCRIPTOR]][1]
// CHECK-NEXT:  %[[OFFSET_A:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:  llvm.call @adjit_arena_buffer(%[[BASE_A]], %[[OFFSET_A]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK:       %[[BASE_B:.*]] = llvm.extractvalue %[[DESCRIPTOR]][1]
// CHECK-NEXT:  %[[OFFSET_B:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK-NEXT:  llvm.call @adjit_arena_buffer(%[[BASE_B]], %[[OFFSET_B]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK:       llvm.call @adjit_arena_release(
// CHECK:       memref.dealloc %[[ARENA]]

// LLVM-NOT:   unrealized_conversion_cast
// LLVM-LABEL: llvm.func @two_buffers
// LLVM-COUNT-2: llvm.call @adjit_arena_buffer
// LLVM-COUNT-2: llvm.call @adjit_arena_release
// LLVM-NOT:   unrealized_conversion_cast

// IR-DAG: declare void @adjit_arena_release(ptr) #[[RELEASE:[0-9]+]]
// IR-DAG: declare noalias ptr @adjit_arena_buffer(ptr, i64) #[[BUFFER:[0-9]+]]
// IR-DAG: attributes #[[RELEASE]] = { nounwind willreturn memory(argmem: readwrite, inaccessiblemem: readwrite) }
// IR-DAG: attributes #[[BUFFER]] = { nounwind willreturn memory(inaccessiblemem: readwrite) }
func.func @two_buffers(%out: memref<f32>) {
  %arena = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
  %c0 = arith.constant 0 : index
  %a = adjit.arena_buffer %arena[0] : memref<8192xi8> to memref<32x32xf32>
  %b = adjit.arena_buffer %arena[4096] : memref<8192xi8> to memref<1024xf32>
  %x = memref.load %a[%c0, %c0] : memref<32x32xf32>
  memref.store %x, %b[%c0] : memref<1024xf32>
  adjit.arena_release %a : memref<32x32xf32>
  %y = memref.load %b[%c0] : memref<1024xf32>
  memref.store %y, %out[] : memref<f32>
  adjit.arena_release %b : memref<1024xf32>
  memref.dealloc %arena : memref<8192xi8>
  return
}
