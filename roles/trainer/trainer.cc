// run_trainer (roles/trainer/trainer.h) and the Trainer's loop (roles/trainer/trainer_loop.h).
#include "roles/trainer/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "roles/trainer/final_outputs.h"
#include "roles/trainer/trainer_loop.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/signals/stop_signal.h"
#include "transport/transport.h"

namespace gfn::roles {

TrainerResult run_trainer(const roles::ExperimentConfig& config, const TrainerSetup& setup) {
  return Trainer(config, setup).run();
}

TrainerResult Trainer::run() {
  if (setup_.resume) resume();
  for (std::int64_t it = first_it_; it <= iterations_; ++it) {
    if (stop_agreed(it)) {
      stop_before(it);
      break;
    }
    iteration(it);
  }
  monitor_.finish();
  finish();
  final_report();
  return std::move(result_);
}

// One iteration: sample + train -> submit -> spawn / average -> validate -> checkpoint.
void Trainer::iteration(std::int64_t it) {
  const auto t_iter = TrainerClock::now();
  if (setup_.timing) setup_.timing->begin_iteration();
  const auto step = train(it);
  if (buffer_) buffer_->after_step(it, step, result_);
  spawn(it);
  monitor_.after_step(it, step, *agent_, visited(), t_start_, last_loss_, result_);
  result_.iteration_ms.add(1e3 * seconds_since(t_iter));
  result_.iterations = it;
  if (config_.checkpoint.every > 0 && it % config_.checkpoint.every == 0) checkpoint(it);
  monitor_.progress(it, *agent_, t_start_, last_loss_);
}

// The batch of this iteration: the trainer's share of train.batch_size, plus with
// buffer.remote_batch_size the replayed items that have arrived (none before the first
// reply), so that the share is all sampled forward (core::BatchAssembly::shares).
core::IterationResult Trainer::train(std::int64_t it) {
  auto step = agent_->train_iteration(local_batch_, config_.buffer.remote_batch_size);
  add_time(setup_.timing, "sample", step.seconds.sample);
  add_time(setup_.timing, "loss", step.seconds.loss);
  add_time(setup_.timing, "backward", step.seconds.backward);
  add_time(setup_.timing, "optimizer", step.seconds.optimizer);
  if (average_gradients_) add_time(setup_.timing, "average", step.seconds.gradient_hook);
  last_loss_ = step.loss;
  result_.trajectories += step.batch_size;
  if (visited_) visited_->add(step.terminating_states);
  timeline_.observe(agent_->mode_tracker(), it, seconds_since(t_start_));
  return step;
}

void Trainer::spawn(std::int64_t it) {
  const auto t0 = TrainerClock::now();
  if (spawn_->after_step(it)) add_time(setup_.timing, "average", seconds_since(t0));
}

/// True when the trainers agree to stop before iteration `it`. A lone trainer checks its
/// signal every iteration; several trainers agree (all-reduce MAX over the trainer group)
/// at averaging iterations only, so that every trainer stops at the same iteration and no
/// collective is left unmatched.
bool Trainer::stop_agreed(std::int64_t it) {
  if (!setup_.stop) return false;
  if (trainers_.size() == 1) return setup_.stop->stop_requested();
  if ((it - 1) % config_.train.average_every != 0 || it == 1) return false;
  std::int32_t flag = setup_.stop->stop_requested() ? 1 : 0;
  trainers_.all_reduce(&flag, 1, transport::DType::kInt32, transport::ReduceOp::kMax);
  return flag != 0;
}

// With checkpoint.on_signal, the state after the last completed iteration is saved first.
void Trainer::stop_before(std::int64_t it) {
  result_.stopped_by_signal = true;
  const auto& name = setup_.stop->signal_name();
  spdlog::warn("stop requested ({}): stopping after iteration {}", name.empty() ? "stop" : name,
               it - 1);
  if (config_.checkpoint.on_signal && it - 1 > last_checkpoint_) checkpoint(it - 1);
}

// The spawn policy's last decisions (every trainer of a group stops after the same
// iteration, so every message arrives) and release; then the buffer manager's drain and
// TRAINER_EXIT.
void Trainer::finish() {
  spawn_->finish(result_.iterations);
  if (buffer_) buffer_->finish(result_.iterations, result_);
}

// The final files (leader), the modes found by all trainers, every trainer's own count of
// them (on every trainer), and every trainer's mode discoveries and spawn history gathered
// on the leader (roles/trainer/spawn_report.h).
void Trainer::final_report() {
  if (leader_) write_final_files(config_, *agent_);
  const core::BatchCounts counts = agent_->batch_counts();
  result_.remote_trained = counts.remote;
  result_.remote_trajectories_trained = counts.remote_trajectories;
  result_.local_search_proposals = counts.local_search_proposals;
  result_.local_search_accepted = counts.local_search_accepted;
  result_.trajectories_sampled = counts.sampled;
  result_.target_evaluations = counts.target_evaluations;
  const auto found = global_modes_found(trainers_, agent_->mode_tracker());
  result_.final_metrics.modes_found = static_cast<std::int64_t>(found.size());
  // Only discrete environments define modes (agent_->n_modes() > 0).
  if (config_.validation.fresh_samples > 0 && learner_ && agent_->n_modes() > 0) {
    const auto fresh = global_mode_union(
        trainers_, learner_->fresh_sample_modes(fresh_sample_share(
                       config_.validation.fresh_samples, trainers_.rank(), trainers_.size())));
    result_.final_metrics.fresh_sample_modes = static_cast<std::int64_t>(fresh.size());
    result_.final_metrics.fresh_sample_modes_found = static_cast<std::int64_t>(std::count_if(
        fresh.begin(), fresh.end(), [&](std::int64_t id) { return found.count(id); }));
  }
  result_.final_metrics.n_modes = agent_->n_modes();
  result_.final_metrics.mode_probability =
      learner_ ? learner_->env().mode_probability().value_or(-1.0) : -1.0;
  const auto* modes = agent_->mode_tracker();
  result_.agent_modes =
      gather_agent_modes(trainers_, {transport_.rank(), modes ? modes->n_found() : 0});
  AgentReport mine;
  mine.rank = transport_.rank();
  mine.firsts = timeline_.firsts();
  mine.spawn_json = agent_spawn_json(transport_.rank(), spawn_->events(), agents_.rank(),
                                     modes ? modes->n_found() : 0, exploration_.json());
  result_.agent_reports = gather_agent_reports(trainers_, mine);
}

}  // namespace gfn::roles
