// torchgfn's HyperGrid rewards other than "original", at hand-picked states.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/gfn/env/hypergrid.h"

namespace gfn::core {
namespace {

core::HyperGridOptions grid(int ndim, int height, HyperGridReward reward) {
  core::HyperGridOptions o;
  o.ndim = ndim;
  o.height = height;
  o.reward = reward;
  return o;
}

at::Tensor states(std::vector<std::vector<int64_t>> rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return at::tensor(flat, at::kLong).view({static_cast<int64_t>(rows.size()), -1});
}

void expect_rewards(const HyperGrid& env, const std::vector<std::vector<int64_t>>& rows,
                    const std::vector<double>& expected, double tol) {
  const at::Tensor r = env.reward(states(rows));
  ASSERT_EQ(r.scalar_type(), at::kFloat);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(r[i].item<float>(), expected[i], tol)
        << config::enum_name(env.options().reward) << " row " << i;
  }
}

TEST(Rewards, CosineMatchesFormula) {
  core::HyperGridOptions o = grid(2, 8, HyperGridReward::kCosine);
  o.R0 = 0.2;
  o.R1 = 0.7;
  HyperGrid env(o);
  // R0 + R1 prod_j (cos(50 a_j) + 1) exp(-(5 a_j)^2 / 2) / sqrt(2 pi), a = |s/7 - 1/2|.
  auto factor = [](int s) {
    const double a = std::abs(s / 7.0 - 0.5);
    return (std::cos(50 * a) + 1) * std::exp(-12.5 * a * a) / std::sqrt(2 * M_PI);
  };
  const std::vector<std::vector<int64_t>> rows = {{0, 0}, {3, 4}, {2, 5}, {7, 1}, {3, 3}};
  std::vector<double> expected;
  for (const auto& r : rows) expected.push_back(0.2 + 0.7 * factor(r[0]) * factor(r[1]));
  expect_rewards(env, rows, expected, 1e-6);
  // On an odd height the centre (a = 0) is the peak: R0 + R1 (2 / sqrt(2 pi))^ndim.
  core::HyperGridOptions o9 = grid(2, 9, HyperGridReward::kCosine);
  HyperGrid env9(o9);
  const double peak = 0.1 + 0.5 * std::pow(2 / std::sqrt(2 * M_PI), 2);
  expect_rewards(env9, {{4, 4}}, {peak}, 1e-6);
  EXPECT_EQ(env9.mode_indices(), (std::vector<std::int64_t>{4 * 9 + 4}));
}

TEST(Rewards, DeceptiveAtHandPickedStates) {
  // 2D h8: a = |s/7 - 1/2| is {.5, .357, .214, .071, .071, .214, .357, .5}: the band
  // (0.3, 0.4) is {1, 6}, the centre (a <= 0.1) is {3, 4}.
  HyperGrid env(grid(2, 8, HyperGridReward::kDeceptive));
  expect_rewards(env, {{1, 1}, {1, 6}, {3, 3}, {0, 0}, {3, 0}, {1, 3}, {2, 5}},
                 {2.1, 2.1, 0.6, 0.1, 0.6, 0.6, 0.1}, 1e-6);
  EXPECT_EQ(env.n_modes(), 4);
}

TEST(Rewards, SparseTargets) {
  HyperGrid env(grid(2, 8, HyperGridReward::kSparse));
  expect_rewards(env, {{6, 6}, {1, 6}, {6, 1}, {1, 1}, {0, 6}, {7, 7}},
                 {1.0, 1.0, 1.0, 1e-12, 1e-12, 1e-12}, 1e-15);
  EXPECT_EQ(env.n_modes(), 3);
  HyperGrid env3(grid(3, 5, HyperGridReward::kSparse));  // targets: {1,3}^3 minus (1,1,1)
  EXPECT_EQ(env3.n_modes(), 7);
  expect_rewards(env3, {{1, 1, 3}, {1, 1, 1}, {3, 3, 3}}, {1.0, 1e-12, 1.0}, 1e-15);
  HyperGrid small(grid(2, 3, HyperGridReward::kSparse));  // H - 2 = 1: the target (1,1)
  expect_rewards(small, {{1, 1}, {0, 1}}, {1.0, 1e-12}, 1e-15);
}

TEST(Rewards, TieredCompositional) {
  // bitwise_xor: every bit-plane has even parity <=> x0 ^ x1 ^ ... == 0.
  HyperGrid x2(grid(2, 8, HyperGridReward::kBitwiseXor));
  expect_rewards(x2, {{3, 3}, {3, 5}, {0, 0}, {6, 7}}, {111.1, 0.1, 111.1, 0.1}, 1e-4);
  HyperGrid x3(grid(3, 8, HyperGridReward::kBitwiseXor));
  expect_rewards(x3, {{1, 2, 3}, {1, 2, 4}, {5, 6, 3}}, {111.1, 0.1, 111.1}, 1e-4);
  // multiplicative_coprime: coordinates non-zero, of the form 2^a 3^b 5^c, a,b,c <= 2.
  HyperGrid m(grid(2, 10, HyperGridReward::kMultiplicativeCoprime));
  expect_rewards(m, {{1, 4}, {7, 1}, {0, 2}, {8, 1}, {9, 6}, {5, 5}},
                 {111.1, 0.1, 0.1, 0.1, 111.1, 111.1}, 1e-4);
}

// Names are refused by the config loader (tests/runtime/config/enum_options_test.cc); a
// value outside hypergrid_reward.h's table is refused here, naming the option.
TEST(Rewards, ValueOutsideTheTableIsRefused) {
  try {
    HyperGrid env(grid(2, 8, static_cast<HyperGridReward>(99)));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env.reward"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gfn::core
