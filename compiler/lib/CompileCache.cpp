#include "adjit/compiler/CompileCache.h"

#include "adjit/runtime/Environment.h"
#include "adjit/runtime/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SHA256.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>
#include <fmt/std.h>

namespace adjit {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "adjit-compiled 1\n";
constexpr std::string_view kSuffix = ".adjit-obj";

std::string sha256_hex(std::string_view bytes) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(bytes.data(), bytes.size()));
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

uint64_t max_bytes_from_environment() {
  return megabytes_variable("ADJIT_CACHE_MAX_MB").value_or(uint64_t{1024} << 20);
}

// The file's bytes, or nothing where it cannot be read whole (a directory
// in its place, an I/O error): an entry that is not there.
std::optional<std::string> read_file(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return std::nullopt;
  }
  if (in.bad()) return std::nullopt;
  return bytes;
}

}  // namespace

CompileCache::CompileCache(std::string dir) : dir_(std::move(dir)), max_bytes_(max_bytes_from_environment()) {
  std::error_code error;
  fs::create_directories(dir_, error);
  if (error || !fs::is_directory(dir_))
    throw Error(fmt::format("cannot use '{}' as the compile cache directory: {}", dir_,
                            error ? error.message() : "not a directory"));
}

std::string CompileCache::directory_from_environment() {
  const char* dir = std::getenv("ADJIT_CACHE_DIR");
  return dir ? dir : "";
}

namespace {

// Which build of adjit this is: its version names a release, not the
// compiler code of a development build, so the library file's size and
// modification time are part of every key as well.
const std::string& library_build() {
  static const std::string build = [] {
    Dl_info info;
    struct stat status;
    if (!dladdr(reinterpret_cast<void*>(&CompileCache::directory_from_environment), &info) ||
        !info.dli_fname || stat(info.dli_fname, &status) != 0)
      return std::string("unknown build");
    return fmt::format("{} {} {}.{}", info.dli_fname, status.st_size, status.st_mtim.tv_sec,
                       status.st_mtim.tv_nsec);
  }();
  return build;
}

}  // namespace

std::string CompileCache::key(std::initializer_list<std::string_view> parts) {
  llvm::SHA256 hash;
  auto add = [&](std::string_view part) {
    // Length-prefixed, so that no two part lists hash alike.
    std::string length = fmt::format("{}:", part.size());
    hash.update(llvm::StringRef(length));
    hash.update(llvm::StringRef(part.data(), part.size()));
  };
  add("adjit " ADJIT_VERSION " llvm " LLVM_VERSION_STRING);
  add(library_build());
  for (std::string_view part : parts) add(part);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

fs::path CompileCache::path_of(const std::string& key) const {
  return fs::path(dir_) / (key + std::string(kSuffix));
}

void CompileCache::remove(const std::string& key) const {
  std::error_code error;
  fs::remove(path_of(key), error);
}

bool CompileCache::touch(const std::string& key) const {
  std::error_code error;
  fs::last_write_time(path_of(key), fs::file_time_type::clock::now(), error);
  return !error;
}

std::optional<std::string> CompileCache::load(const std::string& key) const {
  fs::path path = path_of(key);
  std::optional<std::string> file = read_file(path);
  if (!file) return std::nullopt;
  std::error_code error;
  // magic, key, size, SHA-256 of the contents, one per line, then the bytes
  std::string_view rest(*file);
  auto line = [&rest]() -> std::optional<std::string_view> {
    size_t end = rest.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view text = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    return text;
  };
  bool valid = rest.substr(0, kMagic.size()) == kMagic;
  rest.remove_prefix(valid ? kMagic.size() : rest.size());
  std::optional<std::string_view> stored_key = line(), size = line(), digest = line();
  valid = valid && digest && *stored_key == key && *size == fmt::to_string(rest.size()) &&
          sha256_hex(rest) == *digest;
  if (!valid) {
    fs::remove(path, error);  // corrupt, truncated or foreign: compile afresh
    return std::nullopt;
  }
  touch(key);  // recently used
  return std::string(rest);
}

void CompileCache::store(const std::string& key, const std::string& bytes) const {
  static std::atomic<uint64_t> counter{0};
  fs::path temporary = fs::path(dir_) / fmt::format(".tmp-{}-{}-{}", ::getpid(),
                                                    std::this_thread::get_id(), ++counter);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << kMagic << key << "\n" << bytes.size() << "\n" << sha256_hex(bytes) << "\n";
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::error_code error;
      fs::remove(temporary, error);
      return;
    }
  }
  std::error_code error;
  fs::rename(temporary, path_of(key), error);
  if (error) fs::remove(temporary, error);

  // Evict the entries used longest ago past the bound.
  struct Entry {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  for (const auto& file : fs::directory_iterator(dir_, error)) {
    if (file.path().extension() != kSuffix) continue;
    std::error_code ignored;
    Entry entry{file.path(), file.file_size(ignored), file.last_write_time(ignored)};
    total += entry.bytes;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& entry : entries) {
    if (total <= max_bytes_) break;
    if (fs::remove(entry.path, error)) total -= entry.bytes;
  }
}

CompileCache::Info CompileCache::info() const {
  Info info{dir_, 0, 0, max_bytes_};
  std::error_code error;
  for (const auto& file : fs::directory_iterator(dir_, error)) {
    if (file.path().extension() != kSuffix) continue;
    ++info.entries;
    std::error_code ignored;
    info.bytes += file.file_size(ignored);
  }
  return info;
}

void CompileCache::clear() const {
  std::error_code error;
  std::vector<std::string> kept;
  std::string why;
  for (const auto& file : fs::directory_iterator(dir_, error)) {
    std::string name = file.path().filename().string();
    if (file.path().extension() == kSuffix || name.rfind(".tmp-", 0) == 0) {
      std::error_code removal;
      fs::remove(file.path(), removal);
      if (removal) {
        kept.push_back(name);
        why = removal.message();
      }
    }
  }
  if (error)
    throw Error(fmt::format("cannot list the compile cache '{}': {}", dir_, error.message()));
  if (!kept.empty())
    throw Error(fmt::format("cannot delete {} entries of the compile cache '{}' ({}): {}{}",
                            kept.size(), dir_, why, kept.front(),
                            kept.size() > 1 ? ", ..." : ""));
}

}  // namespace adjit
