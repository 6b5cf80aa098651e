#ifndef ADJIT_UNCONNECTEDGRADIENTS_H
#define ADJIT_UNCONNECTEDGRADIENTS_H

namespace adjit {

/// What differentiation gives an input that the result does not depend on
/// (DESIGN.md §4): a zero gradient, or a TraceError naming the input. The
/// functional API (GradOptions) and the GradientTape (TapeOptions) share it.
enum class UnconnectedGradients { zero, error };

}  // namespace adjit

#endif  // ADJIT_UNCONNECTEDGRADIENTS_H
