#pragma once
// Distributed context of one rank (docs/architecture.md; torchgfn's
// DistributedContext / initialize_distributed_compute): the transport, the role
// layout, this rank's role and peers, and the process groups it belongs to.
//
// Setup order guarantees that an impossible layout is refused before any
// communication: the layout is planned from the launch environment first (pure),
// the transport is created only if that succeeds.

#include <memory>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/planner/rank_layout.h"
#include "runtime/launch/launch_env.h"
#include "transport/transport.h"

namespace gfn::roles {

class DistributedContext {
 public:
  /// `launch` is this process's rendezvous, resolved once with the experiment's explicit
  /// values first (launch::detect_launch_env(config.launch), runtime/launch).
  /// Plans the layout for `launch.world_size` ranks (throws LayoutError before any
  /// communication), creates the transport of `config.transport.backend` at the
  /// rendezvous of `launch` (runtime/launch/rendezvous.h), and —
  /// for hostname placement — gathers every rank's hostname (runtime/launch
  /// local_hostname(), overridable with GFN_HOSTNAME) and re-plans. Then creates
  /// the trainer group and every agent group (collective over WORLD).
  /// Blocking and collective over every rank. Not thread-safe.
  /// Throws LayoutError, transport::TransportError.
  DistributedContext(const roles::ExperimentConfig& config, const launch::LaunchEnv& launch);
  ~DistributedContext();
  DistributedContext(const DistributedContext&) = delete;
  DistributedContext& operator=(const DistributedContext&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  Role role() const { return layout_.role(rank_); }
  bool is_training_rank() const { return role() == Role::kTrainer; }
  bool is_buffer_rank() const { return role() == Role::kBufferManager; }
  bool is_coordinator_rank() const { return role() == Role::kCoordinator; }
  const RankLayout& layout() const { return layout_; }

  transport::Transport& transport() { return *transport_; }
  /// All ranks.
  transport::Group& world() { return transport_->world(); }
  /// All trainer ranks (rank() == -1 on other ranks).
  transport::Group& trainer_group() { return *trainer_group_; }
  /// This trainer's agent group, the group it averages within (on non-trainers: a
  /// group this rank is not a member of).
  transport::Group& agent_group() { return *agent_groups_.at(layout_.agent_group_id(rank_)); }

  /// Destroys the groups and the transport (finalizing MPI if it started it).
  /// Idempotent; called by the destructor.
  void cleanup();

 private:
  int rank_ = 0;
  int world_size_ = 1;
  RankLayout layout_;
  std::unique_ptr<transport::Transport> transport_;
  std::unique_ptr<transport::Group> trainer_group_;
  std::vector<std::unique_ptr<transport::Group>> agent_groups_;
};

/// Plans the layout that `config` asks for on `world_size` ranks (pure; throws
/// LayoutError naming the problem). Without `hostnames`, "hostname" placement is
/// checked for its counts only (arithmetic placement), as hostnames need communication.
RankLayout plan_from_config(const roles::ExperimentConfig& config, int world_size,
                            const std::vector<std::string>& hostnames = {});

/// Whether the layout `config` asks for on `world_size` ranks depends on the ranks' hostnames
/// (placement "hostname" or "auto" with buffer managers): then the plan made before any
/// communication gives the counts only, and a rank's role is known once the context has
/// gathered the hostnames (DistributedContext::layout).
bool plan_uses_hostnames(const roles::ExperimentConfig& config, int world_size);

}  // namespace gfn::roles
