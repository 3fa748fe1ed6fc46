// AgentExploration (roles/trainer/spawn/exploration.h).
#include "roles/trainer/spawn/exploration.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "runtime/gfn/agent.h"

namespace gfn::roles {

AgentExploration::AgentExploration(const roles::ExperimentConfig& config, std::uint64_t seed,
                                   std::uint64_t group_seed)
    : spawn_(config.spawn),
      train_(config.train),
      model_(config.model),
      seed_(seed),
      strategy_(config.spawn.random_strategies
                    ? dist::spawn::draw_strategy(config.spawn, config.train, config.model, seed, 0)
                    : dist::spawn::configured_strategy(config.train, config.model)),
      // The same for every member of the group, so that their parameters combine.
      n_noisy_layers_(config.spawn.random_strategies
                          ? dist::spawn::draw_group_noisy_layers(config.model, group_seed)
                          : config.model.n_noisy_layers) {}

core::TrainOptions AgentExploration::train_options() const {
  core::TrainOptions train = train_;
  train.epsilon = strategy_.epsilon;
  train.temperature = strategy_.temperature;
  return train;
}

core::ModelOptions AgentExploration::model_options() const {
  core::ModelOptions model = model_;
  model.noisy_std_init = strategy_.noisy_std_init;
  model.n_noisy_layers = n_noisy_layers_;
  return model;
}

void AgentExploration::redraw(core::Agent& agent, std::int64_t draw) {
  if (!spawn_.random_strategies) return;
  strategy_ = dist::spawn::draw_strategy(spawn_, train_, model_, seed_, draw);
  agent.set_exploration({strategy_.epsilon, strategy_.temperature, strategy_.noisy_std_init});
}

void AgentExploration::restore(std::int64_t draw) {
  if (!spawn_.random_strategies) return;
  strategy_ = dist::spawn::draw_strategy(spawn_, train_, model_, seed_, draw);
}

void AgentExploration::log_start(int rank) const {
  if (!spawn_.random_strategies) return;
  spdlog::info(
      "trainer rank {} strategy: epsilon {:.4f}, temperature {:.4f}, noisy sigma_0 {:.4f}, "
      "{} noisy layer(s) (its agent group's)",
      rank, strategy_.epsilon, strategy_.temperature, strategy_.noisy_std_init, n_noisy_layers_);
}

std::string AgentExploration::json() const {
  const nlohmann::json j = {{"epsilon", strategy_.epsilon},
                            {"temperature", strategy_.temperature},
                            {"n_noisy_layers", n_noisy_layers_},
                            {"noisy_std_init", strategy_.noisy_std_init},
                            {"random", spawn_.random_strategies}};
  return j.dump();
}

}  // namespace gfn::roles
