// Every op of the adjit dialect, reached through the public API, with inputs
// in each op's domain: the GPU tests compile each one (and its gradient) to
// PTX, and on a GPU compare what it computes with the CPU. Ops that only
// derivatives emit (pad, scatter_add) are reached through the gradients of
// slice and take.
#pragma once

#include "test_support.h"

#include <string>
#include <vector>

namespace adjit::test::gpu_cases {

using ad::Fn;

struct OpCase {
  std::string name;
  Fn f;
  std::vector<Array> inputs;
  bool differentiable = true;  // gradients are checked too (f32 inputs only)
};

inline Array positive(const Shape& shape, uint64_t seed) {
  return Array::uniform(shape, seed, 0.4, 2.0);
}
inline Array signed_values(const Shape& shape, uint64_t seed) {
  return Array::uniform(shape, seed, -1.8, 1.8);
}

inline std::vector<OpCase> op_cases() {
  Array a = signed_values({3, 5}, 1), b = signed_values({3, 5}, 2), p = positive({3, 5}, 3);
  Array bools = Array::uniform({3, 5}, 4, 0, 2, DType::i32);
  Array indices = Array::uniform({4}, 5, 0, 3, DType::i32);
  Array matrices = signed_values({2, 3, 3}, 6), rhs = signed_values({2, 3, 2}, 7);
  return {
      {"constant", FN(x[0] + full({3, 5}, 2.5)), {a}},
      {"iota", FN(x[0] * cast(arange(5), DType::f32)), {a}},
      {"neg", FN(-x[0]), {a}},
      {"abs", FN(abs(x[0])), {a}},
      {"sign", FN(sign(x[0]) * x[0]), {a}},
      {"exp", FN(exp(x[0])), {a}},
      {"log", FN(log(x[0])), {p}},
      {"sqrt", FN(sqrt(x[0])), {p}},
      {"rsqrt", FN(rsqrt(x[0])), {p}},
      {"sin", FN(sin(x[0])), {a}},
      {"cos", FN(cos(x[0])), {a}},
      {"tanh", FN(tanh(x[0])), {a}},
      {"logistic", FN(sigmoid(x[0])), {a}},
      {"erf", FN(erf(x[0])), {a}},
      {"floor", FN(floor(x[0]) + x[0]), {a}},
      {"ceil_round", FN(ceil(x[0] * 2.0) + round(x[0] * 3.0) + x[0]), {a}},
      {"tan", FN(tan(x[0] * 0.8)), {a}},
      {"asin_acos_atanh", FN(asin(x[0] * 0.5) + acos(x[0] * 0.5) * atanh(x[0] * 0.5)), {a}},
      {"atan", FN(atan(x[0] * 2.0)), {a}},
      {"sinh_cosh", FN(sinh(x[0]) * cosh(x[0] * 0.5)), {a}},
      {"asinh_acosh", FN(asinh(x[0] * 3.0) + acosh(x[0] + 1.0)), {p}},
      {"cbrt", FN(cbrt(x[0])), {p}},
      {"atan2", FN(atan2(x[0], x[1])), {a, b}},
      {"array_routines",
       FN(prod(x[0] + 2.0, {1}, true) + adjit::std(x[0], {1}, true) + logaddexp(x[0], x[1]) +
          roll(x[0], 2, 1) * flip(x[0], {0}) + tril(x[0], 1) + pad(diff(x[0], 1, 1), {0, 0}, {0, 1}) +
          tile(slice(x[0], {0, 0}, {1, 5}), {3, 1})),
       {a, b}},
      {"argsort_sort",
       FN(sort(x[0], 1) + take_along_axis(x[0], argsort(x[0], 0, true), 0) +
          median(x[0], {1}, true) + sum(top_k(x[0], 2).values, {1}, true)),
       {a}},
      {"search_interp",
       FN(interp(x[0], sort(reshape(x[1], {15}), 0), reshape(x[1], {15}) * 2.0) +
          cast(searchsorted(sort(reshape(x[1], {15}), 0), x[0], "right"), DType::f32)),
       {a, b}},
      {"unique_nonzero",
       FN(unique(x[0], 20, 0.0) + cast(flatnonzero(x[0] > 0.0, 20, -1), DType::f32) +
          cast(unique_all(x[0], 20).counts, DType::f32)),
       {a}},
      {"cumulative", FN(cumsum(x[0], 1) + cummax(x[0], 0, true) * cumlogsumexp(x[0], 1)), {a}},
      // Kept well conditioned: x + 4 I and x x^T + 4 I.
      {"linear_algebra",
       FN(linalg::solve(x[0] + 4.0 * eye(3), x[1]) +
          linalg::cho_solve(linalg::cholesky(matmul(x[0], transpose(x[0], {0, 2, 1})) + 4.0 * eye(3)), x[1]) +
          linalg::triangular_solve(x[0] + 4.0 * eye(3), x[1], /*lower=*/false, /*transpose_a=*/true)),
       {matrices, rhs}},
      {"determinant", FN(linalg::det(x[0] + 4.0 * eye(3)) + linalg::slogdet(x[0] + 4.0 * eye(3)).logabsdet), {matrices}},
      {"symmetric_eigen",
       FN(linalg::eigh(x[0]).eigenvectors * linalg::eigh(x[0]).eigenvectors +
          expand_dims(linalg::eigvalsh(x[0]), -1)),
       {matrices}},
      {"qr", FN(linalg::qr(x[0]).q * x[0] + linalg::qr(x[0]).r), {matrices}},
      {"svd", FN(linalg::svd(x[0]).u * linalg::svd(x[0]).u + expand_dims(linalg::svdvals(x[0]), -1)), {matrices}},
      {"pinv_lstsq",
       FN(linalg::pinv(x[0] + 4.0 * eye(3)) +
          sum(linalg::lstsq(reshape(slice(x[0], {0, 0, 0}, {1, 3, 3}), {3, 3}) + 4.0 * eye(3),
                            reshape(slice(x[1], {0, 0, 0}, {1, 3, 2}), {3, 2}))
                  .x)),
       {matrices, rhs}},
      {"lu_det",
       FN(sum(linalg::lu(x[0]).u, {-1}, true) +
          linalg::lu_solve(linalg::lu_factor(x[0] + 4.0 * eye(3)), x[1]) *
              expand_dims(expand_dims(linalg::det(x[0]), -1), -1)),
       {matrices, rhs}},
      {"relu", FN(relu(x[0]) * x[0]), {a}},
      {"integer_pow", FN(integer_pow(x[0], 3) + integer_pow(x[0], -2)), {p}},
      {"log1p_expm1", FN(log1p(x[0]) + expm1(x[0])), {p}},
      {"add", FN(x[0] + x[1]), {a, b}},
      {"sub", FN(x[0] - x[1]), {a, b}},
      {"mul", FN(x[0] * x[1]), {a, b}},
      {"div", FN(x[0] / x[1]), {a, p}},
      {"pow", FN(pow(x[0], x[1])), {p, b}},
      {"rem", FN(fmod(x[0], x[1]) + remainder(x[0], x[1]) + floor_divide(x[0], x[1])), {a, p}},
      {"max", FN(maximum(x[0], x[1])), {a, b}},
      {"min", FN(minimum(x[0], x[1])), {a, b}},
      {"compare_select", FN(where(x[0] < x[1], x[0] * 2.0, x[1])), {a, b}},
      {"and_or_not",
       FN(where(logical_or(logical_and(x[0] > 0.0, x[1] > 0.0), logical_not(x[0] > 1.0)), x[0], x[1])),
       {a, b}},
      {"stop_gradient", FN(x[0] * stop_gradient(x[0])), {a}},
      {"convert", FN(cast(cast(x[0] * 3.0, DType::i32), DType::f32) + x[0]), {a}},
      {"convert_f64", FN(cast(cast(x[0], DType::f64) * 1.5, DType::f32)), {a}},
      {"broadcast_in_dim", FN(x[0] * broadcast_to(x[1], {3, 5})), {a, signed_values({5}, 6)}},
      {"reshape", FN(reshape(x[0], {5, 3}) * 2.0), {a}},
      {"transpose", FN(transpose(x[0]) * 2.0), {a}},
      {"slice_pad", FN(slice(x[0], {1, 0}, {3, 5}, {1, 2})), {a}},
      {"concatenate", FN(concat({x[0], x[1]}, 0)), {a, b}},
      {"gather_scatter_add", FN(take(x[0], x[1], 0)), {a, indices}},
      {"segment_sum", FN(segment_sum(x[0], x[1], 3) + cast(bincount(x[1], 3), DType::f32)),
       {signed_values({4, 3}, 11), indices}},
      // Clamped: a segment no index reaches holds -inf (+inf).
      {"scatter_extremum", FN(maximum(segment_max(x[0], x[1], 3), -10.0) -
                              minimum(segment_min(x[0], x[1], 3), 10.0)),
       {signed_values({4, 3}, 12), indices}},
      {"reduce_sum", FN(sum(x[0], {1})), {a}},
      {"reduce_max", FN(max(x[0], {0})), {a}},
      {"reduce_min", FN(min(x[0], {1})), {a}},
      {"reduce_all", FN(sum(x[0] * x[0])), {a}},
      // A column sum split over row chunks, and a long sum split over blocks.
      {"reduce_columns", FN(sum(x[0] * x[0], {0})), {signed_values({300, 64}, 8)}},
      {"reduce_long", FN(max(x[0], {0}) + sum(exp(x[0]), {0})), {signed_values({40000}, 9)}},
      // Large enough for the GPU's fat threads: 4 points each, and a sum in
      // unrolled chunks.
      {"elementwise_large", FN(tanh(x[0]) * 2.0 + x[0]), {signed_values({1 << 20}, 10)}},
      {"argmax", FN(cast(argmax(x[0], 1), DType::f32)), {a}, false},
      {"dot_general", FN(matmul(x[0], x[1])), {a, signed_values({5, 4}, 7)}},
      {"softmax", FN(softmax(x[0], 1)), {a}},
      {"integer_ops", FN(cast(x[0] * 3 + 1 - x[0] / 2, DType::f32)), {bools}, false},
      {"dynamic_slice_update",
       FN(dynamic_update_slice(x[0], dynamic_slice(x[0], {x[1], 1}, {2, 3}) * 2.0, {1, x[1]})),
       {a, Array::scalar<int32_t>(2)}},
      // Composites of the ops above, in the shapes they make.
      {"conv", FN(conv(x[0], x[1], {.padding = Padding::same})),
       {signed_values({2, 6, 6, 16}, 11), signed_values({3, 3, 16, 4}, 12)}},
      {"conv_depthwise", FN(conv(x[0], x[1], {.padding = Padding::same, .feature_group_count = 3})),
       {signed_values({2, 6, 6, 3}, 13), signed_values({3, 3, 1, 3}, 14)}},
      {"pools", FN(max_pool(x[0], {3, 3}, {.strides = {2, 2}, .padding = Padding::same}) +
                   avg_pool(x[0], {2, 2}, {.strides = {2, 2}})),
       {signed_values({2, 6, 6, 3}, 15)}},
      {"einsum", FN(einsum("bij,bjk->bik", x[0], x[1]) * einsum("ii", x[2])),
       {signed_values({2, 3, 4}, 16), signed_values({2, 4, 5}, 17), signed_values({3, 3}, 18)}},
  };
}

}  // namespace adjit::test::gpu_cases
