#include "roles/trainer/spawner.h"

#include <torch/nn/module.h>

#include "roles/trainer/spawn_state.h"
#include "runtime/distributed/spawn/combine.h"
#include "runtime/distributed/spawn/decision.h"
#include "runtime/gfn/learner.h"
#include "transport/transport.h"

namespace gfn::roles {

Spawner::Spawner(const dist::spawn::SpawnOptions& options, core::Learner& learner,
                 transport::Group& agents, std::uint64_t seed,
                 std::function<void(std::int64_t)> on_respawn)
    : options_(options),
      learner_(learner),
      agents_(agents),
      seed_(seed),
      on_respawn_(std::move(on_respawn)) {}

const SpawnEvent& Spawner::step(std::int64_t iteration, double local_metric) {
  SpawnEvent event;
  event.iteration = iteration;
  event.metrics.assign(static_cast<std::size_t>(agents_.size()), 0.0);
  agents_.all_gather(&local_metric, 1, transport::DType::kFloat64, event.metrics.data());
  const auto decision = dist::spawn::decide(event.metrics, iteration, last_replacement_, options_);
  event.skipped = decision.skipped;
  if (decision.replace) {
    const auto& ranks = agents_.global_ranks();
    event.replaced_any = true;
    for (int r : decision.replaced) event.replaced.push_back(ranks[static_cast<std::size_t>(r)]);
    for (int r : decision.donors) {
      event.donors.push_back(ranks[static_cast<std::size_t>(r)]);
      event.weights.push_back(decision.weights[static_cast<std::size_t>(r)]);
    }
    last_replacement_ = iteration;
    const bool me = dist::spawn::is_replaced(decision, agents_.rank());
    if (me && on_respawn_) on_respawn_(times_replaced_ + 1);
    if (options_.strategy == dist::spawn::SpawnStrategy::kResetWeights) {
      if (me) {
        learner_.reinitialize_parameters(seed_ + 1000003ULL * static_cast<std::uint64_t>(iteration),
                                         options_.momentum);
      }
    } else {
      dist::spawn::combine_donors(learner_.model().parameters(), decision, options_.momentum,
                                  agents_);
    }
    if (me) {
      learner_.reset_optimizer_state();
      ++times_replaced_;
    }
  }
  events_.push_back(std::move(event));
  return events_.back();
}

SpawnState Spawner::save_state() const { return {times_replaced_, last_replacement_, events_}; }

void Spawner::restore_state(SpawnState state) {
  times_replaced_ = state.times_replaced;
  last_replacement_ = state.last_replacement;
  events_ = std::move(state.events);
}

}  // namespace gfn::roles
