#include "adjit/runtime/Environment.h"

#include "adjit/runtime/Error.h"

#include <fmt/format.h>

#include <cstdlib>

namespace adjit {

std::optional<uint64_t> megabytes_variable(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  uint64_t megabytes = 0;
  for (const char* c = text; *c; ++c)
    if (*c < '0' || *c > '9' || __builtin_mul_overflow(megabytes, 10, &megabytes) ||
        __builtin_add_overflow(megabytes, static_cast<uint64_t>(*c - '0'), &megabytes) ||
        megabytes > (UINT64_MAX >> 20))
      throw Error(fmt::format("{} must be a whole number of megabytes below 2^44, got '{}'", name,
                              text));
  return megabytes << 20;
}

}  // namespace adjit
