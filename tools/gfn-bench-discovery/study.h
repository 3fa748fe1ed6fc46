#pragma once
// gfn-bench-discovery's study without the runs (tests/tools/bench-discovery tests it):
// the cells (agents x policy), reading a run's modes_timeline.csv (the `total` rows,
// roles/trainer/spawn_report.h), the milestones (trajectories and wall seconds to 50 % /
// 90 % of the modes), medians over seeds and the winner per agent count.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/common/harness/report.h"

namespace gfn::bench_discovery {

/// A policy of the study and the gfn-train overrides that select it.
struct Policy {
  std::string name;               ///< average_all | selective | selective_random
  std::vector<std::string> sets;  ///< "spawn.policy=selective", ...
};

/// Policies by name; throws std::invalid_argument naming an unknown one.
std::vector<Policy> policies_named(const std::vector<std::string>& names);

/// A technique axis of the study (--technique NAME=key=value;key=value): its name and the
/// gfn-train overrides that turn it on. "NAME=" (no overrides) is the baseline.
/// Throws std::invalid_argument for a spec without '=' or a name with '+'.
Policy parse_technique(const std::string& spec);

/// Every policy crossed with every technique: "policy+technique" with both sets of overrides,
/// the technique's last (none given: the policies as they are).
std::vector<Policy> cross_techniques(const std::vector<Policy>& policies,
                                     const std::vector<Policy>& techniques);

/// An exact sampler of R (each of n_modes modes drawn with probability p per trajectory):
/// the expected modes found after n trajectories, n_modes (1 - (1 - p)^n), and the
/// trajectories until that expectation reaches `share` of the modes,
/// ceil(log(1 - share) / log(1 - p)). p in (0, 1).
double exact_expected_modes(std::int64_t n_modes, double p, double trajectories);
double exact_trajectories_to(double share, double p);
/// The line under the table: the exact sampler's modes at the budget and trajectories to
/// 50 % / 90 % (docs/results/discovery.md).
std::string format_exact_sampler(std::int64_t n_modes, double p, std::int64_t budget);

/// One point of the population's discovery curve.
struct TimelinePoint {
  std::int64_t modes = 0;
  std::int64_t trajectories = 0;
  double wall_s = 0;
};

/// The `total` rows of a modes_timeline.csv text, in order. Throws std::runtime_error for
/// a missing or wrong header or a malformed row.
std::vector<TimelinePoint> read_total_timeline(const std::string& csv);

/// The first point with at least `modes` modes, or nullopt.
std::optional<TimelinePoint> first_reaching(const std::vector<TimelinePoint>& timeline,
                                            std::int64_t modes);

/// One run's figures.
struct RunResult {
  int agents = 0;
  std::string policy;
  std::uint64_t seed = 0;
  bool ok = false;
  std::string problem;  ///< why not ok
  std::int64_t n_modes = 0;
  std::int64_t modes_at_budget = 0;           ///< modes found with the whole trajectory budget
  std::optional<TimelinePoint> half, ninety;  ///< first reaching ceil(50 %) / ceil(90 %)
  double wall_s = 0;
  /// summary.json fresh_sample_modes (validation.fresh_samples), -1 when not reported.
  std::int64_t fresh_modes = -1;
  /// summary.json mode_probability (the exact sampler's p per mode), -1 when unknown.
  double mode_probability = -1;
  std::vector<TimelinePoint> timeline;  ///< the `total` rows of its modes_timeline.csv
};

/// Fills modes_at_budget, half and ninety of `r` from its timeline and n_modes.
void summarise(RunResult& r, const std::vector<TimelinePoint>& timeline, std::int64_t n_modes);

/// One cell (agents, policy) over its seeds: medians over the successful seeds (a
/// milestone that some seed missed counts as +inf, so the median is +inf, shown "-", when
/// most missed); NaN when no seed succeeded.
struct CellSummary {
  int agents = 0;
  std::string policy;
  int runs = 0, failed = 0;
  double modes = 0;         ///< modes found with the whole budget
  double n_modes = 0;       ///< modes of the environment
  double t50 = 0, t90 = 0;  ///< trajectories to 50 % / 90 % of the modes
  double s50 = 0, s90 = 0;  ///< wall seconds to 50 % / 90 % of the modes
  double fresh = 0;         ///< modes hit by fresh samples of the final PFs (NaN: not reported)
  bool winner = false;      ///< the best policy for its agent count (see winners)
};

/// The cells in first-seen order of the runs, each marked winner or not: per agent count
/// the cell with the most modes at the budget, then the fewest trajectories to 90 %, then
/// to 50 % (cells without a successful seed never win).
std::vector<CellSummary> summarise_cells(const std::vector<RunResult>& runs);

/// The discovery curves for `tools/gfn-plot --discovery FILE`: header
/// `cell,seed,trajectories,wall_s,modes`, the timeline of every successful run as
/// "a<agents>/<policy>" rows (starting at 0, 0, 0), then, when 0 < mode_probability < 1,
/// 65 rows of the exact sampler's expected curve up to `budget` (cell "exact sampler",
/// seed 0, wall_s empty).
std::string curves_csv(const std::vector<RunResult>& runs, double mode_probability,
                       std::int64_t budget);

/// The table: one row per cell, then a winner line per agent count.
std::string format_table(const std::vector<RunResult>& runs, std::int64_t budget);

/// The cells as cases of the JSON report (tools/common/harness/report.h): name
/// "a<agents>/<policy>"; figures modes_at_budget, trajectories_to_50, trajectories_to_90,
/// seconds_to_50, seconds_to_90, fresh_sample_modes (medians over seeds; null when not
/// reached or not reported); parameters
/// agents, policy, runs, failed, n_modes, budget, winner.
std::vector<harness::Case> cell_cases(const std::vector<CellSummary>& cells, std::int64_t budget);

}  // namespace gfn::bench_discovery
