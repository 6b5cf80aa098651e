#ifndef ADJIT_DETAIL_TRANSFORMS_H
#define ADJIT_DETAIL_TRANSFORMS_H

// The non-template core of the transforms (grad, vjp, jvp, custom_gradient,
// GradientTape): functions traced inside a trace, and the requests that the
// adjit-differentiate pass expands.

#include "adjit/Tensor.h"
#include "adjit/compiler/Executable.h"
#include "adjit/detail/Structure.h"

#include <string>
#include <vector>

namespace adjit::detail {

/// A private function traced inside the current trace.
struct TracedFunction {
  std::string symbol;
  std::vector<Tensor> captures;  ///< enclosing values the body used; passed after the args
  std::vector<TensorType> results;  ///< types of the body's flat results
  std::vector<size_t> layout;    ///< result structure (vector lengths)
};

using TraceBody = FunctionRef<std::vector<Tensor>(ParameterFn parameter, std::vector<size_t>& layout)>;

/// Traces `body` into a private function whose parameters mirror `args`
/// (the body calls `parameter` once per Tensor leaf, in order).
TracedFunction trace_function(const char* kind, const std::vector<Tensor>& args, TraceBody body,
                              SourceLocation loc);

std::vector<Tensor> call_function(const TracedFunction& f, const std::vector<Tensor>& args,
                                  SourceLocation loc);
/// call_function, marked so that reverse mode recomputes `f` in the
/// backward pass instead of keeping its intermediate values.
std::vector<Tensor> call_checkpointed(const TracedFunction& f, const std::vector<Tensor>& args,
                                      SourceLocation loc);
/// Throws the TraceError of grad and value_and_grad when the function does
/// not return one scalar float Tensor.
void require_scalar_result(const char* op, const TracedFunction& f,
                           const std::vector<Tensor>& args, SourceLocation loc);
/// Throws grad's TraceError when a differentiated leaf args[wrt[i]] is not
/// floating-point (its argument is the one whose leaves start before it).
void require_floating_wrt(const char* op, const std::vector<Tensor>& args,
                          const std::vector<size_t>& starts, const std::vector<int64_t>& wrt,
                          SourceLocation loc);
/// Throws the TraceError of UnconnectedGradients::error when the function's
/// results do not depend on a floating-point leaf args[wrt[i]] through
/// differentiable ops (the AD pass's own activity analysis).
void require_connected(const char* op, const TracedFunction& f, const std::vector<Tensor>& args,
                       const std::vector<size_t>& starts, const std::vector<int64_t>& wrt,
                       SourceLocation loc);
/// Gradients of the function's single scalar result w.r.t. args[wrt[i]].
std::vector<Tensor> grad_of(const char* op, const TracedFunction& f,
                            const std::vector<Tensor>& args, const std::vector<int64_t>& wrt,
                            SourceLocation loc);
/// The function's results, then the cotangents of args[wrt[i]].
std::vector<Tensor> vjp_of(const TracedFunction& f, const std::vector<Tensor>& args,
                           const std::vector<Tensor>& cotangents,
                           const std::vector<int64_t>& wrt, SourceLocation loc);
/// The function's results, then their tangents. `op` is what errors name.
std::vector<Tensor> jvp_of(const TracedFunction& f, const std::vector<Tensor>& args,
                           const std::vector<Tensor>& tangents, const std::vector<int64_t>& wrt,
                           SourceLocation loc, const char* op = "jvp");
/// Calls `forward` on `args`; reverse mode differentiates the call with
/// `backward`, traced over (args..., forward's results..., cotangents...)
/// and returning one cotangent per arg. Forward mode calls `tangent`,
/// traced over (args..., forward's results..., tangents of args...) and
/// returning one tangent per result, or without one differentiates
/// `forward`.
std::vector<Tensor> call_with_custom_vjp(const std::vector<Tensor>& args, TraceBody forward,
                                         TraceBody backward, SourceLocation loc,
                                         const TraceBody* tangent = nullptr);

/// Flat Tensor leaves of each argument, and the start of each in the list.
template <class... Args>
std::vector<Tensor> flatten_tensors(std::vector<size_t>& starts, const Args&... args) {
  std::vector<Tensor> flat;
  ((starts.push_back(flat.size()),
    StructureTraits<std::decay_t<Args>>::collect_tensors(args, flat)),
   ...);
  starts.push_back(flat.size());
  return flat;
}

}  // namespace adjit::detail

#endif
