// The quality matrix's verdict (tools/quality-matrix/table.h): l1_visited at torchgfn's
// validation, judged on seed 1 for a single-seed cell and on the mean over seeds otherwise
// (seed 1 and the spread shown beside it); a loss without a torchgfn target that misses
// TB's bar is reported as over our own bar, not as a failed target; the cells without a torchgfn
// target (the Ising lattice, the bit-sequence scenarios) on our own bar (cells.h LearningBar); the
// Box cells on torchgfn's test_box target on the KDE jsd of the final validation.

#include "tools/quality-matrix/table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
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

// The cell `id` of the full matrix.
Cell matrix_cell(const std::string& id) {
  for (const Cell& c : full_matrix(1)) {
    if (c.id == id) return c;
  }
  ADD_FAILURE() << "no cell " << id << " in the full matrix";
  return {};
}

// The Ising lattice cell (our own bar, no enumeration).
Cell ising_bar_cell() { return matrix_cell("discrete_ebm_ising_6x6/tb"); }

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

CellResult bar_result(const Cell& cell, const std::vector<RunOutcome>& runs) {
  CellResult r;
  r.cell = cell;
  r.cell.seeds.clear();
  for (std::size_t i = 0; i < runs.size(); ++i) r.cell.seeds.push_back(i + 1);
  r.runs = runs;
  return r;
}

CellResult ising_result(const std::vector<RunOutcome>& runs) {
  return bar_result(ising_bar_cell(), runs);
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
  EXPECT_NEAR(run.metrics->logz_error, *cell.bar->log_z_true - 8.5, 1e-12);
  std::filesystem::remove(csv);
  run = bar_run(1, 1, std::nan(""));
  apply_bar(run, &*cell.bar, dir);
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_NE(run.message.find("training.csv"), std::string::npos) << run.message;
}

// A bit-sequence cell (our own bar on an enumerable environment): l1_exact measured, every
// mode to be sampled in training, no fresh-sample criterion, the sum-L1 exact judged.
RunOutcome bitseq_run(double l1_exact, long long modes_found, double loss_ratio) {
  RunOutcome run;
  run.status = RunStatus::kOk;
  RunMetrics m;
  m.l1_exact = l1_exact;
  m.l1_sampled = 1.1 * l1_exact;
  m.l1_visited = 0.002;
  m.logz_error = 0.004;
  m.modes_found = modes_found;
  m.n_modes = 2;
  m.loss_ratio = loss_ratio;
  m.iterations = 1000;
  m.trajectories = 16000;
  run.metrics = m;
  return run;
}

TEST(QualityVerdict, BitSequenceBarJudgesEverySeed) {
  for (const char* id : {"tb_bitseq_small/tb", "tb_bitseq_medium/tb"}) {
    const Cell c = matrix_cell(id);
    ASSERT_TRUE(c.bar.has_value()) << id;
    EXPECT_TRUE(enumerable(c)) << id;
    EXPECT_TRUE(c.bar->max_l1_exact.has_value()) << id;
    EXPECT_FALSE(c.bar->log_z_true.has_value()) << id;  // summary.json has logz_error
    EXPECT_EQ(c.bar->min_fresh_modes, 0) << id;
  }
  const Cell cell = matrix_cell("tb_bitseq_small/tb");
  const LearningBar& bar = *cell.bar;
  ASSERT_EQ(bar.min_modes_found, 2);  // every one of its 2 modes
  const double l1 = 0.5 * *bar.max_l1_exact, l1_over = 1.5 * *bar.max_l1_exact;
  const double ok = 0.5 * bar.max_loss_ratio, over = 2 * bar.max_loss_ratio;
  const CellResult pass =
      bar_result(cell, {bitseq_run(0.8 * l1, 2, 0.1 * ok), bitseq_run(l1, 2, ok)});
  EXPECT_EQ(verdict(pass), fmt::format("PASS (our bar): sum-L1 exact {:.4f}, 2/2 modes in "
                                       "training, loss ratio {:.3g}, worst of 2 seeds",
                                       l1, ok));
  // Each criterion missed on seed 2, seed 3 failed: every seed counts.
  RunOutcome failed;
  failed.message = "exit code 1";
  const CellResult fail =
      bar_result(cell, {bitseq_run(l1, 2, ok), bitseq_run(l1_over, 1, over), failed});
  EXPECT_EQ(verdict(fail),
            fmt::format("**FAIL** (our bar: seed 2: sum-L1 exact {:.4f} > {:.4g}, 1 modes in "
                        "training < 2, loss ratio {:.3g} > {:.3g}; seed 3: run failed; 1/3 seeds "
                        "within)",
                        l1_over, *bar.max_l1_exact, over, bar.max_loss_ratio));
  EXPECT_EQ(verdict(bar_result(cell, {bitseq_run(l1, 2, std::nan(""))})).rfind("**FAIL**", 0), 0u);
  // The table: judged at the end of the run, the L1 columns shown, the bar stated.
  const std::string table = render_table({pass}, "cmd");
  EXPECT_NE(table.find("| tb_bitseq_small/tb | NA BitSequence n8 k1 2 modes | tb | none | — | end "
                       "of run, it 1000, 16000 trajectories (our bar) | 0.002 "),
            std::string::npos)
      << table;
  EXPECT_NE(
      table.find(fmt::format("none; our bar: sum-L1 exact ≤ {:.4g}, ≥ 2 mode(s) in "
                             "training, loss ratio ≤ {:.3g} (median loss, last {} / first "
                             "{} iterations) |",
                             *bar.max_l1_exact, bar.max_loss_ratio, bar.loss_tail, bar.loss_head)),
      std::string::npos)
      << table;
  const std::string row = table.substr(table.find("| tb_bitseq_small/tb |"));
  EXPECT_EQ(row.find("exact log Z"), std::string::npos) << row;  // only without enumeration
  EXPECT_NE(table.find(fmt::format("| {:.4f} ({:.4f} ± ", 0.8 * l1, 0.9 * l1)), std::string::npos)
      << table;  // sum-L1 exact: seed 1 and the mean
  // The JSON goals follow the verdicts, their value the worst ratio; the L1s are figures.
  const auto goals = cell_goals({pass, fail});
  EXPECT_EQ(goals[0].verdict, harness::Verdict::kPass);
  EXPECT_DOUBLE_EQ(*goals[0].value, ok);
  EXPECT_EQ(goals[1].verdict, harness::Verdict::kFail);
  EXPECT_NE(goals[0].criterion.find(learning_bar_text(bar)), std::string::npos)
      << goals[0].criterion;
  const auto cases = cell_cases({pass});
  ASSERT_TRUE(cases[0].figures.at("l1_exact").summary.has_value());
  EXPECT_DOUBLE_EQ(cases[0].figures.at("l1_exact").summary->max, l1);
  EXPECT_TRUE(cases[0].figures.at("loss_ratio").summary.has_value());
}

// The bar's loss windows: the bit-sequence cells' (100 / 100) and the Ising lattice's (10 / 40)
// read different rows of the same training.csv; apply_bar keeps summary.json's logz_error of an
// enumerable cell.
TEST(QualityBar, LossRatioWindowsPerCell) {
  const std::string dir = ::testing::TempDir() + "qm_loss_windows";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/training.csv");
    out << "iteration,trajectories,elapsed_s,loss,logz,modes_found\n";
    for (int i = 1; i <= 300; ++i) {
      // first 10: 70; 11-100: 50 / 51 alternating (first 100: median 51); 101-200: 1000;
      // 201-260: 0.5, 261-300: 0.25 (last 100: median 0.5, last 40: 0.25)
      const double loss = i <= 10    ? 70
                          : i <= 100 ? 50 + i % 2
                          : i <= 200 ? 1000
                          : i <= 260 ? 0.5
                                     : 0.25;
      out << i << "," << 16 * i << ",0.1," << loss << ",1.0,0\n";
    }
  }
  const Cell bitseq = matrix_cell("tb_bitseq_medium/tb");
  ASSERT_EQ(bitseq.bar->loss_head, 100);
  ASSERT_EQ(bitseq.bar->loss_tail, 100);
  RunOutcome run = bitseq_run(0.05, 2, std::nan(""));
  apply_bar(run, &*bitseq.bar, dir);
  ASSERT_EQ(run.status, RunStatus::kOk) << run.message;
  EXPECT_DOUBLE_EQ(run.metrics->loss_ratio, 0.5 / 51);
  EXPECT_DOUBLE_EQ(run.metrics->logz_error, 0.004);
  const Cell ising = ising_bar_cell();
  ASSERT_EQ(ising.bar->loss_head, 10);
  ASSERT_EQ(ising.bar->loss_tail, 40);
  run = bar_run(1, 1, std::nan(""));
  apply_bar(run, &*ising.bar, dir);
  ASSERT_EQ(run.status, RunStatus::kOk) << run.message;
  EXPECT_DOUBLE_EQ(run.metrics->loss_ratio, 0.25 / 70);
  std::filesystem::remove_all(dir);
}

// The Box cells (torchgfn's test_box): a torchgfn target on the KDE jsd of the final validation
// (summary.json), judged like the TB cells on the mean over seeds, seed 1 and the spread beside.
RunOutcome jsd_run(double jsd) {
  RunOutcome run;
  run.status = RunStatus::kOk;
  RunMetrics m;
  m.l1_exact = m.l1_sampled = m.l1_visited = std::nan("");
  m.jsd = jsd;
  m.logz_error = 0.01;
  m.iterations = 250;
  m.trajectories = 32000;
  run.metrics = m;
  return run;
}

CellResult box_result(const std::string& id, const std::vector<RunOutcome>& runs) {
  return bar_result(matrix_cell(id), runs);
}

TEST(QualityJsd, BoxCellsCarryTestBoxTargetsOnTheJsd) {
  const std::vector<std::pair<std::string, double>> cells = {{"box_2d_d0.1/tb", 0.10},
                                                             {"box_2d_d0.1/db", 0.10},
                                                             {"box_2d_d0.25/tb", 0.09},
                                                             {"box_2d_d0.25/db", 0.09}};
  for (const auto& [id, value] : cells) {
    const Cell c = matrix_cell(id);
    EXPECT_EQ(c.target.metric, TargetMetric::kJsd) << id;
    EXPECT_EQ(c.target.source, "test_box") << id;
    EXPECT_TRUE(c.target.published) << id;
    EXPECT_DOUBLE_EQ(c.target.value, value) << id;
    EXPECT_DOUBLE_EQ(c.target.bound(), value + 0.02) << id;
    EXPECT_FALSE(c.bar.has_value()) << id;
    EXPECT_FALSE(judged_at_torchgfn_validation(c)) << id;
    EXPECT_FALSE(enumerable(c)) << id;
    EXPECT_EQ(c.config, "configs/box.yaml") << id;
    EXPECT_EQ(c.seeds, (std::vector<std::uint64_t>{1, 2, 3})) << id;
    EXPECT_EQ(c.validation_samples, 10000) << id;
    EXPECT_EQ(cell_iterations(c, 0), 250) << id;
  }
  // The settings reach gfn-train: the loss and delta of the cell, after the config.
  const auto args = run_arguments(matrix_cell("box_2d_d0.25/db"), 2, "/tmp/o", {});
  const std::string joined = fmt::format("{}", fmt::join(args, " "));
  EXPECT_NE(joined.find("--set train.loss=db --set env.delta=0.25 --set train.seed=2"),
            std::string::npos)
      << joined;
  EXPECT_NE(joined.find("--set validation.n_samples=10000"), std::string::npos) << joined;
  // The other cells stay on l1_visited at torchgfn's validation.
  EXPECT_TRUE(judged_at_torchgfn_validation(matrix_cell("hypergrid_2d/tb/none")));
  EXPECT_FALSE(judged_at_torchgfn_validation(ising_bar_cell()));
}

TEST(QualityJsd, JudgedOnTheSeedMean) {
  // 0.107, 0.09, 0.1: mean 0.099, std 0.00854, all within 0.12.
  EXPECT_EQ(verdict(box_result("box_2d_d0.1/tb", {jsd_run(0.107), jsd_run(0.09), jsd_run(0.1)})),
            "PASS; mean 0.099 ± 0.00854 over 3 seeds, seed 1 0.107, 3/3 seeds ≤ 0.12");
  // Seed 1 over 0.11 (delta 0.25) but the mean (0.1) within: PASS on the mean.
  EXPECT_EQ(verdict(box_result("box_2d_d0.25/db", {jsd_run(0.13), jsd_run(0.08), jsd_run(0.09)})),
            "PASS; mean 0.1 ± 0.0265 over 3 seeds, seed 1 0.13, 2/3 seeds ≤ 0.11");
  // Seed 1 within but the mean (0.153) over 0.12: FAIL on the mean, by how much.
  const std::string fail =
      verdict(box_result("box_2d_d0.1/db", {jsd_run(0.11), jsd_run(0.2), jsd_run(0.15)}));
  EXPECT_EQ(fail,
            "**FAIL** (mean jsd 0.153 > 0.12, +27.8%; mean 0.153 ± 0.0451 over 3 seeds, seed 1 "
            "0.11, 1/3 seeds ≤ 0.12)");
  // A mean just over the bar (0.120133): printed with the digits that tell it from the bound.
  EXPECT_EQ(
      verdict(box_result("box_2d_d0.1/tb", {jsd_run(0.1066), jsd_run(0.1137), jsd_run(0.1401)})),
      "**FAIL** (mean jsd 0.1201 > 0.12, +0.1%; mean 0.12 ± 0.0177 over 3 seeds, seed 1 "
      "0.107, 2/3 seeds ≤ 0.12)");
  // One seed: judged on it, no seed count.
  EXPECT_EQ(verdict(box_result("box_2d_d0.25/tb", {jsd_run(0.13)})),
            "**FAIL** (jsd 0.13 > 0.11, +18.2%)");
  EXPECT_EQ(verdict(box_result("box_2d_d0.25/tb", {jsd_run(0.05)})), "PASS");
}

TEST(QualityJsd, TheMetricIsChosenPerCell) {
  // The same runs: a small jsd and a large l1_visited at torchgfn's validation.
  RunOutcome run = jsd_run(0.05);
  MetricsRow row;
  row.l1_visited = 0.5;
  run.metrics->judged = row;
  EXPECT_EQ(verdict(box_result("box_2d_d0.1/tb", {run})), "PASS");
  CellResult l1 = box_result("box_2d_d0.1/tb", {run});
  l1.cell.target = {0.08675, 0.01, "test_discreteebm", true};  // kL1Visited
  EXPECT_EQ(verdict(l1).rfind("**FAIL** (l1_visited 0.5 > 0.09675", 0), 0u) << verdict(l1);
  run.metrics->jsd = 0.5;
  run.metrics->judged->l1_visited = 0.05;
  EXPECT_EQ(verdict(box_result("box_2d_d0.1/tb", {run})).rfind("**FAIL** (jsd 0.5 > 0.12", 0), 0u);
  l1.runs = {run};
  EXPECT_EQ(verdict(l1), "PASS");
}

TEST(QualityJsd, MissingJsdFailsClearly) {
  // Seed 1 without jsd (validation off): the cell FAILs saying so, with no value to judge.
  const CellResult none = box_result("box_2d_d0.1/tb", {jsd_run(std::nan("")), jsd_run(0.1)});
  EXPECT_EQ(verdict(none).rfind("**FAIL** (no jsd in seed 1's summary.json", 0), 0u)
      << verdict(none);
  EXPECT_FALSE(judged_value(none).has_value());
  EXPECT_EQ(cell_goals({none})[0].verdict, harness::Verdict::kFail);
  // A later seed without jsd is not counted: the mean and the count are over the others.
  EXPECT_EQ(
      verdict(box_result("box_2d_d0.1/tb", {jsd_run(0.1), jsd_run(std::nan("")), jsd_run(0.08)})),
      "PASS; mean 0.09 ± 0.0141 over 2 seeds, seed 1 0.1, 2/2 seeds ≤ 0.12");
  // Read from summary.json: a number, null and absent.
  const std::string dir = ::testing::TempDir() + "qm_jsd";
  std::filesystem::create_directories(dir);
  const auto write_summary = [&dir](const std::string& jsd_field) {
    std::ofstream out(dir + "/summary.json");
    out << "{" << jsd_field
        << R"("l1_exact": null, "l1_sampled": null, "l1_visited": null, "logz_error": 0.02,
               "logz": -1.5, "modes_found": 0, "n_modes": 0, "ms_per_iteration": 40.0,
               "iterations": 250, "trajectories": 32000})";
  };
  write_summary(R"("jsd": 0.0713, )");
  RunOutcome read = read_previous_run(dir, dir + "/run.log", false);
  ASSERT_EQ(read.status, RunStatus::kOk) << read.message;
  EXPECT_DOUBLE_EQ(read.metrics->jsd, 0.0713);
  EXPECT_EQ(verdict(box_result("box_2d_d0.25/tb", {read})), "PASS");
  for (const std::string field : {R"("jsd": null, )", ""}) {
    write_summary(field);
    read = read_previous_run(dir, dir + "/run.log", false);
    ASSERT_EQ(read.status, RunStatus::kOk) << read.message;
    EXPECT_TRUE(std::isnan(read.metrics->jsd)) << field;
    EXPECT_EQ(verdict(box_result("box_2d_d0.25/tb", {read})).rfind("**FAIL** (no jsd", 0), 0u)
        << field;
  }
  std::filesystem::remove_all(dir);
}

TEST(QualityJsd, TableAndJsonShowTheJsd) {
  const CellResult box =
      box_result("box_2d_d0.1/tb", {jsd_run(0.107), jsd_run(0.09), jsd_run(0.1)});
  // An l1_visited cell's summary.json jsd (the exact JSD of an enumerable environment) is not
  // shown in the jsd column.
  CellResult l1 = cell_with_runs({0.05});
  l1.runs[0].metrics->jsd = 0.3;
  const std::string table = render_table({box, l1}, "cmd");
  EXPECT_NE(table.find("| box_2d_d0.1/tb | Box 2D delta 0.1 | tb | none | — | end of run, it 250, "
                       "32000 trajectories (final validation) | — | 0.107 (0.099 ± 0.00854, 3 "
                       "seeds) | jsd ≤ 0.12 (0.1 ± 2e-02) | PASS; mean 0.099 "),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| discrete_ebm_4d_a1.0/fm |  |  | none | 0.05 | — | 0.05 | — | ≤ 0.09675 "),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| l1_visited end of run | jsd end of run | torchgfn target |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("- Box rows: torchgfn's test_box settings"), std::string::npos) << table;
  EXPECT_NE(table.find("after the first iteration"), std::string::npos) << table;
  const auto cases = cell_cases({box, l1});
  EXPECT_EQ(cases[0].parameters.at("target_metric"), "jsd");
  ASSERT_TRUE(cases[0].figures.at("jsd").summary.has_value());
  EXPECT_EQ(cases[0].figures.at("jsd").summary->n, 3u);
  EXPECT_NEAR(cases[0].figures.at("jsd").summary->mean, 0.099, 1e-12);
  EXPECT_FALSE(cases[1].figures.at("jsd").summary.has_value());
  EXPECT_EQ(cases[1].parameters.at("target_metric"), "l1_visited");
  const auto goals = cell_goals({box, box_result("box_2d_d0.1/tb", {jsd_run(0.2)})});
  EXPECT_EQ(goals[0].verdict, harness::Verdict::kPass);
  EXPECT_NEAR(*goals[0].value, 0.099, 1e-12);
  EXPECT_EQ(goals[0].criterion, "jsd at the end of the run <= 0.12 (test_box)");
  EXPECT_EQ(goals[1].verdict, harness::Verdict::kFail);
  EXPECT_DOUBLE_EQ(*goals[1].value, 0.2);
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
