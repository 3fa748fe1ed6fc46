#pragma once
// The trainer's part of a checkpoint (docs/checkpoints.md "Checkpoint and resume"): what
// run_trainer (roles/trainer/trainer.h) writes at an agreed iteration boundary and reads on
// --resume.
//
// A trainer's file (rank_<global rank>.pt, runtime/checkpoint/store.h) is a LibTorch archive
// (torch::serialize, the format of torch::save) holding the agent's state
// (core::Agent::save_state, runtime/gfn/agent.h; the discrete Learner's: parameters,
// optimizer, RNG generators, counters, mode tracker; the ContinuousLearner's the same without
// modes)
// and the loop's own: completed iterations, trajectories, last loss, elapsed wall seconds,
// the mode-discovery timeline and, on trainer-group rank 0, the visited-state window of
// l1_visited.
//
// With a buffer manager the file also holds the submitter's state (Submitter::save_state:
// counters, baseline, last SCORE) and the batch accumulated but not submitted yet
// (buffer.remote_buffer_freq > 1); the manager writes its own file at the same boundary
// (CHECKPOINT / CHECKPOINT_DONE, roles/buffer_manager/manager_checkpoint.cc) and its entry
// joins the manifest through write_trainer_checkpoint.
//
// With a spawn policy other than average_all (selective sync or async, donor_pull) the
// file also holds the policy's state (SpawnPolicy::save_state, roles/trainer/spawn/
// spawn_state.h: replacement count, last replacement, decision points); the asynchronous
// policy is drained first, and donor_pull re-exposes the restored parameters on resume.
// Remote trajectories queued for the next iteration (buffer.payload full) are the
// Learner's (Learner::save_state). Every layout and option can be checkpointed: trainers
// (one or several, averaging by model or gradient, any spawn policy) with or without buffer
// managers and a coordinator (whose file's entry comes through the manager's
// CHECKPOINT_DONE), with or without a local replay buffer (replay.kind).
//
// Errors: checkpoint::CheckpointError (files), std::runtime_error (a state that does not
// fit this model). Blocking; write_trainer_checkpoint is collective over the trainer group.

#include <cstdint>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/spawn_report.h"
#include "roles/trainer/trainer.h"
#include "runtime/buffer/packed_trajectories.h"
#include "runtime/checkpoint/manifest.h"

namespace gfn::core {
class Agent;
class VisitedTerminatingStates;
}  // namespace gfn::core

namespace gfn::roles {

/// The trainer loop's counters in a checkpoint.
struct TrainerLoopState {
  std::int64_t iteration = 0;     ///< iterations completed
  std::int64_t trajectories = 0;  ///< TrainerResult::trajectories so far
  double last_loss = 0;
  double elapsed_s = 0;  ///< wall seconds of the loop so far (the CSVs' elapsed_s continue)
  std::vector<ModeFirst> firsts;                      ///< ModeTimeline::firsts
  std::int64_t remote_items = 0, remote_refused = 0;  ///< TrainerResult's remote sampling
  // With a buffer manager: the batch accumulated since the last submission (terminating
  // states int64 [n, ndim] row-major, or float32 [n, ndim] in pending_float_states for a
  // continuous agent; log rewards float32 [n], full payloads' trajectories)
  // and how many iterations it holds; the submitter's state (Submitter::save_state; empty
  // without a manager).
  std::vector<std::int64_t> pending_states;
  std::vector<float> pending_float_states;
  std::vector<float> pending_log_rewards;
  buffer::PackedTrajectories pending_trajectories;
  std::int64_t pending_iterations = 0;
  std::string submitter;
  /// The spawn policy's state (SpawnPolicy::save_state, roles/trainer/spawn/spawn_state.h);
  /// empty with average_all.
  std::string spawn;
  /// The trainer's timing table (checkpoint::encode_versioned of timing::TimingTable), so the
  /// time report of a restarted job covers the whole run; empty without one (and in
  /// checkpoints of older builds).
  std::string timing;
  /// The final validation's metrics (trainer_resume.cc: l1_exact, l1_sampled,
  /// l1_visited, spearman_logp_logr, jsd, logz_error, logz; float64) when the checkpoint is
  /// at the last iteration and the leader validated there, so that a job killed after its
  /// last checkpoint but before its summary reports them when it resumes; else empty.
  std::vector<double> final_validation;
};

/// This trainer's file: the agent's state, `loop`, and `visited` if not null.
std::string encode_trainer_state(const core::Agent& learner, const TrainerLoopState& loop,
                                 const core::VisitedTerminatingStates* visited);
/// Restores `learner` (built with the same options and seed) and `visited` (if not null; the
/// file must then hold one) from a file of encode_trainer_state; returns the loop's state.
/// Throws std::runtime_error naming what does not fit.
TrainerLoopState decode_trainer_state(const std::string& bytes, core::Agent& learner,
                                      core::VisitedTerminatingStates* visited);

/// Collective over the trainer group: every trainer writes `bytes` as its rank's file of the
/// checkpoint at `iteration` under <output.dir>/checkpoints; trainer-group rank 0 gathers the
/// entries, with the `others` each trainer reports (its buffer manager's file, already
/// written: CHECKPOINT_DONE; the same entry from several trainers counts once, two different
/// ones for one rank are a CheckpointError), and commits the manifest (config =
/// to_yaml(config)), then rotates (checkpoint.keep). Returns the checkpoint directory.
std::string write_trainer_checkpoint(const roles::ExperimentConfig& config,
                                     const TrainerSetup& setup, std::int64_t iteration,
                                     const std::string& bytes,
                                     const std::vector<checkpoint::FileEntry>& others = {});

/// Resume: keeps the header and the rows of the CSV file `path` whose first column (the
/// iteration) is <= `iteration` (rows a run wrote after its checkpoint). A missing file is
/// left missing. Throws std::runtime_error if it cannot be rewritten.
void drop_csv_rows_after(const std::string& path, std::int64_t iteration);

}  // namespace gfn::roles
