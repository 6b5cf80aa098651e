// Fuzz target: arbitrary bytes as an `adjit`-dialect module, parsed,
// verified and lowered through every stage to optimized LLVM IR. Bad input
// must end in adjit::Error (a clean message); anything else (a crash, an
// abort, another exception, a hang) is a bug.
#include "adjit/compiler/Program.h"
#include "adjit/runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    adjit::Program program = adjit::Program::parse(text, "fuzz.mlir");
    program.ir("llvm-ir");
  } catch (const adjit::Error&) {
    // the input was rejected with a message: fine
  }
  return 0;
}
