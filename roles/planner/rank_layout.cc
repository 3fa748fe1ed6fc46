#include "roles/planner/rank_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace gfn::roles {
namespace {

// One node: its hostname and its non-coordinator ranks, ascending.
struct Node {
  std::string host;
  std::vector<int> ranks;
};

std::string describe(const LayoutRequest& r) {
  return fmt::format(
      "world_size={}, num_buffers={}, num_agent_groups={}, coordinator={}, "
      "placement='{}'",
      r.world_size, r.num_buffers, r.num_agent_groups, r.coordinator,
      config::enum_name(r.placement));
}

[[noreturn]] void fail(const LayoutRequest& r, const std::string& why) {
  throw LayoutError(fmt::format("cannot plan rank layout ({}): {}", describe(r), why));
}

// Splits `n` items into `parts` consecutive chunks, sizes ceil/floor (larger first).
std::vector<int> chunk_sizes(int n, int parts) {
  std::vector<int> sizes(parts, n / parts);
  for (int i = 0; i < n % parts; ++i) ++sizes[i];
  return sizes;
}

// Nodes in order of first appearance, over the non-coordinator ranks [0, n).
std::vector<Node> group_by_node(const std::vector<std::string>& hostnames, int n) {
  std::vector<Node> nodes;
  std::map<std::string, std::size_t> index;
  for (int rank = 0; rank < n; ++rank) {
    auto [it, inserted] = index.emplace(hostnames[rank], nodes.size());
    if (inserted) nodes.push_back(Node{hostnames[rank], {}});
    nodes[it->second].ranks.push_back(rank);
  }
  return nodes;
}

// Splits `ranks` into sub-groups of ceil/floor sizes; the last rank of each sub-group
// is its manager, the others its trainers (appended in order).
void place_subgroups(const std::vector<int>& ranks, int num_subgroups, std::vector<int>& trainers,
                     std::vector<int>& managers, std::vector<std::vector<int>>& members) {
  std::size_t next = 0;
  for (int size : chunk_sizes(static_cast<int>(ranks.size()), num_subgroups)) {
    std::vector<int> mine(ranks.begin() + next, ranks.begin() + next + size - 1);
    trainers.insert(trainers.end(), mine.begin(), mine.end());
    managers.push_back(ranks[next + size - 1]);
    members.push_back(std::move(mine));
    next += size;
  }
}

/// "1 trainer", "2 trainers".
std::string count_of(int n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// "needs at least 5 ranks: 2 trainers + 2 managers + coordinator": the smallest world that
/// fits the request's managers, agent groups and coordinator (trainers: at least one, at
/// least one per manager, a multiple of the agent groups).
std::string smallest_world(const LayoutRequest& r) {
  const int g = r.num_agent_groups;
  const int trainers = (std::max(1, r.num_buffers) + g - 1) / g * g;
  std::string parts = count_of(trainers, "trainer");
  if (r.num_buffers > 0) parts += " + " + count_of(r.num_buffers, "manager");
  if (r.coordinator) parts += " + coordinator";
  return fmt::format("the layout as configured needs at least {} ranks: {}",
                     trainers + r.num_buffers + (r.coordinator ? 1 : 0), parts);
}

/// Refuses a world whose trainers (what the managers and the coordinator leave) are none,
/// fewer than the managers or not divisible into the agent groups, naming the world sizes
/// that fit.
void check_counts(const LayoutRequest& req) {
  const int num_coordinators = req.coordinator ? 1 : 0;
  const int num_trainers = req.world_size - req.num_buffers - num_coordinators;
  if (num_trainers <= 0) {
    fail(req,
         fmt::format("world too small: {} rank(s) leave {} trainers after {} buffer manager(s) "
                     "and {} coordinator(s); at least one trainer is needed; {}",
                     req.world_size, num_trainers, req.num_buffers, num_coordinators,
                     smallest_world(req)));
  }
  if (req.num_buffers > num_trainers) {
    fail(req, fmt::format("{} buffer managers for {} trainers: every manager needs at least one "
                          "trainer; {}",
                          req.num_buffers, num_trainers, smallest_world(req)));
  }
  const int g = req.num_agent_groups;
  if (num_trainers % g != 0) {
    // The nearest trainer counts that split evenly: below (if enough for the managers), above.
    const int below = num_trainers / g * g;
    const int above = below + g;
    const int others = req.num_buffers + num_coordinators;
    const std::string fits = below >= std::max(1, req.num_buffers)
                                 ? fmt::format("{} or {} ranks", below + others, above + others)
                                 : fmt::format("{} ranks", above + others);
    fail(req, fmt::format("{} trainers cannot be split into {} equal agent groups: a world of {} "
                          "fits (trainers a multiple of {})",
                          num_trainers, g, fits, g));
  }
}

}  // namespace

std::string to_string(Role role) {
  switch (role) {
    case Role::kTrainer:
      return "trainer";
    case Role::kBufferManager:
      return "manager";
    case Role::kCoordinator:
      return "coordinator";
  }
  return "unknown";
}

RankLayout plan_layout(const LayoutRequest& req) {
  if (req.world_size < 1) fail(req, "world_size must be >= 1");
  if (req.num_buffers < 0) fail(req, "num_buffers must be >= 0");
  if (req.num_agent_groups < 1) fail(req, "num_agent_groups must be >= 1");
  if (!req.hostnames.empty() && static_cast<int>(req.hostnames.size()) != req.world_size) {
    fail(req, fmt::format("{} hostnames given, expected one per rank ({})", req.hostnames.size(),
                          req.world_size));
  }
  check_counts(req);
  const int num_coordinators = req.coordinator ? 1 : 0;
  const int num_trainers = req.world_size - req.num_buffers - num_coordinators;
  if (req.placement == Placement::kHostname && req.hostnames.empty()) {
    fail(req, "placement 'hostname' needs the hostname of every rank, none were given");
  }

  const int non_coord = req.world_size - num_coordinators;  // ranks [0, non_coord)
  std::vector<Node> nodes;
  bool by_host = false;
  if (req.placement != Placement::kArithmetic && !req.hostnames.empty()) {
    nodes = group_by_node(req.hostnames, non_coord);
    const int num_nodes = static_cast<int>(nodes.size());
    by_host = req.num_buffers % num_nodes == 0;
    if (!by_host && req.placement == Placement::kHostname) {
      fail(req,
           fmt::format("hostname placement needs num_buffers divisible by the number of "
                       "nodes, but there are {} nodes ({})",
                       num_nodes,
                       fmt::join(req.hostnames.begin(), req.hostnames.begin() + non_coord, ",")));
    }
  }

  RankLayout layout;
  layout.roles_.assign(req.world_size, Role::kTrainer);
  layout.assigned_buffer_.assign(req.world_size, -1);
  layout.assigned_trainers_.assign(req.world_size, {});
  layout.agent_group_id_.assign(req.world_size, 0);
  layout.hostnames_ = req.hostnames;
  layout.placement_ = by_host ? Placement::kHostname : Placement::kArithmetic;

  std::vector<std::vector<int>> members;  // members[i] = trainers of buffer_ranks_[i]
  if (by_host) {
    const int per_node = req.num_buffers / static_cast<int>(nodes.size());
    for (const Node& node : nodes) {
      if (per_node > 0 && static_cast<int>(node.ranks.size()) < 2 * per_node) {
        fail(req, fmt::format("node '{}' has {} non-coordinator rank(s) ({}), but {} buffer "
                              "manager(s) per node need at least {} (one trainer and one manager "
                              "each)",
                              node.host, node.ranks.size(), fmt::join(node.ranks, ","), per_node,
                              2 * per_node));
      }
      if (per_node == 0) {
        layout.trainer_ranks_.insert(layout.trainer_ranks_.end(), node.ranks.begin(),
                                     node.ranks.end());
      } else {
        place_subgroups(node.ranks, per_node, layout.trainer_ranks_, layout.buffer_ranks_, members);
      }
    }
  } else if (req.num_buffers == 0) {
    for (int rank = 0; rank < non_coord; ++rank) layout.trainer_ranks_.push_back(rank);
  } else {
    // [t t t M][t t M]: chunk i holds ceil/floor(num_trainers / num_buffers) trainers.
    int next = 0;
    for (int size : chunk_sizes(num_trainers, req.num_buffers)) {
      std::vector<int> chunk(size + 1);
      std::iota(chunk.begin(), chunk.end(), next);
      place_subgroups(chunk, 1, layout.trainer_ranks_, layout.buffer_ranks_, members);
      next += size + 1;
    }
  }

  for (std::size_t i = 0; i < layout.buffer_ranks_.size(); ++i) {
    const int manager = layout.buffer_ranks_[i];
    layout.roles_[manager] = Role::kBufferManager;
    std::sort(members[i].begin(), members[i].end());
    for (int t : members[i]) layout.assigned_buffer_[t] = manager;
    layout.assigned_trainers_[manager] = members[i];
  }
  if (req.coordinator) {
    layout.coordinator_rank_ = req.world_size - 1;
    layout.roles_[layout.coordinator_rank_] = Role::kCoordinator;
  }

  const int group_size = num_trainers / req.num_agent_groups;
  for (int g = 0; g < req.num_agent_groups; ++g) {
    auto first = layout.trainer_ranks_.begin() + g * group_size;
    layout.agent_groups_.emplace_back(first, first + group_size);
    for (auto it = first; it != first + group_size; ++it) layout.agent_group_id_[*it] = g;
  }
  for (int manager : layout.buffer_ranks_) {
    layout.agent_group_id_[manager] =
        layout.agent_group_id_[layout.assigned_trainers_[manager].front()];
  }
  return layout;
}

void RankLayout::check_rank(int rank) const {
  if (rank < 0 || rank >= world_size()) {
    throw LayoutError(
        fmt::format("rank {} is outside the world (world_size = {})", rank, world_size()));
  }
}

std::string RankLayout::hostname(int rank) const {
  check_rank(rank);
  return hostnames_.empty() ? std::string() : hostnames_[rank];
}

Role RankLayout::role(int rank) const {
  check_rank(rank);
  return roles_[rank];
}

int RankLayout::assigned_buffer(int rank) const {
  check_rank(rank);
  return assigned_buffer_[rank];
}

const std::vector<int>& RankLayout::assigned_trainers(int rank) const {
  check_rank(rank);
  return assigned_trainers_[rank];
}

int RankLayout::agent_group_id(int rank) const {
  check_rank(rank);
  return agent_group_id_[rank];
}

const std::vector<int>& RankLayout::agent_group(int rank) const {
  return agent_groups_[agent_group_id(rank)];
}

std::string RankLayout::summary() const {
  std::string out = fmt::format(
      "rank layout: world_size={} trainers={} buffer_managers={} coordinator={} "
      "agent_groups={} placement={}\n",
      world_size(), num_trainers(), num_buffers(),
      coordinator_rank_ < 0 ? std::string("none") : fmt::format("rank {}", coordinator_rank_),
      num_agent_groups(), config::enum_name(placement_));
  std::size_t host_width = 4;
  for (const auto& h : hostnames_) host_width = std::max(host_width, h.size());
  out += fmt::format("{:>5}  {:<{}}  {:<11}  {:>7}  {:>11}  {}\n", "rank", "host", host_width,
                     "role", "manager", "agent_group", "trainers");
  for (int rank = 0; rank < world_size(); ++rank) {
    const std::string host = hostnames_.empty() ? "-" : hostnames_[rank];
    const std::string manager =
        assigned_buffer_[rank] < 0 ? "-" : std::to_string(assigned_buffer_[rank]);
    const std::string trainers = assigned_trainers_[rank].empty()
                                     ? "-"
                                     : fmt::format("{}", fmt::join(assigned_trainers_[rank], ","));
    out += fmt::format("{:>5}  {:<{}}  {:<11}  {:>7}  {:>11}  {}\n", rank, host, host_width,
                       to_string(roles_[rank]), manager, agent_group_id_[rank], trainers);
  }
  return out;
}

}  // namespace gfn::roles
