// adjit-widened-f16-min-max: maximumf and minimumf of two f16 values
// widened to f32 become integer compares of their bits, which LLVM cannot
// narrow back to an f16 maximum (lowered without NaN on x86 without
// AVX512-FP16); others stay.
// RUN: adjit-opt %s -split-input-file --adjit-widened-f16-min-max | FileCheck %s

// CHECK-LABEL: func.func @maximum_of_widened
// CHECK:       %[[X:.*]] = arith.extf %arg0
// CHECK:       %[[Y:.*]] = arith.extf %arg1
// CHECK:       %[[XBITS:.*]] = arith.bitcast %[[X]] : vector<8xf32> to vector<8xi32>
// CHECK:       %[[XNEG:.*]] = arith.shrsi %[[XBITS]], %{{.*}} : vector<8xi32>
// CHECK:       %[[XFLIP:.*]] = arith.andi %[[XNEG]], %{{.*}} : vector<8xi32>
// CHECK:       %[[XKEY:.*]] = arith.xori %[[XBITS]], %[[XFLIP]]
// CHECK:       %[[YBITS:.*]] = arith.bitcast %[[Y]] : vector<8xf32> to vector<8xi32>
// CHECK:       %[[YKEY:.*]] = arith.xori %[[YBITS]],
// CHECK-DAG:   %[[MAGNITUDE:.*]] = arith.constant dense<2147483647> : vector<8xi32>
// CHECK-DAG:   %[[INF:.*]] = arith.constant dense<2139095040> : vector<8xi32>
// CHECK:       %[[XMAG:.*]] = arith.andi %[[XBITS]], %[[MAGNITUDE]]
// CHECK:       %[[XNAN:.*]] = arith.cmpi sgt, %[[XMAG]], %[[INF]]
// CHECK:       %[[YMAG:.*]] = arith.andi %[[YBITS]], %[[MAGNITUDE]]
// CHECK:       %[[YNUMBER:.*]] = arith.cmpi sle, %[[YMAG]], %[[INF]]
// CHECK:       %[[AHEAD:.*]] = arith.cmpi sgt, %[[XKEY]], %[[YKEY]]
// CHECK:       %[[BOTH:.*]] = arith.andi %[[YNUMBER]], %[[AHEAD]]
// CHECK:       %[[WINS:.*]] = arith.ori %[[XNAN]], %[[BOTH]]
// CHECK:       %[[R:.*]] = arith.select %[[WINS]], %[[X]], %[[Y]]
// CHECK-NOT:   arith.maximumf
// CHECK:       return %[[R]]
func.func @maximum_of_widened(%a: vector<8xf16>, %b: vector<8xf16>) -> vector<8xf32> {
  %x = arith.extf %a : vector<8xf16> to vector<8xf32>
  %y = arith.extf %b : vector<8xf16> to vector<8xf32>
  %m = arith.maximumf %x, %y : vector<8xf32>
  return %m : vector<8xf32>
}

// -----

// minimumf: x's key below y's; scalars too.
// CHECK-LABEL: func.func @minimum_of_widened_scalars
// CHECK:       arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NOT:   arith.minimumf
func.func @minimum_of_widened_scalars(%a: f16, %b: f16) -> f32 {
  %x = arith.extf %a : f16 to f32
  %y = arith.extf %b : f16 to f32
  %m = arith.minimumf %x, %y : f32
  return %m : f32
}

// -----

// Not both widened from f16: f32 and bf16 operands are left to LLVM, which
// keeps them in f32.
// CHECK-LABEL: func.func @others_stay
// CHECK:       arith.maximumf %{{.*}}, %arg1 : vector<8xf32>
// CHECK:       arith.minimumf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @others_stay(%a: vector<8xf16>, %y: vector<8xf32>, %c: vector<8xbf16>) -> (vector<8xf32>, vector<8xf32>) {
  %x = arith.extf %a : vector<8xf16> to vector<8xf32>
  %m = arith.maximumf %x, %y : vector<8xf32>
  %z = arith.extf %c : vector<8xbf16> to vector<8xf32>
  %n = arith.minimumf %z, %z : vector<8xf32>
  return %m, %n : vector<8xf32>, vector<8xf32>
}
