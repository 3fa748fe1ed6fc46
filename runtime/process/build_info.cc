#include "runtime/process/build_info.h"

#include <fstream>

namespace gfn::runtime {

std::string loaded_blas_library() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find("blas") != std::string::npos) return path;
  }
  return "unknown";
}

}  // namespace gfn::runtime
