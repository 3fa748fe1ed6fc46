#pragma once
// The one place that chooses a spawn policy (roles/trainer/spawn/spawn_policy.h) from the
// configuration. A new policy is its spawn.policy name (runtime/config/options.h), its class
// (one file here) and one line in make_spawn_policy.
//
// Thread-safety: none. Blocking: as the chosen policy's constructor (donor_pull's is
// collective over the agent group).

#include <memory>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/spawn/spawn_agent.h"
#include "roles/trainer/spawn/spawn_policy.h"

namespace gfn::roles {

/// The policy of config.spawn for `agent`:
///   - a group of one: average_all (which then does nothing: nobody to average with or to
///     replace from);
///   - spawn.policy average_all: AverageAllPolicy;
///   - selective: SelectiveSyncPolicy (spawn.mode sync) or SelectiveAsyncPolicy (async);
///   - donor_pull: DonorPullPolicy.
/// Throws std::invalid_argument for combinations it refuses, before any communication:
/// selective or donor_pull with train.average gradients (averaged gradients keep every
/// member identical; the configuration refuses it too), no agent group, and, for a group
/// of more than one, selective or donor_pull without agent.metric, selective async without
/// agent.transport. Throws what the policy's constructor throws (donor_pull on a group that
/// is not an mpi-backend group: transport::TransportError).
std::unique_ptr<SpawnPolicy> make_spawn_policy(const roles::ExperimentConfig& config,
                                               SpawnAgent agent);

}  // namespace gfn::roles
