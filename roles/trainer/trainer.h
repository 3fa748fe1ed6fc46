#pragma once
// The trainer role (docs/architecture.md; torchgfn's distributed
// train_hypergrid loop). Per iteration:
//   1. sample its share of the global batch (train.batch_size / num_trainers)
//      trajectories from PF, compute the Trajectory Balance loss, backward, Adam step
//      (a core::Agent, runtime/gfn/agent.h: the discrete Learner, or the ContinuousLearner
//      on a continuous environment such as Box, whose submissions carry float32 states);
//   2. every buffer.remote_buffer_freq iterations, submit the accumulated terminating
//      states and log rewards to its buffer manager (DATA on tags::kData) and read the
//      SCORE reply (buffer.submit_mode: sync, async or fire_and_forget, with optional
//      baseline filtering — see roles/trainer/submitter.h); with
//      buffer.remote_sample_fraction or remote_batch_size > 0 it also asks the manager for
//      replayed items (trained on at the next iteration), and
//      every buffer.population_stats_every iterations the coordinator for population stats;
//   3. its spawn policy (spawn.policy; roles/trainer/spawn/spawn_policy.h): by default every
//      train.average_every iterations, average the model within its agent group (one fused
//      all-reduce, divided by the group size) — or, with train.average = gradients, average
//      the gradients every iteration inside step 1; selective and donor_pull replace agents
//      instead;
//   4. trainer-group rank 0 validates every validation.interval iterations and at the
//      end, logs progress, and writes metrics.csv.
// At the end (or after SIGINT/SIGTERM/SIGUSR1: the current iteration finishes) it drains,
// and sends TRAINER_EXIT to its manager.
// Checkpoints (docs/checkpoints.md "Checkpoint and resume"; roles/trainer/trainer_checkpoint.h):
// every checkpoint.every iterations, and with checkpoint.on_signal before a stop by signal, at the
// iteration boundary the trainers agree on; a resumed trainer restores its state and
// continues with the next iteration.
// The loop itself: roles/trainer/trainer_loop.h (class Trainer, one call per step).

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/protocol/messages.h"
#include "roles/trainer/spawn_report.h"
#include "runtime/timing/median_sample.h"
#include "transport/transport.h"

namespace gfn::signals {
class StopSignal;
}
namespace gfn::checkpoint {
struct OpenedCheckpoint;
}
namespace gfn::timing {
class TimingTable;
}

namespace gfn::roles {

/// Final validation metrics (trainer-group rank 0 only), docs/outputs.md "summary.json".
struct FinalMetrics {
  double l1_exact = 0;    ///< Σ_x |P_θ(x) − P_true(x)|, exact terminating distribution
  double l1_sampled = 0;  ///< Σ_x |empirical(x) − P_true(x)| over validation.n_samples
  /// mean_x |visited(x) − P_true(x)|: torchgfn's l1_dist over the last validation.n_samples
  /// terminating states sampled during training (NaN if not enumerable).
  double l1_visited = 0;
  /// BitSequence: Spearman(log p_θ(x), log R(x)) on the test set (NaN otherwise).
  double spearman_logp_logr = 0;
  double jsd = 0;  ///< Jensen-Shannon divergence (nats)
  /// Wasserstein-1 distance of a 1-D continuous target (Line's x); NaN otherwise.
  double wasserstein = std::numeric_limits<double>::quiet_NaN();
  /// Continuous targets: the ELBO, importance-weighted ELBO and EUBO estimates of log Z and
  /// log Z_true (ValidationResult, runtime/gfn/validation.h); NaN otherwise.
  double elbo = std::numeric_limits<double>::quiet_NaN();
  double iw_elbo = std::numeric_limits<double>::quiet_NaN();
  double eubo = std::numeric_limits<double>::quiet_NaN();
  double logz_true = std::numeric_limits<double>::quiet_NaN();
  double logz_error = 0;  ///< |logZ − log Z_true|
  double logz = 0;
  std::int64_t modes_found = 0;  ///< distinct modes sampled by all trainers during training
  std::int64_t n_modes = 0;      ///< modes of the environment
  /// validation.fresh_samples > 0: distinct modes hit by the fresh samples of the final PFs
  /// (all trainers), and how many of them training had found; -1 when off.
  std::int64_t fresh_sample_modes = -1;
  std::int64_t fresh_sample_modes_found = -1;
  /// Environment::mode_probability (an exact sampler's probability of each mode); -1 unknown.
  double mode_probability = -1;
};

struct TrainerResult {
  std::int64_t iterations = 0;    ///< completed iterations
  std::int64_t trajectories = 0;  ///< trajectories this trainer sampled for training
  /// Wall time of the iterations (ms): all of them up to 65,536, then a uniform sample.
  timing::MedianSample iteration_ms;
  std::int64_t submissions = 0;      ///< DATA messages sent to the manager
  std::int64_t items_retained = 0;   ///< sum of SCORE.retained: items the manager's buffer kept
  std::int64_t items_sent = 0;       ///< items in those DATA messages
  std::int64_t items_filtered = 0;   ///< items dropped by baseline filtering
  std::int64_t batches_skipped = 0;  ///< fully-filtered batches not sent
  std::int64_t remote_items = 0;     ///< replayed items received from the manager
  std::int64_t remote_refused = 0;   ///< sample requests the rate limiter refused
  /// Remote items trained on (BatchCounts::remote): their trajectories as given
  /// (full payloads), else backward trajectories from their terminating states.
  std::int64_t remote_trained = 0;
  /// Of those, trained on as the submitted trajectories (Learner::remote_trajectories_trained).
  std::int64_t remote_trajectories_trained = 0;
  /// Local search (core::Learner::local_search_proposals / _accepted): proposals trained on,
  /// and those accepted as the next search point.
  std::int64_t local_search_proposals = 0;
  std::int64_t local_search_accepted = 0;
  /// Trajectories sampled forward (core::Learner::trajectories_sampled).
  std::int64_t trajectories_sampled = 0;
  /// Points at which the target was evaluated in training (core::BatchCounts::
  /// target_evaluations; environments that count them: diffusion).
  std::int64_t target_evaluations = 0;
  /// Baseline updates pushed by the manager (fire-and-forget baseline filtering).
  std::int64_t baseline_updates = 0;
  bool stopped_by_signal = false;
  /// Set on trainer-group rank 0 only, when the final validation ran.
  bool has_final_metrics = false;
  FinalMetrics final_metrics;
  /// The paths the engine options resolved to (core::EnginePlan::report; summary.json).
  std::map<std::string, std::string> engine;
  /// Trainer-group rank 0 only: every trainer's mode discoveries and spawn history
  /// (roles/trainer/spawn_report.h), for summary.json "spawn" and modes_timeline.csv.
  std::vector<AgentReport> agent_reports;
  /// Every trainer: each trainer's own count of modes found, in trainer order (the
  /// population's split, summary.json "population").
  std::vector<AgentModes> agent_modes;
};

struct TrainerSetup {
  transport::Transport* transport = nullptr;
  transport::Group* trainer_group = nullptr;  ///< all trainers
  transport::Group* agent_group = nullptr;    ///< the group this trainer averages within
  int assigned_buffer = -1;                   ///< global rank of its manager, -1 for none
  int coordinator = -1;                       ///< global rank of the coordinator, -1 for none
  /// Optional consumer of replayed items (remote sampling, buffer.remote_sample_fraction):
  /// the granted SAMPLE (states [n, ndim], log rewards [n], trajectories of the items
  /// stored from full payloads). Empty (the default): the trainer's Learner trains on
  /// them at its next iteration — items with a trajectory as that trajectory, replayed in
  /// the environment (BatchAssembly::queue_trajectories), the others as backward
  /// trajectories sampled with PB (BatchAssembly::queue_states). Set it to divert the
  /// items elsewhere (then they are not trained on).
  std::function<void(const protocol::SampleBatch&)> replay_consumer;
  signals::StopSignal* stop = nullptr;    ///< optional
  timing::TimingTable* timing = nullptr;  ///< optional; steps in seconds
  /// Resume (docs/checkpoints.md "Checkpoint and resume"): the verified checkpoint this trainer
  /// continues from (its rank's file), or null for a fresh start. Optional.
  const checkpoint::OpenedCheckpoint* resume = nullptr;
  /// The role of every rank ("trainer", "manager", "coordinator": to_string(Role)), for the
  /// checkpoint manifest. Empty: every rank a trainer.
  std::vector<std::string> world_roles;
};

/// Runs the trainer loop. Blocking and collective over the trainer group (averaging,
/// final gathers). Throws transport::TimeoutError naming the manager if a SCORE does
/// not arrive within transport.timeout_s; std::runtime_error if output files cannot
/// be written.
TrainerResult run_trainer(const roles::ExperimentConfig& config, const TrainerSetup& setup);

}  // namespace gfn::roles
