#pragma once
// Per-agent exploration strategies (spawn.random_strategies; docs/spawn.md "Spawn policies";
// torchgfn tutorials/examples/train_hypergrid.py draws each agent's exploration parameters
// at random in its multinode runs): an agent's epsilon, temperature and NoisyNet sigma_0
// drawn from normal distributions around the configured means, clamped to valid ranges;
// its agent group's number of noisy layers drawn uniformly up to the configured one.
// Pure and deterministic: the same (options, seed, draw) gives the same strategy
// (std::mt19937_64 and std::normal_distribution of this standard library). Thread-safe.

#include <cstdint>

#include "runtime/distributed/spawn/options.h"
#include "runtime/gfn/options.h"

namespace gfn::dist::spawn {

/// One agent's exploration parameters.
struct AgentStrategy {
  double epsilon = 0.0;         ///< [0, 1]
  double temperature = 1.0;     ///< [0.05, 20]
  double noisy_std_init = 0.1;  ///< [1e-3, 10]; used by noisy layers (model.n_noisy_layers)
};

/// The configured strategy (the means), unchanged: train.epsilon, train.temperature,
/// model.noisy_std_init.
AgentStrategy configured_strategy(const core::TrainOptions& train, const core::ModelOptions& model);

/// Draw number `draw` (0 at start, k after the k-th respawn) of the agent seeded with `seed`
/// (train.seed + rank): each parameter ~ Normal(mean, spawn.*_std), clamped as above. With
/// every std 0 it is configured_strategy().
AgentStrategy draw_strategy(const SpawnOptions& spawn, const core::TrainOptions& train,
                            const core::ModelOptions& model, std::uint64_t seed, std::int64_t draw);

/// spawn.random_strategies: the number of noisy layers of an agent group's PF network,
/// uniform on 0..model.n_noisy_layers, drawn ONCE PER AGENT GROUP from `group_seed` (the
/// trainer passes train.seed + the group's lowest global rank): every member draws the same
/// count, so the members' parameters keep one layout for model averaging and the spawn
/// policies' combinations, while groups differ (torchgfn's train_hypergrid.py also draws the
/// count per agent group). Not redrawn on respawn: a replaced member keeps its group's
/// layout. Deterministic; model.n_noisy_layers = 0 gives 0.
int draw_group_noisy_layers(const core::ModelOptions& model, std::uint64_t group_seed);

}  // namespace gfn::dist::spawn
