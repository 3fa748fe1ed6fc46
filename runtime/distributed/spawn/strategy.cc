#include "runtime/distributed/spawn/strategy.h"

#include <algorithm>
#include <random>

namespace gfn::dist::spawn {

AgentStrategy configured_strategy(const config::TrainOptions& train,
                                  const config::ModelOptions& model) {
  return {train.epsilon, train.temperature, model.noisy_std_init};
}

AgentStrategy draw_strategy(const config::SpawnOptions& spawn, const config::TrainOptions& train,
                            const config::ModelOptions& model, std::uint64_t seed,
                            std::int64_t draw) {
  // One stream per (seed, draw): splitmix-style mixing so that neighbouring seeds and
  // draws give unrelated streams.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(draw + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  std::mt19937_64 gen(z ^ (z >> 31));
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

}  // namespace gfn::dist::spawn
