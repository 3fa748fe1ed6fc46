#include "runtime/gfn/agent.h"

#include <stdexcept>
#include <string>

#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/plugin_loader.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {

std::unique_ptr<Agent> make_agent(const EnvOptions& env, const ModelOptions& model,
                                  const TrainOptions& train, std::uint64_t seed,
                                  const buffer::ReplayOptions& replay, const EngineOptions& engine,
                                  const LocalSearchOptions& local_search) {
  if (!is_continuous(env)) {  // a catalogued name, or a continuous plugin (plugin_loader.h)
    return std::make_unique<Learner>(env, model, train, seed, replay, engine, local_search);
  }
  const char* key = replay.kind != buffer::ReplayKind::kNone ? "replay.kind"
                    : local_search.loops > 0                 ? "local_search.loops"
                                                             : nullptr;
  if (key != nullptr) {
    throw std::invalid_argument(std::string(key) +
                                ": continuous environments do not support it yet");
  }
  return std::make_unique<ContinuousLearner>(env, model, train, seed, engine, local_search);
}

}  // namespace gfn::core
