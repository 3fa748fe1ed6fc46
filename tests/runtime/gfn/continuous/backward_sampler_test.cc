// Backward trajectories of continuous environments (sample_backward_continuous_trajectories,
// runtime/gfn/continuous/sampler.h) and the step-major concatenation of two batches
// (continuous/trajectory_ops.h), on Box and the polar Box, with a learned and a fixed PB, and
// on Line (its learned Gaussian PB, the forced step back to s0):
// every trajectory starts in s0, replays forward to the state it was sampled from, exits
// there, and its actions are valid with finite log PF and log PB; the concatenation keeps
// every trajectory's rows and log-densities.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/continuous/sampler.h"
#include "runtime/gfn/continuous/trajectory_ops.h"

namespace gfn::core {
namespace {

struct Case {
  std::string env;
  bool uniform_pb;
};

std::vector<Case> cases() {
  return {
      {"box", false}, {"box", true}, {"box_polar", false}, {"box_polar", true}, {"line", false}};
}

std::unique_ptr<ContinuousLearner> learner_for(const Case& c) {
  EnvOptions env;
  env.name = c.env;
  ModelOptions model;
  model.hidden_dim = 32;
  model.uniform_pb = c.uniform_pb;
  return std::make_unique<ContinuousLearner>(env, model, TrainOptions{}, 5);
}

/// Rows of trajectory j, in step order (the layout is step-major).
at::Tensor rows_of(const ContinuousTrajectories& t, std::int64_t j) {
  return at::nonzero(t.traj_index.eq(j)).squeeze(1);
}

TEST(ContinuousBackwardSampler, TrajectoriesRunFromS0ToTheGivenStates) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.env + (c.uniform_pb ? " uniform PB" : " learned PB"));
    auto learner = learner_for(c);
    const ContinuousGFlowNet gfn = learner->gflownet();
    at::Generator gen = at::detail::createCPUGenerator(9);
    const std::int64_t b = 48;
    const at::Tensor x = sample_continuous_trajectories(gfn, b, {}, gen).terminating_states;
    const ContinuousTrajectories t = sample_backward_continuous_trajectories(gfn, x, {}, gen);
    ASSERT_EQ(t.n_trajectories, b);
    EXPECT_EQ(t.lengths.sum().item<std::int64_t>(), t.n_transitions());
    EXPECT_TRUE(at::equal(t.terminating_states, x));
    EXPECT_TRUE(at::equal(t.log_rewards, gfn.env.log_reward(x)));
    EXPECT_TRUE(gfn.env.is_initial(t.states.narrow(0, 0, b)).all().item<bool>());
    EXPECT_NO_THROW(gfn.env.check_forward_actions(t.states, t.actions(), "test"));
    const at::Tensor pb_rows = at::cat({at::zeros({b, gfn.env.dim()}), t.pb_increments});
    for (std::int64_t j = 0; j < b; ++j) {
      const at::Tensor rows = rows_of(t, j);
      const std::int64_t len = rows.size(0);
      ASSERT_EQ(len, t.lengths[j].item<std::int64_t>()) << j;
      const at::Tensor s = t.states.index_select(0, rows);
      const at::Tensor a = t.increments.index_select(0, rows);
      EXPECT_TRUE(at::equal(s[len - 1], x[j])) << j;
      EXPECT_EQ(t.is_exit.index_select(0, rows).nonzero().item<std::int64_t>(), len - 1) << j;
      // Replaying the forward increments from s0 reaches every state (up to rounding), and
      // PB's action back from state f is the forward increment that led to it.
      const at::Tensor replayed =
          gfn.env.step_unchecked(s.narrow(0, 0, len - 1), a.narrow(0, 0, len - 1));
      EXPECT_TRUE(at::allclose(replayed, s.narrow(0, 1, len - 1), 0, 1e-5)) << j;
      EXPECT_TRUE(
          at::equal(pb_rows.index_select(0, rows.narrow(0, 1, len - 1)), a.narrow(0, 0, len - 1)))
          << j;
    }
    const TransitionLogProbs lp = continuous_log_probs(gfn, t);
    EXPECT_TRUE(lp.log_pf.isfinite().all().item<bool>());
    EXPECT_TRUE(lp.log_pb.isfinite().all().item<bool>());
  }
}

TEST(ContinuousBackwardSampler, SameGeneratorSameTrajectories) {
  auto learner = learner_for({"box", false});
  const ContinuousGFlowNet gfn = learner->gflownet();
  at::Generator gen = at::detail::createCPUGenerator(2);
  const at::Tensor x = sample_continuous_trajectories(gfn, 16, {}, gen).terminating_states;
  at::Generator g1 = at::detail::createCPUGenerator(4), g2 = at::detail::createCPUGenerator(4);
  at::Generator g3 = at::detail::createCPUGenerator(5);
  const auto a = sample_backward_continuous_trajectories(gfn, x, {}, g1);
  EXPECT_TRUE(at::equal(a.states, sample_backward_continuous_trajectories(gfn, x, {}, g2).states));
  EXPECT_FALSE(
      at::equal(a.pb_increments.sum(),
                sample_backward_continuous_trajectories(gfn, x, {}, g3).pb_increments.sum()));
}

TEST(ContinuousBackwardSampler, RefusesStatesThatAreNotTerminatingStates) {
  auto learner = learner_for({"box", false});
  const ContinuousGFlowNet gfn = learner->gflownet();
  at::Generator gen = at::detail::createCPUGenerator(1);
  const at::Tensor s0_row = at::tensor({0.5f, 0.5f, 0.f, 0.f}).view({2, 2});
  try {
    sample_backward_continuous_trajectories(gfn, s0_row, {}, gen);
    ADD_FAILURE() << "an s0 row was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sample_backward_continuous_trajectories(gfn, at::full({1, 2}, 1.5f), {}, gen),
               std::invalid_argument);
  EXPECT_THROW(sample_backward_continuous_trajectories(gfn, at::full({1, 3}, 0.5f), {}, gen),
               std::invalid_argument);
  ContinuousSamplerOptions one;
  one.max_length = 1;
  EXPECT_THROW(sample_backward_continuous_trajectories(gfn, at::full({64, 2}, 0.9f), one, gen),
               std::runtime_error);
  EXPECT_EQ(sample_backward_continuous_trajectories(gfn, at::zeros({0, 2}), {}, gen).n_trajectories,
            0);
}

TEST(ContinuousTrajectoryOps, ConcatenationKeepsEveryTrajectory) {
  auto learner = learner_for({"box", false});
  const ContinuousGFlowNet gfn = learner->gflownet();
  at::Generator gen = at::detail::createCPUGenerator(6);
  const ContinuousTrajectories a = sample_continuous_trajectories(gfn, 12, {}, gen);
  const ContinuousTrajectories b = sample_backward_continuous_trajectories(
      gfn, sample_continuous_trajectories(gfn, 7, {}, gen).terminating_states, {}, gen);
  const ContinuousTrajectories ab = concat_continuous_trajectories(a, b);
  ASSERT_EQ(ab.n_trajectories, 19);
  EXPECT_EQ(ab.n_transitions(), a.n_transitions() + b.n_transitions());
  EXPECT_TRUE(at::equal(step_of_rows(ab.lengths).narrow(0, 0, 19), at::zeros({19}, at::kLong)));
  const at::Tensor lp_ab = continuous_log_probs(gfn, ab).log_pf.detach();
  const at::Tensor lp_a = continuous_log_probs(gfn, a).log_pf.detach();
  const at::Tensor lp_b = continuous_log_probs(gfn, b).log_pf.detach();
  for (std::int64_t j = 0; j < 19; ++j) {
    const ContinuousTrajectories& src = j < 12 ? a : b;
    const at::Tensor& lp = j < 12 ? lp_a : lp_b;
    const at::Tensor rows = rows_of(src, j < 12 ? j : j - 12);
    const at::Tensor joined = rows_of(ab, j);
    EXPECT_TRUE(at::equal(ab.states.index_select(0, joined), src.states.index_select(0, rows)))
        << j;
    EXPECT_TRUE(at::equal(ab.is_exit.index_select(0, joined), src.is_exit.index_select(0, rows)))
        << j;
    EXPECT_TRUE(at::allclose(lp_ab.index_select(0, joined).sum(), lp.index_select(0, rows).sum(),
                             1e-5, 1e-4))
        << j;
  }
  EXPECT_TRUE(
      at::equal(concat_continuous_trajectories(a, ContinuousTrajectories{}).states, a.states));
}

}  // namespace
}  // namespace gfn::core
