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

TEST(Techniques, ParsedAndCrossedWithPolicies) {
  const Policy ls = parse_technique("ls=local_search.loops=1;local_search.back_ratio=0.5");
  EXPECT_EQ(ls.name, "ls");
  EXPECT_EQ(ls.sets,
            (std::vector<std::string>{"local_search.loops=1", "local_search.back_ratio=0.5"}));
  const Policy base = parse_technique("base=");
  EXPECT_TRUE(base.sets.empty());
  EXPECT_THROW(parse_technique("nothing"), std::invalid_argument);
  EXPECT_THROW(parse_technique("=a.b=1"), std::invalid_argument);
  EXPECT_THROW(parse_technique("a+b=x.y=1"), std::invalid_argument);
  const auto cells = cross_techniques(policies_named({"average_all", "selective"}), {base, ls});
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[1].name, "average_all+ls");
  EXPECT_EQ(cells[1].sets,
            (std::vector<std::string>{"spawn.policy=average_all", "local_search.loops=1",
                                      "local_search.back_ratio=0.5"}));
  EXPECT_EQ(cells[2].name, "selective+base");
  EXPECT_EQ(cross_techniques(policies_named({"selective"}), {}).front().name, "selective");
}

// The figures for HyperGrid 8-D h8 R0 0.01: each mode 2.51 / 201,052.16; expected
// 84 modes after 32,000 trajectories, 204 after 128,000, 246 after 256,000, 255.6 after 512,000.
TEST(ExactSampler, ExpectedModesAndMilestones) {
  const double p = 2.51 / 201052.16;
  EXPECT_NEAR(exact_expected_modes(256, p, 32000), 84, 1.0);
  EXPECT_NEAR(exact_expected_modes(256, p, 128000), 204, 1.0);
  EXPECT_NEAR(exact_expected_modes(256, p, 256000), 246, 1.0);
  EXPECT_NEAR(exact_expected_modes(256, p, 512000), 255.6, 0.05);
  const double t50 = exact_trajectories_to(0.5, p);
  EXPECT_GE(exact_expected_modes(256, p, t50), 128);
  EXPECT_LT(exact_expected_modes(256, p, t50 - 1), 128);
  EXPECT_THAT(format_exact_sampler(256, p, 512000), HasSubstr("255.6/256 modes at the budget"));
}

TEST(Cells, FreshSampleModesAreMedians) {
  std::vector<RunResult> runs(3);
  for (int i = 0; i < 3; ++i) {
    runs[i].agents = 1;
    runs[i].policy = "average_all";
    runs[i].ok = true;
    runs[i].n_modes = 16;
    runs[i].fresh_modes = i == 2 ? -1 : 4 + 2 * i;  // the third did not report it
  }
  const auto cells = summarise_cells(runs);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_DOUBLE_EQ(cells[0].fresh, 5.0);
}

TEST(Curves, EveryRunsTimelineThenTheExactSampler) {
  RunResult ok, failed;
  ok.agents = 2;
  ok.policy = "average_all";
  ok.seed = 3;
  ok.ok = true;
  ok.n_modes = 4;
  ok.timeline = {{1, 64, 0.5}, {3, 192, 1.25}};
  failed.ok = false;
  const std::string csv = curves_csv({ok, failed}, 0.5, 64);
  EXPECT_THAT(csv, ::testing::StartsWith("cell,seed,trajectories,wall_s,modes\n"
                                         "a2/average_all,3,0,0.000,0\n"
                                         "a2/average_all,3,64,0.500,1\n"
                                         "a2/average_all,3,192,1.250,3\n"
                                         "exact sampler,0,0,,0.00\n"
                                         "exact sampler,0,1,,2.00\n"
                                         "exact sampler,0,2,,3.00\n"));
  EXPECT_THAT(csv, HasSubstr("exact sampler,0,64,,4.00\n"));
  // Unknown p: no exact rows.
  EXPECT_EQ(curves_csv({ok}, -1, 64).find("exact"), std::string::npos);
}

}  // namespace
}  // namespace gfn::bench_discovery
