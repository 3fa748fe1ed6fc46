#pragma once
// The choice behind xffl get_appropriate_sharding_strategy (seed 001), expressed as which
// groups average what, and the averaging itself (built on runtime/distributed/model_averaging.h).
//
// gfn-runtime keeps a full model replica on every rank (no parameter sharding on the CPU),
// so FSDP's reduce-scatter / all-gather pair becomes a gradient average over the same
// ranks; the group structure is xffl's:
//  - FULL_SHARD (no hsdp): gradients are averaged over the shard group, i.e. the whole
//    federation (the world when not federated).
//  - HYBRID_SHARD (hsdp): gradients are averaged within the shard group (the hsdp ranks of
//    one replica), then across the replica group (same shard, other replicas). Groups of
//    equal size make this the mean over the federation.
//  - Federated (either strategy): federations train independently; from time to time the
//    model is averaged across federations (xffl aggregation.sync_federated_averaging): the
//    senders all-reduce it in their federated group and divide by the number of
//    federations (one representative per federation, equal weights; optionally weighted
//    by federation size), then with hsdp each sender broadcasts the result in its replica
//    group.

#include <string>
#include <vector>

#include "runtime/compat/sharding_layout.h"

namespace at {
class Tensor;
}  // namespace at
namespace torch::nn {
class Module;
}  // namespace torch::nn

namespace gfn::compat {

class ShardingTopology;

/// torch.distributed.fsdp.ShardingStrategy values that xffl chooses between.
enum class ShardingStrategy { kFullShard, kHybridShard };

/// "FULL_SHARD" / "HYBRID_SHARD" (FSDP's names).
std::string to_string(ShardingStrategy strategy);

/// The groups of a ShardingTopology, by role.
enum class GroupRole { kFederation, kShardGroup, kReplicaGroup, kFederatedGroup };

/// "federation", "shard group", "replica group", "federated group".
std::string to_string(GroupRole role);

/// Which groups average what.
struct AveragingPlan {
  ShardingStrategy strategy = ShardingStrategy::kFullShard;
  /// Gradients are averaged over these groups of the rank, in this order, every step.
  std::vector<GroupRole> gradient_groups;
  /// Model averaging across federations: over kFederatedGroup (senders), then broadcast
  /// from the sender over kReplicaGroup when hsdp. Empty when not federated.
  std::vector<GroupRole> model_groups;
};

/// xffl get_appropriate_sharding_strategy: HYBRID_SHARD when hsdp is set, else FULL_SHARD.
ShardingStrategy appropriate_sharding_strategy(const TopologyLayout& layout);
ShardingStrategy appropriate_sharding_strategy(const ShardingTopology& topology);

/// The averaging plan of a layout (see the file comment). Pure, no communication.
AveragingPlan averaging_plan(const TopologyLayout& layout);

/// Averages the gradients of `parameters` (p.grad(), in place; undefined gradients are
/// skipped and must be undefined on every rank) over the plan's gradient groups.
/// Tensors: CPU float32 / float64, the same shapes and order on every rank.
/// Blocking; collective over the federation (every rank of it calls it).
/// Errors: transport::TransportError (see runtime/distributed/model_averaging.h).
void average_gradients(const std::vector<at::Tensor>& parameters, ShardingTopology& topology);
void average_gradients(torch::nn::Module& model, ShardingTopology& topology);

/// How the model average across federations weights each federation.
enum class FederatedWeighting {
  kEqual,   ///< each federation counts once (xffl: sum / number of federations)
  kBySize,  ///< each federation weighted by its number of ranks
};

/// Averages the values of `parameters` (in place) across federations (xffl
/// sync_federated_averaging): the senders average within their federated group; with
/// hsdp every sender then broadcasts the result to its replica group, so every rank ends
/// with the average of the senders' models of its shard position.
/// Blocking; collective over WORLD (every rank calls it). A no-op without federation.
/// Tensors: CPU float32 / float64, same shapes and order on every rank.
/// Errors: transport::TransportError (see runtime/distributed/model_averaging.h).
void federated_average_models(const std::vector<at::Tensor>& parameters, ShardingTopology& topology,
                              FederatedWeighting weighting = FederatedWeighting::kEqual);
void federated_average_models(torch::nn::Module& model, ShardingTopology& topology,
                              FederatedWeighting weighting = FederatedWeighting::kEqual);

}  // namespace gfn::compat
