// roles/trainer/spawn_report.h: an agent's spawn history as JSON, the summary's `spawn`
// object, and modes_timeline.csv (per agent and the union) from hand-made reports.

#include "roles/trainer/spawn_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "roles/trainer/spawn/spawn_policy.h"

namespace gfn::roles {
namespace {

SpawnEvent event(std::int64_t it, std::vector<double> metrics, std::vector<int> replaced,
                 std::vector<int> donors, std::vector<double> weights) {
  SpawnEvent e;
  e.iteration = it;
  e.metrics = std::move(metrics);
  e.replaced_any = !replaced.empty();
  e.replaced = std::move(replaced);
  e.donors = std::move(donors);
  e.weights = std::move(weights);
  return e;
}

TEST(SpawnReport, AgentHistoryListsItsMetricAndItsReplacements) {
  // Agent group of global ranks {4, 6}: this agent is rank 6, group rank 1.
  const std::vector<SpawnEvent> events = {event(5, {1.0, -2.0}, {6}, {4}, {1.0}),
                                          event(10, {0.5, 3.0}, {4}, {6}, {1.0}),
                                          event(15, {2.0, 1.0}, {}, {}, {})};
  const auto j = nlohmann::json::parse(agent_spawn_json(6, events, 1, 7, R"({"epsilon":0.1})"));
  EXPECT_EQ(j["rank"], 6);
  EXPECT_EQ(j["modes_found"], 7);
  EXPECT_EQ(j["strategy"]["epsilon"], 0.1);
  EXPECT_EQ(j["metric"], nlohmann::json::parse("[[5,-2.0],[10,3.0],[15,1.0]]"));
  ASSERT_EQ(j["replacements"].size(), 1u);
  EXPECT_EQ(j["replacements"][0]["iteration"], 5);
  EXPECT_EQ(j["replacements"][0]["donors"], nlohmann::json::parse("[4]"));
  EXPECT_EQ(j["times_replaced"], 1);
  EXPECT_EQ(j["last_replaced"], 5);
  EXPECT_FALSE(j["replacements"][0].contains("applied_at")) << "sync: applied at the decision";
}

TEST(SpawnReport, AsyncReplacementsSayWhenAndFromWhichDonorIterations) {
  auto e = event(4, {0.0, 1.0}, {6}, {4}, {1.0});
  e.applied_at = 6;
  e.donor_iterations = {5};
  const auto j = nlohmann::json::parse(agent_spawn_json(6, {e}, 1, 0, ""));
  ASSERT_EQ(j["replacements"].size(), 1u);
  EXPECT_EQ(j["replacements"][0]["iteration"], 4);
  EXPECT_EQ(j["replacements"][0]["applied_at"], 6);
  EXPECT_EQ(j["replacements"][0]["donor_iterations"], nlohmann::json::parse("[5]"));
}

TEST(SpawnReport, SummaryTotalsReplacementsAndWritesInfiniteThresholdAsNull) {
  dist::spawn::SpawnOptions o;
  o.policy = dist::spawn::SpawnPolicy::kSelective;
  AgentReport a, b;
  a.rank = 0;
  a.spawn_json = R"({"rank":0,"times_replaced":2})";
  b.rank = 1;
  b.spawn_json = R"({"rank":1,"times_replaced":1})";
  const auto j = nlohmann::json::parse(spawn_summary_json(o, {a, b}));
  EXPECT_EQ(j["policy"], "selective");
  EXPECT_EQ(j["mode"], "sync");
  EXPECT_FALSE(j.contains("replacement_mode")) << "donor_pull's keys only with donor_pull";
  EXPECT_EQ(j["strategy"], "mean");
  EXPECT_EQ(j["metric"], "score");
  EXPECT_TRUE(j["threshold"].is_null());
  EXPECT_EQ(j["replacements"], 3);
  EXPECT_EQ(j["agents"].size(), 2u);
  o.threshold = -1.5;
  EXPECT_EQ(nlohmann::json::parse(spawn_summary_json(o, {}))["threshold"], -1.5);
  o.policy = dist::spawn::SpawnPolicy::kDonorPull;
  o.age_range = {3, 9};
  const auto p = nlohmann::json::parse(spawn_summary_json(o, {}));
  EXPECT_EQ(p["replacement_mode"], "age");
  EXPECT_EQ(p["age_range"], nlohmann::json::parse("[3, 9]"));
  EXPECT_EQ(p["num_donors"], 2);
}

TEST(SpawnReport, TimelinePerAgentAndUnionAtTheEarliestDiscovery) {
  AgentReport a, b;
  a.rank = 0;
  a.firsts = {{/*mode*/ 10, /*it*/ 3, 0.3}, {20, 1, 0.1}};  // out of order on purpose
  b.rank = 2;
  b.firsts = {{10, 2, 0.25}, {30, 4, 0.5}};
  const std::string csv = modes_timeline_csv({a, b}, 100);
  EXPECT_EQ(csv,
            "agent,modes_found,iteration,trajectories,wall_s\n"
            "0,1,1,100,0.100\n"
            "0,2,3,300,0.300\n"
            "2,1,2,200,0.250\n"
            "2,2,4,400,0.500\n"
            "total,1,1,100,0.100\n"
            "total,2,2,200,0.250\n"  // mode 10, first found by rank 2 at iteration 2
            "total,3,4,400,0.500\n");
  // Trajectories sampled forward per iteration, rounded: 62.5 per iteration.
  const std::string half = modes_timeline_csv({b}, 62.5);
  EXPECT_EQ(half,
            "agent,modes_found,iteration,trajectories,wall_s\n"
            "2,1,2,125,0.250\n"
            "2,2,4,250,0.500\n"
            "total,1,2,125,0.250\n"
            "total,2,4,250,0.500\n");
}

TEST(PopulationModes, LineNamesThePopulationFirstAndEachAgentBeside) {
  const PopulationModes four{255, 256, {{0, 239}, {1, 241}, {2, 236}, {3, 240}}};
  EXPECT_EQ(population_line(four),
            "modes found 255/256 by the population (agents: 239, 241, 236, 240)");
  const PopulationModes one{4, 4, {{0, 4}}};
  EXPECT_EQ(population_line(one), "modes found 4/4 by the population (a single agent)");
  const PopulationModes none{0, 0, {{0, 0}, {1, 0}}};
  EXPECT_EQ(population_line(none), "no modes: the environment defines none");
}

TEST(PopulationModes, JsonHoldsTheUnionAndTheSplitInTrainerOrder) {
  const auto j = nlohmann::json::parse(population_json({7, 16, {{0, 5}, {2, 6}}}));
  EXPECT_EQ(j["modes_found"], 7);
  EXPECT_EQ(j["n_modes"], 16);
  EXPECT_EQ(j["agents"],
            nlohmann::json::parse(R"([{"rank":0,"modes_found":5},{"rank":2,"modes_found":6}])"));
  EXPECT_TRUE(nlohmann::json::parse(population_json({0, 0, {{0, 0}}}))["n_modes"].is_null());
}

}  // namespace
}  // namespace gfn::roles
