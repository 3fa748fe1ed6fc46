#include "runtime/gfn/env/hypergrid.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace gfn::core {
namespace {

core::HyperGridOptions grid(int ndim, int height) {
  core::HyperGridOptions o;
  o.ndim = ndim;
  o.height = height;
  return o;
}

at::Tensor states(std::vector<std::vector<int64_t>> rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return at::tensor(flat, at::kLong).view({static_cast<int64_t>(rows.size()), -1});
}

// Reward written independently of the library, in exact integer arithmetic:
// ax = |s/(H-1) - 1/2| = |2s - (H-1)| / (2(H-1));
// R0 + R1*[all ax > 1/4] + R2*[all 3/10 < ax < 4/10].
double reference_reward(const std::vector<int64_t>& s, int height, double r0, double r1,
                        double r2) {
  const int64_t h1 = height - 1;
  bool outer = true, band = true;
  for (int64_t c : s) {
    const int64_t num = std::abs(2 * c - h1);  // ax = num / (2 h1)
    outer = outer && 2 * num > h1;
    band = band && 10 * num > 6 * h1 && 10 * num < 8 * h1;
  }
  return r0 + (outer ? r1 : 0.0) + (band ? r2 : 0.0);
}

TEST(HyperGrid, OriginalRewardAtHandPickedStates) {
  HyperGrid env(grid(2, 8));
  // 2D h8: coordinates 0,1,6,7 are in the outer ring, 1 and 6 in the band.
  const at::Tensor r =
      env.reward(states({{0, 0}, {1, 1}, {1, 6}, {6, 6}, {3, 3}, {0, 3}, {1, 0}, {2, 2}}));
  const std::vector<float> expected = {0.6f, 2.6f, 2.6f, 2.6f, 0.1f, 0.1f, 0.6f, 0.1f};
  ASSERT_EQ(r.scalar_type(), at::kFloat);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(r[i].item<float>(), expected[i], 1e-6) << i;
  EXPECT_NEAR(env.log_reward(states({{1, 1}}))[0].item<float>(), std::log(2.6f), 1e-6);

  core::HyperGridOptions o = grid(3, 8);
  o.R0 = 0.01;
  o.R1 = 1.0;
  o.R2 = 3.0;
  HyperGrid env3(o);
  EXPECT_NEAR(env3.reward(states({{1, 6, 1}}))[0].item<float>(), 4.01f, 1e-5);
  EXPECT_NEAR(env3.reward(states({{1, 6, 0}}))[0].item<float>(), 1.01f, 1e-5);
  EXPECT_NEAR(env3.reward(states({{1, 6, 4}}))[0].item<float>(), 0.01f, 1e-6);
}

TEST(HyperGrid, MasksAndStep) {
  HyperGrid env(grid(2, 8));
  const at::Tensor s = states({{0, 0}, {7, 3}, {7, 7}});
  const at::Tensor fwd = env.forward_masks(s);
  const at::Tensor bwd = env.backward_masks(s);
  ASSERT_EQ(fwd.sizes(), (at::IntArrayRef{3, 3}));
  ASSERT_EQ(bwd.sizes(), (at::IntArrayRef{3, 2}));
  EXPECT_TRUE(at::equal(
      fwd, at::tensor({1, 1, 1, 0, 1, 1, 0, 0, 1}, at::kLong).to(at::kBool).view({3, 3})));
  EXPECT_TRUE(at::equal(bwd, at::tensor({0, 0, 1, 1, 1, 1}, at::kLong).to(at::kBool).view({3, 2})));

  const at::Tensor next = env.step(states({{0, 0}, {7, 3}}), at::tensor({1, 1}, at::kLong));
  EXPECT_TRUE(at::equal(next, states({{0, 1}, {7, 4}})));
  EXPECT_THROW(env.step(states({{0, 0}}), at::tensor({2}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.step(states({{7, 0}}), at::tensor({0}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.step(states({{0, 0}}), at::tensor({0, 1}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.reward(states({{8, 0}})), std::invalid_argument);
  EXPECT_THROW(env.reward(at::zeros({2, 3}, at::kLong)), std::invalid_argument);
}

TEST(HyperGrid, IndicesAreRowMajorAndInvertible) {
  HyperGrid env(grid(3, 5));
  EXPECT_EQ(env.state_indices(states({{1, 2, 3}}))[0].item<int64_t>(), 1 * 25 + 2 * 5 + 3);
  const at::Tensor& all = env.all_states();
  ASSERT_EQ(all.size(0), 125);
  EXPECT_TRUE(at::equal(env.state_indices(all), at::arange(125, at::kLong)));
  EXPECT_TRUE(at::equal(env.states_from_indices(at::arange(125, at::kLong)), all));
  const auto u = env.unique(states({{4, 0, 1}, {0, 0, 0}, {4, 0, 1}}));
  EXPECT_TRUE(at::equal(u.states, states({{0, 0, 0}, {4, 0, 1}})));
  EXPECT_TRUE(at::equal(u.inverse, at::tensor({1, 0, 1}, at::kLong)));
}

// unique() sorts (state index, row) pairs in plain loops; the reference is at::_unique2 of the
// state indices (sorted) and states_from_indices of its values, row for row. A non-int64 batch
// takes that reference itself.
TEST(HyperGrid, UniqueEqualsTheSortedUniqueOfTheStateIndices) {
  HyperGrid env(grid(4, 5));
  at::Generator g = at::detail::createCPUGenerator(3);
  for (const std::int64_t n : {0, 1, 7, 500}) {
    const at::Tensor s = at::randint(3, {n, 4}, g, at::kLong);  // many repeated rows
    const auto [values, inverse, counts] =
        at::_unique2(env.state_indices(s), /*sorted=*/true, /*return_inverse=*/true);
    const auto u = env.unique(s);
    EXPECT_TRUE(at::equal(u.states, env.states_from_indices(values))) << n;
    EXPECT_TRUE(at::equal(u.inverse, inverse)) << n;
    EXPECT_TRUE(at::equal(u.states.index_select(0, u.inverse), s)) << n;
  }
  const at::Tensor as_int = states({{2, 0, 1, 0}, {0, 0, 0, 0}, {2, 0, 1, 0}}).to(at::kInt);
  EXPECT_TRUE(at::equal(env.unique(as_int).inverse, at::tensor({1, 0, 1}, at::kLong)));
}

TEST(HyperGrid, TrueDistributionAndLogPartition) {
  for (auto [ndim, height] : {std::pair{2, 8}, std::pair{3, 6}, std::pair{4, 8}}) {
    HyperGrid env(grid(ndim, height));
    const at::Tensor& all = env.all_states();
    double z = 0;
    for (int64_t i = 0; i < all.size(0); ++i) {
      std::vector<int64_t> s(ndim);
      for (int j = 0; j < ndim; ++j) s[j] = all[i][j].item<int64_t>();
      z += reference_reward(s, height, 0.1, 0.5, 2.0);
    }
    EXPECT_NEAR(env.log_partition(), std::log(z), 1e-6) << ndim << "D h" << height;
    const at::Tensor& p = env.true_distribution();
    EXPECT_EQ(p.scalar_type(), at::kDouble);
    EXPECT_NEAR(p.sum().item<double>(), 1.0, 1e-12);
    EXPECT_NEAR(p[0].item<double>(), 0.6 / z, 1e-7);
  }
  // 2D h8 by hand: 64 * 0.1 + 16 * 0.5 + 4 * 2.0 = 22.4.
  EXPECT_NEAR(HyperGrid(grid(2, 8)).log_partition(), std::log(22.4), 1e-6);
}

TEST(HyperGrid, Modes) {
  HyperGrid env2(grid(2, 8));
  EXPECT_EQ(env2.mode_indices(), (std::vector<int64_t>{9, 14, 49, 54}));  // {1,6}^2
  EXPECT_TRUE(at::equal(env2.is_mode(states({{1, 6}, {0, 0}, {6, 6}})),
                        at::tensor({1, 0, 1}, at::kLong).to(at::kBool)));
  EXPECT_EQ(HyperGrid(grid(4, 8)).n_modes(), 16);
  // h4 has no band: the maximal reward R0 + R1 is reached on the 4 corners.
  EXPECT_EQ(HyperGrid(grid(2, 4)).mode_indices(), (std::vector<int64_t>{0, 3, 12, 15}));
}

// diagonal_modes (the mode set of a grid too large to enumerate) against enumeration, on
// every small grid of the original reward, with zero, default and reversed weights: the
// same number of modes and the same is_mode on every state.
TEST(HyperGrid, DiagonalModesEqualEnumeratedModes) {
  int checked = 0;
  for (const HyperGridReward reward : {HyperGridReward::kOriginal}) {
    for (int ndim = 1; ndim <= 4; ++ndim) {
      for (int height = 2; height <= 10; ++height) {
        for (const auto& [r1, r2] : std::vector<std::pair<double, double>>{
                 {0.5, 2.0}, {0.0, 2.0}, {0.5, 0.0}, {0.0, 0.0}, {3.0, 0.1}}) {
          core::HyperGridOptions o = grid(ndim, height);
          o.reward = reward;
          o.R1 = r1;
          o.R2 = r2;
          const HyperGrid env(o);
          ASSERT_TRUE(env.enumerable());
          const auto modes = diagonal_modes(ndim, height, o);
          ASSERT_TRUE(modes.has_value());
          const auto all = env.all_states();
          std::int64_t expected = 1;
          for (int d = 0; d < ndim; ++d) expected *= modes->per_coordinate;
          SCOPED_TRACE(std::string(config::enum_name(reward)) + " ndim " + std::to_string(ndim) +
                       " height " + std::to_string(height) + " R1 " + std::to_string(r1) + " R2 " +
                       std::to_string(r2));
          EXPECT_EQ(expected, env.n_modes());
          EXPECT_TRUE(at::equal(env.reward(all) >= modes->max_reward, env.is_mode(all)));
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 4 * 9 * 5);
  for (const HyperGridReward other :
       {HyperGridReward::kDeceptive, HyperGridReward::kCosine, HyperGridReward::kSparse}) {
    core::HyperGridOptions o = grid(2, 8);
    o.reward = other;
    EXPECT_FALSE(diagonal_modes(2, 8, o).has_value()) << config::enum_name(other);
  }
  core::HyperGridOptions negative = grid(2, 8);
  negative.R1 = -0.5;
  EXPECT_FALSE(diagonal_modes(2, 8, negative).has_value());
}

// torchgfn's multinode study grid (8^8 states, above the enumeration limit): its 2^8 modes
// are known without enumeration and recognised among sampled states.
TEST(HyperGrid, ModesOfAGridTooLargeToEnumerate) {
  core::HyperGridOptions o = grid(8, 8);
  o.R0 = 0.01;
  const HyperGrid env(o);
  ASSERT_FALSE(env.enumerable());
  EXPECT_EQ(env.n_modes(), 256);  // every coordinate in {1, 6}
  const auto s =
      states({{1, 6, 1, 6, 1, 6, 1, 6}, {1, 6, 1, 6, 1, 6, 1, 5}, {0, 0, 0, 0, 0, 0, 0, 0}});
  EXPECT_TRUE(at::equal(env.is_mode(s), at::tensor({1, 0, 0}, at::kLong).to(at::kBool)));
  core::HyperGridOptions deceptive = grid(8, 8);
  deceptive.reward = HyperGridReward::kDeceptive;
  const HyperGrid unknown(deceptive);
  EXPECT_EQ(unknown.n_modes(), 0);
  EXPECT_THROW(unknown.is_mode(s), std::domain_error);
}

// original_log_partition against the enumerated log Z, and the exact sampler's mode
// probability of the 8-D study grid (each mode 2.51 / Z, Z = 201,052.16:
// docs/results/discovery.md).
TEST(HyperGrid, ClosedFormLogPartitionEqualsEnumeration) {
  for (int ndim = 1; ndim <= 4; ++ndim) {
    for (int height = 2; height <= 9; ++height) {
      core::HyperGridOptions o = grid(ndim, height);
      o.R0 = 0.01;
      const HyperGrid env(o);
      const auto log_z = original_log_partition(ndim, height, o);
      ASSERT_TRUE(log_z.has_value());
      EXPECT_NEAR(*log_z, env.log_partition(), 1e-6) << ndim << "-D h" << height;
      ASSERT_TRUE(env.mode_probability().has_value());
      EXPECT_NEAR(*env.mode_probability(), env.true_distribution().max().item<double>(), 1e-9);
    }
  }
  core::HyperGridOptions o = grid(8, 8);
  o.R0 = 0.01;
  const HyperGrid big(o);
  EXPECT_NEAR(std::exp(*original_log_partition(8, 8, o)), 201052.16, 1e-6);
  EXPECT_NEAR(*big.mode_probability(), 2.51 / 201052.16, 1e-9);
  o.reward = HyperGridReward::kCosine;
  EXPECT_FALSE(original_log_partition(8, 8, o).has_value());
  EXPECT_FALSE(HyperGrid(o).mode_probability().has_value());
}

TEST(HyperGrid, RejectsBadOptionsAndHugeEnumeration) {
  EXPECT_THROW(HyperGrid(grid(0, 8)), std::invalid_argument);
  EXPECT_THROW(HyperGrid(grid(2, 1)), std::invalid_argument);
  core::HyperGridOptions o = grid(2, 8);
  o.reward = static_cast<HyperGridReward>(99);
  EXPECT_THROW(HyperGrid{o}, std::invalid_argument);
  EXPECT_THROW(HyperGrid(grid(64, 8)), std::invalid_argument);  // 8^64 overflows int64
  HyperGrid big(grid(12, 8));                                   // 8^12 states: not enumerated
  EXPECT_FALSE(big.enumerable());
  EXPECT_THROW(big.true_distribution(), std::domain_error);
  EXPECT_THROW(big.log_partition(), std::domain_error);
  EXPECT_NEAR(big.reward(at::ones({1, 12}, at::kLong))[0].item<float>(), 2.6f, 1e-6);
}

}  // namespace
}  // namespace gfn::core
