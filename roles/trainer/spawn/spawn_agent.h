#pragma once
// What a spawn policy (roles/trainer/spawn/spawn_policy.h) acts on: one member of an agent
// group, its parameters, its local metric and the hooks through which a replacement reaches
// the rest of the trainer. The trainer builds it from its Agent (runtime/gfn/agent.h:
// trainer_spawn_agent);
// tests build it from plain tensors and counters.
//
// Thread-safety: the hooks and the metric run on the trainer's thread, inside the policy's
// calls. Blocking: none here.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "roles/experiment/experiment_config.h"

namespace gfn::core {
class Agent;
}
namespace gfn::transport {
class Group;
class Transport;
}  // namespace gfn::transport

namespace gfn::roles {

class AgentExploration;  // roles/trainer/spawn/exploration.h
class Submitter;         // roles/trainer/submitter.h

/// What a replacement changes on its member besides the parameters. Every hook is optional
/// unless said otherwise.
struct SpawnHooks {
  /// Before a replacement changes the parameters, with the member's replacement count
  /// (1, 2, ...): e.g. redraw its exploration strategy (spawn.random_strategies).
  std::function<void(std::int64_t count)> on_respawn;
  /// spawn.strategy reset_weights: re-initialise the parameters from `seed`, blended by
  /// spawn.momentum. Required for reset_weights.
  std::function<void(std::uint64_t seed)> reinitialize;
  /// After a replacement: restart the optimizer state.
  std::function<void()> after_replace;
  /// On resume, with the replacement count the checkpoint holds: e.g. the exploration
  /// strategy it had drawn (the Learner restored the values themselves).
  std::function<void(std::int64_t count)> on_restore;
};

/// This member's local metric (spawn.metric; higher is better), read at decision points.
using LocalMetric = std::function<double()>;

struct SpawnAgent {
  /// The member's parameters: float32 CPU tensors changed in place (the same count, shapes
  /// and order on every member).
  std::vector<at::Tensor> parameters;
  SpawnHooks hooks;
  transport::Transport* transport = nullptr;  ///< selective async: SPAWN_* messages
  transport::Group* agents = nullptr;         ///< the agent group (this rank a member)
  /// train.seed + global rank: replacements' draws (reset_weights at decision point t
  /// initialises from seed + 1000003 t; donor_pull's donors and maximum ages).
  std::uint64_t seed = 0;
  LocalMetric metric;  ///< required by selective and donor_pull
};

/// spawn.metric as one function, chosen once: score -> the last SCORE's score (0 without a
/// buffer manager), neg_loss -> -(*last_loss), modes_found -> the modes this agent
/// has found (0 without a mode tracker). `submitter` (may be null), `last_loss` and
/// `agent` must outlive the function.
LocalMetric make_local_metric(dist::spawn::SpawnMetric metric, const Submitter* submitter,
                              const double* last_loss, const core::Agent& agent);

/// A trainer's member: `agent`'s parameters; hooks that redraw `exploration`
/// (on_respawn, on_restore), re-initialise the agent (reinitialize, with spawn.momentum)
/// and restart its optimizer (after_replace). Every reference must outlive the agent.
SpawnAgent trainer_spawn_agent(const dist::spawn::SpawnOptions& spawn, core::Agent& learner,
                               AgentExploration& exploration, transport::Transport& transport,
                               transport::Group& agents, std::uint64_t seed, LocalMetric metric);

}  // namespace gfn::roles
