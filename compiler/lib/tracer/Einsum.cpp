// einsum: numpy's subscripts built from other ops. Each operand first takes
// its repeated subscripts' diagonals and sums out the subscripts no one else
// needs; then the operands are contracted left to right, each pair by one
// dot_general over its shared subscripts (those needed later stay batch
// dimensions); a transpose puts the result in the output's order.
#include "Promotion.h"
#include "Recorder.h"

#include "adjit/Tensor.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

namespace adjit {

using detail::describe;
using detail::Recorder;

namespace {

namespace ir = mlir::adjit;

// A subscript: a letter, or (from 256 on) one dimension of the ellipsis,
// counted from its first.
using Label = int;
constexpr Label kEllipsis = 256;

std::string label_name(Label l) {
  return l < kEllipsis ? std::string(1, static_cast<char>(l))
                       : fmt::format("...[{}]", l - kEllipsis);
}

// One side of "->": terms separated by commas; "..." at most once a term.
struct Term {
  std::vector<Label> letters_before, letters_after;  // around the ellipsis
  bool ellipsis = false;
};

std::vector<Term> parse_terms(Recorder& r, const std::string& text, const std::string& whole) {
  std::vector<Term> terms(1);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    Term& term = terms.back();
    if (c == ',') {
      terms.emplace_back();
    } else if (c == '.') {
      if (text.compare(i, 3, "...") != 0 || term.ellipsis)
        r.fail(fmt::format("'{}': an ellipsis is three dots, at most once a term", whole));
      term.ellipsis = true;
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      (term.ellipsis ? term.letters_after : term.letters_before).push_back(c);
    } else if (c != ' ') {
      r.fail(fmt::format("'{}': '{}' is not a subscript (letters, '...', ',' and '->')", whole, c));
    }
  }
  return terms;
}

// The labels of a term over an operand of `rank` dimensions: the ellipsis
// stands for the dimensions its letters leave, right-aligned among
// `ellipsis_rank` ellipsis labels.
std::vector<Label> labels_of(const Term& term, int64_t rank, int64_t ellipsis_rank) {
  std::vector<Label> labels(term.letters_before);
  int64_t covered = rank - static_cast<int64_t>(term.letters_before.size() + term.letters_after.size());
  for (int64_t e = ellipsis_rank - covered; e < ellipsis_rank; ++e) labels.push_back(kEllipsis + static_cast<Label>(e));
  labels.insert(labels.end(), term.letters_after.begin(), term.letters_after.end());
  return labels;
}

struct Labeled {
  Tensor tensor;
  std::vector<Label> labels;  // one per dimension
};

int position(const std::vector<Label>& labels, Label l) {
  return static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}
bool has(const std::vector<Label>& labels, Label l) {
  return std::find(labels.begin(), labels.end(), l) != labels.end();
}

// The diagonal of each subscript an operand repeats ("ii->i"): the operand
// times the identity over the two dimensions, summed over the second.
Labeled diagonals(Labeled x, SourceLocation loc) {
  for (size_t a = 0; a < x.labels.size(); ++a)
    for (size_t b = a + 1; b < x.labels.size();) {
      if (x.labels[a] != x.labels[b]) {
        ++b;
        continue;
      }
      int64_t n = x.tensor.shape()[a];
      Shape row(x.labels.size(), 1), column(x.labels.size(), 1);
      row[a] = n;
      column[b] = n;
      Tensor eye = cast(adjit::equal(reshape(arange(n, DType::i32, loc), row, loc),
                              reshape(arange(n, DType::i32, loc), column, loc), loc),
                        x.tensor.dtype(), loc);
      x.tensor = sum(x.tensor * eye, {static_cast<int>(b)}, false, loc);
      x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(b));
    }
  return x;
}

// Sums out the dimensions whose labels `keep` rejects.
template <class Keep>
Labeled sum_out(Labeled x, Keep keep, SourceLocation loc) {
  Axes axes;
  std::vector<Label> kept;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep(x.labels[d])) kept.push_back(x.labels[d]);
    else axes.push_back(static_cast<int>(d));
  }
  if (axes.empty()) return x;
  return {sum(x.tensor, axes, false, loc), kept};
}

// x with each dimension of size 1 whose label has size n elsewhere
// broadcast to n (an ellipsis dimension broadcasts as numpy's).
Labeled broadcast_labels(Labeled x, const std::map<Label, int64_t>& sizes, SourceLocation loc) {
  Shape shape = x.tensor.shape();
  for (size_t d = 0; d < shape.size(); ++d) shape[d] = sizes.at(x.labels[d]);
  if (shape != x.tensor.shape()) x.tensor = broadcast_to(x.tensor, shape, loc);
  return x;
}

}  // namespace

Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands,
              SourceLocation loc) {
  Recorder r("einsum", loc, {operands.empty() ? nullptr : &operands.front()});
  detail::AtUserLine at_user(loc);
  if (operands.empty()) r.fail("needs at least one operand");
  size_t arrow = subscripts.find("->");
  if (arrow != std::string::npos && subscripts.find("->", arrow + 2) != std::string::npos)
    r.fail(fmt::format("'{}' has more than one '->'", subscripts));
  std::vector<Term> inputs = parse_terms(r, subscripts.substr(0, arrow), subscripts);
  if (inputs.size() != operands.size())
    r.fail(fmt::format("'{}' has {} input terms for {} operands", subscripts, inputs.size(),
                       operands.size()));
  DType dtype = operands.front().dtype();
  for (const Tensor& t : operands) {
    r.require_operand(t);
    dtype = detail::promote(dtype, t.dtype());
  }
  // Of bools, whether any product (and) is true, counted in i32 (as matmul).
  bool logical = dtype == DType::i1;
  DType compute = logical ? DType::i32 : dtype;

  // Every operand's labels, and each label's size: across operands, 1
  // against n is n (numpy's and JAX's broadcasting, of letters and ellipsis
  // dimensions alike); one operand repeating a letter ("ii") must give it
  // one size, as numpy requires.
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    int64_t letters = static_cast<int64_t>(inputs[i].letters_before.size() + inputs[i].letters_after.size());
    int64_t rank = operands[i].rank();
    if (inputs[i].ellipsis ? rank < letters : rank != letters)
      r.fail(fmt::format("'{}': term {} has {} subscripts{} for operand {} of rank {}", subscripts,
                         i, letters, inputs[i].ellipsis ? " and an ellipsis" : "",
                         describe(operands[i]), rank));
    if (inputs[i].ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
  }
  std::vector<Labeled> terms;
  std::map<Label, int64_t> sizes;
  std::map<Label, int> uses;
  for (size_t i = 0; i < operands.size(); ++i) {
    Labeled x{r.convert(operands[i], compute),
              labels_of(inputs[i], operands[i].rank(), ellipsis_rank)};
    std::map<Label, int64_t> own_sizes;
    for (size_t d = 0; d < x.labels.size(); ++d) {
      Label l = x.labels[d];
      int64_t n = x.tensor.shape()[d];
      if (auto [own, first] = own_sizes.emplace(l, n); !first && own->second != n)
        r.fail(fmt::format("'{}': subscript {} is repeated in {} with sizes {} and {}",
                           subscripts, label_name(l), describe(operands[i]), own->second, n));
      auto [it, inserted] = sizes.emplace(l, n);
      if (!inserted && it->second != n) {
        if (it->second == 1 || n == 1)
          it->second = std::max(it->second, n);
        else
          r.fail(fmt::format("'{}': subscript {} has size {} in one operand and {} in {}",
                             subscripts, label_name(l), it->second, n, describe(operands[i])));
      }
      ++uses[l];
    }
    terms.push_back(std::move(x));
  }

  // The output's labels: as written (ellipsis dimensions it leaves out are
  // summed, as jnp.einsum does; numpy refuses), or numpy's implicit output:
  // the ellipsis, then the letters used once, in alphabetical order.
  std::vector<Label> output;
  if (arrow != std::string::npos) {
    std::vector<Term> out = parse_terms(r, subscripts.substr(arrow + 2), subscripts);
    if (out.size() != 1) r.fail(fmt::format("'{}' has more than one output term", subscripts));
    output = labels_of(out[0], static_cast<int64_t>(out[0].letters_before.size() + out[0].letters_after.size()) +
                                   (out[0].ellipsis ? ellipsis_rank : 0),
                       ellipsis_rank);
    std::set<Label> seen;
    for (Label l : output) {
      if (!sizes.count(l))
        r.fail(fmt::format("'{}': output subscript {} is in no input", subscripts, label_name(l)));
      if (!seen.insert(l).second)
        r.fail(fmt::format("'{}': output subscript {} appears twice", subscripts, label_name(l)));
    }
  } else {
    for (int64_t e = 0; e < ellipsis_rank; ++e) output.push_back(kEllipsis + static_cast<Label>(e));
    for (auto [l, count] : uses)
      if (l < kEllipsis && count == 1) output.push_back(l);
  }
  Shape result_shape;
  for (Label l : output) result_shape.push_back(sizes.at(l));
  r.check_size(compute, result_shape);

  // Whether a label is needed after operand i: by the output or a later operand.
  auto needed_after = [&](size_t i, Label l) {
    if (has(output, l)) return true;
    for (size_t j = i + 1; j < terms.size(); ++j)
      if (has(terms[j].labels, l)) return true;
    return false;
  };
  Labeled acc = diagonals(terms[0], loc);
  for (size_t i = 1; i < terms.size(); ++i) {
    Labeled next = diagonals(terms[i], loc);
    // Labels neither the other operand nor anything later needs are summed out now.
    acc = sum_out(acc, [&](Label l) { return has(next.labels, l) || needed_after(i, l); }, loc);
    next = sum_out(next, [&](Label l) { return has(acc.labels, l) || needed_after(i, l); }, loc);
    acc = broadcast_labels(acc, sizes, loc);
    next = broadcast_labels(next, sizes, loc);
    std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
    std::vector<Label> batch, lhs_free, rhs_free;
    for (size_t d = 0; d < acc.labels.size(); ++d) {
      Label l = acc.labels[d];
      if (!has(next.labels, l)) {
        lhs_free.push_back(l);
      } else if (needed_after(i, l)) {
        batch.push_back(l);
        lhs_batch.push_back(static_cast<int64_t>(d));
        rhs_batch.push_back(position(next.labels, l));
      } else {
        lhs_contract.push_back(static_cast<int64_t>(d));
        rhs_contract.push_back(position(next.labels, l));
      }
    }
    for (Label l : next.labels)
      if (!has(acc.labels, l)) rhs_free.push_back(l);
    std::vector<Label> labels(batch);
    labels.insert(labels.end(), lhs_free.begin(), lhs_free.end());
    labels.insert(labels.end(), rhs_free.begin(), rhs_free.end());
    Shape shape;
    for (Label l : labels) shape.push_back(sizes.at(l));
    acc = {r.emit<ir::DotGeneralOp>(r.type(compute, shape), r.value(acc.tensor),
                                    r.value(next.tensor), lhs_batch, rhs_batch, lhs_contract,
                                    rhs_contract),
           labels};
  }
  acc = diagonals(acc, loc);
  acc = sum_out(acc, [&](Label l) { return has(output, l); }, loc);
  acc = broadcast_labels(acc, sizes, loc);
  std::vector<int> perm;
  for (Label l : output) perm.push_back(position(acc.labels, l));
  bool identity = true;
  for (size_t d = 0; d < perm.size(); ++d) identity = identity && perm[d] == static_cast<int>(d);
  Tensor result = identity ? acc.tensor : transpose(acc.tensor, perm, loc);
  return logical ? not_equal(result, 0, loc) : result;
}

Tensor einsum(const std::string& subscripts, const Tensor& a, SourceLocation loc) {
  return einsum(subscripts, std::vector<Tensor>{a}, loc);
}
Tensor einsum(const std::string& subscripts, const Tensor& a, const Tensor& b,
              SourceLocation loc) {
  return einsum(subscripts, std::vector<Tensor>{a, b}, loc);
}
Tensor einsum(const std::string& subscripts, const Tensor& a, const Tensor& b, const Tensor& c,
              SourceLocation loc) {
  return einsum(subscripts, std::vector<Tensor>{a, b, c}, loc);
}

}  // namespace adjit
