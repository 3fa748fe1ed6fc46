// The quality matrix's verdict (tools/quality-matrix/table.h): l1_visited at torchgfn's
// validation, judged on seed 1 for a single-seed cell and on the mean over seeds otherwise
// (seed 1 and the spread shown beside it); a loss without a torchgfn target that misses
// TB's bar is reported as over our own bar, not as a failed target.

#include "tools/quality-matrix/table.h"

#include <gtest/gtest.h>

#include "tools/quality-matrix/json_report.h"

#include <string>
#include <vector>

namespace gfn::quality {
namespace {

RunOutcome judged_run(double l1_visited) {
  RunOutcome run;
  run.status = RunStatus::kOk;
  RunMetrics m;
  m.l1_visited = l1_visited;
  MetricsRow row;
  row.l1_visited = l1_visited;
  m.judged = row;
  run.metrics = m;
  return run;
}

CellResult cell_with_runs(const std::vector<double>& l1s) {
  CellResult r;
  r.cell.id = "discrete_ebm_4d_a1.0/fm";
  r.cell.target = {0.08675, 0.01, "test_discreteebm", true};
  r.cell.seeds.clear();
  for (std::size_t i = 0; i < l1s.size(); ++i) {
    r.cell.seeds.push_back(i + 1);
    r.runs.push_back(judged_run(l1s[i]));
  }
  return r;
}

TEST(QualityVerdict, OneSeedHasNoSeedCount) {
  EXPECT_EQ(verdict(cell_with_runs({0.05})), "PASS");
  const std::string v = verdict(cell_with_runs({0.106}));
  EXPECT_NE(v.find("**FAIL** (l1_visited 0.106 > 0.09675, +9.6%"), std::string::npos) << v;
  EXPECT_EQ(v.find("seeds"), std::string::npos) << v;
}

TEST(QualityVerdict, SeveralSeedsAreJudgedOnTheMeanWithSeedOneAndTheSpreadBeside) {
  // Seed 1 (0.106) is over 0.09675 but the mean over 4 seeds (0.0938) is within: PASS.
  const std::string pass = verdict(cell_with_runs({0.106, 0.087, 0.0852, 0.0970}));
  EXPECT_EQ(pass, "PASS; mean 0.0938 ± 0.00965 over 4 seeds, seed 1 0.106, 2/4 seeds ≤ 0.09675")
      << pass;
  // Seed 1 passes but the mean (0.193) does not: FAIL on the mean, by how much.
  const std::string fail = verdict(cell_with_runs({0.08, 0.2, 0.3}));
  EXPECT_EQ(fail.rfind("**FAIL** (mean l1_visited 0.193 > 0.09675, +99.8%", 0), 0u) << fail;
  EXPECT_NE(fail.find("seed 1 0.08, 1/3 seeds ≤ 0.09675)"), std::string::npos) << fail;
}

TEST(QualityVerdict, FailedSeedsAreNotCounted) {
  CellResult r = cell_with_runs({0.05, 0.06});
  r.runs.push_back(RunOutcome{});  // status kFailed, no metrics
  r.cell.seeds.push_back(3);
  EXPECT_EQ(verdict(r),
            "PASS; mean 0.055 ± 0.00707 over 2 seeds, seed 1 0.05, 2/2 seeds ≤ 0.09675");
}

TEST(QualityVerdict, OwnBarWithoutTorchgfnTargetIsNotAFailedTarget) {
  CellResult r = cell_with_runs({0.00416});
  r.cell.id = "hypergrid_2d/modified_db/buffer";
  r.cell.target = {0.003136, 0.001, "test_hypergrid_tb", false};
  const std::string over = verdict(r);
  EXPECT_EQ(over, "over our TB bar, no torchgfn target (l1_visited 0.00416 > 0.004136, +0.6%)");
  EXPECT_EQ(over.find("FAIL"), std::string::npos);
  r.runs = {judged_run(0.004)};
  EXPECT_EQ(verdict(r), "PASS (vs TB bar)");
  // The same miss against a published target is a FAIL.
  r.runs = {judged_run(0.00416)};
  r.cell.target.published = true;
  EXPECT_EQ(verdict(r).rfind("**FAIL** (l1_visited 0.00416 > 0.004136", 0), 0u);
}

// Learning bars (a cell without any torchgfn target): every seed within each bar, the worst
// figures shown; a miss names the seed and the bar; a failed seed fails the cell.
TEST(QualityVerdict, LearningBarsJudgeEverySeed) {
  CellResult r;
  r.cell.id = "tb_bitseq_small/tb";
  r.cell.seeds = {1, 2};
  r.cell.learning = LearningBars{0.05, true, 0.1};
  const auto run = [](double l1_exact, long long modes, double first, double last) {
    RunOutcome o = judged_run(0.001);
    o.metrics->l1_exact = l1_exact;
    o.metrics->modes_found = modes;
    o.metrics->n_modes = 2;
    o.metrics->loss = LossTrend{first, last, 100};
    return o;
  };
  r.runs = {run(0.02, 2, 20.0, 0.2), run(0.03, 2, 25.0, 0.5)};
  EXPECT_EQ(verdict(r), "PASS (worst of 2 seeds: sum-L1 exact 0.0300, modes 2/2, loss ratio 0.02)");
  r.runs[1] = run(0.07, 1, 25.0, 5.0);
  EXPECT_EQ(verdict(r),
            "**FAIL** (seed 2: sum-L1 exact 0.0700 > 0.05, seed 2: modes 1/2, seed 2: loss ratio "
            "0.2 > 0.1)");
  r.runs[1] = RunOutcome{};
  EXPECT_EQ(verdict(r), "**FAIL** (seed 2: run failed)");
  EXPECT_EQ(learning_bars_text(*r.cell.learning),
            "sum-L1 exact ≤ 0.05, every mode found, loss ratio ≤ 0.1");
  r.runs[1] = run(0.03, 2, 25.0, 0.5);
  const auto goals = cell_goals({r});
  EXPECT_EQ(goals[0].verdict, harness::Verdict::kPass);
  EXPECT_DOUBLE_EQ(*goals[0].value, 0.03);  // the worst seed's sum-L1
}

// The JSON report (json_report.h): a case per cell with its figures over the seeds, a goal
// per cell with the verdict judged on the same value.
TEST(QualityJson, CasesAndGoalsFollowTheVerdict) {
  CellResult several = cell_with_runs({0.106, 0.087, 0.0852, 0.0970});
  several.cell.n_terminating_states = 16;
  CellResult failed = cell_with_runs({0.05});
  failed.cell.id = "hypergrid_2d/tb/none";
  failed.runs = {RunOutcome{}};  // seed 1 failed
  const auto cases = cell_cases({several, failed});
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "discrete_ebm_4d_a1.0/fm");
  const auto& judged = cases[0].figures.at("l1_visited_judged");
  ASSERT_TRUE(judged.summary.has_value());
  EXPECT_EQ(judged.summary->n, 4u);
  EXPECT_NEAR(judged.summary->mean, 0.0938, 1e-4);
  EXPECT_DOUBLE_EQ(judged.summary->max, 0.106);
  EXPECT_FALSE(cases[1].figures.at("l1_exact").summary.has_value());  // no successful seed
  EXPECT_FALSE(cases[1].figures.at("l1_exact").value.has_value());

  const auto goals = cell_goals({several, failed});
  ASSERT_EQ(goals.size(), 2u);
  EXPECT_EQ(goals[0].verdict, harness::Verdict::kPass);
  EXPECT_NEAR(*goals[0].value, 0.0938, 1e-4);  // the mean over seeds, as the verdict
  EXPECT_EQ(goals[0].detail, verdict(several));
  EXPECT_EQ(goals[1].verdict, harness::Verdict::kFail);
  EXPECT_FALSE(goals[1].value.has_value());
  CellResult own_bar = cell_with_runs({0.00416});
  own_bar.cell.target = {0.003136, 0.001, "test_hypergrid_tb", false};
  EXPECT_EQ(cell_goals({own_bar})[0].verdict, harness::Verdict::kInfo);
}

}  // namespace
}  // namespace gfn::quality
