#include "runtime/compat/sharding_strategy.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include <numeric>

#include "runtime/compat/group_tensor_ops.h"
#include "runtime/compat/sharding_topology.h"
#include "runtime/distributed/model_averaging.h"

namespace gfn::compat {

std::string to_string(ShardingStrategy strategy) {
  return strategy == ShardingStrategy::kHybridShard ? "HYBRID_SHARD" : "FULL_SHARD";
}

std::string to_string(GroupRole role) {
  switch (role) {
    case GroupRole::kFederation:
      return "federation";
    case GroupRole::kShardGroup:
      return "shard group";
    case GroupRole::kReplicaGroup:
      return "replica group";
    case GroupRole::kFederatedGroup:
      return "federated group";
  }
  return "?";
}

ShardingStrategy appropriate_sharding_strategy(const TopologyLayout& layout) {
  return layout.is_hsdp() ? ShardingStrategy::kHybridShard : ShardingStrategy::kFullShard;
}

ShardingStrategy appropriate_sharding_strategy(const ShardingTopology& topology) {
  return appropriate_sharding_strategy(topology.layout());
}

AveragingPlan averaging_plan(const TopologyLayout& layout) {
  AveragingPlan plan;
  plan.strategy = appropriate_sharding_strategy(layout);
  plan.gradient_groups.push_back(GroupRole::kShardGroup);
  if (layout.is_hsdp()) plan.gradient_groups.push_back(GroupRole::kReplicaGroup);
  if (layout.is_federated()) {
    plan.model_groups.push_back(GroupRole::kFederatedGroup);
    if (layout.is_hsdp()) plan.model_groups.push_back(GroupRole::kReplicaGroup);
  }
  return plan;
}

void average_gradients(const std::vector<at::Tensor>& parameters, ShardingTopology& topology) {
  for (GroupRole role : averaging_plan(topology.layout()).gradient_groups) {
    transport::Group& group =
        role == GroupRole::kShardGroup ? topology.shard_group() : *topology.replica_group();
    if (group.size() > 1) dist::average_gradients(parameters, group);
  }
}

void average_gradients(torch::nn::Module& model, ShardingTopology& topology) {
  average_gradients(model.parameters(), topology);
}

void federated_average_models(const std::vector<at::Tensor>& parameters, ShardingTopology& topology,
                              FederatedWeighting weighting) {
  const TopologyLayout& layout = topology.layout();
  if (!layout.is_federated()) return;
  const RankPlace& me = topology.place();
  if (transport::Group* fed = topology.federated_group()) {
    if (weighting == FederatedWeighting::kEqual) {
      dist::average_models(parameters, *fed);
    } else {
      // Weighted mean: scale by size_f * n / world, then the plain mean over n senders.
      const double n = static_cast<double>(fed->size());
      const double w =
          static_cast<double>(layout.federated_sizes[static_cast<std::size_t>(me.federated_rank)]) *
          n / static_cast<double>(layout.world_size);
      c10::AutoGradMode no_grad(false);
      for (const auto& p : parameters) p.mul_(w);
      dist::average_models(parameters, *fed);
    }
  }
  if (transport::Group* replica = topology.replica_group()) {
    if (replica->size() > 1) {
      // The sender of this shard position broadcasts the average to its replica group.
      const auto& members = replica->global_ranks();
      int root = -1;
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i] == me.receive_from) root = static_cast<int>(i);
      }
      broadcast_tensors_inplace(parameters, *replica, root, "federated_average_models");
    }
  }
}

void federated_average_models(torch::nn::Module& model, ShardingTopology& topology,
                              FederatedWeighting weighting) {
  federated_average_models(model.parameters(), topology, weighting);
}

}  // namespace gfn::compat
