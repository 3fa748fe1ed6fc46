#pragma once
// One training job, as run by every rank of `gfn-train` (docs/architecture.md):
// plan the layout (refused before any communication if impossible), create the
// transport and groups, run this rank's role (trainer, buffer manager or
// coordinator), then gather every rank's step timings to rank 0 for the time and
// load-imbalance reports, and write <output.dir>/summary.json (trainer-group rank 0).

#include "runtime/config/options.h"
#include "runtime/launch/launch_env.h"

namespace gfn::roles {

/// Runs the job on this rank. Returns the process exit code (0 on success).
/// Throws LayoutError / transport::TransportError / std::runtime_error on failure
/// (the caller prints the message and exits non-zero).
int run_job(const config::ExperimentConfig& config, const launch::LaunchEnv& launch);

}  // namespace gfn::roles
