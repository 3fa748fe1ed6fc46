#pragma once
// One agent's exploration strategy (spawn.random_strategies; docs/spawn.md "Spawn policies";
// runtime/distributed/spawn/strategy.h): with random strategies each trainer draws its
// epsilon, temperature and NoisyNet sigma_0 around the configured values (draw 0 at the
// start, draw k after its k-th replacement, seeded by train.seed + its rank), and its agent
// group draws one number of noisy layers for every member; otherwise the configured values.
// The Learner is built with train_options() / model_options(); the spawn policy redraws
// through the hooks of roles/trainer/spawn/spawn_agent.h (redraw on a replacement, restore on
// resume); summary.json shows json().
//
// Thread-safety: none. Cost: O(1) per call.

#include <cstdint>
#include <string>

#include "roles/experiment/experiment_config.h"
#include "runtime/distributed/spawn/strategy.h"

namespace gfn::core {
class Agent;
}

namespace gfn::roles {

class AgentExploration {
 public:
  /// `seed`: train.seed + this trainer's global rank; `group_seed`: train.seed + the lowest
  /// global rank of its agent group.
  AgentExploration(const roles::ExperimentConfig& config, std::uint64_t seed,
                   std::uint64_t group_seed);

  /// config.train with this agent's epsilon and temperature.
  core::TrainOptions train_options() const;
  /// config.model with this agent's sigma_0 and its group's number of noisy layers.
  core::ModelOptions model_options() const;

  /// After the agent's `draw`-th replacement: draws again and applies it to `agent`
  /// (epsilon, temperature, sigma_0). Nothing without random strategies.
  void redraw(core::Agent& agent, std::int64_t draw);
  /// Resume: the strategy of draw `draw` (the Learner restored its values). Nothing without
  /// random strategies.
  void restore(std::int64_t draw);

  /// "trainer rank R strategy: ..." at the start, with random strategies only.
  void log_start(int rank) const;
  /// summary.json "spawn" agents[].strategy: epsilon, temperature, n_noisy_layers,
  /// noisy_std_init, random (a JSON object as text).
  std::string json() const;

 private:
  dist::spawn::SpawnOptions spawn_;
  core::TrainOptions train_;
  core::ModelOptions model_;
  std::uint64_t seed_;
  dist::spawn::AgentStrategy strategy_;
  int n_noisy_layers_;
};

}  // namespace gfn::roles
