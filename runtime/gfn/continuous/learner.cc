#include "runtime/gfn/continuous/learner.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/serialize/archive.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/config/fields.h"
#include "runtime/gfn/archive_io.h"
#include "runtime/gfn/continuous/log_z_bounds.h"
#include "runtime/gfn/continuous/loss.h"
#include "runtime/gfn/continuous/trajectory_ops.h"
#include "runtime/gfn/continuous/validation.h"
#include "runtime/gfn/exploration.h"
#include "runtime/gfn/fast/flat_adam.h"
#include "runtime/gfn/fast/make_optimizer.h"
#include "runtime/gfn/flat_parameters.h"
#include "runtime/gfn/optimizer.h"

namespace gfn::core {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

[[noreturn]] void unsupported(const std::string& key) {
  throw std::invalid_argument(key + ": continuous environments do not support it yet");
}

// The sections' own rules, then what the continuous path does not have.
void check_options(const ModelOptions& model, const TrainOptions& train,
                   const EngineOptions& engine) {
  config::check_values(model_fields(), model, "model");
  config::check_values(train_fields(), train, "train");
  config::check_values(engine_fields(), engine, "engine");
  if (model.n_noisy_layers > 0) unsupported("model.n_noisy_layers");
  if (!model.init_from.empty()) unsupported("model.init_from");
  if (train.epsilon != 0.0) unsupported("train.epsilon");
  if (train.reward_exponent != 1.0) unsupported("train.reward_exponent");
  if (!continuous_loss_supported(train.loss)) {
    throw std::invalid_argument(std::string("train.loss: \"") + config::enum_name(train.loss) +
                                "\" does not train on continuous environments; use tb, zvar, "
                                "db or subtb");
  }
  if (engine.split_batch && train.num_threads > 1) unsupported("engine.split_batch");
  if (engine.precision != Precision::kFp32) unsupported("engine.precision");
}

// local_search: the section's rules; only mode langevin, without the discrete keys, on an
// environment whose reward has a gradient.
void check_local_search(const LocalSearchOptions& o, const ContinuousEnvironment& env) {
  config::check_values(local_search_fields(), o, "local_search");
  if (o.loops > 0) unsupported("local_search.loops");
  if (o.mode != LocalSearchMode::kLangevin) return;
  const LocalSearchOptions defaults;
  const char* discrete = o.back_ratio != defaults.back_ratio   ? "local_search.back_ratio"
                         : o.acceptance != defaults.acceptance ? "local_search.acceptance"
                                                               : nullptr;
  if (discrete != nullptr) {
    throw std::invalid_argument(std::string(discrete) +
                                ": only for local_search.mode reverse_completion (discrete "
                                "environments), not with mode langevin");
  }
  if (!env.has_reward_gradient()) {
    throw std::invalid_argument(
        "local_search.mode: langevin needs a reward with a gradient (env.name diffusion); "
        "environment \"" +
        env.name() + "\" has none");
  }
}

// The reference evaluator's plan (no state table, no saved outputs, no split) with the
// configured optimizer; summary.json's engine.evaluator says "continuous".
EnginePlan continuous_plan(const EngineOptions& engine, const TrainOptions& train) {
  EngineFacts f;
  f.num_threads = train.num_threads;
  f.loss = train.loss;
  f.loss_reads_sampled_states = false;
  if (engine.optimizer == OptimizerKind::kFlat && engine.fused_adam) {
    f.fused_adam_kernel = FlatAdamW::kernel_name(FlatAdamW::detect_kernel({true, true}));
  }
  EnginePlan plan = plan_engine(engine, f);
  plan.report["evaluator"] = "continuous";
  return plan;
}

// torchgfn's train_box.py: p.grad.clamp_(-c, c).nan_to_num_(0.0) for every parameter;
// train_line.py skips logZ (its only parameter with ndim 0): `skip` is then logZ.
void clamp_gradients(torch::nn::Module& model, double c, const at::Tensor* skip) {
  for (const at::Tensor& p : model.parameters()) {
    if (skip != nullptr && p.is_same(*skip)) continue;
    if (p.grad().defined()) p.mutable_grad().clamp_(-c, c).nan_to_num_(0.0);
  }
}

}  // namespace

ContinuousLearner::ContinuousLearner(const EnvOptions& env, const ModelOptions& model,
                                     const TrainOptions& train, std::uint64_t seed,
                                     const EngineOptions& engine,
                                     const LocalSearchOptions& local_search)
    : train_(train),
      model_options_(model),
      local_search_(local_search),
      seed_(seed),
      reuse_sampling_forward_(engine.reuse_logprobs),
      sample_gen_(at::detail::createCPUGenerator(seed)),
      validation_gen_(at::detail::createCPUGenerator(seed ^ 0x9E3779B97F4A7C15ULL)) {
  check_options(model, train, engine);
  parts_ = make_continuous_environment(
      env, ModelShape{model.uniform_pb, model.hidden_dim, model.n_hidden});
  check_local_search(local_search, *parts_.env);
  langevin_.step = local_search.langevin_step;
  plan_ = continuous_plan(engine, train);
  if (reuse_sampling_forward_ && parts_.pis_pf && !parts_.pis.langevin) {
    plan_.report["reuse_logprobs"] = "on (fresh batches)";
  }
  torch::manual_seed(seed);
  model_ = make_model();
  optimizer_ = make_optimizer(plan_, adamw_groups(*model_, train));
  queued_ = at::zeros({0, parts_.env->dim()}, at::kFloat);
  if (const ContinuousEnvironment* e = parts_.env.get(); e->n_modes() > 0) {
    modes_ = std::make_unique<ModeTracker>(
        "environment \"" + e->name() + "\"", e->n_modes(),
        [e](const at::Tensor& states) { return e->mode_hits(states); });
  }
}

ContinuousLearner::~ContinuousLearner() = default;

std::shared_ptr<ContinuousModel> ContinuousLearner::make_model() const {
  ContinuousModelOptions o;
  o.hidden_dim = model_options_.hidden_dim;
  o.n_hidden = model_options_.n_hidden;
  o.tied = model_options_.tied;
  o.uniform_pb = model_options_.uniform_pb || parts_.pb_fixed;
  o.fixed_pb_output = parts_.fixed_pb_output;
  o.pf_constant_outputs = parts_.pf_constant_outputs;
  o.with_log_flow = continuous_loss_needs_log_flow(train_.loss);
  o.pis_pf = parts_.pis_pf;
  o.pis = parts_.pis;
  o.policy_input_dim = parts_.policy_input_dim;
  return std::make_shared<ContinuousModel>(parts_.env->dim(), parts_.pf->n_outputs(),
                                           parts_.pb->n_outputs(), o);
}

ContinuousTrajectories ContinuousLearner::sample_batch(std::int64_t batch_size,
                                                       std::int64_t extra_remote,
                                                       IterationResult& r) {
  const std::int64_t queued = queued_.size(0);
  const std::int64_t total = batch_size + std::min(queued, extra_remote);
  const std::int64_t n_remote = std::min(queued, total);
  const ContinuousGFlowNet gfn = gflownet();
  ContinuousSamplerOptions sampling;
  sampling.temperature = train_.sampling_temperature(counts_.iterations);
  // A batch of fresh trajectories only keeps the sampling forward for the loss (diffusion's
  // PISGradNet; continuous_log_probs); mixed with remote or searched ones it is recomputed.
  sampling.save_pf_activations = reuse_sampling_forward_ && n_remote == 0 && !searching();
  const ContinuousTrajectories fresh =
      sample_continuous_trajectories(gfn, total - n_remote, sampling, sample_gen_);
  r.terminating_states = fresh.terminating_states;
  r.log_rewards = fresh.log_rewards;
  r.batch_size = total;
  r.n_fresh = total - n_remote;
  r.n_remote = n_remote;
  if (modes_ && r.n_fresh > 0) r.n_new_modes = modes_->update(fresh.terminating_states);
  batch_counts_.sampled += r.n_fresh;
  at::Tensor back = queued_.narrow(0, 0, n_remote);  // the states PB walks back from
  if (n_remote > 0) {
    queued_ = at::zeros({0, parts_.env->dim()}, at::kFloat);
    batch_counts_.remote += n_remote;
  }
  if (searching()) {
    const std::int64_t n_own = std::min<std::int64_t>(local_search_.langevin_fresh, r.n_fresh);
    back = local_search(at::cat({back, fresh.terminating_states.narrow(0, 0, n_own)}), r);
    r.batch_size += n_own;
  }
  if (back.size(0) == 0) return fresh;
  // PB itself (temperature 1) walks back from the replayed (and searched) states.
  const ContinuousTrajectories remote =
      sample_backward_continuous_trajectories(gfn, back, {}, sample_gen_);
  return concat_continuous_trajectories(fresh, remote);
}

bool ContinuousLearner::searching() const {
  return local_search_.mode == LocalSearchMode::kLangevin &&
         counts_.iterations % local_search_.langevin_every == 0;
}

at::Tensor ContinuousLearner::local_search(const at::Tensor& states, IterationResult& r) {
  const ContinuousEnvironment& env = *parts_.env;
  LangevinOptions o;
  o.steps = local_search_.langevin_steps;
  o.adapt = local_search_.langevin_adapt;
  o.target_acceptance = local_search_.target_acceptance;
  const LangevinResult found =
      langevin_search([&env](const at::Tensor& x) { return env.log_reward_and_gradient(x); },
                      env.target_coordinates(states).contiguous(), o, langevin_, sample_gen_);
  const at::Tensor searched = env.target_states(found.x);
  r.terminating_states = at::cat({r.terminating_states, searched});
  r.log_rewards = at::cat({r.log_rewards, found.log_reward});
  r.n_local_search = searched.size(0);
  r.local_search_proposals = found.proposals;
  r.local_search_accepted = found.accepted;
  batch_counts_.local_search_proposals += found.proposals;
  batch_counts_.local_search_accepted += found.accepted;
  return searched;
}

void ContinuousLearner::queue_states(const at::Tensor& states) {
  const std::int64_t d = parts_.env->dim();
  if (states.dim() != 2 || states.size(1) != d || states.scalar_type() != at::kFloat) {
    throw std::invalid_argument("ContinuousLearner::queue_states: need float32 [n, " +
                                std::to_string(d) + "] states");
  }
  check_terminating_states(*parts_.env, states, "ContinuousLearner::queue_states");
  queued_ = at::cat({queued_, states.contiguous()});
}

IterationResult ContinuousLearner::train_iteration(std::int64_t batch_size,
                                                   std::int64_t extra_remote) {
  if (batch_size < 1 || extra_remote < 0) {
    throw std::invalid_argument(
        "ContinuousLearner::train_iteration: need batch_size >= 1 and extra_remote >= 0, got " +
        std::to_string(batch_size) + " and " + std::to_string(extra_remote));
  }
  IterationResult r;
  const ContinuousGFlowNet gfn = gflownet();
  const std::int64_t evaluations_before = parts_.env->target_evaluations();
  auto t = Clock::now();
  const ContinuousTrajectories trajs = sample_batch(batch_size, extra_remote, r);
  r.seconds.sample = seconds_since(t);

  t = Clock::now();
  // The policies themselves (temperature 1) in the loss, or with
  // train.loss_at_sampling_temperature the tempered policies that sampled (train_box.py).
  const double loss_temperature =
      train_.loss_at_sampling_temperature ? train_.sampling_temperature(counts_.iterations) : 1.0;
  const LossValue value = continuous_loss(
      train_, trajs, continuous_log_probs(gfn, trajs, loss_temperature), model_->log_z());
  r.seconds.loss = seconds_since(t);
  t = Clock::now();
  optimizer_->zero_grad();
  value.loss.backward();
  r.seconds.backward = seconds_since(t);
  if (gradient_hook_) {
    t = Clock::now();
    gradient_hook_();
    r.seconds.gradient_hook = seconds_since(t);
  }
  t = Clock::now();
  if (train_.gradient_clamp > 0) {
    clamp_gradients(*model_, train_.gradient_clamp,
                    train_.gradient_clamp_log_z ? nullptr : &model_->log_z());
  }
  optimizer_->set_learning_rate_scale(train_.learning_rate_scale(counts_.iterations));
  optimizer_->step();
  // zvar: logZ has no gradient and carries the loss' estimate. db, subtb: logZ is log F(s0)
  // of the log F network (estimators.h), learned, so it keeps its step.
  if (value.log_z.defined() && !model_->has_log_flow()) {
    at::NoGradGuard no_grad;
    model_->log_z().fill_(value.log_z.item<float>());
  }
  r.seconds.optimizer = seconds_since(t);
  r.loss = value.loss.item<double>();
  r.log_z = model_->log_z().item<double>();
  r.target_evaluations = parts_.env->target_evaluations() - evaluations_before;
  batch_counts_.target_evaluations += r.target_evaluations;
  ++counts_.iterations;
  return r;
}

torch::nn::Module& ContinuousLearner::module() { return *model_; }

double ContinuousLearner::current_log_z() const { return model_->log_z().item<double>(); }

ValidationResult ContinuousLearner::validate(const ValidationOptions& options,
                                             const VisitedTerminatingStates* /*visited*/) {
  const auto t = Clock::now();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  ValidationResult v;
  v.exact = false;
  v.l1_exact = v.l1_sampled = v.jsd = v.log_z_error = v.log_z_true = kNaN;
  v.log_z = current_log_z();
  if (modes_) {
    v.n_modes_found = modes_->n_found();
    v.n_modes_total = modes_->n_total();
  }
  const ContinuousEnvironment& env = *parts_.env;
  if (env.has_target()) {
    v.log_z_true = env.log_partition();
    v.log_z_error = std::abs(v.log_z - v.log_z_true);
  }
  if (env.has_target() && options.n_samples > 0) {
    const std::int64_t n = options.n_samples;
    const ContinuousTrajectories learned =
        sample_continuous_trajectories(gflownet(), n, {}, validation_gen_);
    const at::Tensor target = env.sample_target(n, validation_gen_);
    const at::Tensor learned_x = env.target_coordinates(learned.terminating_states);
    const at::Tensor target_x = env.target_coordinates(target);
    // The KDE grid has grid_points^k points: only for k <= 3 (diffusion's funnel, many_well:
    // k = 10, 32).
    if (learned_x.size(1) <= 3) v.jsd = kde_jensen_shannon(learned_x, target_x, target_grid(env));
    if (learned_x.size(1) == 1) v.wasserstein = wasserstein_1d(learned_x, target_x);
    v.learned_points = learned_x.to(at::kFloat);
    v.target_points = target_x.to(at::kFloat);
    const LogZBounds bounds = log_z_bounds(gflownet(), learned);
    v.elbo = bounds.elbo;
    v.iw_elbo = bounds.iw_elbo;
    // The EUBO's backward walks draw from a generator of their own (seed and iteration), so the
    // validation stream stays as it was without them.
    at::Generator eubo_gen = at::detail::createCPUGenerator(
        seed_ ^ 0xD1B54A32D192ED03ULL ^ static_cast<std::uint64_t>(counts_.iterations));
    v.eubo = eubo(gflownet(), target, eubo_gen);
    v.n_samples = n;
  }
  v.seconds = seconds_since(t);
  return v;
}

DensityGrid ContinuousLearner::density(std::int64_t n) {
  if (n < 1) throw std::invalid_argument("ContinuousLearner::density: need n >= 1");
  const ContinuousTrajectories learned =
      sample_continuous_trajectories(gflownet(), n, {}, validation_gen_);
  return density_grid(*parts_.env, learned.terminating_states,
                      parts_.env->sample_target(n, validation_gen_));
}

void ContinuousLearner::set_exploration(const Exploration& e) {
  if (e.epsilon != 0.0) unsupported("train.epsilon");
  apply_exploration(e, train_, model_options_);
}

Exploration ContinuousLearner::exploration() const {
  return {train_.epsilon, train_.temperature, model_options_.noisy_std_init};
}

void ContinuousLearner::reset_optimizer_state() { optimizer_->reset_state(); }

void ContinuousLearner::reinitialize_parameters(std::uint64_t seed, double momentum) {
  torch::manual_seed(seed);
  const std::shared_ptr<ContinuousModel> fresh = make_model();
  blend_parameters(model_->parameters(), fresh->parameters(), momentum);
}

void ContinuousLearner::save_state(torch::serialize::OutputArchive& archive) const {
  write_learner_core(archive, *model_, *optimizer_, sample_gen_, validation_gen_);
  archive.write("iterations", c10::IValue(counts_.iterations));
  archive.write("sampled", c10::IValue(batch_counts_.sampled));
  archive.write("remote", c10::IValue(batch_counts_.remote));
  archive.write("queued_states", queued_.clone());
  archive.write("epsilon", c10::IValue(train_.epsilon));
  archive.write("temperature", c10::IValue(train_.temperature));
  archive.write("noisy_std_init", c10::IValue(model_options_.noisy_std_init));
  write_modes_found(archive, modes_.get());
  archive.write("local_search_proposals", c10::IValue(batch_counts_.local_search_proposals));
  archive.write("local_search_accepted", c10::IValue(batch_counts_.local_search_accepted));
  archive.write("target_evaluations", c10::IValue(batch_counts_.target_evaluations));
  archive.write("langevin_step", c10::IValue(langevin_.step));
  archive.write("langevin_rate", c10::IValue(langevin_.rate));
  archive.write("langevin_window", c10::IValue(std::vector<std::int64_t>{
                                       langevin_.window_steps, langevin_.window_proposals,
                                       langevin_.window_accepted}));
}

void ContinuousLearner::load_state(torch::serialize::InputArchive& archive) {
  read_learner_core(archive, *model_, *optimizer_, sample_gen_, validation_gen_);
  counts_.iterations = read_int(archive, "iterations");
  batch_counts_.sampled = read_int(archive, "sampled");
  // Checkpoints written before remote replay have neither: no remote items, none queued.
  batch_counts_.remote = read_int_or(archive, "remote", 0);
  at::Tensor queued;
  if (!archive.try_read("queued_states", queued)) {
    queued = at::zeros({0, parts_.env->dim()}, at::kFloat);
  } else if (queued.dim() != 2 || queued.size(1) != parts_.env->dim() ||
             queued.scalar_type() != at::kFloat) {
    throw std::runtime_error("checkpoint: queued_states of the continuous learner is damaged");
  }
  queued_ = queued;
  set_exploration({read_double(archive, "epsilon"), read_double(archive, "temperature"),
                   read_double(archive, "noisy_std_init")});
  read_modes_found(archive, modes_.get());
  read_local_search(archive);
}

// Checkpoints written before continuous local search have none of it: the defaults.
void ContinuousLearner::read_local_search(torch::serialize::InputArchive& archive) {
  batch_counts_.local_search_proposals = read_int_or(archive, "local_search_proposals", 0);
  batch_counts_.local_search_accepted = read_int_or(archive, "local_search_accepted", 0);
  batch_counts_.target_evaluations = read_int_or(archive, "target_evaluations", 0);
  c10::IValue v;
  if (!archive.try_read("langevin_step", v)) {
    langevin_ = LangevinState{};
    langevin_.step = local_search_.langevin_step;
    return;
  }
  langevin_.step = v.toDouble();
  langevin_.rate = read_double(archive, "langevin_rate");
  if (!archive.try_read("langevin_window", v) || !v.isIntList() || v.toIntList().size() != 3) {
    throw std::runtime_error("checkpoint: langevin_window of the continuous learner is damaged");
  }
  const auto w = v.toIntVector();
  langevin_.window_steps = w[0];
  langevin_.window_proposals = w[1];
  langevin_.window_accepted = w[2];
}

}  // namespace gfn::core
