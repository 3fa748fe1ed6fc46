#pragma once
// The distributed-scaling goals gfn-bench-scaling judges (docs/performance.md "Distributed
// scaling"): a manager costs little throughput, and 3 trainers + 1 manager reach 4x the reference
// single-trainer rate.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/common/harness/report.h"
#include "tools/gfn-bench-scaling/aggregate.h"

namespace gfn::bench_scaling {

/// The reference single-trainer rate the 3t+1m goal multiplies (trajectories/s).
inline constexpr double kReferenceSingleTrainerRate = 16300;

struct Goal {
  std::string text;  ///< e.g. "2t+1m sync >= 60 % of 2t (no manager)"
  int layout = 0;    ///< the layout judged
  /// true: the layout's efficiency (within-round ratio to its baseline) >= threshold;
  /// false: its trajectories/s >= threshold.
  bool is_efficiency = true;
  double threshold = 0;
};

/// The goals: layout 3 efficiency >= 0.6, layouts 4 and 5 >= 0.8, layout 6 >= 4 x 16,300
/// trajectories/s.
const std::vector<Goal>& scaling_goals();

struct GoalResult {
  Goal goal;
  std::optional<double> value;  ///< median efficiency or trajectories/s
  /// harness::judge_at_least(value, goal.threshold)
  harness::Verdict verdict = harness::Verdict::kNotMeasured;
};

/// Judges every goal on the summaries (keyed by layout id; a missing layout or figure
/// is kNotMeasured).
std::vector<GoalResult> judge_goals(const std::map<int, LayoutSummary>& summaries);

/// "  2t+1m sync >= 60 % of 2t (no manager)    71.3 %   PASS" (measured value, verdict).
std::string goal_line(const GoalResult& r);

/// The goal in the JSON report (tools/common/harness/report.h): value in "ratio" or
/// "trajectories/s", the layout in the detail.
harness::Goal report_goal(const GoalResult& r);

}  // namespace gfn::bench_scaling
