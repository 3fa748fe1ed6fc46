#pragma once
// The Environment contract (runtime/gfn/env/environment.h), checked with gtest assertions on
// any environment: the built-in ones (tests/runtime/gfn/environments_test.cc) and plugins
// (tests/runtime/gfn/env/plugin_loader_test.cc, tests/examples/). Each function adds
// non-fatal failures naming the environment.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/env/environment.h"

namespace gfn::test {

/// Random valid states reached from s0 by `steps` random allowed non-exit actions.
at::Tensor random_states(const core::Environment& env, std::int64_t n, int steps,
                         at::Generator& gen);

/// Masks, step / backward step round trips from random states, unique(), the row dynamics
/// against the batched members (if the environment has them), the refusals (exit as a
/// step, masked actions, bad shapes), the description's name and the test set (if any).
void check_generic(const core::Environment& env);

/// Enumeration: indices, topological order, terminating states, R / Z and log Z, the state
/// graph, and the exact terminating distribution of a uniform PF; with
/// expected_uniform_term > 0 every terminating state must have that probability under it.
void check_enumeration(const core::Environment& env, double expected_uniform_term);

}  // namespace gfn::test
