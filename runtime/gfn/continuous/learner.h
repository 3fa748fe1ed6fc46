#pragma once
// ContinuousLearner: the training engine of a trainer rank on a continuous environment
// (ContinuousEnvironment, runtime/gfn/env/continuous_environment.h; env.name box), the Agent
// (runtime/gfn/agent.h) the trainer role drives there. It follows torchgfn's
// tutorials/examples/train_box.py loop and the box benchmark scenarios (torchgfn
// benchmark/lib_runners/torchgfn_runner.py), as tests/runtime/gfn/continuous/training_test.cc:
// one iteration samples batch_size fresh trajectories from s0 with PF
// (sample_continuous_trajectories, sampler.h; train.temperature), recomputes log PF / log PB /
// log F in one forward (continuous_log_probs; at temperature 1, or at the sampling temperature
// with train.loss_at_sampling_temperature as train_box.py), takes train.loss (continuous_loss,
// loss.h: tb, zvar, db, subtb), backward, the gradient hook, one AdamW step (optimizer.h: PF / PB /
// log F at train.lr with train.weight_decay, logZ at train.lr_logz; engine.optimizer flat or
// torch). For zvar (no learned logZ) the logZ parameter holds the loss' estimate, as on the
// discrete Learner; for db and subtb logZ is log F(s0) of the log F network (torchgfn's
// BoxStateFlowModule, estimators.h), learned by the optimizer step.
//
// The model (continuous/estimators.h ContinuousModel): model.hidden_dim, model.n_hidden,
// model.tied (PB's head on PF's trunk; the box benchmarks' setting), model.uniform_pb (the
// fixed backward policy of torchgfn's UniformModule), a log F network for db / subtb; the
// policies are the environment's (continuous_registry.h; Box: box_policies.h).
//
// Validation (validate): validation.n_samples on-policy terminating states of the current PF
// against as many exact samples of R / Z (ContinuousEnvironment::sample_target), compared by
// the KDE Jensen-Shannon divergence of their target coordinates on the environment's grid
// (validation.h target_grid, train_box.py's metric; Line: x on a 1-D grid) into
// ValidationResult::jsd, and |logZ - log Z| (log_partition) into log_z_error; the discrete
// metrics (L1s, Spearman) are NaN and ValidationResult::exact is false. The same trajectories
// give the ELBO and the importance-weighted ELBO of log Z, and backward walks from the exact
// samples the EUBO (continuous/log_z_bounds.h; ValidationResult::elbo, iw_elbo, eubo), with a
// generator seeded by the seed and the iteration (the validation stream is not touched). The
// JSD needs a grid of 100^k points and is NaN for k > 3 target coordinates. Modes: with an
// environment that defines modes (ContinuousEnvironment::n_modes; Box's 2^d top-reward
// corners), every iteration's fresh terminating states update the mode tracker
// (IterationResult::n_new_modes) and validation reports the modes found so far
// (n_modes_found / n_modes_total), as the discrete Learner does.
//
// Remote items (a buffer manager's replayed terminating states; queue_states): the next
// iteration trains on batch_size + min(queued, extra_remote) trajectories, the first
// min(queued, that total) of them sampled BACKWARD with PB from queued states
// (sample_backward_continuous_trajectories, sampler.h), the rest fresh, as the discrete
// Learner's BatchAssembly::shares; the queued rest is dropped.
//
// Local search (local_search.mode langevin; continuous/langevin.h, Sendera et al. 2024): on
// the iterations i (1-based) with (i - 1) % local_search.langevin_every == 0, the remote states
// of the batch and the first local_search.langevin_fresh fresh terminating states take
// local_search.langevin_steps MALA steps in the target space (target_coordinates) before PB
// walks back from the searched states; the searched remote states replace the remote ones, the
// searched fresh ones are extra trajectories of the batch. Every searched state is appended to
// IterationResult::terminating_states (the trainer submits it to its manager). The MALA draws
// come from the sampling generator after the fresh trajectories; the adapted step size and
// window (LangevinState) are checkpointed. It needs an environment with a reward gradient
// (ContinuousEnvironment::has_reward_gradient: diffusion); the discrete keys (loops,
// back_ratio, acceptance) are refused with it.
//
// Target evaluations: IterationResult::target_evaluations and BatchCounts::target_evaluations
// count ContinuousEnvironment::target_evaluations over train_iteration (validation excluded).
//
// Not supported yet (refused by the constructor with std::invalid_argument naming the key, and
// by the experiment's checks before any communication): the local replay buffer, the discrete
// local search (local_search.loops),
// epsilon-greedy exploration (train.epsilon), NoisyNet layers, model.init_from,
// train.reward_exponent != 1, engine.split_batch with several threads and engine.precision bf16
// (the discrete fast paths).
//
// Seeding: as the Learner: torch::manual_seed(seed) before building the model, a private
// sampling generator seeded with `seed`, and a validation generator seeded with
// seed ^ 0x9E3779B97F4A7C15, so validating never changes the training stream; the same
// options and seed give the same trajectories and losses (same thread counts). Checkpoints
// (save_state / load_state): the model, the optimizer, the three generators (LibTorch's
// default one included), the counters, the exploration, the modes found, the queued
// remote states and the local search's LangevinState; a ContinuousLearner of
// the same options and seed given load_state continues bit-identically.
//
// Reuse of the sampling forward (engine.reuse_logprobs, default true): on diffusion with a
// PISGradNet PF (without the Langevin input) a batch of fresh trajectories only keeps the
// network's activations of the sampling steps (ContinuousSamplerOptions::save_pf_activations)
// and the loss differentiates them (PisNetwork::saved_forward) instead of a second forward, as
// torchgfn keeps its sampling graph; engine.reuse_logprobs false: the loss recomputes it.
//
// Not thread-safe: one thread owns it. Cost per iteration: O(batch_size * trajectory length)
// MLP rows forward twice (sampling forward or backward, loss; once with the reuse above) and
// once backward.

#include <ATen/core/Generator.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/langevin.h"
#include "runtime/gfn/continuous/sampler.h"
#include "runtime/gfn/continuous/validation.h"
#include "runtime/gfn/env/continuous_registry.h"

namespace gfn::core {

class Optimizer;

class ContinuousLearner final : public Agent {
 public:
  /// Throws std::invalid_argument naming the key for a value its section's rules refuse, an
  /// option continuous environments do not support (above), and what
  /// make_continuous_environment and ContinuousModel throw.
  ContinuousLearner(const EnvOptions& env, const ModelOptions& model, const TrainOptions& train,
                    std::uint64_t seed, const EngineOptions& engine = {},
                    const LocalSearchOptions& local_search = {});
  ~ContinuousLearner() override;
  ContinuousLearner(const ContinuousLearner&) = delete;
  ContinuousLearner& operator=(const ContinuousLearner&) = delete;

  /// One iteration on batch_size trajectories plus min(queued states, extra_remote) remote
  /// ones (above). Throws std::invalid_argument if batch_size < 1 or extra_remote < 0.
  IterationResult train_iteration(std::int64_t batch_size, std::int64_t extra_remote = 0) override;
  /// Queues remote terminating states float32 [n, d] (d = env().dim()) for the next
  /// iteration; multiple calls accumulate. Throws std::invalid_argument (nothing queued) for
  /// another shape or dtype, states the environment refuses (check_states: Box outside
  /// [0, 1]^d, non-finite) or a row that cannot be a terminating state (s0).
  void queue_states(const at::Tensor& states);
  std::int64_t queued_states() const { return queued_.size(0); }
  void set_gradient_hook(std::function<void()> hook) override { gradient_hook_ = std::move(hook); }

  torch::nn::Module& module() override;
  double current_log_z() const override;
  ValidationResult validate(const ValidationOptions& options,
                            const VisitedTerminatingStates* visited = nullptr) override;
  void save_state(torch::serialize::OutputArchive& archive) const override;
  void load_state(torch::serialize::InputArchive& archive) override;
  const IterationCounts& counts() const override { return counts_; }
  BatchCounts batch_counts() const override { return batch_counts_; }
  const EnginePlan& plan() const override { return plan_; }
  /// Throws std::invalid_argument naming train.epsilon for an epsilon other than 0, and the
  /// train: / model: rules' errors.
  void set_exploration(const Exploration& exploration) override;
  Exploration exploration() const override;
  void reset_optimizer_state() override;
  void reinitialize_parameters(std::uint64_t seed, double momentum = 0.0) override;
  /// The modes the sampled terminating states hit (ContinuousEnvironment::mode_hits; Box: the
  /// 2^d top-reward corners); null, and n_modes() 0, for an environment without modes.
  const ModeTracker* mode_tracker() const override { return modes_.get(); }
  std::int64_t n_modes() const override { return modes_ ? modes_->n_total() : 0; }

  /// The densities of the current PF against the target (density_grid, validation.h) from n
  /// on-policy terminating states and n exact samples of R / Z, drawn from the validation
  /// generator (the training stream is unchanged): what density.csv holds. Throws
  /// std::invalid_argument if n < 1, std::domain_error if the environment has no target.
  /// Cost: n trajectories plus two KDEs on the grid (10,000 points).
  DensityGrid density(std::int64_t n);
  ContinuousLearner* continuous() override { return this; }

  ContinuousModel& model() { return *model_; }
  const ContinuousEnvironment& env() const { return *parts_.env; }
  /// The local search's adapted step size and acceptance window (mode langevin).
  const LangevinState& langevin_state() const { return langevin_; }
  /// The estimators and policies as the sampler and the losses take them.
  ContinuousGFlowNet gflownet() { return {*parts_.env, *model_, *parts_.pf, *parts_.pb}; }

 private:
  std::shared_ptr<ContinuousModel> make_model() const;
  /// The batch of one iteration: fresh trajectories and the queued remote states' backward
  /// ones (consumed); fills r's batch make-up, fresh terminating states and modes.
  ContinuousTrajectories sample_batch(std::int64_t batch_size, std::int64_t extra_remote,
                                      IterationResult& r);
  /// local_search.mode langevin and the iteration about to run is a searching one.
  bool searching() const;
  /// MALA from terminating states float32 [n, dim]: the searched terminating states; adds
  /// them and their log R to r (terminating_states, log_rewards) and counts the proposals.
  at::Tensor local_search(const at::Tensor& states, IterationResult& r);
  void read_local_search(torch::serialize::InputArchive& archive);

  TrainOptions train_;
  ModelOptions model_options_;
  LocalSearchOptions local_search_;
  LangevinState langevin_;
  std::uint64_t seed_;
  bool reuse_sampling_forward_;  ///< engine.reuse_logprobs (above)
  ContinuousParts parts_;
  EnginePlan plan_;
  std::shared_ptr<ContinuousModel> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<ModeTracker> modes_;  ///< null without modes
  at::Tensor queued_;                   ///< float32 [q, d]: remote states for the next iteration
  at::Generator sample_gen_;
  at::Generator validation_gen_;
  IterationCounts counts_;
  BatchCounts batch_counts_;
  std::function<void()> gradient_hook_;
};

}  // namespace gfn::core
