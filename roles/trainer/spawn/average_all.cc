// AverageAllPolicy (roles/trainer/spawn/average_all.h).
#include "roles/trainer/spawn/average_all.h"

#include "runtime/distributed/model_averaging.h"
#include "transport/transport.h"

namespace gfn::roles {

AverageAllPolicy::AverageAllPolicy(const roles::ExperimentConfig& config, SpawnAgent agent)
    : agent_(std::move(agent)),
      every_(config.train.average_every),
      last_(config.iterations()),
      averaging_(config.train.average == core::TrainAverage::kModels && agent_.agents &&
                 agent_.agents->size() > 1) {}

bool AverageAllPolicy::after_step(std::int64_t iteration) {
  if (!averaging_ || (iteration % every_ != 0 && iteration != last_)) return false;
  dist::average_models(agent_.parameters, *agent_.agents);
  return true;
}

}  // namespace gfn::roles
