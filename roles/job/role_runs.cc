// The per-role runs of one job (roles/job/job_phases.h): trainer, buffer manager,
// coordinator.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include <sys/resource.h>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/buffer_manager/manager.h"
#include "roles/buffer_manager/mode_predicate.h"
#include "roles/coordinator/coordinator.h"
#include "roles/job/job_phases.h"
#include "runtime/checkpoint/store.h"
#include "runtime/output/run_output.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// CPU time (user + system, seconds) this process has consumed so far, all threads
/// (getrusage RUSAGE_SELF).
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) { return tv.tv_sec + 1e-6 * tv.tv_usec; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

TrainerSetup trainer_setup(DistributedContext& ctx, const checkpoint::OpenedCheckpoint* resume,
                           signals::StopSignal* stop, timing::TimingTable* timing) {
  TrainerSetup setup;
  setup.transport = &ctx.transport();
  setup.trainer_group = &ctx.trainer_group();
  setup.agent_group = &ctx.agent_group();
  setup.assigned_buffer = ctx.layout().assigned_buffer(ctx.rank());
  setup.coordinator = ctx.layout().coordinator_rank();
  setup.stop = stop;
  setup.timing = timing;
  setup.resume = resume;
  for (int r = 0; r < ctx.world_size(); ++r) {
    setup.world_roles.push_back(to_string(ctx.layout().role(r)));
  }
  return setup;
}

void log_manager_done(const BufferManagerResult& result, double wall_s, double cpu_s) {
  spdlog::info(
      "buffer manager done in {:.2f} s wall, {:.2f} s CPU ({:.0f} %): {} submissions, "
      "{} items received ({} filtered by trainers), buffer holds {}, {} modes found, {} "
      "messages rejected, {} TRAINER_EXIT count mismatches, "
      "{} sample requests ({} refused, {} items served, {} with trajectories), baseline {} "
      "({} reports, {} syncs, {} pushes to trainers)"
      "\nper-sender traffic and timing profile (seconds):\n{}",
      wall_s, cpu_s, wall_s > 0 ? 100.0 * cpu_s / wall_s : 0.0, result.submissions,
      result.items_received, result.items_filtered_by_trainers, result.buffer_size,
      result.modes_found, result.rejected_messages, result.exit_mismatches, result.sample_requests,
      result.sample_requests_refused, result.samples_served, result.trajectories_served,
      result.has_baseline ? fmt::format("{:.4f}", result.baseline) : std::string("(none)"),
      result.baseline_reports, result.baseline_syncs, result.baseline_pushes, result.stats_table());
}

/// The manager's own counts, next to summary.json (tests/tools/check_summary reads them).
nlohmann::json manager_stats(int rank, const BufferManagerResult& result, double wall_s,
                             double cpu_s) {
  nlohmann::json stats;
  stats["rank"] = rank;
  stats["submissions"] = result.submissions;
  stats["items_received"] = result.items_received;
  stats["rejected_messages"] = result.rejected_messages;
  stats["exit_mismatches"] = result.exit_mismatches;
  stats["buffer_size"] = result.buffer_size;
  stats["modes_found"] = result.modes_found;
  stats["samples_served"] = result.samples_served;
  stats["trajectories_received"] = result.trajectories_received;
  stats["trajectories_served"] = result.trajectories_served;
  stats["baseline_reports"] = result.baseline_reports;
  stats["baseline_pushes"] = result.baseline_pushes;
  stats["alive_messages"] = result.alive_messages;  // MANAGER_ALIVE to the coordinator
  stats["cpu_s"] = cpu_s;  // process CPU time (user + system) during the run
  stats["wall_s"] = wall_s;
  // [elapsed_s, items_received, modes_found] after each DATA that found new modes.
  stats["modes_timeline"] = nlohmann::json::array();
  for (const auto& p : result.modes_timeline) {
    stats["modes_timeline"].push_back({p.elapsed_s, p.items_received, p.modes_found});
  }
  return stats;
}

}  // namespace

TrainerOutcome run_trainer_rank(DistributedContext& ctx, const roles::ExperimentConfig& config,
                                const checkpoint::OpenedCheckpoint* resume,
                                signals::StopSignal* stop, timing::TimingTable* timing) {
  auto& trainers = ctx.trainer_group();
  TrainerOutcome out;
  const auto t_train = Clock::now();
  out.result = run_trainer(config, trainer_setup(ctx, resume, stop, timing));
  out.train_s = seconds_since(t_train);
  trainers.all_reduce(&out.train_s, 1, transport::DType::kFloat64, transport::ReduceOp::kMax);
  // Totals over the trainer group, for summary.json (collective over trainers).
  const auto& r = out.result;
  out.totals = {r.submissions,
                r.items_sent,
                r.items_filtered,
                r.remote_trained,
                r.remote_trajectories_trained,
                r.baseline_updates,
                r.local_search_proposals,
                r.local_search_accepted,
                r.trajectories_sampled,
                r.target_evaluations};
  trainers.all_reduce(out.totals.data(), out.totals.size(), transport::DType::kInt64,
                      transport::ReduceOp::kSum);
  // Per-trainer median ms/iteration, in group-rank order on every member.
  const double mine = r.iteration_ms.median();
  out.trainer_ms.resize(static_cast<std::size_t>(trainers.size()));
  trainers.all_gather(&mine, 1, transport::DType::kFloat64, out.trainer_ms.data());
  return out;
}

void run_manager_rank(DistributedContext& ctx, const roles::ExperimentConfig& config,
                      const checkpoint::OpenedCheckpoint* resume, timing::TimingTable* timing) {
  const auto options = buffer_manager_options(config, ctx.rank(), ctx.layout().coordinator_rank());
  const auto predicate = environment_mode_predicate(config.env);
  ctx.transport().set_receive_wait(config.buffer.receive_wait);
  // CPU (user + system, all threads) and wall time of the manager's run, written to
  // buffer_manager_<rank>.json: an idle manager spinning on its receives shows as CPU close
  // to wall (tools/gfn-bench-scaling prints CPU % = cpu_s / wall_s).
  const double cpu_start = process_cpu_seconds();
  const auto t_manager = Clock::now();
  BufferManager manager(ctx.transport(), ctx.layout().assigned_trainers(ctx.rank()), options,
                        predicate, timing);
  if (resume) {  // before serving: the trainers' first DATA finds the saved state
    manager.restore_state(checkpoint::read_rank_file(*resume, ctx.rank()));
    spdlog::info("buffer manager rank {}: resumed from '{}' after iteration {}", ctx.rank(),
                 resume->directory, resume->manifest.iteration);
  }
  const auto result = manager.run();
  const double wall_s = seconds_since(t_manager);
  const double cpu_s = process_cpu_seconds() - cpu_start;
  log_manager_done(result, wall_s, cpu_s);
  output::ensure_directory(config.output.dir);
  output::write_json(fmt::format("{}/buffer_manager_{}.json", config.output.dir, ctx.rank()),
                     manager_stats(ctx.rank(), result, wall_s, cpu_s));
}

void run_coordinator_rank(DistributedContext& ctx, const roles::ExperimentConfig& config,
                          const checkpoint::OpenedCheckpoint* resume) {
  std::string state;  // --resume: its file, restored before it serves
  if (resume) state = checkpoint::read_rank_file(*resume, ctx.rank());
  const auto result = run_coordinator(ctx.transport(), ctx.layout().buffer_ranks(),
                                      coordinator_options(config), resume ? &state : nullptr);
  spdlog::info(
      "coordinator done ({} baseline reports, {} BASELINE_SYNCs sent, {} population "
      "queries, {} MANAGER_ALIVE, {} messages rejected): {}",
      result.baseline_reports, result.baseline_syncs_sent, result.population_queries,
      result.alive_messages, result.rejected_messages, result.summary());
}

}  // namespace gfn::roles
