// run_job and check_resumable (roles/run_job.h): the job's phases on one rank, in order
// (each in roles/job/job_phases.h).
#include "roles/run_job.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "roles/context/distributed_context.h"
#include "roles/job/job_phases.h"
#include "runtime/checkpoint/store.h"
#include "runtime/output/plots.h"
#include "runtime/signals/stop_signal.h"
#include "runtime/timing/timing_table.h"
#include "transport/gather.h"

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

/// Where every rank starts, agreed before any role runs. A launcher may start some ranks of a
/// world as a restart and others afresh: torchrun's agent on a node whose workers still ran
/// when the other nodes came back to the rendezvous restarts them as a membership change,
/// without counting a restart (TORCHELASTIC_RESTART_COUNT stays 0 there; seen after a network
/// partition). The ranks starting afresh then take the checkpoint the restarted ones continue
/// from (`adopted`), instead of a world of mixed iterations that deadlocks in its first
/// collective. Ranks continuing from different checkpoints are refused (std::runtime_error).
/// One all_gather of 8 bytes per rank over the world.
const checkpoint::OpenedCheckpoint* agree_on_start(
    DistributedContext& ctx, const roles::ExperimentConfig& config,
    const checkpoint::OpenedCheckpoint* resume,
    std::optional<checkpoint::OpenedCheckpoint>* adopted) {
  const std::int64_t mine = resume ? resume->manifest.iteration : -1;
  transport::Bytes bytes(sizeof mine);
  std::memcpy(bytes.data(), &mine, sizeof mine);
  const auto all = transport::all_gather_bytes(ctx.world(), bytes);
  std::set<std::int64_t> iterations;
  std::string afresh;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::int64_t v = -1;
    std::memcpy(&v, all[r].data(), sizeof v);
    if (v >= 0) {
      iterations.insert(v);
    } else {
      afresh += (afresh.empty() ? "" : ", ") + std::to_string(r);
    }
  }
  if (iterations.size() > 1) {
    std::string list;
    for (const auto v : iterations) list += (list.empty() ? "" : ", ") + std::to_string(v);
    throw std::runtime_error("the ranks continue from checkpoints of different iterations (" +
                             list + "): start the job again");
  }
  if (iterations.empty() || afresh.empty() || resume) return resume;
  const std::int64_t iteration = *iterations.begin();
  adopted->emplace(checkpoint::open_checkpoint(checkpoint::checkpoints_root(config.output.dir) +
                                               "/" + checkpoint::checkpoint_dir_name(iteration)));
  spdlog::warn(
      "rank {}: its launcher started rank(s) {} afresh (restart count 0) and the others as a "
      "restart from the checkpoint of iteration {}: continuing from that checkpoint too",
      ctx.rank(), afresh, iteration);
  return &**adopted;
}

}  // namespace

void check_resumable(const checkpoint::OpenedCheckpoint& resume, const RankLayout& layout,
                     bool check_roles) {
  const auto& m = resume.manifest;
  if (m.world_size != layout.world_size()) {
    throw std::invalid_argument("--resume: the checkpoint '" + resume.directory +
                                "' is from a world of " + std::to_string(m.world_size) +
                                " rank(s), this job has " + std::to_string(layout.world_size()));
  }
  for (int r = 0; check_roles && r < layout.world_size(); ++r) {
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
  // and the groups created. gfn-train checked the checkpoint's world before; its roles are
  // checked here against the layout planned with the hostnames (the same on every rank).
  DistributedContext ctx(config, launch);
  try {
    std::optional<checkpoint::OpenedCheckpoint> adopted;
    if (ctx.world_size() > 1) resume = agree_on_start(ctx, config, resume, &adopted);
    if (resume) check_resumable(*resume, ctx.layout());
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
