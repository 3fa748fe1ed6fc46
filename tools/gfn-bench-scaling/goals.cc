#include "tools/gfn-bench-scaling/goals.h"

#include <fmt/format.h>

#include "tools/gfn-bench-scaling/report.h"

namespace gfn::bench_scaling {

const std::vector<Goal>& scaling_goals() {
  static const std::vector<Goal> kGoals = {
      {"2t+1m sync >= 60 % of 2t (no manager)", 3, true, 0.60},
      {"2t+1m async >= 80 % of 2t (no manager)", 4, true, 0.80},
      {"2t+1m fire_and_forget >= 80 % of 2t (no manager)", 5, true, 0.80},
      {"3t+1m >= 4 x 16,300 = 65,200 trajectories/s", 6, false, 4 * kReferenceSingleTrainerRate},
  };
  return kGoals;
}

std::vector<GoalResult> judge_goals(const std::map<int, LayoutSummary>& summaries) {
  std::vector<GoalResult> out;
  for (const auto& goal : scaling_goals()) {
    GoalResult r;
    r.goal = goal;
    const auto it = summaries.find(goal.layout);
    if (it != summaries.end()) {
      const auto& spread =
          goal.is_efficiency ? it->second.efficiency : it->second.trajectories_per_s;
      if (spread) r.value = spread->median;
    }
    r.verdict = harness::judge_at_least(r.value, goal.threshold);
    out.push_back(r);
  }
  return out;
}

std::string goal_line(const GoalResult& r) {
  std::string value = "not measured";
  if (r.value) {
    value = r.goal.is_efficiency ? fmt::format("{:.1f} %", 100.0 * *r.value)
                                 : fmt::format("{} trajectories/s", thousands(*r.value));
  }
  return fmt::format("  {:<50} {:>24}   {}", r.goal.text, value, harness::verdict_name(r.verdict));
}

harness::Goal report_goal(const GoalResult& r) {
  return {
      r.goal.text,
      r.goal.is_efficiency
          ? fmt::format("efficiency of layout {} >= {:.2f}", r.goal.layout, r.goal.threshold)
          : fmt::format("trajectories/s of layout {} >= {:.0f}", r.goal.layout, r.goal.threshold),
      r.value,
      r.goal.is_efficiency ? "ratio" : "trajectories/s",
      r.verdict,
      "median over rounds"};
}

}  // namespace gfn::bench_scaling
