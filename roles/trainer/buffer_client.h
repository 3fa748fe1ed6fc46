#pragma once
// A trainer's side of the replay buffer in its loop (step 2 of roles/trainer/trainer.h;
// docs/architecture.md "One submission"): the terminating states (and, with full payloads,
// trajectories) accumulated since the last submission, submitted to the trainer's buffer
// manager every buffer.remote_buffer_freq iterations and at the last one (roles/trainer/
// submitter.h); replayed items asked for every iteration with remote sampling
// (buffer.remote_sample_fraction or remote_batch_size > 0); the coordinator's population stats
// every buffer.population_stats_every iterations. At the end: what is pending, then TRAINER_EXIT.
// Its part of a checkpoint: the manager's file (through CHECKPOINT / CHECKPOINT_DONE), the
// submitter's state and the pending batch (roles/trainer/trainer_checkpoint.h).
//
// Not thread-safe (the trainer's thread). Blocking and errors: as Submitter
// (transport::TimeoutError naming the manager, protocol::RemoteError, MessageError).

#include <cstdint>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/protocol/messages.h"
#include "roles/trainer/submitter.h"
#include "roles/trainer/trainer.h"
#include "runtime/buffer/packed_trajectories.h"
#include "runtime/checkpoint/manifest.h"

namespace gfn::core {
class Agent;
class ContinuousLearner;
class Learner;
struct IterationResult;
}  // namespace gfn::core

namespace gfn::roles {

struct TrainerLoopState;  // roles/trainer/trainer_checkpoint.h

/// The default consumer of a SAMPLE: items with a trajectory are queued as that trajectory
/// (BatchAssembly::queue_trajectories) unless `backward` (buffer.remote_paths backward),
/// the others as their terminating states, which the Learner samples backward with PB
/// (BatchAssembly::queue_states). state_dim = the width of a state row. Throws what the
/// Learner's queue functions throw for invalid items.
void queue_remote_items(core::Learner& learner, int state_dim, bool backward,
                        const protocol::SampleBatch& batch);

/// The consumer of a SAMPLE for a continuous agent: the items' float32 states, queued on
/// `learner` (ContinuousLearner::queue_states), which samples them backward with PB at its
/// next iteration (buffer.remote_paths does not apply: a continuous buffer stores states
/// only). Throws std::invalid_argument (nothing queued) for int64 states, another width or
/// states the environment refuses.
void queue_remote_states(core::ContinuousLearner& learner, const protocol::SampleBatch& batch);

class BufferClient {
 public:
  /// The trainer of `setup` (setup.assigned_buffer >= 0) with `agent`, training on
  /// `local_batch` trajectories per iteration for `iterations` iterations. A discrete agent
  /// (agent.discrete()) submits int64 states and, with full payloads, trajectories; a
  /// continuous one float32 states without trajectories (messages.h). Remote items go to
  /// setup.replay_consumer, else to the agent (queue_remote_items, queue_remote_states;
  /// trained on at its next iteration). Sends nothing.
  BufferClient(const roles::ExperimentConfig& config, const TrainerSetup& setup, core::Agent& agent,
               std::int64_t local_batch, std::int64_t iterations);

  /// After iteration `iteration` trained on `step`: accumulate, submit when due, fetch
  /// replayed items, log the population stats when due. Counts remote items in `result`;
  /// times "submit" and "remote_sample".
  void after_step(std::int64_t iteration, const core::IterationResult& step, TrainerResult& result);

  const Submitter& submitter() const { return submitter_; }

  /// A checkpoint after iteration `iteration`: Submitter::checkpoint (the manager, and
  /// through it the coordinator, write their files), then the submitter's state and the
  /// pending batch into `loop`. Returns the manager's (and coordinator's) file entries.
  std::vector<checkpoint::FileEntry> checkpoint(std::int64_t iteration, TrainerLoopState& loop);
  /// Resume: the submitter's state and the pending batch from `loop`. Throws
  /// std::runtime_error when `loop` has no submitter state.
  void restore(const TrainerLoopState& loop);

  /// End of training after iteration `iteration`: submits what is pending, drains, sends
  /// TRAINER_EXIT (Submitter::exit), and puts the submitter's counts into `result`.
  void finish(std::int64_t iteration, TrainerResult& result);

 private:
  /// Terminating states (int64 rows, or float32 rows for a continuous agent), log rewards
  /// and (full payloads of a discrete agent) trajectories accumulated between two
  /// submissions.
  struct PendingBatch {
    std::vector<std::int64_t> states;
    std::vector<float> float_states;
    std::vector<float> log_rewards;
    buffer::PackedTrajectories trajectories;  // full payloads (packed_trajectories.h)
    std::int64_t iterations = 0;              // iterations it holds
    bool empty() const { return log_rewards.empty(); }
  };

  void submit_when_due(std::int64_t iteration, const core::IterationResult& step);
  /// The DATA payload of iteration `iteration`; leaves the pending batch empty.
  protocol::Submission take_pending(std::int64_t iteration);
  void fetch_remote(TrainerResult& result);
  void log_population_stats(std::int64_t iteration);

  const roles::ExperimentConfig& config_;
  const TrainerSetup& setup_;
  core::Learner* const learner_;  // the discrete engine; null for a continuous agent
  const std::int64_t iterations_;
  int ndim_;                     // a state row's width (a continuous agent's: from its first batch)
  const std::int64_t remote_n_;  // replayed items asked for per iteration
  const std::function<void(const protocol::SampleBatch&)> consumer_;
  Submitter submitter_;
  PendingBatch pending_;
};

}  // namespace gfn::roles
