// ContinuousLearner (runtime/gfn/continuous/learner.h) and make_agent (runtime/gfn/agent.h) on
// Box 2-D: training lowers the loss and the KDE Jensen-Shannon divergence of validation; the
// same seed gives the same losses; save_state / load_state continue bit-identically; every
// continuous loss trains; the options continuous environments do not support are refused
// naming their key; make_agent picks the engine by env.name. The polar Box (env.name
// box_polar) trains through the same learner with its constant s0 outputs; train_box.py's
// options (temperature_start, gradient_clamp, lr_logf) act as documented.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/module.h>
#include <torch/serialize/archive.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_options.h"
#include "runtime/gfn/env/continuous_registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {
namespace {

EnvOptions box_env() {
  EnvOptions env;
  env.name = "box";
  return env;
}

ModelOptions small_model() {
  ModelOptions m;
  m.hidden_dim = 32;
  m.n_hidden = 2;
  m.tied = true;
  return m;
}

std::vector<double> losses(ContinuousLearner& learner, int n, std::int64_t batch = 8) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(learner.train_iteration(batch).loss);
  return out;
}

std::vector<at::Tensor> parameters(ContinuousLearner& learner) {
  std::vector<at::Tensor> out;
  for (const auto& p : learner.module().parameters()) out.push_back(p.detach().clone());
  return out;
}

double mean(const std::vector<double>& v, std::size_t begin, std::size_t end) {
  return std::accumulate(v.begin() + begin, v.begin() + end, 0.0) /
         static_cast<double>(end - begin);
}

void expect_refused(const std::string& key, const std::function<void()>& make) {
  try {
    make();
    ADD_FAILURE() << key << " was not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
}

// The tb_box_2d settings (h 256, 2 hidden layers, tied PB, Adam 1e-3 / 0.1, batch 16) for 1000
// iterations, as training_test.cc's loop, through the Agent the trainer role drives.
TEST(ContinuousLearner, TrainingLowersLossAndJsd) {
  ModelOptions model = small_model();
  model.hidden_dim = 256;
  ContinuousLearner learner(box_env(), model, TrainOptions{}, 0);
  ValidationOptions v;
  v.n_samples = 4000;
  const ValidationResult before = learner.validate(v);
  const std::vector<double> l = losses(learner, 1000, 16);
  const ValidationResult after = learner.validate(v);
  const std::size_t w = l.size() / 6;
  const double first = mean(l, 0, w), last = mean(l, l.size() - w, l.size());
  std::cout << "box tb: loss " << first << " -> " << last << ", JSD " << before.jsd << " -> "
            << after.jsd << ", |logZ error| " << before.log_z_error << " -> " << after.log_z_error
            << "\n";
  EXPECT_LT(last, 0.3 * first);
  EXPECT_LT(after.jsd, 0.5 * before.jsd);
  EXPECT_LT(after.log_z_error, before.log_z_error);
  EXPECT_EQ(learner.counts().iterations, 1000);
  EXPECT_EQ(learner.batch_counts().sampled, 1000 * 16);
}

TEST(ContinuousLearner, ValidationReportsTheKdeJsdAndTheLogZError) {
  ContinuousLearner learner(box_env(), small_model(), TrainOptions{}, 3);
  ValidationOptions v;
  v.n_samples = 500;
  const ValidationResult r = learner.validate(v);
  const Box box{BoxOptions{}};
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(std::isnan(r.l1_exact));
  EXPECT_TRUE(std::isnan(r.l1_sampled));
  EXPECT_GT(r.jsd, 0.0);
  EXPECT_LE(r.jsd, std::log(2.0));
  EXPECT_EQ(r.n_samples, 500);
  EXPECT_DOUBLE_EQ(r.log_z_true, box.log_partition());
  EXPECT_DOUBLE_EQ(r.log_z_error, std::abs(r.log_z - box.log_partition()));
  EXPECT_EQ(r.log_z, learner.current_log_z());
  EXPECT_EQ(r.n_modes_total, 4);  // Box 2-D's corners
  EXPECT_EQ(r.n_modes_found, 0);  // nothing sampled in training yet
  // Validation draws from its own generator: the training stream is unchanged.
  ContinuousLearner twin(box_env(), small_model(), TrainOptions{}, 3);
  EXPECT_EQ(losses(learner, 3), losses(twin, 3));
}

// The mode tracker of Box's 2^d corners (box.h): states in each corner count once each,
// states outside none; training iterations report the new ones, validation the total.
TEST(ContinuousLearner, CountsTheModesItsSampledStatesHit) {
  ContinuousLearner learner(box_env(), small_model(), TrainOptions{}, 6);
  ASSERT_NE(learner.mode_tracker(), nullptr);
  EXPECT_EQ(learner.n_modes(), 4);
  ModeTracker tracker = *learner.mode_tracker();  // a copy, to feed by hand
  const at::Tensor outside = at::tensor({0.5f, 0.5f, 0.05f, 0.95f, 0.2f, 0.8f}).view({3, 2});
  EXPECT_EQ(tracker.update(outside), 0);
  const at::Tensor two_corners =
      at::tensor({0.15f, 0.85f, 0.16f, 0.84f, 0.85f, 0.85f}).view({3, 2});
  EXPECT_EQ(tracker.update(two_corners), 2);
  EXPECT_EQ(tracker.update(two_corners), 0);
  const at::Tensor all = at::tensor({0.15f, 0.15f, 0.85f, 0.15f, 0.15f, 0.85f, 0.85f, 0.85f});
  EXPECT_EQ(tracker.update(all.view({4, 2})), 2);
  EXPECT_EQ(tracker.found(), (std::vector<std::int64_t>{0, 1, 2, 3}));

  std::int64_t new_modes = 0, hits = 0;
  for (int i = 0; i < 30; ++i) {
    const IterationResult r = learner.train_iteration(32);
    new_modes += r.n_new_modes;
    hits += learner.env().mode_hits(r.terminating_states).numel();
  }
  const std::int64_t found = learner.mode_tracker()->n_found();
  EXPECT_EQ(new_modes, found);
  EXPECT_GE(found, 1) << "no mode in " << hits << " hits of 960 samples";
  EXPECT_LE(found, std::min<std::int64_t>(hits, 4));
  ValidationOptions v;
  v.n_samples = 100;
  const ValidationResult r = learner.validate(v);
  EXPECT_EQ(r.n_modes_found, found);
  EXPECT_EQ(r.n_modes_total, 4);
}

TEST(ContinuousLearner, SameSeedSameLossesOtherSeedOtherLosses) {
  ContinuousLearner a(box_env(), small_model(), TrainOptions{}, 7);
  ContinuousLearner b(box_env(), small_model(), TrainOptions{}, 7);
  ContinuousLearner c(box_env(), small_model(), TrainOptions{}, 8);
  const auto la = losses(a, 5);
  EXPECT_EQ(la, losses(b, 5));
  EXPECT_NE(la, losses(c, 5));
}

TEST(ContinuousLearner, SaveAndLoadStateContinueBitIdentically) {
  for (const bool uniform_pb : {false, true}) {
    ModelOptions model = small_model();
    model.uniform_pb = uniform_pb;
    ContinuousLearner straight(box_env(), model, TrainOptions{}, 11);
    losses(straight, 4);
    const std::vector<std::int64_t> straight_found = straight.mode_tracker()->found();
    torch::serialize::OutputArchive out;
    straight.save_state(out);
    std::ostringstream bytes;
    out.save_to(bytes);
    const auto after = losses(straight, 4);

    ContinuousLearner resumed(box_env(), model, TrainOptions{}, 11);
    losses(resumed, 1);  // another state, overwritten by load_state
    torch::serialize::InputArchive in;
    std::istringstream read(bytes.str());
    in.load_from(read);
    resumed.load_state(in);
    EXPECT_EQ(resumed.counts().iterations, 4);
    EXPECT_EQ(resumed.mode_tracker()->found(), straight_found);
    EXPECT_EQ(losses(resumed, 4), after) << "uniform_pb " << uniform_pb;
    const auto p = parameters(straight), q = parameters(resumed);
    ASSERT_EQ(p.size(), q.size());
    for (std::size_t i = 0; i < p.size(); ++i) EXPECT_TRUE(at::equal(p[i], q[i])) << i;
  }
}

// Remote states (a buffer manager's replayed terminating states) join the next batch as
// backward trajectories: batch_size + min(queued, extra_remote), remote first; the rest of the
// queue is dropped; invalid states are refused and nothing is queued.
TEST(ContinuousLearner, QueuedRemoteStatesJoinTheNextBatch) {
  ContinuousLearner learner(box_env(), small_model(), TrainOptions{}, 3);
  const at::Tensor states = at::rand({10, 2}) * 0.8 + 0.1;
  learner.queue_states(states.narrow(0, 0, 2));
  learner.queue_states(states.narrow(0, 2, 2));
  EXPECT_EQ(learner.queued_states(), 4);
  IterationResult r = learner.train_iteration(8, 4);
  EXPECT_EQ(r.batch_size, 12);
  EXPECT_EQ(r.n_fresh, 8);
  EXPECT_EQ(r.n_remote, 4);
  EXPECT_EQ(r.terminating_states.size(0), 8) << "only the fresh states are submitted";
  EXPECT_TRUE(std::isfinite(r.loss));
  EXPECT_EQ(learner.queued_states(), 0);
  learner.queue_states(states.narrow(0, 0, 3));
  r = learner.train_iteration(8);  // remote_sample_fraction: remote items replace fresh ones
  EXPECT_EQ(r.batch_size, 8);
  EXPECT_EQ(r.n_fresh, 5);
  EXPECT_EQ(r.n_remote, 3);
  learner.queue_states(states);  // more than the batch: all remote, the rest dropped
  r = learner.train_iteration(4, 2);
  EXPECT_EQ(r.batch_size, 6);
  EXPECT_EQ(r.n_fresh, 0);
  EXPECT_EQ(r.n_remote, 6);
  EXPECT_EQ(r.terminating_states.size(0), 0);
  EXPECT_EQ(learner.queued_states(), 0) << "the unused rest is dropped";
  EXPECT_EQ(learner.batch_counts().remote, 13);
  EXPECT_EQ(learner.batch_counts().sampled, 13);
  const at::Tensor with_s0 = at::cat({states.narrow(0, 0, 2), at::zeros({1, 2})});
  expect_refused("row 2", [&] { learner.queue_states(with_s0); });
  expect_refused("queue_states", [&] { learner.queue_states(at::full({2, 2}, 1.5f)); });
  expect_refused("float32 [n, 2]", [&] { learner.queue_states(at::full({2, 3}, 0.5f)); });
  EXPECT_EQ(learner.queued_states(), 0);
}

TEST(ContinuousLearner, QueuedRemoteStatesSurviveACheckpoint) {
  ContinuousLearner straight(box_env(), small_model(), TrainOptions{}, 12);
  losses(straight, 2);
  straight.queue_states(at::rand({5, 2}) * 0.8 + 0.1);
  torch::serialize::OutputArchive out;
  straight.save_state(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  const double after = straight.train_iteration(8, 5).loss;

  ContinuousLearner resumed(box_env(), small_model(), TrainOptions{}, 12);
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  resumed.load_state(in);
  EXPECT_EQ(resumed.queued_states(), 5);
  const IterationResult r = resumed.train_iteration(8, 5);
  EXPECT_EQ(r.n_remote, 5);
  EXPECT_EQ(r.loss, after);
  EXPECT_EQ(resumed.batch_counts().remote, 5);
}

TEST(ContinuousLearner, LoadStateRefusesAnotherModel) {
  ContinuousLearner a(box_env(), small_model(), TrainOptions{}, 1);
  torch::serialize::OutputArchive out;
  a.save_state(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  ModelOptions other = small_model();
  other.hidden_dim = 16;
  ContinuousLearner b(box_env(), other, TrainOptions{}, 1);
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  EXPECT_THROW(b.load_state(in), std::runtime_error);
}

TEST(ContinuousLearner, EveryContinuousLossTrains) {
  for (const LossKind loss : {LossKind::kTB, LossKind::kZVar, LossKind::kDB, LossKind::kSubTB}) {
    TrainOptions train;
    train.loss = loss;
    ContinuousLearner learner(box_env(), small_model(), train, 2);
    const bool log_flow = loss == LossKind::kDB || loss == LossKind::kSubTB;
    EXPECT_EQ(learner.model().has_log_flow(), log_flow) << config::enum_name(loss);
    const auto before = parameters(learner);
    const double log_z = learner.current_log_z();
    const IterationResult r = learner.train_iteration(8);
    EXPECT_TRUE(std::isfinite(r.loss)) << config::enum_name(loss);
    EXPECT_EQ(r.n_fresh, 8);
    EXPECT_EQ(r.terminating_states.sizes(), (at::IntArrayRef{8, 2}));
    EXPECT_EQ(r.fresh.n_trajectories, 0);  // discrete layout only
    // named_parameters: the module's own logZ first, then PF's trunk.
    const auto after = parameters(learner);
    EXPECT_FALSE(at::equal(before.at(1), after.at(1))) << config::enum_name(loss);
    EXPECT_EQ(r.log_z, learner.current_log_z());
    EXPECT_NE(r.log_z, log_z) << config::enum_name(loss);
    if (loss != LossKind::kZVar) {
      // Learned (tb), or learned as log F(s0) (db, subtb): Adam's first step moves it by
      // train.lr_logz; zvar's is the loss' estimate of this batch.
      EXPECT_NEAR(std::abs(r.log_z - log_z), TrainOptions{}.lr_logz, 1e-4)
          << config::enum_name(loss);
    }
  }
}

TEST(ContinuousLearner, GradientHookRunsBetweenBackwardAndStep) {
  ContinuousLearner learner(box_env(), small_model(), TrainOptions{}, 4);
  int calls = 0;
  learner.set_gradient_hook([&] {
    ++calls;
    for (const auto& p : learner.module().parameters()) {
      if (p.grad().defined()) p.mutable_grad().zero_();  // no step
    }
  });
  const auto before = parameters(learner);
  learner.train_iteration(4);
  EXPECT_EQ(calls, 1);
  const auto after = parameters(learner);
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(at::equal(before[i], after[i]));
}

TEST(ContinuousLearner, ReinitializeParametersBlends) {
  ContinuousLearner learner(box_env(), small_model(), TrainOptions{}, 5);
  losses(learner, 2);
  const auto own = parameters(learner);
  learner.reinitialize_parameters(99, 1.0);  // momentum 1 keeps its own
  for (std::size_t i = 0; i < own.size(); ++i)
    EXPECT_TRUE(at::equal(own[i], parameters(learner)[i]));
  learner.reinitialize_parameters(99, 0.0);  // momentum 0: the fresh model of seed 99
  EXPECT_FALSE(at::equal(own.front(), parameters(learner).front()));
  learner.reset_optimizer_state();
  EXPECT_TRUE(std::isfinite(learner.train_iteration(4).loss));
}

TEST(ContinuousLearner, RefusesWhatContinuousEnvironmentsDoNotSupportNamingTheKey) {
  TrainOptions epsilon;
  epsilon.epsilon = 0.1;
  expect_refused("train.epsilon", [&] { ContinuousLearner(box_env(), small_model(), epsilon, 0); });
  TrainOptions fm;
  fm.loss = LossKind::kFM;
  expect_refused("train.loss", [&] { ContinuousLearner(box_env(), small_model(), fm, 0); });
  ModelOptions noisy = small_model();
  noisy.n_noisy_layers = 1;
  expect_refused("model.n_noisy_layers",
                 [&] { ContinuousLearner(box_env(), noisy, TrainOptions{}, 0); });
  buffer::ReplayOptions replay;
  replay.kind = buffer::ReplayKind::kPrioritized;
  expect_refused("replay.kind",
                 [&] { make_agent(box_env(), small_model(), TrainOptions{}, 0, replay); });
  LocalSearchOptions search;
  search.loops = 1;
  expect_refused("local_search.loops",
                 [&] { make_agent(box_env(), small_model(), TrainOptions{}, 0, {}, {}, search); });
  EnvOptions reward_model = box_env();
  reward_model.reward_model = "r.pt";
  expect_refused("env.reward_model",
                 [&] { ContinuousLearner(reward_model, small_model(), TrainOptions{}, 0); });
  EnvOptions concentration = box_env();
  concentration.get<BoxEnvOptions>().max_concentration = 0.05;
  expect_refused("env.max_concentration",
                 [&] { ContinuousLearner(concentration, small_model(), TrainOptions{}, 0); });
  ContinuousLearner learner(box_env(), small_model(), TrainOptions{}, 0);
  expect_refused("extra_remote", [&] { learner.train_iteration(4, -1); });
  expect_refused("train.epsilon", [&] { learner.set_exploration({0.5, 1.0, 0.1}); });
}

TEST(MakeAgent, PicksTheEngineByEnvironment) {
  const auto box = make_agent(box_env(), small_model(), TrainOptions{}, 0);
  EXPECT_EQ(box->discrete(), nullptr);
  EXPECT_NE(dynamic_cast<ContinuousLearner*>(box.get()), nullptr);
  EXPECT_EQ(box->plan().report.at("evaluator"), "continuous");
  EnvOptions grid;  // hypergrid
  const auto discrete = make_agent(grid, small_model(), TrainOptions{}, 0);
  ASSERT_NE(discrete->discrete(), nullptr);
  EXPECT_GT(discrete->n_modes(), 0);
  EXPECT_EQ(discrete->current_log_z(), discrete->discrete()->model().log_z().item<double>());
}

TEST(MakeAgent, BoxHasTorchgfnsParameterCounts) {
  ModelOptions model;  // the box benchmarks: h 256, 2 hidden layers, tied
  model.tied = true;
  for (const auto& [uniform_pb, expected] : {std::pair{false, 82495}, std::pair{true, 74528}}) {
    model.uniform_pb = uniform_pb;
    const auto agent = make_agent(box_env(), model, TrainOptions{}, 0);
    std::int64_t n = 0;
    for (const auto& p : agent->module().parameters()) n += p.numel();
    EXPECT_EQ(n, expected) << "uniform_pb " << uniform_pb;
  }
}

EnvOptions box_polar_env() {
  EnvOptions env;
  env.name = "box_polar";
  return env;
}

// env.name box_polar: PF carries the 5 K0 = 20 learned constant outputs of the s0 mixture
// (torchgfn's PFs0), and a few iterations lower the loss with every continuous loss.
TEST(ContinuousLearner, BoxPolarTrainsThroughMakeAgent) {
  std::int64_t constants = 0;
  for (const LossKind loss : {LossKind::kTB, LossKind::kDB}) {
    TrainOptions train;
    train.loss = loss;
    train.lr = 1e-2;
    const auto agent = make_agent(box_polar_env(), small_model(), train, 3);
    for (const auto& p : agent->module().named_parameters()) {
      if (p.key() == "pf_constant") constants = p.value().numel();
    }
    std::vector<double> losses;
    for (int i = 0; i < 40; ++i) losses.push_back(agent->train_iteration(32).loss);
    EXPECT_LT(std::accumulate(losses.end() - 5, losses.end(), 0.0),
              std::accumulate(losses.begin(), losses.begin() + 5, 0.0))
        << "loss " << static_cast<int>(loss);
  }
  EXPECT_EQ(constants, 5 * BoxPolarEnvOptions{}.n_components_s0);
}

// model.uniform_pb on the polar Box is torchgfn's BoxPBUniform: every angle of the arc equally
// likely (the concentrations are the constant outputs 1, read without normalisation).
TEST(ContinuousLearner, BoxPolarUniformPbIsUniformInTheAngle) {
  const ContinuousParts parts = make_continuous_environment(box_polar_env(), true);
  EXPECT_EQ(parts.pf_constant_outputs, 20);
  const at::Tensor states = at::tensor({0.7f, 0.6f, 0.7f, 0.6f}).view({2, 2});
  const at::Tensor outputs = at::full({2, parts.pb->n_outputs()}, parts.fixed_pb_output);
  const double d = BoxPolarEnvOptions{}.delta;
  const double a0 = 0.3, a1 = 1.2;  // two angles (radians) on the south-western arc
  ContinuousActions actions{
      at::tensor({static_cast<float>(d * std::cos(a0)), static_cast<float>(d * std::sin(a0)),
                  static_cast<float>(d * std::cos(a1)), static_cast<float>(d * std::sin(a1))})
          .view({2, 2}),
      at::zeros({2}, at::kBool)};
  const at::Tensor log_prob = parts.pb->log_prob(states, outputs, actions, 1.0);
  EXPECT_TRUE(std::isfinite(log_prob[0].item<double>()));
  EXPECT_NEAR(log_prob[0].item<double>(), log_prob[1].item<double>(), 1e-5);
  const ContinuousParts learned = make_continuous_environment(box_polar_env(), false);
  const at::Tensor learned_log_prob = learned.pb->log_prob(states, outputs, actions, 1.0);
  EXPECT_GT(std::abs(learned_log_prob[0].item<double>() - learned_log_prob[1].item<double>()), 1e-3)
      << "the normalised outputs are not uniform: the fixed PB must differ";
}

TEST(TrainOptions, TemperatureStartAnnealsOverTheFirstHalf) {
  TrainOptions t;
  t.n_iterations = 100;
  t.temperature = 1.0;
  EXPECT_EQ(t.sampling_temperature(0), 1.0);
  t.temperature_start = 2.0;
  EXPECT_DOUBLE_EQ(t.sampling_temperature(0), 2.0);
  EXPECT_DOUBLE_EQ(t.sampling_temperature(25), 1.5);
  EXPECT_DOUBLE_EQ(t.sampling_temperature(50), 1.0);
  EXPECT_DOUBLE_EQ(t.sampling_temperature(99), 1.0);
}

// train.lr_decay: torch.optim.lr_scheduler.MultiStepLR with train_box.py's milestones (a third
// of the run each, at most iterations() / m of them), stepped after every optimizer step.
TEST(TrainOptions, LearningRateScaleFollowsTrainBoxMilestones) {
  TrainOptions t;
  t.n_iterations = 250;
  EXPECT_EQ(t.learning_rate_scale(200), 1.0) << "off by default";
  t.lr_decay = 0.5;
  EXPECT_EQ(t.learning_rate_scale(0), 1.0);
  EXPECT_EQ(t.learning_rate_scale(82), 1.0);
  EXPECT_EQ(t.learning_rate_scale(83), 0.5);
  EXPECT_EQ(t.learning_rate_scale(166), 0.25);
  EXPECT_EQ(t.learning_rate_scale(249), 0.125);
  EXPECT_EQ(t.learning_rate_scale(400), 0.125) << "no milestone past the run";
  t.lr_decay_every = 100;
  EXPECT_EQ(t.learning_rate_scale(99), 1.0);
  EXPECT_EQ(t.learning_rate_scale(249), 0.25);
}

// train.loss_at_sampling_temperature: with the sampling temperature 1 the loss is the same
// (same seed, same samples); annealed from 3, the first loss differs from the loss at
// temperature 1 and equals that of a learner sampling at a constant 3 (the iteration's
// sampling temperature, not train.temperature); the discrete learner refuses the key.
TEST(ContinuousLearner, LossAtSamplingTemperatureReadsTheTemperedPolicies) {
  TrainOptions plain;
  plain.n_iterations = 4;
  TrainOptions tempered = plain;
  tempered.loss_at_sampling_temperature = true;
  {
    ContinuousLearner a(box_env(), small_model(), plain, 3);
    ContinuousLearner b(box_env(), small_model(), tempered, 3);
    EXPECT_EQ(losses(a, 2), losses(b, 2)) << "temperature 1: nothing changes";
  }
  plain.temperature_start = tempered.temperature_start = 3.0;
  TrainOptions constant = tempered;
  constant.temperature_start = 0.0;
  constant.temperature = 3.0;
  ContinuousLearner a(box_env(), small_model(), plain, 3);
  ContinuousLearner b(box_env(), small_model(), tempered, 3);
  ContinuousLearner c(box_env(), small_model(), constant, 3);
  const double at_one = a.train_iteration(16).loss;
  const double annealed = b.train_iteration(16).loss;
  EXPECT_NE(at_one, annealed);
  EXPECT_EQ(annealed, c.train_iteration(16).loss);
  EnvOptions grid;  // hypergrid
  TrainOptions only_this;
  only_this.loss_at_sampling_temperature = true;
  expect_refused("train.loss_at_sampling_temperature",
                 [&] { make_agent(grid, small_model(), only_this, 0); });
}

// A learner with train.lr_decay trains as one without until the first milestone, then
// differently; the discrete learner refuses the key.
TEST(ContinuousLearner, LearningRateDecayActsFromTheFirstMilestone) {
  TrainOptions decayed;
  decayed.n_iterations = 6;
  decayed.lr_decay = 0.1;
  decayed.lr_decay_every = 3;
  TrainOptions plain;
  plain.n_iterations = 6;
  ContinuousLearner a(box_env(), small_model(), decayed, 4);
  ContinuousLearner b(box_env(), small_model(), plain, 4);
  EXPECT_EQ(losses(a, 4), losses(b, 4)) << "the 4th loss reads the parameters of step 3";
  EXPECT_NE(losses(a, 1), losses(b, 1));
  EnvOptions grid;  // hypergrid
  expect_refused("train.lr_decay", [&] { make_agent(grid, small_model(), decayed, 0); });
}

// train.gradient_clamp_log_z false (train_line.py): logZ's gradient is left as computed, every
// other gradient is clamped; the same seed with logZ clamped gives the same other gradients.
TEST(ContinuousLearner, GradientClampCanLeaveLogZ) {
  TrainOptions train;
  train.gradient_clamp = 1e-4;
  train.gradient_clamp_log_z = false;
  ContinuousLearner skip(box_env(), small_model(), train, 0);
  skip.train_iteration(16);
  train.gradient_clamp_log_z = true;
  ContinuousLearner all(box_env(), small_model(), train, 0);
  all.train_iteration(16);
  const at::Tensor log_z_grad = skip.module().named_parameters()["logZ"].grad();
  ASSERT_TRUE(log_z_grad.defined());
  EXPECT_GT(log_z_grad.abs().item<double>(), 1e-4) << "the test needs logZ's gradient above c";
  EXPECT_LE(all.module().named_parameters()["logZ"].grad().abs().item<double>(), 1e-4);
  for (const auto& item : skip.module().named_parameters()) {
    if (item.key() == "logZ" || !item.value().grad().defined()) continue;
    EXPECT_LE(item.value().grad().abs().max().item<double>(), 1e-4) << item.key();
    EXPECT_TRUE(item.value().grad().equal(all.module().named_parameters()[item.key()].grad()))
        << item.key();
  }
}

// train.gradient_clamp: the gradients the optimizer step read (left in place after it) are
// within [-c, c], where unclamped ones are not; the discrete learner refuses it and
// train.temperature_start, naming the key.
TEST(ContinuousLearner, GradientClampBoundsEveryGradient) {
  TrainOptions train;
  train.gradient_clamp = 1e-4;
  ContinuousLearner learner(box_env(), small_model(), train, 0);
  learner.train_iteration(16);
  double largest = 0;
  for (const auto& p : learner.module().parameters()) {
    if (p.grad().defined()) largest = std::max(largest, p.grad().abs().max().item<double>());
  }
  EXPECT_GT(largest, 0.0);
  EXPECT_LE(largest, 1e-4);
  TrainOptions unclamped;
  ContinuousLearner free(box_env(), small_model(), unclamped, 0);
  free.train_iteration(16);
  double free_largest = 0;
  for (const auto& p : free.module().parameters()) {
    if (p.grad().defined())
      free_largest = std::max(free_largest, p.grad().abs().max().item<double>());
  }
  EXPECT_GT(free_largest, 1e-4);
  EnvOptions grid;  // hypergrid
  expect_refused("train.gradient_clamp", [&] { make_agent(grid, small_model(), train, 0); });
  TrainOptions annealed;
  annealed.temperature_start = 2.0;
  expect_refused("train.temperature_start", [&] { make_agent(grid, small_model(), annealed, 0); });
}

}  // namespace
}  // namespace gfn::core
