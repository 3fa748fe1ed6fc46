// Trainer: construction (roles/trainer/trainer_loop.h).
#include <spdlog/spdlog.h>
#include <torch/nn/module.h>

#include <stdexcept>

#include "roles/trainer/spawn/make_spawn_policy.h"
#include "roles/trainer/spawn/spawn_agent.h"
#include "roles/trainer/trainer_loop.h"
#include "runtime/checkpoint/store.h"
#include "runtime/distributed/model_averaging.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/process/threads.h"
#include "transport/transport.h"

namespace gfn::roles {

Trainer::Trainer(const roles::ExperimentConfig& config, const TrainerSetup& setup)
    : config_(config),
      setup_(setup),
      transport_(*setup.transport),
      trainers_(*setup.trainer_group),
      agents_(*setup.agent_group),
      leader_(trainers_.rank() == 0),
      local_batch_(config.train.batch_size / trainers_.size()),
      iterations_(config.iterations()),
      agent_seed_(config.train.seed + static_cast<std::uint64_t>(transport_.rank())),
      // Drawn around the configured values with spawn.random_strategies; its agent group's
      // number of noisy layers drawn from train.seed + the group's first rank.
      exploration_(config, agent_seed_,
                   config.train.seed + static_cast<std::uint64_t>(agents_.global_ranks().front())),
      agent_(core::make_agent(config.env, exploration_.model_options(),
                              exploration_.train_options(), agent_seed_, config.replay,
                              config.engine, config.local_search)),
      learner_(agent_->discrete()),
      monitor_(config, leader_, setup.resume ? setup.resume->manifest.iteration : -1,
               setup.timing) {
  if (leader_ && !config.model.init_from.empty()) {
    spdlog::info("model.init_from: every trainer starts from {}", config.model.init_from);
  }
  exploration_.log_start(transport_.rank());
  if (leader_ && learner_ && config.validation.enabled && learner_->env().enumerable()) {
    visited_.emplace(learner_->env(), config.validation.n_samples);
  }
  set_up_gradient_averaging();
  if (setup.assigned_buffer >= 0) {
    // A continuous agent submits float32 states (the experiment refuses its remote items).
    buffer_.emplace(config, setup, *agent_, local_batch_, iterations_);
  }
  const Submitter* submitter = buffer_ ? &buffer_->submitter() : nullptr;
  spawn_ = make_spawn_policy(
      config,
      trainer_spawn_agent(config.spawn, *agent_, exploration_, transport_, agents_, agent_seed_,
                          make_local_metric(config.spawn.metric, submitter, &last_loss_, *agent_)));
  // The engine plan's thread counts, process-wide (LibTorch's intra-op pool, OpenBLAS's).
  runtime::set_thread_counts(agent_->plan().threads);
  result_.engine = agent_->plan().report;
  t_start_ = TrainerClock::now();
}

// train.average gradients: the members' models made identical once (the group's first
// member's initial parameters broadcast, as DDP does: an average of independent
// initialisations would be a narrower one), then the gradients averaged every iteration
// between backward and the optimizer step. With the
// flat optimizer (runtime/gfn/fast/flat_adam.h) both all-reduce its one parameter / gradient
// buffer in place (runtime/distributed/model_averaging.h). train.average models is the
// spawn policy's (roles/trainer/spawn/average_all.h).
void Trainer::set_up_gradient_averaging() {
  average_gradients_ =
      config_.train.average == core::TrainAverage::kGradients && agents_.size() > 1;
  if (!average_gradients_) return;
  dist::broadcast_model(agent_->module(), agents_);
  agent_->set_gradient_hook([this] { dist::average_gradients(agent_->module(), agents_); });
}

}  // namespace gfn::roles
