#ifndef ADJIT_RUNTIME_MATHLANES_H
#define ADJIT_RUNTIME_MATHLANES_H

// libm on the lanes of a vector, for compiled code: adjit-approximate-math
// computes vectors of f32 sin and cos itself, and sends a vector with a lane
// beyond its argument reduction's range (|x| > 1e5), an infinity or NaN
// here instead, through a buffer on its stack. One call keeps that rare
// path a few instructions of compiled code (a loop of calls per vector took
// a third of a small function's LLVM time).

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// values[i] = sinf(values[i]) for i < count; `values` is an address.
void adjit_sinf_lanes(int64_t values, int64_t count);
/// values[i] = cosf(values[i]) for i < count; `values` is an address.
void adjit_cosf_lanes(int64_t values, int64_t count);

#ifdef __cplusplus
}
#endif

#endif
