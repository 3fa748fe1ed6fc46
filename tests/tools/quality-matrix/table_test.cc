// The quality matrix's verdict (tools/quality-matrix/table.h): l1_visited at torchgfn's
// validation, judged on seed 1 for a single-seed cell and on the mean over seeds otherwise
// (seed 1 and the spread shown beside it); a loss without a torchgfn target that misses
// TB's bar is reported as over our own bar, not as a failed target.

#include "tools/quality-matrix/table.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/quality-matrix/cells.h"
#include "tools/quality-matrix/json_report.h"
#include "tools/quality-matrix/run.h"

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

// The Ising lattice cell of the full matrix (the one with our own bar).
Cell ising_bar_cell() {
  for (const Cell& c : full_matrix(1)) {
    if (c.bar) return c;
  }
  ADD_FAILURE() << "no cell with our own bar in the full matrix";
  return {};
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

// A cell with our own bar (Cell::bar, no enumeration): every seed judged at the end of its run
// on the modes it sampled in training and among fresh samples, and on its loss ratio.
RunOutcome bar_run(long long modes_found, long long fresh_modes, double loss_ratio) {
  RunOutcome run;
  run.status = RunStatus::kOk;
  RunMetrics m;
  m.l1_exact = m.l1_sampled = m.l1_visited = std::nan("");
  m.logz = 8.5;
  m.logz_error = 55.6;
  m.modes_found = modes_found;
  m.fresh_sample_modes = fresh_modes;
  m.n_modes = 2;
  m.loss_ratio = loss_ratio;
  run.metrics = m;
  return run;
}

CellResult ising_result(const std::vector<RunOutcome>& runs) {
  CellResult r;
  r.cell = ising_bar_cell();
  r.cell.seeds.clear();
  for (std::size_t i = 0; i < runs.size(); ++i) r.cell.seeds.push_back(i + 1);
  r.runs = runs;
  return r;
}

TEST(QualityVerdict, OwnBarJudgesEverySeed) {
  const Cell cell = ising_bar_cell();
  ASSERT_TRUE(cell.bar.has_value());
  const LearningBar& bar = *cell.bar;
  EXPECT_GE(bar.min_modes_found, 1);
  EXPECT_GE(bar.min_fresh_modes, 1);
  const double ok = 0.5 * bar.max_loss_ratio, over = 2 * bar.max_loss_ratio;
  EXPECT_EQ(
      verdict(ising_result({bar_run(1, 1, ok)})),
      fmt::format("PASS (our bar): 1/2 modes in training, 1 in fresh samples, loss ratio {:.3g}",
                  ok));
  // Several seeds: the fewest modes and the worst ratio; one seed missing fails the cell.
  EXPECT_EQ(verdict(ising_result({bar_run(2, 2, ok), bar_run(1, 1, 0.1 * ok)})),
            fmt::format("PASS (our bar): 1/2 modes in training, 1 in fresh samples, loss ratio "
                        "{:.3g}, worst of 2 seeds",
                        ok));
  const std::string fail =
      verdict(ising_result({bar_run(1, 1, ok), bar_run(0, 0, ok), bar_run(1, 1, over)}));
  EXPECT_EQ(fail, fmt::format("**FAIL** (our bar: seed 2: 0 modes in training < 1, 0 modes in "
                              "fresh samples < 1; seed 3: loss ratio {:.3g} > {:.3g}; 1/3 seeds "
                              "within)",
                              over, bar.max_loss_ratio));
  // Fresh samples off (-1) or a missing ratio (NaN) miss the bar.
  EXPECT_EQ(verdict(ising_result({bar_run(1, -1, ok)})).rfind("**FAIL**", 0), 0u);
  EXPECT_EQ(verdict(ising_result({bar_run(1, 1, std::nan(""))})).rfind("**FAIL**", 0), 0u);
  // No L1 columns: the table shows dashes there, the bar, the logZ error (not judged).
  const std::string table = render_table({ising_result({bar_run(1, 1, ok)})}, "cmd");
  EXPECT_NE(
      table.find("| discrete_ebm_ising_6x6/tb | DiscreteEBM Ising 6x6 J 0.44 | tb | none | — |"),
      std::string::npos)
      << table;
  EXPECT_NE(table.find("our bar: ≥ 1 mode(s) in training"), std::string::npos) << table;
  EXPECT_NE(table.find("| 55.6 |"), std::string::npos) << table;
  // The JSON goal follows the verdict, its value the worst ratio; the NaN L1s are missing.
  const auto goals = cell_goals({ising_result({bar_run(1, 1, ok), bar_run(0, 1, 0.1)})});
  EXPECT_EQ(goals[0].verdict, harness::Verdict::kFail);
  EXPECT_DOUBLE_EQ(*goals[0].value, std::max(ok, 0.1));
  const auto cases = cell_cases({ising_result({bar_run(1, 1, ok)})});
  EXPECT_FALSE(cases[0].figures.at("l1_exact").summary.has_value());
  EXPECT_TRUE(cases[0].figures.at("loss_ratio").summary.has_value());
}

// The loss ratio read from a training.csv: median of the last 40 losses over the median of the
// first 10; too short a file is refused naming it, and apply_bar fails the run then.
TEST(QualityBar, LossRatioFromTrainingCsv) {
  const std::string dir = ::testing::TempDir() + "qm_loss_ratio";
  std::filesystem::create_directories(dir);
  const std::string csv = dir + "/training.csv";
  {
    std::ofstream out(csv);
    out << "iteration,trajectories,elapsed_s,loss,logz,modes_found\n";
    for (int i = 1; i <= 100; ++i) {
      // first 10: 600 + i (median 605.5), last 40: 2 + (i % 3) (median 3), a spike in between
      const double loss = i <= 10 ? 600 + i : i > 60 ? 2 + i % 3 : 5000;
      out << i << "," << 128 * i << ",0.1," << loss << ",1.0,0\n";
    }
  }
  EXPECT_DOUBLE_EQ(loss_ratio(csv, 10, 40), 3.0 / 605.5);
  EXPECT_THROW(loss_ratio(csv, 60, 41), std::runtime_error);
  EXPECT_THROW(loss_ratio(dir + "/none.csv", 10, 40), std::runtime_error);
  RunOutcome run = bar_run(1, 1, std::nan(""));
  const Cell cell = ising_bar_cell();
  apply_bar(run, &*cell.bar, dir);
  ASSERT_EQ(run.status, RunStatus::kOk) << run.message;
  EXPECT_DOUBLE_EQ(run.metrics->loss_ratio, 3.0 / 605.5);
  EXPECT_NEAR(run.metrics->logz_error, cell.bar->log_z_true - 8.5, 1e-12);
  std::filesystem::remove(csv);
  run = bar_run(1, 1, std::nan(""));
  apply_bar(run, &*cell.bar, dir);
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_NE(run.message.find("training.csv"), std::string::npos) << run.message;
}

// log Z of the periodic Ising lattice by the transfer matrix against the sum over every state
// (x^T A x = 2 * the sum over the 2 L^2 bonds), and refusals outside [3, 8].
TEST(PeriodicIsingLogPartition, MatchesTheSumOverEveryState) {
  for (const int side : {3, 4}) {
    for (const double k : {0.44, -0.3, 0.05}) {
      const int n = side * side;
      std::vector<double> terms;
      for (long x = 0; x < (1L << n); ++x) {
        const auto spin = [&](int r, int c) {
          return ((x >> (((r + side) % side) * side + (c + side) % side)) & 1) != 0 ? 1 : -1;
        };
        int bonds = 0;
        for (int r = 0; r < side; ++r) {
          for (int c = 0; c < side; ++c) bonds += spin(r, c) * (spin(r, c + 1) + spin(r + 1, c));
        }
        terms.push_back(k * 2 * bonds);
      }
      const double top = *std::max_element(terms.begin(), terms.end());
      double sum = 0;
      for (const double t : terms) sum += std::exp(t - top);
      EXPECT_NEAR(periodic_ising_log_partition(side, k), top + std::log(sum), 1e-9)
          << side << " " << k;
    }
  }
  EXPECT_THROW(periodic_ising_log_partition(2, 0.4), std::invalid_argument);
  EXPECT_THROW(periodic_ising_log_partition(9, 0.4), std::invalid_argument);
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
