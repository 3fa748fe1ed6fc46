#include "runtime/distributed/spawn/strategy.h"

#include <algorithm>
#include <random>

namespace gfn::dist::spawn {

AgentStrategy configured_strategy(const core::TrainOptions& train,
                                  const core::ModelOptions& model) {
  return {train.epsilon, train.temperature, model.noisy_std_init};
}

namespace {

/// A generator for one (seed, stream): splitmix-style mixing, so that neighbouring seeds
/// and streams give unrelated sequences.
std::mt19937_64 mixed_generator(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * stream;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return std::mt19937_64(z ^ (z >> 31));
}

}  // namespace

AgentStrategy draw_strategy(const SpawnOptions& spawn, const core::TrainOptions& train,
                            const core::ModelOptions& model, std::uint64_t seed,
                            std::int64_t draw) {
  // One stream per (seed, draw).
  std::mt19937_64 gen = mixed_generator(seed, static_cast<std::uint64_t>(draw + 1));
  const auto normal = [&gen](double mean, double std) {
    if (!(std > 0.0)) return mean;
    return std::normal_distribution<double>(mean, std)(gen);
  };
  AgentStrategy s = configured_strategy(train, model);
  s.epsilon = std::clamp(normal(s.epsilon, spawn.epsilon_std), 0.0, 1.0);
  s.temperature = std::clamp(normal(s.temperature, spawn.temperature_std), 0.05, 20.0);
  s.noisy_std_init = std::clamp(normal(s.noisy_std_init, spawn.noisy_std_init_std), 1e-3, 10.0);
  return s;
}

int draw_group_noisy_layers(const core::ModelOptions& model, std::uint64_t group_seed) {
  if (model.n_noisy_layers <= 0) return 0;
  // Stream 0 is used by no agent draw (those are draw + 1 >= 1).
  std::mt19937_64 gen = mixed_generator(group_seed, 0);
  return std::uniform_int_distribution<int>(0, model.n_noisy_layers)(gen);
}

}  // namespace gfn::dist::spawn
