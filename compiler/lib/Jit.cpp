#include "adjit/Jit.h"

#include "tracer/Recorder.h"
#include "tracer/TraceContext.h"

#include "adjit/runtime/Threads.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace adjit {

namespace detail {

// One signature's slot in a JitCache.
struct CompiledEntry {
  std::vector<uint64_t> key;
  uint64_t hash = 0;
  std::vector<std::string> arguments;  // one description per argument
  std::optional<CompiledFunction> compiled;
  uint64_t last_used = 0;
  // Set once compilation ends; concurrent callers wait on it.
  bool ready = false;
  std::thread::id tracer;  // the thread tracing it until ready
  std::exception_ptr error;
};

struct JitCache::State {
  mutable std::mutex mutex;
  std::condition_variable compiled;
  std::vector<std::shared_ptr<CompiledEntry>> entries;
  // For max_traces: traces so far (a signature dropped from the cache and
  // traced again counts again), and how often each distinct signature was
  // traced (memory bounded by the distinct signatures, not the traces).
  int traces = 0;
  std::map<std::vector<std::string>, int> traced_signatures;
  uint64_t clock = 0;
  CacheInfo info;
};

namespace {

// Whether ADJIT_LOG asks for retrace lines: "retrace", or nothing. Any
// other value is an error rather than a log that quietly never comes.
bool log_retraces_from_environment() {
  const char* value = std::getenv("ADJIT_LOG");
  if (!value || !*value) return false;
  if (std::string_view(value) == "retrace") return true;
  throw Error(fmt::format("ADJIT_LOG must be 'retrace' (or unset), got '{}'", value));
}

// Which thread each thread waiting for a trace waits on (the trace's
// tracer), across all jitted functions: tracing f(1) on one thread while
// f(1)'s trace calls f(2), being traced on another thread whose trace
// calls f(1), would wait forever. Registering a wait that closes a cycle
// throws instead.
class WaitForTracer {
 public:
  WaitForTracer(std::thread::id tracer, const std::string& refusal) {
    std::lock_guard lock(mutex());
    std::thread::id self = std::this_thread::get_id();
    for (std::thread::id t = tracer;;) {
      if (t == self) throw TraceError(refusal);
      auto next = waits().find(t);
      if (next == waits().end()) break;
      t = next->second;
    }
    waits()[self] = tracer;
  }
  ~WaitForTracer() {
    std::lock_guard lock(mutex());
    waits().erase(std::this_thread::get_id());
  }
  WaitForTracer(const WaitForTracer&) = delete;
  WaitForTracer& operator=(const WaitForTracer&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::unordered_map<std::thread::id, std::thread::id>& waits() {
    static std::unordered_map<std::thread::id, std::thread::id> w;
    return w;
  }
};

std::string signature_text(const std::vector<std::string>& arguments) {
  return fmt::format("({})", fmt::join(arguments, ", "));
}

// "arg 1: f32[256,784] -> f32[128,784]" against the closest cached signature.
std::string explain_retrace(const std::vector<std::shared_ptr<CompiledEntry>>& entries,
                            const std::vector<std::string>& arguments) {
  const CompiledEntry* nearest = nullptr;
  size_t fewest = SIZE_MAX;
  for (const auto& entry : entries) {
    if (!entry->ready || entry->error || entry->arguments.size() != arguments.size()) continue;
    size_t differing = 0;
    for (size_t i = 0; i < arguments.size(); ++i) differing += entry->arguments[i] != arguments[i];
    if (differing < fewest) fewest = differing, nearest = entry.get();
  }
  if (!nearest) return "first trace " + signature_text(arguments);
  std::string s;
  for (size_t i = 0; i < arguments.size(); ++i)
    if (nearest->arguments[i] != arguments[i])
      fmt::format_to(std::back_inserter(s), "{}arg {}: {} -> {}", s.empty() ? "" : "; ", i,
                     nearest->arguments[i], arguments[i]);
  return s;
}

}  // namespace

namespace {

// Each donated input gets the first output of its type not given to another
// (as JAX pairs donated buffers with outputs); the pairs go on the traced
// function's arguments as adjit.aliasing_output. An input with no such
// output is only invalidated after the call.
void alias_donated_outputs(Program& program, const std::vector<bool>& donated) {
  Program::Impl& impl = ProgramInternals::impl(program);
  if (impl.signatures.size() != 1) return;
  const Signature& signature = impl.signatures.front();
  auto function = impl.module->lookupSymbol<mlir::func::FuncOp>(signature.name);
  std::vector<bool> given(signature.outputs.size(), false);
  bool any = false;
  for (size_t i = 0; i < donated.size() && i < signature.inputs.size(); ++i) {
    if (!donated[i]) continue;
    for (size_t o = 0; o < signature.outputs.size(); ++o)
      if (!given[o] && signature.outputs[o] == signature.inputs[i]) {
        function.setArgAttr(i, mlir::adjit::kAliasingOutputAttrName,
                            mlir::IntegerAttr::get(mlir::IntegerType::get(&impl.context, 64), o));
        given[o] = any = true;
        break;
      }
  }
  if (any) impl.signatures = signatures_of(*impl.module);
}

// Whether donated input `i` can hand its bytes on to an output: they are the
// allocator's and on the host, and no other input reads them.
bool can_hand_on(const std::vector<Array>& inputs, size_t i) {
  if (!detail::owns_memory(inputs[i]) || !inputs[i].device().is_cpu()) return false;
  for (size_t j = 0; j < inputs.size(); ++j)
    if (j != i && detail::overlap(inputs[i], inputs[j])) return false;
  return true;
}

}  // namespace

TracedProgram trace_program(const std::string& name, TraceBody body, Device device,
                            const std::vector<bool>& donated, bool rematerialize,
                            bool vector_math_library, SourceLocation jitted_at) {
  TraceContext trace(name, jitted_at);
  std::vector<size_t> layout;
  auto add_parameter = [&](DType dtype, const Shape& shape) {
    return trace.add_parameter(dtype, shape);
  };
  std::vector<Tensor> results = body(add_parameter, layout);
  Program program = trace.finish(results);
  CompileOptions options = program.options();
  options.target = device.kind();
  options.rematerialize = rematerialize;
  options.vector_math_library = vector_math_library;
  program.set_options(options);
  if (device.is_cpu() && llvm::is_contained(donated, true)) alias_donated_outputs(program, donated);
  return {std::move(program), std::move(layout)};
}

CompiledFunction::CompiledFunction(Executable executable, std::string_view entry,
                                   std::vector<size_t> result_layout, int threads)
    : executable_(std::move(executable)),
      entry_(executable_.entry_index(entry)),
      result_layout_(std::move(result_layout)),
      threads_(threads) {}

namespace {
// A failed trace's error, thrown for one of its callers as a copy of the
// stored one: callers on several threads then never share one exception
// object, whose reference count lives in the C++ runtime, out of sight of
// the thread sanitizer. Exceptions of other types than adjit's are thrown
// as they are.
[[noreturn]] void throw_copy(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const TraceError& e) {
    throw TraceError(e);
  } catch (const CompileError& e) {
    throw CompileError(e);
  } catch (const RuntimeError& e) {
    throw RuntimeError(e);
  } catch (const Error& e) {
    throw Error(e);
  }
}
}  // namespace

// Reserves a call's donated inputs while it runs (claim_donation), and
// gives them back if it fails before taking them.
class DonationClaims {
 public:
  // `receiver()` names the call (formatted only when something is donated).
  template <class Receiver>
  DonationClaims(const std::vector<Array>& inputs, const std::vector<bool>& donated,
                 Receiver receiver)
      : inputs_(inputs) {
    if (donated.empty()) return;  // the usual call: nothing to hold
    exceptions_ = std::uncaught_exceptions();
    std::vector<const void*> claimed;  // an Array passed twice is claimed once
    try {
      for (size_t i = 0; i < donated.size(); ++i) {
        if (!donated[i] || inputs[i].nbytes() == 0) continue;
        const void* memory = detail::memory_identity(inputs[i]);
        if (std::find(claimed.begin(), claimed.end(), memory) != claimed.end()) continue;
        detail::claim_donation(inputs[i], receiver());
        claimed.push_back(memory);
        held_.push_back(i);
      }
    } catch (...) {
      release();
      throw;
    }
  }
  ~DonationClaims() {
    if (!held_.empty() && std::uncaught_exceptions() > exceptions_) release();
  }
  DonationClaims(const DonationClaims&) = delete;
  DonationClaims& operator=(const DonationClaims&) = delete;

 private:
  void release() {
    for (size_t i : held_) detail::release_claim(inputs_[i]);
  }

  const std::vector<Array>& inputs_;
  std::vector<size_t> held_;
  int exceptions_ = 0;
};

void CompiledFunction::run(std::vector<Array>& inputs, std::vector<Array>& outputs,
                           const std::vector<bool>& donated) const {
  DonationClaims claims(inputs, donated, [this] { return receiver(); });
  const Signature& signature = executable_.entries()[entry_];
  outputs.clear();
  std::vector<bool> handed_on(donated.empty() ? 0 : inputs.size(), false);
  for (size_t o = 0; o < signature.outputs.size(); ++o) {
    int i = signature.aliased_input(o);
    if (i >= 0 && static_cast<size_t>(i) < donated.size() && donated[i] &&
        can_hand_on(inputs, i)) {
      outputs.push_back(inputs[i]);  // taken below
      handed_on[i] = true;
      continue;
    }
    const TensorType& type = signature.outputs[o];
    outputs.push_back(Array::empty(type.shape, type.dtype, executable_.device()));
  }
  // Every other output's buffer exists: only now do outputs take donated
  // bytes over, so that a failed allocation leaves the arguments as they
  // were. From here every handle of such an argument is invalid, also if
  // the compiled code fails (it may have written over the bytes).
  for (size_t o = 0; o < outputs.size() && !donated.empty(); ++o) {
    int i = signature.aliased_input(o);
    if (i < 0 || !handed_on[i]) continue;
    inputs[i] = detail::take_donated(inputs[i], receiver());
    outputs[o] = inputs[i];
  }
  {
    threads::CallThreads scope(threads_);
    executable_.run_into(entry_, inputs, outputs);
  }
  for (size_t i = 0; i < donated.size(); ++i)
    if (donated[i] && !handed_on[i]) detail::invalidate_donated(inputs[i], receiver());
}

std::string CompiledFunction::receiver() const {
  return fmt::format("adjit::jit '{}'", executable_.entries()[entry_].name);
}

void CompiledFunction::run_into(const std::vector<Array>& inputs,
                                const std::vector<Array>& outputs,
                                const std::vector<bool>& donated,
                                const std::string& jitted_at) const {
  DonationClaims claims(inputs, donated, [this] { return receiver(); });
  try {
    executable_.check_outputs_apart(entry_, inputs, outputs);
    threads::CallThreads scope(threads_);
    executable_.run_into(entry_, inputs, outputs);
  } catch (const RuntimeError& e) {
    throw RuntimeError(fmt::format("{} call_into: {}{}", receiver(), e.what(), jitted_at));
  }
  for (size_t i = 0; i < donated.size(); ++i)
    if (donated[i]) detail::invalidate_donated(inputs[i], receiver());
}

void throw_moved_jitted() {
  throw RuntimeError("this jitted function was moved from (std::move) and holds no function; "
                     "call the object it was moved to");
}

JitCache::JitCache(JitOptions options, SourceLocation where)
    : options_(std::move(options)),
      where_(where),
      jitted_at_(detail::jitted_at(where)),
      state_(std::make_unique<State>()) {
  static std::atomic<uint64_t> instances{0};
  instance_ = ++instances;
  if (const char* dir = std::getenv("ADJIT_DUMP_DIR"); dir && options_.dump_dir.empty())
    options_.dump_dir = dir;
  if (log_retraces_from_environment()) options_.log_retrace = true;
  if (options_.max_traces < 0)
    throw TraceError(fmt::format("adjit::jit: JitOptions::max_traces must be 0 (no limit) or "
                                 "positive, got {}{}",
                                 options_.max_traces, jitted_at_));
  // The name is the traced function's symbol: `@` alone would not parse
  // back from lower(...).save() or the dumps.
  if (options_.name.empty())
    throw TraceError(fmt::format("adjit::jit: JitOptions::name must not be empty (the default "
                                 "is \"fn\"){}",
                                 jitted_at_));
  if (options_.threads < 0 || options_.threads > threads::kMaxThreads)
    throw TraceError(fmt::format("adjit::jit '{}': JitOptions::threads must be 0 (the default) "
                                 "or a thread count up to {}, got {}{}",
                                 options_.name, threads::kMaxThreads, options_.threads,
                                 jitted_at_));
  for (int argument : options_.donate)
    if (argument < 0)
      throw TraceError(fmt::format("adjit::jit '{}': JitOptions::donate names argument {}; "
                                   "arguments are numbered from 0{}",
                                   options_.name, argument, jitted_at_));
}

std::vector<bool> JitCache::donated_inputs(const std::vector<size_t>& argument_ends,
                                           const std::vector<bool>& traced) const {
  std::vector<bool> donated(argument_ends.empty() ? 0 : argument_ends.back(), false);
  for (int argument : options_.donate) {
    if (static_cast<size_t>(argument) >= argument_ends.size())
      throw TraceError(fmt::format("adjit::jit '{}': JitOptions::donate names argument {}, but "
                                   "the call has {} arguments{}",
                                   options_.name, argument, argument_ends.size(), jitted_at_));
    if (!traced[argument])
      throw TraceError(fmt::format("adjit::jit '{}': JitOptions::donate names argument {}, a "
                                   "static value (part of the cache key), which has no buffer "
                                   "to donate{}",
                                   options_.name, argument, jitted_at_));
    size_t begin = argument == 0 ? 0 : argument_ends[argument - 1];
    std::fill(donated.begin() + begin, donated.begin() + argument_ends[argument], true);
  }
  return donated;
}

JitCache::~JitCache() = default;

namespace {
thread_local CallScratch thread_scratch;
thread_local bool thread_scratch_busy = false;
}  // namespace

ScratchLease::ScratchLease() {
  if (!thread_scratch_busy) {
    thread_scratch_busy = true;
    scratch_ = &thread_scratch;
  } else {
    own_ = std::make_unique<CallScratch>();
    scratch_ = own_.get();
  }
}

ScratchLease::~ScratchLease() {
  // Also after a failed call: outputs made before the failure are freed.
  scratch_->inputs.clear();
  scratch_->outputs.clear();
  if (!own_) thread_scratch_busy = false;
}

CacheInfo JitCache::info() const {
  std::lock_guard lock(state_->mutex);
  CacheInfo info = state_->info;
  info.entries = state_->entries.size();
  return info;
}

Device JitCache::place(std::vector<Array>& inputs) const {
  // A donated or moved-from array is refused here, before a call donates
  // anything or compiles for it.
  for (const Array& input : inputs) (void)input.raw_data();  // throws the RuntimeError saying which
  if (options_.device) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      try {
        inputs[i] = inputs[i].to(*options_.device);
      } catch (const RuntimeError& e) {
        throw RuntimeError(fmt::format("adjit::jit '{}' (JitOptions::device = {}): array {}: {}",
                                       options_.name, options_.device->str(), i, e.what()));
      }
    }
    return *options_.device;
  }
  if (inputs.empty()) return Device::cpu();
  Device device = inputs.front().device();
  for (size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i].device() != device)
      throw RuntimeError(fmt::format(
          "adjit::jit '{}': its array arguments live on different devices: array 0 ({}) on {}, "
          "array {} ({}) on {}; move them to one device with .to(), or set JitOptions::device",
          options_.name, type_string(inputs[0].dtype(), inputs[0].shape()), device.str(), i,
          type_string(inputs[i].dtype(), inputs[i].shape()), inputs[i].device().str()));
  return device;
}

std::shared_ptr<const CompiledFunction> JitCache::lookup(
    const CacheKey& key, FunctionRef<std::vector<std::string>()> describe, TraceBody body,
    Device device, const std::vector<bool>& donated) {
  uint64_t hash = key.hash();
  std::shared_ptr<CompiledEntry> entry;
  {
    std::unique_lock lock(state_->mutex);
    for (const auto& candidate : state_->entries)
      if (candidate->hash == hash && candidate->key == key.words()) entry = candidate;
    if (entry) {
      // Waiting for our own trace (directly, or through traces on other
      // threads that wait for ours) would never end.
      if (!entry->ready) {
        WaitForTracer wait(
            entry->tracer,
            "adjit::jit '" + options_.name + "' calls itself with the signature " +
                signature_text(entry->arguments) +
                " it is being traced for (here, or through calls being traced on other "
                "threads); a trace cannot contain a call of itself (it would need its own "
                "result to finish): compute the recursion with a loop, or call a plain C++ "
                "function" + jitted_at_);
        state_->compiled.wait(lock, [&] { return entry->ready; });
      }
      if (entry->error) {
        ++state_->info.misses;  // hits + misses count every call
        throw_copy(entry->error);
      }
      entry->last_used = ++state_->clock;
      ++state_->info.hits;
      // Shares the slot's ownership: an eviction leaves this call's code alive.
      return std::shared_ptr<const CompiledFunction>(entry, &*entry->compiled);
    }
    // A miss: this caller traces and compiles; others with the same key wait.
    entry = std::make_shared<CompiledEntry>();
    entry->key = key.words();
    entry->hash = hash;
    entry->arguments = describe();
    entry->last_used = ++state_->clock;
    entry->tracer = std::this_thread::get_id();
    if (options_.max_traces > 0 && state_->traces >= options_.max_traces) {
      std::string seen;
      for (const auto& [signature, count] : state_->traced_signatures)
        seen += "\n  " + signature_text(signature) +
                (count > 1 ? fmt::format(" ({} times)", count) : "");
      throw TraceError(fmt::format(
          "adjit::jit '{}': signature {} would be trace number {}, more than max_traces = {}{}; "
          "signatures traced so far:{}",
          options_.name, signature_text(entry->arguments), state_->traces + 1,
          options_.max_traces, jitted_at_, seen));
    }
    if (options_.log_retrace)
      // Through std::cerr, which programs (and tests) may redirect.
      std::cerr << fmt::format("adjit::jit '{}': tracing (miss {}): {}", options_.name,
                               state_->info.misses + 1,
                               explain_retrace(state_->entries, entry->arguments))
                << std::endl;
    ++state_->traces;
    ++state_->traced_signatures[entry->arguments];
    ++state_->info.misses;
    state_->entries.push_back(entry);
  }

  auto start = std::chrono::steady_clock::now();
  try {
    auto [program, result_layout] =
        trace_program(options_.name, body, device, donated, options_.rematerialize,
                      options_.vector_math_library, where_);
    if (!options_.cache_dir.empty()) {
      CompileOptions with_cache = program.options();
      with_cache.cache_dir = options_.cache_dir;
      program.set_options(with_cache);
    }
    if (!options_.dump_dir.empty()) {
      // name, which jitted function (names may repeat), which signature
      program.dump(options_.dump_dir,
                   fmt::format("{}-{}-{:x}-", options_.name, instance_, hash & 0xffffffffull));
    }
    entry->compiled.emplace(program.compile(device), options_.name, std::move(result_layout),
                            options_.threads);
  } catch (...) {
    entry->error = std::current_exception();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::lock_guard lock(state_->mutex);
  entry->ready = true;
  state_->info.compile_seconds += seconds;
  auto& entries = state_->entries;
  if (entry->error) {
    // A failed trace is not cached: the next call reports its error afresh.
    entries.erase(std::find(entries.begin(), entries.end(), entry));
    --state_->traces;
    if (--state_->traced_signatures[entry->arguments] == 0)
      state_->traced_signatures.erase(entry->arguments);
  } else if (entries.size() > options_.cache_size) {
    auto oldest = std::min_element(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a->ready && (!b->ready || a->last_used < b->last_used);
    });
    entries.erase(oldest);
  }
  state_->compiled.notify_all();
  if (entry->error) throw_copy(entry->error);
  return std::shared_ptr<const CompiledFunction>(entry, &*entry->compiled);
}

}  // namespace detail
}  // namespace adjit
