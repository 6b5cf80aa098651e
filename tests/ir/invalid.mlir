// Negative tests: every verifier rule of AdjitOps.cpp and the ODS type
// constraints, each with the diagnostic it must produce.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Type constraints (ODS)
//===----------------------------------------------------------------------===//

func.func @exp_on_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = adjit.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @floor_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.floor' op operand #0 must be statically shaped tensor of 16-bit float}}
  %0 = adjit.floor %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @asin_on_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.asin' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = adjit.asin %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @atan2_on_integers(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'adjit.atan2' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = adjit.atan2 %x, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @rem_of_bools(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.rem' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.rem %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @rem_of_two_types(%x: tensor<4xi32>, %y: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.rem' op requires the same type for all operands and results}}
  %0 = "adjit.rem"(%x, %y) : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @atan2_of_two_types(%x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.atan2' op requires the same type for all operands and results}}
  %0 = "adjit.atan2"(%x, %y) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @integer_pow_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.integer_pow' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.integer_pow %x, 2 : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @integer_pow_negative_on_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.integer_pow' op cannot raise integers of 'tensor<4xi32>' to the negative power -1}}
  %0 = adjit.integer_pow %x, -1 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @integer_pow_changes_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'adjit.integer_pow' op requires the same type for all operands and results}}
  %0 = "adjit.integer_pow"(%x) <{exponent = 2 : i64}> : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @relu_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.relu %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @add_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.add' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.add %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @neg_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.neg' op operand #0 must be statically shaped tensor of}}
  %0 = adjit.neg %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @mul_on_i8(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'adjit.mul' op operand #0 must be statically shaped tensor of}}
  %0 = adjit.mul %x, %x : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @unsupported_dtype_f8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'adjit.abs' op operand #0 must be statically shaped tensor of}}
  %0 = adjit.abs %x : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @gelu_of_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.gelu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = adjit.gelu %x approximate : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @gelu_result_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'adjit.gelu' op requires the same type for all operands and results}}
  %0 = "adjit.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'adjit.tanh' op operand #0 must be statically shaped tensor}}
  %0 = adjit.tanh %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @unranked_generic(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'adjit.sin' op operand #0 must be statically shaped tensor}}
  %0 = "adjit.sin"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // The custom form names one ranked tensor type.
  // expected-error @+1 {{custom op 'adjit.sin' invalid kind of type specified}}
  %0 = adjit.sin %x : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @dynamic_reshape(%x: tensor<?x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'adjit.reshape' op operand #0 must be statically shaped tensor}}
  %0 = adjit.reshape %x : (tensor<?x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dynamic_iota() -> tensor<?xi32> {
  // expected-error @+1 {{'adjit.iota' op result #0 must be statically shaped tensor}}
  %0 = adjit.iota dim = 0 : tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

func.func @iota_bool() -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.iota' op result #0 must be statically shaped tensor of 16-bit float}}
  %0 = adjit.iota dim = 0 : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @constant_type_mismatch() -> tensor<2xf64> {
  // expected-error @+1 {{'adjit.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "adjit.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

func.func @constant_memref_type() -> memref<2xf32> {
  // expected-error @+1 {{'adjit.constant' op result #0 must be statically shaped tensor}}
  %0 = "adjit.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> memref<2xf32>
  return %0 : memref<2xf32>
}

// -----

func.func @binary_shape_mismatch(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.add' op requires the same type for all operands and results}}
  %0 = "adjit.add"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.sub' op requires the same type for all operands and results}}
  %0 = "adjit.sub"(%x, %y) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unary_result_mismatch(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'adjit.exp' op requires the same type for all operands and results}}
  %0 = "adjit.exp"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @stop_gradient_type_change(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'adjit.stop_gradient' op requires the same type for all operands and results}}
  %0 = "adjit.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @and_on_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.and' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = adjit.and %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @not_on_floats(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.not' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = adjit.not %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_pred_not_bool(%p: tensor<4xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = adjit.select %p, %x, %x : tensor<4xi32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_branch_mismatch(%p: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "adjit.select"(%p, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_operand_mismatch(%x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.compare' op requires all operands to have the same type}}
  %0 = "adjit.compare"(%x, %y) <{direction = 0 : i32}> : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result_shape(%x: tensor<4xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{'adjit.compare' op failed to verify that result is the i1 tensor of the operands' shape}}
  %0 = "adjit.compare"(%x, %x) <{direction = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @compare_unknown_direction(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'direction' [eq, ne, lt, le, gt, ge]}}
  %0 = adjit.compare less, %x, %x : tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_direction_out_of_range(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{invalid properties {direction = 9 : i32} for op adjit.compare}}
  %0 = "adjit.compare"(%x, %x) <{direction = 9 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @reduce_unknown_kind(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
  %0 = adjit.reduce prod %x, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @gather_float_indices(%x: tensor<4xf32>, %i: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.gather %x[%i], axis = 0 : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @argmax_float_result(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'adjit.argmax' op result #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.argmax %x, axis = 0 : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @pad_value_not_scalar(%x: tensor<3xf32>, %z: tensor<1xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'adjit.pad' op operand #1 must be 0D tensor of}}
  %0 = adjit.pad %x, %z, low = [1], high = [1], interior = [0] : (tensor<3xf32>, tensor<1xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// 3 + (2^63 - 1) + (2^63 - 2) wraps to 0: an overflow, not a result of 0.
func.func @pad_overflows(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<0xf32> {
  // expected-error @+1 {{'adjit.pad' op the padded size of dimension 0 overflows int64}}
  %0 = adjit.pad %x, %z, low = [9223372036854775807], high = [9223372036854775806], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @scatter_result_differs_from_base(%b: tensor<4xf32>, %i: tensor<2xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'adjit.scatter_add' op failed to verify that all of {base, result} have same type}}
  %0 = adjit.scatter_add %u into %b[%i], axis = 0 : (tensor<4xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @reduce_bool(%x: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'adjit.reduce' op operand #0 must be statically shaped tensor of}}
  %0 = adjit.reduce sum %x, dims = [0] : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @dot_bool(%x: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'adjit.dot_general' op operand #0 must be statically shaped tensor of}}
  %0 = adjit.dot_general %x, %x, batch = [] x [], contract = [0] x [0] : (tensor<4xi1>, tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

func.func @iota_dim_out_of_range() -> tensor<2x3xi32> {
  // expected-error @+1 {{'adjit.iota' op dim 2 is out of range for rank 2}}
  %0 = adjit.iota dim = 2 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @iota_scalar() -> tensor<f32> {
  // expected-error @+1 {{'adjit.iota' op dim 0 is out of range for rank 0}}
  %0 = adjit.iota dim = 0 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

func.func @compare_lt_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'adjit.compare' op booleans support only eq and ne, not lt}}
  %0 = adjit.compare lt, %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_ge_on_bool(%x: tensor<i1>) -> tensor<i1> {
  // expected-error @+1 {{'adjit.compare' op booleans support only eq and ne, not ge}}
  %0 = adjit.compare ge, %x, %x : tensor<i1>
  return %0 : tensor<i1>
}

// -----

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

func.func @select_pred_shape(%p: tensor<3xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.select' op predicate type 'tensor<3xi1>' does not have the shape of the result 'tensor<4xf32>'}}
  %0 = adjit.select %p, %x, %x : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_scalar_pred_not_broadcast(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.select' op predicate type 'tensor<i1>' does not have the shape of the result 'tensor<4xf32>'}}
  %0 = adjit.select %p, %x, %x : tensor<i1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

func.func @convert_shape(%x: tensor<4xf32>) -> tensor<2x2xf64> {
  // expected-error @+1 {{'adjit.convert' op cannot change the shape: 'tensor<4xf32>' to 'tensor<2x2xf64>'}}
  %0 = adjit.convert %x : tensor<4xf32> to tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// -----

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

func.func @broadcast_element_type(%x: tensor<3xf32>) -> tensor<2x3xf64> {
  // expected-error @+1 {{'adjit.broadcast_in_dim' op operand element type 'f32' differs from result element type 'f64'}}
  %0 = adjit.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

func.func @broadcast_dims_count(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'adjit.broadcast_in_dim' op dims has 2 entries but the operand has rank 1}}
  %0 = adjit.broadcast_in_dim %x, dims = [0, 1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_dim_out_of_range(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'adjit.broadcast_in_dim' op broadcast dimension 2 is out of range for rank 2}}
  %0 = adjit.broadcast_in_dim %x, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_dim_negative(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'adjit.broadcast_in_dim' op broadcast dimension -1 is out of range for rank 2}}
  %0 = adjit.broadcast_in_dim %x, dims = [-1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_dim_repeated(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'adjit.broadcast_in_dim' op broadcast dimension 1 appears more than once}}
  %0 = adjit.broadcast_in_dim %x, dims = [1, 1] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @broadcast_size_mismatch(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'adjit.broadcast_in_dim' op operand dimension 0 (size 3) maps to result dimension 1 (size 4): sizes must match or be 1}}
  %0 = adjit.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

func.func @reshape_element_type(%x: tensor<6xf32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'adjit.reshape' op operand element type 'f32' differs from result element type 'i32'}}
  %0 = adjit.reshape %x : (tensor<6xf32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @reshape_element_count(%x: tensor<6xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'adjit.reshape' op cannot reshape 'tensor<6xf32>' (6 elements) to 'tensor<2x4xf32>' (8 elements)}}
  %0 = adjit.reshape %x : (tensor<6xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

func.func @transpose_element_type(%x: tensor<2x3xf32>) -> tensor<3x2xf16> {
  // expected-error @+1 {{'adjit.transpose' op operand element type 'f32' differs from result element type 'f16'}}
  %0 = adjit.transpose %x, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

func.func @transpose_perm_count(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'adjit.transpose' op perm has 3 entries but the operand has rank 2}}
  %0 = adjit.transpose %x, perm = [1, 0, 2] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'adjit.transpose' op perm dimension 2 is out of range for rank 2}}
  %0 = adjit.transpose %x, perm = [2, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_perm_repeated(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'adjit.transpose' op perm dimension 0 appears more than once}}
  %0 = adjit.transpose %x, perm = [0, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @transpose_result_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'adjit.transpose' op result type 'tensor<2x3xf32>' does not have the expected shape [3, 2]}}
  %0 = adjit.transpose %x, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

func.func @slice_element_type(%x: tensor<8xf32>) -> tensor<8xf64> {
  // expected-error @+1 {{'adjit.slice' op operand element type 'f32' differs from result element type 'f64'}}
  %0 = adjit.slice %x, start = [0], limit = [8], stride = [1] : (tensor<8xf32>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

func.func @slice_entry_count(%x: tensor<8xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'adjit.slice' op start, limit and stride need 1 entries each (the operand rank), got 1, 2 and 1}}
  %0 = adjit.slice %x, start = [1], limit = [7, 1], stride = [2] : (tensor<8xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @slice_zero_stride(%x: tensor<8xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'adjit.slice' op stride 0 in dimension 0 must be at least 1}}
  %0 = adjit.slice %x, start = [1], limit = [7], stride = [0] : (tensor<8xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @slice_limit_past_end(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'adjit.slice' op dimension 1 needs 0 <= start <= limit <= 8, got start 6 and limit 9}}
  %0 = adjit.slice %x, start = [0, 6], limit = [4, 9], stride = [1, 1] : (tensor<4x8xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @slice_start_after_limit(%x: tensor<8xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{'adjit.slice' op dimension 0 needs 0 <= start <= limit <= 8, got start 5 and limit 4}}
  %0 = adjit.slice %x, start = [5], limit = [4], stride = [1] : (tensor<8xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @slice_negative_start(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.slice' op dimension 0 needs 0 <= start <= limit <= 8, got start -1 and limit 1}}
  %0 = adjit.slice %x, start = [-1], limit = [1], stride = [1] : (tensor<8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_result_shape(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.slice' op result type 'tensor<4xf32>' does not have the expected shape [3]}}
  %0 = adjit.slice %x, start = [1], limit = [7], stride = [2] : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

func.func @concatenate_no_inputs() -> tensor<0xf32> {
  // expected-error @+1 {{'adjit.concatenate' op needs at least one input}}
  %0 = adjit.concatenate() dim = 0 : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// Four inputs of 2^62 rows add up to 2^64, which wraps to 0.
func.func @concatenate_overflows(%a: tensor<4611686018427387904xi1>) -> tensor<0xi1> {
  // expected-error @+1 {{'adjit.concatenate' op inputs' sizes in dimension 0 overflow int64}}
  %0 = adjit.concatenate(%a, %a, %a, %a) dim = 0 : (tensor<4611686018427387904xi1>, tensor<4611686018427387904xi1>, tensor<4611686018427387904xi1>, tensor<4611686018427387904xi1>) -> tensor<0xi1>
  return %0 : tensor<0xi1>
}

// -----

func.func @concatenate_dim_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'adjit.concatenate' op dim 2 is out of range for rank 2}}
  %0 = adjit.concatenate(%a, %a) dim = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concatenate_negative_dim(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'adjit.concatenate' op dim -1 is out of range for rank 2}}
  %0 = adjit.concatenate(%a) dim = -1 : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @concatenate_scalars(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'adjit.concatenate' op dim 0 is out of range for rank 0}}
  %0 = adjit.concatenate(%a, %a) dim = 0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @concatenate_element_type(%a: tensor<2x3xf32>, %b: tensor<1x3xf64>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'adjit.concatenate' op input #1 element type 'f64' differs from result element type 'f32'}}
  %0 = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x3xf32>, tensor<1x3xf64>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @concatenate_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'adjit.concatenate' op input #1 has rank 1 but the result has rank 2}}
  %0 = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @concatenate_other_dim(%a: tensor<2x3xf32>, %b: tensor<1x4xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'adjit.concatenate' op input #1 'tensor<1x4xf32>' differs from the result 'tensor<3x3xf32>' in dimension 1, which is not the concatenated one}}
  %0 = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x3xf32>, tensor<1x4xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @concatenate_total(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'adjit.concatenate' op inputs add up to 3 in dimension 0 but the result has 4}}
  %0 = adjit.concatenate(%a, %b) dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

func.func @pad_element_type(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<5xf64> {
  // expected-error @+1 {{'adjit.pad' op operand element type 'f32' differs from result element type 'f64'}}
  %0 = adjit.pad %x, %z, low = [1], high = [1], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

func.func @pad_value_element_type(%x: tensor<3xf32>, %z: tensor<i32>) -> tensor<5xf32> {
  // expected-error @+1 {{'adjit.pad' op padding value element type 'i32' differs from result element type 'f32'}}
  %0 = adjit.pad %x, %z, low = [1], high = [1], interior = [0] : (tensor<3xf32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_entry_count(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<5xf32> {
  // expected-error @+1 {{'adjit.pad' op low, high and interior need 1 entries each (the operand rank)}}
  %0 = adjit.pad %x, %z, low = [1, 0], high = [1], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_negative(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.pad' op padding amounts must be non-negative, got low -1, high 0, interior 0 in dimension 0}}
  %0 = adjit.pad %x, %z, low = [-1], high = [0], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @pad_result_shape(%x: tensor<3xf32>, %z: tensor<f32>) -> tensor<7xf32> {
  // expected-error @+1 {{'adjit.pad' op result type 'tensor<7xf32>' does not have the expected shape [8]}}
  %0 = adjit.pad %x, %z, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

func.func @gather_element_type(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf64> {
  // expected-error @+1 {{'adjit.gather' op operand element type 'f32' differs from result element type 'f64'}}
  %0 = adjit.gather %t[%i], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}

// -----

func.func @gather_axis_out_of_range(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'adjit.gather' op axis 2 is out of range for rank 2}}
  %0 = adjit.gather %t[%i], axis = 2 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_negative_axis(%t: tensor<3x3xf32>, %i: tensor<2xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'adjit.gather' op axis -1 is out of range for rank 2}}
  %0 = adjit.gather %t[%i], axis = -1 : (tensor<3x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_empty_axis(%t: tensor<0x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'adjit.gather' op cannot gather from the empty axis 0 of 'tensor<0x4xf32>'}}
  %0 = adjit.gather %t[%i], axis = 0 : (tensor<0x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_result_shape(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'adjit.gather' op result type 'tensor<4x3xf32>' does not have the expected shape [3, 4]}}
  %0 = adjit.gather %t[%i], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// scatter_add
//===----------------------------------------------------------------------===//

func.func @scatter_element_type(%b: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<3x4xf64>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'adjit.scatter_add' op updates element type 'f64' differs from base element type 'f32'}}
  %0 = adjit.scatter_add %u into %b[%i], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf64>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_axis_out_of_range(%b: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'adjit.scatter_add' op axis -1 is out of range for rank 2}}
  %0 = adjit.scatter_add %u into %b[%i], axis = -1 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_updates_shape(%b: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<4x3xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'adjit.scatter_add' op updates type 'tensor<4x3xf32>' does not have the gathered shape [3, 4]}}
  %0 = adjit.scatter_add %u into %b[%i], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<4x3xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_extremum_of_a_sum(%b: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<3x4xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'adjit.scatter_extremum' op combines by max or min (a sum is adjit.scatter_add)}}
  %0 = adjit.scatter_extremum sum %u into %b[%i], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_extremum_updates_shape(%b: tensor<10x4xf32>, %i: tensor<3xi32>, %u: tensor<3x5xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{'adjit.scatter_extremum' op updates type 'tensor<3x5xf32>' does not have the gathered shape [3, 4]}}
  %0 = adjit.scatter_extremum min %u into %b[%i], axis = 0 : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x5xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_extremum_result_type(%b: tensor<4xf32>, %i: tensor<2xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'adjit.scatter_extremum' op failed to verify that all of {base, result} have same type}}
  %0 = adjit.scatter_extremum max %u into %b[%i], axis = 0 : (tensor<4xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

func.func @reduce_element_type(%x: tensor<2x3xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{'adjit.reduce' op operand element type 'f32' differs from result element type 'f64'}}
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.reduce' op reduced dimension 2 is out of range for rank 2}}
  %0 = adjit.reduce max %x, dims = [2] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_dim_repeated(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.reduce' op reduced dimension 1 appears more than once}}
  %0 = adjit.reduce min %x, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_result_shape(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'adjit.reduce' op result type 'tensor<3xf32>' does not have the expected shape [2]}}
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reduce_keepdims_not_implicit(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'adjit.reduce' op result type 'tensor<2x1xf32>' does not have the expected shape [2]}}
  %0 = adjit.reduce sum %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// argmax
//===----------------------------------------------------------------------===//

func.func @argmax_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'adjit.argmax' op axis 2 is out of range for rank 2}}
  %0 = adjit.argmax %x, axis = 2 : (tensor<2x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @argmax_empty_axis(%x: tensor<2x0xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'adjit.argmax' op argmax of the empty axis 1 of 'tensor<2x0xf32>' is undefined}}
  %0 = adjit.argmax %x, axis = 1 : (tensor<2x0xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @argmax_result_shape(%x: tensor<2x3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'adjit.argmax' op result type 'tensor<3xi64>' does not have the expected shape [2]}}
  %0 = adjit.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

func.func @dot_operand_element_types(%a: tensor<4x8xf32>, %b: tensor<8x5xf64>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op lhs element type 'f32' differs from rhs element type 'f64'}}
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x5xf64>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dot_result_element_type(%a: tensor<4x8xf16>, %b: tensor<8x5xf16>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op lhs element type 'f16' differs from result element type 'f32'}}
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf16>, tensor<8x5xf16>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dot_batch_count(%a: tensor<2x4x8xf32>, %b: tensor<2x8x5xf32>) -> tensor<2x4x2x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op lhs has 1 batch dimensions but rhs has 0}}
  %0 = adjit.dot_general %a, %b, batch = [0] x [], contract = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x8x5xf32>) -> tensor<2x4x2x5xf32>
  return %0 : tensor<2x4x2x5xf32>
}

// -----

func.func @dot_contract_count(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op lhs has 1 contracting dimensions but rhs has 2}}
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0, 1] : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dot_lhs_dim_out_of_range(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op lhs batch/contracting dimension 2 is out of range for rank 2}}
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [2] x [0] : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dot_rhs_dim_repeated(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'adjit.dot_general' op rhs batch/contracting dimension 0 appears more than once}}
  %0 = adjit.dot_general %a, %b, batch = [0] x [0], contract = [1] x [0] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dot_paired_sizes(%a: tensor<4x8xf32>, %b: tensor<7x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op lhs dimension 1 (size 8) and rhs dimension 0 (size 7) are paired but differ in size}}
  %0 = adjit.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<7x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dot_result_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x5xf32>) -> tensor<4x2x5xf32> {
  // expected-error @+1 {{'adjit.dot_general' op result type 'tensor<4x2x5xf32>' does not have the expected shape [2, 4, 5]}}
  %0 = adjit.dot_general %a, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x8x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Donation attributes (AdjitDialect.cpp)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'func.func' op 'adjit.aliasing_output' must be the index of one of its 1 results, got 1 : i64}}
func.func @aliasing_output_out_of_range(%w: tensor<4xf32> {adjit.aliasing_output = 1 : i64}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument 0 ('tensor<4xf32>') cannot hold result 0 ('tensor<8xf32>'): their types differ}}
func.func @aliasing_output_other_type(%w: tensor<4xf32> {adjit.aliasing_output = 0 : i64}) -> tensor<8xf32> {
  %0 = adjit.constant dense<0.0> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'func.func' op arguments 0 and 1 both hold result 0}}
func.func @aliasing_output_twice(%a: tensor<4xf32> {adjit.aliasing_output = 0 : i64}, %b: tensor<4xf32> {adjit.aliasing_output = 0 : i64}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op unknown argument attribute 'adjit.donated'}}
func.func @unknown_argument_attribute(%a: tensor<4xf32> {adjit.donated}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @arena_buffer_past_the_end(%arena: memref<4096xi8>) {
  // expected-error @+1 {{'adjit.arena_buffer' op places 4096 bytes ('memref<1024xf32>') at offset 64, past the end of the 4096-byte arena}}
  %a = adjit.arena_buffer %arena[64] : memref<4096xi8> to memref<1024xf32>
  return
}

// -----

func.func @arena_buffer_misaligned(%arena: memref<4096xi8>) {
  // expected-error @+1 {{'adjit.arena_buffer' op offset 6 is not a multiple of the 4-byte element of 'memref<16xf32>'}}
  %a = adjit.arena_buffer %arena[6] : memref<4096xi8> to memref<16xf32>
  return
}

// -----

func.func @arena_buffer_strided(%arena: memref<4096xi8>) {
  // expected-error @+1 {{'adjit.arena_buffer' op makes contiguous buffers (identity layout), got 'memref<16xf32, strided<[2]>>'}}
  %a = adjit.arena_buffer %arena[0] : memref<4096xi8> to memref<16xf32, strided<[2]>>
  return
}

// -----

func.func @arena_buffer_strided_arena(%arena: memref<4096xi8, strided<[1], offset: 8>>) {
  // expected-error @+1 {{'adjit.arena_buffer' op needs a contiguous arena of static size, got 'memref<4096xi8, strided<[1], offset: 8>>'}}
  %a = adjit.arena_buffer %arena[0] : memref<4096xi8, strided<[1], offset: 8>> to memref<16xf32>
  return
}

// -----

func.func @arena_buffer_of_floats(%arena: memref<1024xf32>) {
  // expected-error @+1 {{'adjit.arena_buffer' op operand #0 must be 1D memref of 8-bit signless integer values}}
  %a = adjit.arena_buffer %arena[0] : memref<1024xf32> to memref<16xf32>
  return
}

// -----

func.func @arena_buffer_negative_offset(%arena: memref<4096xi8>) {
  // expected-error @+1 {{'adjit.arena_buffer' op attribute 'offset' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %a = adjit.arena_buffer %arena[-64] : memref<4096xi8> to memref<16xf32>
  return
}

// -----

func.func @arena_release_of_an_allocation() {
  %a = memref.alloc() : memref<16xf32>
  // expected-error @+1 {{'adjit.arena_release' op releases a buffer that no adjit.arena_buffer made}}
  adjit.arena_release %a : memref<16xf32>
  return
}

// -----

func.func @reduce_sum_ignores_nan(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'adjit.reduce' op ignores_nan is for a max or min of floats, not a sum of 'tensor<4xf32>'}}
  %0 = adjit.reduce sum %x, dims = [0] ignores_nan : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_integer_max_ignores_nan(%x: tensor<4xi32>) -> tensor<i32> {
  // expected-error @+1 {{'adjit.reduce' op ignores_nan is for a max or min of floats, not a max of 'tensor<4xi32>'}}
  %0 = adjit.reduce max %x, dims = [0] ignores_nan : (tensor<4xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// dynamic_slice and dynamic_update_slice

func.func @dynamic_slice_starts(%x: tensor<8x6xf32>, %i: tensor<i32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'adjit.dynamic_slice' op needs one start per dimension of the operand (2), got 1}}
  %0 = adjit.dynamic_slice %x[%i] : (tensor<8x6xf32>, tensor<i32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @dynamic_slice_too_big(%x: tensor<8x6xf32>, %i: tensor<i32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{'adjit.dynamic_slice' op the result has 7 elements in dimension 1, more than the operand's 6}}
  %0 = adjit.dynamic_slice %x[%i, %i] : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

func.func @dynamic_slice_rank(%x: tensor<8x6xf32>, %i: tensor<i32>) -> tensor<6xf32> {
  // expected-error @+1 {{'adjit.dynamic_slice' op the result has rank 1 but the operand 2}}
  %0 = adjit.dynamic_slice %x[%i, %i] : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @dynamic_slice_float_start(%x: tensor<8xf32>, %i: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #1 must be variadic of 0-d integer tensor (an offset known at run time), but got 'tensor<f32>'}}
  %0 = adjit.dynamic_slice %x[%i] : (tensor<8xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_update_slice_type(%x: tensor<8xf32>, %i: tensor<i32>, %u: tensor<2xf64>) -> tensor<8xf32> {
  // expected-error @+1 {{'adjit.dynamic_update_slice' op operand element type 'f32' differs from update element type 'f64'}}
  %0 = adjit.dynamic_update_slice %x[%i], %u : (tensor<8xf32>, tensor<i32>, tensor<2xf64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dynamic_update_slice_result(%x: tensor<8xf32>, %i: tensor<i32>, %u: tensor<2xf32>) -> tensor<9xf32> {
  // expected-error @+1 {{'adjit.dynamic_update_slice' op the result type 'tensor<9xf32>' must be the operand's, 'tensor<8xf32>'}}
  %0 = adjit.dynamic_update_slice %x[%i], %u : (tensor<8xf32>, tensor<i32>, tensor<2xf32>) -> tensor<9xf32>
  return %0 : tensor<9xf32>
}

// -----

func.func @dynamic_update_slice_too_big(%x: tensor<8xf32>, %i: tensor<i32>, %u: tensor<9xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'adjit.dynamic_update_slice' op the update has 9 elements in dimension 0, more than the operand's 8}}
  %0 = adjit.dynamic_update_slice %x[%i], %u : (tensor<8xf32>, tensor<i32>, tensor<9xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

func.func @cholesky_not_square(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'adjit.cholesky' op operand 'tensor<3x4xf32>' is not a (batch of) square matrices}}
  %0 = adjit.cholesky %a : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @cholesky_of_a_vector(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'adjit.cholesky' op operand 'tensor<3xf32>' is not a (batch of) square matrices}}
  %0 = adjit.cholesky %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @cholesky_f16(%a: tensor<3x3xf16>) -> tensor<3x3xf16> {
  // expected-error @+1 {{'adjit.cholesky' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = adjit.cholesky %a : tensor<3x3xf16>
  return %0 : tensor<3x3xf16>
}

// -----

func.func @triangular_solve_rows(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'adjit.triangular_solve' op b 'tensor<4x2xf32>' is not a batch of right-hand sides for a 'tensor<3x3xf32>' (expected [batch..., 3, k])}}
  %0 = adjit.triangular_solve %a, %b {lower} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @triangular_solve_element_types(%a: tensor<3x3xf64>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'adjit.triangular_solve' op a element type 'f64' differs from b element type 'f32'}}
  %0 = adjit.triangular_solve %a, %b : (tensor<3x3xf64>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @solve_batches(%a: tensor<2x3x3xf32>, %b: tensor<3x3x1xf32>) -> tensor<3x3x1xf32> {
  // expected-error @+1 {{'adjit.solve' op b 'tensor<3x3x1xf32>' is not a batch of right-hand sides for a 'tensor<2x3x3xf32>' (expected [batch..., 3, k])}}
  %0 = adjit.solve %a, %b : (tensor<2x3x3xf32>, tensor<3x3x1xf32>) -> tensor<3x3x1xf32>
  return %0 : tensor<3x3x1xf32>
}

// -----

func.func @solve_not_square(%a: tensor<3x2xf32>, %b: tensor<3x1xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{'adjit.solve' op a 'tensor<3x2xf32>' is not a (batch of) square matrices}}
  %0 = adjit.solve %a, %b : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @slogdet_not_square(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'adjit.slogdet' op operand 'tensor<2x3x4xf32>' is not a (batch of) square matrices}}
  %0:2 = adjit.slogdet %a : tensor<2x3x4xf32>
  return
}

// -----

func.func @slogdet_of_a_vector(%a: tensor<3xf32>) {
  // expected-error @+1 {{'adjit.slogdet' op operand 'tensor<3xf32>' is not a (batch of) square matrices}}
  %0:2 = adjit.slogdet %a : tensor<3xf32>
  return
}

// -----

// The results have the operand's batch dimensions and element type.
func.func @slogdet_result_types(%a: tensor<2x3x3xf32>) {
  // expected-error @+2 {{'adjit.slogdet' op inferred type(s) 'tensor<2xf32>', 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>', 'tensor<3xf32>'}}
  // expected-error @+1 {{'adjit.slogdet' op failed to infer returned types}}
  %0:2 = "adjit.slogdet"(%a) : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<3xf32>)
  return
}

// -----

func.func @slogdet_i32(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{'adjit.slogdet' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0:2 = "adjit.slogdet"(%a) : (tensor<3x3xi32>) -> (tensor<i32>, tensor<i32>)
  return
}

// -----

func.func @lu_of_a_vector(%a: tensor<3xf32>) {
  // expected-error @+1 {{'adjit.lu' op operand 'tensor<3xf32>' is not a (batch of) matrices}}
  %0:3 = adjit.lu %a : tensor<3xf32>
  return
}

// -----

// k = min(m, n) pivots, a permutation of the m rows.
func.func @lu_result_types(%a: tensor<2x3x5xf32>) {
  // expected-error @+2 {{'adjit.lu' op inferred type(s) 'tensor<2x3x5xf32>', 'tensor<2x3xi32>', 'tensor<2x3xi32>' are incompatible with return type(s) of operation 'tensor<2x3x5xf32>', 'tensor<2x5xi32>', 'tensor<2x3xi32>'}}
  // expected-error @+1 {{'adjit.lu' op failed to infer returned types}}
  %0:3 = "adjit.lu"(%a) : (tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x5xi32>, tensor<2x3xi32>)
  return
}

// -----

func.func @lu_i32(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{'adjit.lu' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0:3 = "adjit.lu"(%a) : (tensor<3x3xi32>) -> (tensor<3x3xi32>, tensor<3xi32>, tensor<3xi32>)
  return
}

// -----

func.func @lu_pivots_to_permutation_too_small(%p: tensor<2x3xi32>) {
  // expected-error @+1 {{'adjit.lu_pivots_to_permutation' op size 2 is smaller than the 3 pivots of each row}}
  %0 = adjit.lu_pivots_to_permutation %p, size = 2 : tensor<2x3xi32> -> tensor<2x2xi32>
  return
}

// -----

func.func @lu_pivots_to_permutation_shape(%p: tensor<2x3xi32>) {
  // expected-error @+1 {{'adjit.lu_pivots_to_permutation' op result type 'tensor<2x5xi32>' does not have the expected shape [2, 4]}}
  %0 = adjit.lu_pivots_to_permutation %p, size = 4 : tensor<2x3xi32> -> tensor<2x5xi32>
  return
}

// -----

func.func @lu_pivots_to_permutation_of_a_scalar(%p: tensor<i32>) {
  // expected-error @+1 {{'adjit.lu_pivots_to_permutation' op pivots 'tensor<i32>' is not a (batch of) vectors}}
  %0 = adjit.lu_pivots_to_permutation %p, size = 4 : tensor<i32> -> tensor<4xi32>
  return
}

// -----

func.func @eigh_not_square(%a: tensor<3x2xf64>) {
  // expected-error @+1 {{'adjit.eigh' op operand 'tensor<3x2xf64>' is not a (batch of) square matrices}}
  %0:2 = adjit.eigh %a : tensor<3x2xf64>
  return
}

// -----

// The eigenvalues are [batch..., n], the eigenvectors the operand's type.
func.func @eigh_result_types(%a: tensor<3x3xf32>) {
  // expected-error @+2 {{'adjit.eigh' op inferred type(s) 'tensor<3xf32>', 'tensor<3x3xf32>' are incompatible with return type(s) of operation 'tensor<f32>', 'tensor<3x3xf32>'}}
  // expected-error @+1 {{'adjit.eigh' op failed to infer returned types}}
  %0:2 = "adjit.eigh"(%a) : (tensor<3x3xf32>) -> (tensor<f32>, tensor<3x3xf32>)
  return
}

// -----

func.func @qr_of_a_vector(%a: tensor<5xf32>) {
  // expected-error @+1 {{'adjit.qr' op operand 'tensor<5xf32>' is not a (batch of) matrices}}
  %0:2 = adjit.qr %a : tensor<5xf32>
  return
}

// -----

// Q is [batch..., m, min(m, n)], R [batch..., min(m, n), n].
func.func @qr_result_types(%a: tensor<2x5x3xf64>) {
  // expected-error @+2 {{'adjit.qr' op inferred type(s) 'tensor<2x5x3xf64>', 'tensor<2x3x3xf64>' are incompatible with return type(s) of operation 'tensor<2x5x5xf64>', 'tensor<2x5x3xf64>'}}
  // expected-error @+1 {{'adjit.qr' op failed to infer returned types}}
  %0:2 = "adjit.qr"(%a) : (tensor<2x5x3xf64>) -> (tensor<2x5x5xf64>, tensor<2x5x3xf64>)
  return
}

// -----

// QR factors f32 or f64 only.
func.func @qr_of_integers(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{'adjit.qr' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values, but got 'tensor<3x3xi32>'}}
  %0:2 = "adjit.qr"(%a) : (tensor<3x3xi32>) -> (tensor<3x3xi32>, tensor<3x3xi32>)
  return
}

// -----

func.func @svd_of_a_scalar(%a: tensor<f64>) {
  // expected-error @+1 {{'adjit.svd' op operand 'tensor<f64>' is not a (batch of) matrices}}
  %0:3 = adjit.svd %a : tensor<f64>
  return
}

// -----

// U is [batch..., m, k], s [batch..., k], Vh [batch..., k, n].
func.func @svd_result_types(%a: tensor<4x2xf32>) {
  // expected-error @+2 {{'adjit.svd' op inferred type(s) 'tensor<4x2xf32>', 'tensor<2xf32>', 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>', 'tensor<2xf32>', 'tensor<2x2xf32>'}}
  // expected-error @+1 {{'adjit.svd' op failed to infer returned types}}
  %0:3 = "adjit.svd"(%a) : (tensor<4x2xf32>) -> (tensor<4x4xf32>, tensor<2xf32>, tensor<2x2xf32>)
  return
}

// -----

func.func @solve_result_type(%a: tensor<3x3xf32>, %b: tensor<3x1xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'adjit.solve' op failed to verify that all of {b, result} have same type}}
  %0 = adjit.solve %a, %b : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @argsort_of_a_scalar(%x: tensor<f32>) -> tensor<i32> {
  // expected-error @+1 {{'adjit.argsort' op sorts rows along the last dimension, but 'tensor<f32>' has none}}
  %0 = adjit.argsort %x : (tensor<f32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @argsort_of_another_shape(%x: tensor<2x3xf32>) -> tensor<3x2xi32> {
  // expected-error @+1 {{'adjit.argsort' op result type 'tensor<3x2xi32>' is neither the operand's shape [2, 3] nor that shape with fewer positions along the last dimension}}
  %0 = adjit.argsort %x : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

func.func @argsort_of_more_positions(%x: tensor<2x3xf32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'adjit.argsort' op result type 'tensor<2x4xi32>' is neither the operand's shape [2, 3] nor that shape with fewer positions along the last dimension}}
  %0 = adjit.argsort %x : (tensor<2x3xf32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @argsort_of_bools(%x: tensor<4xi1>) -> tensor<4xi32> {
  // expected-error @+1 {{'adjit.argsort' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.argsort %x : (tensor<4xi1>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @argsort_as_floats(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'adjit.argsort' op result #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = adjit.argsort %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @search_sorted_in_a_matrix(%a: tensor<2x2xf32>, %v: tensor<3xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{'adjit.search_sorted' op searches a vector, but sorted is 'tensor<2x2xf32>'}}
  %0 = adjit.search_sorted %a, %v : (tensor<2x2xf32>, tensor<3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @search_sorted_of_two_types(%a: tensor<4xf32>, %v: tensor<3xf64>) -> tensor<3xi32> {
  // expected-error @+1 {{'adjit.search_sorted' op sorted element type 'f32' differs from values element type 'f64'}}
  %0 = adjit.search_sorted %a, %v : (tensor<4xf32>, tensor<3xf64>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @search_sorted_of_another_shape(%a: tensor<4xf32>, %v: tensor<3xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{'adjit.search_sorted' op result type 'tensor<2xi32>' does not have the expected shape [3]}}
  %0 = adjit.search_sorted %a, %v : (tensor<4xf32>, tensor<3xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @argsort_past_i32(%x: tensor<2147483649xf32>) -> tensor<2147483649xi32> {
  // expected-error @+1 {{'adjit.argsort' op the largest index 2147483648 does not fit 'i32'}}
  %0 = adjit.argsort %x : (tensor<2147483649xf32>) -> tensor<2147483649xi32>
  return %0 : tensor<2147483649xi32>
}

// -----

func.func @search_sorted_past_i32(%a: tensor<2147483648xf32>, %v: tensor<3xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{'adjit.search_sorted' op the largest position 2147483648 does not fit 'i32'}}
  %0 = adjit.search_sorted %a, %v : (tensor<2147483648xf32>, tensor<3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
