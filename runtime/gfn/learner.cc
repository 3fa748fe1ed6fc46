#include "runtime/gfn/learner.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/utils.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config/fields.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/exploration.h"
#include "runtime/gfn/fast/batch_split.h"
#include "runtime/gfn/fast/make_evaluator.h"
#include "runtime/gfn/fast/make_optimizer.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/flat_parameters.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/optimizer.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/sampler.h"
#include "runtime/output/torchgfn_import.h"

namespace gfn::core {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The sections' own rules (the schema's; config::check_values) are the one validation of
// the option values.
void check_options(const ModelOptions& model, const TrainOptions& train,
                   const buffer::ReplayOptions& replay, const EngineOptions& engine,
                   const LocalSearchOptions& local_search) {
  config::check_values(model_fields(), model, "model");
  config::check_values(train_fields(), train, "train");
  config::check_values(buffer::replay_fields(), replay, "replay");
  config::check_values(engine_fields(), engine, "engine");
  config::check_values(local_search_fields(), local_search, "local_search");
  if (local_search.mode == LocalSearchMode::kLangevin) {
    throw std::invalid_argument(
        "local_search.mode: langevin is for continuous targets with a gradient (env.name "
        "diffusion); discrete environments use reverse_completion");
  }
  for (const auto& [key, set] :
       {std::pair{"train.gradient_clamp", train.gradient_clamp > 0},
        std::pair{"train.temperature_start", train.temperature_start > 0},
        std::pair{"train.lr_decay", train.lr_decay != 1.0},
        std::pair{"train.loss_at_sampling_temperature", train.loss_at_sampling_temperature}}) {
    if (set) {
      throw std::invalid_argument(std::string(key) +
                                  ": only the continuous environments' learner supports it yet");
    }
  }
}

void load_init_from(GFlowNetModel& model, const std::string& path) {
  output::NamedTensors params;
  for (const auto& p : model.named_parameters()) params.emplace_back(p.key(), p.value());
  // A logZ absent from the file (torchgfn's DBGFlowNet has none) keeps its initial value.
  output::load_state_dict(params, output::read_torch_dict(path), path, output::Naming::kTorchgfn);
}

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

Learner::Learner(const EnvOptions& env, const ModelOptions& model, const TrainOptions& train,
                 std::uint64_t seed, const buffer::ReplayOptions& replay,
                 const EngineOptions& engine, const LocalSearchOptions& local_search)
    : train_(train),
      model_options_(model),
      sample_gen_(at::detail::createCPUGenerator(seed)),
      validation_gen_(at::detail::createCPUGenerator(seed ^ 0x9E3779B97F4A7C15ULL)) {
  check_options(model, train, replay, engine, local_search);
  env_ = make_environment(env);
  preprocessor_ = env_->make_preprocessor(env.preprocessor);
  loss_ = make_loss(train, *env_);
  plan_ =
      plan_engine(engine, engine_facts(engine, *env_, *loss_, model, train, replay, local_search));
  torch::manual_seed(seed);
  model_ = std::make_shared<GFlowNetModel>(preprocessor_->output_dim(), env_->n_actions(), model,
                                           loss_->needs_log_flow());
  if (!model.init_from.empty()) load_init_from(*model_, model.init_from);
  optimizer_ = make_optimizer(plan_, adamw_groups(*model_, train));
  if (env_->n_modes() > 0) modes_ = std::make_unique<ModeTracker>(*env_);
  evaluator_ = make_evaluator(plan_, *model_, *preprocessor_, *env_);
  batches_ = std::make_unique<BatchAssembly>(*env_, replay, local_search, seed);
  if (plan_.split_batch_parts > 0) {
    split_ = std::make_unique<BatchSplit>(plan_.split_batch_parts, env, model, train, plan_);
  }
}

Learner::~Learner() = default;

// Assemble the batch, its loss, backward into the zeroed gradients: one model on the
// calling thread. Returns the loss; sets value_log_z to the loss' estimate of log Z
// (undefined for losses with a learned logZ).
at::Tensor Learner::forward_backward(const BatchShares& shares, const SamplerOptions& sopts,
                                     IterationResult& r, at::Tensor& value_log_z) {
  auto t = Clock::now();
  AssembledBatch a = batches_->assemble(shares, *evaluator_, sopts, sample_gen_);
  r.terminating_states = a.fresh.terminating_states;
  r.log_rewards = a.fresh.log_rewards;
  r.fresh = std::move(a.fresh);
  r.n_fresh = a.n_fresh;
  r.n_replayed = a.n_replayed;
  r.n_remote = a.n_remote;
  r.seconds.sample = seconds_since(t);
  Trajectories& trajs = a.batch;
  r.reused_logprobs = trajs.has_saved_outputs();
  r.batch = trajs;
  r.batch.clear_saved_outputs();  // do not hold the iteration's graph

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
  optimizer_->zero_grad();
  if (plan_.plain_loops && loss.dim() == 0 && loss.scalar_type() == at::kFloat &&
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
  optimizer_->zero_grad();
  batches_->count_sampled(batch_size);
  const SplitIteration it = split_->run({model_.get(), evaluator_.get(), loss_.get()}, batch_size,
                                        sopts, sample_gen_, train_.reward_exponent);
  r.terminating_states = it.batch.terminating_states;
  r.log_rewards = it.batch.log_rewards;
  r.fresh = it.batch;
  r.batch = it.batch;
  r.n_fresh = batch_size;
  r.reused_logprobs = it.reused_logprobs;
  r.seconds.sample = it.sample_s;
  r.seconds.loss += it.loss_s;
  r.seconds.backward = it.backward_s;
  ++counts_.split;
  return it.loss;
}

IterationResult Learner::train_iteration(std::int64_t batch_size, std::int64_t extra_remote) {
  if (batch_size < 1) {
    throw std::invalid_argument("Learner::train_iteration: batch_size must be >= 1, got " +
                                std::to_string(batch_size));
  }
  IterationResult r;
  auto t = Clock::now();
  const SamplerOptions sopts{train_.epsilon, train_.temperature};
  GFlowNetModel& m = *model_;
  if (m.noisy()) m.reset_noise(sample_gen_);  // one noise draw per sampling pass
  // The state table's forward with this iteration's noise (the loss' forward pass).
  evaluator_->begin_iteration(sopts);
  r.seconds.loss = seconds_since(t);
  const BatchShares shares = batches_->shares(batch_size, extra_remote);
  r.batch_size = shares.total;
  // Split only a batch of fresh trajectories (a replayed or remote part: one model).
  const bool split = split_ && shares.fresh == shares.total &&
                     batches_->queued_states() + batches_->queued_trajectories() == 0 &&
                     shares.total >= split_->parts();
  at::Tensor value_log_z;
  const at::Tensor loss = split ? forward_backward_split(shares.total, sopts, r)
                                : forward_backward(shares, sopts, r, value_log_z);
  if (r.reused_logprobs) ++counts_.reused_logprobs;
  if (gradient_hook_) {
    t = Clock::now();
    gradient_hook_();
    r.seconds.gradient_hook = seconds_since(t);
  }

  t = Clock::now();
  optimizer_->step();
  if (value_log_z.defined()) {
    // Losses without a learned logZ report their estimate; logZ has no gradient then,
    // so Adam leaves it alone and it only carries the estimate.
    at::NoGradGuard no_grad;
    m.log_z().fill_(value_log_z.item<float>());
  }
  r.seconds.optimizer = seconds_since(t);

  r.loss = scalar_value(loss, plan_.plain_loops);  // item<double>() without 2 dispatches
  r.log_z = scalar_value(m.log_z(), plan_.plain_loops);
  // Mode tracking only until every mode is found: afterwards no batch can add one (saves
  // Environment::mode_hits' ATen ops on every later iteration).
  if (modes_ && r.terminating_states.size(0) > 0 && modes_->n_found() < modes_->n_total()) {
    r.n_new_modes = modes_->update(r.terminating_states);
  }
  ++counts_.iterations;
  return r;
}

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

void Learner::reset_optimizer_state() { optimizer_->reset_state(); }

torch::nn::Module& Learner::module() { return *model_; }

double Learner::current_log_z() const { return model_->log_z().item<double>(); }

std::int64_t Learner::n_modes() const { return env_->n_modes(); }

void Learner::set_exploration(const Exploration& e) {
  apply_exploration(e, train_, model_options_);
}

Exploration Learner::exploration() const {
  return {train_.epsilon, train_.temperature, model_options_.noisy_std_init};
}

void Learner::reinitialize_parameters(std::uint64_t seed, double momentum) {
  torch::manual_seed(seed);
  GFlowNetModel fresh(preprocessor_->output_dim(), env_->n_actions(), model_options_,
                      loss_->needs_log_flow());
  blend_parameters(model_->parameters(), fresh.parameters(), momentum);
}

}  // namespace gfn::core
