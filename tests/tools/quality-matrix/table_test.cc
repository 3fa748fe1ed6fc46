// The quality matrix's verdict (tools/quality-matrix/table.h): judged on seed 1's
// l1_visited at torchgfn's validation, and, with several seeds, how many of them are
// within the bar (shown, not judged).

#include "tools/quality-matrix/table.h"

#include <gtest/gtest.h>

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

TEST(QualityVerdict, JudgesSeedOneAndCountsSeedsWithinTheBar) {
  // Seed 1 fails; 2 of 4 seeds are within 0.09675.
  const std::string fail = verdict(cell_with_runs({0.106, 0.087, 0.0967, 0.102}));
  EXPECT_EQ(fail.rfind("**FAIL**", 0), 0u) << fail;
  EXPECT_NE(fail.find("; 2/4 seeds ≤ 0.09675)"), std::string::npos) << fail;
  // Seed 1 passes although most seeds do not: the verdict is still seed 1's.
  const std::string pass = verdict(cell_with_runs({0.08, 0.2, 0.3}));
  EXPECT_EQ(pass, "PASS; 1/3 seeds ≤ 0.09675");
}

TEST(QualityVerdict, FailedSeedsAreNotCounted) {
  CellResult r = cell_with_runs({0.05, 0.06});
  r.runs.push_back(RunOutcome{});  // status kFailed, no metrics
  r.cell.seeds.push_back(3);
  EXPECT_EQ(verdict(r), "PASS; 2/2 seeds ≤ 0.09675");
}

}  // namespace
}  // namespace gfn::quality
