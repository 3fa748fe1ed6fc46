#include "roles/planner/rank_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gfn::roles {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using V = std::vector<int>;

LayoutRequest request(int world, int buffers, int groups = 1, bool coordinator = false,
                      roles::Placement placement = roles::Placement::kAuto,
                      std::vector<std::string> hosts = {}) {
  LayoutRequest r;
  r.world_size = world;
  r.num_buffers = buffers;
  r.num_agent_groups = groups;
  r.coordinator = coordinator;
  r.placement = placement;
  r.hostnames = std::move(hosts);
  return r;
}

std::vector<std::string> hosts(std::initializer_list<std::pair<const char*, int>> blocks) {
  std::vector<std::string> out;
  for (auto [name, count] : blocks) out.insert(out.end(), count, name);
  return out;
}

// Every rank has exactly one role, trainers and managers agree on assignments.
void expect_consistent(const RankLayout& l) {
  int trainers = 0, managers = 0, coordinators = 0;
  for (int r = 0; r < l.world_size(); ++r) {
    switch (l.role(r)) {
      case Role::kTrainer:
        ++trainers;
        if (l.num_buffers() > 0) {
          const auto& mine = l.assigned_trainers(l.assigned_buffer(r));
          EXPECT_NE(std::find(mine.begin(), mine.end(), r), mine.end()) << "rank " << r;
        } else {
          EXPECT_EQ(l.assigned_buffer(r), -1);
        }
        break;
      case Role::kBufferManager:
        ++managers;
        EXPECT_FALSE(l.assigned_trainers(r).empty());
        for (int t : l.assigned_trainers(r)) EXPECT_EQ(l.assigned_buffer(t), r);
        break;
      case Role::kCoordinator:
        ++coordinators;
        EXPECT_EQ(r, l.world_size() - 1);
        break;
    }
    EXPECT_GE(l.agent_group_id(r), 0);
    EXPECT_LT(l.agent_group_id(r), l.num_agent_groups());
  }
  EXPECT_EQ(trainers, l.num_trainers());
  EXPECT_EQ(managers, l.num_buffers());
  EXPECT_EQ(coordinators, l.coordinator_rank() >= 0 ? 1 : 0);
}

std::string error_of(const LayoutRequest& r) {
  try {
    plan_layout(r);
  } catch (const LayoutError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no LayoutError";
  return "";
}

TEST(RankLayout, NoBuffersAllRanksTrain) {
  RankLayout l = plan_layout(request(4, 0));
  EXPECT_THAT(l.trainer_ranks(), ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(l.buffer_ranks().empty());
  EXPECT_EQ(l.coordinator_rank(), -1);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(l.assigned_buffer(r), -1);
  EXPECT_EQ(to_string(l.role(2)), "trainer");
  expect_consistent(l);
}

TEST(RankLayout, UnevenChunksThreeThenTwo) {
  // 5 trainers, 2 buffers -> [t t t M][t t M]
  RankLayout l = plan_layout(request(7, 2));
  EXPECT_EQ(l.placement(), roles::Placement::kArithmetic);
  EXPECT_THAT(l.trainer_ranks(), ElementsAre(0, 1, 2, 4, 5));
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(3, 6));
  EXPECT_THAT(l.assigned_trainers(3), ElementsAre(0, 1, 2));
  EXPECT_THAT(l.assigned_trainers(6), ElementsAre(4, 5));
  EXPECT_EQ(l.assigned_buffer(1), 3);
  EXPECT_EQ(l.assigned_buffer(5), 6);
  EXPECT_EQ(l.role(3), Role::kBufferManager);
  EXPECT_EQ(to_string(l.role(3)), "manager");
  EXPECT_TRUE(l.assigned_trainers(0).empty());
  EXPECT_EQ(l.assigned_buffer(3), -1);
  expect_consistent(l);
}

TEST(RankLayout, MultiManagerEqualChunks) {
  RankLayout l = plan_layout(request(12, 3));
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(3, 7, 11));
  EXPECT_THAT(l.assigned_trainers(7), ElementsAre(4, 5, 6));
  EXPECT_THAT(l.assigned_trainers(11), ElementsAre(8, 9, 10));
  EXPECT_EQ(l.num_trainers(), 9);
  expect_consistent(l);
}

TEST(RankLayout, CoordinatorWithoutBuffers) {
  RankLayout l = plan_layout(request(4, 0, 1, true));
  EXPECT_THAT(l.trainer_ranks(), ElementsAre(0, 1, 2));
  EXPECT_EQ(l.coordinator_rank(), 3);
  EXPECT_EQ(l.role(3), Role::kCoordinator);
  EXPECT_EQ(to_string(Role::kCoordinator), "coordinator");
  EXPECT_EQ(l.assigned_buffer(3), -1);
  EXPECT_TRUE(l.assigned_trainers(3).empty());
  EXPECT_EQ(l.agent_group_id(3), 0);
  expect_consistent(l);
}

TEST(RankLayout, CoordinatorWithBuffersIsTopRank) {
  // 8 ranks, 2 buffers, coordinator: 5 trainers -> [0 1 2 M3][4 5 M6] C7
  RankLayout l = plan_layout(request(8, 2, 1, true));
  EXPECT_THAT(l.trainer_ranks(), ElementsAre(0, 1, 2, 4, 5));
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(3, 6));
  EXPECT_EQ(l.coordinator_rank(), 7);
  expect_consistent(l);
}

TEST(RankLayout, AgentGroupsAreTrainerSlices) {
  // 6 trainers + 1 manager (rank 6), 3 agent groups of 2.
  RankLayout l = plan_layout(request(7, 1, 3));
  ASSERT_EQ(l.num_agent_groups(), 3);
  EXPECT_THAT(l.agent_groups()[0], ElementsAre(0, 1));
  EXPECT_THAT(l.agent_groups()[1], ElementsAre(2, 3));
  EXPECT_THAT(l.agent_groups()[2], ElementsAre(4, 5));
  EXPECT_EQ(l.agent_group_id(3), 1);
  EXPECT_THAT(l.agent_group(5), ElementsAre(4, 5));
  // The manager's group is its first trainer's group.
  EXPECT_EQ(l.agent_group_id(6), 0);
  expect_consistent(l);
}

TEST(RankLayout, BlockHostnamesKeepManagersNodeLocal) {
  // a a a a a b b b, 2 buffers: node a -> [0 1 2 3 M4], node b -> [5 6 M7]
  // (arithmetic placement would give [0 1 2 M3][4 5 6 M7], crossing nodes).
  RankLayout l =
      plan_layout(request(8, 2, 1, false, roles::Placement::kAuto, hosts({{"a", 5}, {"b", 3}})));
  EXPECT_EQ(l.placement(), roles::Placement::kHostname);
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(4, 7));
  EXPECT_THAT(l.assigned_trainers(4), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(l.assigned_trainers(7), ElementsAre(5, 6));
  for (int r : l.trainer_ranks()) EXPECT_EQ(l.hostname(r), l.hostname(l.assigned_buffer(r)));
  expect_consistent(l);
}

TEST(RankLayout, CyclicHostnamesGiveNonContiguousMembers) {
  std::vector<std::string> h = {"a", "b", "a", "b", "a", "b", "a", "b"};
  RankLayout l = plan_layout(request(8, 2, 2, false, roles::Placement::kHostname, h));
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(6, 7));
  EXPECT_THAT(l.assigned_trainers(6), ElementsAre(0, 2, 4));
  EXPECT_THAT(l.assigned_trainers(7), ElementsAre(1, 3, 5));
  EXPECT_THAT(l.trainer_ranks(), ElementsAre(0, 2, 4, 1, 3, 5));
  // Agent groups follow placement order, so they are node-local here.
  EXPECT_THAT(l.agent_groups()[0], ElementsAre(0, 2, 4));
  EXPECT_THAT(l.agent_groups()[1], ElementsAre(1, 3, 5));
  EXPECT_EQ(l.agent_group_id(3), 1);
  EXPECT_EQ(l.agent_group_id(7), 1);
  expect_consistent(l);
}

TEST(RankLayout, SeveralManagersPerNode) {
  // 4 buffers over 2 nodes: 2 sub-groups per node.
  RankLayout l =
      plan_layout(request(8, 4, 1, false, roles::Placement::kAuto, hosts({{"a", 4}, {"b", 4}})));
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(1, 3, 5, 7));
  EXPECT_THAT(l.assigned_trainers(3), ElementsAre(2));
  // Uneven node: a a a a a b b, 2 buffers -> [0 1 2 3 M4][5 M6]
  RankLayout u =
      plan_layout(request(7, 2, 1, false, roles::Placement::kAuto, hosts({{"a", 5}, {"b", 2}})));
  EXPECT_THAT(u.assigned_trainers(4), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(u.assigned_trainers(6), ElementsAre(5));
  expect_consistent(l);
  expect_consistent(u);
}

TEST(RankLayout, HostnamesWithCoordinator) {
  // a x4, b x5 with coordinator 8 on b: [0 1 2 M3] [4 5 6 M7] C8
  RankLayout l =
      plan_layout(request(9, 2, 1, true, roles::Placement::kHostname, hosts({{"a", 4}, {"b", 5}})));
  EXPECT_THAT(l.buffer_ranks(), ElementsAre(3, 7));
  EXPECT_THAT(l.assigned_trainers(7), ElementsAre(4, 5, 6));
  EXPECT_EQ(l.coordinator_rank(), 8);
  // A node holding only the coordinator does not count as a node.
  RankLayout c =
      plan_layout(request(5, 1, 1, true, roles::Placement::kHostname, hosts({{"a", 4}, {"c", 1}})));
  EXPECT_THAT(c.assigned_trainers(3), ElementsAre(0, 1, 2));
  EXPECT_EQ(c.coordinator_rank(), 4);
  expect_consistent(l);
  expect_consistent(c);
}

TEST(RankLayout, AutoFallsBackToArithmeticWhenNotDivisible) {
  // 3 nodes, 2 buffers: 2 % 3 != 0 -> arithmetic, 7 trainers -> 4, 3.
  auto h = hosts({{"a", 3}, {"b", 3}, {"c", 3}});
  RankLayout l = plan_layout(request(9, 2, 1, false, roles::Placement::kAuto, h));
  EXPECT_EQ(l.placement(), roles::Placement::kArithmetic);
  EXPECT_THAT(l.assigned_trainers(4), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(l.assigned_trainers(8), ElementsAre(5, 6, 7));
  EXPECT_THAT(error_of(request(9, 2, 1, false, roles::Placement::kHostname, h)),
              AllOf(HasSubstr("divisible"), HasSubstr("3 nodes"), HasSubstr("num_buffers=2")));
  // Explicit arithmetic ignores the hostnames.
  RankLayout a = plan_layout(
      request(8, 2, 1, false, roles::Placement::kArithmetic, hosts({{"a", 5}, {"b", 3}})));
  EXPECT_THAT(a.buffer_ranks(), ElementsAre(3, 7));
  EXPECT_EQ(a.hostname(0), "a");
}

TEST(RankLayout, SummaryIsATable) {
  std::vector<std::string> h = {"a", "b", "a", "b", "a", "b", "a", "b"};
  RankLayout l = plan_layout(request(8, 2, 1, false, roles::Placement::kAuto, h));
  const std::string s = l.summary();
  EXPECT_THAT(s, HasSubstr("world_size=8 trainers=6 buffer_managers=2 coordinator=none"));
  EXPECT_THAT(s, HasSubstr("placement=hostname"));
  EXPECT_THAT(s, HasSubstr("0,2,4"));
  EXPECT_THAT(s, HasSubstr("1,3,5"));
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 10);
  // Row of rank 6 (a manager) names its role and its trainers.
  const auto row = s.substr(s.find("\n    6 "), s.find("\n    7 ") - s.find("\n    6 "));
  EXPECT_THAT(row, HasSubstr("manager"));
  EXPECT_THAT(row, HasSubstr("0,2,4"));
  EXPECT_THAT(plan_layout(request(4, 0, 1, true)).summary(), HasSubstr("coordinator=rank 3"));
}

// An impossible layout names the smallest world that fits it (and that world plans), or
// for agent groups the nearest world sizes that split evenly.
TEST(RankLayout, ImpossibleLayoutsNameTheWorldThatFits) {
  struct Case {
    LayoutRequest r;
    int smallest;
    std::string parts;
  };
  const std::vector<Case> cases = {
      {request(2, 2), 4, "2 trainers + 2 managers"},  // -np 2 with 2 buffer managers
      {request(3, 2, 1, true), 5, "2 trainers + 2 managers + coordinator"},
      {request(1, 0, 1, true), 2, "1 trainer + coordinator"},
      {request(5, 3), 6, "3 trainers + 3 managers"},
      {request(4, 3, 2), 7, "4 trainers + 3 managers"},  // at least 3, a multiple of 2
      {request(2, 1, 4, true), 6, "4 trainers + 1 manager + coordinator"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(error_of(c.r),
                HasSubstr("needs at least " + std::to_string(c.smallest) + " ranks: " + c.parts));
    LayoutRequest fits = c.r;
    fits.world_size = c.smallest;
    EXPECT_NO_THROW(plan_layout(fits)) << c.parts;
    fits.world_size = c.smallest - 1;
    EXPECT_THROW(plan_layout(fits), LayoutError) << c.parts;
  }
  // 5 trainers into 2 groups: 4 or 6 trainers fit. 3 trainers of 3 managers into 2 groups:
  // 2 trainers are too few for the managers, so only 4.
  EXPECT_THAT(error_of(request(7, 2, 2)), HasSubstr("a world of 6 or 8 ranks fits"));
  EXPECT_THAT(error_of(request(6, 3, 2)), HasSubstr("a world of 7 ranks fits"));
  for (int world : {6, 8}) EXPECT_NO_THROW(plan_layout(request(world, 2, 2)));
  EXPECT_NO_THROW(plan_layout(request(7, 3, 2)));
  EXPECT_THROW(plan_layout(request(5, 3, 2)), LayoutError);
}

TEST(RankLayout, ImpossibleRequestsAreRefused) {
  EXPECT_THAT(error_of(request(0, 0)), HasSubstr("world_size must be >= 1"));
  EXPECT_THAT(error_of(request(4, -1)), HasSubstr("num_buffers must be >= 0"));
  EXPECT_THAT(error_of(request(4, 0, 0)), HasSubstr("num_agent_groups must be >= 1"));
  EXPECT_THAT(error_of(request(3, 2, 1, true)),
              AllOf(HasSubstr("world too small"), HasSubstr("world_size=3")));
  EXPECT_THAT(error_of(request(1, 0, 1, true)), HasSubstr("world too small"));
  EXPECT_THAT(error_of(request(5, 3)), HasSubstr("3 buffer managers for 2 trainers"));
  EXPECT_THAT(error_of(request(7, 2, 2)), HasSubstr("5 trainers cannot be split into 2"));
  EXPECT_THAT(error_of(request(4, 0, 1, false, roles::Placement::kAuto, {"a", "b"})),
              HasSubstr("2 hostnames given, expected one per rank (4)"));
  EXPECT_THAT(error_of(request(4, 1, 1, false, roles::Placement::kHostname)),
              HasSubstr("none were given"));
  // Node b has one rank but needs a trainer and a manager.
  EXPECT_THAT(
      error_of(request(6, 2, 1, false, roles::Placement::kAuto, hosts({{"a", 5}, {"b", 1}}))),
      AllOf(HasSubstr("node 'b' has 1 non-coordinator rank"), HasSubstr("at least 2")));
  RankLayout l = plan_layout(request(4, 1));
  EXPECT_THROW(l.role(4), LayoutError);
  EXPECT_THROW(l.agent_group_id(-1), LayoutError);
  EXPECT_THROW(plan_layout(request(0, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::roles
