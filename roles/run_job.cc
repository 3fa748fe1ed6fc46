// run_job and check_resumable (roles/run_job.h): the job's phases on one rank, in order
// (each in roles/job/job_phases.h).
#include "roles/run_job.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "roles/context/distributed_context.h"
#include "roles/job/job_phases.h"
#include "runtime/checkpoint/store.h"
#include "runtime/output/plots.h"
#include "runtime/signals/stop_signal.h"
#include "runtime/timing/timing_table.h"

namespace gfn::roles {
namespace {

using Clock = std::chrono::steady_clock;

/// Phases 1-4 of roles/job/job_phases.h on this rank, then the transport's end, the plots
/// and, on the rank that wrote summary.json, the population's result as the last line.
/// Returns 0.
int run_roles(DistributedContext& ctx, const roles::ExperimentConfig& config,
              Clock::time_point t_start, const checkpoint::OpenedCheckpoint* resume,
              int restart_count) {
  announce(ctx, config);
  signals::StopSignal stop;
  timing::TimingTable timing;
  TrainerOutcome trainer;
  const bool writes_summary = ctx.role() == Role::kTrainer && ctx.trainer_group().rank() == 0;
  switch (ctx.role()) {
    case Role::kTrainer:
      trainer = run_trainer_rank(ctx, config, resume, &stop, &timing);
      break;
    case Role::kBufferManager:
      run_manager_rank(ctx, config, resume, &timing);
      break;
    case Role::kCoordinator:
      run_coordinator_rank(ctx, config, resume);
      break;
  }
  JobFacts facts;
  facts.restart_count = restart_count;
  facts.peak_rss_bytes = report_timings(ctx, config, timing);
  std::string result;  // the population's line, the job's last
  if (writes_summary) result = write_summary(ctx, config, trainer, t_start, facts);
  ctx.cleanup();
  // output.plots: after the transport is closed, so that no rank waits for the plots.
  if (config.output.plots && writes_summary) {
    const auto plots = output::run_plots(output::default_plot_script(), config.output.dir);
    if (plots.ran && plots.exit_code == 0) {
      spdlog::info("{}", plots.message);
    } else {
      spdlog::warn("{}", plots.message);
    }
  }
  if (writes_summary) spdlog::info("{}", result);
  return 0;
}

}  // namespace

void check_resumable(const checkpoint::OpenedCheckpoint& resume, const RankLayout& layout) {
  const auto& m = resume.manifest;
  if (m.world_size != layout.world_size()) {
    throw std::invalid_argument("--resume: the checkpoint '" + resume.directory +
                                "' is from a world of " + std::to_string(m.world_size) +
                                " rank(s), this job has " + std::to_string(layout.world_size()));
  }
  for (int r = 0; r < layout.world_size(); ++r) {
    const auto role = to_string(layout.role(r));
    if (static_cast<std::size_t>(r) >= m.roles.size() || m.roles[r] != role) {
      throw std::invalid_argument(
          "--resume: rank " + std::to_string(r) + " is a " + role + " in this job, a " +
          (static_cast<std::size_t>(r) < m.roles.size() ? m.roles[r] : std::string("(none)")) +
          " in the checkpoint '" + resume.directory + "'");
    }
  }
}

int run_job(const roles::ExperimentConfig& config, const launch::LaunchEnv& launch,
            const checkpoint::OpenedCheckpoint* resume) {
  const auto t_start = Clock::now();
  // Plan and context: the layout planned (refused before any communication), the transport
  // and the groups created. The resume check (check_resumable) ran before, in gfn-train.
  DistributedContext ctx(config, launch);
  try {
    return run_roles(ctx, config, t_start, resume, launch.restart_count);
  } catch (const std::exception& e) {
    if (ctx.world_size() == 1) throw;
    // Fail fast: exiting without finalizing makes the launcher (mpirun) end every
    // other rank, instead of leaving peers to wait for their timeouts in MPI_Finalize.
    spdlog::critical("rank {} ({}) failed: {}", ctx.rank(), to_string(ctx.role()), e.what());
    spdlog::default_logger()->flush();
    std::fflush(nullptr);
    std::_Exit(1);
  }
}

}  // namespace gfn::roles
