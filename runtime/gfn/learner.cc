#include "runtime/gfn/learner.h"
#include "runtime/gfn/learner_optim.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <torch/optim/adamw.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/table.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/batch_split.h"
#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/flat_adam.h"
#include "runtime/gfn/fast/make_evaluator.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/fast/row_split.h"
#include "runtime/gfn/flat_parameters.h"
#include "runtime/gfn/local_search.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectory_ops.h"
#include "runtime/output/torchgfn_import.h"

namespace gfn::core {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// again: Learner::use_threads (set_openmp_threads, fast/row_split.h, instead of
// at::set_num_threads, whose pthreadpool rebuild costs milliseconds).
void set_threads(int n, int blas, bool again) {
  if (at::get_num_threads() != n) again ? set_openmp_threads(n) : at::set_num_threads(n);
  // OpenBLAS keeps its own thread pool; LibTorch's setting does not reach it.
  using SetFn = void (*)(int);
  if (auto fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(blas);
}

void check_train(const TrainOptions& t) {
  auto bad = [](const std::string& what, double v) {
    throw std::invalid_argument("train." + what + ": invalid value " + std::to_string(v));
  };
  if (!(t.lr >= 0)) bad("lr", t.lr);
  if (!(t.lr_logz >= 0)) bad("lr_logz", t.lr_logz);
  if (!(t.weight_decay >= 0)) bad("weight_decay", t.weight_decay);
  if (t.num_threads < 1) bad("num_threads", t.num_threads);
  if (!(t.epsilon >= 0 && t.epsilon <= 1)) bad("epsilon", t.epsilon);
  if (!(t.temperature > 0)) bad("temperature", t.temperature);
  if (!(t.reward_exponent > 0) || !std::isfinite(t.reward_exponent)) {
    bad("reward_exponent", t.reward_exponent);
  }
  if (t.reward_exponent != 1.0 && t.loss == LossKind::kModifiedDB) {
    throw std::invalid_argument(
        "train.reward_exponent: not supported with loss modified_db (it reads the rewards of "
        "every state from the environment); use 1");
  }
}

const char* on_off(bool on) { return on ? "on" : "off"; }

// engine.split_batch splits iterations whose loss is a mean over trajectories and whose
// batch is fresh trajectories from one sampling pass (fast/batch_split.h).
void check_split_batch(const TrainOptions& train, const ModelOptions& model,
                       const buffer::ReplayOptions& replay, const LocalSearchOptions& ls) {
  const auto refuse = [](const std::string& why) {
    throw std::invalid_argument("engine.split_batch with train.num_threads > 1: " + why +
                                "; use engine.split_batch: false (intra-op threads)");
  };
  if (train.loss != LossKind::kTB) refuse("needs train.loss tb (a mean over trajectories)");
  if (model.n_noisy_layers > 0) refuse("not with noisy layers (model.n_noisy_layers)");
  if (ls.loops > 0) refuse("not with local search (local_search.loops)");
  if (replay.kind != buffer::ReplayKind::kNone)
    refuse(std::string("not with replay.kind ") + config::enum_name(replay.kind));
}

void check_engine(const EngineOptions& engine) {
  if (engine.precision == Precision::kBf16 && !bf16_gemm_supported()) {
    throw std::invalid_argument(
        "engine.precision: bf16 needs a CPU with bfloat16 instructions (AVX512_BF16 or AMX); "
        "oneDNN finds " +
        bf16_gemm_isa() + " on this one. Use engine.precision: fp32");
  }
}

}  // namespace

Learner::Learner(const EnvOptions& env, const ModelOptions& model, const TrainOptions& train,
                 std::uint64_t seed, const buffer::ReplayOptions& replay,
                 const EngineOptions& engine, const LocalSearchOptions& local_search)
    : train_(train),
      model_options_(model),
      engine_(engine),
      sample_gen_(at::detail::createCPUGenerator(seed)),
      validation_gen_(at::detail::createCPUGenerator(seed ^ 0x9E3779B97F4A7C15ULL)) {
  check_train(train);
  check_engine(engine);
  const bool split = engine.split_batch && train.num_threads > 1;
  if (split) check_split_batch(train, model, replay, local_search);
  // Split batch: the parts are the parallelism, one intra-op thread each
  // (fast/batch_split.h). Split rows: the row ranges run their GEMMs on the intra-op
  // (OpenMP) threads, one BLAS thread each (fast/row_split.h).
  intra_op_threads_ = split ? 1 : train.num_threads;
  blas_threads_ = split || splits_rows(engine, train.num_threads) ? 1 : train.num_threads;
  set_threads(intra_op_threads_, blas_threads_, /*again=*/false);
  env_ = make_environment(env);
  preprocessor_ = env_->make_preprocessor(env.preprocessor);
  loss_ = make_loss(train, *env_);
  torch::manual_seed(seed);
  model_ = std::make_shared<GFlowNetModel>(preprocessor_->output_dim(), env_->n_actions(), model,
                                           loss_->needs_log_flow());
  if (!model.init_from.empty()) load_init_from(model.init_from);

  std::vector<torch::Tensor> net_params;
  for (const auto& kv : model_->named_parameters()) {
    if (kv.key() != "logZ") net_params.push_back(kv.value());
  }
  optim_ = std::make_unique<Optim>();
  if (engine.optimizer == OptimizerKind::kFlat) {
    optim_->flat = std::make_unique<FlatAdamW>(
        std::vector<FlatAdamW::Group>{{net_params, train.lr, train.weight_decay},
                                      {{model_->log_z()}, train.lr_logz, 0.0}},
        FlatAdamPaths{engine.fused_adam, engine.plain_loops});
  } else {
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(net_params,
                        std::make_unique<torch::optim::AdamWOptions>(
                            torch::optim::AdamWOptions(train.lr).weight_decay(train.weight_decay)));
    groups.emplace_back(std::vector<torch::Tensor>{model_->log_z()},
                        std::make_unique<torch::optim::AdamWOptions>(
                            torch::optim::AdamWOptions(train.lr_logz).weight_decay(0.0)));
    optim_->adam = std::make_unique<torch::optim::AdamW>(std::move(groups));
  }
  if (env_->n_modes() > 0) modes_ = std::make_unique<ModeTracker>(*env_);
  reuse_logprobs_ = engine.reuse_logprobs && loss_->reuses_sampled_outputs();

  if (local_search.loops < 0 || !(local_search.back_ratio > 0 && local_search.back_ratio <= 1)) {
    throw std::invalid_argument(
        "local_search.loops must be >= 0 and local_search.back_ratio in (0, 1]");
  }
  local_search_ = local_search;
  replay_options_ = replay;
  if (replay.kind != buffer::ReplayKind::kNone) {
    if (!(replay.fraction >= 0 && replay.fraction <= 1)) {
      throw std::invalid_argument("replay.fraction must be in [0, 1], got " +
                                  std::to_string(replay.fraction));
    }
    if (replay.warmup < 0) {
      throw std::invalid_argument("replay.warmup must be >= 0, got " +
                                  std::to_string(replay.warmup));
    }
    replay_ = std::make_unique<buffer::ReplayTable>(buffer::local_table_options(
        replay.kind, replay.capacity, replay.cutoff, replay.p_norm, seed ^ 0xD1B54A32D192ED03ULL));
  }
  // The numerical path, chosen once (make_evaluator, runtime/gfn/fast/make_evaluator.h).
  // Every iteration may reuse the sampling forward: what is saved are the model's own
  // outputs (PF logits before ε or temperature touch them), so the loss' PF is the model's
  // also when the sampler explores (torchgfn's save_logprobs keeps the sampling
  // distribution's log-probs and must recompute off-policy; these need not). NoisyNet layers
  // do not prevent it either (the noise is drawn once per iteration, before sampling, and the
  // loss uses that same noise). With replay fraction 1 every fresh trajectory is replaced
  // once the buffer is warm, so saving would be wasted.
  const bool reusable = reuse_logprobs_ && !(replay_ && replay.fraction >= 1.0);
  evaluator_ = make_evaluator(*model_, *preprocessor_, *env_, engine, reusable, train.num_threads);
  if (splits_rows(engine, train.num_threads) &&
      evaluator_->kind() != EvaluatorKind::kSavedOutputs) {
    // Split rows asked for, but this evaluator's GEMMs are ATen's: OpenBLAS gets the threads
    // and ATen one, since the start-up chose libgomp's spin count for split rows and spinning
    // OpenMP threads would take the cores OpenBLAS's threads need (reference evaluator, 8-D
    // batch 1024: 44-46 ms per iteration with both at T, 31-33 with split_rows false).
    intra_op_threads_ = 1;
    blas_threads_ = train.num_threads;
    set_threads(intra_op_threads_, blas_threads_, /*again=*/false);
  }
  if (split && evaluator_->kind() == EvaluatorKind::kStateTable) {
    split_path_ = "unused (state table)";
  } else if (split) {
    split_ = std::make_unique<BatchSplit>(train.num_threads, env, model, train, engine, reusable);
    split_path_ = std::to_string(train.num_threads) + " parts";
  }
}

void Learner::load_init_from(const std::string& path) {
  output::NamedTensors params;
  for (const auto& p : model_->named_parameters()) params.emplace_back(p.key(), p.value());
  // A logZ absent from the file (torchgfn's DBGFlowNet has none) keeps its initial value.
  output::load_state_dict(params, output::read_torch_dict(path), path, output::Naming::kTorchgfn);
}

void Learner::queue_replayed_states(const at::Tensor& states, const at::Tensor& log_rewards) {
  env_->check_states(states, "Learner::queue_replayed_states");
  if (log_rewards.defined() && (log_rewards.dim() != 1 || log_rewards.size(0) != states.size(0))) {
    throw std::invalid_argument("Learner::queue_replayed_states: log_rewards must be [" +
                                std::to_string(states.size(0)) + "], got " +
                                shape_string(log_rewards));
  }
  if (states.size(0) == 0) return;
  if (!env_->can_terminate(states).all().item<bool>()) {
    throw std::invalid_argument(
        "Learner::queue_replayed_states: every state must be a terminating state");
  }
  queued_states_ =
      queued_states_.defined() ? at::cat({queued_states_, states}) : states.contiguous().clone();
}

void Learner::queue_replayed_trajectories(const buffer::PackedTrajectories& sequences) {
  if (sequences.empty()) return;
  const Trajectories t = trajectories_from_actions(*env_, sequences);
  queued_trajs_ = queued_trajs_.n_trajectories > 0 ? concat_trajectories(queued_trajs_, t) : t;
}

std::int64_t Learner::queued_replayed_states() const {
  return queued_states_.defined() ? queued_states_.size(0) : 0;
}

Trajectories Learner::sample_fresh(std::int64_t n, const SamplerOptions& sopts) {
  sampled_ += n;
  const std::int64_t loops = local_search_.loops;
  if (loops == 0 || n < 2) return evaluator_->sample(n, sopts, sample_gen_);
  // M searched from s0, the remainder from s0 unsearched, then M proposals per round (at
  // most n - 1 rounds when n < 1 + loops).
  const std::int64_t m = std::max<std::int64_t>(1, n / (1 + loops));
  const std::int64_t rounds = std::min(loops, (n - 1) / m);
  Trajectories batch = evaluator_->sample(n - rounds * m, sopts, sample_gen_);
  const bool attach = batch.has_saved_outputs();
  at::Tensor x = batch.terminating_states.narrow(0, 0, m);
  at::Tensor log_r = batch.log_rewards.narrow(0, 0, m);
  const PolicyFunction pf = evaluator_->forward_policy();
  const PolicyFunction pb = evaluator_->backward_policy();
  for (std::int64_t i = 0; i < rounds; ++i) {
    LocalSearchRound round =
        local_search_round(*env_, pf, pb, x, log_r, local_search_, sopts, sample_gen_);
    if (attach) evaluator_->attach_outputs(round.proposals);
    batch = concat_trajectories(batch, round.proposals);
    ls_proposals_ += m;
    ls_accepted_ += round.accepted.sum().item<std::int64_t>();
    x = round.next_states;
    log_r = round.next_log_rewards;
  }
  return batch;
}

Trajectories Learner::mixed_batch(std::int64_t batch_size, const SamplerOptions& sopts,
                                  IterationResult& r) {
  const std::int64_t n_remote_trajs = std::min(queued_replayed_trajectories(), batch_size);
  const std::int64_t n_remote = std::min(queued_replayed_states() + n_remote_trajs, batch_size);
  const std::int64_t n_fresh = batch_size - n_remote;
  const Trajectories fresh = sample_fresh(n_fresh, sopts);
  // Fresh outputs kept: the replayed and remote parts get theirs from one model pass
  // each (a recomputation under the current parameters), so the whole batch keeps them.
  const bool attach = fresh.has_saved_outputs();
  r.terminating_states = fresh.terminating_states;
  r.log_rewards = fresh.log_rewards;
  r.fresh = fresh;
  r.fresh.clear_saved_outputs();
  Trajectories batch = fresh;
  r.n_fresh = n_fresh;
  if (replay_ && n_fresh > 0) {
    // torchgfn train_hypergrid: add the fresh batch first, then sample from the buffer.
    // Trajectories -> packed -> table: the one layout change on the way in.
    const at::Tensor xs = fresh.terminating_states.contiguous().to(at::kLong);
    const at::Tensor lr = fresh.log_rewards.contiguous().to(at::kFloat);
    replay_->add(std::vector<std::int64_t>(xs.data_ptr<std::int64_t>(),
                                           xs.data_ptr<std::int64_t>() + xs.numel()),
                 std::vector<float>(lr.data_ptr<float>(), lr.data_ptr<float>() + lr.numel()),
                 static_cast<int>(xs.size(1)), pack_trajectories(fresh));
    // A buffer smaller than the requested share (e.g. torchgfn's FM setting: capacity 100,
    // batch 128) gives all it holds once full, as torchgfn's Trajectories.sample does.
    const auto n_replay = std::min(static_cast<std::int64_t>(std::llround(
                                       replay_options_.fraction * static_cast<double>(n_fresh))),
                                   replay_->capacity());
    if (n_replay > 0 && replay_->size() >= std::max(replay_options_.warmup, n_replay)) {
      // table -> packed -> Trajectories: the one layout change on the way out.
      const buffer::TableBatch drawn = replay_->sample(n_replay);
      Trajectories replayed = trajectories_from_actions(*env_, drawn.trajectories,
                                                        at::tensor(drawn.log_rewards, at::kFloat));
      if (attach) evaluator_->attach_outputs(replayed);
      batch = concat_trajectories(take_trajectories(fresh, n_fresh - n_replay), replayed);
      r.n_fresh = n_fresh - n_replay;
      r.n_replayed = n_replay;
      replayed_trained_ += n_replay;
    }
  }
  if (n_remote_trajs > 0) {  // remote trajectories as given (full payloads)
    Trajectories remote = take_trajectories(queued_trajs_, n_remote_trajs);
    if (attach) evaluator_->attach_outputs(remote);
    batch = concat_trajectories(batch, remote);
    remote_trajs_trained_ += n_remote_trajs;
  }
  queued_trajs_ = Trajectories();
  if (n_remote > n_remote_trajs) {
    const at::Tensor xs = queued_states_.narrow(0, 0, n_remote - n_remote_trajs);
    const auto seqs =
        sample_backward_actions(*env_, evaluator_->backward_policy(), xs, sample_gen_);
    Trajectories remote = trajectories_from_actions(*env_, seqs);
    if (attach) evaluator_->attach_outputs(remote);
    batch = concat_trajectories(batch, remote);
  }
  r.n_remote = n_remote;
  remote_trained_ += n_remote;
  queued_states_ = at::Tensor();
  return batch;
}

Learner::~Learner() = default;

// Sample (or assemble) the batch, its loss, backward into the zeroed gradients: one
// model on the calling thread. Returns the loss; sets value_log_z to the loss' estimate
// of log Z (undefined for losses with a learned logZ).
at::Tensor Learner::forward_backward(std::int64_t batch_size, const SamplerOptions& sopts,
                                     IterationResult& r, at::Tensor& value_log_z) {
  auto t = Clock::now();
  Trajectories trajs;
  if (!replay_ && !queued_states_.defined() && queued_trajs_.n_trajectories == 0) {
    trajs = sample_fresh(batch_size, sopts);
    r.terminating_states = trajs.terminating_states;
    r.log_rewards = trajs.log_rewards;
    r.fresh = trajs;
    r.fresh.clear_saved_outputs();
    r.n_fresh = batch_size;
  } else {
    trajs = mixed_batch(batch_size, sopts, r);
  }
  r.seconds.sample = seconds_since(t);
  r.reused_logprobs = trajs.has_saved_outputs();
  last_batch_ = trajs;
  last_batch_.clear_saved_outputs();  // do not hold the iteration's graph

  if (train_.reward_exponent != 1.0) {
    // The loss' target R^beta: log rewards times beta (r.log_rewards keeps log R).
    trajs.log_rewards = trajs.log_rewards * train_.reward_exponent;
  }
  t = Clock::now();
  const LossValue value = evaluator_->loss(*loss_, trajs, model_->log_z());
  const at::Tensor& loss = value.loss;
  value_log_z = value.log_z;
  r.seconds.loss += seconds_since(t);

  t = Clock::now();
  optim_->zero_grad();
  if (engine_.plain_loops && loss.dim() == 0 && loss.scalar_type() == at::kFloat &&
      loss.device().is_cpu()) {
    // Speed (plain_loops.h): the seed gradient d loss / d loss = 1 is a constant tensor
    // (only read by the graph's first node), so backward() need not build it with
    // ones_like on every iteration (4 ATen calls). Same gradients.
    static thread_local const at::Tensor unit = at::ones({}, at::kFloat);
    loss.backward(unit);
  } else {
    loss.backward();
  }
  r.seconds.backward = seconds_since(t);
  return loss;
}

// The same with the batch split over engine.split_batch's parts (fast/batch_split.h):
// fresh on-policy trajectories only (no replayed or remote part).
at::Tensor Learner::forward_backward_split(std::int64_t batch_size, const SamplerOptions& sopts,
                                           IterationResult& r) {
  optim_->zero_grad();
  sampled_ += batch_size;
  const SplitIteration it = split_->run({model_.get(), evaluator_.get(), loss_.get()}, batch_size,
                                        sopts, sample_gen_, train_.reward_exponent);
  r.terminating_states = it.batch.terminating_states;
  r.log_rewards = it.batch.log_rewards;
  r.fresh = it.batch;
  r.n_fresh = batch_size;
  r.reused_logprobs = it.reused_logprobs;
  r.seconds.sample = it.sample_s;
  r.seconds.loss += it.loss_s;
  r.seconds.backward = it.backward_s;
  last_batch_ = it.batch;
  ++split_iterations_;
  return it.loss;
}

IterationResult Learner::train_iteration(std::int64_t batch_size) {
  if (batch_size < 1) {
    throw std::invalid_argument("Learner::train_iteration: batch_size must be >= 1, got " +
                                std::to_string(batch_size));
  }
  IterationResult r;
  auto t = Clock::now();
  SamplerOptions sopts;
  sopts.epsilon = train_.epsilon;
  sopts.temperature = train_.temperature;
  GFlowNetModel& m = *model_;
  if (m.noisy()) m.reset_noise(sample_gen_);  // one noise draw per sampling pass
  // The state table's forward with this iteration's noise (the loss' forward pass).
  evaluator_->begin_iteration(sopts);
  r.seconds.loss = seconds_since(t);
  // Split only a batch of fresh trajectories (a replayed or remote part: one model).
  const bool split = split_ && !queued_states_.defined() && queued_trajs_.n_trajectories == 0 &&
                     batch_size >= split_->parts();
  at::Tensor value_log_z;
  const at::Tensor loss = split ? forward_backward_split(batch_size, sopts, r)
                                : forward_backward(batch_size, sopts, r, value_log_z);
  if (r.reused_logprobs) ++reused_iterations_;
  if (gradient_hook_) {
    t = Clock::now();
    gradient_hook_();
    r.seconds.gradient_hook = seconds_since(t);
  }

  t = Clock::now();
  optim_->step();
  if (value_log_z.defined()) {
    // Losses without a learned logZ report their estimate; logZ has no gradient then,
    // so Adam leaves it alone and it only carries the estimate.
    at::NoGradGuard no_grad;
    m.log_z().fill_(value_log_z.item<float>());
  }
  r.seconds.optimizer = seconds_since(t);

  r.loss = scalar_value(loss, engine_.plain_loops);  // item<double>() without 2 dispatches
  r.log_z = log_z();
  // Mode tracking only until every mode is found: afterwards no batch can add one (saves
  // Environment::mode_hits' ATen ops on every later iteration).
  if (modes_ && r.terminating_states.size(0) > 0 && modes_->n_found() < modes_->n_total()) {
    r.n_new_modes = modes_->update(r.terminating_states);
  }
  ++iterations_;
  return r;
}

namespace {

/// NoisyNet layers: the mean policy (eval mode) while it lives, then training mode again.
/// Nothing for a model without noisy layers.
class MeanWeights {
 public:
  explicit MeanWeights(GFlowNetModel& m) : m_(m.noisy() ? &m : nullptr) {
    if (m_) m_->eval();
  }
  ~MeanWeights() {
    if (m_) m_->train();
  }
  MeanWeights(const MeanWeights&) = delete;
  MeanWeights& operator=(const MeanWeights&) = delete;

 private:
  GFlowNetModel* m_;
};

}  // namespace

ValidationResult Learner::validate(const ValidationOptions& options,
                                   const VisitedTerminatingStates* visited) {
  const MeanWeights mean(*model_);
  return core::validate(*model_, *preprocessor_, *env_, options, modes_.get(), validation_gen_,
                        visited);
}

std::vector<std::int64_t> Learner::fresh_sample_modes(std::int64_t n) {
  const MeanWeights mean(*model_);
  return sampled_modes(*model_, *preprocessor_, *env_, n, validation_gen_);
}

torch::nn::Module& Learner::model() { return *model_; }
GFlowNetModel& Learner::gflownet() { return *model_; }
EvaluatorKind Learner::evaluator_kind() const { return evaluator_->kind(); }

bool Learner::uses_state_table() const { return evaluator_->kind() == EvaluatorKind::kStateTable; }

double Learner::log_z() const { return scalar_value(model_->log_z(), engine_.plain_loops); }

std::map<std::string, std::string> Learner::engine_paths() const {
  const bool table = uses_state_table();
  const bool manual = engine_.table_backward == TableBackward::kManual;
  const bool fused_tb = table && manual && engine_.fused_tb && loss_->has_fused_kernel();
  std::map<std::string, std::string> paths;
  paths["state_table"] = on_off(table);
  paths["table_backward"] = !table ? "unused" : manual ? "manual" : "autograd";
  paths["fused_tb"] = table ? on_off(fused_tb) : "unused";
  paths["optimizer"] = config::enum_name(engine_.optimizer);
  paths["adam_kernel"] = optim_->flat ? FlatAdamW::kernel_name(optim_->flat->kernel()) : "torch";
  paths["plain_loops"] = on_off(engine_.plain_loops);
  // The reference evaluator has no bf16 GEMMs (they are the fast paths' kernels).
  const bool reference = evaluator_->kind() == EvaluatorKind::kReference;
  paths["precision"] = engine_.precision == Precision::kBf16 && reference
                           ? "bf16 unused (reference evaluator)"
                           : config::enum_name(engine_.precision);
  paths["split_batch"] = split_path_;
  // Split rows: the saved-outputs evaluator's hand-written MLP (fast/row_split.h).
  paths["split_rows"] =
      !splits_rows(engine_, train_.num_threads) ? "off"
      : evaluator_->kind() != EvaluatorKind::kSavedOutputs
          ? "unused (" + std::string(evaluator_name(evaluator_->kind())) + " evaluator)"
          : std::to_string(train_.num_threads) + " threads";
  paths["reuse_logprobs"] = table ? "unused" : on_off(reuse_logprobs_);
  // The fused sampler samples the iterations of the saved-outputs evaluator only.
  paths["fused_sampler"] = evaluator_->kind() != EvaluatorKind::kSavedOutputs ? "unused"
                           : env_->row_dynamics() == nullptr ? "unused (no row dynamics)"
                                                             : on_off(engine_.fused_sampler);
  return paths;
}

void Learner::use_threads() const { set_threads(intra_op_threads_, blas_threads_, /*again=*/true); }

void Learner::reset_optimizer_state() { optim_->reset_state(); }

void Learner::set_exploration(double epsilon, double temperature) {
  TrainOptions t = train_;
  t.epsilon = epsilon;
  t.temperature = temperature;
  check_train(t);
  train_ = t;
}

void Learner::reinitialize_parameters(std::uint64_t seed, double momentum) {
  torch::manual_seed(seed);
  GFlowNetModel fresh(preprocessor_->output_dim(), env_->n_actions(), model_options_,
                      loss_->needs_log_flow());
  blend_parameters(model_->parameters(), fresh.parameters(), momentum);
}

}  // namespace gfn::core
