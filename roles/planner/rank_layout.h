#pragma once
// The role planner (README "Layouts"): a pure function from the shape of the
// world to a layout of trainer, buffer-manager and coordinator ranks. No
// communication happens here: every rank computes the same layout from the same
// request, and every impossible request is refused before any process group is
// created.
//
// Follows torchgfn's RankLayout (gfn/utils/distributed.py): trainers are split
// into one chunk per replay-buffer manager, each chunk followed by its manager
// (`[t t t M][t t M]`), managers are kept node-local when the hostnames allow it,
// the optional coordinator is the top rank, and trainers are split into equal
// agent groups (model averaging happens within an agent group).

#include <stdexcept>
#include <string>
#include <vector>

#include "roles/planner/layout_options.h"

namespace gfn::roles {

/// Thrown by plan_layout (and by queries with a rank outside the world) for a
/// request that cannot be laid out. The message says what was asked and why it
/// cannot work.
class LayoutError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// What the job asks for. Mirrors the YAML `layout:` section plus the world size
/// and, optionally, the hostname of every rank (gathered by the caller).
struct LayoutRequest {
  int world_size = 1;        ///< number of ranks (>= 1)
  int num_buffers = 0;       ///< replay-buffer manager ranks (>= 0)
  int num_agent_groups = 1;  ///< trainers are split into this many averaging groups (>= 1)
  bool coordinator = false;  ///< the top rank (world_size - 1) becomes the coordinator
  Placement placement = Placement::kAuto;  ///< YAML layout.placement
  /// Empty, or exactly one hostname per rank (index = global rank).
  std::vector<std::string> hostnames;
};

enum class Role { kTrainer, kBufferManager, kCoordinator };

/// "trainer", "manager" or "coordinator" (the tag used in log lines).
std::string to_string(Role role);

/// The planned layout. Immutable value; all queries are O(1) or O(size of the
/// returned list) and thread-safe. Ranks are global ranks 0 .. world_size-1;
/// queries with a rank outside the world throw LayoutError.
class RankLayout {
 public:
  int world_size() const { return static_cast<int>(roles_.size()); }
  int num_trainers() const { return static_cast<int>(trainer_ranks_.size()); }
  int num_buffers() const { return static_cast<int>(buffer_ranks_.size()); }

  /// Trainer ranks in placement order: ascending for arithmetic placement; node by
  /// node (nodes in order of first appearance), sub-group by sub-group for hostname
  /// placement. Agent groups are consecutive slices of this list.
  const std::vector<int>& trainer_ranks() const { return trainer_ranks_; }
  /// Buffer-manager ranks in placement order (manager i serves chunk / sub-group i).
  const std::vector<int>& buffer_ranks() const { return buffer_ranks_; }
  /// The coordinator's rank (world_size - 1), or -1 if the job has none.
  int coordinator_rank() const { return coordinator_rank_; }
  /// Agent groups: group i = trainer_ranks()[i*g : (i+1)*g], g = num_trainers / num_agent_groups.
  const std::vector<std::vector<int>>& agent_groups() const { return agent_groups_; }
  int num_agent_groups() const { return static_cast<int>(agent_groups_.size()); }

  /// kArithmetic or kHostname: the placement actually used (kAuto resolved).
  Placement placement() const { return placement_; }
  /// Hostname of `rank` as given in the request, or "" if none were given.
  std::string hostname(int rank) const;

  Role role(int rank) const;
  bool is_trainer(int rank) const { return role(rank) == Role::kTrainer; }
  bool is_buffer_manager(int rank) const { return role(rank) == Role::kBufferManager; }
  bool is_coordinator(int rank) const { return role(rank) == Role::kCoordinator; }

  /// For a trainer: the rank of its buffer manager, or -1 when the job has no
  /// buffers. For managers and the coordinator: -1.
  int assigned_buffer(int rank) const;
  /// For a buffer manager: its trainers, ascending (need not be contiguous). For
  /// trainers and the coordinator: empty.
  const std::vector<int>& assigned_trainers(int rank) const;
  /// Index into agent_groups(), valid for every rank. For a trainer: the group it
  /// averages with. For a buffer manager: the group of its first assigned trainer
  /// (the group it mostly serves). For the coordinator: 0. Only trainers are
  /// members of agent groups.
  int agent_group_id(int rank) const;
  /// agent_groups()[agent_group_id(rank)].
  const std::vector<int>& agent_group(int rank) const;

  /// A readable multi-line table: one header with the counts and placement, then
  /// one row per rank (rank, host, role, manager, trainers, agent group).
  std::string summary() const;

 private:
  friend RankLayout plan_layout(const LayoutRequest& request);
  void check_rank(int rank) const;

  std::vector<Role> roles_;
  std::vector<int> trainer_ranks_;
  std::vector<int> buffer_ranks_;
  int coordinator_rank_ = -1;
  std::vector<int> assigned_buffer_;                 // per rank
  std::vector<std::vector<int>> assigned_trainers_;  // per rank
  std::vector<int> agent_group_id_;                  // per rank
  std::vector<std::vector<int>> agent_groups_;
  std::vector<std::string> hostnames_;
  Placement placement_ = Placement::kArithmetic;
};

/// Plans the layout of `request` (pure, deterministic, no communication).
///
/// - num_trainers = world_size - num_buffers - (coordinator ? 1 : 0), must be > 0.
/// - No buffers: every non-coordinator rank is a trainer (ordered node by node
///   when hostnames are given and placement is not "arithmetic").
/// - Arithmetic placement: trainers are split into num_buffers chunks of sizes
///   ceil/floor (5 trainers, 2 buffers -> 3, 2), each chunk followed by its
///   manager: `[t t t M][t t M]`. Requires num_buffers <= num_trainers.
/// - Hostname placement (placement "auto" or "hostname", hostnames given, and
///   num_buffers % num_nodes == 0, nodes in order of first appearance, counting
///   only nodes that host a non-coordinator rank): each node's non-coordinator
///   ranks are split into num_buffers / num_nodes sub-groups (ceil/floor sizes),
///   the last rank of each sub-group is its manager, so managers are node-local.
///   A node with fewer than 2 * (num_buffers / num_nodes) such ranks is an error.
///   When the divisibility fails, "auto" falls back to arithmetic placement and
///   "hostname" is an error.
/// - The coordinator is rank world_size - 1, removed by identity.
/// - num_trainers % num_agent_groups == 0.
/// Throws LayoutError for every impossible request.
RankLayout plan_layout(const LayoutRequest& request);

}  // namespace gfn::roles
