#include "runtime/compat/sharding_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <numeric>

#include "runtime/compat/topology_errors.h"

namespace gfn::compat {

std::vector<int> expand_federated_sizes(int world_size, const std::vector<int>& federated) {
  for (int s : federated) {
    if (s < 1) {
      throw TopologyError(fmt::format("federated: group size {} in {} is not positive", s,
                                      fmt::join(federated, ",")));
    }
  }
  if (federated.empty()) return {};
  if (federated.size() == 1) {
    const int k = federated[0];
    if (world_size % k != 0) {
      throw TopologyError(fmt::format(
          "federated: the world size {} is not divisible by the federated group size {}",
          world_size, k));
    }
    if (k == world_size) return {};  // one federation = not federated (xffl falls back)
    return std::vector<int>(static_cast<std::size_t>(world_size / k), k);
  }
  const int sum = std::accumulate(federated.begin(), federated.end(), 0);
  if (sum != world_size) {
    throw TopologyError(
        fmt::format("federated: the group sizes {} add up to {}, not to the world size {}",
                    fmt::join(federated, ","), sum, world_size));
  }
  return federated;
}

TopologyLayout plan_topology(int world_size, std::optional<int> hsdp,
                             const std::vector<int>& federated) {
  if (world_size < 1) {
    throw TopologyError(fmt::format("plan_topology: world size {} is not positive", world_size));
  }
  TopologyLayout L;
  L.world_size = world_size;
  L.hsdp = hsdp;
  L.federated_sizes = expand_federated_sizes(world_size, federated);
  const std::vector<int> fed_sizes =
      L.is_federated() ? L.federated_sizes : std::vector<int>{world_size};
  if (hsdp) {
    if (*hsdp < 1) throw TopologyError(fmt::format("hsdp: replica size {} is not positive", *hsdp));
    for (int s : fed_sizes) {
      if (s % *hsdp != 0) {
        throw TopologyError(
            fmt::format("hsdp: the {} size {} is not divisible by the replica size {}",
                        L.is_federated() ? "federated group" : "world", s, *hsdp));
      }
    }
  } else if (L.is_federated()) {
    for (int s : fed_sizes) {
      if (s != fed_sizes[0]) {
        throw TopologyError(
            fmt::format("federated: groups of different sizes {} need hsdp (xffl builds asymmetric "
                        "federated scaling on HSDP replicas)",
                        fmt::join(fed_sizes, ",")));
      }
    }
  }
  L.places.resize(static_cast<std::size_t>(world_size));

  int offset = 0;
  for (std::size_t f = 0; f < fed_sizes.size(); ++f) {
    const int size = fed_sizes[f];
    const int shard_size = hsdp ? *hsdp : size;  // ranks per replica
    const int replicas = size / shard_size;
    RankList fed(static_cast<std::size_t>(size));
    std::iota(fed.begin(), fed.end(), offset);
    L.federations.push_back(fed);
    for (int r = 0; r < replicas; ++r) {
      RankList shard(static_cast<std::size_t>(shard_size));
      std::iota(shard.begin(), shard.end(), offset + r * shard_size);
      L.shard_groups.push_back(shard);
    }
    if (hsdp) {
      for (int l = 0; l < shard_size; ++l) {
        RankList replica;
        for (int r = 0; r < replicas; ++r) replica.push_back(offset + r * shard_size + l);
        L.replica_groups.push_back(replica);
      }
    }
    const int first_shard_group = static_cast<int>(L.shard_groups.size()) - replicas;
    const int first_replica_group =
        hsdp ? static_cast<int>(L.replica_groups.size()) - shard_size : -1;
    for (int local = 0; local < size; ++local) {
      RankPlace& p = L.places[static_cast<std::size_t>(offset + local)];
      p.federation = static_cast<int>(f);
      p.federated_rank = static_cast<int>(f);
      p.federated_local_rank = local;
      p.replica_rank = local / shard_size;
      p.replica_local_rank = local % shard_size;
      p.shard_group = first_shard_group + p.replica_rank;
      p.replica_group = hsdp ? first_replica_group + p.replica_local_rank : -1;
      // Sender of this shard position in this federation (xffl _get_communicating_processes).
      const int sender =
          offset + (p.replica_local_rank % replicas) * shard_size + p.replica_local_rank;
      p.is_sender = !L.is_federated() || sender == offset + local;
      p.receive_from = L.is_federated() ? sender : offset + local;
    }
    offset += size;
  }
  if (L.is_federated()) {
    // One federated group per shard position: the senders of that position, by federation.
    const int positions = hsdp ? *hsdp : fed_sizes[0];
    for (int l = 0; l < positions; ++l) {
      RankList group;
      for (int rank = 0; rank < world_size; ++rank) {
        const RankPlace& p = L.places[static_cast<std::size_t>(rank)];
        if (p.is_sender && p.replica_local_rank == l) group.push_back(rank);
      }
      for (int rank : group) L.places[static_cast<std::size_t>(rank)].federated_group = l;
      L.federated_groups.push_back(group);
    }
  }
  return L;
}

}  // namespace gfn::compat
