#pragma once
// The machine a benchmark ran on, for its method statement (report.h): CPU model and
// vector extensions, logical CPUs, the BLAS library, load average, host, date and the git
// commit the binary was built from. Reads /proc (Linux); thread-safe; cheap (a few small
// files, no child process).

#include <string>
#include <vector>

namespace gfn::harness {

struct Machine {
  std::string cpu_model;     ///< /proc/cpuinfo "model name", "unknown CPU" if absent
  std::string cpu_features;  ///< "avx512f avx2 fma" (those present), "" for none of them
  int logical_cpus = 0;      ///< std::thread::hardware_concurrency()
  /// The BLAS library: the one mapped into this process (blas_loaded), else the
  /// libblas.so.3 the dynamic loader would pick (what gfn-train child processes load).
  std::string blas;
  bool blas_loaded = false;
  /// OpenBLAS's kernel set chosen at load (openblas_get_corename, e.g. "SkylakeX",
  /// "Haswell", "Prescott"); "" when no OpenBLAS is loaded in this process.
  std::string blas_kernels;
  std::vector<double> load_average;  ///< 1, 5 and 15 minutes; empty if unknown
  std::string host;
  std::string date;        ///< when described, UTC, ISO 8601 ("2026-11-25T19:41:07Z")
  std::string git_commit;  ///< build_commit()
};

/// Describes this machine and process now.
Machine describe_machine();

/// The git commit of the source tree the binary was built from (the full hash, with
/// "-dirty" when tracked files had uncommitted changes at build time), or "unknown"
/// when it was not built from a git checkout. Written at build time
/// (tools/common/harness/git_commit.cmake).
std::string build_commit();

/// "avx512f avx2 fma" (those the CPU supports), "" for none of them.
std::string cpu_features();

/// The 1, 5 and 15-minute load averages (getloadavg); empty if unavailable.
std::vector<double> load_averages();

/// The path of the BLAS library mapped into this process (/proc/self/maps; LibTorch maps
/// libblas.so.3 at start), or "" when none is.
std::string loaded_blas_library();

/// OpenBLAS's kernel set if an OpenBLAS is loaded in this process, else "".
std::string openblas_kernels();

}  // namespace gfn::harness
