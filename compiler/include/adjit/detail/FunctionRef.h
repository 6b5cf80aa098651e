#ifndef ADJIT_DETAIL_FUNCTIONREF_H
#define ADJIT_DETAIL_FUNCTIONREF_H

#include <memory>
#include <type_traits>
#include <utility>

namespace adjit::detail {

/// A non-owning reference to a callable, like llvm::function_ref: passing a
/// lambda through it never allocates (std::function may), which keeps the
/// cached call path of adjit::jit free of heap traffic.
template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
             std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f)  // NOLINT: implicit, like a function pointer
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace adjit::detail

#endif
