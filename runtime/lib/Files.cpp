#include "adjit/runtime/Files.h"

#include "adjit/runtime/Error.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace adjit {

void write_file(const std::string& path, std::string_view bytes) {
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::string reason = errno ? std::string(": ") + std::strerror(errno) : std::string();
    throw Error("cannot write '" + path + "'" + reason);
  }
}

}  // namespace adjit
