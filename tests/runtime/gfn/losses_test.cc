#include "runtime/gfn/losses.h"
#include "runtime/gfn/env/env_options.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

// Two trajectories on a 2D grid, step-major:
//   trajectory 0: (0,0) --inc 0--> (1,0) --exit
//   trajectory 1: (0,0) --exit
Trajectories two_trajectories() {
  Trajectories t;
  t.n_trajectories = 2;
  t.states = torch::tensor({0, 0, 0, 0, 1, 0}, torch::kLong).view({3, 2});
  t.actions = torch::tensor({0, 2, 2}, torch::kLong);
  t.traj_index = torch::tensor({0, 1, 0}, torch::kLong);
  t.pb_actions = torch::tensor({0}, torch::kLong);
  t.lengths = torch::tensor({2, 1}, torch::kLong);
  t.terminating_states = torch::tensor({1, 0, 0, 0}, torch::kLong).view({2, 2});
  return t;
}

TEST(TrajectoryBalance, HandComputedValueAndGradient) {
  Trajectories t = two_trajectories();
  t.log_rewards = torch::tensor({-1.0f, 0.5f});
  TransitionLogProbs lp;
  lp.log_pf = torch::tensor({-0.1f, -0.2f, -0.3f});
  lp.log_pb = torch::tensor({-0.4f});
  const torch::Tensor log_z = torch::tensor(1.5f).requires_grad_(true);
  // Residuals: 1.5 - 0.4 + 1.0 + 0.4 = 2.5 and 1.5 - 0.2 - 0.5 = 0.8.
  const torch::Tensor loss = trajectory_balance(t, lp, log_z);
  EXPECT_NEAR(loss.item<float>(), (2.5 * 2.5 + 0.8 * 0.8) / 2, 1e-5);
  loss.backward();
  EXPECT_NEAR(log_z.grad().item<float>(), (2 * 2.5 + 2 * 0.8) / 2, 1e-5);

  lp.log_pb = torch::tensor({-0.4f, 0.0f});
  EXPECT_THROW(trajectory_balance(t, lp, log_z), std::invalid_argument);
}

TEST(TrajectoryBalance, UniformModelOnKnownTrajectories) {
  core::EnvOptions eo;
  eo.get<core::HyperGridOptions>().ndim = 2;
  eo.get<core::HyperGridOptions>().height = 8;
  HyperGrid env(eo.get<core::HyperGridOptions>());
  auto pre = make_preprocessor(PreprocessorKind::kKHot, env);
  core::ModelOptions mo;
  mo.hidden_dim = 16;
  GFlowNetModel model(pre->output_dim(), env.n_actions(), mo);
  {
    torch::NoGradGuard ng;
    for (auto& p : model.parameters()) p.zero_();  // logits 0: uniform PF and PB, logZ = 0
  }
  Trajectories t = two_trajectories();
  t.log_rewards = env.log_reward(t.terminating_states);
  const TransitionLogProbs lp = transition_log_probs(model, *pre, env, t);
  // PF: 3 allowed actions at (0,0) and at (1,0). PB at (1,0): only "decrement 0" allowed.
  const double third = std::log(1.0 / 3.0);
  EXPECT_TRUE(torch::allclose(lp.log_pf, torch::full({3}, static_cast<float>(third))));
  EXPECT_NEAR(lp.log_pb[0].item<float>(), 0.f, 1e-6);
  const double r0 = 2 * third - std::log(0.6), r1 = third - std::log(0.6);
  const torch::Tensor loss = (*make_loss(LossKind::kTB))(model, *pre, env, t);
  EXPECT_NEAR(loss.item<float>(), (r0 * r0 + r1 * r1) / 2, 1e-5);
  loss.backward();
  EXPECT_NEAR(model.log_z().grad().item<float>(), (2 * r0 + 2 * r1) / 2, 1e-5);
  EXPECT_THROW(make_loss(static_cast<LossKind>(99)), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
