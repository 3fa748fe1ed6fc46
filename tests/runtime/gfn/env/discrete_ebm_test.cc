// DiscreteEBM's energies (runtime/gfn/env/discrete_ebm.h): the ising_lattice interaction
// matrix against torchgfn's construction (tutorials/examples/train_ising.py make_J, rebuilt
// here from its loops), the log reward of every state of small lattices (L = 2, 3, 4, and the
// L = 1 corner) against a direct per-state sum over J, hand-computed values, the ones energy
// unchanged bit for bit, the modes (enumerated and in closed form), the refusals, exact
// validation and TB learning on a small lattice, and the fused sampler's rewards.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/gfn/env/discrete_ebm.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/fused_sampler.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/validation.h"
#include "tests/support/environment_contract.h"

namespace gfn::core {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

DiscreteEbmOptions lattice(int side, double coupling, double alpha = 1.0) {
  DiscreteEbmOptions o;
  o.ndim = side * side;
  o.alpha = alpha;
  o.energy = EbmEnergy::kIsingLattice;
  o.coupling = coupling;
  return o;
}

// torchgfn's make_J(L, coupling), as its loops write it: nearest neighbours inside the grid
// (k > m, same row and columns 1 apart, or same column and rows 1 apart), then the periodic
// wrap of every row (first and last column) and column (first and last row), each entry SET
// to 1 (coinciding neighbours count once), all scaled by the coupling. Row-major [N * N].
std::vector<double> torchgfn_make_j(int side, double coupling) {
  const int n = side * side;
  std::vector<double> j(static_cast<std::size_t>(n) * n, 0.0);
  auto at = [&](int a, int b) -> double& { return j[static_cast<std::size_t>(a) * n + b]; };
  for (int k = 0; k < n; ++k) {
    for (int m = 0; m < k; ++m) {
      const int x1 = k / side, y1 = k % side, x2 = m / side, y2 = m % side;
      if ((x1 == x2 && std::abs(y2 - y1) == 1) || (y1 == y2 && std::abs(x2 - x1) == 1)) {
        at(k, m) = at(m, k) = 1;
      }
    }
  }
  for (int k = 0; k < side; ++k) {
    at(k * side, (k + 1) * side - 1) = at((k + 1) * side - 1, k * side) = 1;
    at(k, k + n - side) = at(k + n - side, k) = 1;
  }
  for (double& v : j) v *= coupling;
  return j;
}

// log R(s) = -alpha E(x) = alpha sum_k sum_m J_km x_k x_m, x = 2 s - 1, in double, per row.
std::vector<double> direct_log_rewards(const at::Tensor& states, const std::vector<double>& j,
                                       double alpha) {
  const at::Tensor s = states.contiguous();
  const std::int64_t n = s.size(1);
  std::vector<double> out;
  for (std::int64_t r = 0; r < s.size(0); ++r) {
    const std::int64_t* row = s.data_ptr<std::int64_t>() + r * n;
    double quad = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      for (std::int64_t m = 0; m < n; ++m) {
        quad += j[static_cast<std::size_t>(k * n + m)] * (2 * row[k] - 1) * (2 * row[m] - 1);
      }
    }
    out.push_back(alpha * quad);
  }
  return out;
}

// Every terminating state (ndim <= 16) or `n_random` random ones, int64 [B, ndim].
at::Tensor complete_states(std::int64_t ndim, std::int64_t n_random) {
  if (ndim <= 16) {
    std::vector<std::int64_t> pow2(static_cast<std::size_t>(ndim));
    for (std::int64_t j = 0; j < ndim; ++j) pow2[j] = std::int64_t{1} << (ndim - 1 - j);
    const at::Tensor idx = at::arange(std::int64_t{1} << ndim, at::kLong).view({-1, 1});
    return idx.div(at::tensor(pow2, at::kLong), "floor").remainder(2);
  }
  at::Generator g = at::detail::createCPUGenerator(5);
  return at::randint(2, {n_random, ndim}, g, at::kLong);
}

at::Tensor row(std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return at::tensor(v, at::kLong).view({1, n});
}

float log_reward_of(const DiscreteEBM& env, std::vector<std::int64_t> s) {
  return env.log_reward(row(std::move(s)))[0].item<float>();
}

TEST(DiscreteEbmLattice, InteractionMatrixIsTorchgfnMakeJ) {
  for (int side = 1; side <= 7; ++side) {
    SCOPED_TRACE("L = " + std::to_string(side));
    const DiscreteEBM env(lattice(side, 0.44));
    EXPECT_EQ(env.lattice_side(), side);
    const at::Tensor j = env.interaction_matrix().contiguous();
    const std::vector<double> expected = torchgfn_make_j(side, 0.44);
    ASSERT_EQ(j.numel(), static_cast<std::int64_t>(expected.size()));
    const double* p = j.data_ptr<double>();
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(p[i], expected[i]) << i;
    // Neighbours per site: 4 for L >= 3, 2 for L = 2 (coinciding), 1 for L = 1 (itself).
    const double per_site = side >= 3 ? 4 : side == 2 ? 2 : 1;
    EXPECT_TRUE(at::allclose(j.sum(1), at::full({side * side}, 0.44 * per_site, at::kDouble)));
  }
}

TEST(DiscreteEbmLattice, LogRewardIsTheDirectSumOverJForEveryState) {
  for (int side : {1, 2, 3, 4, 6}) {
    for (const double coupling : {0.44, -0.3}) {
      SCOPED_TRACE("L = " + std::to_string(side) + ", coupling " + std::to_string(coupling));
      const double alpha = 0.7;
      const DiscreteEBM env(lattice(side, coupling, alpha));
      const at::Tensor states = complete_states(side * side, 3000);
      const at::Tensor lr = env.log_reward(states).contiguous();
      ASSERT_EQ(lr.scalar_type(), at::kFloat);
      const std::vector<double> expected =
          direct_log_rewards(states, torchgfn_make_j(side, coupling), alpha);
      const float* got = lr.data_ptr<float>();
      for (std::int64_t i = 0; i < states.size(0); ++i) {
        ASSERT_NEAR(got[i], expected[i], 1e-6 * (1 + std::abs(expected[i]))) << i;
      }
    }
  }
}

TEST(DiscreteEbmLattice, HandComputedValues) {
  // 3 x 3, coupling 0.44: all aligned, every one of the 18 bonds satisfied: x^T A x = 2 * 18.
  const DiscreteEBM l3(lattice(3, 0.44));
  EXPECT_FLOAT_EQ(log_reward_of(l3, {0, 0, 0, 0, 0, 0, 0, 0, 0}), 0.44f * 36);
  EXPECT_FLOAT_EQ(log_reward_of(l3, {1, 1, 1, 1, 1, 1, 1, 1, 1}), 0.44f * 36);
  // One site flipped breaks its 4 bonds: 2 * (14 - 4) = 20.
  EXPECT_FLOAT_EQ(log_reward_of(l3, {1, 1, 1, 1, 0, 1, 1, 1, 1}), 0.44f * 20);
  // 4 x 4 checkerboard: all 32 bonds broken, -64; rows alternating 0000 / 1111: the 16
  // horizontal bonds satisfied, the 16 vertical ones broken, 0.
  const DiscreteEBM l4(lattice(4, 0.5, 2.0));
  EXPECT_FLOAT_EQ(log_reward_of(l4, {0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0}), -64.f);
  EXPECT_FLOAT_EQ(log_reward_of(l4, {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1}), 0.f);
  // 2 x 2: every site has 2 distinct neighbours (8 entries of A), so aligned gives 8 and the
  // checkerboard -8, not +-16 as 4 neighbours each would.
  const DiscreteEBM l2(lattice(2, 1.0));
  EXPECT_FLOAT_EQ(log_reward_of(l2, {1, 1, 1, 1}), 8.f);
  EXPECT_FLOAT_EQ(log_reward_of(l2, {1, 0, 0, 1}), -8.f);
  EXPECT_FLOAT_EQ(log_reward_of(l2, {1, 1, 0, 0}), 0.f);
  // 1 x 1: J = [[coupling]], x^2 = 1 whatever the state.
  const DiscreteEBM l1(lattice(1, 0.25));
  EXPECT_FLOAT_EQ(log_reward_of(l1, {0}), 0.25f);
  EXPECT_FLOAT_EQ(log_reward_of(l1, {1}), 0.25f);
}

// The default options are today's DiscreteEBM: J = ones, coupling 1, and the reward bit for
// bit the former alpha * (sum_i (2 s_i - 1))^2 in float32.
TEST(DiscreteEbmOnes, DefaultIsUnchangedBitForBit) {
  const DiscreteEbmOptions defaults;
  EXPECT_EQ(defaults.energy, EbmEnergy::kOnes);
  EXPECT_EQ(defaults.coupling, 1.0);
  for (const int ndim : {3, 7, 30}) {
    for (const double alpha : {1.0, 0.1, 0.7, -1.3}) {
      DiscreteEbmOptions o;
      o.ndim = ndim;
      o.alpha = alpha;
      const DiscreteEBM env(o);
      EXPECT_EQ(env.lattice_side(), 0);
      const at::Tensor states = complete_states(ndim, 500);
      const at::Tensor sum = (states * 2 - 1).sum(1).to(at::kFloat);
      EXPECT_TRUE(at::equal(env.log_reward(states), sum * sum * static_cast<float>(alpha)))
          << "ndim " << ndim << " alpha " << alpha;
    }
  }
  // coupling scales J = ones like alpha does.
  DiscreteEbmOptions o;
  o.ndim = 4;
  o.coupling = 0.5;
  const DiscreteEBM env(o);
  EXPECT_FLOAT_EQ(log_reward_of(env, {1, 1, 1, 0}), 0.5f * 4);
  EXPECT_TRUE(at::equal(env.interaction_matrix(), at::full({4, 4}, 0.5, at::kDouble)));
}

TEST(DiscreteEbmModes, EnumeratedAndInClosedForm) {
  // Enumerated (ndim <= 22): 4 x 4 ferromagnetic: all-0 (index 0) and all-1 (2^16 - 1).
  const DiscreteEBM l4(lattice(4, 0.44));
  EXPECT_EQ(l4.n_modes(), 2);
  const at::Tensor s4 = at::stack(
      {at::zeros({16}, at::kLong), at::ones({16}, at::kLong), complete_states(16, 0)[12345]});
  EXPECT_TRUE(at::equal(l4.mode_hits(s4), at::tensor({0, 65535}, at::kLong)));
  // Antiferromagnetic 4 x 4: the two checkerboards.
  const DiscreteEBM anti(lattice(4, -0.44));
  EXPECT_EQ(anti.n_modes(), 2);
  EXPECT_TRUE(anti.is_mode(row({0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0}))[0].item<bool>());
  EXPECT_FALSE(anti.is_mode(row(std::vector<std::int64_t>(16, 1)))[0].item<bool>());
  // Closed form past 22 variables (alpha * coupling > 0): 6 x 6 ids are terminating indices,
  // 10 x 10 ones (past 62 variables) the entries' value.
  const DiscreteEBM l6(lattice(6, 0.44));
  ASSERT_EQ(l6.n_modes(), 2);
  at::Tensor near = at::ones({1, 36}, at::kLong);
  near[0][17] = 0;
  const at::Tensor s6 =
      at::cat({at::ones({1, 36}, at::kLong), near, at::zeros({1, 36}, at::kLong)});
  EXPECT_TRUE(at::equal(l6.is_mode(s6), at::tensor({1, 0, 1}, at::kLong).to(at::kBool)));
  EXPECT_TRUE(
      at::equal(l6.mode_hits(s6),
                at::tensor(std::vector<std::int64_t>{(std::int64_t{1} << 36) - 1, 0}, at::kLong)));
  const DiscreteEBM l10(lattice(10, 0.44));
  ASSERT_EQ(l10.n_modes(), 2);
  const at::Tensor s10 = at::cat({at::zeros({1, 100}, at::kLong), at::ones({1, 100}, at::kLong)});
  EXPECT_TRUE(at::equal(l10.mode_hits(s10), at::tensor({0, 1}, at::kLong)));
  // Negative or zero alpha * coupling past 22 variables: no modes defined.
  EXPECT_EQ(DiscreteEBM(lattice(6, -0.44)).n_modes(), 0);
  EXPECT_EQ(DiscreteEBM(lattice(6, 0.44, 0.0)).n_modes(), 0);
  EXPECT_FALSE(DiscreteEBM(lattice(6, -0.44)).is_mode(s6).any().item<bool>());
  // The ones energy gets the closed form too (ndim 30: all-0 and all-1).
  DiscreteEbmOptions ones;
  ones.ndim = 30;
  EXPECT_EQ(DiscreteEBM(ones).n_modes(), 2);
}

std::string error_of(const DiscreteEbmOptions& o) {
  try {
    DiscreteEBM env(o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(DiscreteEbmLattice, RefusesImpossibleOptionsNamingTheKey) {
  DiscreteEbmOptions o = lattice(3, 0.44);
  for (const int ndim : {2, 10, 35, 99}) {
    o.ndim = ndim;
    EXPECT_THAT(error_of(o), AllOf(HasSubstr("env.ndim"), HasSubstr("perfect square"),
                                   HasSubstr("ising_lattice"), HasSubstr(std::to_string(ndim))));
  }
  o = lattice(3, std::numeric_limits<double>::quiet_NaN());
  EXPECT_THAT(error_of(o), HasSubstr("env.coupling must be finite"));
  o.coupling = std::numeric_limits<double>::infinity();
  EXPECT_THAT(error_of(o), HasSubstr("env.coupling must be finite"));
  o = lattice(3, 0.44);
  o.energy = static_cast<EbmEnergy>(7);
  EXPECT_THAT(error_of(o), HasSubstr("env.energy"));
  // The ones energy takes any ndim, not its coupling NaN.
  DiscreteEbmOptions ones;
  ones.ndim = 10;
  EXPECT_NO_THROW(DiscreteEBM{ones});
  ones.coupling = -std::numeric_limits<double>::infinity();
  EXPECT_THAT(error_of(ones), HasSubstr("env.coupling"));
}

// The Environment contract, and exact validation of a 3 x 3 lattice: R / Z and log Z from
// the direct sum, the uniform PF's terminating distribution 2^-9 per state (the dynamics do
// not depend on the energy), the row dynamics of the fused sampler against the batched ones.
TEST(DiscreteEbmLattice, ContractAndExactValidation) {
  const DiscreteEBM env(lattice(3, 0.2, 1.5));
  test::check_generic(env);
  test::check_enumeration(env, 1.0 / 512);
  const std::vector<double> direct =
      direct_log_rewards(env.terminating_states(), torchgfn_make_j(3, 0.2), 1.5);
  const at::Tensor lr = at::tensor(direct, at::kDouble);
  const double log_z = lr.logsumexp(0).item<double>();
  EXPECT_NEAR(env.log_partition(), log_z, 1e-5);
  EXPECT_TRUE(at::allclose(env.true_distribution(), (lr - log_z).exp(), 1e-5, 1e-9));
  // 6 x 6 is past the enumeration, with its modes and row dynamics (ndim <= 39).
  const DiscreteEBM big(lattice(6, 0.44));
  EXPECT_FALSE(big.enumerable());
  EXPECT_THROW(big.log_partition(), std::domain_error);
  EXPECT_NE(big.row_dynamics(), nullptr);
  test::check_generic(big);
  test::check_generic(DiscreteEBM(lattice(10, 0.44)));
}

// The fused sampler (fast/fused_sampler.h) runs DiscreteEBM's row dynamics and scores its
// terminating states with the environment's log_reward: the lattice energy there.
TEST(DiscreteEbmLattice, FusedSamplerRewardsAreTheLatticeRewards) {
  const DiscreteEBM env(lattice(6, 0.44));
  const auto pre = env.make_preprocessor(PreprocessorKind::kIdentity);
  torch::manual_seed(4);
  ModelOptions m;
  m.hidden_dim = 16;
  GFlowNetModel model(pre->output_dim(), env.n_actions(), m, false);
  at::Generator g = at::detail::createCPUGenerator(3);
  const DistinctPolicy policy = [&](const at::Tensor& s, const LogitsReady&) {
    return model.pf_logits((*pre)(s)).detach();
  };
  const Trajectories t =
      sample_trajectories_fused(env, *env.row_dynamics(), policy, 64, SamplerOptions{}, g);
  ASSERT_EQ(t.terminating_states.size(0), 64);
  const std::vector<double> direct =
      direct_log_rewards(t.terminating_states, torchgfn_make_j(6, 0.44), 1.0);
  for (std::int64_t i = 0; i < 64; ++i) {
    EXPECT_NEAR(t.log_rewards[i].item<float>(), direct[i], 1e-4) << i;
  }
}

// TB learns a 3 x 3 lattice (exact validation): the exact L1 falls to under half of its
// start and log Z is learned (measured: L1 1.52 -> 0.21, |logZ error| 8.46 -> 0.16).
TEST(DiscreteEbmLattice, TrajectoryBalanceLearnsASmallLattice) {
  EnvOptions o;
  o.name = "discrete_ebm";
  o.get<DiscreteEbmOptions>() = lattice(3, 0.2);
  ModelOptions model;
  model.hidden_dim = 64;
  TrainOptions train;
  Learner learner(o, model, train, 1);
  ValidationOptions v;
  v.n_samples = 1000;
  const ValidationResult before = learner.validate(v);
  for (int i = 0; i < 400; ++i) learner.train_iteration(64);
  const ValidationResult after = learner.validate(v);
  EXPECT_LT(after.l1_exact, 0.5 * before.l1_exact) << before.l1_exact << " -> " << after.l1_exact;
  EXPECT_LT(after.log_z_error, 0.3) << after.log_z << " vs " << after.log_z_true;
  EXPECT_EQ(after.n_modes_total, 2);
}

}  // namespace
}  // namespace gfn::core
