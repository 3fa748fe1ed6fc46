#pragma once
// The ContinuousEnvironment contract (runtime/gfn/env/continuous_environment.h), checked with
// gtest assertions on any continuous environment (Box: tests/runtime/gfn/env/box_test.cc), the
// counterpart of environment_contract.h for discrete ones. Actions come from the
// environment's own policies (continuous/policy.h) with random network outputs, so the
// contract covers the policies' support too. Each function adds non-fatal failures naming the
// environment.

#include <cstdint>

#include "runtime/gfn/continuous/policy.h"
#include "runtime/gfn/env/continuous_environment.h"

namespace gfn::test {

/// s0 and is_initial; random walks from s0 with `pf` (outputs drawn N(0, 1)): every sampled
/// action is valid (exit where can_exit, increments where forward_valid), steps and backward
/// steps round-trip, the children pass check_states, no backward action from s0, `pb`'s draws
/// are valid backward actions, sampled actions have finite log-densities under both policies,
/// terminating states have finite log rewards and reward = exp(log_reward); the refusals (exit
/// as a step, invalid and non-finite increments, bad dtypes and shapes, non-finite states),
/// each naming the environment.
void check_continuous_generic(const core::ContinuousEnvironment& env,
                              const core::ContinuousPolicy& pf, const core::ContinuousPolicy& pb);

/// The target distribution (if has_target): sample_target's shape, validity and determinism
/// for a seed, log_density = log_reward - log_partition.
void check_continuous_target(const core::ContinuousEnvironment& env);

}  // namespace gfn::test
