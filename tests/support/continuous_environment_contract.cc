#include "tests/support/continuous_environment_contract.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/support/error_text.h"

namespace gfn::test {

using core::ContinuousActions;
using core::ContinuousEnvironment;
using core::ContinuousPolicy;

namespace {

constexpr std::int64_t kRows = 64;
constexpr int kMaxSteps = 50;

// f throws std::invalid_argument whose text names the environment.
void expect_refused(const ContinuousEnvironment& env, const std::function<void()>& f,
                    const char* what) {
  const std::string text = testing::what_of(f);
  EXPECT_NE(text, "") << what << " was accepted";
  EXPECT_NE(text.find(env.name()), std::string::npos) << what << ": " << text;
  EXPECT_THROW(f(), std::invalid_argument) << what;
}

// The checks of one sampled step from `states`: returns the children of the moving rows and
// appends the exiting rows to `terminating`.
at::Tensor check_step(const ContinuousEnvironment& env, const ContinuousPolicy& pf,
                      const ContinuousPolicy& pb, const at::Tensor& states, at::Generator& gen,
                      std::vector<at::Tensor>& terminating) {
  const std::int64_t b = states.size(0);
  const at::Tensor out = at::randn({b, pf.n_outputs()}, gen);
  const ContinuousActions a = pf.sample(states, out, 1.0, gen);
  EXPECT_NO_THROW(env.check_forward_actions(states, a, "contract"));
  const at::Tensor lp = pf.log_prob(states, out, a, 1.0);
  EXPECT_TRUE(lp.isfinite().all().item<bool>()) << "log PF of sampled actions " << lp;
  terminating.push_back(states.index_select(0, at::nonzero(a.is_exit).squeeze(1)));
  const at::Tensor moving = at::nonzero(a.is_exit.logical_not()).squeeze(1);
  const at::Tensor parents = states.index_select(0, moving);
  const at::Tensor inc = a.increments.index_select(0, moving);
  const at::Tensor children = env.step(parents, {inc, at::zeros({moving.size(0)}, at::kBool)});
  EXPECT_NO_THROW(env.check_states(children, "contract"));
  EXPECT_FALSE(env.is_initial(children).any().item<bool>()) << "a step returned to s0";
  EXPECT_TRUE(env.backward_valid(children, inc).all().item<bool>());
  EXPECT_TRUE(at::allclose(env.backward_step(children, inc), parents, 1e-6, 1e-6));
  // The backward policy's draws from the children, and its density of the forward increments.
  const at::Tensor pb_out = at::randn({children.size(0), pb.n_outputs()}, gen);
  const ContinuousActions back = pb.sample(children, pb_out, 1.0, gen);
  EXPECT_TRUE(env.backward_valid(children, back.increments).all().item<bool>());
  EXPECT_NO_THROW(env.check_states(env.backward_step(children, back.increments), "contract"));
  const at::Tensor lpb = pb.log_prob(children, pb_out, {inc, back.is_exit}, 1.0);
  EXPECT_TRUE(lpb.isfinite().all().item<bool>()) << "log PB of forward increments " << lpb;
  return children;
}

}  // namespace

void check_continuous_generic(const ContinuousEnvironment& env, const ContinuousPolicy& pf,
                              const ContinuousPolicy& pb) {
  SCOPED_TRACE(env.name());
  const std::int64_t d = env.dim();
  const at::Tensor s0 = env.initial_states(3);
  ASSERT_EQ(s0.sizes(), (std::vector<std::int64_t>{3, d}));
  ASSERT_EQ(s0.scalar_type(), at::kFloat);
  EXPECT_TRUE(env.is_initial(s0).all().item<bool>());
  EXPECT_NO_THROW(env.check_states(s0, "contract"));
  EXPECT_FALSE(env.backward_valid(s0, s0).any().item<bool>()) << "s0 has no parent";

  at::Generator gen = at::detail::createCPUGenerator(7);
  std::vector<at::Tensor> terminating;
  at::Tensor states = env.initial_states(kRows);
  for (int t = 0; t < kMaxSteps && states.size(0) > 0; ++t) {
    states = check_step(env, pf, pb, states, gen, terminating);
  }
  EXPECT_EQ(states.size(0), 0) << "trajectories still running after " << kMaxSteps << " steps";
  const at::Tensor x = at::cat(terminating);
  EXPECT_EQ(x.size(0), kRows);
  const at::Tensor log_r = env.log_reward(x);
  EXPECT_EQ(log_r.sizes(), (std::vector<std::int64_t>{x.size(0)}));
  EXPECT_TRUE(log_r.isfinite().all().item<bool>());
  EXPECT_TRUE(at::allclose(env.reward(x), log_r.exp()));

  // Refusals.
  const at::Tensor one = env.initial_states(1);
  const ContinuousActions exit{at::zeros({1, d}), at::ones({1}, at::kBool)};
  expect_refused(
      env, [&] { env.step(x.narrow(0, 0, 1), exit); }, "exit as a step");
  const at::Tensor nan = at::full({1, d}, std::nan(""), at::kFloat);
  expect_refused(
      env,
      [&] {
        env.step(one, {nan, at::zeros({1}, at::kBool)});
      },
      "NaN increment");
  expect_refused(
      env,
      [&] {
        env.step(one, {at::zeros({1, d}, at::kDouble), at::zeros({1}, at::kBool)});
      },
      "float64 increments");
  expect_refused(
      env, [&] { env.backward_step(one, one); }, "a backward step from s0");
  expect_refused(
      env, [&] { env.log_reward(nan); }, "NaN state");
  expect_refused(
      env,
      [&] {
        env.log_reward(at::zeros({2, d}, at::kLong));
      },
      "int64 states");
  expect_refused(
      env,
      [&] {
        env.log_reward(at::zeros({2, d + 1}));
      },
      "states of the wrong width");
}

void check_continuous_target(const ContinuousEnvironment& env) {
  SCOPED_TRACE(env.name());
  if (!env.has_target()) {
    EXPECT_THROW(env.log_partition(), std::domain_error);
    return;
  }
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor x = env.sample_target(500, gen);
  ASSERT_EQ(x.sizes(), (std::vector<std::int64_t>{500, env.dim()}));
  EXPECT_NO_THROW(env.check_states(x, "contract"));
  at::Generator again = at::detail::createCPUGenerator(3);
  EXPECT_TRUE(at::equal(env.sample_target(500, again), x));
  EXPECT_TRUE(std::isfinite(env.log_partition()));
  EXPECT_TRUE(at::allclose(env.log_density(x), env.log_reward(x) - env.log_partition()));
}

}  // namespace gfn::test
