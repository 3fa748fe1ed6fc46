#pragma once
// core::Agent: what the trainer role (roles/trainer/) drives of a training engine, one per
// trainer rank: one training iteration at a time, the gradient hook (gradient averaging),
// the parameters (model averaging, spawn policies, the final model), validation, the
// checkpoint state, the exploration settings and the counters. Two implementations:
//  * core::Learner (learner.h): the discrete environments (Environment, env/registry.h),
//    with the engine's fast paths, local replay buffer, local search and remote items;
//  * core::ContinuousLearner (continuous/learner.h): the continuous environments
//    (ContinuousEnvironment, env/continuous_registry.h: Box), fresh trajectories only.
// make_agent builds the one env.name calls for. What only a discrete engine has (its
// environment, the batch assembly with remote items, distribution.csv) is reached through
// discrete(), null for a continuous agent, and what only a continuous one has (density.csv)
// through continuous(); the experiment's checks refuse
// the options that need it on a continuous environment (roles/experiment/experiment_checks.cc).
//
// Not thread-safe: one thread owns an agent. Seeding and determinism: each implementation
// says (the same options and seed give the same iterations; save_state / load_state
// continue bit-identically for the same thread counts).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "runtime/buffer/options.h"
#include "runtime/gfn/batch_assembly.h"
#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/options.h"
#include "runtime/gfn/trajectories.h"
#include "runtime/gfn/validation.h"

namespace torch::nn {
class Module;
}
namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace gfn::core {

class ContinuousLearner;
class Learner;

/// Wall-clock durations of the phases of one iteration, in seconds.
struct PhaseDurations {
  double sample = 0;     ///< sampling the batch (incl. the PF forward when log-probs are reused)
  double loss = 0;       ///< forward pass and loss (incl. the state table's forward)
  double backward = 0;   ///< loss.backward()
  double optimizer = 0;  ///< zero_grad + optimizer step
  double gradient_hook = 0;  ///< the gradient hook, if set (e.g. gradient averaging)
};

struct IterationResult {
  double loss = 0;   ///< the batch loss before the step
  double log_z = 0;  ///< logZ after the step (learned, or the loss' estimate)
  /// int64 [F, state_dim]: the F FRESHLY sampled trajectories' terminating states (what a
  /// trainer submits to its manager; replayed and remote ones are not included). On a
  /// continuous environment float32 [F + n_local_search, d]: the fresh ones, then the states
  /// local search found (so the manager stores them).
  at::Tensor terminating_states;
  at::Tensor log_rewards;       ///< float32 [F]
  std::int64_t batch_size = 0;  ///< trajectories trained on: n_fresh + n_replayed + n_remote
  std::int64_t n_fresh = 0;     ///< fresh trajectories in the trained batch
  std::int64_t n_replayed = 0;  ///< trajectories from the local replay buffer
  std::int64_t n_remote = 0;    ///< remote trajectories (queued ones, then backward ones)
  /// Continuous local search (local_search.mode langevin): states searched this iteration
  /// (the remote ones and local_search.langevin_fresh fresh ones), each trained on through a
  /// backward path and appended to terminating_states / log_rewards; MALA proposals and
  /// accepted ones.
  std::int64_t n_local_search = 0;
  std::int64_t local_search_proposals = 0;
  std::int64_t local_search_accepted = 0;
  /// Points at which the iteration evaluated the target (ContinuousEnvironment::
  /// target_evaluations: sampling, loss, local search); 0 where the environment does not count
  /// (discrete environments, Box, Line).
  std::int64_t target_evaluations = 0;
  /// The F freshly sampled trajectories (what a trainer submits with a full payload;
  /// saved outputs cleared). Empty (B = 0) when the batch had no fresh part, and always on
  /// a continuous environment (discrete layout only).
  Trajectories fresh;
  /// The batch trained on (fresh, replayed, remote; layout of trajectories.h; log rewards
  /// log R, not times train.reward_exponent; saved outputs cleared). Empty on a continuous
  /// environment.
  Trajectories batch;
  std::int64_t n_new_modes = 0;  ///< modes seen for the first time in this batch
  /// True if the loss used the outputs kept while sampling (no PF forward in the loss).
  bool reused_logprobs = false;
  PhaseDurations seconds;
};

/// Iteration totals since construction (restored from checkpoints).
struct IterationCounts {
  std::int64_t iterations = 0;
  std::int64_t reused_logprobs = 0;  ///< iterations whose loss reused the sampling forward
  std::int64_t split = 0;            ///< iterations split over threads (engine.split_batch)
};

/// Per-agent exploration (train.epsilon, train.temperature, model.noisy_std_init; changed by
/// spawn.random_strategies).
struct Exploration {
  double epsilon = 0.0;         ///< share of uniformly random actions, in [0, 1]
  double temperature = 1.0;     ///< PF's logits are divided by it, > 0
  double noisy_std_init = 0.5;  ///< sigma_0 of the models reinitialize_parameters builds, > 0
};

class Agent {
 public:
  virtual ~Agent() = default;

  /// One iteration on batch_size trajectories (plus up to extra_remote queued remote items on
  /// a discrete agent): sample, loss, backward, the gradient hook, the optimizer step.
  /// Throws std::invalid_argument if batch_size < 1.
  virtual IterationResult train_iteration(std::int64_t batch_size,
                                          std::int64_t extra_remote = 0) = 0;
  /// Called by train_iteration after backward and before the optimizer step (gradient
  /// averaging, runtime/distributed/model_averaging.h); {} removes it.
  virtual void set_gradient_hook(std::function<void()> hook) = 0;

  /// The module holding every trainable tensor (PF, PB, log F, logZ): named_parameters() in
  /// a fixed order, the same on every agent of the same options (averaging, final model).
  virtual torch::nn::Module& module() = 0;
  /// The current logZ (learned, or the loss' estimate), a float32 scalar's value.
  virtual double current_log_z() const = 0;

  /// Metrics of the current model (ValidationResult; validation.h for discrete agents, the
  /// KDE Jensen-Shannon divergence and the log Z error for continuous ones). `visited`:
  /// l1_visited's window (discrete, enumerable; may be null).
  virtual ValidationResult validate(const ValidationOptions& options,
                                    const VisitedTerminatingStates* visited = nullptr) = 0;

  /// Checkpoints: everything the next iterations depend on; an agent of the same options
  /// and seed, given load_state, continues bit-identically (same thread counts). load_state
  /// throws std::runtime_error naming the entry when the archive lacks one or a shape differs.
  virtual void save_state(torch::serialize::OutputArchive& archive) const = 0;
  virtual void load_state(torch::serialize::InputArchive& archive) = 0;

  virtual const IterationCounts& counts() const = 0;
  /// Trajectories sampled / replayed / remote trained on since construction.
  virtual BatchCounts batch_counts() const = 0;
  /// What the engine runs; plan().threads are the thread counts the program applies.
  virtual const EnginePlan& plan() const = 0;

  /// Spawn policies (runtime/distributed/spawn/): exploration of the next iterations
  /// (throws std::invalid_argument naming the key for a value the rules refuse), the
  /// optimizer state forgotten, the parameters blended with a fresh initialisation from
  /// `seed`: momentum * own + (1 - momentum) * fresh.
  virtual void set_exploration(const Exploration& exploration) = 0;
  virtual Exploration exploration() const = 0;
  virtual void reset_optimizer_state() = 0;
  virtual void reinitialize_parameters(std::uint64_t seed, double momentum = 0.0) = 0;

  /// The modes found (null when the environment defines none) and their number (0: none).
  virtual const ModeTracker* mode_tracker() const = 0;
  virtual std::int64_t n_modes() const = 0;

  /// The discrete engine, or null for a continuous agent.
  virtual Learner* discrete() { return nullptr; }
  const Learner* discrete() const { return const_cast<Agent*>(this)->discrete(); }
  /// The continuous engine (its density grid, its export), or null for a discrete agent.
  virtual ContinuousLearner* continuous() { return nullptr; }
};

/// The agent env.name calls for: a ContinuousLearner for a continuous environment
/// (env/plugin_loader.h is_continuous: a catalogued one or a continuous plugin; replay must then
/// be the default and local search off or mode langevin: throws std::invalid_argument naming
/// the key otherwise), else a Learner. Throws what their constructors
/// throw.
std::unique_ptr<Agent> make_agent(const EnvOptions& env, const ModelOptions& model,
                                  const TrainOptions& train, std::uint64_t seed,
                                  const buffer::ReplayOptions& replay = {},
                                  const EngineOptions& engine = {},
                                  const LocalSearchOptions& local_search = {});

}  // namespace gfn::core
