// xffl hybrid-sharding / federated process groups on the running world (1, 2 or 4 ranks)
// and both backends: group membership, traffic confined to each group, gradient averaging
// (FULL_SHARD / HYBRID_SHARD) and federated model averaging against values computed here.

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "runtime/compat/process_group.h"
#include "runtime/compat/sharding_strategy.h"
#include "runtime/compat/sharding_topology.h"
#include "runtime/compat/topology_errors.h"
#include "tests/runtime/compat/topology_test_env.h"

namespace gfn::compat {
namespace {

using topology_testing::TopologyTest;

struct Config {
  std::optional<int> hsdp;
  std::vector<int> federated;
  std::string name() const {
    return fmt::format("hsdp={} federated={}", hsdp ? std::to_string(*hsdp) : "none",
                       fmt::join(federated, ","));
  }
};

// Topologies valid for a world of `w` ranks.
std::vector<Config> configs(int w) {
  std::vector<Config> c{{std::nullopt, {}}, {1, {}}, {w, {}}};
  if (w % 2 == 0) {
    c.push_back({2, {}});
    c.push_back({std::nullopt, {w / 2}});
    c.push_back({1, {w / 2}});
  }
  if (w == 4) {
    c.push_back({1, {3, 1}});
    c.push_back({2, {2}});
    c.push_back({std::nullopt, {1}});
  }
  return c;
}

// Sum of (rank + 1) over `ranks`.
double rank_sum(const RankList& ranks) {
  double s = 0;
  for (int r : ranks) s += r + 1;
  return s;
}

// Checks that `group` is the layout group `expected` and that an all-reduce stays in it.
void expect_group(transport::Group& group, const RankList& expected, int rank,
                  const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(group.global_ranks(), expected);
  EXPECT_EQ(group.size(), static_cast<int>(expected.size()));
  const auto it = std::find(expected.begin(), expected.end(), rank);
  ASSERT_NE(it, expected.end()) << "rank " << rank << " is not in its own group";
  EXPECT_EQ(group.rank(), static_cast<int>(it - expected.begin()));
  double v = rank + 1;
  group.all_reduce(&v, 1, transport::DType::kFloat64, transport::ReduceOp::kSum);
  EXPECT_DOUBLE_EQ(v, rank_sum(expected));
}

TEST_F(TopologyTest, GroupMembershipMatchesTheLayout) {
  for (const Config& c : configs(world())) {
    SCOPED_TRACE(c.name());
    ShardingTopology topo(default_transport(), plan_topology(world(), c.hsdp, c.federated));
    const TopologyLayout& L = topo.layout();
    const RankPlace& me = topo.place();
    EXPECT_EQ(topo.rank(), rank());
    expect_group(topo.federation(), L.federations[me.federation], rank(), "federation");
    expect_group(topo.shard_group(), L.shard_groups[me.shard_group], rank(), "shard group");
    if (c.hsdp) {
      ASSERT_NE(topo.replica_group(), nullptr);
      expect_group(*topo.replica_group(), L.replica_groups[me.replica_group], rank(),
                   "replica group");
    } else {
      EXPECT_EQ(topo.replica_group(), nullptr);
    }
    EXPECT_EQ(topo.is_federated(), !L.federated_sizes.empty());
    if (topo.is_federated() && me.is_sender) {
      ASSERT_NE(topo.federated_group(), nullptr);
      expect_group(*topo.federated_group(), L.federated_groups[me.federated_group], rank(),
                   "federated group");
    } else {
      EXPECT_EQ(topo.federated_group(), nullptr);
    }
    EXPECT_EQ(appropriate_sharding_strategy(topo),
              c.hsdp ? ShardingStrategy::kHybridShard : ShardingStrategy::kFullShard);
  }
}

TEST_F(TopologyTest, LayoutForAnotherWorldSizeIsRefused) {
  EXPECT_THROW(ShardingTopology(default_transport(), plan_topology(world() + 1, std::nullopt)),
               TopologyError);
}

TEST_F(TopologyTest, GradientsAreAveragedOverTheFederation) {
  for (const Config& c : configs(world())) {
    SCOPED_TRACE(c.name());
    ShardingTopology topo(default_transport(), plan_topology(world(), c.hsdp, c.federated));
    at::Tensor p = at::zeros({3}, at::kDouble).requires_grad_(true);
    at::Tensor q = at::zeros({2, 2}, at::kFloat).requires_grad_(true);
    at::Tensor no_grad = at::zeros({2}, at::kFloat).requires_grad_(true);
    p.mutable_grad() = at::arange(1, 4, at::kDouble) * (rank() + 1);
    q.mutable_grad() = at::full({2, 2}, static_cast<float>(rank() + 1));
    average_gradients({p, q, no_grad}, topo);
    // FULL_SHARD: mean over the shard group = federation; HYBRID_SHARD: mean over the shard
    // group, then over the replica group = mean over the federation (equal group sizes).
    const RankList& fed = topo.layout().federations[topo.place().federation];
    const double mean = rank_sum(fed) / static_cast<double>(fed.size());
    EXPECT_TRUE(at::allclose(p.grad(), at::arange(1, 4, at::kDouble) * mean));
    EXPECT_TRUE(at::allclose(q.grad(), at::full({2, 2}, static_cast<float>(mean))));
    EXPECT_FALSE(no_grad.grad().defined());
  }
}

TEST_F(TopologyTest, FederatedModelAveraging) {
  for (const Config& c : configs(world())) {
    for (const auto weighting : {FederatedWeighting::kEqual, FederatedWeighting::kBySize}) {
      SCOPED_TRACE(c.name() + (weighting == FederatedWeighting::kEqual ? " equal" : " by size"));
      ShardingTopology topo(default_transport(), plan_topology(world(), c.hsdp, c.federated));
      const TopologyLayout& L = topo.layout();
      // Each rank's model differs: value (rank + 1) * [1, 2].
      at::Tensor p = (at::arange(1, 3, at::kFloat) * (rank() + 1)).requires_grad_(true);
      federated_average_models({p}, topo, weighting);
      double expected = rank() + 1;  // not federated: unchanged
      if (L.is_federated()) {
        // The senders of this rank's shard position, one per federation.
        const RankPlace& sender = L.places[topo.place().receive_from];
        const RankList& senders = L.federated_groups[sender.federated_group];
        ASSERT_EQ(senders.size(), L.federations.size());
        double num = 0, den = 0;
        for (int s : senders) {
          const double w = weighting == FederatedWeighting::kEqual
                               ? 1.0
                               : L.federated_sizes[L.places[s].federated_rank];
          num += w * (s + 1);
          den += w;
        }
        expected = num / den;
      }
      EXPECT_TRUE(at::allclose(p.detach(), at::arange(1, 3, at::kFloat) * expected))
          << p << " expected " << expected;
    }
  }
}

TEST_F(TopologyTest, ModuleOverloads) {
  // hsdp 1, federations of one rank (at world 1: one federation = not federated).
  ShardingTopology topo(default_transport(), plan_topology(world(), 1, {1}));
  torch::nn::Linear lin(2, 1);
  {
    c10::NoGradGuard no_grad;
    for (auto& t : lin->parameters()) t.fill_(rank() + 1);
  }
  for (auto& t : lin->parameters()) t.mutable_grad() = at::full_like(t, rank() + 1);
  // Federations of one rank: gradients stay, the model is averaged over all ranks.
  average_gradients(*lin, topo);
  federated_average_models(*lin, topo);
  const double mean = (world() + 1) / 2.0;
  for (auto& t : lin->parameters()) {
    EXPECT_TRUE(at::allclose(t.grad(), at::full_like(t, rank() + 1)));
    EXPECT_TRUE(at::allclose(t.detach(), at::full_like(t, world() > 1 ? mean : rank() + 1)));
  }
}

}  // namespace
}  // namespace gfn::compat
