#pragma once
// The trainer role as an object (the role and its loop are described in
// roles/trainer/trainer.h): run_trainer() is `Trainer(config, setup).run()`. State lives in
// fields; each phase of an iteration is one call (Trainer::iteration in trainer.cc):
//
//   train        sample the local batch from PF, loss, backward, optimizer step (Agent)
//   submit       BufferClient::after_step      roles/trainer/buffer_client.h
//   spawn        SpawnPolicy::after_step       roles/trainer/spawn/spawn_policy.h
//   validate     TrainingMonitor::after_step   roles/trainer/training_monitor.h
//   checkpoint   Trainer::checkpoint           roles/trainer/trainer_checkpoint.h
//
// Files: trainer.cc (run: the loop, the stop agreement, the end), trainer_setup.cc
// (construction: exploration strategy, Agent, outputs, gradient averaging, buffer client,
// spawn policy), trainer_resume.cc (resume and checkpoint).
//
// Thread-safety: none (the body of a trainer rank). Blocking and collectives: as
// run_trainer (roles/trainer/trainer.h).

#include <cstdint>
#include <memory>
#include <optional>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/buffer_client.h"
#include "roles/trainer/spawn/exploration.h"
#include "roles/trainer/spawn/spawn_policy.h"
#include "roles/trainer/spawn_report.h"
#include "roles/trainer/step_timer.h"
#include "roles/trainer/trainer.h"
#include "roles/trainer/training_monitor.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/visited_states.h"

namespace gfn::roles {

class Trainer {
 public:
  /// Everything before the first iteration (trainer_setup.cc); the spawn policy's
  /// construction is collective over the agent group for donor_pull, gradient averaging's
  /// first model average for train.average gradients.
  Trainer(const roles::ExperimentConfig& config, const TrainerSetup& setup);
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Resume (if setup.resume), the iterations until the last or an agreed stop, the drain,
  /// the final outputs and reports. Once.
  TrainerResult run();

 private:
  // trainer.cc: the loop.
  void iteration(std::int64_t it);
  core::IterationResult train(std::int64_t it);
  void spawn(std::int64_t it);
  bool stop_agreed(std::int64_t it);
  void stop_before(std::int64_t it);
  void finish();
  void final_report();
  // trainer_setup.cc
  void set_up_gradient_averaging();
  // trainer_resume.cc
  void resume();
  void checkpoint(std::int64_t at);

  core::VisitedTerminatingStates* visited() { return visited_ ? &*visited_ : nullptr; }

  const roles::ExperimentConfig& config_;
  const TrainerSetup& setup_;
  transport::Transport& transport_;
  transport::Group& trainers_;
  transport::Group& agents_;
  const bool leader_;               // trainer-group rank 0
  const std::int64_t local_batch_;  // train.batch_size / trainers
  const std::int64_t iterations_;   // config.iterations()
  const std::uint64_t agent_seed_;  // train.seed + global rank
  AgentExploration exploration_;    // spawn.random_strategies
  // The training engine (core::make_agent: a Learner, or a ContinuousLearner on a continuous
  // environment) and, for what only a discrete engine has, its Learner (null otherwise).
  std::unique_ptr<core::Agent> agent_;
  core::Learner* const learner_;
  TrainingMonitor monitor_;
  // torchgfn's l1_dist: the last validation.n_samples terminating states this (leader)
  // trainer sampled during training (runtime/gfn/visited_states.h).
  std::optional<core::VisitedTerminatingStates> visited_;
  bool average_gradients_ = false;      // train.average gradients in a group of several
  std::optional<BufferClient> buffer_;  // with a buffer manager
  std::unique_ptr<SpawnPolicy> spawn_;
  ModeTimeline timeline_;
  TrainerResult result_;
  TrainerClock::time_point t_start_;  // the loop's start (earlier by the elapsed time on resume)
  double last_loss_ = 0.0;
  std::int64_t first_it_ = 1;
  std::int64_t last_checkpoint_ = 0;
};

}  // namespace gfn::roles
