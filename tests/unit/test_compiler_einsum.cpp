// einsum against a reference that sums over every assignment of the
// subscripts, its gradients through check_grads in both modes, and its
// errors.
#include "test_support.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace adjit;
using namespace adjit::test;
using namespace adjit::test::ad;

namespace {

Vec wave(const Shape& shape, double phase) { return sine_wave(shape, 0.37, phase); }

// The definition: out[o] = sum over the other subscripts of the product of
// the operands. `letters` spells each operand's subscripts (an ellipsis
// written out as letters); a dimension of size 1 broadcasts.
Vec einsum_reference(const std::vector<std::string>& terms, const std::string& out,
                     const std::vector<Vec>& xs, const std::vector<Shape>& shapes,
                     Shape& out_shape) {
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t d = 0; d < terms[i].size(); ++d)
      size[terms[i][d]] = std::max(size[terms[i][d]], shapes[i][d]);
  std::string all;
  for (auto [c, n] : size) all += c;
  Shape all_shape;
  for (char c : all) all_shape.push_back(size[c]);
  out_shape.clear();
  for (char c : out) out_shape.push_back(size[c]);
  Vec result(static_cast<size_t>(count(out_shape)), 0.0);
  for (int64_t flat = 0; flat < count(all_shape); ++flat) {
    std::vector<int64_t> at = unravel(flat, all_shape);
    auto index_of = [&](char c) { return at[all.find(c)]; };
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      std::vector<int64_t> index;
      for (size_t d = 0; d < terms[i].size(); ++d)
        index.push_back(shapes[i][d] == 1 ? 0 : index_of(terms[i][d]));
      product *= xs[i][ravel(index, shapes[i])];
    }
    std::vector<int64_t> o;
    for (char c : out) o.push_back(index_of(c));
    result[ravel(o, out_shape)] += product;
  }
  return result;
}

struct EinsumCase {
  std::string subscripts;          // as given to einsum
  std::vector<std::string> terms;  // the reference's: ellipses spelled out
  std::string out;
  std::vector<Shape> shapes;
};

std::vector<EinsumCase> einsum_cases() {
  return {
      {"ij,jk->ik", {"ij", "jk"}, "ik", {{2, 3}, {3, 4}}},
      {"ij,jk", {"ij", "jk"}, "ik", {{2, 3}, {3, 4}}},
      {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 3, 4}, {2, 4, 5}}},
      {"bhtd,bhsd->bhts", {"bhtd", "bhsd"}, "bhts", {{2, 3, 4, 5}, {2, 3, 6, 5}}},
      {"ii->i", {"ii"}, "i", {{3, 3}}},
      {"ii", {"ii"}, "", {{4, 4}}},
      {"iij->j", {"iij"}, "j", {{3, 3, 2}}},
      {"ijk->kji", {"ijk"}, "kji", {{2, 3, 4}}},
      {"ij->", {"ij"}, "", {{2, 3}}},
      {"i,i->", {"i", "i"}, "", {{5}, {5}}},
      {"i,j->ij", {"i", "j"}, "ij", {{3}, {4}}},
      {"ij,ij->ij", {"ij", "ij"}, "ij", {{2, 3}, {2, 3}}},
      {"ba,ab", {"ba", "ab"}, "", {{2, 3}, {3, 2}}},
      {"Ba,a", {"Ba", "a"}, "B", {{2, 3}, {3}}},
      {"aib,bic->aic", {"aib", "bic"}, "aic", {{2, 3, 4}, {4, 3, 5}}},
      {"ij,jk,kl->il", {"ij", "jk", "kl"}, "il", {{2, 3}, {3, 4}, {4, 5}}},
      {"abc,cd,bd->a", {"abc", "cd", "bd"}, "a", {{2, 3, 4}, {4, 5}, {3, 5}}},
      {"i,->i", {"i", ""}, "i", {{3}, {}}},
      // The ellipsis broadcasts (1 against 5) and leads the implicit output.
      {"...ij,...jk->...ik", {"xyij", "yjk"}, "xyik", {{2, 1, 3, 4}, {5, 4, 2}}},
      {"...ij,...jk", {"xyij", "yjk"}, "xyik", {{2, 1, 3, 4}, {5, 4, 2}}},
      // Letters broadcast too, 1 against n (numpy's and JAX's), contracted
      // ones included.
      {"ij,ij->ij", {"ij", "ij"}, "ij", {{1, 3}, {2, 3}}},
      {"ij,jk->ik", {"ij", "jk"}, "ik", {{2, 1}, {3, 4}}},
      {"ij,i->j", {"ij", "i"}, "j", {{1, 3}, {4}}},
      // Left out of the output, ellipsis dimensions are summed (as jnp.einsum).
      {"...i->i", {"xi"}, "i", {{2, 3}}},
  };
}

}  // namespace

TEST_CASE("tracer ops: einsum against its definition (f32, f64, i32)", "[tracer][ops][einsum]") {
  for (const EinsumCase& c : einsum_cases())
    for (DType dtype : {F32, F64, I32}) {
      INFO(c.subscripts << " " << type_string(dtype, c.shapes[0]));
      std::vector<Vec> xs;
      std::vector<Array> arrays;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        Vec v = wave(c.shapes[i], static_cast<double>(i));
        if (dtype == I32) v = map(v, [](double x) { return std::round(4 * x); });
        xs.push_back(values(make(v, c.shapes[i], dtype)));
        arrays.push_back(make(v, c.shapes[i], dtype));
      }
      Shape out_shape;
      Vec want = einsum_reference(c.terms, c.out, xs, c.shapes, out_shape);
      std::string subscripts = c.subscripts;
      Array got = jit([subscripts](std::vector<Tensor> t) { return einsum(subscripts, t); })(arrays);
      double tol = dtype == F32 ? 1e-5 : dtype == F64 ? 1e-13 : 0;
      CHECK_ARRAY("einsum", got, dtype, out_shape, want, (Tol{tol, tol}));
    }
}

TEST_CASE("ad ops: einsum's gradients through check_grads (both modes)", "[ad][ad-ops][einsum]") {
  for (const EinsumCase& c : einsum_cases()) {
    INFO(c.subscripts);
    std::vector<Array> args;
    for (size_t i = 0; i < c.shapes.size(); ++i)
      args.push_back(make(wave(c.shapes[i], static_cast<double>(i)), c.shapes[i], F64));
    std::string subscripts = c.subscripts;
    expect_grads(c.subscripts, FN(sum(einsum(subscripts, x) * einsum(subscripts, x))), args);
  }
}

TEST_CASE("tracer ops: einsum's overloads, bools and dtype promotion", "[tracer][ops][einsum]") {
  Array a = Array::from<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Array b = Array::from<double>({1, 0, 0, 1, 1, 1}, {3, 2});
  Array product = jit([](Tensor a, Tensor b) { return einsum("ij,jk->ik", a, b); })(a, b);
  CHECK(mismatch(product, F64, {2, 2}, {4, 5, 10, 11}, kExact) == "");
  Array trace = jit([](Tensor a) { return einsum("ii", a); })(Array::from<float>({1, 2, 3, 4}, {2, 2}));
  CHECK(trace.item<float>() == 5.0f);
  Array chain = jit([](Tensor a, Tensor b, Tensor c) { return einsum("i,ij,j->", a, b, c); })(
      Array::from<float>({1, 2}, {2}), Array::from<float>({1, 2, 3, 4}, {2, 2}),
      Array::from<float>({1, -1}, {2}));
  CHECK(chain.item<float>() == -3.0f);  // [1 2] [[1 2] [3 4]] [1 -1] = [7 10] . [1 -1]
  // Bools: whether any product is true, as matmul.
  Array any = jit([](Tensor a, Tensor b) { return einsum("ij,jk->ik", a > 0.0, b > 0.0); })(
      Array::from<float>({1, 0, 0, 0}, {2, 2}), Array::from<float>({0, 1, 0, 0}, {2, 2}));
  CHECK(mismatch(any, I1, {2, 2}, {0, 1, 0, 0}, kExact) == "");
}

TEST_CASE("tracer ops: einsum's errors name the subscripts, the operands and the line",
          "[tracer][ops][einsum]") {
  auto message = [](std::string subscripts, std::vector<Shape> shapes) {
    return what_of<TraceError>([&] {
      std::vector<Array> arrays;
      for (const Shape& s : shapes) arrays.push_back(Array::zeros(s));
      jit([subscripts](std::vector<Tensor> t) { return einsum(subscripts, t); })(arrays);
    });
  };
  std::string e = message("ij,jk->ik", {{2, 3}, {4, 5}});
  INFO(e);
  for (const char* part : {"adjit::einsum", "subscript j has size 3 in one operand and 4 in f32[4,5]",
                           "test_compiler_einsum.cpp:"})
    CHECK(contains(e, part));
  CHECK(contains(message("ii->i", {{1, 3}}), "subscript i is repeated in f32[1,3] with sizes 1 and 3"));
  CHECK(contains(message("ij,jk", {{2, 3}}), "has 2 input terms for 1 operands"));
  CHECK(contains(message("ijk", {{2, 3}}), "term 0 has 3 subscripts for operand f32[2,3] of rank 2"));
  CHECK(contains(message("ij->ik", {{2, 3}}), "output subscript k is in no input"));
  CHECK(contains(message("ij->ii", {{2, 3}}), "output subscript i appears twice"));
  CHECK(contains(message("i2->i", {{2, 3}}), "'2' is not a subscript"));
  CHECK(contains(message("i....->i", {{2, 3}}), "an ellipsis is three dots"));
  CHECK(contains(message("i,j->ij->i", {{2}, {3}}), "has more than one '->'"));
  CHECK(contains(message("i,j->i,j", {{2}, {3}}), "more than one output term"));
}
