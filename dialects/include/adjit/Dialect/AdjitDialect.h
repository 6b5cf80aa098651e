#ifndef ADJIT_DIALECT_ADJITDIALECT_H
#define ADJIT_DIALECT_ADJITDIALECT_H

#include "mlir/IR/Dialect.h"

#include "adjit/Dialect/AdjitOpsDialect.h.inc"

namespace mlir::adjit {
/// A unit attribute on a func.call made by adjit::checkpoint: reverse mode
/// recomputes the callee in the backward pass (behind an
/// adjit.optimization_barrier) instead of keeping its intermediate values.
inline constexpr llvm::StringLiteral kCheckpointAttrName = "adjit.checkpoint";
/// On a function traced by adjit::custom_gradient: the symbol of its
/// backward function, (inputs..., results..., cotangents..., captured
/// values...) -> one cotangent per input ...
inline constexpr llvm::StringLiteral kCustomVJPAttrName = "adjit.custom_vjp";
/// ... and how many of the function's arguments are inputs (the rest are
/// values the backward function captured).
inline constexpr llvm::StringLiteral kCustomVJPInputsAttrName = "adjit.custom_vjp_inputs";
/// On such a function, optionally: its tangent function, (inputs...,
/// results..., input tangents..., captured values...) -> one tangent per
/// result, which forward mode calls instead of differentiating the function.
/// Its captured values follow the backward function's among the call's
/// operands.
inline constexpr llvm::StringLiteral kCustomJVPAttrName = "adjit.custom_jvp";
/// On a function made by reverse mode (a VJP): the index of its first
/// cotangent argument. What it computes from its other arguments alone is
/// the forward pass; values of the forward pass that the rest reads are
/// the residuals (Program::memory_plan reports them).
inline constexpr llvm::StringLiteral kCotangentsFromAttrName = "adjit.cotangents_from";
/// Beside it: how many of its results are the primal function's (they come
/// first). The cotangent arguments may be fewer: only the results whose
/// cotangents the caller had.
inline constexpr llvm::StringLiteral kPrimalResultsAttrName = "adjit.primal_results";
/// On an argument of a public function: the index of the result written in
/// place into its buffer (the argument was donated, JitOptions::donate). The
/// caller passes that buffer as the result's too.
inline constexpr llvm::StringLiteral kAliasingOutputAttrName = "adjit.aliasing_output";
/// The other end, on that result from adjit-mark-entry-points to
/// adjit-elide-donated-copies: the index of the argument whose buffer it is.
inline constexpr llvm::StringLiteral kAliasingInputAttrName = "adjit.aliasing_input";
} // namespace mlir::adjit

#endif
