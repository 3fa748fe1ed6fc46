#pragma once
// The phases of one job on one rank after its context exists (roles/run_job.h; run_roles in
// roles/run_job.cc calls them in this order):
//   1. announce       logging set up, rank 0 describes the world and the layout;
//   2. run this rank's role: run_trainer_rank | run_manager_rank | run_coordinator_rank
//                     (role_runs.cc; each writes what its role reports);
//   3. report_timings every rank's step timings to rank 0: time and load-imbalance reports,
//                     timing.json (reports.cc; collective over WORLD);
//   4. write_summary  trainer-group rank 0: summary.json, modes_timeline.csv, config.yaml
//                     (reports.cc); after the plots it logs the population's result as
//                     the job's last line.
// Blocking and collective as each says. Not thread-safe. Errors: the roles' errors,
// std::runtime_error when a file cannot be written.

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "roles/context/distributed_context.h"
#include "roles/experiment/experiment_config.h"
#include "roles/trainer/trainer.h"

namespace gfn::checkpoint {
struct OpenedCheckpoint;
}
namespace gfn::signals {
class StopSignal;
}
namespace gfn::timing {
class TimingTable;
}

namespace gfn::roles {

/// What a trainer rank's run gives the reports.
struct TrainerOutcome {
  TrainerResult result;
  double train_s = 0;  ///< run_trainer's wall time, max over trainers (summary.json train_s)
  /// Sums over the trainers: submissions, items sent, items filtered, remote items trained
  /// on, of which as the submitted trajectories, baseline updates pushed to trainers, local
  /// search proposals trained on, of which accepted, trajectories sampled forward, target
  /// evaluations.
  std::array<std::int64_t, 10> totals{};
  /// Every trainer's median ms/iteration, in trainer-group order.
  std::vector<double> trainer_ms;
};

/// Logging for this rank's role; rank 0 logs the world, the transport, the config file and
/// the layout.
void announce(DistributedContext& ctx, const roles::ExperimentConfig& config);

/// run_trainer with this rank's setup (`resume`, `stop` and `timing` optional), then the
/// trainer group's totals and medians (collective over the trainer group).
TrainerOutcome run_trainer_rank(DistributedContext& ctx, const roles::ExperimentConfig& config,
                                const checkpoint::OpenedCheckpoint* resume,
                                signals::StopSignal* stop, timing::TimingTable* timing);
/// The buffer manager, restored from `resume` if given; logs its summary and writes
/// buffer_manager_<rank>.json.
void run_manager_rank(DistributedContext& ctx, const roles::ExperimentConfig& config,
                      const checkpoint::OpenedCheckpoint* resume, timing::TimingTable* timing);
/// The coordinator, restored from `resume` if given; logs its summary.
void run_coordinator_rank(DistributedContext& ctx, const roles::ExperimentConfig& config,
                          const checkpoint::OpenedCheckpoint* resume);

/// What every rank knows about the whole job at its end, for summary.json.
struct JobFacts {
  int restart_count = 0;  ///< this attempt's (summary.json "restarts", roles/job/restart.h)
  std::vector<std::int64_t> peak_rss_bytes;  ///< per global rank (runtime/process/peak_rss.h)
};

/// Every rank's `timing` to rank 0 (collective over WORLD), which logs the time and
/// load-imbalance reports of the trainers (and managers) and writes timing.json; and every
/// rank's peak RSS to every rank (an all-gather over WORLD), returned per global rank and
/// logged by rank 0.
std::vector<std::int64_t> report_timings(DistributedContext& ctx,
                                         const roles::ExperimentConfig& config,
                                         const timing::TimingTable& timing);
/// Trainer-group rank 0: summary.json (docs/outputs.md "summary.json"; its first keys the
/// population's result: "result", the line population_line gives, and "population"),
/// modes_timeline.csv and config.yaml; `t_start` is the job's start (wall_s). Returns the
/// population's line ("modes found 255/256 by the population (agents: ...)").
std::string write_summary(DistributedContext& ctx, const roles::ExperimentConfig& config,
                          const TrainerOutcome& trainer,
                          std::chrono::steady_clock::time_point t_start, const JobFacts& facts);

}  // namespace gfn::roles
