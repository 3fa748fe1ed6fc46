#pragma once
// The single-process GFlowNet training engine of each trainer rank: the environment
// EnvOptions::name names (make_environment, runtime/gfn/env/registry.h), its preprocessor,
// the PF/PB/logZ model, the loss and the optimizer, as in torchgfn's
// tutorials/examples/train_hypergrid.py training loop (without averaging, which the trainer
// role adds around it). One iteration: assemble the batch, loss, backward, optimizer step.
//
// Its parts, each in its own file:
//  * the engine plan (engine_plan.h): which numerical path runs, resolved once in the
//    constructor from the engine options, the environment, the loss and the model; plan()
//    tells what it chose (summary.json "engine") and which thread counts the program should
//    apply (runtime/process/threads.h: the Learner sets no process-wide thread state);
//  * the evaluator (evaluator.h; make_evaluator, fast/make_evaluator.h): how trajectories
//    are sampled and how the loss gets log PF / log PB / log F (reference, saved outputs,
//    state table; the same loss and gradients up to float rounding);
//  * the batch assembly (batch_assembly.h): fresh, local search, local replay buffer and
//    remote items, and the batch size of an iteration;
//  * the optimizer (optimizer.h; make_optimizer, fast/make_optimizer.h): AdamW, PF/PB/logF
//    at train.lr with train.weight_decay, logZ at train.lr_logz;
//  * the loss (losses.h, make_loss: tb, zvar, db, modified_db, subtb, fm); the model gets a
//    logF head when the loss needs one. For losses without a learned logZ, the model's logZ
//    parameter receives no gradient and holds the loss' estimate of log Z from the latest
//    batch (taken before that batch's optimizer step);
//  * with engine.split_batch and T threads, on-policy iterations split over T model copies
//    (fast/batch_split.h).
// With NoisyNet layers (model.n_noisy_layers) the noise is redrawn once per iteration,
// before sampling, and the loss uses that same noise (torchgfn's NoisyLinear in training
// mode); validation uses the mean weights (eval mode).
//
// Options: each section's values are checked against that section's rules (the schema's,
// config::check_values) in the constructor; the combinations the engine cannot run are
// refused by the plan.
//
// Seeding: the constructor calls torch::manual_seed(seed) before building the model
// (LibTorch initialises Linear layers from the global generator), and sampling uses a
// private generator seeded with `seed`, so two Learners with the same options and seed
// produce the same trajectories and losses (for the same thread counts). Validation uses a
// third, separate generator so validating never changes the training stream.
//
// The trainer role drives it through the Agent interface (agent.h), whose discrete
// implementation it is.
//
// Not thread-safe: one thread owns a Learner.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "runtime/buffer/options.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/batch_assembly.h"
#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/options.h"
#include "runtime/gfn/trajectories.h"
#include "runtime/gfn/validation.h"

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Evaluator;
class BatchSplit;
class Loss;
class Optimizer;
class Preprocessor;
struct SamplerOptions;

class Learner final : public Agent {
 public:
  /// Throws std::invalid_argument naming the key for a value its section's rules refuse
  /// (train.*, model.*, replay.*, local_search.*, engine.*), for a combination the engine
  /// plan refuses (plan_engine), and what make_environment, make_preprocessor,
  /// GFlowNetModel and make_loss throw. model.init_from (non-empty): the parameters start
  /// from that state dict, torchgfn names (runtime/output/torchgfn_import.h); throws
  /// std::runtime_error / std::invalid_argument naming the file and the tensor when it
  /// cannot be read or does not match the model.
  Learner(const EnvOptions& env, const ModelOptions& model, const TrainOptions& train,
          std::uint64_t seed, const buffer::ReplayOptions& replay = {},
          const EngineOptions& engine = {}, const LocalSearchOptions& local_search = {});
  ~Learner();
  Learner(const Learner&) = delete;
  Learner& operator=(const Learner&) = delete;

  /// One iteration on batches().shares(batch_size, extra_remote) (batch_assembly.h): sample
  /// with the exploration settings, mix in replayed and remote trajectories, loss, backward,
  /// the gradient hook, the optimizer step. Throws std::invalid_argument if batch_size < 1.
  IterationResult train_iteration(std::int64_t batch_size, std::int64_t extra_remote = 0) override;

  /// Remote items for the next iterations, the local replay buffer and the batch counters.
  BatchAssembly& batches() { return *batches_; }
  const BatchAssembly& batches() const { return *batches_; }

  /// Called by train_iteration after backward and before the optimizer step, e.g. to
  /// average gradients across trainers (runtime/distributed/model_averaging.h). Its wall
  /// time is reported in PhaseDurations::gradient_hook. Pass {} to remove it.
  void set_gradient_hook(std::function<void()> hook) override { gradient_hook_ = std::move(hook); }

  /// Respawn (runtime/distributed/spawn/): forgets the optimizer state (AdamW moments and
  /// step count), as if the optimizer had just been built; the parameters are untouched.
  void reset_optimizer_state() override;
  /// Respawn with spawn.strategy reset_weights: a freshly initialised model of the same
  /// options (exploration().noisy_std_init), built from torch::manual_seed(seed) as the
  /// constructor does, blended into the parameters in place: momentum * own + (1 - momentum)
  /// * fresh (momentum in [0, 1]). Views stay valid (the flat optimizer's buffers are
  /// written, not replaced).
  void reinitialize_parameters(std::uint64_t seed, double momentum = 0.0) override;
  /// The exploration of the following iterations. Throws std::invalid_argument naming the
  /// key for a value the train: / model: rules refuse.
  void set_exploration(const Exploration& exploration) override;
  Exploration exploration() const override;

  /// Metrics of the current model (validation.h): exact metrics on an enumerable
  /// environment, modes found on any environment that defines modes. `visited` (optional):
  /// the terminating states visited during training, for l1_visited (torchgfn's l1_dist;
  /// VisitedTerminatingStates in visited_states.h).
  ValidationResult validate(const ValidationOptions& options,
                            const VisitedTerminatingStates* visited = nullptr) override;
  /// The distinct mode ids hit by n fresh on-policy samples of the current PF (sampled_modes,
  /// validation.h; the mean weights with NoisyNet layers), from the validation generator.
  std::vector<std::int64_t> fresh_sample_modes(std::int64_t n);

  /// The model holding PF, PB and logZ: parameters() lists every trainable tensor (model
  /// averaging across ranks operates on it); log_z() is the learned logZ.
  GFlowNetModel& model() { return *model_; }
  const Environment& env() const { return *env_; }
  // Agent (agent.h): the model, its logZ, the environment's modes, the batch counters.
  torch::nn::Module& module() override;
  double current_log_z() const override;
  std::int64_t n_modes() const override;
  BatchCounts batch_counts() const override { return batches_->counts(); }
  Learner* discrete() override { return this; }
  const Preprocessor& preprocessor() const { return *preprocessor_; }
  const ModeTracker* mode_tracker() const override { return modes_.get(); }  ///< null without modes
  const IterationCounts& counts() const override { return counts_; }
  /// What the engine runs (engine_plan.h); plan().threads are the thread counts the program
  /// applies (runtime::set_thread_counts) before training.
  const EnginePlan& plan() const override { return plan_; }

  /// Checkpoints (docs/checkpoints.md "Checkpoint and resume"; learner_state.cc): writes
  /// everything the next iterations depend on — parameters and buffers of the model, the
  /// optimizer state, the sampling, validation and LibTorch default CPU generators, the
  /// counters, the exploration settings, the mode tracker and the batch assembly (queued
  /// remote items, local replay buffer). A Learner built with the same options and seed,
  /// then given load_state, continues bit-identically (for the same thread counts).
  void save_state(torch::serialize::OutputArchive& archive) const override;
  /// Restores what save_state wrote. Throws std::runtime_error (naming the entry) when the
  /// archive lacks an entry or a tensor's shape differs (another model or environment).
  void load_state(torch::serialize::InputArchive& archive) override;

 private:
  TrainOptions train_;
  ModelOptions model_options_;  ///< to build a fresh model (reinitialize_parameters)
  std::unique_ptr<Environment> env_;
  std::unique_ptr<Preprocessor> preprocessor_;
  std::unique_ptr<Loss> loss_;
  EnginePlan plan_;
  std::shared_ptr<GFlowNetModel> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<ModeTracker> modes_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<BatchAssembly> batches_;
  std::unique_ptr<BatchSplit> split_;  ///< plan().split_batch_parts > 0; else null
  at::Generator sample_gen_;
  at::Generator validation_gen_;
  IterationCounts counts_;
  std::function<void()> gradient_hook_;

  /// Assemble the batch, its loss and backward on this thread; the loss.
  at::Tensor forward_backward(const BatchShares& shares, const SamplerOptions& options,
                              IterationResult& r, at::Tensor& value_log_z);
  /// The same split over split_'s threads (fresh on-policy trajectories only); the loss.
  at::Tensor forward_backward_split(std::int64_t batch_size, const SamplerOptions& options,
                                    IterationResult& r);
};

}  // namespace gfn::core
