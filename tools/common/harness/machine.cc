#include "tools/common/harness/machine.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>

#include "harness_git_commit.h"  // GFN_HARNESS_GIT_COMMIT, generated at build time

namespace gfn::harness {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "unknown CPU";
}

// The libblas.so.3 the dynamic loader resolves (Debian's alternatives symlink), "" if
// none of the usual directories has one.
std::string system_blas_library() {
  for (const char* dir :
       {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    std::error_code ec;
    const auto path = std::filesystem::canonical(std::filesystem::path(dir) / "libblas.so.3", ec);
    if (!ec) return path.string();
  }
  return "";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string host_name() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return host;
}

}  // namespace

std::string build_commit() { return GFN_HARNESS_GIT_COMMIT; }

std::string cpu_features() {
  std::string f;
  if (__builtin_cpu_supports("avx512f")) f += " avx512f";
  if (__builtin_cpu_supports("avx2")) f += " avx2";
  if (__builtin_cpu_supports("fma")) f += " fma";
  return f.empty() ? f : f.substr(1);
}

std::vector<double> load_averages() {
  double load[3];
  if (getloadavg(load, 3) != 3) return {};
  return {load[0], load[1], load[2]};
}

std::string loaded_blas_library() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find("blas") != std::string::npos) return path;
  }
  return "";
}

std::string openblas_kernels() {
  using CoreFn = char* (*)();
  if (auto fn = reinterpret_cast<CoreFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
    return fn();
  }
  return "";
}

Machine describe_machine() {
  Machine m;
  m.cpu_model = cpu_model();
  m.cpu_features = cpu_features();
  m.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  m.blas = loaded_blas_library();
  m.blas_loaded = !m.blas.empty();
  if (!m.blas_loaded) m.blas = system_blas_library();
  if (m.blas.empty()) m.blas = "none found";
  m.blas_kernels = openblas_kernels();
  m.load_average = load_averages();
  m.host = host_name();
  m.date = utc_now();
  m.git_commit = build_commit();
  return m;
}

}  // namespace gfn::harness
