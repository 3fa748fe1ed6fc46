#pragma once
// Fixtures shared by the fast-path tests (tests/runtime/gfn/fast/): small environments of
// two kinds of state space, an off-policy sampler setting, and an exact comparison of two
// Trajectories (runtime/gfn/trajectories.h). Header-only; test code, not thread-safe.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>

#include "roles/experiment/experiment_config.h"
#include "runtime/gfn/env/discrete_ebm.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core::fast_test {

/// HyperGrid of `ndim` dimensions and side `height` (height^ndim states).
inline std::unique_ptr<Environment> grid(int ndim, int height) {
  core::EnvOptions o;
  o.get<core::HyperGridOptions>().ndim = ndim;
  o.get<core::HyperGridOptions>().height = height;
  return std::make_unique<HyperGrid>(o.get<core::HyperGridOptions>());
}

/// DiscreteEBM: 3^ndim states of which only the 2^ndim complete ones terminate, s0 has
/// no exit; a state space unlike HyperGrid's (state_table.h generalises to it).
inline std::unique_ptr<Environment> ebm(int ndim) {
  core::DiscreteEbmOptions o;
  o.ndim = ndim;
  o.alpha = 0.5;
  return std::make_unique<DiscreteEBM>(o);
}

/// Off-policy sampling: epsilon-greedy 0.3 and temperature 2.
inline SamplerOptions off_policy() {
  SamplerOptions o;
  o.epsilon = 0.3;
  o.temperature = 2.0;
  return o;
}

/// Every tensor of the two batches is equal, element for element.
inline void expect_same_trajectories(const Trajectories& a, const Trajectories& b) {
  EXPECT_EQ(a.n_trajectories, b.n_trajectories);
  EXPECT_TRUE(torch::equal(a.states, b.states));
  EXPECT_TRUE(torch::equal(a.actions, b.actions));
  EXPECT_TRUE(torch::equal(a.traj_index, b.traj_index));
  EXPECT_TRUE(torch::equal(a.pb_actions, b.pb_actions));
  EXPECT_TRUE(torch::equal(a.lengths, b.lengths));
  EXPECT_TRUE(torch::equal(a.terminating_states, b.terminating_states));
  EXPECT_TRUE(torch::equal(a.log_rewards, b.log_rewards));
}

}  // namespace gfn::core::fast_test
