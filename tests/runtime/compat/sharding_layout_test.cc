// xffl hybrid-sharding / federated layouts (seed 001), pure arithmetic: which ranks form
// which group, checked against layouts written out by hand from xffl's definitions.

#include <gtest/gtest.h>

#include "runtime/compat/sharding_layout.h"
#include "runtime/compat/sharding_strategy.h"
#include "runtime/compat/topology_errors.h"

namespace gfn::compat {
namespace {

using Groups = std::vector<RankList>;

TEST(ShardingLayout, NotShardedIsOneShardGroupOverTheWorld) {
  const TopologyLayout L = plan_topology(3, std::nullopt);
  EXPECT_EQ(L.federations, (Groups{{0, 1, 2}}));
  EXPECT_EQ(L.shard_groups, (Groups{{0, 1, 2}}));
  EXPECT_TRUE(L.replica_groups.empty());
  EXPECT_TRUE(L.federated_groups.empty());
  EXPECT_EQ(L.places[2].federated_local_rank, 2);
  EXPECT_EQ(L.places[2].replica_local_rank, 2);
  EXPECT_EQ(L.places[2].replica_group, -1);
  EXPECT_EQ(L.places[2].federated_group, -1);
}

TEST(ShardingLayout, HsdpReplicaSizeTwoOfFour) {
  const TopologyLayout L = plan_topology(4, 2);
  EXPECT_EQ(L.shard_groups, (Groups{{0, 1}, {2, 3}}));    // mesh rows: one model replica each
  EXPECT_EQ(L.replica_groups, (Groups{{0, 2}, {1, 3}}));  // mesh columns: the same shard
  EXPECT_EQ(L.federations, (Groups{{0, 1, 2, 3}}));
  // xffl _partial_hsdp_setup: replica_local_rank = rank % hsdp, replica_rank = rank / hsdp.
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(L.places[r].replica_local_rank, r % 2);
    EXPECT_EQ(L.places[r].replica_rank, r / 2);
    EXPECT_EQ(L.places[r].shard_group, r / 2);
    EXPECT_EQ(L.places[r].replica_group, r % 2);
  }
}

TEST(ShardingLayout, FederatedXfflDocstringExample) {
  // xffl: sharded among four processes, replicated across two groups
  // ([[0,1,2,3],[4,5,6,7]]) -> federated groups [[0,4],[1,5],[2,6],[3,7]].
  const TopologyLayout L = plan_topology(8, std::nullopt, {4});
  EXPECT_EQ(L.federated_sizes, (std::vector<int>{4, 4}));
  EXPECT_EQ(L.federations, (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(L.shard_groups, L.federations);
  EXPECT_EQ(L.federated_groups, (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  for (int r = 0; r < 8; ++r) {
    EXPECT_TRUE(L.places[r].is_sender);
    EXPECT_EQ(L.places[r].receive_from, r);
    EXPECT_EQ(L.places[r].federated_rank, r / 4);
    EXPECT_EQ(L.places[r].federated_local_rank, r % 4);
  }
}

TEST(ShardingLayout, FederatedHsdpSymmetric) {
  const TopologyLayout L = plan_topology(8, 2, {4});
  EXPECT_EQ(L.shard_groups, (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(L.replica_groups, (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // Sender of shard l in federation f: offset_f + (l % replicas_f) * hsdp + l.
  EXPECT_EQ(L.federated_groups, (Groups{{0, 4}, {3, 7}}));
  EXPECT_FALSE(L.places[1].is_sender);
  EXPECT_EQ(L.places[1].receive_from, 3);
  EXPECT_EQ(L.places[2].receive_from, 0);
  EXPECT_EQ(L.places[6].receive_from, 4);
  EXPECT_EQ(L.places[5].receive_from, 7);
  EXPECT_EQ(L.places[7].federated_group, 1);
  EXPECT_EQ(L.places[5].federated_group, -1);
}

TEST(ShardingLayout, FederatedHsdpAsymmetric) {
  const TopologyLayout L = plan_topology(6, 2, {4, 2});
  EXPECT_EQ(L.federations, (Groups{{0, 1, 2, 3}, {4, 5}}));
  EXPECT_EQ(L.shard_groups, (Groups{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(L.replica_groups, (Groups{{0, 2}, {1, 3}, {4}, {5}}));
  EXPECT_EQ(L.federated_groups, (Groups{{0, 4}, {3, 5}}));
  EXPECT_EQ(L.places[5].replica_rank, 0);
  EXPECT_EQ(L.places[5].federated_local_rank, 1);

  const TopologyLayout M = plan_topology(4, 1, {3, 1});
  EXPECT_EQ(M.shard_groups, (Groups{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(M.replica_groups, (Groups{{0, 1, 2}, {3}}));
  EXPECT_EQ(M.federated_groups, (Groups{{0, 3}}));
  EXPECT_EQ(M.places[2].receive_from, 0);
}

TEST(ShardingLayout, ExpandFederatedSizes) {
  EXPECT_EQ(expand_federated_sizes(4, {2}), (std::vector<int>{2, 2}));
  EXPECT_EQ(expand_federated_sizes(4, {1}), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_TRUE(expand_federated_sizes(4, {4}).empty());  // one federation: not federated
  EXPECT_TRUE(expand_federated_sizes(4, {}).empty());
  EXPECT_EQ(expand_federated_sizes(5, {2, 3}), (std::vector<int>{2, 3}));
  EXPECT_THROW(expand_federated_sizes(4, {3}), TopologyError);
  EXPECT_THROW(expand_federated_sizes(4, {1, 2}), TopologyError);
  EXPECT_THROW(expand_federated_sizes(4, {0}), TopologyError);
  EXPECT_THROW(expand_federated_sizes(4, {-2, 6}), TopologyError);
}

TEST(ShardingLayout, InvalidTopologiesAreErrors) {
  EXPECT_THROW(plan_topology(0, std::nullopt), TopologyError);
  EXPECT_THROW(plan_topology(4, 3), TopologyError);
  EXPECT_THROW(plan_topology(4, 0), TopologyError);
  EXPECT_THROW(plan_topology(6, 4, {4, 2}), TopologyError);  // 2 not divisible by 4
  try {
    plan_topology(4, std::nullopt, {3, 1});
    ADD_FAILURE() << "asymmetric federation without hsdp accepted";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("need hsdp"), std::string::npos) << e.what();
  }
}

TEST(ShardingStrategyChoice, WhichGroupsAverageWhat) {
  const AveragingPlan full = averaging_plan(plan_topology(4, std::nullopt));
  EXPECT_EQ(full.strategy, ShardingStrategy::kFullShard);
  EXPECT_EQ(to_string(full.strategy), "FULL_SHARD");
  EXPECT_EQ(full.gradient_groups, (std::vector<GroupRole>{GroupRole::kShardGroup}));
  EXPECT_TRUE(full.model_groups.empty());

  const AveragingPlan hybrid = averaging_plan(plan_topology(4, 2));
  EXPECT_EQ(hybrid.strategy, ShardingStrategy::kHybridShard);
  EXPECT_EQ(to_string(hybrid.strategy), "HYBRID_SHARD");
  EXPECT_EQ(hybrid.gradient_groups,
            (std::vector<GroupRole>{GroupRole::kShardGroup, GroupRole::kReplicaGroup}));
  EXPECT_TRUE(hybrid.model_groups.empty());

  const AveragingPlan fed = averaging_plan(plan_topology(4, std::nullopt, {2}));
  EXPECT_EQ(fed.strategy, ShardingStrategy::kFullShard);
  EXPECT_EQ(fed.model_groups, (std::vector<GroupRole>{GroupRole::kFederatedGroup}));

  const AveragingPlan fed_hybrid = averaging_plan(plan_topology(4, 1, {2}));
  EXPECT_EQ(appropriate_sharding_strategy(plan_topology(4, 1, {2})),
            ShardingStrategy::kHybridShard);
  EXPECT_EQ(fed_hybrid.model_groups,
            (std::vector<GroupRole>{GroupRole::kFederatedGroup, GroupRole::kReplicaGroup}));
  EXPECT_EQ(to_string(GroupRole::kReplicaGroup), "replica group");
}

}  // namespace
}  // namespace gfn::compat
