#pragma once
// Which ranks form which process group under xffl's hybrid sharding (HSDP) and federated
// scaling (seed 001, xffl.distributed: DistributedState.set_hsdp / set_federated_scaling).
// Pure arithmetic, no communication: sharding_topology.h creates the groups.
//
// Terms (xffl's):
//  - federation (federated group, "xffl federation"): a contiguous block of ranks that
//    trains one model on its own; federation f holds ranks offset_f .. offset_f+size_f-1.
//    Not federated: one federation, the whole world.
//  - shard group (xffl "sharding group", mesh dimension "shard"): the hsdp consecutive
//    ranks of a federation that together hold one model replica, each a different shard.
//    Without hsdp: the whole federation (FSDP FULL_SHARD over the federation).
//  - replica group (xffl `replica_group`, mesh dimension "replica"): the ranks of a
//    federation that hold the same shard in different replicas (same replica-local rank).
//    Only with hsdp.
//  - federated group (xffl `federated_group`): one "sender" per federation holding the
//    same shard position; the model is averaged across federations within it. Without
//    hsdp every rank is a sender (group = ranks with the same federation-local rank).
//    With hsdp the sender of shard position l in federation f is the rank of replica
//    (l mod replicas_f) holding shard l (xffl _get_communicating_processes); the other
//    ranks receive the average from the sender of their replica group (`receive_from`).
//
// Example (xffl's docstring): world 8, federated {4}: federations [0..3] [4..7], federated
// groups [0,4] [1,5] [2,6] [3,7]. World 4, hsdp 2: shard groups [0,1] [2,3], replica groups
// [0,2] [1,3].

#include <optional>
#include <vector>

namespace gfn::compat {

using RankList = std::vector<int>;

/// Where one rank sits in the layout. Group indices point into TopologyLayout's lists
/// (-1: no such group for this rank).
struct RankPlace {
  int federated_rank = 0;        ///< index of its federation
  int federated_local_rank = 0;  ///< rank within its federation
  int replica_rank = 0;          ///< index of its replica (shard group) within the federation
  int replica_local_rank = 0;    ///< shard position: rank within its shard group
  bool is_sender = true;         ///< member of a federated group (federated layouts only)
  int receive_from = -1;  ///< global rank it receives the federated average from (itself if sender)
  int federation = 0;     ///< index into federations
  int shard_group = 0;    ///< index into shard_groups
  int replica_group = -1;    ///< index into replica_groups (-1 without hsdp)
  int federated_group = -1;  ///< index into federated_groups (-1: not federated / not a sender)
};

/// Every group of the layout (global ranks in group-rank order) and every rank's place.
struct TopologyLayout {
  int world_size = 1;
  std::optional<int> hsdp;           ///< ranks per model replica (shard group size), if HSDP
  std::vector<int> federated_sizes;  ///< size of each federation; empty if not federated
  std::vector<RankList> federations;
  std::vector<RankList> shard_groups;
  std::vector<RankList> replica_groups;    ///< empty without hsdp
  std::vector<RankList> federated_groups;  ///< empty when not federated
  std::vector<RankPlace> places;           ///< index: global rank

  bool is_hsdp() const { return hsdp.has_value(); }
  bool is_federated() const { return !federated_sizes.empty(); }
};

/// Expands xffl's `federated` argument to one size per federation:
///  - empty: not federated (empty result);
///  - one value k: world_size / k federations of k ranks; k == world_size means a single
///    federation, which xffl treats as not federated (empty result);
///  - several values: the sizes themselves, which must add up to world_size.
/// Throws TopologyError for a size < 1, k not dividing world_size, or a wrong sum.
std::vector<int> expand_federated_sizes(int world_size, const std::vector<int>& federated);

/// Computes the layout of xffl setup_distributed_process_group(world_size, hsdp, federated).
/// `federated` is expanded with expand_federated_sizes. Rules (TopologyError otherwise):
/// world_size >= 1; hsdp >= 1 and dividing world_size (or, when federated, every
/// federation size); federations of different sizes need hsdp (as in xffl, whose
/// asymmetric federated scaling is built on HSDP replicas).
TopologyLayout plan_topology(int world_size, std::optional<int> hsdp,
                             const std::vector<int>& federated = {});

}  // namespace gfn::compat
