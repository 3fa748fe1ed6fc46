#pragma once
// The buffer manager's mode predicate for an environment of the experiment: which
// submitted terminating states are modes (core::Environment::is_mode). Used by the
// manager role (roles/run_job.cc) and by tools/gfn-bench-manager.

#include "roles/buffer_manager/buffer_manager.h"
#include "runtime/gfn/env/env_options.h"

namespace gfn::roles {

/// Builds the environment once (core::make_environment; throws std::invalid_argument
/// naming the env.* option for invalid values) and returns a predicate over row-major
/// int64 [n, ndim] states: core::Environment::is_mode behind memoize_mode_predicate
/// (the reference path, one ATen call per batch, is environment_mode_predicate_reference). An
/// environment without modes (n_modes() == 0, e.g. a HyperGrid too large to enumerate
/// with a reward other than "original") gives a predicate that flags none, so its manager
/// counts no modes. A continuous environment (env/catalog.h is_continuous_environment, no
/// plugin) gives that predicate too: its float32 states are never asked (their modes are
/// environment_float_mode_hits').
/// Not thread-safe beyond the environment's own guarantees: one thread calls it.
ModePredicate environment_mode_predicate(const core::EnvOptions& env_options);

/// The modes of a continuous environment's float32 terminating states (catalogued or a
/// continuous plugin; core::make_continuous_environment builds it once): a FloatModeHits
/// over core::ContinuousEnvironment::mode_hits, the states read without copying. Null for an
/// environment without modes (n_modes() == 0). Throws as make_continuous_environment for
/// invalid env.* options. Cost: a few ATen operations per batch (Box: O(n · ndim)). Not
/// thread-safe beyond the environment's own guarantees: one thread calls it.
FloatModeHits environment_float_mode_hits(const core::EnvOptions& env_options);

/// The reference: core::Environment::is_mode on every call (about ten ATen operations on
/// a [n, ndim] tensor for HyperGrid, ~25 us per 128-item batch, most of it dispatch).
/// The predicate reads the states without copying them.
ModePredicate environment_mode_predicate_reference(const core::EnvOptions& env_options);

/// `inner` with a cache of its answer per state (a hash map from the ndim values to the
/// flag), for predicates whose answer depends on the state alone. A call looks every row
/// up, asks `inner` once for the rows not cached (row-major, in order), and caches them;
/// when the cache holds `max_states` states it is cleared before the next insert, so its
/// memory stays bounded (about 100 + 8 x ndim bytes per state: ~10 MB at the default, which
/// holds every state of HyperGrid 2-D and 4-D h8). Same flags as `inner`
/// (tests/roles/buffer_manager/mode_predicate_test.cc checks it on random batches).
/// Cost: O(n · ndim) hashing, plus `inner` on the misses. Not thread-safe: one thread
/// calls it. Throws std::invalid_argument for max_states < 1 or ndim < 1.
ModePredicate memoize_mode_predicate(ModePredicate inner, std::size_t max_states = 1 << 16);

}  // namespace gfn::roles
