#pragma once
// The runs of gfn-bench-scaling, round by round, and each layout's medians over rounds.

#include <map>
#include <optional>
#include <vector>

#include "tools/gfn-bench-scaling/results.h"
#include "tools/gfn-bench-scaling/rounds.h"

namespace gfn::bench_scaling {

/// What one successful run gave.
struct RunFigures {
  JobFigures job;
  std::optional<ManagerFigures> manager;  ///< layouts with a manager
};

/// Every run: runs[layout id][round], nullopt for a failed (or not yet run) one.
struct Results {
  explicit Results(int rounds = 1) : rounds(rounds) {}
  int rounds;
  std::map<int, std::vector<std::optional<RunFigures>>> runs;
  /// Stores the run of `layout` in `round` (0-based). Throws std::out_of_range for a
  /// round outside [0, rounds).
  void record(int layout, int round, const RunFigures& figures);
  /// Per round: `get` of the run, nullopt when it failed or the layout did not run.
  template <class F>
  std::vector<std::optional<double>> per_round(int layout, F get) const {
    std::vector<std::optional<double>> out(static_cast<std::size_t>(rounds));
    const auto it = runs.find(layout);
    if (it == runs.end()) return out;
    for (std::size_t r = 0; r < out.size() && r < it->second.size(); ++r) {
      if (it->second[r]) out[r] = get(*it->second[r]);
    }
    return out;
  }
};

/// One layout over the rounds: each figure's median (min, max) over its successful runs.
struct LayoutSummary {
  int layout = 0;
  int ok_runs = 0;
  std::optional<harness::Summary> trajectories_per_s;  ///< trajectories / train_s (else wall_s)
  std::optional<harness::Summary> wall_trajectories_per_s;  ///< trajectories / wall_s
  std::optional<harness::Summary> ms_per_iteration;         ///< summary.json ms_per_iteration
  /// trajectories/s over layout 1's (1 trainer) in the same round.
  std::optional<harness::Summary> vs_one_trainer;
  /// trajectories/s over its baseline's (same trainers, no manager) in the same round.
  std::optional<harness::Summary> efficiency;
  std::optional<harness::Summary> manager_cpu_s;
  std::optional<harness::Summary> manager_wall_s;
  std::optional<harness::Summary> manager_cpu_percent;  ///< per round cpu_s / wall_s, then median
};

/// Summarizes layout `id` (its baseline is layout_by_id(id).baseline).
LayoutSummary summarize(const Results& results, int id);

}  // namespace gfn::bench_scaling
