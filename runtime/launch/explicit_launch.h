#pragma once
// The YAML `launch:` section (launch_options.h) as explicit launch
// values for detect_launch_env (runtime/launch/launch_env.h). Pure, thread-safe.

#include "runtime/launch/launch_env.h"
#include "runtime/launch/launch_options.h"

namespace gfn::launch {

/// The set fields of `options` (rank, world_size, local_rank, local_world_size: -1 is
/// unset; master_addr: "" is unset; master_port: 0 is unset). Does not validate: values
/// are checked by detect_launch_env (LaunchError) and by the config loader's rules.
ExplicitLaunch explicit_launch(const LaunchOptions& options);

/// detect_launch_env with the `launch:` section of an experiment first, then the
/// launcher's environment variables. Throws LaunchError as detect_launch_env.
LaunchEnv detect_launch_env(const LaunchOptions& options, const EnvLookup& getenv = real_getenv);

}  // namespace gfn::launch
