#ifndef ADJIT_COMPILER_COMPILECACHE_H
#define ADJIT_COMPILER_COMPILECACHE_H

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace adjit {

/// The on-disk compile cache: machine code of compiled programs, one file
/// per key (a SHA-256 of the traced IR, the target CPU and features, the
/// compiler options and adjit's version and build, which together decide
/// the optimized IR), so that a second process skips the MLIR passes and
/// LLVM entirely. Entries are checked before use (format, key, size and a
/// SHA-256 of the contents): a corrupt, truncated or foreign file is deleted
/// and recompiled, never loaded. Writers write a temporary file and rename
/// it, so concurrent processes storing one key never expose a partial file.
/// Past the size bound (ADJIT_CACHE_MAX_MB, default 1024) the entries used
/// longest ago are deleted. Enabled by JitOptions::cache_dir,
/// CompileOptions::cache_dir or ADJIT_CACHE_DIR.
class CompileCache {
 public:
  /// Creates the directory if needed; throws adjit::Error if it cannot.
  explicit CompileCache(std::string dir);

  /// ADJIT_CACHE_DIR, or "" when unset.
  static std::string directory_from_environment();
  /// The key of a compilation: a SHA-256 (hex) of its parts and adjit's
  /// version.
  static std::string key(std::initializer_list<std::string_view> parts);

  /// The stored bytes for `key`, if a valid entry exists (marking it used).
  std::optional<std::string> load(const std::string& key) const;
  /// Stores bytes under `key`, then evicts past the size bound. Failures to
  /// write are ignored: the cache is an optimization.
  void store(const std::string& key, const std::string& bytes) const;
  /// Marks the entry of `key` used, if there is one; whether there is.
  bool touch(const std::string& key) const;
  /// Deletes the entry of `key`, if any (an object that would not load).
  void remove(const std::string& key) const;

  struct Info {
    std::string dir;
    uint64_t entries = 0;
    uint64_t bytes = 0;
    uint64_t max_bytes = 0;
  };
  Info info() const;
  /// Deletes every entry (and stray temporary files); throws adjit::Error
  /// naming the entries it could not delete, after deleting the others.
  void clear() const;

  const std::string& dir() const { return dir_; }

 private:
  std::filesystem::path path_of(const std::string& key) const;

  std::string dir_;
  uint64_t max_bytes_;
};

}  // namespace adjit

#endif
