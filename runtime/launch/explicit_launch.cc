#include "runtime/launch/explicit_launch.h"

namespace gfn::launch {

ExplicitLaunch explicit_launch(const LaunchOptions& options) {
  ExplicitLaunch x;
  if (options.rank != -1) x.rank = options.rank;
  if (options.world_size != -1) x.world_size = options.world_size;
  if (options.local_rank != -1) x.local_rank = options.local_rank;
  if (options.local_world_size != -1) x.local_world_size = options.local_world_size;
  if (!options.master_addr.empty()) x.master_addr = options.master_addr;
  if (options.master_port != 0) x.master_port = options.master_port;
  if (options.restart_count != -1) x.restart_count = options.restart_count;
  if (!options.restart_reason.empty()) x.restart_reason = options.restart_reason;
  if (!options.job_token.empty()) x.job_token = options.job_token;
  return x;
}

LaunchEnv detect_launch_env(const LaunchOptions& options, const EnvLookup& getenv) {
  return detect_launch_env(explicit_launch(options), getenv);
}

}  // namespace gfn::launch
