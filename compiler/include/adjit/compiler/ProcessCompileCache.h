#ifndef ADJIT_COMPILER_PROCESSCOMPILECACHE_H
#define ADJIT_COMPILER_PROCESSCOMPILECACHE_H

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace adjit {

/// The machine code of the programs compiled in this process, by the key of
/// the on-disk CompileCache (a SHA-256 of the traced IR, the target and the
/// compiler options), so that a program traced again into the same IR is
/// linked without running the MLIR passes or LLVM: `vjp`, `jvp` and `hvp`
/// called on Arrays trace at every call (a captured value that changed
/// changes the IR, and so the key), and two `jit`s of one function share
/// their compilations. The entries used longest ago are dropped past
/// ADJIT_PROCESS_CACHE_MB (default 256; 0 turns the cache off).
class ProcessCompileCache {
 public:
  using Object = std::shared_ptr<const std::string>;

  /// The cache of this process (never destroyed: programs may compile
  /// while others exit).
  static ProcessCompileCache& instance();
  /// A cache of its own, holding at most `max_bytes` of objects.
  explicit ProcessCompileCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  /// Whether it keeps anything (ADJIT_PROCESS_CACHE_MB is not 0).
  bool enabled() const { return max_bytes_ > 0; }
  /// The object stored under `key`, marked used; counts a hit or a miss.
  Object load(const std::string& key);
  /// Stores `object` under `key` (replacing an entry of that key), then
  /// drops the entries used longest ago past the bound. An object larger
  /// than the bound is not stored.
  void store(const std::string& key, Object object);
  /// Drops the entry of `key`, if any (an object that would not load).
  void remove(const std::string& key);

  struct Info {
    uint64_t hits = 0, misses = 0;
    uint64_t entries = 0, bytes = 0, max_bytes = 0;
  };
  Info info() const;
  /// Drops every entry and zeroes the counts.
  void clear();

 private:
  void drop(const std::string& key);  // with mutex_ held

  struct Entry {
    std::string key;
    Object object;
  };
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_key_;
  uint64_t bytes_ = 0, hits_ = 0, misses_ = 0;
  const uint64_t max_bytes_;
};

}  // namespace adjit

#endif
