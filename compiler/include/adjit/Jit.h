#ifndef ADJIT_JIT_H
#define ADJIT_JIT_H

// adjit::jit: trace a C++ callable once per signature, compile it, cache it.

#include "adjit/Tensor.h"
#include "adjit/compiler/Program.h"
#include "adjit/detail/Structure.h"
#include "adjit/detail/Transforms.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace adjit {

struct JitOptions {
  /// Name of the traced function in IR, dumps and log lines.
  std::string name = "fn";
  /// Print one line per retrace naming the argument that changed (also
  /// enabled for every function by ADJIT_LOG=retrace).
  bool log_retrace = false;
  /// Tracing more than this many times is an error (0: no limit). A
  /// signature dropped from the cache (cache_size) and called again is
  /// traced again, and counts again: each trace costs a compilation.
  int max_traces = 0;
  /// Compiled signatures kept; the least recently used is dropped past it.
  size_t cache_size = 64;
  /// Write every stage of every compilation here (also ADJIT_DUMP_DIR).
  std::string dump_dir;
  /// Threads a call may use (0: ADJIT_NUM_THREADS, else every core). Calls
  /// running at once from several user threads share them (see
  /// adjit/runtime/Threads.h). Results do not depend on it: work is split
  /// over output elements, never over a sum.
  int threads = 0;
  /// Where calls run. Unset, computation follows its arguments: they must
  /// all live on one device (none: the CPU). Set, arguments are moved there
  /// first and results live there.
  std::optional<Device> device;
  /// Arguments (their positions, as JAX's donate_argnums) whose buffers a
  /// call may reuse for its outputs: an output of the same dtype and shape
  /// is then computed in place in the donated buffer (an SGD update writes
  /// the new weights over the old). Every Array of a donated argument is
  /// invalid after the call, with every copy of its handle: reading it is a
  /// RuntimeError (docs/guide/memory.md). On the CPU; elsewhere donated
  /// arrays are only invalidated.
  std::vector<int> donate;
  /// Keep compiled machine code in this directory across processes (see
  /// adjit/compiler/CompileCache.h); empty: ADJIT_CACHE_DIR if set. (The
  /// fields are in DESIGN.md §5's order: designated initializers written
  /// in it compile.)
  std::string cache_dir;
  /// Gradients recompute cheap elementwise values in their backward pass
  /// instead of keeping them from the forward pass where that keeps fewer
  /// bytes (CompileOptions::rematerialize; docs/guide/memory.md). The
  /// results are the same either way up to round-off (fused differently, a
  /// multiply and an add may become one FMA).
  bool rematerialize = true;
  /// On the CPU, loops of f64 transcendentals, and of f32 pow, tan and the
  /// inverse and hyperbolic trigonometric functions, call glibc's vector
  /// math library (CompileOptions::vector_math_library): several
  /// times faster, accurate to 4 ulp instead of libm's 1.
  bool vector_math_library = true;
};

struct CacheInfo {
  uint64_t hits = 0;
  uint64_t misses = 0;  ///< traces + compilations
  size_t entries = 0;
  double compile_seconds = 0;
};

/// What Jitted::lower returns (JAX's name for it): the traced function of
/// one signature as a Program, before compilation: every stage's IR, a
/// `.mlir` file that `adjit compile`/`adjit run` accept (save), its memory
/// plan, or code.
using Lowered = Program;

namespace detail {

class JitCache;

/// One compilation per device: the device is part of the cache key.
inline void append_device_key(CacheKey& key, Device device) {
  key.push(static_cast<uint64_t>(device.kind()) << 32 | static_cast<uint32_t>(device.index()));
}


/// A traced function: its Program, and how its flat results rebuild the
/// structure it returned (StructureTraits::rebuild).
struct TracedProgram {
  Program program;
  std::vector<size_t> result_layout;
};

/// Traces `body` into a Program named `name` (not cached) that targets
/// `device`'s kind of processor. `donated` (one flag per flat input, or
/// empty) gives each donated input, on the CPU, the first output of its type
/// not yet given one, to be computed in its buffer. `rematerialize` and
/// `vector_math_library` are CompileOptions'. `jitted_at`, the user's line
/// that made the jitted function, is the traced function's location.
TracedProgram trace_program(const std::string& name, TraceBody body, Device device = Device::cpu(),
                            const std::vector<bool>& donated = {}, bool rematerialize = true,
                            bool vector_math_library = true, SourceLocation jitted_at = {});

/// One signature of a jitted function, compiled: the executable, its entry
/// (resolved once) and the layout of its results.
class CompiledFunction {
 public:
  CompiledFunction(Executable executable, std::string_view entry, std::vector<size_t> result_layout,
                   int threads);

  /// Runs on flat inputs; `outputs` is refilled with fresh arrays, except
  /// an output computed in a donated input's buffer, which takes it over.
  /// The `donated` inputs (one flag per input, or empty) are invalid after.
  void run(std::vector<Array>& inputs, std::vector<Array>& outputs,
           const std::vector<bool>& donated) const;
  /// Runs writing into caller-provided outputs (checked against the
  /// signature, and for sharing memory with an input); then invalidates the
  /// `donated` inputs.
  /// `jitted_at` ends its errors (JitCache::jitted_at).
  void run_into(const std::vector<Array>& inputs, const std::vector<Array>& outputs,
                const std::vector<bool>& donated, const std::string& jitted_at) const;
  const std::vector<size_t>& result_layout() const { return result_layout_; }

 private:
  // Who a donated array was given to, for the error on its later use.
  std::string receiver() const;

  Executable executable_;
  size_t entry_;
  std::vector<size_t> result_layout_;
  int threads_;  // JitOptions::threads
};

/// The signature-keyed cache behind one jitted callable. Thread-safe: the
/// first caller of a signature compiles it, concurrent ones wait for it.
class JitCache {
 public:
  /// `where`: the user's line that made the jitted function, which the
  /// errors of its calls name (a call's own line cannot follow its
  /// variadic arguments).
  JitCache(JitOptions options, SourceLocation where);
  ~JitCache();

  /// The compiled function for `key`, tracing and compiling on a miss.
  /// `describe` gives one text per argument (only called on a miss).
  std::shared_ptr<const CompiledFunction> lookup(
      const CacheKey& key, FunctionRef<std::vector<std::string>()> describe, TraceBody body,
      Device device, const std::vector<bool>& donated);

  /// One flag per flat input of a call whose arguments end at
  /// `argument_ends` (flat positions): whether JitOptions::donate names its
  /// argument. Throws for a donated position past the call's arguments or
  /// naming a static one (`traced[i]` false).
  std::vector<bool> donated_inputs(const std::vector<size_t>& argument_ends,
                                   const std::vector<bool>& traced) const;

  /// The device a call runs on (JitOptions::device, else the arguments'),
  /// with `inputs` moved there; throws RuntimeError when unset and the
  /// arguments live on different devices.
  Device place(std::vector<Array>& inputs) const;

  CacheInfo info() const;
  const JitOptions& options() const { return options_; }
  /// " (jitted at FILE:LINE)", to end error messages.
  const std::string& jitted_at() const { return jitted_at_; }
  /// The user's line that made the jitted function.
  SourceLocation where() const { return where_; }

 private:
  struct State;
  JitOptions options_;
  SourceLocation where_;
  std::string jitted_at_;
  uint64_t instance_;  // distinguishes dumps of functions with one name
  std::unique_ptr<State> state_;
};

/// The RuntimeError of a call of a moved-from jitted function.
[[noreturn]] void throw_moved_jitted();

/// What a call on Arrays works in: its inputs, its outputs (or the Arrays
/// it writes into) and its cache key.
struct CallScratch {
  std::vector<Array> inputs, outputs;
  CacheKey key;
};

/// The calling thread's scratch, reused so that a cached call allocates
/// only its output arrays; a call made while another uses it (a jitted
/// function called on Arrays while another is being traced) gets its own.
/// Its argument lists are emptied however the call ends, so that neither
/// stale arrays nor their memory outlive it.
class ScratchLease {
 public:
  ScratchLease();
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  CallScratch& operator*() const { return *scratch_; }
  CallScratch* operator->() const { return scratch_; }

 private:
  CallScratch* scratch_;
  std::unique_ptr<CallScratch> own_;
};

}  // namespace detail

template <class F>
class Jitted {
 public:
  Jitted(F f, JitOptions options, SourceLocation where = SourceLocation::current())
      : f_(std::move(f)), cache_(std::make_shared<detail::JitCache>(std::move(options), where)) {}

  template <class... Args>
  auto operator()(Args&&... args) const {
    if constexpr ((detail::contains_tensor<std::decay_t<Args>> || ...)) {
      // Inside another trace: the body is traced inline into the caller.
      check_callable<Args&&...>();
      return f_(std::forward<Args>(args)...);
    } else {
      check_callable_on_arrays<detail::traced_t<std::decay_t<Args>>...>();
      using Result = decltype(f_(std::declval<detail::traced_t<std::decay_t<Args>>>()...));
      detail::ScratchLease scratch;
      std::vector<bool> donated;
      auto compiled = compiled_for<std::decay_t<Args>...>(*scratch, donated, args...);
      compiled->run(scratch->inputs, scratch->outputs, donated);
      size_t position = 0, vector_index = 0;
      return detail::StructureTraits<Result>::rebuild(scratch->outputs, position,
                                                      compiled->result_layout(), vector_index);
    }
  }

  /// Like operator(), but writes the results into `outputs` (the structure
  /// of Arrays the call would return, with matching shapes and dtypes), so a
  /// training loop can reuse its buffers instead of allocating each step.
  /// Outputs must not share memory with inputs: alternate two sets.
  template <class Outputs, class... Args>
  void call_into(Outputs& outputs, const Args&... args) const {
    check_callable_on_arrays<detail::traced_t<Args>...>();
    detail::ScratchLease scratch;
    std::vector<bool> donated;
    auto compiled = compiled_for(*scratch, donated, args...);
    detail::StructureTraits<Outputs>::collect_arrays(outputs, scratch->outputs);
    compiled->run_into(scratch->inputs, scratch->outputs, donated, cache().jitted_at());
  }

  /// Traces for these arguments without compiling or caching (with the
  /// donated arguments' outputs computed in their buffers, as a call would).
  template <class... Args>
  Lowered lower(const Args&... args) const {
    check_callable_on_arrays<detail::traced_t<Args>...>();
    using Result = decltype(f_(std::declval<detail::traced_t<Args>>()...));
    std::vector<Array> inputs;
    return detail::trace_program(cache().options().name, trace_body<Result>(args...),
                                 cache().options().device.value_or(Device::cpu()),
                                 donated_inputs(inputs, args...), cache().options().rematerialize,
                                 cache().options().vector_math_library, cache().where())
        .program;
  }

  CacheInfo cache_info() const { return cache().info(); }
  const JitOptions& options() const { return cache().options(); }

 private:
  // Readable errors in place of the template errors of a call that cannot
  // be traced.
  template <class... Traced>
  static constexpr void check_callable() {
    static_assert(std::is_invocable_v<const F&, Traced...> || !std::is_invocable_v<F&, Traced...>,
                  "adjit::jit: the function changes its own state (a mutable lambda, or an "
                  "operator() that is not const): it is traced once per signature, possibly on "
                  "several threads at once, so it must be callable as const; keep state behind "
                  "a captured pointer or reference");
    static_assert(std::is_invocable_v<const F&, Traced...> || std::is_invocable_v<F&, Traced...>,
                  "adjit::jit: the function cannot be called with these arguments (check their "
                  "number and types; in the trace Arrays are Tensors, and structures of Arrays "
                  "structures of Tensors)");
  }
  // Called on Arrays, the results come back as Arrays (inlined into
  // another trace, a call returns whatever the function does).
  template <class... Traced>
  static constexpr void check_callable_on_arrays() {
    check_callable<Traced...>();
    if constexpr (std::is_invocable_v<const F&, Traced...>)
      static_assert(detail::ResultStructure<std::invoke_result_t<const F&, Traced...>>,
                    "adjit::jit: the function must return a Tensor, or a std::tuple, std::pair, "
                    "std::array or std::vector of Tensors (a number is not traced: return "
                    "adjit::full({}, value) for a constant)");
  }

  // Appends the Arrays of `args` to `inputs` (leaves in order) and returns
  // which of them JitOptions::donate names (empty when it names none).
  template <class... Args>
  std::vector<bool> donated_inputs(std::vector<Array>& inputs, const Args&... args) const {
    if (cache().options().donate.empty()) {
      (detail::StructureTraits<Args>::collect_arrays(args, inputs), ...);
      return {};
    }
    std::vector<size_t> argument_ends;
    ((detail::StructureTraits<Args>::collect_arrays(args, inputs),
      argument_ends.push_back(inputs.size())),
     ...);
    return cache().donated_inputs(argument_ends,
                                  {detail::contains_tensor<detail::traced_t<Args>>...});
  }

  // The compiled function for `args` (traced and compiled on a miss), with
  // their Arrays in the scratch's inputs, moved to the call's device, and
  // `donated` set.
  template <class... Args>
  std::shared_ptr<const detail::CompiledFunction> compiled_for(detail::CallScratch& scratch,
                                                               std::vector<bool>& donated,
                                                               const Args&... args) const {
    donated = donated_inputs(scratch.inputs, args...);
    Device device = cache().place(scratch.inputs);
    detail::CacheKey& key = scratch.key;
    key.clear();
    (detail::StructureTraits<Args>::append_key(key, args), ...);
    detail::append_device_key(key, device);
    using Result = decltype(f_(std::declval<detail::traced_t<Args>>()...));
    return cache().lookup(
        key, [&] { return std::vector<std::string>{detail::describe_argument(args)...}; },
        trace_body<Result>(args...), device, donated);
  }

  // The returned lambda refers to `args`: use it within the caller's call.
  template <class Result, class... Args>
  auto trace_body(const Args&... args) const {
    return [&](detail::ParameterFn parameter, std::vector<size_t>& layout) {
      // Parameters are added left to right, leaves in structure order.
      auto traced = std::tuple<detail::traced_t<std::decay_t<Args>>...>{
          detail::StructureTraits<std::decay_t<Args>>::make_traced(args, parameter)...};
      Result result = std::apply(f_, std::move(traced));
      std::vector<Tensor> flat;
      detail::StructureTraits<Result>::flatten_result(result, flat, layout);
      return flat;
    };
  }

  // Throws for a moved-from object, whose cache is gone.
  detail::JitCache& cache() const {
    if (!cache_) [[unlikely]]
      detail::throw_moved_jitted();
    return *cache_;
  }

  F f_;
  std::shared_ptr<detail::JitCache> cache_;
};

namespace detail {
template <class F>
inline constexpr bool is_jitted = false;
template <class F>
inline constexpr bool is_jitted<Jitted<F>> = true;
}  // namespace detail

template <class F>
Jitted<F> jit(F f, JitOptions options = {}, SourceLocation where = SourceLocation::current()) {
  return Jitted<F>(std::move(f), std::move(options), where);
}

}  // namespace adjit

#endif
