// Medians over rounds, ratios within a round, each layout's summary and the goal verdicts
// of gfn-bench-scaling (tools/gfn-bench-scaling/stats.h, aggregate.h, goals.h, report.h).

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "tools/gfn-bench-scaling/aggregate.h"
#include "tools/gfn-bench-scaling/goals.h"
#include "tools/gfn-bench-scaling/report.h"
#include "tools/gfn-bench-scaling/stats.h"

namespace gfn::bench_scaling {
namespace {

using Values = std::vector<std::optional<double>>;

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

TEST(BenchScalingStats, Median) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(BenchScalingStats, SpreadSkipsFailedRuns) {
  const auto s = spread({5.0, std::nullopt, 1.0, 3.0});
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->median, 3);
  EXPECT_DOUBLE_EQ(s->min, 1);
  EXPECT_DOUBLE_EQ(s->max, 5);
  EXPECT_EQ(s->n, 3);
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
  EXPECT_EQ(s.efficiency->n, 2);
  EXPECT_DOUBLE_EQ(s.efficiency->median, 0.85);  // 0.9 and 0.8
  EXPECT_THROW(results.record(6, 3, run(1)), std::out_of_range);
}

TEST(BenchScalingGoals, VerdictAtAndAroundTheThreshold) {
  EXPECT_EQ(judge(0.6, 0.6), Verdict::kPass);
  EXPECT_EQ(judge(0.5999, 0.6), Verdict::kFail);
  EXPECT_EQ(judge(std::nullopt, 0.6), Verdict::kNotMeasured);
  EXPECT_STREQ(to_string(Verdict::kPass), "PASS");
  EXPECT_STREQ(to_string(Verdict::kFail), "FAIL");
  EXPECT_STREQ(to_string(Verdict::kNotMeasured), "n/a");
}

TEST(BenchScalingGoals, JudgesEachGoalOnItsLayout) {
  const auto& goals = scaling_goals();
  ASSERT_EQ(goals.size(), 4u);
  EXPECT_DOUBLE_EQ(goals[3].threshold, 65200);
  std::map<int, LayoutSummary> s;
  s[3].efficiency = Spread{0.60, 0.5, 0.7, 3};
  s[4].efficiency = Spread{0.79, 0.7, 0.9, 3};
  s[5].layout = 5;  // ran, but every run failed: no figures
  s[6].trajectories_per_s = Spread{70000, 60000, 80000, 3};
  s[6].efficiency = Spread{0.1, 0.1, 0.1, 3};  // not what goal 4 judges
  const auto r = judge_goals(s);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].verdict, Verdict::kPass);
  EXPECT_EQ(r[1].verdict, Verdict::kFail);
  EXPECT_EQ(r[2].verdict, Verdict::kNotMeasured);
  EXPECT_EQ(r[3].verdict, Verdict::kPass);
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

TEST(BenchScalingReport, TableHasARowPerLayoutAndMarksFailures) {
  Results results(2);
  results.record(1, 0, run(1000));
  results.record(1, 1, run(3000));
  std::map<int, LayoutSummary> rows;
  rows[1] = summarize(results, 1);
  rows[7] = summarize(results, 7);
  const auto table = table_text({1, 7}, rows, 2);
  EXPECT_NE(table.find("1 trainer (world of one)"), std::string::npos) << table;
  EXPECT_NE(table.find("2,000"), std::string::npos) << table;  // median of 1,000 and 3,000
  EXPECT_NE(table.find("7*"), std::string::npos) << table;
  EXPECT_NE(table.find("all runs failed"), std::string::npos) << table;
}

}  // namespace
}  // namespace gfn::bench_scaling
