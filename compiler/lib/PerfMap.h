#pragma once

#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"

#include <memory>

namespace adjit::detail {

// With ADJIT_PERF_MAP=1, every function the JIT links is listed in
// /tmp/perf-<pid>.map (start address, size, name), the file `perf report`
// and `perf top` read to name samples in code without an ELF file: time
// then shows up under the compiled functions, their outlined parallel
// bodies included, instead of as unknown addresses. Null otherwise.
std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> perf_map_plugin_from_environment();

}  // namespace adjit::detail
