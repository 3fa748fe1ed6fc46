// tools/gfn-bench-discovery/study.h: policies, reading the `total` rows of
// modes_timeline.csv, milestones at 50 % / 90 %, and the table with its winners.

#include "tools/gfn-bench-discovery/study.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace gfn::bench_discovery {
namespace {

using ::testing::HasSubstr;

TEST(Policies, NamesSelectOverrides) {
  const auto p = policies_named({"average_all", "selective_random"});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].sets, std::vector<std::string>{"spawn.policy=average_all"});
  EXPECT_EQ(p[1].sets,
            (std::vector<std::string>{"spawn.policy=selective", "spawn.random_strategies=true"}));
  EXPECT_THROW(policies_named({"bogus"}), std::invalid_argument);
}

TEST(Timeline, TotalRowsOnlyAndMilestones) {
  const std::string csv =
      "agent,modes_found,iteration,trajectories,wall_s\n"
      "0,1,1,64,0.100\n"
      "total,1,1,64,0.100\n"
      "total,2,3,192,0.300\n"
      "total,3,7,448,0.700\n";
  const auto t = read_total_timeline(csv);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2].modes, 3);
  EXPECT_EQ(t[2].trajectories, 448);
  EXPECT_DOUBLE_EQ(t[2].wall_s, 0.7);
  RunResult r;
  summarise(r, t, 4);  // 50 %: 2 modes, 90 %: ceil(3.6) = 4 modes (never)
  EXPECT_EQ(r.modes_at_budget, 3);
  ASSERT_TRUE(r.half.has_value());
  EXPECT_EQ(r.half->trajectories, 192);
  EXPECT_FALSE(r.ninety.has_value());
  EXPECT_THROW(read_total_timeline("bogus\n"), std::runtime_error);
  EXPECT_THROW(read_total_timeline("agent,modes_found,iteration,trajectories,wall_s\ntotal,x\n"),
               std::runtime_error);
}

RunResult run(int agents, const std::string& policy, std::int64_t modes, std::int64_t t50) {
  RunResult r;
  r.agents = agents;
  r.policy = policy;
  r.ok = true;
  r.n_modes = 16;
  r.modes_at_budget = modes;
  r.half = TimelinePoint{8, t50, 1.0};
  return r;
}

TEST(Table, MediansAndWinnerPerAgentCount) {
  std::vector<RunResult> runs = {run(1, "average_all", 10, 500), run(1, "selective", 12, 800),
                                 run(1, "selective", 14, 600),   run(1, "selective", 9, 700),
                                 run(2, "average_all", 16, 300), run(2, "selective", 16, 200)};
  RunResult failed = run(2, "selective", 0, 0);
  failed.ok = false;
  runs.push_back(failed);
  const std::string table = format_table(runs, 12800);
  EXPECT_THAT(table, HasSubstr("budget 12800 trajectories"));
  // selective with 1 agent: median of 12, 14, 9 modes = 12; of 800, 600, 700 = 700.
  EXPECT_THAT(table, HasSubstr("     1 selective              3            12/16          700"));
  EXPECT_THAT(table, HasSubstr("     2 selective            1/2            16/16          200"));
  EXPECT_THAT(table, HasSubstr("winner with 1 agent(s): selective (12 modes"));
  // Tie on modes (16): the fewer trajectories to 90 % (both missed), then to 50 % wins.
  EXPECT_THAT(table, HasSubstr("winner with 2 agent(s): selective (16 modes"));
}

// The cells in the JSON report: the table's medians, missed milestones null, the winners.
TEST(Table, JsonCasesCarryTheMediansAndTheWinners) {
  std::vector<RunResult> runs = {run(1, "average_all", 10, 500), run(1, "selective", 12, 800),
                                 run(1, "selective", 14, 600), run(1, "selective", 9, 700)};
  const auto cells = summarise_cells(runs);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_FALSE(cells[0].winner);
  EXPECT_TRUE(cells[1].winner);
  const auto cases = cell_cases(cells, 12800);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].name, "a1/selective");
  EXPECT_EQ(cases[1].parameters.at("winner"), true);
  EXPECT_EQ(cases[1].parameters.at("runs"), 3);
  EXPECT_EQ(cases[1].parameters.at("budget"), 12800);
  EXPECT_DOUBLE_EQ(*cases[1].figures.at("modes_at_budget").value, 12);
  EXPECT_DOUBLE_EQ(*cases[1].figures.at("trajectories_to_50").value, 700);
  EXPECT_FALSE(cases[1].figures.at("trajectories_to_90").value.has_value());  // never reached
}

}  // namespace
}  // namespace gfn::bench_discovery
