#include "runtime/gfn/validation.h"
#include "runtime/gfn/env/env_options.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/sampler.h"

namespace gfn::core {
namespace {

HyperGrid grid(int ndim, int height) {
  core::EnvOptions o;
  o.get<core::HyperGridOptions>().ndim = ndim;
  o.get<core::HyperGridOptions>().height = height;
  return HyperGrid(o.get<core::HyperGridOptions>());
}

TEST(Validation, DynamicProgrammingOnHandComputedCases) {
  // 1D h3 with a uniform PF: P(0) = 1/2, P(1) = 1/4, P(2) = 1/4.
  const HyperGrid line = grid(1, 3);
  const torch::Tensor pf1 =
      torch::tensor({0.5, 0.5, 0.5, 0.5, 0.0, 1.0}, torch::kDouble).view({3, 2});
  EXPECT_TRUE(torch::allclose(terminating_distribution(line, pf1),
                              torch::tensor({0.5, 0.25, 0.25}, torch::kDouble)));
  // 2D h2 with a uniform PF over allowed actions: P(0,0) = 1/3, P(0,1) = P(1,0) = 1/3 * 1/2,
  // P(1,1) = 2 * (1/3 * 1/2) = 1/3.
  const HyperGrid square = grid(2, 2);
  const torch::Tensor masks = square.forward_masks(square.all_states()).to(torch::kDouble);
  const torch::Tensor pf2 = masks / masks.sum(1, true);
  EXPECT_TRUE(torch::allclose(terminating_distribution(square, pf2),
                              torch::tensor({1 / 3.0, 1 / 6.0, 1 / 6.0, 1 / 3.0}, torch::kDouble)));
  EXPECT_THROW(terminating_distribution(square, pf1), std::invalid_argument);
}

TEST(Validation, ExactDistributionMatchesMonteCarlo) {
  const HyperGrid env = grid(2, 4);
  auto pre = make_preprocessor(PreprocessorKind::kKHot, env);
  torch::manual_seed(5);
  core::ModelOptions mo;
  mo.hidden_dim = 32;
  GFlowNetModel model(pre->output_dim(), env.n_actions(), mo);
  {
    torch::NoGradGuard ng;  // sharpen the random policy so P is far from uniform
    for (auto& p : model.parameters()) p.mul_(3.0);
  }
  const torch::Tensor p = exact_terminating_distribution(model, *pre, env);
  EXPECT_NEAR(p.sum().item<double>(), 1.0, 1e-9);
  const int64_t n = 100000;
  at::Generator gen = at::detail::createCPUGenerator(9);
  // The network path of the trainer (model_policy), not the validation lookup table.
  const Trajectories t = sample_trajectories(env, model_policy(model, *pre, env), n, {}, gen);
  const torch::Tensor emp = empirical_distribution(env, t.terminating_states);
  for (int64_t i = 0; i < env.n_states(); ++i) {
    const double pi = p[i].item<double>();
    EXPECT_NEAR(emp[i].item<double>(), pi, 5 * std::sqrt(pi * (1 - pi) / n) + 1e-9)
        << "state " << i;
  }
  // E[sum |emp - p|] <= sum sqrt(p (1-p) / n); allow 3x.
  const double bound = 3 * (p * (1 - p) / n).sqrt().sum().item<double>();
  EXPECT_LT(l1_distance(emp, p), bound);
  // The lookup-table sampler of validate() draws from the same distribution.
  const torch::Tensor x = sample_terminating_states(model, *pre, env, n, gen, 30000);
  ASSERT_EQ(x.size(0), n);
  EXPECT_LT(l1_distance(empirical_distribution(env, x), p), bound);
}

TEST(Validation, SampledL1AndJsdOfKnownDistribution) {
  const HyperGrid env = grid(2, 2);  // every state has reward R0 + R1: uniform truth
  const torch::Tensor x = torch::tensor({0, 0, 0, 0, 0, 1, 1, 0}, torch::kLong).view({4, 2});
  const torch::Tensor emp = empirical_distribution(env, x);
  EXPECT_TRUE(torch::allclose(emp, torch::tensor({0.5, 0.25, 0.25, 0.0}, torch::kDouble)));
  EXPECT_NEAR(l1_distance(emp, env.true_distribution()), 0.5, 1e-12);
  // JSD by hand: m = (.375, .25, .25, .125); 0.5 * (0.5 ln(4/3)) + 0.5 * (0.25 ln(4/3)).
  EXPECT_NEAR(jensen_shannon_divergence(emp, env.true_distribution()), 0.375 * std::log(4.0 / 3.0),
              1e-12);
  EXPECT_NEAR(jensen_shannon_divergence(emp, emp), 0.0, 1e-15);
  EXPECT_THROW(l1_distance(emp, torch::zeros({3}, torch::kDouble)), std::invalid_argument);
}

TEST(Validation, ModeTracker) {
  const HyperGrid env = grid(2, 8);
  ModeTracker modes(env);
  EXPECT_EQ(modes.n_total(), 4);
  EXPECT_EQ(modes.update(torch::tensor({1, 1, 1, 1, 0, 0}, torch::kLong).view({3, 2})), 1);
  EXPECT_EQ(modes.update(torch::tensor({1, 6, 6, 6, 1, 1}, torch::kLong).view({3, 2})), 2);
  EXPECT_EQ(modes.update(torch::tensor({3, 3}, torch::kLong).view({1, 2})), 0);
  EXPECT_EQ(modes.n_found(), 3);
  EXPECT_EQ(modes.found(), (std::vector<int64_t>{9, 14, 54}));
}

}  // namespace
}  // namespace gfn::core

namespace gfn::core {
namespace {

// validation.fresh_samples: sampled_modes in one chunk equals the modes of one
// sample_trajectories call with the same generator state; in small chunks it still finds the
// modes a large sample reaches (2-D h4: the 4 corners).
TEST(Validation, SampledModesMatchTheModesOfTheSamples) {
  const HyperGrid env = grid(2, 4);
  auto pre = make_preprocessor(PreprocessorKind::kKHot, env);
  torch::manual_seed(3);
  core::ModelOptions mo;
  mo.hidden_dim = 32;
  GFlowNetModel model(pre->output_dim(), env.n_actions(), mo);
  at::Generator g1 = at::detail::createCPUGenerator(4), g2 = at::detail::createCPUGenerator(4);
  const std::vector<std::int64_t> mine = sampled_modes(model, *pre, env, 3000, g1, 3000);
  SamplerOptions o;
  o.record_transitions = false;
  const at::Tensor hits = std::get<0>(at::_unique(
      env.mode_hits(
          sample_trajectories(env, model_policy(model, *pre, env), 3000, o, g2).terminating_states),
      /*sorted=*/true));
  EXPECT_EQ(mine, std::vector<std::int64_t>(hits.data_ptr<std::int64_t>(),
                                            hits.data_ptr<std::int64_t>() + hits.numel()));
  EXPECT_EQ(sampled_modes(model, *pre, env, 20000, g1, 512).size(), 4u);
  EXPECT_TRUE(sampled_modes(model, *pre, env, 0, g1).empty());
}

}  // namespace
}  // namespace gfn::core
