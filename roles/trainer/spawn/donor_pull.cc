// DonorPullPolicy (roles/trainer/spawn/donor_pull.h).
#include "roles/trainer/spawn/donor_pull.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "roles/trainer/spawn/spawn_state.h"
#include "runtime/distributed/spawn/async_rounds.h"
#include "runtime/distributed/spawn/combine.h"
#include "runtime/distributed/spawn/decision.h"
#include "runtime/distributed/spawn/donor_pull.h"
#include "transport/parameter_window.h"
#include "transport/transport.h"

namespace gfn::roles {

namespace {

SpawnAgent checked(SpawnAgent agent) {
  if (!agent.agents) throw std::invalid_argument("donor_pull: the agent needs an agent group");
  return agent;
}

}  // namespace

DonorPullPolicy::DonorPullPolicy(const roles::ExperimentConfig& config, SpawnAgent agent)
    : options_(config.spawn),
      every_(config.train.average_every),
      agent_(checked(std::move(agent))),
      parameters_(agent_.parameters),
      agents_(*agent_.agents),
      seed_(agent_.seed),
      hooks_(agent_.hooks) {
  for (const auto& t : parameters_) model_size_ += t.numel();
  max_age_ = dist::spawn::draw_max_age(options_, seed_, 0);
  staging_.assign(kHeader + static_cast<std::size_t>(model_size_), 0.f);
  window_ = transport::make_parameter_window(agents_, staging_.size());
  expose(0, 0.0);
  agents_.barrier();  // every window holds real parameters before anyone reads
}

DonorPullPolicy::~DonorPullPolicy() = default;  // the window's destructor closes it if needed

void DonorPullPolicy::expose(std::int64_t iteration, double metric) {
  const at::Tensor flat = dist::spawn::flatten_parameters(parameters_);
  staging_[0] = static_cast<float>(iteration);
  staging_[1] = static_cast<float>(metric);
  std::copy_n(flat.data_ptr<float>(), model_size_, staging_.begin() + kHeader);
  window_->expose(staging_.data());
}

bool DonorPullPolicy::dying(SpawnEvent& event, double metric) {
  const int n = agents_.size();
  const int me = agents_.rank();
  event.metrics.assign(static_cast<std::size_t>(n), 0.0);
  event.metrics[static_cast<std::size_t>(me)] = metric;
  dist::spawn::DyingInput in;
  in.iteration = event.iteration;
  in.last_respawn = last_respawn_;
  in.max_age = max_age_;
  in.metric = metric;
  in.group_rank = me;
  if (options_.replacement_mode == dist::spawn::SpawnReplacementMode::kWorstRatio && n > 1) {
    for (int r = 0; r < n; ++r) {  // the others' exposed metrics, without their participation
      if (r == me) continue;
      float m = 0.f;
      window_->read(r, 1, 1, &m);
      event.metrics[static_cast<std::size_t>(r)] = m;
    }
    in.group_metrics = event.metrics;
  }
  return dist::spawn::is_dying(in, n, options_);
}

void DonorPullPolicy::pull(SpawnEvent& event) {
  const auto donors = dist::spawn::draw_donors(agents_.size(), agents_.rank(), options_.num_donors,
                                               seed_, times_replaced_ + 1);
  const auto& ranks = agents_.global_ranks();
  std::vector<std::vector<float>> pulled(donors.size());
  std::vector<const float*> sources;
  std::vector<double> weights(donors.size(), 1.0 / static_cast<double>(donors.size()));
  for (std::size_t k = 0; k < donors.size(); ++k) {
    pulled[k].resize(staging_.size());
    window_->read(donors[k], 0, staging_.size(), pulled[k].data());
    sources.push_back(pulled[k].data() + kHeader);
    event.donors.push_back(ranks[static_cast<std::size_t>(donors[k])]);
    event.weights.push_back(weights[k]);
    event.donor_iterations.push_back(static_cast<std::int64_t>(pulled[k][0]));
  }
  if (hooks_.on_respawn) hooks_.on_respawn(times_replaced_ + 1);
  at::Tensor own = dist::spawn::flatten_parameters(parameters_);
  at::Tensor combined = at::empty({model_size_}, at::kFloat);
  dist::spawn::weighted_sum(sources, weights, model_size_, combined.data_ptr<float>());
  dist::spawn::blend(own.data_ptr<float>(), combined.data_ptr<float>(), model_size_,
                     options_.momentum);
  dist::spawn::assign_flat(own, parameters_);
  if (hooks_.after_replace) hooks_.after_replace();
}

bool DonorPullPolicy::step(std::int64_t iteration, double metric) {
  SpawnEvent event;
  event.iteration = iteration;
  if (!dying(event, metric)) {
    event.skipped = "not dying";
    events_.push_back(std::move(event));
    return false;
  }
  pull(event);
  ++times_replaced_;
  last_respawn_ = iteration;
  max_age_ = dist::spawn::draw_max_age(options_, seed_, times_replaced_);
  const int me = agents_.global_ranks()[static_cast<std::size_t>(agents_.rank())];
  event.replaced_any = true;
  event.replaced = {me};
  event.applied_at = iteration;
  spdlog::info(
      "spawn at iteration {} (donor_pull): agent {} pulled {} (their parameters of iterations "
      "{}), metric {:.4g}{}",
      iteration, me, fmt::join(event.donors, ","), fmt::join(event.donor_iterations, ","), metric,
      options_.replacement_mode == dist::spawn::SpawnReplacementMode::kAge
          ? fmt::format(", next maximum age {}", max_age_)
          : std::string());
  events_.push_back(std::move(event));
  return true;
}

bool DonorPullPolicy::after_step(std::int64_t iteration) {
  // Every iteration: refresh the window; at decision points, pull if dying.
  const double metric = agent_.metric();
  if (iteration % every_ == 0) step(iteration, metric);
  expose(iteration, metric);
  return true;
}

std::string DonorPullPolicy::save_state(std::int64_t) { return encode_spawn_state(state()); }

void DonorPullPolicy::restore_state(const std::string& bytes, std::int64_t iteration) {
  SpawnState saved = decode_spawn_state(bytes);
  if (hooks_.on_restore) hooks_.on_restore(saved.times_replaced);
  restore(std::move(saved), iteration, agent_.metric());
}

void DonorPullPolicy::finish(std::int64_t) { close(); }

SpawnState DonorPullPolicy::state() const { return {times_replaced_, last_respawn_, events_}; }

void DonorPullPolicy::restore(SpawnState state, std::int64_t iteration, double metric) {
  times_replaced_ = state.times_replaced;
  last_respawn_ = state.last_replacement;
  events_ = std::move(state.events);
  max_age_ = dist::spawn::draw_max_age(options_, seed_, times_replaced_);
  expose(iteration, metric);
  agents_.barrier();
}

void DonorPullPolicy::close() {
  if (window_) window_->close();
}

}  // namespace gfn::roles
