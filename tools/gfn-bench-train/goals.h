#pragma once
// Throughput goals (docs/performance.md "Trainer throughput") and torchgfn's figures on the same
// machine, keyed by the bench config's file name (configs/bench/<name>.yaml). Data only;
// thread-safe.

#include <optional>
#include <string>
#include <vector>

namespace gfn::bench {

struct Goal {
  std::string name;   ///< config file stem, e.g. "hypergrid_2d_b128"
  double max_ms = 0;  ///< goal: ms/iteration at most
  /// goal: achieved GFLOP/s / same-shapes GEMM rate (gemm_probe.h probe_gemm_calls on
  /// the iteration's own GEMM calls) at least (0 = none)
  double min_probe_ratio = 0;
  double torchgfn_ms = 0;  ///< torchgfn ms/iteration measured on this machine
};

/// The three bench configs, in the order --all runs them.
const std::vector<Goal>& goals();

/// The goal of a config path whose file stem matches, if any.
std::optional<Goal> goal_for(const std::string& config_path);

}  // namespace gfn::bench
