#ifndef ADJIT_DETAIL_CONTROLFLOW_H
#define ADJIT_DETAIL_CONTROLFLOW_H

// The non-template core of cond, while_loop, fori_loop and scan: each body
// is traced into a private function (trace_function), whose ops then move
// into a region of an adjit.cond / adjit.for / adjit.while op.

#include "adjit/detail/Transforms.h"

#include <concepts>
#include <optional>
#include <utility>

namespace adjit {

/// A loop bound of fori_loop: a C++ integer of any type (a constant of the
/// trace: `fori_loop(0, v.size(), ...)`) or a 0-d integer Tensor (a bound
/// known only at run time).
struct LoopBound {
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  LoopBound(T value) {
    if (std::in_range<int64_t>(value))
      constant = static_cast<int64_t>(value);
    else
      beyond_int64 = static_cast<uint64_t>(value);  // reported with the loop's line
  }
  LoopBound(const Tensor& t) : tensor(&t) {}
  std::optional<int64_t> constant;
  std::optional<uint64_t> beyond_int64;  ///< an unsigned value past int64
  const Tensor* tensor = nullptr;
};

/// Options of fori_loop, scan and while_loop.
struct LoopOptions {
  /// Reverse mode keeps the carries of every k-th iteration only and runs
  /// the loop again segment by segment in the backward pass: memory for
  /// about T/k + k carries instead of T (and no other per-iteration values;
  /// a scan's stacked outputs are kept, as they are results), for about one
  /// more forward pass. k = sqrt(T) minimizes the memory. With T not a
  /// multiple of k, the last T mod k iterations form one more segment.
  /// 0: keep what makes the backward pass fastest.
  int64_t checkpoint_every = 0;
};

/// The predicate of cond; it records the caller's source line.
struct Predicate {
  Predicate(const Tensor& t, SourceLocation loc = SourceLocation::current())
      : tensor(t), location(loc) {}
  const Tensor& tensor;
  SourceLocation location;
};

namespace detail {

/// The flat results of then_fn or else_fn (traced on `operands`), as pred says.
std::vector<Tensor> cond_of(const Tensor& pred, const TracedFunction& then_fn,
                            const TracedFunction& else_fn, const std::vector<Tensor>& operands,
                            SourceLocation loc);

/// A counted loop. `body` was traced on (i, carries..., rows of xs...) and
/// returns (carries..., rows of the stacked outputs...). Returns the final
/// carries, then the stacked outputs.
std::vector<Tensor> for_of(const char* op, const LoopBound& lower, const LoopBound& upper,
                           const TracedFunction& body, const std::vector<Tensor>& init,
                           const std::vector<size_t>& init_layout, const std::vector<Tensor>& xs,
                           const LoopOptions& options, SourceLocation loc);

/// `cond_fn` and `body_fn` were traced on the carries.
std::vector<Tensor> while_of(const TracedFunction& cond_fn, const TracedFunction& body_fn,
                             const std::vector<Tensor>& init,
                             const std::vector<size_t>& init_layout, const LoopOptions& options,
                             SourceLocation loc);

/// Appends the Tensor leaves of a body's result to `flat`, in order; vector
/// lengths go to `layout`.
template <class T>
void flatten_into(const T& value, std::vector<Tensor>& flat, std::vector<size_t>& layout) {
  StructureTraits<T>::flatten_result(value, flat, layout);
}

/// The layout (vector lengths) of a carry made of Tensors.
template <class Carry>
std::vector<size_t> layout_of(const Carry& carry) {
  std::vector<Tensor> flat;
  std::vector<size_t> layout;
  flatten_into(carry, flat, layout);
  return layout;
}

/// Parameters of the function being traced, shaped like `carry`.
template <class Carry>
Carry traced_like(const Carry& carry, ParameterFn parameter) {
  return StructureTraits<Carry>::make_traced(carry, parameter);
}

}  // namespace detail
}  // namespace adjit

#endif
