// SelectiveSyncPolicy (roles/trainer/spawn/selective_sync.h).
#include "roles/trainer/spawn/selective_sync.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "roles/trainer/spawn/spawn_state.h"
#include "runtime/distributed/spawn/combine.h"
#include "runtime/distributed/spawn/decision.h"
#include "transport/transport.h"

namespace gfn::roles {

SelectiveSyncPolicy::SelectiveSyncPolicy(const roles::ExperimentConfig& config, SpawnAgent agent)
    : options_(config.spawn), every_(config.train.average_every), agent_(std::move(agent)) {}

bool SelectiveSyncPolicy::after_step(std::int64_t iteration) {
  if (iteration % every_ != 0) return false;
  const auto& event = step(iteration, agent_.metric());
  if (event.replaced_any && agent_.agents->rank() == 0) {
    spdlog::info("spawn at iteration {}: agents {} replaced by {} (weights {:.3f}), metrics {:.4g}",
                 iteration, fmt::join(event.replaced, ","), fmt::join(event.donors, ","),
                 fmt::join(event.weights, ","), fmt::join(event.metrics, ","));
  }
  return true;
}

const SpawnEvent& SelectiveSyncPolicy::step(std::int64_t iteration, double local_metric) {
  auto& agents = *agent_.agents;
  SpawnEvent event;
  event.iteration = iteration;
  event.metrics.assign(static_cast<std::size_t>(agents.size()), 0.0);
  agents.all_gather(&local_metric, 1, transport::DType::kFloat64, event.metrics.data());
  const auto decision = dist::spawn::decide(event.metrics, iteration, last_replacement_, options_);
  event.skipped = decision.skipped;
  if (decision.replace) {
    const auto& ranks = agents.global_ranks();
    event.replaced_any = true;
    for (int r : decision.replaced) event.replaced.push_back(ranks[static_cast<std::size_t>(r)]);
    for (int r : decision.donors) {
      event.donors.push_back(ranks[static_cast<std::size_t>(r)]);
      event.weights.push_back(decision.weights[static_cast<std::size_t>(r)]);
    }
    last_replacement_ = iteration;
    const bool me = dist::spawn::is_replaced(decision, agents.rank());
    const auto& hooks = agent_.hooks;
    if (me && hooks.on_respawn) hooks.on_respawn(times_replaced_ + 1);
    if (options_.strategy == dist::spawn::SpawnStrategy::kResetWeights) {
      if (me) hooks.reinitialize(agent_.seed + 1000003ULL * static_cast<std::uint64_t>(iteration));
    } else {
      dist::spawn::combine_donors(agent_.parameters, decision, options_.momentum, agents);
    }
    if (me) {
      if (hooks.after_replace) hooks.after_replace();
      ++times_replaced_;
    }
  }
  events_.push_back(std::move(event));
  return events_.back();
}

std::string SelectiveSyncPolicy::save_state(std::int64_t) { return encode_spawn_state(state()); }

void SelectiveSyncPolicy::restore_state(const std::string& bytes, std::int64_t) {
  SpawnState saved = decode_spawn_state(bytes);
  if (agent_.hooks.on_restore) agent_.hooks.on_restore(saved.times_replaced);
  restore(std::move(saved));
}

SpawnState SelectiveSyncPolicy::state() const {
  return {times_replaced_, last_replacement_, events_};
}

void SelectiveSyncPolicy::restore(SpawnState state) {
  times_replaced_ = state.times_replaced;
  last_replacement_ = state.last_replacement;
  events_ = std::move(state.events);
}

}  // namespace gfn::roles
