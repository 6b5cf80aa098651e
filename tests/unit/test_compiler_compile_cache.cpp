// The on-disk compile cache: a second compilation of the same program loads
// the stored machine code; corrupt, truncated and foreign entries are
// recompiled, never loaded; concurrent compilations of one key leave one
// valid entry; the size bound evicts; `adjit cache` shows and clears it.
#include "scratch_dir.h"
#include "test_support.h"

#include <adjit/compiler/CompileCache.h>
#include <adjit/compiler/ProcessCompileCache.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace adjit;
using namespace adjit::test;
namespace fs = std::filesystem;

namespace {

struct CacheDir {
  ScratchDir scratch{"adjit-cache-test"};
  fs::path path = scratch.path();
  std::vector<fs::path> entries() const {
    std::vector<fs::path> found;
    for (const auto& file : fs::directory_iterator(path)) found.push_back(file.path());
    return found;
  }
};

Tensor poly(Tensor x) { return sum(x * x * 3.0 + exp(x)); }

// A fresh jitted function each time (its own in-memory cache) and the
// process's compile cache emptied, so that only the disk can spare the
// compilation.
double compiled_value(const std::string& dir) {
  ProcessCompileCache::instance().clear();
  auto f = jit(poly, {.name = "poly", .cache_dir = dir});
  return f(Array::from<float>({0.5f, -1.0f, 2.0f}, {3})).item<float>();
}

const double kExpected = 3 * (0.25 + 1 + 4) + std::exp(0.5) + std::exp(-1.0) + std::exp(2.0);

// Compiles once into `dir`: its one entry.
fs::path stored_entry(const CacheDir& dir) {
  compiled_value(dir.path);
  return dir.entries().at(0);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("compile cache: the second compilation loads the stored machine code", "[cache]") {
  CacheDir dir;
  CHECK(compiled_value(dir.path) == Approx(kExpected));
  auto entries = dir.entries();
  REQUIRE(entries.size() == 1);
  auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(entries[0], old_time);
  CHECK(compiled_value(dir.path) == Approx(kExpected));
  REQUIRE(dir.entries().size() == 1);
  // Loading marks the entry used (the least recently used go first).
  CHECK(fs::last_write_time(entries[0]) > old_time + std::chrono::hours(23));
  CompileCache::Info info = CompileCache(dir.path).info();
  CHECK(info.entries == 1);
  CHECK(info.bytes == fs::file_size(entries[0]));
}

TEST_CASE("compile cache: corrupt, truncated and foreign entries are recompiled", "[cache]") {
  CacheDir dir;
  fs::path entry = stored_entry(dir);
  uintmax_t size = fs::file_size(entry);
  std::string original = read_bytes(entry);
  auto rewrite = [&](const std::string& bytes) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  };
  std::string flipped = original;
  flipped[flipped.size() - 100] ^= 0x55;  // one byte of the machine code
  for (const std::string& bad :
       {flipped, original.substr(0, original.size() / 2), std::string("not a cache entry"),
        std::string()}) {
    rewrite(bad);
    CHECK(compiled_value(dir.path) == Approx(kExpected));
    CHECK(fs::file_size(entry) == size);  // replaced by a valid entry
  }
}

TEST_CASE("compile cache: an intact entry whose object does not load is recompiled",
          "[cache]") {
  // Header and checksum right, contents no object file: deleted and
  // compiled afresh, not an error on every later call.
  CacheDir dir;
  fs::path entry = stored_entry(dir);
  uintmax_t size = fs::file_size(entry);
  std::string bytes = read_bytes(entry);  // magic, key, size, digest: a line each
  size_t key_start = bytes.find('\n') + 1;
  std::string key = bytes.substr(key_start, bytes.find('\n', key_start) - key_start);
  CompileCache(dir.path.string()).store(key, "intact bytes, but no object file");
  REQUIRE(fs::file_size(entry) < size);
  CHECK(compiled_value(dir.path) == Approx(kExpected));
  CHECK(fs::file_size(entry) == size);  // replaced by a loadable entry
  CHECK(compiled_value(dir.path) == Approx(kExpected));
}

TEST_CASE("compile cache: an entry that cannot be read is recompiled", "[cache]") {
  CacheDir dir;
  fs::path entry = stored_entry(dir);
  fs::remove(entry);
  fs::create_directory(entry);  // a directory where the entry should be
  CHECK(compiled_value(dir.path) == Approx(kExpected));
  CHECK(compiled_value(dir.path) == Approx(kExpected));
}

TEST_CASE("compile cache: concurrent compilations of one program leave one valid entry",
          "[cache]") {
  CacheDir dir;
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] { right += compiled_value(dir.path) == Approx(kExpected); });
  for (auto& thread : threads) thread.join();
  CHECK(right == 4);
  auto entries = dir.entries();
  REQUIRE(entries.size() == 1);  // no temporary file left behind
  CHECK(entries[0].extension() == ".adjit-obj");
  CHECK(compiled_value(dir.path) == Approx(kExpected));
}

TEST_CASE("compile cache: processes racing on one key leave one valid entry", "[cache][cli]") {
  CacheDir dir;
  fs::create_directories(dir.path);
  std::string module = (dir.path / "racing.mlir").string();
  std::ofstream(module) << R"(func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = adjit.exp %x : tensor<3xf32>
  %1 = adjit.mul %0, %x : tensor<3xf32>
  return %1 : tensor<3xf32>
})";
  // Six processes compile the same program at once into one cache; each
  // writes its own output file.
  std::string cache = (dir.path / "cache").string();
  std::string command = "cd '" + dir.path.string() + "' && for i in 1 2 3 4 5 6; do ADJIT_CACHE_DIR='" +
                        cache + "' '" + ADJIT_CLI + "' run racing.mlir --arg 'f32[3]=0,1,2' > out$i.txt 2>&1 & done; wait";
  REQUIRE(std::system(command.c_str()) == 0);
  for (int i = 1; i <= 6; ++i) {
    std::ifstream in(dir.path / ("out" + std::to_string(i) + ".txt"));
    std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO("process " << i << ": " << output);
    CHECK(output.find("out0 = f32[3] [0, 2.71828, 14.7781]") != std::string::npos);
  }
  std::vector<fs::path> entries;
  for (const auto& file : fs::directory_iterator(cache)) entries.push_back(file.path());
  REQUIRE(entries.size() == 1);  // one entry, no temporary left behind
  CHECK(entries[0].extension() == ".adjit-obj");
  CHECK(CompileCache(cache).info().entries == 1);
}

TEST_CASE("compile cache: entries past the size bound are evicted", "[cache]") {
  CacheDir dir;
  ::setenv("ADJIT_CACHE_MAX_MB", "0", 1);
  CHECK(compiled_value(dir.path) == Approx(kExpected));
  ::unsetenv("ADJIT_CACHE_MAX_MB");
  CHECK(dir.entries().empty());
  // Not a count of megabytes: words, a sign (strtoull would wrap -1), and
  // more bytes than 64 bits hold (<< 20 made 2^44 MB 0 bytes).
  for (const char* bad : {"lots", "-1", "+5", "17592186044416"}) {
    ::setenv("ADJIT_CACHE_MAX_MB", bad, 1);
    CHECK_THROWS_WITH(CompileCache(dir.path),
                      Catch::Contains("ADJIT_CACHE_MAX_MB must be a whole number of megabytes") &&
                          Catch::Contains(bad));
  }
  ::unsetenv("ADJIT_CACHE_MAX_MB");
}

TEST_CASE("compile cache: keys differ by content and by part boundaries", "[cache]") {
  CHECK(CompileCache::key({"ab", "c"}) != CompileCache::key({"a", "bc"}));
  CHECK(CompileCache::key({"x"}) == CompileCache::key({"x"}));
  CHECK(CompileCache::key({"x"}).size() == 64);
}

TEST_CASE("compile cache: adjit cache info and clear", "[cache][cli]") {
  CacheDir dir;
  compiled_value(dir.path);
  std::string command = std::string(ADJIT_CLI) + " cache info --dir " + dir.path.string() +
                        " > " + (dir.path / "info.txt").string();
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream in(dir.path / "info.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("entries: 1\n") != std::string::npos);
  fs::remove(dir.path / "info.txt");
  command = std::string(ADJIT_CLI) + " cache clear --dir " + dir.path.string() + " > /dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  CHECK(dir.entries().empty());
  CHECK(std::system((std::string(ADJIT_CLI) + " cache info > /dev/null 2>&1").c_str()) != 0);
  // Looking at a directory that is not there makes none.
  fs::path missing = dir.path / "not" / "there";
  CHECK(std::system((std::string(ADJIT_CLI) + " cache info --dir " + missing.string() +
                     " > /dev/null 2>&1").c_str()) != 0);
  CHECK(!fs::exists(dir.path / "not"));
}

TEST_CASE("compile cache: clear names what it could not delete", "[cache]") {
  CacheDir dir;
  compiled_value(dir.path);
  // An "entry" that cannot be removed: a directory with a file in it.
  fs::create_directories(dir.path / "stuck.adjit-obj" / "inside");
  CompileCache cache(dir.path.string());
  CHECK_THROWS_WITH(cache.clear(), Catch::Contains("cannot delete 1 entries of the compile cache") &&
                                       Catch::Contains("stuck.adjit-obj"));
  // The others are gone.
  for (const fs::path& entry : dir.entries()) CHECK(entry.filename() == "stuck.adjit-obj");
}

TEST_CASE("compile cache: an unusable directory is a clear error", "[cache]") {
  CHECK_THROWS_WITH(CompileCache("/proc/adjit-no-such-dir/cache"),
                    Catch::Contains("cannot use '/proc/adjit-no-such-dir/cache' as the compile "
                                    "cache directory"));
  // Named in the code: an error.
  auto f = [](Tensor x) { return x * 3.0; };
  CHECK_THROWS_WITH(jit(f, {.cache_dir = "/proc/adjit-no-such-dir/cache"})(Array::ones({2})),
                    Catch::Contains("cannot use '/proc/adjit-no-such-dir/cache'"));
  // Set for every program (ADJIT_CACHE_DIR): a warning, and no cache.
  const char* before = std::getenv("ADJIT_CACHE_DIR");
  std::string saved = before ? before : "";
  setenv("ADJIT_CACHE_DIR", "/proc/adjit-no-such-dir/cache", 1);
  Array y = jit(f)(Array::ones({2}));
  if (before) setenv("ADJIT_CACHE_DIR", saved.c_str(), 1);
  else unsetenv("ADJIT_CACHE_DIR");
  CHECK(y.to_vector<float>() == std::vector<float>{3, 3});
}
