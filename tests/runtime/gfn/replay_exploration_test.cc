// NoisyNet layers, off-policy / replayed / remote (backward) trajectories, batch mixing
// and short training runs with each local replay buffer kind (estimators and
// exploration, remote sampling).
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "runtime/buffer/table.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/noisy_linear.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {
namespace {

core::EnvOptions grid(int ndim, int height) {
  core::EnvOptions e;
  e.get<core::HyperGridOptions>().ndim = ndim;
  e.get<core::HyperGridOptions>().height = height;
  return e;
}

// The oracle of the packer (pack_trajectories): each trajectory's actions read row by row
// from the step-major batch.
std::vector<std::vector<std::int64_t>> sequences_of(const Trajectories& t) {
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(t.n_trajectories));
  for (std::int64_t row = 0; row < t.actions.size(0); ++row) {
    out[static_cast<std::size_t>(t.traj_index[row].item<std::int64_t>())].push_back(
        t.actions[row].item<std::int64_t>());
  }
  return out;
}

buffer::PackedTrajectories packed(const std::vector<std::vector<std::int64_t>>& seqs) {
  return buffer::PackedTrajectories::from_sequences(seqs);
}

// TB loss from scratch: every trajectory walked on its own from s0 with env.step, one
// network call per state, masked log-softmax by hand. Independent of the batched
// step-major layout, of transition_log_probs and of how the batch was assembled.
double tb_from_scratch(GFlowNetModel& m, const Preprocessor& pre, const Environment& env,
                       const Trajectories& batch) {
  torch::NoGradGuard no_grad;
  const auto seqs = sequences_of(batch);
  const double log_z = m.log_z().item<double>();
  double total = 0;
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    at::Tensor s = env.initial_states(1);
    double lpf = 0, lpb = 0;
    for (const std::int64_t a : seqs[b]) {
      const at::Tensor fm = env.forward_masks(s);
      const at::Tensor lf =
          m.pf_logits(pre(s)).masked_fill(fm.logical_not(), -INFINITY).log_softmax(1);
      lpf += lf[0][a].item<double>();
      if (a == env.exit_action()) break;
      s = env.step(s, torch::tensor({a}));
      const at::Tensor bm = env.backward_masks(s);
      const at::Tensor lb =
          m.pb_logits(pre(s)).masked_fill(bm.logical_not(), -INFINITY).log_softmax(1);
      lpb += lb[0][a].item<double>();
    }
    EXPECT_TRUE(torch::equal(s[0], batch.terminating_states[static_cast<std::int64_t>(b)]));
    const double log_r = env.log_reward(s)[0].item<double>();
    EXPECT_NEAR(log_r, batch.log_rewards[static_cast<std::int64_t>(b)].item<double>(), 1e-5);
    const double res = log_z + lpf - log_r - lpb;
    total += res * res;
  }
  return total / static_cast<double>(seqs.size());
}

TEST(NoisyLinear, FactorisedNoiseStatisticsAndModes) {
  torch::manual_seed(0);
  NoisyLinear layer(48, 32, 0.5);
  EXPECT_NEAR(layer->weight_sigma()[0][0].item<double>(), 0.5 / std::sqrt(48.0), 1e-7);
  at::Generator gen = at::detail::createCPUGenerator(11);
  std::vector<at::Tensor> ws, bs;
  for (int k = 0; k < 300; ++k) {
    layer->reset_noise(gen);
    ws.push_back(layer->weight_epsilon().clone());
    bs.push_back(layer->bias_epsilon().clone());
    // Factorised: eps_w = f(eps_out) f(eps_in)^T has rank 1.
    if (k < 3) {
      const at::Tensor sv = at::linalg_svdvals(ws.back());
      EXPECT_LT(sv[1].item<double>(), 1e-4 * sv[0].item<double>());
    }
  }
  const at::Tensor w = at::stack(ws).to(at::kDouble), b = at::stack(bs).to(at::kDouble);
  // f(x) = sign(x) sqrt|x|, x ~ N(0,1): E f = 0, Var f = E|x| = sqrt(2/pi); the weight
  // noise is a product of two independent f's: Var = 2/pi.
  EXPECT_NEAR(w.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(w.var().item<double>(), 2.0 / M_PI, 0.04);
  EXPECT_NEAR(b.mean().item<double>(), 0.0, 0.03);
  EXPECT_NEAR(b.var().item<double>(), std::sqrt(2.0 / M_PI), 0.04);

  // Training mode: same output until the next reset; eval mode: mean weights only.
  const at::Tensor x = torch::randn({5, 48});
  const at::Tensor y1 = layer->forward(x), y2 = layer->forward(x);
  EXPECT_TRUE(torch::equal(y1, y2));
  layer->reset_noise(gen);
  EXPECT_FALSE(torch::allclose(y1, layer->forward(x)));
  layer->eval();
  const at::Tensor mean_out = layer->forward(x);
  EXPECT_TRUE(torch::allclose(
      mean_out, at::linear(x, layer->weight_mu(), layer->named_parameters()["bias_mu"])));
  layer->reset_noise(gen);
  EXPECT_TRUE(torch::equal(mean_out, layer->forward(x)));
  EXPECT_THROW(NoisyLinear(4, 4, 0.0), std::invalid_argument);
}

TEST(NoisyLinear, ModelOptionDeterministicWhenOffAndBounded) {
  core::ModelOptions off, on;
  on.n_noisy_layers = 2;  // the output head and the last hidden layer of PF
  torch::manual_seed(3);
  GFlowNetModel a(16, 5, off);
  torch::manual_seed(3);
  GFlowNetModel b(16, 5, core::ModelOptions{});
  // n_noisy_layers = 0: exactly the plain model (names, values), deterministic outputs.
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].key(), pb[i].key());
    EXPECT_TRUE(torch::equal(pa[i].value(), pb[i].value()));
  }
  EXPECT_FALSE(a.noisy());
  const at::Tensor x = torch::rand({7, 16});
  at::Generator gen = at::detail::createCPUGenerator(1);
  a.reset_noise(gen);  // no-op
  EXPECT_TRUE(torch::equal(a.pf_logits(x), b.pf_logits(x)));

  GFlowNetModel n(16, 5, on);
  ASSERT_EQ(n.noisy_layers().size(), 2u);
  EXPECT_EQ(n.noisy_layers().back()->out_features(), 5);
  n.reset_noise(gen);
  const at::Tensor y = n.pf_logits(x);
  EXPECT_TRUE(torch::equal(y, n.pf_logits(x)));
  n.reset_noise(gen);
  EXPECT_FALSE(torch::allclose(y, n.pf_logits(x)));
  core::ModelOptions too_many;
  too_many.n_noisy_layers = 3;  // > n_hidden = 2
  EXPECT_THROW(GFlowNetModel(16, 5, too_many), std::invalid_argument);
}

TEST(TrajectoryOps, RebuildTakeAndConcatKeepTheBatch) {
  const auto env = make_environment(grid(3, 5));
  torch::manual_seed(2);
  GFlowNetModel m(env->make_preprocessor(PreprocessorKind::kKHot)->output_dim(), env->n_actions(),
                  {});
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  at::Generator gen = at::detail::createCPUGenerator(4);
  SamplerOptions so;
  so.epsilon = 0.3;
  const Trajectories a = sample_trajectories(*env, model_policy(m, *pre, *env), 9, so, gen);
  const Trajectories b = sample_trajectories(*env, model_policy(m, *pre, *env), 6, so, gen);
  // Packed (the packer agrees with the row-by-row oracle), then unpacked: identical tensors.
  EXPECT_EQ(pack_trajectories(a), packed(sequences_of(a)));
  const Trajectories r = trajectories_from_actions(*env, pack_trajectories(a));
  EXPECT_TRUE(torch::equal(r.states, a.states));
  EXPECT_TRUE(torch::equal(r.actions, a.actions));
  EXPECT_TRUE(torch::equal(r.traj_index, a.traj_index));
  EXPECT_TRUE(torch::equal(r.pb_actions, a.pb_actions));
  EXPECT_TRUE(torch::equal(r.lengths, a.lengths));
  EXPECT_TRUE(torch::equal(r.terminating_states, a.terminating_states));
  EXPECT_TRUE(torch::allclose(r.log_rewards, a.log_rewards));
  // take + concat: the sequences of the parts, in order, with a valid layout.
  const Trajectories c = concat_trajectories(take_trajectories(a, 4), b);
  auto expect = sequences_of(a);
  expect.resize(4);
  for (const auto& s : sequences_of(b)) expect.push_back(s);
  EXPECT_EQ(sequences_of(c), expect);
  EXPECT_EQ(pack_trajectories(c), packed(expect));
  EXPECT_EQ(c.n_trajectories, 10);
  EXPECT_NO_THROW(trajectory_layout(c));
  const Trajectories c2 = trajectories_from_actions(*env, packed(expect));
  EXPECT_TRUE(torch::equal(c.states, c2.states));
  EXPECT_TRUE(torch::equal(c.pb_actions, c2.pb_actions));
  // The loss of the assembled batch equals the from-scratch value.
  const double batched = make_loss(LossKind::kTB)->operator()(m, *pre, *env, c).item<double>();
  EXPECT_NEAR(batched, tb_from_scratch(m, *pre, *env, c), 1e-4 * (1 + std::abs(batched)));
  // Bad sequences are refused with the trajectory named.
  EXPECT_THROW(trajectories_from_actions(*env, packed({{0, 1}})),
               std::invalid_argument);  // no exit
  EXPECT_THROW(trajectories_from_actions(*env, packed({{3, 0, 3}})), std::invalid_argument);
  EXPECT_THROW(trajectories_from_actions(*env, packed({{}})), std::invalid_argument);
  EXPECT_THROW(trajectories_from_actions(*env, packed({{0, 0, 0, 0, 0, 3}})),
               std::invalid_argument);
  EXPECT_THROW(trajectories_from_actions(*env, buffer::PackedTrajectories({2}, {0, 3, 3})),
               std::invalid_argument);  // lengths do not add up
}

TEST(BackwardSampling, EndsAtTheGivenStatesAndFollowsPB) {
  const auto env = make_environment(grid(2, 8));
  core::ModelOptions uniform;
  uniform.uniform_pb = true;
  torch::manual_seed(1);
  GFlowNetModel m(env->make_preprocessor(PreprocessorKind::kKHot)->output_dim(), env->n_actions(),
                  uniform);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  at::Generator gen = at::detail::createCPUGenerator(8);
  const at::Tensor xs = torch::tensor({0, 0, 3, 5, 7, 7, 1, 1}, at::kLong).view({4, 2});
  const auto seqs = sample_backward_actions(*env, model_backward_policy(m, *pre, *env), xs, gen);
  const Trajectories t = trajectories_from_actions(*env, seqs);
  EXPECT_TRUE(torch::equal(t.terminating_states, xs));
  EXPECT_EQ(t.lengths[0].item<std::int64_t>(), 1);   // s0 -> exit
  EXPECT_EQ(t.lengths[2].item<std::int64_t>(), 15);  // 14 steps + exit
  // Uniform PB from (1, 1): the last backward step (= first forward action) is 0 or 1
  // with probability 1/2 each.
  const at::Tensor many = torch::tensor({1, 1}, at::kLong).view({1, 2}).repeat({4000, 1});
  const auto paths = sample_backward_actions(*env, model_backward_policy(m, *pre, *env), many, gen);
  double zeros = 0;
  const auto starts = paths.offsets();
  for (std::int64_t i = 0; i < paths.size(); ++i) zeros += paths.actions[starts[i]] == 0;
  EXPECT_NEAR(zeros / 4000.0, 0.5, 0.04);
  // Not terminating states / bad shapes are refused.
  EXPECT_THROW(sample_backward_actions(*env, model_backward_policy(m, *pre, *env),
                                       torch::tensor({9, 0}, at::kLong).view({1, 2}), gen),
               std::invalid_argument);
}

// Off-policy sampling (epsilon, temperature, NoisyNet), local replay and remote
// (backward) trajectories: the loss the Learner trains on equals a from-scratch
// recomputation under the current policy. lr = 0 keeps the parameters (and logZ) fixed,
// so the check can run after the step; the noise of the iteration stays in place.
TEST(LearnerMix, OffPolicyReplayedAndRemoteLossEqualsRecomputation) {
  const core::EnvOptions e = grid(2, 6);
  core::ModelOptions model;
  model.hidden_dim = 64;
  model.n_noisy_layers = 2;
  model.noisy_std_init = 0.5;
  core::TrainOptions train;
  train.epsilon = 0.3;
  train.temperature = 1.7;
  train.lr = 0;
  train.lr_logz = 0;
  buffer::ReplayOptions replay;
  replay.kind = buffer::ReplayKind::kUniform;
  replay.fraction = 0.5;
  replay.capacity = 50;
  replay.warmup = 40;
  Learner learner(e, model, train, 7, replay);
  learner.model().log_z().data().fill_(1.25f);  // a non-trivial logZ
  const std::int64_t B = 32;
  for (int it = 0; it < 4; ++it) {
    if (it == 3) {
      // Remote items for the next iteration: 10 terminating states.
      const at::Tensor xs = torch::randint(0, 6, {10, 2}, at::kLong);
      learner.batches().queue_states(xs);
      EXPECT_EQ(learner.batches().queued_states(), 10);
    }
    const IterationResult r = learner.train_iteration(B);
    const Trajectories& batch = r.batch;
    ASSERT_EQ(batch.n_trajectories, B);
    ASSERT_EQ(r.n_fresh + r.n_replayed + r.n_remote, B);
    if (it == 0) {
      EXPECT_EQ(r.n_replayed, 0);  // warmup: 32 < 40 stored
    } else if (it < 3) {
      EXPECT_EQ(r.n_replayed, 16);
    } else {
      EXPECT_EQ(r.n_remote, 10);
      EXPECT_EQ(r.n_replayed, 11);                  // round(0.5 * 22)
      EXPECT_EQ(r.terminating_states.size(0), 22);  // only fresh ones are reported
    }
    const double scratch =
        tb_from_scratch(learner.model(), learner.preprocessor(), learner.env(), batch);
    EXPECT_NEAR(r.loss, scratch, 1e-4 * (1 + std::abs(scratch))) << "iteration " << it;
  }
  EXPECT_EQ(learner.batches().counts().remote, 10);
  EXPECT_EQ(learner.batches().counts().replayed, 16 + 16 + 11);
  EXPECT_EQ(learner.batches().queued_states(), 0);
  EXPECT_EQ(learner.batches().replay_buffer()->size(), 50);
  // Validation runs the mean policy and leaves the model in training mode.
  core::ValidationOptions v;
  v.n_samples = 100;
  learner.validate(v);
  EXPECT_TRUE(learner.model().is_training());
  EXPECT_THROW(learner.batches().queue_states(torch::zeros({2, 3}, at::kLong)),
               std::invalid_argument);
}

// A buffer smaller than the requested share (torchgfn's FM setting: capacity 100, batch
// 128, fraction 1) still replays: all it holds once full.
TEST(LearnerMix, BufferSmallerThanTheShareReplaysItsCapacity) {
  buffer::ReplayOptions replay;
  replay.kind = buffer::ReplayKind::kUniform;
  replay.fraction = 1.0;
  replay.capacity = 5;
  core::ModelOptions model;
  model.hidden_dim = 16;
  Learner learner(grid(2, 4), model, core::TrainOptions{}, 3, replay);
  for (int it = 0; it < 3; ++it) {
    const IterationResult r = learner.train_iteration(8);
    EXPECT_EQ(r.n_replayed, 5) << "iteration " << it;
    EXPECT_EQ(r.n_fresh, 3) << "iteration " << it;
    EXPECT_EQ(r.batch.n_trajectories, 8);
  }
  EXPECT_EQ(learner.batches().counts().replayed, 15);
}

// Short HyperGrid 2D runs with each buffer kind (and NoisyNet): finite losses and the
// exact L1 improves.
TEST(LearnerMix, TrainingWithEachBufferKindImprovesL1) {
  for (const char* kind : {"uniform", "prioritized", "diverse", "noisy"}) {
    core::ModelOptions model;
    model.hidden_dim = 128;
    buffer::ReplayOptions replay;
    if (std::string(kind) == "noisy") {
      model.n_noisy_layers = 1;
    } else {
      ASSERT_TRUE(config::parse_enum(std::string(kind), replay.kind)) << kind;
      replay.capacity = 500;
      replay.fraction = 0.5;
      replay.cutoff = 0.0;
    }
    Learner learner(grid(2, 8), model, core::TrainOptions{}, 1, replay);
    core::ValidationOptions v;
    v.n_samples = 1000;
    const double before = learner.validate(v).l1_exact;
    std::int64_t replayed = 0;
    for (int i = 0; i < 120; ++i) {
      const IterationResult r = learner.train_iteration(64);
      ASSERT_TRUE(std::isfinite(r.loss)) << kind << " iteration " << i;
      replayed += r.n_replayed;
    }
    const double after = learner.validate(v).l1_exact;
    EXPECT_LT(after, 0.4 * before) << kind << ": " << before << " -> " << after;
    if (std::string(kind) != "noisy") {
      EXPECT_GT(replayed, 0) << kind;
    }
  }
}

}  // namespace
}  // namespace gfn::core
