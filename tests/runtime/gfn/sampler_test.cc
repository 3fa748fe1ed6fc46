#include "runtime/gfn/sampler.h"
#include "runtime/gfn/env/env_options.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/hypergrid.h"

namespace gfn::core {
namespace {

HyperGrid grid(int ndim, int height) {
  core::EnvOptions o;
  o.get<core::HyperGridOptions>().ndim = ndim;
  o.get<core::HyperGridOptions>().height = height;
  return HyperGrid(o.get<core::HyperGridOptions>());
}

PolicyFunction uniform_policy(const HyperGrid& env) {
  return [&env](const at::Tensor& s) { return torch::zeros({s.size(0), env.n_actions()}); };
}

TEST(Sampler, TrajectoriesAreConsistentPaths) {
  const HyperGrid env = grid(3, 4);
  at::Generator gen = at::detail::createCPUGenerator(7);
  const int64_t b = 200;
  const Trajectories t = sample_trajectories(env, uniform_policy(env), b, {}, gen);
  const int64_t n = t.n_transitions();
  ASSERT_EQ(t.n_trajectories, b);
  ASSERT_EQ(t.lengths.sum().item<int64_t>(), n);
  ASSERT_EQ(t.pb_actions.size(0), n - b);
  EXPECT_TRUE(torch::equal(t.states.narrow(0, 0, b), torch::zeros({b, 3}, torch::kLong)));
  EXPECT_TRUE(torch::equal(t.traj_index.narrow(0, 0, b), torch::arange(b, torch::kLong)));
  // Replay every trajectory from the rows: each row's state is the previous state
  // plus the previous action; the last action is exit at the terminating state.
  std::vector<std::vector<int64_t>> cur(b, std::vector<int64_t>(3, 0));
  std::vector<int64_t> last(b, -1), count(b, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = t.traj_index[i].item<int64_t>();
    if (last[k] >= 0) {
      ASSERT_NE(last[k], 3) << "a row after exit";
      cur[k][last[k]] += 1;
      ASSERT_EQ(t.pb_actions[i - b].item<int64_t>(), last[k]);
    }
    for (int j = 0; j < 3; ++j) ASSERT_EQ(t.states[i][j].item<int64_t>(), cur[k][j]);
    last[k] = t.actions[i].item<int64_t>();
    ++count[k];
  }
  for (int64_t k = 0; k < b; ++k) {
    ASSERT_EQ(last[k], 3);
    ASSERT_EQ(count[k], t.lengths[k].item<int64_t>());
    for (int j = 0; j < 3; ++j) ASSERT_EQ(t.terminating_states[k][j].item<int64_t>(), cur[k][j]);
  }
  EXPECT_TRUE(torch::equal(t.lengths, t.terminating_states.sum(1) + 1));
  EXPECT_TRUE(torch::allclose(t.log_rewards, env.log_reward(t.terminating_states)));
}

TEST(Sampler, ReproducibleGivenSeed) {
  const HyperGrid env = grid(2, 8);
  at::Generator g1 = at::detail::createCPUGenerator(3), g2 = at::detail::createCPUGenerator(3),
                g3 = at::detail::createCPUGenerator(4);
  const auto a = sample_trajectories(env, uniform_policy(env), 64, {}, g1);
  const auto b = sample_trajectories(env, uniform_policy(env), 64, {}, g2);
  const auto c = sample_trajectories(env, uniform_policy(env), 64, {}, g3);
  EXPECT_TRUE(torch::equal(a.states, b.states));
  EXPECT_TRUE(torch::equal(a.actions, b.actions));
  EXPECT_FALSE(torch::equal(a.terminating_states, c.terminating_states));
}

TEST(Sampler, EpsilonAndTemperature) {
  at::Generator gen = at::detail::createCPUGenerator(11);
  const int64_t n = 40000;
  const torch::Tensor masks = torch::tensor({1, 0, 1}, torch::kBool).expand({n, 3});
  // epsilon = 1: uniform over the allowed actions {0, 2}, whatever the logits.
  SamplerOptions eps;
  eps.epsilon = 1.0;
  const torch::Tensor logits = torch::tensor({0.f, 50.f, 30.f}).expand({n, 3});
  const torch::Tensor a = sample_actions(logits, masks, eps, gen);
  EXPECT_EQ((a == 1).sum().item<int64_t>(), 0);
  const double f0 = (a == 0).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(f0, 0.5, 5 * std::sqrt(0.25 / n));
  // temperature 2 on logits (0, log 4): probabilities proportional to (1, 2).
  SamplerOptions temp;
  temp.temperature = 2.0;
  const torch::Tensor l2 =
      torch::tensor({0.f, 0.f, static_cast<float>(std::log(4.0))}).expand({n, 3});
  const torch::Tensor b = sample_actions(l2, masks, temp, gen);
  const double f2 = (b == 2).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(f2, 2.0 / 3.0, 5 * std::sqrt(2.0 / 9.0 / n));
  // epsilon mixes: 0.5 * 1 + 0.5 * 0.5 = 0.75 for action 2 when PF always exits.
  SamplerOptions mix;
  mix.epsilon = 0.5;
  const torch::Tensor l3 = torch::tensor({-100.f, 0.f, 100.f}).expand({n, 3});
  const double f3 =
      (sample_actions(l3, masks, mix, gen) == 2).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(f3, 0.75, 5 * std::sqrt(0.75 * 0.25 / n));

  const HyperGrid env = grid(2, 4);
  SamplerOptions bad;
  bad.epsilon = 1.5;
  EXPECT_THROW(sample_trajectories(env, uniform_policy(env), 4, bad, gen), std::invalid_argument);
  bad.epsilon = 0.0;
  bad.temperature = 0.0;
  EXPECT_THROW(sample_trajectories(env, uniform_policy(env), 4, bad, gen), std::invalid_argument);
  EXPECT_THROW(sample_trajectories(env, uniform_policy(env), -1, {}, gen), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
