// make_local_metric and trainer_spawn_agent (roles/trainer/spawn/spawn_agent.h).
#include "roles/trainer/spawn/spawn_agent.h"

#include <torch/nn/module.h>

#include "roles/trainer/spawn/exploration.h"
#include "roles/trainer/submitter.h"
#include "runtime/gfn/agent.h"

namespace gfn::roles {

LocalMetric make_local_metric(dist::spawn::SpawnMetric metric, const Submitter* submitter,
                              const double* last_loss, const core::Agent& agent) {
  switch (metric) {
    case dist::spawn::SpawnMetric::kScore:
      return [submitter] { return submitter ? submitter->last_score().score : 0.0; };
    case dist::spawn::SpawnMetric::kNegLoss:
      return [last_loss] { return -*last_loss; };
    case dist::spawn::SpawnMetric::kModesFound:
      return [&agent] {
        const auto* modes = agent.mode_tracker();
        return modes ? static_cast<double>(modes->n_found()) : 0.0;
      };
  }
  return [] { return 0.0; };
}

SpawnAgent trainer_spawn_agent(const dist::spawn::SpawnOptions& spawn, core::Agent& learner,
                               AgentExploration& exploration, transport::Transport& transport,
                               transport::Group& agents, std::uint64_t seed, LocalMetric metric) {
  SpawnAgent agent;
  agent.parameters = learner.module().parameters();
  agent.hooks.on_respawn = [&exploration, &learner](std::int64_t count) {
    exploration.redraw(learner, count);
  };
  agent.hooks.reinitialize = [&learner, momentum = spawn.momentum](std::uint64_t s) {
    learner.reinitialize_parameters(s, momentum);
  };
  agent.hooks.after_replace = [&learner] { learner.reset_optimizer_state(); };
  agent.hooks.on_restore = [&exploration](std::int64_t count) { exploration.restore(count); };
  agent.transport = &transport;
  agent.agents = &agents;
  agent.seed = seed;
  agent.metric = std::move(metric);
  return agent;
}

}  // namespace gfn::roles
