#ifndef ADJIT_PASSES_ELEMENTWISECOST_H
#define ADJIT_PASSES_ELEMENTWISECOST_H

// What it costs to compute an elementwise generic again instead of keeping
// its result: the passes that recompute producers in their consumers
// (adjit-fuse-elementwise, adjit-split-padded-consumers) share the rule.

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::adjit {

/// An all-parallel generic of one result read and written through projected
/// permutations, with no transcendental (tanh, exp, log, erf, ...: a
/// polynomial of tens of instructions; sqrt, abs and fma are one each), and
/// a body small enough that its copies for each use but one repeat at most
/// 32 ops and loads per element: recomputing it in each of its consumers
/// costs a few instructions per element, while materializing it costs a
/// write and a read per consumer.
bool isCheapElementwise(Operation *op);

} // namespace mlir::adjit

#endif
