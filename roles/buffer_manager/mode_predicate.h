#pragma once
// The buffer manager's mode predicate for an environment of the experiment: which
// submitted terminating states are modes (core::Environment::is_mode). Used by the
// manager role (roles/run_job.cc) and by tools/gfn-bench-manager.

#include "roles/buffer_manager/buffer_manager.h"
#include "runtime/config/options.h"

namespace gfn::roles {

/// Builds the environment once (core::make_environment; throws std::invalid_argument
/// naming the env.* option for invalid values) and returns a predicate over row-major
/// int64 [n, ndim] states. The predicate reads the states without copying them. An
/// environment without modes (n_modes() == 0, e.g. a HyperGrid too large to enumerate
/// with a reward other than "original") gives a predicate that flags none, so its manager
/// counts no modes.
/// Not thread-safe beyond the environment's own guarantees: one thread calls it.
ModePredicate environment_mode_predicate(const config::EnvOptions& env_options);

}  // namespace gfn::roles
