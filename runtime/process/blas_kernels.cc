#include "runtime/process/blas_kernels.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace gfn::runtime {
namespace {

std::string cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? "" : line.substr(colon + 1);
    }
  }
  return "";
}

}  // namespace

std::string choose_openblas_coretype(const std::string& flags_text) {
  std::set<std::string> flags;
  std::istringstream words(flags_text);
  for (std::string w; words >> w;) flags.insert(w);
  auto has_all = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      if (!flags.count(n)) return false;
    }
    return true;
  };
  if (has_all({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"})) return "SkylakeX";
  if (has_all({"avx2", "fma"})) return "Haswell";
  return "";
}

void select_blas_kernels(bool auto_select, int argc, char** argv) {
  if (!auto_select || std::getenv("OPENBLAS_CORETYPE")) return;
  const std::string core = choose_openblas_coretype(cpu_flags());
  if (core.empty()) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  std::fprintf(stderr, "warning: could not re-exec with OPENBLAS_CORETYPE=%s: %s\n", core.c_str(),
               std::strerror(errno));
}

}  // namespace gfn::runtime
