#include "runtime/gfn/learner.h"
#include "runtime/gfn/env/env_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"

namespace gfn::core {
namespace {

struct SmallGrid {
  core::EnvOptions env;
  core::ModelOptions model;
  core::TrainOptions train;
  SmallGrid() {
    env.get<core::HyperGridOptions>().ndim = 2;
    env.get<core::HyperGridOptions>().height = 4;
    model.hidden_dim = 256;
    model.n_hidden = 2;
  }
};

// train.reward_exponent beta: TB's logZ converges to log sum_x R(x)^beta, not log Z; the
// rewards the Learner reports stay R; modified_db is refused.
TEST(Learner, RewardExponentTrainsTowardsRToTheBeta) {
  SmallGrid s;
  HyperGrid env(s.env.get<core::HyperGridOptions>());
  const at::Tensor all = env.all_states();
  const at::Tensor log_r =
      env.log_reward(all.index_select(0, at::nonzero(env.can_terminate(all)).squeeze(1)));
  for (const double beta : {1.0, 2.0}) {
    s.train.reward_exponent = beta;
    Learner learner(s.env, s.model, s.train, 3);
    IterationResult r;
    for (int i = 0; i < 400; ++i) r = learner.train_iteration(64);
    const double target = at::logsumexp(log_r.to(at::kDouble) * beta, 0).item<double>();
    EXPECT_NEAR(learner.model().log_z().item<double>(), target, 0.1) << "beta " << beta;
    EXPECT_TRUE(torch::allclose(r.log_rewards, env.log_reward(r.terminating_states)));
  }
  // The two targets are far apart, so the comparison above can fail.
  EXPECT_GT(std::abs(at::logsumexp(log_r.to(at::kDouble) * 2, 0).item<double>() -
                     at::logsumexp(log_r.to(at::kDouble), 0).item<double>()),
            0.5);
  s.train.loss = LossKind::kModifiedDB;
  try {
    Learner learner(s.env, s.model, s.train, 3);
    ADD_FAILURE() << "modified_db with reward_exponent 2 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("train.reward_exponent"), std::string::npos);
  }
}

TEST(Learner, ShortTrainingReducesExactL1) {
  SmallGrid s;
  Learner learner(s.env, s.model, s.train, 3);
  core::ValidationOptions v;
  v.n_samples = 20000;
  const ValidationResult before = learner.validate(v);
  double last_loss = 0;
  for (int i = 0; i < 60; ++i) {
    const IterationResult r = learner.train_iteration(64);
    ASSERT_EQ(r.terminating_states.sizes(), (at::IntArrayRef{64, 2}));
    ASSERT_EQ(r.log_rewards.size(0), 64);
    ASSERT_GE(r.seconds.sample, 0.0);
    last_loss = r.loss;
  }
  const ValidationResult after = learner.validate(v);
  EXPECT_LT(after.l1_exact, 0.25 * before.l1_exact) << before.l1_exact << " -> " << after.l1_exact;
  EXPECT_LT(after.log_z_error, before.log_z_error);
  EXPECT_NEAR(after.log_z, learner.model().log_z().item<double>(), 1e-12);
  EXPECT_NEAR(after.log_z_true, learner.env().log_partition(), 1e-12);
  EXPECT_LT(after.l1_sampled, before.l1_sampled);
  EXPECT_EQ(after.n_modes_total, 4);
  EXPECT_EQ(after.n_modes_found, 4);  // the corners are reached within 60 x 64 samples
  EXPECT_EQ(learner.counts().iterations, 60);
  EXPECT_TRUE(std::isfinite(last_loss));
}

TEST(Learner, ReproducibleAndParametersCoverLogZ) {
  SmallGrid s;
  s.train.epsilon = 0.1;
  Learner a(s.env, s.model, s.train, 5), b(s.env, s.model, s.train, 5);
  for (int i = 0; i < 3; ++i) {
    const IterationResult ra = a.train_iteration(16), rb = b.train_iteration(16);
    EXPECT_EQ(ra.loss, rb.loss);
    EXPECT_TRUE(torch::equal(ra.terminating_states, rb.terminating_states));
  }
  // logZ moves at lr_logz (0.1 per Adam step at most) and is one of parameters().
  bool has_log_z = false;
  for (const auto& kv : a.model().named_parameters()) has_log_z |= kv.key() == "logZ";
  EXPECT_TRUE(has_log_z);
  EXPECT_NEAR(a.model().log_z().item<double>(), 0.3, 0.3 + 1e-6);
  EXPECT_NE(a.model().log_z().item<double>(), 0.0);
}

TEST(Learner, RejectsBadOptions) {
  SmallGrid s;
  Learner ok(s.env, s.model, s.train, 1);
  EXPECT_THROW(ok.train_iteration(0), std::invalid_argument);
  // Names are checked by the config loader (tests/runtime/config/enum_options_test.cc);
  // values outside the tables of loss_kind.h / preprocessor_kind.h are refused here.
  s.train.loss = static_cast<LossKind>(99);
  EXPECT_THROW(Learner(s.env, s.model, s.train, 1), std::invalid_argument);
  s.train.loss = LossKind::kSubTB;
  s.train.subtb_weighting = static_cast<SubTrajectoryWeighting>(99);
  EXPECT_THROW(Learner(s.env, s.model, s.train, 1), std::invalid_argument);
  s.train.subtb_weighting = SubTrajectoryWeighting::kGeometricWithin;
  s.train.subtb_lambda = 0;
  EXPECT_THROW(Learner(s.env, s.model, s.train, 1), std::invalid_argument);
  s.train.loss = LossKind::kTB;
  s.train.temperature = 0;
  EXPECT_THROW(Learner(s.env, s.model, s.train, 1), std::invalid_argument);
  s.train.temperature = 1;
  s.env.preprocessor = static_cast<PreprocessorKind>(99);
  EXPECT_THROW(Learner(s.env, s.model, s.train, 1), std::invalid_argument);
}

// A Learner built without the schema (tools, tests, library users) checks its sections'
// values against the same rules the schema applies (config::check_values), naming the key;
// the boundary values those rules accept are accepted.
TEST(Learner, OptionValuesAreCheckedByTheirSectionsRules) {
  const auto message_of = [](auto&& build) -> std::string {
    try {
      build();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  SmallGrid s;
  s.train.lr = -1;
  EXPECT_EQ(message_of([&] { Learner(s.env, s.model, s.train, 1); }),
            "train.lr = -1 is invalid: must be >= 0");
  s.train.lr = 0;  // frozen network: accepted
  s.train.lr_logz = 0;
  EXPECT_EQ(message_of([&] { Learner(s.env, s.model, s.train, 1); }), "accepted");
  s.train.reward_exponent = 0;
  EXPECT_THAT(message_of([&] { Learner(s.env, s.model, s.train, 1); }),
              ::testing::HasSubstr("train.reward_exponent = 0 is invalid"));
  s.train.reward_exponent = 1e-6;
  EXPECT_EQ(message_of([&] { Learner(s.env, s.model, s.train, 1); }), "accepted");
  s.train.reward_exponent = 1;
  buffer::ReplayOptions replay;
  replay.kind = buffer::ReplayKind::kUniform;
  replay.fraction = 1.5;
  EXPECT_THAT(message_of([&] { Learner(s.env, s.model, s.train, 1, replay); }),
              ::testing::HasSubstr("replay.fraction = 1.5 is invalid"));
  LocalSearchOptions ls;
  ls.loops = -1;
  EXPECT_THAT(message_of([&] { Learner(s.env, s.model, s.train, 1, {}, {}, ls); }),
              ::testing::HasSubstr("local_search.loops = -1 is invalid"));
  Learner ok(s.env, s.model, s.train, 1);
  EXPECT_THAT(message_of([&] {
                ok.set_exploration({1.5, 1.0, 0.5});
              }),
              ::testing::HasSubstr("train.epsilon = 1.5 is invalid"));
  EXPECT_EQ(ok.exploration().epsilon, 0.0) << "a refused exploration changes nothing";
  ok.set_exploration({0.25, 2.0, 0.3});
  EXPECT_EQ(ok.exploration().temperature, 2.0);
  EXPECT_EQ(ok.exploration().noisy_std_init, 0.3);
}

}  // namespace
}  // namespace gfn::core
