#include "runtime/compat/sharding_topology.h"

#include <fmt/format.h>

#include <numeric>

#include "runtime/compat/topology_errors.h"

namespace gfn::compat {
namespace {

bool is_whole_world(const RankList& ranks, int world_size) {
  if (static_cast<int>(ranks.size()) != world_size) return false;
  for (int i = 0; i < world_size; ++i) {
    if (ranks[static_cast<std::size_t>(i)] != i) return false;
  }
  return true;
}

}  // namespace

ShardingTopology::ShardingTopology(transport::Transport& transport, TopologyLayout layout)
    : layout_(std::move(layout)), rank_(transport.rank()) {
  if (layout_.world_size != transport.world_size()) {
    throw TopologyError(fmt::format(
        "ShardingTopology: the layout is for a world of {} ranks but the transport has {}",
        layout_.world_size, transport.world_size()));
  }
  const RankPlace& me = place();
  // Creates every group of `lists` (collective), returns this rank's one (index `mine`).
  auto create = [&](const std::vector<RankList>& lists, int mine) -> transport::Group* {
    transport::Group* result = nullptr;
    for (std::size_t i = 0; i < lists.size(); ++i) {
      transport::Group* g = nullptr;
      if (is_whole_world(lists[i], layout_.world_size)) {
        g = &transport.world();
      } else {
        auto owned = transport.new_group(lists[i]);
        if (static_cast<int>(i) != mine) continue;  // not ours: released right away
        owned_.push_back(std::move(owned));
        g = owned_.back().get();
      }
      if (static_cast<int>(i) == mine) result = g;
    }
    return result;
  };
  federation_ = create(layout_.federations, me.federation);
  shard_group_ = create(layout_.shard_groups, me.shard_group);
  replica_group_ = create(layout_.replica_groups, me.replica_group);
  federated_group_ = create(layout_.federated_groups, me.federated_group);
}

ShardingTopology::~ShardingTopology() = default;
ShardingTopology::ShardingTopology(ShardingTopology&&) noexcept = default;
ShardingTopology& ShardingTopology::operator=(ShardingTopology&&) noexcept = default;

}  // namespace gfn::compat
