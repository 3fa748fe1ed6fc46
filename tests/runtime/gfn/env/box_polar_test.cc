// The polar Box (runtime/gfn/env/box_polar.h): the ContinuousEnvironment contract with its own
// policies (the learned and torchgfn's uniform backward policy), the shared reward, log Z and
// target of the Cartesian Box, and the polar validity rules with their refusals.
#include "runtime/gfn/env/box_polar.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_polar_policies.h"
#include "tests/support/continuous_environment_contract.h"
#include "tests/support/error_text.h"

namespace gfn::core {
namespace {

using testing::what_of;

at::Tensor rows(std::vector<float> v) {
  const auto n = static_cast<std::int64_t>(v.size()) / 2;
  return at::tensor(v, at::kFloat).view({n, 2});
}

BoxOptions polar_options(double delta) {
  BoxOptions o;
  o.delta = delta;
  return o;
}

TEST(BoxPolar, Contract) {
  for (double delta : {0.1, 0.25}) {
    const BoxPolar box(polar_options(delta));
    for (int k : {1, 2}) {
      BoxPolarPolicyOptions po;
      po.n_components = k;
      po.n_components_s0 = k + 2;
      gfn::test::check_continuous_generic(box, BoxPolarForwardPolicy(box, po),
                                          BoxPolarBackwardPolicy(box, po));
    }
    BoxPolarPolicyOptions uniform;
    uniform.n_components = 1;
    uniform.skip_normalization = true;
    gfn::test::check_continuous_generic(box, BoxPolarForwardPolicy(box, {}),
                                        BoxPolarBackwardPolicy(box, uniform));
    gfn::test::check_continuous_target(box);
  }
}

TEST(BoxPolar, SharesTheCartesianBoxRewardAndTarget) {
  const BoxPolar polar(polar_options(0.25));
  const Box cartesian(polar_options(0.25));
  at::Generator gen = at::detail::createCPUGenerator(3);
  const at::Tensor x = at::rand({500, 2}, gen, at::kFloat);
  EXPECT_TRUE(polar.log_reward(x).equal(cartesian.log_reward(x)));
  EXPECT_DOUBLE_EQ(polar.log_partition(), cartesian.log_partition());
  at::Generator a = at::detail::createCPUGenerator(5), b = at::detail::createCPUGenerator(5);
  EXPECT_TRUE(polar.sample_target(300, a).equal(cartesian.sample_target(300, b)));
  EXPECT_TRUE(polar.policy_inputs(x).equal(x));  // IdentityPreprocessor
  EXPECT_EQ(polar.name(), "box_polar");
  BoxOptions three = polar_options(0.25);
  three.dim = 3;
  EXPECT_NE(what_of([&] { BoxPolar bad(three); }).find("env.dim must be 2"), std::string::npos);
}

TEST(BoxPolar, ValidityRules) {
  const BoxPolar box(polar_options(0.25));
  // Forward: from s0 inside the quarter disk; elsewhere length delta and inside the box.
  const at::Tensor s = rows({0, 0, 0, 0, 0, 0, 0.2f, 0.3f, 0.2f, 0.3f, 0.9f, 0.5f, 0.2f, 0.3f});
  const at::Tensor a = rows(
      {0.1f, 0.1f, 0.2f, 0.2f, -0.01f, 0.1f, 0.15f, 0.2f, 0.1f, 0.1f, 0.15f, 0.2f, 0.25f, 0.0f});
  const std::vector<bool> forward = {true, false, false, true, false, false, true};
  const at::Tensor fv = box.forward_valid(s, a);
  for (std::size_t i = 0; i < forward.size(); ++i) {
    EXPECT_EQ(fv[static_cast<std::int64_t>(i)].item<bool>(), forward[i]) << "forward row " << i;
  }
  // Backward: |s| <= delta only back to source; elsewhere length delta, parent >= 0.
  const at::Tensor t = rows({0.1f, 0.1f, 0.1f, 0.1f, 0.3f, 0.4f, 0.3f, 0.4f, 0.1f, 0.4f, 0, 0});
  const at::Tensor b = rows({0.1f, 0.1f, 0.05f, 0.05f, 0.15f, 0.2f, 0.1f, 0.1f, 0.15f, 0.2f, 0, 0});
  const std::vector<bool> backward = {true, false, true, false, false, false};
  const at::Tensor bv = box.backward_valid(t, b);
  for (std::size_t i = 0; i < backward.size(); ++i) {
    EXPECT_EQ(bv[static_cast<std::int64_t>(i)].item<bool>(), backward[i]) << "backward row " << i;
  }
  const std::string refused = what_of([&] {
    box.step(s.narrow(0, 4, 1), {a.narrow(0, 4, 1), at::zeros({1}, at::kBool)});
  });
  EXPECT_NE(refused.find("length delta"), std::string::npos) << refused;
}

}  // namespace
}  // namespace gfn::core
