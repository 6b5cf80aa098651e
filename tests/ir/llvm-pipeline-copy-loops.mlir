// Copies into views stay vector loops instead of becoming memcpy calls
// (compiler/lib/CpuBackend.cpp): glibc copies 2 KiB to 1 MiB with
// `rep movsb`, which AMD's Zen 4 runs 25x slower when the destination sits
// a few bytes after the source modulo 4 KiB, as it does here. W5's step:
// the springs' forces are written once and copied one element further
// into a second buffer, both page-aligned.
// RUN: adjit compile %s --emit=bufferized | FileCheck %s --check-prefix=COPY
// RUN: adjit compile %s --emit=llvm-ir | FileCheck %s

// COPY: linalg.copy ins(%{{.*}} : memref<1023xf32{{.*}}>) outs(%{{.*}} : memref<1023xf32, strided<[1], offset: 1>>)

// CHECK-NOT: {{memcpy|memmove}}
// CHECK-LABEL: define void @adjit_entry_spring_steps(
// CHECK-NOT: {{memcpy|memmove}}
// CHECK: store <{{[0-9]+}} x float>
// CHECK-NOT: {{memcpy|memmove}}
func.func @spring_steps(%p0: tensor<1024xf32>, %k: tensor<1023xf32>, %v0: tensor<1024xf32>) -> tensor<1024xf32> {
  %lower = adjit.constant dense<0> : tensor<i32>
  %upper = adjit.constant dense<4> : tensor<i32>
  %r:2 = adjit.for %lower to %upper carry(%p0, %v0) invariant(%k) : (tensor<i32>, tensor<i32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1023xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  ^bb0(%i: tensor<i32>, %p: tensor<1024xf32>, %v: tensor<1024xf32>, %springs: tensor<1023xf32>):
    %left = adjit.slice %p, start = [0], limit = [1023], stride = [1] : (tensor<1024xf32>) -> tensor<1023xf32>
    %right = adjit.slice %p, start = [1], limit = [1024], stride = [1] : (tensor<1024xf32>) -> tensor<1023xf32>
    %d = adjit.sub %right, %left : tensor<1023xf32>
    %one = adjit.constant dense<1.000000e+00> : tensor<1023xf32>
    %stretch = adjit.sub %d, %one : tensor<1023xf32>
    %f = adjit.mul %springs, %stretch : tensor<1023xf32>
    %zero = adjit.constant dense<0.000000e+00> : tensor<1xf32>
    %before = adjit.concatenate(%zero, %f) dim = 0 : (tensor<1xf32>, tensor<1023xf32>) -> tensor<1024xf32>
    %after = adjit.concatenate(%f, %zero) dim = 0 : (tensor<1023xf32>, tensor<1xf32>) -> tensor<1024xf32>
    %force = adjit.sub %after, %before : tensor<1024xf32>
    %dt = adjit.constant dense<0.00999999977> : tensor<1024xf32>
    %dv = adjit.mul %dt, %force : tensor<1024xf32>
    %v1 = adjit.add %v, %dv : tensor<1024xf32>
    %dp = adjit.mul %dt, %v1 : tensor<1024xf32>
    %p1 = adjit.add %p, %dp : tensor<1024xf32>
    adjit.yield %p1, %v1 : tensor<1024xf32>, tensor<1024xf32>
  }
  return %r#1 : tensor<1024xf32>
}
