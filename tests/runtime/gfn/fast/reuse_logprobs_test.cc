// Reuse of the sampling forward (torchgfn save_logprobs / recalculate_all_logprobs): the
// loss value and every parameter gradient must equal those of recomputation, for every loss
// that reuses, tied and untied models, NoisyNet layers, exploring iterations (epsilon,
// temperature: the saved outputs are the model's logits), and batches mixed with replayed /
// remote trajectories; "fm", replay fraction 1 and engine.reuse_logprobs false must take the
// recompute path.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/saved_outputs_evaluator.h"
#include "runtime/gfn/fast/saving_sampler.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {
namespace {

constexpr double kRelTol = 1e-5;

// 3-D height 10: 1000 states, above the state table's limit, so the Learner takes the
// generic path (the one that reuses).
core::EnvOptions grid_options() {
  core::EnvOptions o;
  o.get<core::HyperGridOptions>().ndim = 3;
  o.get<core::HyperGridOptions>().height = 10;
  return o;
}

core::ModelOptions small_model(bool tied, int noisy = 0) {
  core::ModelOptions m;
  m.hidden_dim = 32;
  m.n_hidden = 2;
  m.tied = tied;
  m.n_noisy_layers = noisy;
  return m;
}

// ||a - b|| <= tol * max(||b||, 1e-6): relative agreement of two tensors.
void expect_close(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.defined(), b.defined()) << what;
  if (!a.defined()) return;
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  const double diff = (a - b).norm().item<double>();
  const double ref = std::max(b.norm().item<double>(), 1e-6);
  EXPECT_LE(diff, kRelTol * ref) << what << ": |a - b| = " << diff << ", |b| = " << ref;
}

std::vector<at::Tensor> gradients(torch::nn::Module& m) {
  std::vector<at::Tensor> g;
  for (const auto& p : m.parameters())
    g.push_back(p.grad().defined() ? p.grad().clone() : p.grad());
  return g;
}

// A changed parameter after sampling must show: the test above would pass trivially if
// the saved evaluator secretly recomputed PF. Perturb the model after sampling: reuse
// still gives the OLD parameters' loss, recomputation the new one.
TEST(ReuseLogProbs, SavedEvaluatorUsesTheSamplingForwardNotANewOne) {
  HyperGrid env(grid_options().get<core::HyperGridOptions>());
  const auto pre = env.make_preprocessor(PreprocessorKind::kKHot);
  const auto loss = make_loss(LossKind::kTB);
  torch::manual_seed(5);
  GFlowNetModel model(pre->output_dim(), env.n_actions(), small_model(false), false);
  at::Generator g = at::detail::createCPUGenerator(3);
  const Trajectories saved = sample_trajectories_saving_outputs(
      env, model_saving_policy(model, *pre, env, MlpKernels{}), 32, SamplerOptions{}, g);
  const double before = loss->evaluate(env, saved, model_evaluator(model, *pre, env), model.log_z())
                            .loss.item<double>();
  {
    torch::NoGradGuard no_grad;
    for (auto& kv : model.named_parameters()) {
      if (kv.key().rfind("pf_", 0) == 0) kv.value().add_(0.5);
    }
  }
  const double reused =
      loss->evaluate(env, saved, saved_outputs_evaluator(saved, model, *pre, env), model.log_z())
          .loss.item<double>();
  const double recomputed =
      loss->evaluate(env, saved, model_evaluator(model, *pre, env), model.log_z())
          .loss.item<double>();
  EXPECT_NEAR(reused, before, kRelTol * std::abs(before));
  EXPECT_GT(std::abs(recomputed - before), 1e-3 * std::abs(before));
  // Called on other rows it refuses.
  const StateEvaluator ev = saved_outputs_evaluator(saved, model, *pre, env);
  EXPECT_THROW(ev(saved.states.narrow(0, 1, saved.states.size(0) - 1), true), std::logic_error);
  Trajectories none = saved;
  none.clear_saved_outputs();
  EXPECT_THROW(saved_outputs_evaluator(none, model, *pre, env), std::invalid_argument);
}

// take / concat keep the saved rows aligned with their transitions.
TEST(ReuseLogProbs, TakeAndConcatCarrySavedOutputs) {
  HyperGrid env(grid_options().get<core::HyperGridOptions>());
  const auto pre = env.make_preprocessor(PreprocessorKind::kKHot);
  torch::manual_seed(2);
  GFlowNetModel model(pre->output_dim(), env.n_actions(), small_model(true), true);
  at::Generator g = at::detail::createCPUGenerator(4);
  const Trajectories a = sample_trajectories_saving_outputs(
      env, model_saving_policy(model, *pre, env, MlpKernels{}), 20, SamplerOptions{}, g);
  const Trajectories b = sample_trajectories_saving_outputs(
      env, model_saving_policy(model, *pre, env, MlpKernels{}), 15, SamplerOptions{}, g);
  const Trajectories batch = concat_trajectories(take_trajectories(a, 12), b);
  ASSERT_TRUE(batch.has_saved_outputs());
  Trajectories fresh = batch;
  save_outputs(model_saving_policy(model, *pre, env, MlpKernels{}),
               fresh);  // one pass on the rows as they are
  expect_close(batch.saved_pf_logits, fresh.saved_pf_logits, "pf");
  expect_close(batch.saved_pb_logits, fresh.saved_pb_logits, "pb");
  expect_close(batch.saved_log_flow, fresh.saved_log_flow, "log F");
  // A policy records once: a second finish() is refused.
  const SavingPolicy once = model_saving_policy(model, *pre, env, MlpKernels{});
  save_outputs(once, fresh);
  EXPECT_THROW(once.finish(), std::logic_error);
  Trajectories plain = b;
  plain.clear_saved_outputs();
  EXPECT_FALSE(concat_trajectories(a, plain).has_saved_outputs());
  SamplerOptions no_record;
  no_record.record_transitions = false;
  EXPECT_THROW(sample_trajectories_saving_outputs(
                   env, model_saving_policy(model, *pre, env, MlpKernels{}), 4, no_record, g),
               std::invalid_argument);
}

struct IterationRun {
  IterationResult result;
  std::vector<at::Tensor> grads;
  std::int64_t reused_iterations = 0;
};

// One Learner iteration, with engine.reuse_logprobs as given; remote > 0 queues that many
// terminating states first.
IterationRun learner_iteration(const core::TrainOptions& train, const core::ModelOptions& model,
                               const buffer::ReplayOptions& replay, bool reuse, int iterations = 1,
                               std::int64_t remote = 0) {
  core::EngineOptions engine;
  engine.reuse_logprobs = reuse;
  Learner learner(grid_options(), model, train, 17, replay, engine);
  EXPECT_NE(learner.plan().evaluator, EvaluatorKind::kStateTable);
  IterationRun run;
  for (int i = 0; i < iterations; ++i) {
    if (remote > 0 && i + 1 == iterations) {
      learner.batches().queue_states(run.result.batch.terminating_states.narrow(0, 0, remote));
    }
    run.result = learner.train_iteration(32);
  }
  run.grads = gradients(learner.model());
  run.reused_iterations = learner.counts().reused_logprobs;
  return run;
}

void expect_same_iteration(const IterationRun& a, const IterationRun& b) {
  EXPECT_NEAR(a.result.loss, b.result.loss, kRelTol * std::abs(b.result.loss));
  ASSERT_EQ(a.grads.size(), b.grads.size());
  for (std::size_t i = 0; i < a.grads.size(); ++i)
    expect_close(a.grads[i], b.grads[i], "gradient " + std::to_string(i));
}

TEST(ReuseLogProbs, LearnerReusesOnPolicyForEveryLossButFM) {
  for (const auto& [kind, name] : kLossKindNames) {
    const std::string loss = name;
    for (const bool tied : {false, true}) {
      SCOPED_TRACE(loss + (tied ? " tied" : " untied"));
      core::TrainOptions train;
      train.loss = kind;
      const IterationRun on = learner_iteration(train, small_model(tied), {}, true);
      const IterationRun off = learner_iteration(train, small_model(tied), {}, false);
      EXPECT_EQ(on.result.reused_logprobs, loss != "fm");
      EXPECT_EQ(on.reused_iterations, loss != "fm" ? 1 : 0);
      EXPECT_FALSE(off.result.reused_logprobs);
      EXPECT_EQ(off.reused_iterations, 0);
      expect_same_iteration(on, off);
    }
  }
}

TEST(ReuseLogProbs, NoisyNetIterationsReuseWithTheSameNoise) {
  core::TrainOptions train;
  const IterationRun on = learner_iteration(train, small_model(false, 2), {}, true);
  const IterationRun off = learner_iteration(train, small_model(false, 2), {}, false);
  EXPECT_TRUE(on.result.reused_logprobs);
  expect_same_iteration(on, off);
}

// Exploring iterations (epsilon, temperature) reuse the model's saved logits: the loss' PF
// is the model's, not the sampling distribution's, so loss and gradients equal the
// recomputation's.
TEST(ReuseLogProbs, ExploringIterationsReuseTheModelsLogits) {
  core::TrainOptions eps;
  eps.epsilon = 0.1;
  core::TrainOptions temp;
  temp.temperature = 2.0;
  core::TrainOptions both;
  both.epsilon = 0.05;
  both.temperature = 0.75;
  for (const auto& train : {eps, temp, both}) {
    for (const bool tied : {false, true}) {
      const IterationRun on = learner_iteration(train, small_model(tied), {}, true, 2);
      const IterationRun off = learner_iteration(train, small_model(tied), {}, false, 2);
      EXPECT_TRUE(on.result.reused_logprobs);
      EXPECT_EQ(on.reused_iterations, 2);
      EXPECT_FALSE(off.result.reused_logprobs);
      expect_same_iteration(on, off);
    }
  }
}

TEST(ReuseLogProbs, FullReplayRecomputes) {
  // Replay fraction 1: the fresh trajectories are all replaced once the buffer is warm.
  buffer::ReplayOptions all;
  all.kind = buffer::ReplayKind::kUniform;
  all.fraction = 1.0;
  const IterationRun full = learner_iteration({}, small_model(false), all, true, 2);
  EXPECT_GT(full.result.n_replayed, 0);
  EXPECT_FALSE(full.result.reused_logprobs);
}

// Mixed batches: the fresh part reuses, the replayed / remote trajectories are
// recomputed (one pass under the current parameters); same loss and gradients as
// recomputing all.
TEST(ReuseLogProbs, MixedBatchesReuseTheFreshPartOnly) {
  buffer::ReplayOptions half;
  half.kind = buffer::ReplayKind::kUniform;
  half.fraction = 0.5;
  for (const bool tied : {false, true}) {
    core::TrainOptions train;
    train.loss = tied ? LossKind::kSubTB : LossKind::kTB;
    const IterationRun on = learner_iteration(train, small_model(tied), half, true, 3);
    const IterationRun off = learner_iteration(train, small_model(tied), half, false, 3);
    EXPECT_EQ(on.result.n_replayed, 16);
    EXPECT_TRUE(on.result.reused_logprobs);
    EXPECT_EQ(on.reused_iterations, 3);
    EXPECT_FALSE(off.result.reused_logprobs);
    expect_same_iteration(on, off);
  }
  core::TrainOptions train;
  const IterationRun on = learner_iteration(train, small_model(true), {}, true, 2, 8);
  const IterationRun off = learner_iteration(train, small_model(true), {}, false, 2, 8);
  EXPECT_EQ(on.result.n_remote, 8);
  EXPECT_TRUE(on.result.reused_logprobs);
  expect_same_iteration(on, off);
}

}  // namespace
}  // namespace gfn::core
