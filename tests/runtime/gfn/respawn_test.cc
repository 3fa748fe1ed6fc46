// Respawn support of the optimizers and the Learner (runtime/distributed/spawn/ uses it):
// FlatAdamW::reset_state, Learner::reset_optimizer_state (flat and torch AdamW) and
// Learner::reinitialize_parameters.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/flat_adam.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {
namespace {

TEST(FlatAdamWReset, NextStepIsAFreshOptimizersFirstStep) {
  torch::manual_seed(3);
  auto w = torch::randn({6}).requires_grad_(true);
  auto fresh_w = torch::zeros({6}).requires_grad_(true);
  FlatAdamW opt({{{w}, 0.01, 0.0}});
  for (int s = 0; s < 4; ++s) {
    opt.zero_grad();
    (w * w * static_cast<double>(s + 1)).sum().backward();
    opt.step();
  }
  opt.reset_state();
  EXPECT_EQ(opt.steps_done(), 0);
  EXPECT_EQ(opt.flat_exp_avg(0).abs().sum().item<float>(), 0.0f);
  {
    torch::NoGradGuard no_grad;
    fresh_w.copy_(w);
  }
  FlatAdamW fresh({{{fresh_w}, 0.01, 0.0}});
  for (auto* o : {&opt, &fresh}) o->zero_grad();
  (w * w).sum().backward();
  (fresh_w * fresh_w).sum().backward();
  opt.step();
  fresh.step();
  EXPECT_TRUE(torch::equal(w, fresh_w)) << "same bits as a fresh optimizer's first step";
}

core::EnvOptions grid() {
  core::EnvOptions env;
  env.get<core::HyperGridOptions>().ndim = 2;
  env.get<core::HyperGridOptions>().height = 4;
  return env;
}

core::ModelOptions small_model() {
  core::ModelOptions m;
  m.hidden_dim = 32;
  m.n_hidden = 2;
  return m;
}

/// Share of the network's parameters that moved in one iteration by lr (within 0.1 %),
/// among those that moved: 1 for Adam's first step (|m_hat / sqrt(v_hat)| = 1), less
/// once the moments have a history.
double share_moved_by_lr(Learner& learner, double lr) {
  std::vector<torch::Tensor> before;
  for (const auto& kv : learner.model().named_parameters()) {
    if (kv.key() != "logZ") before.push_back(kv.value().detach().clone());
  }
  learner.train_iteration(16);
  std::int64_t moved = 0, by_lr = 0;
  std::size_t i = 0;
  for (const auto& kv : learner.model().named_parameters()) {
    if (kv.key() == "logZ") continue;
    const auto delta = (kv.value().detach() - before[i++]).abs();
    moved += (delta > 0).sum().item<std::int64_t>();
    by_lr += ((delta - lr).abs() < 1e-3 * lr).sum().item<std::int64_t>();
  }
  return moved > 0 ? static_cast<double>(by_lr) / static_cast<double>(moved) : 0.0;
}

class ResetOptimizer : public ::testing::TestWithParam<core::OptimizerKind> {};

TEST_P(ResetOptimizer, NextStepIsAFirstAdamStep) {
  core::TrainOptions train;
  train.lr = 1e-3;
  core::EngineOptions engine;
  engine.optimizer = GetParam();
  Learner learner(grid(), small_model(), train, 5, {}, engine);
  for (int i = 0; i < 15; ++i) learner.train_iteration(16);
  const double with_history = share_moved_by_lr(learner, train.lr);
  learner.reset_optimizer_state();
  const double after_reset = share_moved_by_lr(learner, train.lr);
  EXPECT_GT(after_reset, 0.95) << "first step after a reset moves by lr";
  EXPECT_LT(with_history, 0.9) << "control: the moments had a history";
}

INSTANTIATE_TEST_SUITE_P(BothOptimizers, ResetOptimizer,
                         ::testing::Values(core::OptimizerKind::kFlat,
                                           core::OptimizerKind::kTorch));

TEST(Reinitialize, EqualsAFreshLearnersModelBlendedByMomentum) {
  core::TrainOptions train;
  Learner trained(grid(), small_model(), train, 5);
  for (int i = 0; i < 5; ++i) trained.train_iteration(16);
  Learner reference(grid(), small_model(), train, 77);  // initialised from seed 77
  std::vector<torch::Tensor> own;
  for (const auto& p : trained.model().parameters()) own.push_back(p.detach().clone());

  trained.reinitialize_parameters(77, 0.0);
  const auto mine = trained.model().parameters();
  const auto ref = reference.model().parameters();
  ASSERT_EQ(mine.size(), ref.size());
  for (std::size_t i = 0; i < mine.size(); ++i) {
    EXPECT_TRUE(torch::equal(mine[i], ref[i])) << "parameter " << i;
  }
  // Still trains (the flat optimizer's views are intact).
  EXPECT_NO_THROW(trained.train_iteration(16));

  Learner blended(grid(), small_model(), train, 5);
  std::vector<torch::Tensor> start;
  for (const auto& p : blended.model().parameters()) start.push_back(p.detach().clone());
  blended.reinitialize_parameters(77, 0.25);
  const auto b = blended.model().parameters();
  for (std::size_t i = 0; i < b.size(); ++i) {
    EXPECT_TRUE(torch::allclose(b[i], 0.25 * start[i] + 0.75 * ref[i], 1e-6, 1e-6))
        << "parameter " << i;
  }
}

}  // namespace
}  // namespace gfn::core
