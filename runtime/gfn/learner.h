#pragma once
// The single-process GFlowNet training engine used by each trainer rank: the
// environment EnvOptions::name names (make_environment, runtime/gfn/env/registry.h), its
// preprocessor, PF/PB/logZ model, sampler, loss and optimizer, as in torchgfn's
// tutorials/examples/train_hypergrid.py training loop (without averaging, which the
// trainer role adds around it).
//
// Numerical path: one Evaluator (evaluator.h), chosen once in the constructor from the
// engine options (make_evaluator, runtime/gfn/fast/make_evaluator.h): the reference
// (sample, then recompute the outputs for the loss), the reuse of the sampling
// forward (saved outputs), or the state table of a small enumerable environment. Every
// path gives the same loss and gradients up to float rounding;
// IterationResult::reused_logprobs and engine_paths() say what ran.
// With NoisyNet layers (model.n_noisy_layers) the noise is redrawn once per iteration,
// before sampling, and the loss uses that same noise (torchgfn's NoisyLinear in training
// mode); validation uses the mean weights (eval mode).
//
// Batch composition (one `if` per iteration when neither is used):
//  * remote items (remote sampling): terminating states queued with
//    queue_replayed_states() (by the trainer role, from its buffer manager) are used at
//    the next iteration, at most batch_size of them: each becomes a trajectory sampled
//    BACKWARD from it with PB (sample_backward_actions, sampler.h); the rest of the batch
//    is fresh.
//  * local replay buffer (replay.kind != none): a replay table (runtime/buffer/table.h,
//    local_table_options) holding the trajectories packed (pack_trajectories, trajectory_ops.h),
//    torchgfn train_hypergrid semantics: the F fresh trajectories of the iteration are
//    added to the buffer FIRST; then, once it holds max(replay.warmup, R) trajectories,
//    R = round(replay.fraction * F) are drawn from it (possibly including the ones just
//    added, as in torchgfn) and replace the last R fresh ones in the batch (fraction 1 =
//    torchgfn: the whole batch comes from the buffer).
//  Batch = [first F - R fresh] + [R replayed] + [remote], B trajectories in all.
//  * local search (local_search.loops = L > 0; local_search.h, Kim et al. 2024): the F
//    fresh trajectories are M = floor(F / (1 + L)) sampled from s0 and searched, then
//    F - M (1 + L) more from s0, then the M proposals of each of the L rounds, accepted or
//    not. All F count as fresh: the budget, the terminating states submitted to a buffer
//    manager and the modes found include every proposal.
//
// Loss: make_loss(train) (losses.h: tb, zvar, db, modified_db, subtb, fm); the model
// gets a logF head when the loss needs one. For losses without a learned logZ, the
// model's logZ parameter receives no gradient and holds the loss' estimate of log Z
// from the latest batch (taken before that batch's optimizer step).
//
// Optimizer: AdamW with two parameter groups, PF/PB/logF at train.lr (weight decay
// train.weight_decay; 0 = plain Adam, the default) and logZ at train.lr_logz (no
// weight decay), like train_hypergrid's _make_optimizer_for. Implemented by FlatAdamW
// (flat_adam.h: parameters become views of one buffer per group; same update), or by
// torch::optim::AdamW with engine.optimizer torch.
//
// Engine options (runtime/gfn/engine_options.h, YAML `engine:`): given to the
// constructor; they choose the evaluator and the table / optimizer / MLP fast paths; the
// defaults are the fast paths.
//
// Seeding: the constructor calls torch::manual_seed(seed) before building the model
// (LibTorch initialises Linear layers from the global generator), and sampling uses
// a private generator seeded with `seed`, so two Learners with the same options and
// seed produce the same trajectories and losses (single-threaded). Validation uses a
// third, separate generator so validating never changes the training stream.
//
// Threads: the constructor calls at::set_num_threads(train.num_threads) (a process-
// wide setting for LibTorch's intra-op pool) and, if the loaded BLAS is OpenBLAS,
// openblas_set_num_threads with the same value, since LibTorch does not forward the
// setting to OpenBLAS' own pool (use_threads() applies them again). With engine.split_batch
// and train.num_threads T > 1 both are 1 instead and on-policy iterations split their batch
// over T threads, one model copy each (fast/batch_split.h). With engine.split_rows (the
// default) and the saved-outputs evaluator, OpenBLAS gets 1 thread and the rows of the MLP's
// GEMM chains are split over the T intra-op threads (fast/row_split.h); with another
// evaluator OpenBLAS gets T threads and LibTorch 1.
//
// Not thread-safe: one thread owns a Learner.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/buffer/options.h"
#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/options.h"
#include "runtime/gfn/trajectories.h"
#include "runtime/gfn/validation.h"

namespace gfn::buffer {
class ReplayTable;
struct PackedTrajectories;
}  // namespace gfn::buffer

namespace torch::nn {
class Module;
}
namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Evaluator;
class BatchSplit;
enum class EvaluatorKind;  // evaluator.h
class Loss;
class Preprocessor;
struct SamplerOptions;

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
  /// trainer submits to its manager; replayed and remote ones are not included).
  at::Tensor terminating_states;
  at::Tensor log_rewards;       ///< float32 [F]
  std::int64_t n_fresh = 0;     ///< fresh trajectories in the trained batch
  std::int64_t n_replayed = 0;  ///< trajectories from the local replay buffer
  std::int64_t n_remote = 0;    ///< remote trajectories (queued ones, then backward ones)
  /// The F freshly sampled trajectories (what a trainer submits with a full payload;
  /// saved outputs cleared). Empty (B = 0) when the batch had no fresh part.
  Trajectories fresh;
  std::int64_t n_new_modes = 0;  ///< modes seen for the first time in this batch
  /// True if the loss used the outputs kept while sampling (no PF forward in the loss).
  bool reused_logprobs = false;
  PhaseDurations seconds;
};

class Learner {
 public:
  /// Throws std::invalid_argument naming the option for invalid values (see
  /// make_environment, make_preprocessor, GFlowNetModel, make_loss; lr, lr_logz, weight_decay must
  /// be
  /// >= 0; num_threads >= 1; epsilon in [0, 1]; temperature > 0).
  /// replay: the local replay buffer (kind "none" = no buffer); throws
  /// std::invalid_argument naming the replay.* option for invalid values.
  /// engine: the numerical paths (engine_options.h; the defaults are the fast paths).
  /// model.init_from (non-empty): the parameters start from that state dict, torchgfn names
  /// (runtime/output/torchgfn_import.h); throws std::runtime_error / std::invalid_argument
  /// naming the file and the tensor when it cannot be read or does not match the model.
  /// local_search: Local Search GFlowNets (local_search_options.h; loops 0 = off).
  Learner(const EnvOptions& env, const ModelOptions& model, const TrainOptions& train,
          std::uint64_t seed, const buffer::ReplayOptions& replay = {},
          const EngineOptions& engine = {}, const LocalSearchOptions& local_search = {});
  ~Learner();
  Learner(const Learner&) = delete;
  Learner& operator=(const Learner&) = delete;

  /// Sample batch_size >= 1 trajectories (train.epsilon / train.temperature), mix in
  /// replayed and remote ones (see above), compute the loss, backward, optimizer step.
  /// Throws std::invalid_argument if batch_size < 1.
  IterationResult train_iteration(std::int64_t batch_size);

  /// Queues replayed terminating states (remote sampling): int64 [n, state_dim] valid
  /// terminating states of env(); the next train_iteration trains on backward trajectories
  /// from (at most batch_size of) them, and drops the rest. Multiple calls accumulate.
  /// log_rewards (float32 [n], optional) are only checked for shape: the loss uses
  /// env().log_reward of the states. Throws std::invalid_argument for bad shapes, invalid
  /// states, or states that cannot terminate.
  void queue_replayed_states(const at::Tensor& states, const at::Tensor& log_rewards = {});
  /// Remote states waiting for the next iteration.
  std::int64_t queued_replayed_states() const;
  /// Queues remote trajectories given as packed forward action sequences (exit last;
  /// runtime/buffer/packed_trajectories.h; full payloads): rebuilt now by replaying
  /// the actions from s0 in env()
  /// (trajectories_from_actions; log rewards = env().log_reward of the terminating states),
  /// trained on at the next iteration before any queued states (at most batch_size remote
  /// items in all; the rest are dropped). Throws std::invalid_argument naming the
  /// trajectory for an invalid sequence (trajectory_ops.h).
  void queue_replayed_trajectories(const buffer::PackedTrajectories& sequences);
  std::int64_t queued_replayed_trajectories() const { return queued_trajs_.n_trajectories; }
  /// Remote trajectories trained on as given (not sampled backward); <= remote_trained().
  std::int64_t remote_trajectories_trained() const { return remote_trajs_trained_; }
  /// Totals since construction: remote (backward) and local-buffer trajectories trained on.
  std::int64_t remote_trained() const { return remote_trained_; }
  std::int64_t replayed_trained() const { return replayed_trained_; }
  /// Totals since construction: local search proposals trained on, and those accepted as
  /// the next round's search point (local_search.h).
  std::int64_t local_search_proposals() const { return ls_proposals_; }
  /// Trajectories sampled forward since construction (from s0 and local search's
  /// re-completions, including fresh ones a local replay buffer then replaced; not the
  /// replayed or remote ones): what issue 25's budget counts.
  std::int64_t trajectories_sampled() const { return sampled_; }
  std::int64_t local_search_accepted() const { return ls_accepted_; }
  /// Iterations since construction whose loss reused the sampling forward (see above).
  std::int64_t reused_logprob_iterations() const { return reused_iterations_; }
  /// Iterations since construction whose batch was split over threads (engine.split_batch).
  std::int64_t split_iterations() const { return split_iterations_; }
  /// The batch the last train_iteration trained on (fresh, replayed, remote; layout of
  /// trajectories.h; log rewards log R, not times train.reward_exponent). Undefined tensors
  /// before the first iteration.
  const Trajectories& last_batch() const { return last_batch_; }
  /// The local replay buffer; null when replay.kind is "none".
  const buffer::ReplayTable* replay_buffer() const { return replay_.get(); }

  /// Called by train_iteration after backward and before the optimizer step, e.g. to
  /// average gradients across trainers (runtime/distributed/model_averaging.h). Its wall
  /// time is reported in PhaseDurations::gradient_hook. Pass {} to remove it.
  void set_gradient_hook(std::function<void()> hook) { gradient_hook_ = std::move(hook); }

  /// Respawn (runtime/distributed/spawn/): forgets the optimizer state (AdamW moments and
  /// step count, either optimizer), as if the optimizer had just been built; the
  /// parameters are untouched.
  void reset_optimizer_state();
  /// Respawn with spawn.strategy reset_weights: a freshly initialised model of the same
  /// options, built from torch::manual_seed(seed) as the constructor does (LibTorch's
  /// global generator is reseeded), blended into the parameters in place:
  /// momentum * own + (1 - momentum) * fresh (momentum in [0, 1]). Views stay valid
  /// (the flat optimizer's buffers are written, not replaced).
  void reinitialize_parameters(std::uint64_t seed, double momentum = 0.0);
  /// Per-agent exploration (spawn.random_strategies): the epsilon-greedy share and the
  /// temperature of the following iterations' sampling. Throws std::invalid_argument for
  /// epsilon outside [0, 1] or temperature <= 0.
  void set_exploration(double epsilon, double temperature);
  /// sigma_0 of the noisy layers of the models reinitialize_parameters builds (> 0).
  void set_noisy_std_init(double sigma0) { model_options_.noisy_std_init = sigma0; }
  double epsilon() const { return train_.epsilon; }
  double temperature() const { return train_.temperature; }

  /// Metrics of the current model (validation.h): exact metrics on an enumerable
  /// environment, modes found on any environment that defines modes.
  /// `visited` (optional): the terminating states visited during training, for
  /// l1_visited (torchgfn's l1_dist; the caller records IterationResult::terminating_states
  /// into it, see VisitedTerminatingStates in visited_states.h).
  ValidationResult validate(const ValidationOptions& options,
                            const VisitedTerminatingStates* visited = nullptr);

  /// The distinct mode ids hit by n fresh on-policy samples of the current PF (sampled_modes,
  /// validation.h; the mean weights with NoisyNet layers), from the validation generator.
  std::vector<std::int64_t> fresh_sample_modes(std::int64_t n);

  /// The model holding PF, PB and logZ: parameters() lists every trainable tensor
  /// (model averaging across ranks operates on it).
  torch::nn::Module& model();
  GFlowNetModel& gflownet();
  double log_z() const;
  const Environment& env() const { return *env_; }
  const Preprocessor& preprocessor() const { return *preprocessor_; }
  const ModeTracker* mode_tracker() const { return modes_.get(); }  ///< null without modes
  std::int64_t iterations_done() const { return iterations_; }
  /// True if train_iteration evaluates the network once per iteration on every state
  /// (the state-table evaluator, runtime/gfn/fast/state_table_evaluator.h) instead of per
  /// sampling step plus once for the loss.
  bool uses_state_table() const;
  /// The evaluator chosen in the constructor (evaluator.h, make_evaluator).
  EvaluatorKind evaluator_kind() const;
  /// The engine options given to the constructor.
  const EngineOptions& engine() const { return engine_; }
  /// What the engine options resolved to (summary.json "engine"): state_table on | off,
  /// table_backward manual | autograd | unused (no table), fused_tb on | off | unused,
  /// optimizer flat | torch, adam_kernel (FlatAdamW::kernel_name, or torch), plain_loops
  /// on | off, reuse_logprobs on | off (the generic path) | unused, fused_sampler on | off |
  /// unused (not the saved-outputs evaluator) | "unused (no row dynamics)", precision fp32 |
  /// bf16 | "bf16 unused (reference evaluator)", split_batch "T parts" | off | "unused (state
  /// table)", split_rows "T threads" | off | "unused (<kind> evaluator)".
  std::map<std::string, std::string> engine_paths() const;

  /// Applies this Learner's thread counts again (the constructor's at::set_num_threads and
  /// openblas_set_num_threads; process-wide), e.g. before an iteration when two Learners
  /// of different train.num_threads share a process (gfn-bench-train --versus). Cheap.
  void use_threads() const;

  /// Checkpoints (docs/checkpoints.md "Checkpoint and resume"; runtime/gfn/learner_state.cc):
  /// writes everything the next iterations depend on — parameters and buffers of the model, the
  /// optimizer state (FlatAdamW moments and step, or torch::optim::AdamW's state), the
  /// sampling, validation and LibTorch default CPU generators, the iteration and
  /// trajectory counters, the exploration settings, the mode tracker, the queued remote
  /// states and trajectories (the latter as packed action sequences, replayed on load) and
  /// the local replay buffer (replay.kind: its items, samplers' order and generator,
  /// runtime/buffer/table_state.h). A Learner built with the same options and seed, then
  /// given load_state, continues bit-identically (single-threaded).
  void save_state(torch::serialize::OutputArchive& archive) const;
  /// Restores what save_state wrote. Throws std::runtime_error (naming the entry) when the
  /// archive lacks an entry or a tensor's shape differs (another model or environment).
  void load_state(torch::serialize::InputArchive& archive);

 private:
  void load_init_from(const std::string& path);  ///< model.init_from, before the optimizer
  struct Optim;
  TrainOptions train_;
  ModelOptions model_options_;  ///< to build a fresh model (reinitialize_parameters)
  EngineOptions engine_;
  std::unique_ptr<Environment> env_;
  std::unique_ptr<Preprocessor> preprocessor_;
  std::shared_ptr<GFlowNetModel> model_;
  std::unique_ptr<Loss> loss_;
  std::unique_ptr<Optim> optim_;
  std::unique_ptr<ModeTracker> modes_;
  at::Generator sample_gen_;
  at::Generator validation_gen_;
  std::int64_t iterations_ = 0;
  std::function<void()> gradient_hook_;
  buffer::ReplayOptions replay_options_;
  std::unique_ptr<buffer::ReplayTable> replay_;
  at::Tensor queued_states_;   ///< int64 [q, state_dim] or undefined
  Trajectories queued_trajs_;  ///< remote trajectories for the next iteration (B may be 0)
  std::int64_t remote_trajs_trained_ = 0;
  std::int64_t remote_trained_ = 0;
  std::int64_t replayed_trained_ = 0;
  LocalSearchOptions local_search_;
  std::int64_t ls_proposals_ = 0;
  std::int64_t sampled_ = 0;
  std::int64_t ls_accepted_ = 0;
  Trajectories last_batch_;
  /// The numerical path (evaluator.h), chosen once in the constructor (make_evaluator).
  std::unique_ptr<Evaluator> evaluator_;

  bool reuse_logprobs_ = false;  ///< engine.reuse_logprobs and the loss can reuse (engine_paths)
  std::int64_t reused_iterations_ = 0;
  /// engine.split_batch with train.num_threads > 1 (fast/batch_split.h); null otherwise.
  std::unique_ptr<BatchSplit> split_;
  std::string split_path_ = "off";               ///< engine_paths()["split_batch"]
  int intra_op_threads_ = 1, blas_threads_ = 1;  ///< set by the constructor (use_threads)
  std::int64_t split_iterations_ = 0;

  /// Sample (or assemble) the batch, its loss and backward on this thread; the loss.
  at::Tensor forward_backward(std::int64_t batch_size, const SamplerOptions& options,
                              IterationResult& r, at::Tensor& value_log_z);
  /// The same split over split_'s threads; the batch's loss.
  at::Tensor forward_backward_split(std::int64_t batch_size, const SamplerOptions& options,
                                    IterationResult& r);

  /// n fresh trajectories: from s0 (the evaluator), with local search's proposals when on.
  Trajectories sample_fresh(std::int64_t n, const SamplerOptions& options);
  /// The batch of an iteration with a replay buffer or queued remote states.
  Trajectories mixed_batch(std::int64_t batch_size, const SamplerOptions& options,
                           IterationResult& r);
};

}  // namespace gfn::core
