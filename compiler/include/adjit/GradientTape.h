#ifndef ADJIT_GRADIENTTAPE_H
#define ADJIT_GRADIENTTAPE_H

// tf.GradientTape for traced code: ops recorded while a tape is alive can
// be differentiated with respect to watched Tensors.

#include "adjit/Tensor.h"
#include "adjit/UnconnectedGradients.h"

#include <memory>
#include <tuple>
#include <vector>

namespace adjit {

namespace detail {
struct TapeState;

// A source of GradientTape::gradient with the caller's line: a default
// argument of the conversion from Tensor is evaluated where the call is,
// and the function's sources, being variadic, cannot be followed by one.
struct TapeSource {
  TapeSource(const Tensor& tensor, SourceLocation where = SourceLocation::current())
      : tensor(tensor), where(where) {}
  const Tensor& tensor;
  SourceLocation where;
};
}  // namespace detail

struct TapeOptions {
  /// A persistent tape answers gradient() more than once.
  bool persistent = false;
  UnconnectedGradients unconnected = UnconnectedGradients::zero;
};

/// Records the ops traced after its creation (in the function being traced)
/// and differentiates them. Only valid inside a traced function.
///
///   adjit::GradientTape tape;
///   tape.watch(w);
///   adjit::Tensor loss = ...;
///   adjit::Tensor gw = tape.gradient(loss, w);
///
/// gradient() differentiates sum(target) for a non-scalar target, as
/// TensorFlow does. Nested tapes give higher derivatives.
class GradientTape {
 public:
  explicit GradientTape(TapeOptions options = {}, SourceLocation loc = SourceLocation::current());
  explicit GradientTape(bool persistent, SourceLocation loc = SourceLocation::current())
      : GradientTape(TapeOptions{.persistent = persistent}, loc) {}
  ~GradientTape();
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  void watch(const Tensor& t, SourceLocation where = SourceLocation::current());
  void watch(const std::vector<Tensor>& ts, SourceLocation where = SourceLocation::current());

  /// One source gives a Tensor, several a std::tuple of Tensors.
  template <class... MoreSources>
  auto gradient(const Tensor& target, detail::TapeSource source, const MoreSources&... more) {
    std::vector<Tensor> grads = gradient(target, std::vector<Tensor>{source.tensor, more...}, source.where);
    if constexpr (sizeof...(MoreSources) == 0) {
      return grads[0];
    } else {
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return std::tuple{grads[I]...};
      }(std::make_index_sequence<1 + sizeof...(MoreSources)>{});
    }
  }
  template <class... None>
    requires(sizeof...(None) == 0)
  Tensor gradient(const Tensor&, const None&...) {
    static_assert(sizeof...(None) > 0, "GradientTape::gradient needs a source");
    return {};
  }
  std::vector<Tensor> gradient(const Tensor& target, const std::vector<Tensor>& sources,
                               SourceLocation where = SourceLocation::current());

  /// d target / d source, of shape target.shape() + source.shape(): one
  /// reverse pass per target element, for small targets.
  Tensor jacobian(const Tensor& target, const Tensor& source,
                  SourceLocation where = SourceLocation::current());

  /// While the returned guard lives, traced ops are not recorded (their
  /// results are constants to this tape).
  class Pause {
   public:
    explicit Pause(detail::TapeState& state);
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    detail::TapeState& state_;
  };
  [[nodiscard]] Pause stop_recording() { return Pause(*state_); }

 private:
  std::unique_ptr<detail::TapeState> state_;
};

}  // namespace adjit

#endif
