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

std::vector<std::pair<std::string, std::string>> library_environment(
    const std::string& flags, bool auto_select, int intra_op_threads, bool openmp_gemms,
    bool coretype_set, bool wait_policy_set) {
  std::vector<std::pair<std::string, std::string>> out;
  if (auto_select && !coretype_set) {
    const std::string core = choose_openblas_coretype(flags);
    if (!core.empty()) out.emplace_back("OPENBLAS_CORETYPE", core);
  }
  if (intra_op_threads > 1 && !wait_policy_set) {
    if (openmp_gemms) {
      out.emplace_back("GOMP_SPINCOUNT", kOpenMpGemmSpinCount);
    } else {
      out.emplace_back("OMP_WAIT_POLICY", "PASSIVE");
    }
  }
  return out;
}

void set_library_environment(bool auto_select, int intra_op_threads, bool openmp_gemms, int argc,
                             char** argv) {
  const bool wait_policy_set = std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT");
  const auto vars = library_environment(cpu_flags(), auto_select, intra_op_threads, openmp_gemms,
                                        std::getenv("OPENBLAS_CORETYPE"), wait_policy_set);
  if (vars.empty()) return;
  for (const auto& [name, value] : vars) setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  std::fprintf(stderr, "warning: could not re-exec with %s=%s: %s\n", vars[0].first.c_str(),
               vars[0].second.c_str(), std::strerror(errno));
}

}  // namespace gfn::runtime
