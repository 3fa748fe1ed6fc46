// examples/set_addition and examples/perfect_binary_tree (torchgfn's SetAddition and
// PerfectBinaryTree as plugins), loaded through make_environment: the Environment contract
// (tests/support/environment_contract.h), counts and distributions derived here by
// combinatorics and symmetry, and every loss training on them. Their agreement with torchgfn's
// definitions is tests/examples/compare_env.py's (examples.<name>.torchgfn_definitions).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/loss_kind.h"
#include "runtime/gfn/validation.h"
#include "tests/support/environment_contract.h"

namespace gfn::core {
namespace {

EnvOptions plugin(const char* name, const char* path, config::OptionMap options) {
  EnvOptions o;
  o.name = name;
  o.plugin = path;
  o.options = std::move(options);
  return o;
}

EnvOptions set_addition(int n, int m, bool fixed, std::string reward = "size") {
  return plugin("set_addition", GFN_SET_ADDITION_PLUGIN,
                {{"n_items", std::to_string(n)},
                 {"max_items", std::to_string(m)},
                 {"fixed_length", fixed ? "true" : "false"},
                 {"reward", std::move(reward)}});
}

EnvOptions tree(int depth, std::string reward = "index") {
  return plugin("perfect_binary_tree", GFN_PERFECT_BINARY_TREE_PLUGIN,
                {{"depth", std::to_string(depth)}, {"reward", std::move(reward)}});
}

double binomial(int n, int k) {
  return std::round(
      std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0)));
}

/// bool [S]: the states reachable from s0 (index 0), through the state graph.
std::vector<bool> reachable(const Environment& env) {
  const StateGraph& g = env.state_graph();
  std::vector<bool> seen(env.n_states(), false);
  seen[0] = true;
  for (std::int64_t p = 0; p < env.n_states(); ++p) {
    if (!seen[p]) continue;
    for (std::int64_t e = g.edge_begin[p]; e < g.edge_begin[p + 1]; ++e)
      seen[g.edge_child[e]] = true;
  }
  return seen;
}

/// The exact terminating distribution of the uniform PF over the allowed actions.
at::Tensor uniform_pf_distribution(const Environment& env) {
  const at::Tensor m = env.forward_masks(env.all_states()).to(at::kDouble);
  return terminating_distribution(env, m / m.sum(1, true));
}

TEST(PerfectBinaryTreePlugin, FollowsTheContractWithOneTrajectoryPerLeaf) {
  for (int depth : {1, 2, 4, 7}) {
    for (const char* reward : {"index", "ones"}) {
      SCOPED_TRACE(std::to_string(depth) + " " + reward);
      const auto env = make_environment(tree(depth, reward));
      EXPECT_EQ(env->n_states(), (1 << (depth + 1)) - 1);
      EXPECT_EQ(env->n_terminating_states(), 1 << depth);
      test::check_generic(*env);
      // A tree: the uniform PF reaches each leaf with probability 2^-depth.
      test::check_enumeration(*env, std::ldexp(1.0, -depth));
    }
  }
}

TEST(PerfectBinaryTreePlugin, IndexRewardIsTheNodePlusOne) {
  const auto env = make_environment(tree(3));
  // Leaves 7..14 (torchgfn's docstring), R = 8..15, Z = 92.
  EXPECT_TRUE(at::equal(env->terminating_states().view({-1}), at::arange(7, 15, at::kLong)));
  EXPECT_NEAR(env->log_partition(), std::log(92.0), 1e-12);
  EXPECT_NEAR(env->true_distribution()[0].item<double>(), 8.0 / 92.0, 1e-12);
}

TEST(SetAdditionPlugin, FollowsTheContractWhenEverySetIsReachable) {
  // max_items = n_items: every set is reachable and terminates.
  for (int n : {1, 3, 5}) {
    SCOPED_TRACE(n);
    const auto env = make_environment(set_addition(n, n, false));
    EXPECT_EQ(env->n_terminating_states(), 1 << n);
    test::check_generic(*env);
    test::check_enumeration(*env, 0);
  }
}

TEST(SetAdditionPlugin, TerminatingStatesAreTheReachableSetsThatExit) {
  // As torchgfn, all_states is the whole cube; the sets of more than max_items items are
  // unreachable, allow exit, and have no terminating index.
  for (bool fixed : {false, true}) {
    for (const auto& [n, m] : std::vector<std::pair<int, int>>{{5, 3}, {6, 2}, {4, 1}}) {
      SCOPED_TRACE(std::to_string(n) + " " + std::to_string(m) + (fixed ? " fixed" : ""));
      const auto env = make_environment(set_addition(n, m, fixed));
      test::check_generic(*env);
      double expected = 0;
      for (int k = fixed ? m : 0; k <= m; ++k) expected += binomial(n, k);
      ASSERT_EQ(env->n_states(), 1 << n);
      ASSERT_EQ(env->n_terminating_states(), static_cast<std::int64_t>(expected));
      const std::vector<bool> seen = reachable(*env);
      const at::Tensor& all = env->all_states();
      const at::Tensor exits = env->can_terminate(all);
      const at::Tensor term_index = env->terminating_state_indices(all);
      std::int64_t terminating = 0;
      for (std::int64_t s = 0; s < env->n_states(); ++s) {
        const std::int64_t size = all[s].sum().item<std::int64_t>();
        EXPECT_EQ(seen[s], size <= m) << s;
        const bool term = seen[s] && exits[s].item<bool>();
        terminating += term;
        EXPECT_EQ(term_index[s].item<std::int64_t>() >= 0, term) << s;
      }
      EXPECT_EQ(terminating, env->n_terminating_states());
      const at::Tensor p = uniform_pf_distribution(*env);
      EXPECT_NEAR(p.sum().item<double>(), 1.0, 1e-12);
      if (fixed) {  // by symmetry every set of m items is equally likely
        EXPECT_NEAR(p.min().item<double>(), 1.0 / expected, 1e-12);
        EXPECT_NEAR(p.max().item<double>(), 1.0 / expected, 1e-12);
      }
    }
  }
}

TEST(SetAdditionPlugin, RewardsAndLogPartition) {
  // size, R0 = 1 (default): Z = sum_k C(6, k) (1 + k) over k <= 4 = 213.
  const auto env = make_environment(set_addition(6, 4, false));
  EXPECT_NEAR(env->log_partition(), std::log(213.0), 1e-12);
  const auto ones = make_environment(set_addition(6, 4, true, "ones"));  // 15 sets, R = 2
  EXPECT_NEAR(ones->log_partition(), std::log(30.0), 1e-12);
  EXPECT_NEAR(ones->true_distribution().max().item<double>(), 1.0 / 15.0, 1e-12);
}

TEST(TorchgfnPlugins, EveryLossTrainsOnThem) {
  for (const EnvOptions& env : {set_addition(4, 3, false), tree(3)}) {
    for (const auto& [kind, name] : kLossKindNames) {
      SCOPED_TRACE(env.name + " " + name);
      ModelOptions model;
      model.hidden_dim = 32;
      TrainOptions train;
      train.loss = kind;
      if (kind == LossKind::kModifiedDB && env.name == "perfect_binary_tree") {
        // Only the leaves terminate: the loss needs R(s) everywhere and is refused.
        EXPECT_THROW(Learner(env, model, train, 3), std::invalid_argument);
        continue;
      }
      Learner learner(env, model, train, 3);
      for (int i = 0; i < 4; ++i) ASSERT_TRUE(std::isfinite(learner.train_iteration(16).loss));
      ValidationOptions v;
      v.n_samples = 2000;
      const ValidationResult result = learner.validate(v);
      EXPECT_TRUE(result.exact);
      EXPECT_GE(result.l1_exact, 0);
      EXPECT_LE(result.l1_exact, 2 + 1e-9);
    }
  }
}

}  // namespace
}  // namespace gfn::core
