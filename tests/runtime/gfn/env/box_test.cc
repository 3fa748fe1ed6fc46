// Box (runtime/gfn/env/box.h): the ContinuousEnvironment contract with its own policies,
// rewards against hand values and a per-row recomputation, log Z, the target samples'
// region frequencies, the validity rules and their refusals.
#include "runtime/gfn/env/box.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "runtime/gfn/env/box_policies.h"
#include "tests/support/continuous_environment_contract.h"
#include "tests/support/error_text.h"

namespace gfn::core {
namespace {

using testing::what_of;

at::Tensor rows(std::vector<float> v, std::int64_t d = 2) {
  const auto n = static_cast<std::int64_t>(v.size()) / d;
  return at::tensor(v, at::kFloat).view({n, d});
}

ContinuousActions moves(const at::Tensor& increments) {
  return {increments, at::zeros({increments.size(0)}, at::kBool)};
}

TEST(Box, Contract) {
  for (int dim : {1, 2, 3}) {
    BoxOptions o;
    o.dim = dim;
    const Box box(o);
    for (int k : {1, 5}) {
      BoxPolicyOptions po;
      po.n_components = k;
      gfn::test::check_continuous_generic(box, BoxForwardPolicy(box, po),
                                          BoxBackwardPolicy(box, po));
    }
    gfn::test::check_continuous_target(box);
  }
}

TEST(Box, RewardHandValues) {
  const Box box{BoxOptions{}};
  // centre; an outer corner square; a ring square; mixed; a corner beyond the ring.
  const at::Tensor x = rows({0.5f, 0.5f, 0.05f, 0.95f, 0.15f, 0.85f, 0.12f, 0.5f, 0.88f, 0.12f,
                             0.7f, 0.8f, 0.99f, 0.01f});
  const at::Tensor expected = at::tensor({0.1f, 0.6f, 2.6f, 0.1f, 2.6f, 0.1f, 0.6f});
  EXPECT_TRUE(at::allclose(box.reward(x), expected, 0, 1e-6)) << box.reward(x);
  EXPECT_TRUE(at::allclose(box.log_reward(x), expected.log(), 0, 1e-6));
  EXPECT_NEAR(box.log_partition(), std::log(0.1 + 0.25 * 0.5 + 0.04 * 2.0), 1e-12);
}

// A per-row scalar recomputation in float32 on random states of 1 to 4 dimensions, exact.
TEST(Box, RewardEqualsRowRecomputation) {
  at::Generator gen = at::detail::createCPUGenerator(5);
  for (int dim = 1; dim <= 4; ++dim) {
    BoxOptions o;
    o.dim = dim;
    o.R0 = 0.25;
    o.R1 = 1.5;
    o.R2 = 3.0;
    const Box box(o);
    const at::Tensor x = at::rand({4000, dim}, gen, at::kFloat);
    const at::Tensor r = box.reward(x);
    const float* px = x.data_ptr<float>();
    for (std::int64_t i = 0; i < x.size(0); ++i) {
      bool outer = true, ring = true;
      for (int j = 0; j < dim; ++j) {
        const float a = std::fabs(px[i * dim + j] - 0.5f);
        outer = outer && a > 0.25f;
        ring = ring && a > 0.3f && a < 0.4f;
      }
      const float expected = (0.25f + (outer ? 1.5f : 0.0f)) + (ring ? 3.0f : 0.0f);
      ASSERT_EQ(r[i].item<float>(), expected) << "dim " << dim << " row " << i;
    }
    // log Z against the Monte Carlo mean of R over the box (5 standard errors).
    const at::Tensor big = box.reward(at::rand({200000, dim}, gen, at::kFloat)).to(at::kDouble);
    const double se = big.std().item<double>() / std::sqrt(200000.0);
    EXPECT_NEAR(big.mean().item<double>(), std::exp(box.log_partition()), 5 * se) << dim;
  }
}

// Exact samples of R / Z: the share of each region (ring squares, the rest of the outer
// squares, elsewhere) within 5 standard errors of its probability.
TEST(Box, TargetSamplesFollowTheReward) {
  const Box box{BoxOptions{}};
  at::Generator gen = at::detail::createCPUGenerator(11);
  const std::int64_t n = 40000;
  const at::Tensor r = box.reward(box.sample_target(n, gen));
  const double z = 0.305;
  const std::vector<std::pair<float, double>> regions = {
      {2.6f, 0.04 * 2.6 / z}, {0.6f, 0.21 * 0.6 / z}, {0.1f, 0.75 * 0.1 / z}};
  for (const auto& [value, p] : regions) {
    const double share = r.eq(value).to(at::kDouble).mean().item<double>();
    EXPECT_NEAR(share, p, 5 * std::sqrt(p * (1 - p) / n)) << "R = " << value;
  }
}

// Modes: the 2^d corners of the top reward tier, one id per corner (bit i: x_i > 0.5); states
// outside them (centre, outer square beyond the ring, mixed, the ring's open bounds) hit none.
TEST(Box, ModesAreTheTopTierCorners) {
  const Box box{BoxOptions{}};
  EXPECT_EQ(box.n_modes(), 4);
  const at::Tensor corners = rows({0.15f, 0.15f, 0.85f, 0.15f, 0.15f, 0.85f, 0.85f, 0.85f});
  const at::Tensor outside =
      rows({0.5f, 0.5f, 0.05f, 0.95f, 0.15f, 0.5f, 0.2f, 0.15f, 0.1f, 0.15f, 0.7f, 0.8f});
  const at::Tensor ids = box.mode_hits(at::cat({outside, corners, outside}));
  EXPECT_TRUE(at::equal(ids, at::tensor({0, 1, 2, 3}, at::kLong))) << ids;
  // The hits are where the reward is R0 + R1 + R2.
  const at::Tensor all = at::cat({outside, corners});
  EXPECT_EQ(box.reward(all).eq(2.6f).sum().item<std::int64_t>(), box.mode_hits(all).numel());
  EXPECT_THROW(box.mode_hits(rows({1.5f, 0.5f})), std::invalid_argument);

  BoxOptions three;
  three.dim = 3;
  const Box box3(three);
  EXPECT_EQ(box3.n_modes(), 8);
  const at::Tensor c3 = rows({0.85f, 0.15f, 0.85f, 0.15f, 0.85f, 0.15f}, 3);
  EXPECT_TRUE(at::equal(box3.mode_hits(c3), at::tensor({5, 2}, at::kLong))) << box3.mode_hits(c3);
  EXPECT_EQ(box3.mode_hits(rows({0.85f, 0.15f, 0.5f}, 3)).numel(), 0);

  BoxOptions no_ring;  // R2 = 0: the outer corner squares are the top tier
  no_ring.R2 = 0;
  const Box outer(no_ring);
  EXPECT_EQ(outer.n_modes(), 4);
  EXPECT_TRUE(at::equal(outer.mode_hits(rows({0.05f, 0.95f, 0.15f, 0.15f, 0.5f, 0.9f})),
                        at::tensor({2, 0}, at::kLong)));
  BoxOptions flat;  // constant reward: no modes
  flat.R1 = flat.R2 = 0;
  const Box uniform(flat);
  EXPECT_EQ(uniform.n_modes(), 0);
  EXPECT_EQ(uniform.mode_hits(corners).numel(), 0);
}

TEST(Box, ValidityRules) {
  const Box box{BoxOptions{}};
  // From s0: any increment in [0, 1]^2.
  const at::Tensor s0 = box.initial_states(4);
  EXPECT_TRUE(at::equal(box.forward_valid(s0, rows({0, 0, 1, 1, 0.03f, 0.5f, 1.01f, 0.2f})),
                        at::tensor({1, 1, 1, 0}).to(at::kBool)));
  EXPECT_FALSE(box.can_exit(s0).any().item<bool>());
  // Elsewhere: at least delta and not past 1.
  const at::Tensor s = rows({0.2f, 0.3f, 0.2f, 0.3f, 0.2f, 0.3f, 0.9f, 0.3f});
  EXPECT_TRUE(
      at::equal(box.forward_valid(s, rows({0.1f, 0.7f, 0.05f, 0.2f, 0.3f, 0.71f, 0.1f, 0.1f})),
                at::tensor({1, 0, 0, 1}).to(at::kBool)));
  EXPECT_TRUE(box.can_exit(s).all().item<bool>());
  // Backward: back to source, or the inverse of a forward step (at least delta, inside);
  // (0.15, 0.15) - (0.1, 0.1) undoes a step from the first state (0.05, 0.05).
  const at::Tensor c =
      rows({0.5f, 0.6f, 0.5f, 0.6f, 0.15f, 0.15f, 0.15f, 0.15f, 0.5f, 0.6f, 0.5f, 0.6f});
  EXPECT_TRUE(at::equal(box.backward_valid(c, rows({0.2f, 0.3f, 0.5f, 0.6f, 0.1f, 0.1f, 0.15f,
                                                    0.15f, 0.6f, 0.1f, 0.05f, 0.3f})),
                        at::tensor({1, 1, 1, 1, 0, 0}).to(at::kBool)));
  EXPECT_FALSE(box.backward_valid(box.initial_states(1), rows({0, 0})).any().item<bool>());
  EXPECT_TRUE(at::allclose(box.backward_step(c.narrow(0, 1, 1), rows({0.5f, 0.6f})),
                           box.initial_states(1)));
}

TEST(Box, RefusalsNameTheRule) {
  const Box box{BoxOptions{}};
  const std::string first = what_of([&] {
    box.step(box.initial_states(1), moves(rows({1.5f, 0.2f})));
  });
  EXPECT_NE(first.find("row 0"), std::string::npos) << first;
  EXPECT_NE(first.find("from s0 every coordinate"), std::string::npos) << first;
  const std::string small = what_of([&] {
    box.step(rows({0.2f, 0.2f, 0.3f, 0.3f}), moves(rows({0.2f, 0.2f, 0.05f, 0.2f})));
  });
  EXPECT_NE(small.find("row 1"), std::string::npos) << small;
  EXPECT_NE(small.find("delta = 0.1"), std::string::npos) << small;
  const std::string exit_s0 = what_of([&] {
    box.check_forward_actions(box.initial_states(1), {rows({0, 0}), at::ones({1}, at::kBool)},
                              "test");
  });
  EXPECT_NE(exit_s0.find("cannot exit"), std::string::npos) << exit_s0;
  const std::string back = what_of([&] {
    box.backward_step(rows({0.5f, 0.6f}), rows({0.05f, 0.3f}));
  });
  EXPECT_NE(back.find("inverse of a forward step"), std::string::npos) << back;
  const std::string outside = what_of([&] { box.log_reward(rows({0.5f, 1.2f})); });
  EXPECT_NE(outside.find("outside [0, 1]^2"), std::string::npos) << outside;
  const std::vector<std::function<void(BoxOptions&)>> invalid = {
      [](BoxOptions& o) { o.dim = 0; }, [](BoxOptions& o) { o.delta = 0; },
      [](BoxOptions& o) { o.delta = 1.5; }, [](BoxOptions& o) { o.R0 = 0; },
      [](BoxOptions& o) { o.epsilon = -1; }};
  for (const auto& change : invalid) {
    BoxOptions o;
    change(o);
    EXPECT_THROW(Box{o}, std::invalid_argument);
  }
  EXPECT_NE(what_of([] {
              BoxOptions o;
              o.delta = 0;
              Box{o};
            }).find("env.delta"),
            std::string::npos);
}

}  // namespace
}  // namespace gfn::core
