// Figures over rounds, ratios within a round, each layout's summary and the goal verdicts
// of gfn-bench-scaling (tools/gfn-bench-scaling/rounds.h, aggregate.h, goals.h, report.h).
// The median and verdict functions are the harness's (tests/tools/common/).

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "tools/gfn-bench-scaling/aggregate.h"
#include "tools/gfn-bench-scaling/goals.h"
#include "tools/gfn-bench-scaling/report.h"
#include "tools/gfn-bench-scaling/rounds.h"

namespace gfn::bench_scaling {
namespace {

using Values = std::vector<std::optional<double>>;
using harness::Verdict;

// Three rounds whose median is m.
harness::Summary median_of(double m) { return harness::summarize({0.5 * m, m, 1.5 * m}); }

// A run of `tps` trajectories/s (over train_s), optionally with a manager.
RunFigures run(double tps, std::optional<ManagerFigures> manager = std::nullopt) {
  RunFigures f;
  f.job.trajectories = tps * 2;
  f.job.train_s = 2.0;
  f.job.wall_s = 4.0;
  f.job.ms_per_iteration = 1.0;
  f.manager = manager;
  return f;
}

TEST(BenchScalingStats, SpreadSkipsFailedRuns) {
  const auto s = spread({5.0, std::nullopt, 1.0, 3.0});
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->median, 3);
  EXPECT_DOUBLE_EQ(s->min, 1);
  EXPECT_DOUBLE_EQ(s->max, 5);
  EXPECT_EQ(s->n, 3u);
  EXPECT_FALSE(spread({std::nullopt, std::nullopt}).has_value());
}

TEST(BenchScalingStats, RatiosPairRunsOfTheSameRound) {
  const auto r = within_round_ratios({90.0, 100.0, std::nullopt, 8.0}, {100.0, 200.0, 5.0, 0.0});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_DOUBLE_EQ(*r[0], 0.9);
  EXPECT_DOUBLE_EQ(*r[1], 0.5);
  EXPECT_FALSE(r[2].has_value());  // the numerator's run failed
  EXPECT_FALSE(r[3].has_value());  // no rate to compare with
  EXPECT_THROW(within_round_ratios({1.0}, {1.0, 2.0}), std::invalid_argument);
}

// The efficiency is the median of the rounds' ratios, not the ratio of the medians:
// with a machine switching between fast and slow phases, a round's runs share a phase.
TEST(BenchScalingAggregate, EfficiencyIsTheMedianOfWithinRoundRatios) {
  Results results(3);
  const double two[] = {100, 200, 300};
  const double three[] = {90, 100, 240};
  for (int r = 0; r < 3; ++r) {
    results.record(2, r, run(two[r]));
    results.record(3, r, run(three[r], ManagerFigures{0.5, 2.0, 1}));
  }
  const auto s = summarize(results, 3);
  EXPECT_EQ(s.ok_runs, 3);
  ASSERT_TRUE(s.efficiency.has_value());
  EXPECT_DOUBLE_EQ(s.efficiency->median, 0.8);  // ratios 0.9, 0.5, 0.8
  EXPECT_DOUBLE_EQ(s.efficiency->min, 0.5);
  EXPECT_DOUBLE_EQ(s.trajectories_per_s->median, 100);  // ratio of medians would be 0.5
  EXPECT_DOUBLE_EQ(s.wall_trajectories_per_s->median, 50);
  EXPECT_DOUBLE_EQ(s.manager_cpu_percent->median, 25);
  EXPECT_FALSE(s.vs_one_trainer.has_value());                  // layout 1 did not run
  EXPECT_FALSE(summarize(results, 2).efficiency.has_value());  // no manager, no baseline
  EXPECT_FALSE(summarize(results, 2).manager_cpu_s.has_value());
}

TEST(BenchScalingAggregate, AFailedRoundDropsOnlyItsRatio) {
  Results results(3);
  results.record(7, 0, run(100));
  results.record(7, 1, run(200));
  results.record(7, 2, run(300));
  results.record(6, 0, run(90));
  results.record(6, 2, run(240));  // round 2 (index 1) failed
  const auto s = summarize(results, 6);
  EXPECT_EQ(s.ok_runs, 2);
  ASSERT_TRUE(s.efficiency.has_value());
  EXPECT_EQ(s.efficiency->n, 2u);
  EXPECT_DOUBLE_EQ(s.efficiency->median, 0.85);  // 0.9 and 0.8
  EXPECT_THROW(results.record(6, 3, run(1)), std::out_of_range);
}

TEST(BenchScalingGoals, JudgesEachGoalOnItsLayout) {
  const auto& goals = scaling_goals();
  ASSERT_EQ(goals.size(), 4u);
  EXPECT_DOUBLE_EQ(goals[3].threshold, 65200);
  std::map<int, LayoutSummary> s;
  s[3].efficiency = median_of(0.60);
  s[4].efficiency = median_of(0.79);
  s[5].layout = 5;  // ran, but every run failed: no figures
  s[6].trajectories_per_s = median_of(70000);
  s[6].efficiency = median_of(0.1);  // not what goal 4 judges
  const auto r = judge_goals(s);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].verdict, Verdict::kPass);
  EXPECT_EQ(r[1].verdict, Verdict::kFail);
  EXPECT_EQ(r[2].verdict, Verdict::kNotMeasured);
  EXPECT_EQ(r[3].verdict, Verdict::kPass);
  // In the JSON report: the value judged and the verdict.
  const harness::Goal g = report_goal(r[1]);
  EXPECT_EQ(g.name, "2t+1m async >= 80 % of 2t (no manager)");
  EXPECT_DOUBLE_EQ(*g.value, 0.79);
  EXPECT_EQ(g.unit, "ratio");
  EXPECT_EQ(g.verdict, Verdict::kFail);
  EXPECT_FALSE(report_goal(r[2]).value.has_value());
  EXPECT_EQ(report_goal(r[3]).unit, "trajectories/s");
  EXPECT_NE(goal_line(r[0]).find("60.0 %"), std::string::npos) << goal_line(r[0]);
  EXPECT_NE(goal_line(r[1]).find("FAIL"), std::string::npos);
  EXPECT_NE(goal_line(r[2]).find("not measured"), std::string::npos);
  EXPECT_NE(goal_line(r[3]).find("70,000 trajectories/s"), std::string::npos) << goal_line(r[3]);
  s[6].trajectories_per_s->median = 65199;
  EXPECT_EQ(judge_goals(s)[3].verdict, Verdict::kFail);
  EXPECT_EQ(judge_goals({})[0].verdict, Verdict::kNotMeasured);
}

TEST(BenchScalingReport, ThousandsSeparators) {
  EXPECT_EQ(thousands(65200.4), "65,200");
  EXPECT_EQ(thousands(999), "999");
  EXPECT_EQ(thousands(1234567), "1,234,567");
  EXPECT_EQ(thousands(0), "0");
  EXPECT_EQ(thousands(-1500), "-1,500");
}

// Two rounds: layout 1 at 1,000 and 3,000 trajectories/s, layout 7 failed in both.
std::map<int, LayoutSummary> two_round_rows() {
  Results results(2);
  results.record(1, 0, run(1000));
  results.record(1, 1, run(3000));
  return {{1, summarize(results, 1)}, {7, summarize(results, 7)}};
}

TEST(BenchScalingReport, TableHasARowPerLayoutAndMarksFailures) {
  const auto table = table_text({1, 7}, two_round_rows(), 2);
  EXPECT_NE(table.find("1 trainer (world of one)"), std::string::npos) << table;
  EXPECT_NE(table.find("2,000"), std::string::npos) << table;  // median of 1,000 and 3,000
  EXPECT_NE(table.find("7*"), std::string::npos) << table;
  EXPECT_NE(table.find("all runs failed"), std::string::npos) << table;
}

// The JSON report's cases: one per layout, figures over rounds, null where no run gave one.
TEST(BenchScalingReport, JsonCasesHaveEveryLayout) {
  const auto cases = layout_cases({1, 7}, two_round_rows());
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, layout_by_id(1).slug);
  EXPECT_EQ(cases[0].parameters.at("ok_runs"), 2);
  const auto& tps = cases[0].figures.at("trajectories_per_s");
  ASSERT_TRUE(tps.summary.has_value());
  EXPECT_DOUBLE_EQ(tps.summary->median, 2000);
  EXPECT_DOUBLE_EQ(tps.summary->min, 1000);
  EXPECT_EQ(tps.summary->n, 2u);
  EXPECT_FALSE(cases[0].figures.at("efficiency").summary.has_value());  // layout 1: no baseline
  EXPECT_FALSE(cases[0].figures.at("efficiency").value.has_value());
  EXPECT_EQ(cases[1].parameters.at("ok_runs"), 0);
  EXPECT_FALSE(cases[1].figures.at("trajectories_per_s").summary.has_value());
}

}  // namespace
}  // namespace gfn::bench_scaling
