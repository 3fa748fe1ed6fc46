#pragma once
// One training job, as run by every rank of `gfn-train` (docs/architecture.md):
// plan the layout (refused before any communication if impossible), create the
// transport and groups, run this rank's role (trainer, buffer manager or
// coordinator), then gather every rank's step timings to rank 0 for the time and
// load-imbalance reports, and write <output.dir>/summary.json (trainer-group rank 0).

#include "roles/experiment/experiment_config.h"
#include "roles/planner/rank_layout.h"
#include "runtime/launch/launch_env.h"

namespace gfn::checkpoint {
struct OpenedCheckpoint;
}

namespace gfn::roles {

/// Runs the job on this rank. Returns the process exit code (0 on success).
/// Throws LayoutError / transport::TransportError / std::runtime_error on failure
/// (the caller prints the message and exits non-zero).
/// `resume`: the verified checkpoint to continue from (gfn-train --resume; README "Checkpoint
/// and resume"), or null; the caller has checked that its layout matches (check_resumable).
/// An automatic restart's record was written before (roles/job/restart.h note_restart).
int run_job(const roles::ExperimentConfig& config, const launch::LaunchEnv& launch,
            const checkpoint::OpenedCheckpoint* resume = nullptr);

/// Refuses a checkpoint whose world (size, and with `check_roles` the role of each rank)
/// differs from `layout`'s: std::invalid_argument naming what differs. gfn-train calls it
/// before any communication, checking the roles there only when they do not depend on the
/// hostnames (plan_uses_hostnames); run_job checks the roles of the planned layout again
/// once the hostnames are gathered, before any role runs.
void check_resumable(const checkpoint::OpenedCheckpoint& resume, const RankLayout& layout,
                     bool check_roles = true);

}  // namespace gfn::roles
