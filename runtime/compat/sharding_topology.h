#pragma once
// The process groups of an xffl hybrid-sharding / federated layout (seed 001,
// xffl.distributed DistributedState: federation, hsdp mesh, replica_group,
// federated_group), created on a transport (either backend). See sharding_layout.h for
// which ranks form which group.

#include <memory>
#include <vector>

#include "runtime/compat/sharding_layout.h"
#include "transport/transport.h"

namespace gfn::compat {

/// This rank's groups of a TopologyLayout. Move-only. The groups stay valid after the
/// transport is destroyed (they share its backend session) but must not be used then.
class ShardingTopology {
 public:
  /// Creates every group of `layout` on `transport`: federations, shard groups, replica
  /// groups, federated groups, in that order (Transport::new_group is collective over
  /// WORLD, so every rank creates every group; groups equal to WORLD reuse
  /// transport.world()). Keeps the ones this rank belongs to.
  /// Collective and blocking: every rank calls it with the same layout.
  /// Throws TopologyError if layout.world_size differs from the transport's world size;
  /// transport::TransportError on backend failure.
  ShardingTopology(transport::Transport& transport, TopologyLayout layout);
  ~ShardingTopology();
  ShardingTopology(ShardingTopology&&) noexcept;
  ShardingTopology& operator=(ShardingTopology&&) noexcept;

  const TopologyLayout& layout() const { return layout_; }
  /// This rank's place (federated / replica ranks, sender role).
  const RankPlace& place() const { return layout_.places[static_cast<std::size_t>(rank_)]; }
  /// Global rank of this process.
  int rank() const { return rank_; }
  bool is_hsdp() const { return layout_.is_hsdp(); }
  bool is_federated() const { return layout_.is_federated(); }

  /// This rank's federation (xffl `federation`); WORLD when not federated.
  transport::Group& federation() const { return *federation_; }
  /// This rank's shard group: the ranks holding one model replica together.
  transport::Group& shard_group() const { return *shard_group_; }
  /// This rank's replica group (same shard, other replicas); nullptr without hsdp.
  transport::Group* replica_group() const { return replica_group_; }
  /// This rank's federated group (senders of its shard position across federations);
  /// nullptr when not federated or when this rank is not a sender.
  transport::Group* federated_group() const { return federated_group_; }

 private:
  TopologyLayout layout_;
  int rank_ = 0;
  std::vector<std::unique_ptr<transport::Group>> owned_;
  transport::Group* federation_ = nullptr;
  transport::Group* shard_group_ = nullptr;
  transport::Group* replica_group_ = nullptr;
  transport::Group* federated_group_ = nullptr;
};

}  // namespace gfn::compat
