// Python environments and rewards (runtime/python/python_environment.h): the Environment
// contract on examples/python_env/hypergrid.py, which must equal the built-in HyperGrid member by
// member; the errors of a Python environment that breaks the contract (class, member and
// traceback named); env.reward_python on a built-in environment.
#include "runtime/python/python_environment.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"
#include "tests/support/environment_contract.h"

namespace gfn::python {
namespace {

using core::EnvOptions;
using core::HyperGridOptions;
using core::make_environment;

EnvOptions python_options(const std::string& spec, int ndim, int height) {
  install();
  EnvOptions o;
  o.name = "py_hypergrid";
  o.python = spec;
  o.python_path = GFN_PYTHON_TEST_PATH;
  o.options = {{"ndim", std::to_string(ndim)}, {"height", std::to_string(height)}};
  return o;
}

EnvOptions builtin_options(int ndim, int height) {
  EnvOptions o;
  o.name = "hypergrid";
  o.get<HyperGridOptions>().ndim = ndim;
  o.get<HyperGridOptions>().height = height;
  return o;
}

/// The message of what building (and, with `states`, stepping) the environment throws.
std::string error_of(const EnvOptions& o, bool step = false) {
  try {
    const auto env = make_environment(o);
    if (step) env->step(env->initial_states(2), at::zeros({2}, at::kLong));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in:\n" << text;
}

TEST(PythonEnvironment, HyperGridKeepsTheContract) {
  const auto env = make_environment(python_options("hypergrid:HyperGrid", 3, 4));
  EXPECT_EQ(env->name(), "py_hypergrid");
  test::check_generic(*env);
  test::check_enumeration(*env, 0);
}

// The Python HyperGrid equals the built-in one exactly, member by member (same float32
// operations), in 2-D and 4-D.
TEST(PythonEnvironment, HyperGridEqualsTheBuiltIn) {
  for (const auto& [ndim, height] : {std::pair{2, 8}, std::pair{4, 5}}) {
    SCOPED_TRACE(ndim);
    const auto py = make_environment(python_options("hypergrid:HyperGrid", ndim, height));
    const auto cc = make_environment(builtin_options(ndim, height));
    ASSERT_EQ(py->n_actions(), cc->n_actions());
    ASSERT_EQ(py->state_dim(), cc->state_dim());
    EXPECT_EQ(py->every_state_terminates(), cc->every_state_terminates());
    const at::Tensor all = cc->all_states();
    EXPECT_TRUE(at::equal(py->all_states(), all));
    EXPECT_TRUE(at::equal(py->initial_states(3), cc->initial_states(3)));
    EXPECT_TRUE(at::equal(py->forward_masks(all), cc->forward_masks(all)));
    EXPECT_TRUE(at::equal(py->backward_masks(all), cc->backward_masks(all)));
    EXPECT_TRUE(at::equal(py->log_reward(all), cc->log_reward(all)));
    EXPECT_TRUE(at::equal(py->state_indices(all), cc->state_indices(all)));
    EXPECT_TRUE(at::equal(py->true_distribution(), cc->true_distribution()));
    EXPECT_EQ(py->log_partition(), cc->log_partition());
    EXPECT_EQ(py->n_modes(), cc->n_modes());
    EXPECT_GT(py->n_modes(), 0);
    EXPECT_TRUE(at::equal(py->mode_hits(all), cc->mode_hits(all)));
    EXPECT_EQ(py->mode_probability(), cc->mode_probability());
    const at::Tensor inner = all.index({(all < height - 1).all(1) & (all > 0).all(1)});
    for (std::int64_t a = 0; a < ndim; ++a) {
      const at::Tensor actions = at::full({inner.size(0)}, a, at::kLong);
      EXPECT_TRUE(at::equal(py->step(inner, actions), cc->step(inner, actions)));
      EXPECT_TRUE(at::equal(py->backward_step(inner, actions), cc->backward_step(inner, actions)));
    }
    for (auto kind : {core::PreprocessorKind::kKHot, core::PreprocessorKind::kOneHot,
                      core::PreprocessorKind::kIdentity}) {
      EXPECT_TRUE(
          at::equal((*py->make_preprocessor(kind))(all), (*cc->make_preprocessor(kind))(all)));
    }
  }
}

// A tensor crosses without a copy: what Python returns unchanged is the caller's storage.
TEST(PythonEnvironment, TensorsCrossWithoutACopy) {
  const auto env = make_environment(python_options("faulty_envs:Identity", 2, 8));
  const at::Tensor states = env->initial_states(4);
  const at::Tensor out = env->step_unchecked(states, at::zeros({4}, at::kLong));
  EXPECT_EQ(out.data_ptr(), states.data_ptr());
}

TEST(PythonEnvironment, AnExceptionNamesTheClassTheMemberAndTheTraceback) {
  const std::string message =
      error_of(python_options("faulty_envs:RaisingStep", 2, 8), /*step=*/true);
  expect_contains(message, "env.python 'faulty_envs:RaisingStep': RaisingStep.step raised:");
  expect_contains(message, "Traceback (most recent call last):");
  expect_contains(message, "in _helper");
  expect_contains(message, "ValueError: no step from here");
}

TEST(PythonEnvironment, ResultsOfAnotherTypeOrShapeAreRefused) {
  expect_contains(error_of(python_options("faulty_envs:FloatStates", 2, 8), true),
                  "FloatStates.step must return Long [2, 2], got Float [2, 2]");
  const auto env = make_environment(python_options("faulty_envs:ListMasks", 2, 8));
  try {
    env->forward_masks(env->initial_states(2));
    FAIL() << "a list accepted as masks";
  } catch (const std::runtime_error& e) {
    expect_contains(e.what(),
                    "ListMasks.forward_masks must return a torch.Tensor Bool [2, 3], "
                    "got a list");
  }
}

TEST(PythonEnvironment, WhatDoesNotLoadIsAConfigError) {
  const auto config_error = [](const EnvOptions& o) -> std::string {
    try {
      make_environment(o);
    } catch (const config::ConfigError& e) {
      return e.what();
    }
    return "";
  };
  expect_contains(config_error(python_options("no_such_module:Env", 2, 8)),
                  "env.python 'no_such_module:Env': cannot import module 'no_such_module'");
  expect_contains(config_error(python_options("hypergrid:Nothing", 2, 8)), "module 'hypergrid' (");
  expect_contains(config_error(python_options("hypergrid", 2, 8)), "write \"module:name\"");
  expect_contains(config_error(python_options("faulty_envs:NoBackwardStep", 2, 8)),
                  "NoBackwardStep.backward_step is missing");
  const std::string raised = config_error(python_options("faulty_envs:RaisingConstructor", 2, 8));
  expect_contains(raised, "RaisingConstructor(**env.options) raised:");
  // env.options arrive typed as YAML reads them.
  expect_contains(raised, "RuntimeError: refused [('height', 8), ('ndim', 2)]");
}

TEST(PythonReward, ReplacesABuiltInEnvironmentsReward) {
  install();
  EnvOptions o = builtin_options(2, 5);
  o.reward_python = "rewards:distance_to_corner";
  o.python_path = GFN_PYTHON_TEST_PATH;
  const auto env = make_environment(o);
  const auto base = make_environment(builtin_options(2, 5));
  const at::Tensor all = base->all_states();
  const at::Tensor expected = -all.sum(1).to(at::kFloat) / 4;
  EXPECT_TRUE(at::equal(env->log_reward(all), expected));
  const at::Tensor log_r = expected.to(at::kDouble);
  EXPECT_TRUE(at::allclose(env->true_distribution(), (log_r - log_r.logsumexp(0)).exp()));
  EXPECT_NEAR(env->log_partition(), log_r.logsumexp(0).item<double>(), 1e-12);
  EXPECT_FALSE(at::equal(env->true_distribution(), base->true_distribution()));
  EXPECT_TRUE(at::equal(env->forward_masks(all), base->forward_masks(all)));
}

TEST(PythonReward, FailuresAreNamed) {
  install();
  EnvOptions o = builtin_options(2, 5);
  o.python_path = GFN_PYTHON_TEST_PATH;
  o.reward_python = "rewards:raising";
  const std::string raised = error_of(o);
  expect_contains(raised, "env.reward_python 'rewards:raising': raising raised:");
  expect_contains(raised, "KeyError: 'reward table'");
  o.reward_python = "rewards:integers";
  expect_contains(error_of(o), "it must return log R, a floating tensor [4], got Long [4]");
}

TEST(PythonPath, DefaultsToTheConfigurationFilesDirectory) {
  EnvOptions o;
  resolve_python_path(o, "/some/dir/run.yaml");
  EXPECT_EQ(o.python_path, "");  // no Python: untouched
  o.python = "m:C";
  resolve_python_path(o, "/some/dir/run.yaml");
  EXPECT_EQ(o.python_path, "/some/dir");
  o.python_path = "a:/b/../c";
  resolve_python_path(o, "/some/dir/run.yaml");
  EXPECT_EQ(o.python_path, (std::filesystem::current_path() / "a").string() + ":/c");
}

}  // namespace
}  // namespace gfn::python
