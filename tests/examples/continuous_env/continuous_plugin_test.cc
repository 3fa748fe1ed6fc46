// examples/continuous_env's "ring_box" plugin (GFN_CONTINUOUS_ENVIRONMENT_PLUGIN,
// runtime/gfn/env/plugin.h) through the plugin loader: it is continuous, its options are
// parsed and checked, it builds a ContinuousEnvironment with its policies that keeps the
// ContinuousEnvironment contract and the ring reward, make_agent trains it with the
// ContinuousLearner, and the discrete factories refuse it (and make_continuous the discrete
// "coins" plugin), each naming the file.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "runtime/config/schema.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/continuous_registry.h"
#include "runtime/gfn/env/plugin.h"
#include "runtime/gfn/env/plugin_loader.h"
#include "runtime/gfn/env/registry.h"
#include "tests/support/continuous_environment_contract.h"

namespace gfn::core {
namespace {

EnvOptions ring_box(const config::OptionMap& options = {}) {
  EnvOptions env;
  env.name = "ring_box";
  env.plugin = GFN_RING_BOX_PLUGIN;
  env.options = options;
  return env;
}

TEST(ContinuousPlugin, BuildsTheEnvironmentAndItsPolicies) {
  const EnvOptions env = ring_box({{"ndim", "3"}, {"radius", "0.25"}});
  ASSERT_TRUE(is_continuous(env));
  EXPECT_TRUE(load_environment_plugin(env.plugin).continuous());
  const ContinuousParts parts = make_continuous_environment(env);
  EXPECT_EQ(parts.env->name(), "ring_box");
  EXPECT_EQ(parts.env->dim(), 3);
  EXPECT_EQ(parts.pf->n_outputs(), 1 + 3 * 3 * 3);  // 3 components (its default) per coordinate
  test::check_continuous_generic(*parts.env, *parts.pf, *parts.pb);
  EXPECT_FALSE(parts.env->has_target());
  // R = R0 + exp(-(|x - c| - r)^2 / (2 sigma^2)): 1.1 on the ring, ~R0 at the centre.
  const at::Tensor x = at::tensor({0.75f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}).view({2, 3});
  const at::Tensor r = parts.env->reward(x);
  EXPECT_NEAR(r[0].item<double>(), 1.1, 1e-6);
  EXPECT_NEAR(r[1].item<double>(), 0.1 + std::exp(-0.0625 / 0.005), 1e-6);
}

TEST(ContinuousPlugin, TrainsWithTheContinuousLearner) {
  ModelOptions model;
  model.hidden_dim = 32;
  auto agent = make_agent(ring_box(), model, TrainOptions{}, 0);
  ASSERT_EQ(agent->discrete(), nullptr);
  ASSERT_NE(agent->continuous(), nullptr);
  double first = 0, last = 0;  // mean losses of the first and the last 5 iterations
  for (int i = 0; i < 30; ++i) {
    const IterationResult r = agent->train_iteration(16);
    ASSERT_TRUE(std::isfinite(r.loss)) << i;
    if (i < 5) first += r.loss / 5;
    if (i >= 25) last += r.loss / 5;
  }
  EXPECT_LT(last, first);
  EXPECT_EQ(agent->counts().iterations, 30);
}

TEST(ContinuousPlugin, RefusalsNameTheFile) {
  const std::string path = load_environment_plugin(GFN_RING_BOX_PLUGIN).path();
  try {
    make_environment(ring_box());
    ADD_FAILURE() << "the discrete registry built a continuous plugin";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("continuous"), std::string::npos) << e.what();
  }
  EnvOptions coins;
  coins.name = "coins";
  coins.plugin = GFN_COINS_PLUGIN;
  EXPECT_FALSE(is_continuous(coins));
  try {
    make_continuous_environment(coins);
    ADD_FAILURE() << "a discrete plugin was built as a continuous one";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("is discrete"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_continuous_environment(ring_box({{"sigma", "0"}})), std::invalid_argument);
  EXPECT_THROW(make_continuous_environment(ring_box({{"nope", "1"}})), config::ConfigError);
}

}  // namespace
}  // namespace gfn::core
