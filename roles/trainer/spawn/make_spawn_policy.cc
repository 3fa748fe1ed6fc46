// make_spawn_policy (roles/trainer/spawn/make_spawn_policy.h).
#include "roles/trainer/spawn/make_spawn_policy.h"

#include <fmt/format.h>

#include <stdexcept>

#include "roles/trainer/spawn/average_all.h"
#include "roles/trainer/spawn/donor_pull.h"
#include "roles/trainer/spawn/selective_async.h"
#include "roles/trainer/spawn/selective_sync.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

void refuse(const std::string& why) { throw std::invalid_argument("spawn policy: " + why); }

/// The refusals of make_spawn_policy (see the header).
void check(const roles::ExperimentConfig& config, const SpawnAgent& agent) {
  const auto policy = config.spawn.policy;
  const char* name = config::enum_name(policy);
  if (policy != dist::spawn::SpawnPolicy::kAverageAll &&
      config.train.average == core::TrainAverage::kGradients) {
    refuse(
        fmt::format("spawn.policy = {} needs train.average = models (averaged gradients keep "
                    "every agent identical)",
                    name));
  }
  if (!agent.agents) refuse("no agent group");
  if (agent.agents->size() <= 1 || policy == dist::spawn::SpawnPolicy::kAverageAll) return;
  if (!agent.metric) refuse(fmt::format("spawn.policy = {} needs the agent's metric", name));
  if (policy == dist::spawn::SpawnPolicy::kSelective &&
      config.spawn.mode == dist::spawn::SpawnMode::kAsync && !agent.transport) {
    refuse("spawn.policy = selective with spawn.mode = async needs the agent's transport");
  }
}

}  // namespace

std::unique_ptr<SpawnPolicy> make_spawn_policy(const roles::ExperimentConfig& config,
                                               SpawnAgent agent) {
  check(config, agent);
  if (agent.agents->size() <= 1) return std::make_unique<AverageAllPolicy>(config, agent);
  switch (config.spawn.policy) {
    case dist::spawn::SpawnPolicy::kAverageAll:
      return std::make_unique<AverageAllPolicy>(config, std::move(agent));
    case dist::spawn::SpawnPolicy::kSelective:
      if (config.spawn.mode == dist::spawn::SpawnMode::kAsync) {
        return std::make_unique<SelectiveAsyncPolicy>(config, std::move(agent));
      }
      return std::make_unique<SelectiveSyncPolicy>(config, std::move(agent));
    case dist::spawn::SpawnPolicy::kDonorPull:
      return std::make_unique<DonorPullPolicy>(config, std::move(agent));
  }
  throw std::invalid_argument(
      fmt::format("spawn policy: unknown spawn.policy {}", static_cast<int>(config.spawn.policy)));
}

}  // namespace gfn::roles
