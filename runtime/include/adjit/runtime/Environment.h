#pragma once

#include <cstdint>
#include <optional>

namespace adjit {

/// The environment variable `name` as a whole number of megabytes, in
/// bytes; nothing when it is unset or empty. Throws Error naming the
/// variable for anything else: a sign, other characters, or more bytes than
/// 64 bits count.
std::optional<uint64_t> megabytes_variable(const char* name);

}  // namespace adjit
