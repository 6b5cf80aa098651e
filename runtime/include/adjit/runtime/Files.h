#pragma once

#include <string>
#include <string_view>

namespace adjit {

/// Writes `bytes` to `path` (replacing it), or throws Error naming the path
/// and the system's reason ("cannot write 'out/x.o': Permission denied").
void write_file(const std::string& path, std::string_view bytes);

}  // namespace adjit
