#include "PerfMap.h"

#include "adjit/runtime/Error.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace adjit::detail {

namespace {

namespace jitlink = llvm::jitlink;

std::string perf_map_path() { return fmt::format("/tmp/perf-{}.map", ::getpid()); }

class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility&, jitlink::LinkGraph&,
                        jitlink::PassConfiguration& config) override {
    // Code refers to local functions (an outlined parallel body) through
    // its section's symbol, so their own names would be pruned as unused.
    config.PrePrunePasses.push_back([](jitlink::LinkGraph& graph) -> llvm::Error {
      for (jitlink::Symbol* symbol : graph.defined_symbols())
        if (symbol->isCallable() && symbol->hasName()) symbol->setLive(true);
      return llvm::Error::success();
    });
    // After fixups every symbol has its final address.
    config.PostFixupPasses.push_back([](jitlink::LinkGraph& graph) -> llvm::Error {
      std::string lines;
      for (jitlink::Symbol* symbol : graph.defined_symbols()) {
        if (!symbol->isCallable() || !symbol->hasName() || symbol->getSize() == 0) continue;
        lines += fmt::format("{:x} {:x} {}\n", symbol->getAddress().getValue(), symbol->getSize(),
                             symbol->getName().str());
      }
      return append(lines);
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

 private:
  // One process-wide file, written by every JIT of the process, possibly
  // from several threads at once.
  static llvm::Error append(const std::string& lines) {
    static std::mutex file_mutex;
    std::lock_guard<std::mutex> lock(file_mutex);
    std::string path = perf_map_path();
    std::FILE* file = std::fopen(path.c_str(), "a");
    bool written = file && std::fwrite(lines.data(), 1, lines.size(), file) == lines.size();
    if (file && std::fclose(file) != 0) written = false;
    if (written) return llvm::Error::success();
    return llvm::createStringError(std::error_code(errno, std::generic_category()),
                                   "ADJIT_PERF_MAP: cannot append to %s: %s", path.c_str(),
                                   std::strerror(errno));
  }
};

}  // namespace

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> perf_map_plugin_from_environment() {
  const char* setting = std::getenv("ADJIT_PERF_MAP");
  if (!setting || std::strcmp(setting, "0") == 0 || *setting == '\0') return nullptr;
  if (std::strcmp(setting, "1") != 0)
    throw CompileError(fmt::format("ADJIT_PERF_MAP must be 0 or 1, not '{}'", setting));
  return std::make_unique<PerfMapPlugin>();
}

}  // namespace adjit::detail
