// Environment plugins (runtime/gfn/env/plugin_loader.h): examples/custom_env's "coins"
// loaded through make_environment, its options checked by its own schema, the Environment
// contract and exact enumeration on it, every loss trained on it; and one clear error, naming
// the file, for each plugin that must be refused (bad_plugin.cc).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/plugin.h"
#include "runtime/gfn/env/plugin_loader.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/loss_kind.h"
#include "tests/support/environment_contract.h"

namespace gfn::core {
namespace {

EnvOptions coins(config::OptionMap options = {}) {
  EnvOptions o;
  o.name = "coins";
  o.plugin = GFN_COINS_PLUGIN;
  o.options = std::move(options);
  return o;
}

/// The ConfigError message of `f`, or "" if it throws none.
template <class F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
  for (const auto& p : parts) EXPECT_NE(text.find(p), std::string::npos) << p << " in: " << text;
}

/// Count vectors of K coin types (worth 1..K) with total <= C, and those with total == C,
/// by brute force over every vector with counts <= C.
std::pair<std::int64_t, std::int64_t> count_states(int k, int c) {
  std::int64_t states = 0, modes = 0;
  std::vector<int> counts(k, 0);
  while (true) {
    int total = 0;
    for (int i = 0; i < k; ++i) total += counts[i] * (i + 1);
    if (total <= c) ++states;
    if (total == c) ++modes;
    int i = 0;
    while (i < k && ++counts[i] > c) counts[i++] = 0;
    if (i == k) return {states, modes};
  }
}

TEST(EnvironmentPlugin, LoadsAndFollowsTheContract) {
  for (const auto& [k, c] : std::vector<std::pair<int, int>>{{3, 12}, {2, 5}, {4, 9}}) {
    const auto env = make_environment(
        coins({{"coin_types", std::to_string(k)}, {"capacity", std::to_string(c)}}));
    ASSERT_EQ(env->name(), "coins");
    EXPECT_EQ(env->state_dim(), k);
    const auto [states, modes] = count_states(k, c);
    EXPECT_EQ(env->n_states(), states) << k << " " << c;
    EXPECT_EQ(env->n_modes(), modes) << k << " " << c;
    test::check_generic(*env);
    test::check_enumeration(*env, 0);
    // log R = beta * total / C with the default beta 3: a mode has log R = 3.
    const at::Tensor lr = env->log_reward(env->terminating_states());
    const at::Tensor is_mode = env->is_mode(env->terminating_states());
    EXPECT_TRUE(at::allclose(lr.masked_select(is_mode), at::full({modes}, 3.0f)));
    EXPECT_NEAR(*env->mode_probability(), std::exp(3.0 - env->log_partition()), 1e-12);
  }
}

// The numbers in examples/custom_env/coins.yaml's comments are the plugin's: its state count
// for the options the file sets.
TEST(EnvironmentPlugin, TheExampleConfigStatesTheStateCountOfItsOptions) {
  std::ifstream file(GFN_COINS_YAML);
  ASSERT_TRUE(file) << GFN_COINS_YAML;
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::smatch stated, options;
  ASSERT_TRUE(std::regex_search(text, stated, std::regex(R"(over its (\d+) states)")));
  ASSERT_TRUE(std::regex_search(
      text, options,
      std::regex(R"(options: \{coin_types: (\d+), capacity: (\d+), beta: [0-9.]+\})")));
  const auto env =
      make_environment(coins({{"coin_types", options[1].str()}, {"capacity", options[2].str()}}));
  EXPECT_EQ(env->n_states(), std::stoll(stated[1])) << "coins.yaml's first line";
}

TEST(EnvironmentPlugin, LoadedOncePerProcess) {
  const EnvironmentPlugin& a = load_environment_plugin(GFN_COINS_PLUGIN);
  const EnvironmentPlugin& b = load_environment_plugin(GFN_COINS_PLUGIN);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.name(), "coins");
}

TEST(EnvironmentPlugin, ResolveWritesEveryOptionWithItsDefault) {
  EnvOptions o = coins({{"capacity", "8"}});
  resolve_environment_plugin(o, "test.yaml");
  const config::OptionMap expected = {{"beta", "3"}, {"capacity", "8"}, {"coin_types", "3"}};
  EXPECT_EQ(o.options, expected);
  EnvOptions builtin;  // no plugin: nothing to do
  resolve_environment_plugin(builtin, "test.yaml");
  EXPECT_TRUE(builtin.options.empty());
}

// A plugin's environment is described without code of its own (Environment::describe's
// default): its name and every option of its schema, defaults included.
TEST(EnvironmentPlugin, DescribedByItsNameAndOptions) {
  const auto env = make_environment(coins({{"capacity", "8"}, {"beta", "1.5"}}));
  const EnvironmentDescription d = env->describe();
  EXPECT_EQ(d.name, "coins");
  const config::OptionMap expected = {{"beta", "1.5"}, {"capacity", "8"}, {"coin_types", "3"}};
  EXPECT_EQ(d.options, expected);
  EXPECT_FALSE(env->test_set(2, 0).has_value());  // no test set: no Spearman metric
}

TEST(EnvironmentPlugin, OptionsAreCheckedByThePluginsSchema) {
  auto resolve = [](EnvOptions o) {
    return config_error([&] { resolve_environment_plugin(o, "config file 'x.yaml'"); });
  };
  expect_contains(resolve(coins({{"colour", "red"}})),
                  {"x.yaml", "env.options.colour", GFN_COINS_PLUGIN, "coin_types, capacity, beta"});
  expect_contains(resolve(coins({{"capacity", "many"}})),
                  {"x.yaml", "env.options.capacity must be an integer", "many"});
  expect_contains(resolve(coins({{"capacity", "0"}})),
                  {"x.yaml", "env.options.capacity = 0 is invalid", ">= 1"});
  EnvOptions wrong_name = coins();
  wrong_name.name = "hypergrid";
  expect_contains(resolve(wrong_name), {"env.name = hypergrid", "'coins'", GFN_COINS_PLUGIN});
  // make_environment checks the same without the resolve step.
  expect_contains(config_error([] {
                    make_environment(coins({{"colour", "red"}}));
                  }),
                  {"env.options.colour"});
}

TEST(EnvironmentPlugin, RefusedPluginsNameTheFile) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/nonexistent/libnothing.so", "no such file"},
      {GFN_PLUGIN_BAD_ABI,  // bad_plugin.cc reports this program's version + 1
       "plugin ABI version " + std::to_string(kEnvironmentPluginAbiVersion + 1) +
           ", but this program has version " + std::to_string(kEnvironmentPluginAbiVersion)},
      {GFN_PLUGIN_OLD_ABI,  // an older version is refused as well as a newer one
       "plugin ABI version " + std::to_string(kEnvironmentPluginAbiVersion - 1) +
           ", but this program has version " + std::to_string(kEnvironmentPluginAbiVersion)},
      {GFN_PLUGIN_OLD_ABI_CONTINUOUS,  // the same check for a continuous environment
       "plugin ABI version " + std::to_string(kEnvironmentPluginAbiVersion - 1) +
           ", but this program has version " + std::to_string(kEnvironmentPluginAbiVersion)},
      {GFN_PLUGIN_BAD_BUILD_ID, "built with LibTorch 0.4.0"},
      {GFN_PLUGIN_NO_ENTRY, "no entry point gfn_environment_plugin"},
      {GFN_PLUGIN_UNDEFINED_SYMBOL, "gfn_function_nobody_defines"},
      {GFN_PLUGIN_BUILTIN_NAME, "the name of a built-in environment"},
  };
  for (const auto& [path, reason] : cases) {
    EnvOptions o;
    o.name = "bad";
    o.plugin = path;
    const std::string message =
        config_error([&] { resolve_environment_plugin(o, "config file 'x.yaml'"); });
    expect_contains(message, {"env.plugin '" + path + "'", reason});
  }
}

TEST(EnvironmentPlugin, EveryLossTrainsOnIt) {
  for (const auto& [kind, name] : kLossKindNames) {
    const std::string loss = name;
    ModelOptions model;
    model.hidden_dim = 32;
    TrainOptions train;
    train.loss = kind;
    Learner learner(coins({{"capacity", "6"}}), model, train, 3);
    for (int i = 0; i < 4; ++i) {
      const IterationResult r = learner.train_iteration(16);
      ASSERT_TRUE(std::isfinite(r.loss)) << loss << " iteration " << i;
    }
    ValidationOptions v;
    v.n_samples = 2000;
    const ValidationResult result = learner.validate(v);
    EXPECT_TRUE(result.exact) << loss;
    EXPECT_GE(result.l1_exact, 0) << loss;
    EXPECT_LE(result.l1_exact, 2 + 1e-9) << loss;
    EXPECT_EQ(result.n_modes_total, count_states(3, 6).second) << loss;
  }
}

}  // namespace
}  // namespace gfn::core
