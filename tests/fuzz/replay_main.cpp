// A main for the fuzz targets in builds without libFuzzer (gcc, CI): runs
// the target on every file given (files or directories: the regression
// corpus), then on N pseudo-random inputs with --random=N[:SEED].
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::printf("%s (%zu bytes)\n", path.c_str(), bytes.size());
  std::fflush(stdout);
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t files = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--random=", 0) == 0) {
      unsigned long count = std::strtoul(arg.c_str() + 9, nullptr, 10);
      size_t colon = arg.find(':');
      uint64_t state = colon == std::string::npos ? 1 : std::strtoull(arg.c_str() + colon + 1, nullptr, 10);
      for (unsigned long n = 0; n < count; ++n) {
        std::vector<uint8_t> bytes(64);
        for (uint8_t& b : bytes) {
          state = state * 6364136223846793005ull + 1442695040888963407ull;
          b = static_cast<uint8_t>(state >> 56);
        }
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      }
      std::printf("%lu random inputs\n", count);
      continue;
    }
    std::filesystem::path path(arg);
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> entries;
      for (const auto& entry : std::filesystem::directory_iterator(path)) entries.push_back(entry.path());
      std::sort(entries.begin(), entries.end());
      for (const auto& entry : entries) run_file(entry), ++files;
    } else {
      run_file(path), ++files;
    }
  }
  std::printf("%zu files replayed without a crash\n", files);
  return 0;
}
