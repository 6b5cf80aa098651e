// adjit-carry-bf16-as-i16: bf16 values of the LLVM dialect, only ever
// moved after adjit-expand-bf16, become i16 values of the same bits.
// RUN: adjit-opt %s --adjit-carry-bf16-as-i16 | FileCheck %s
// Without AVX512-BF16, LLVM's x86 backend narrows a bf16 that crosses
// blocks with a call to __truncsfbf2 (GCC 12's libgcc has none); as i16 it
// just moves.
// RUN: adjit-opt %s --adjit-carry-bf16-as-i16 | mlir-translate --mlir-to-llvmir | llc -mtriple=x86_64-unknown-linux-gnu -mattr=+avx2,+fma,+f16c -o - | FileCheck %s --check-prefix=ASM
// RUN: mlir-translate %s --mlir-to-llvmir | llc -mtriple=x86_64-unknown-linux-gnu -mattr=+avx2,+fma,+f16c -o - | FileCheck %s --check-prefix=UNCARRIED
// ASM-NOT: __truncsfbf2
// UNCARRIED: __truncsfbf2

// The bits of a rounded f32 stored in another block: the bitcast goes, the
// NaN constant becomes its i16 bits (0x7fc0), the select and store take i16.
// CHECK-LABEL: llvm.func @store_in_next_block
// CHECK-NOT:     bf16
// CHECK:         %[[NAN:.*]] = llvm.mlir.constant(32704 : i16) : i16
// CHECK:         %[[V:.*]] = llvm.select %arg2, %[[NAN]], %arg1 : i1, i16
// CHECK:         llvm.br ^bb1
// CHECK:       ^bb1:
// CHECK-NEXT:    llvm.store %[[V]], %arg0 : i16, !llvm.ptr
llvm.func @store_in_next_block(%p: !llvm.ptr, %bits: i16, %isNaN: i1) {
  %nan = llvm.mlir.constant(0x7FC0 : bf16) : bf16
  %b = llvm.bitcast %bits : i16 to bf16
  %v = llvm.select %isNaN, %nan, %b : i1, bf16
  llvm.br ^next
^next:
  llvm.store %v, %p : bf16, !llvm.ptr
  llvm.return
}

// Vectors, loaded and passed to the next block as a block argument.
// CHECK-LABEL: llvm.func @copy_vectors
// CHECK-NOT:     bf16
// CHECK:         %[[ONES:.*]] = llvm.mlir.constant(dense<16256> : vector<8xi16>) : vector<8xi16>
// CHECK:         %[[V:.*]] = llvm.load %arg1 : !llvm.ptr -> vector<8xi16>
// CHECK:         llvm.cond_br %arg2, ^bb1(%[[V]] : vector<8xi16>), ^bb1(%[[ONES]] : vector<8xi16>)
// CHECK:       ^bb1(%[[ARG:.*]]: vector<8xi16>):
// CHECK-NEXT:    llvm.store %[[ARG]], %arg0 : vector<8xi16>, !llvm.ptr
llvm.func @copy_vectors(%p: !llvm.ptr, %q: !llvm.ptr, %c: i1) {
  %ones = llvm.mlir.constant(dense<1.0> : vector<8xbf16>) : vector<8xbf16>
  %v = llvm.load %q : !llvm.ptr -> vector<8xbf16>
  llvm.cond_br %c, ^next(%v : vector<8xbf16>), ^next(%ones : vector<8xbf16>)
^next(%w: vector<8xbf16>):
  llvm.store %w, %p : vector<8xbf16>, !llvm.ptr
  llvm.return
}

// An argument and a call's result stay bf16 where the signature says so:
// each is carried as i16 from right after its definition, and the call and
// the return get bf16 back right before them.
// CHECK-LABEL: llvm.func @through_calls
// CHECK-SAME:    (%[[X:.*]]: bf16, %[[P:.*]]: !llvm.ptr) -> bf16
// CHECK-NEXT:    %[[XBITS:.*]] = llvm.bitcast %[[X]] : bf16 to i16
// CHECK-NEXT:    llvm.br ^bb1
// CHECK:       ^bb1:
// CHECK-NEXT:    %[[XBACK:.*]] = llvm.bitcast %[[XBITS]] : i16 to bf16
// CHECK-NEXT:    %[[Y:.*]] = llvm.call @opaque(%[[XBACK]]) : (bf16) -> bf16
// CHECK-NEXT:    %[[YBITS:.*]] = llvm.bitcast %[[Y]] : bf16 to i16
// CHECK-NEXT:    llvm.store %[[YBITS]], %[[P]] : i16, !llvm.ptr
// CHECK-NEXT:    %[[YBACK:.*]] = llvm.bitcast %[[YBITS]] : i16 to bf16
// CHECK-NEXT:    llvm.return %[[YBACK]] : bf16
llvm.func @opaque(bf16) -> bf16
llvm.func @through_calls(%x: bf16, %p: !llvm.ptr) -> bf16 {
  llvm.br ^next
^next:
  %y = llvm.call @opaque(%x) : (bf16) -> bf16
  llvm.store %y, %p : bf16, !llvm.ptr
  llvm.return %y : bf16
}

// A private function (an outlined loop nest) takes and returns i16 in place
// of bf16, and so do its calls: a bf16 argument in a register would be
// narrowed through __truncsfbf2 too. Public functions keep their signature
// (above).
// CHECK-LABEL: llvm.func @nest
// CHECK-SAME:    (%[[V:.*]]: i16, %[[P:.*]]: !llvm.ptr) -> i16
// CHECK-NOT:     bf16
// CHECK:         llvm.store %[[V]], %[[P]] : i16, !llvm.ptr
// CHECK-NEXT:    llvm.return %[[V]] : i16
llvm.func @nest(%v: bf16, %p: !llvm.ptr) -> bf16 attributes {sym_visibility = "private"} {
  llvm.br ^next
^next:
  llvm.store %v, %p : bf16, !llvm.ptr
  llvm.return %v : bf16
}

// CHECK-LABEL: llvm.func @calls_nest
// CHECK-NOT:     bf16
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK:         %[[R:.*]] = llvm.call @nest(%[[ZERO]], %arg0) : (i16, !llvm.ptr) -> i16
// CHECK:         llvm.store %[[R]], %arg0 : i16, !llvm.ptr
llvm.func @calls_nest(%p: !llvm.ptr) {
  %zero = llvm.mlir.constant(0.0 : bf16) : bf16
  %r = llvm.call @nest(%zero, %p) : (bf16, !llvm.ptr) -> bf16
  llvm.br ^next
^next:
  llvm.store %r, %p : bf16, !llvm.ptr
  llvm.return
}
