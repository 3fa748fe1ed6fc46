#include "roles/run_job.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cereal/archives/binary.hpp>
#include <cereal/types/vector.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include <sys/resource.h>

#include <ATen/ATen.h>
#include "roles/buffer_manager/buffer_manager.h"
#include "roles/buffer_manager/manager.h"
#include "roles/buffer_manager/mode_predicate.h"
#include "roles/context/distributed_context.h"
#include "roles/coordinator/coordinator.h"
#include "roles/trainer/trainer.h"
#include "runtime/checkpoint/store.h"

#include "roles/experiment/experiment.h"
#include "runtime/log/logging.h"
#include "runtime/output/plots.h"
#include "runtime/output/run_output.h"
#include "runtime/output/timing_json.h"
#include "runtime/signals/stop_signal.h"
#include "runtime/timing/gather.h"
#include "runtime/timing/reports.h"
#include "runtime/timing/timing_table.h"
#include "transport/gather.h"

namespace gfn::roles {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// summary.json "engine": the paths the trainer's engine took (Learner::engine_paths, e.g.
// state_table auto -> on | off) and the process set-up (OpenBLAS core type in effect,
// malloc tuning) from the `engine:` options.
nlohmann::json engine_summary(const core::EngineOptions& engine,
                              const std::map<std::string, std::string>& paths) {
  nlohmann::json out = paths;
  const char* core = std::getenv("OPENBLAS_CORETYPE");  // set by select_blas_kernels or the user
  out["blas_kernels"] = config::enum_name(engine.blas_kernels);
  out["openblas_coretype"] = core != nullptr ? core : "";
  out["malloc_tune"] =
      engine.malloc_tune && std::getenv("GLIBC_TUNABLES") == nullptr ? "on" : "off";
  return out;
}

/// CPU time (user + system, seconds) this process has consumed so far, all threads
/// (getrusage RUSAGE_SELF).
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) { return tv.tv_sec + 1e-6 * tv.tv_usec; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// Each trainer's median iteration time (ms), gathered over the trainer group in
/// group-rank order (all members get it).
std::vector<double> gather_trainer_medians(transport::Group& trainers, double mine) {
  std::vector<double> all(trainers.size());
  trainers.all_gather(&mine, 1, transport::DType::kFloat64, all.data());
  return all;
}

}  // namespace

int run_roles(DistributedContext& ctx, const roles::ExperimentConfig& config,
              std::chrono::steady_clock::time_point t_start,
              const checkpoint::OpenedCheckpoint* resume);

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
  DistributedContext ctx(config, launch);
  try {
    return run_roles(ctx, config, t_start, resume);
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

int run_roles(DistributedContext& ctx, const roles::ExperimentConfig& config,
              std::chrono::steady_clock::time_point t_start,
              const checkpoint::OpenedCheckpoint* resume) {
  const auto role = ctx.role();
  log::setup_logging(ctx.rank(), to_string(role));
  if (ctx.rank() == 0) {
    spdlog::info("world of {} rank(s), {} transport, config '{}'\n{}", ctx.world_size(),
                 ctx.transport().backend(),
                 config.source_file.empty() ? "(defaults)" : config.source_file,
                 ctx.layout().summary());
  }

  signals::StopSignal stop;
  timing::TimingTable timing;
  TrainerResult trainer_result;
  double train_s = 0;  // run_trainer's wall time, max over trainers (summary.json train_s)
  // submissions, items sent, items filtered, remote items trained on, of which as the
  // submitted trajectories, baseline updates pushed to trainers
  std::array<std::int64_t, 6> submitted_totals{};
  std::map<std::string, std::int64_t> role_counts{
      {"trainer", static_cast<std::int64_t>(ctx.layout().trainer_ranks().size())},
      {"buffer_manager", static_cast<std::int64_t>(ctx.layout().buffer_ranks().size())},
      {"coordinator", ctx.layout().coordinator_rank() >= 0 ? 1 : 0}};

  switch (role) {
    case Role::kTrainer: {
      TrainerSetup setup;
      setup.transport = &ctx.transport();
      setup.trainer_group = &ctx.trainer_group();
      setup.agent_group = &ctx.agent_group();
      setup.assigned_buffer = ctx.layout().assigned_buffer(ctx.rank());
      setup.coordinator = ctx.layout().coordinator_rank();
      setup.stop = &stop;
      setup.timing = &timing;
      setup.resume = resume;
      for (int r = 0; r < ctx.world_size(); ++r) {
        setup.world_roles.push_back(to_string(ctx.layout().role(r)));
      }
      const auto t_train = Clock::now();
      trainer_result = run_trainer(config, setup);
      train_s = std::chrono::duration<double>(Clock::now() - t_train).count();
      ctx.trainer_group().all_reduce(&train_s, 1, transport::DType::kFloat64,
                                     transport::ReduceOp::kMax);
      // Totals over the trainer group, for summary.json (collective over trainers).
      std::int64_t totals[6] = {trainer_result.submissions,
                                trainer_result.items_sent,
                                trainer_result.items_filtered,
                                trainer_result.remote_trained,
                                trainer_result.remote_trajectories_trained,
                                trainer_result.baseline_updates};
      ctx.trainer_group().all_reduce(totals, 6, transport::DType::kInt64,
                                     transport::ReduceOp::kSum);
      std::copy(totals, totals + 6, submitted_totals.begin());
      break;
    }
    case Role::kBufferManager: {
      const auto options =
          buffer_manager_options(config, ctx.rank(), ctx.layout().coordinator_rank());
      // CPU (user + system, all threads) and wall time of the manager's run, written to
      // buffer_manager_<rank>.json: an idle manager spinning on its receives shows as
      // CPU close to wall (tools/gfn-bench-scaling prints CPU % = cpu_s / wall_s).
      const auto predicate = environment_mode_predicate(config.env);
      ctx.transport().set_receive_wait(config.buffer.receive_wait);
      const double cpu_start = process_cpu_seconds();
      const auto t_manager = Clock::now();
      BufferManager manager(ctx.transport(), ctx.layout().assigned_trainers(ctx.rank()), options,
                            predicate, &timing);
      if (resume) {  // before serving: the trainers' first DATA finds the saved state
        manager.restore_state(checkpoint::read_rank_file(*resume, ctx.rank()));
        spdlog::info("buffer manager rank {}: resumed from '{}' after iteration {}", ctx.rank(),
                     resume->directory, resume->manifest.iteration);
      }
      const auto result = manager.run();
      const double manager_wall_s = std::chrono::duration<double>(Clock::now() - t_manager).count();
      const double manager_cpu_s = process_cpu_seconds() - cpu_start;
      spdlog::info(
          "buffer manager done in {:.2f} s wall, {:.2f} s CPU ({:.0f} %): {} submissions, "
          "{} items received ({} filtered by trainers), buffer holds {}, {} modes found, {} "
          "messages rejected, {} TRAINER_EXIT count mismatches, "
          "{} sample requests ({} refused, {} items served, {} with trajectories), baseline {} "
          "({} reports, {} syncs, {} pushes to trainers)"
          "\nper-sender traffic and timing profile (seconds):\n{}",
          manager_wall_s, manager_cpu_s,
          manager_wall_s > 0 ? 100.0 * manager_cpu_s / manager_wall_s : 0.0, result.submissions,
          result.items_received, result.items_filtered_by_trainers, result.buffer_size,
          result.modes_found, result.rejected_messages, result.exit_mismatches,
          result.sample_requests, result.sample_requests_refused, result.samples_served,
          result.trajectories_served,
          result.has_baseline ? fmt::format("{:.4f}", result.baseline) : std::string("(none)"),
          result.baseline_reports, result.baseline_syncs, result.baseline_pushes,
          result.stats_table());
      // The manager's own counts, next to summary.json (tests/tools/check_summary reads them).
      nlohmann::json stats;
      stats["rank"] = ctx.rank();
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
      stats["cpu_s"] = manager_cpu_s;  // process CPU time (user + system) during the run
      stats["wall_s"] = manager_wall_s;
      // [elapsed_s, items_received, modes_found] after each DATA that found new modes.
      stats["modes_timeline"] = nlohmann::json::array();
      for (const auto& p : result.modes_timeline) {
        stats["modes_timeline"].push_back({p.elapsed_s, p.items_received, p.modes_found});
      }
      output::ensure_directory(config.output.dir);
      output::write_json(fmt::format("{}/buffer_manager_{}.json", config.output.dir, ctx.rank()),
                         stats);
      break;
    }
    case Role::kCoordinator: {
      std::string state;  // --resume: its file, restored before it serves
      if (resume) state = checkpoint::read_rank_file(*resume, ctx.rank());
      const auto result = run_coordinator(ctx.transport(), ctx.layout().buffer_ranks(),
                                          coordinator_options(config), resume ? &state : nullptr);
      spdlog::info(
          "coordinator done ({} baseline reports, {} BASELINE_SYNCs sent, {} population "
          "queries, {} MANAGER_ALIVE, {} messages rejected): {}",
          result.baseline_reports, result.baseline_syncs_sent, result.population_queries,
          result.alive_messages, result.rejected_messages, result.summary());
      break;
    }
  }

  // Per-trainer median ms/iteration (collective over the trainer group).
  std::vector<double> trainer_ms;
  if (role == Role::kTrainer) {
    trainer_ms = gather_trainer_medians(ctx.trainer_group(), trainer_result.iteration_ms.median());
  }

  // Every rank's timing table to rank 0 (collective over WORLD), then the reports.
  const auto tables = timing::gather_timing_tables(ctx.world(), timing, 0);
  if (ctx.rank() == 0) {
    std::vector<timing::TimingTable> trainer_tables;
    for (int r : ctx.layout().trainer_ranks()) trainer_tables.push_back(tables.at(r));
    const auto trainer_times =
        timing::report_time_info(trainer_tables, ctx.layout().trainer_ranks());
    const auto imbalance = timing::report_load_imbalance(trainer_tables);
    spdlog::info("time report (trainers):\n{}", trainer_times.to_string());
    spdlog::info("load-imbalance report (trainers):\n{}", imbalance.to_string());
    // timing.json (runtime/output/timing_json.h): the same reports for tools/gfn-plot.
    nlohmann::json timing_out;
    timing_out["trainers"] = output::time_report_json(trainer_times);
    timing_out["trainers"]["load_imbalance"] = output::load_imbalance_json(imbalance);
    std::vector<timing::TimingTable> manager_tables;
    for (int r : ctx.layout().buffer_ranks()) manager_tables.push_back(tables.at(r));
    if (!manager_tables.empty()) {
      const auto manager_times =
          timing::report_time_info(manager_tables, ctx.layout().buffer_ranks());
      spdlog::info("time report (buffer managers):\n{}", manager_times.to_string());
      timing_out["buffer_managers"] = output::time_report_json(manager_times);
    }
    output::ensure_directory(config.output.dir);
    output::write_json(config.output.dir + "/timing.json", timing_out);
  }

  if (role == Role::kTrainer && ctx.trainer_group().rank() == 0) {
    const double wall_s = std::chrono::duration<double>(Clock::now() - t_start).count();
    nlohmann::json summary;
    for (const char* key : {"l1_exact", "l1_sampled", "l1_visited", "spearman_logp_logr", "jsd",
                            "logz_error", "logz", "modes_found", "n_modes"}) {
      summary[key] = nullptr;  // stays null when validation is disabled or the run stopped early
    }
    if (trainer_result.has_final_metrics) {
      const auto* f = &trainer_result.final_metrics;
      summary["l1_exact"] = f->l1_exact;
      summary["l1_sampled"] = f->l1_sampled;
      summary["l1_visited"] = f->l1_visited;  // NaN (not enumerable) is written as null
      summary["spearman_logp_logr"] = f->spearman_logp_logr;
      summary["jsd"] = f->jsd;
      summary["logz_error"] = f->logz_error;
      summary["logz"] = f->logz;
      summary["modes_found"] = f->modes_found;
      summary["n_modes"] = f->n_modes;
    }
    // Modes are tracked while training, with or without validation.
    summary["modes_found"] = trainer_result.final_metrics.modes_found;
    summary["n_modes"] = trainer_result.final_metrics.n_modes;
    summary["iterations"] = trainer_result.iterations;
    summary["trajectories"] = trainer_result.iterations * config.train.batch_size;
    summary["wall_s"] = wall_s;
    summary["train_s"] = train_s;
    summary["ms_per_iteration"] = median(trainer_ms);
    summary["ms_per_iteration_per_trainer"] = trainer_ms;
    summary["world_size"] = ctx.world_size();
    summary["roles"] = role_counts;
    summary["backend"] = ctx.transport().backend();
    summary["stopped_by_signal"] = trainer_result.stopped_by_signal;
    summary["submissions"] = submitted_totals[0];  // DATA messages, all trainers
    summary["items_submitted"] = submitted_totals[1];
    summary["items_filtered"] = submitted_totals[2];
    summary["remote_items_trained"] = submitted_totals[3];         // remote sampling, all trainers
    summary["remote_trajectories_trained"] = submitted_totals[4];  // of which as submitted
    summary["baseline_updates"] = submitted_totals[5];             // fire-and-forget baseline feed
    summary["config"] = config.source_file;
    summary["engine"] = engine_summary(config.engine, trainer_result.engine);
    summary["spawn"] =
        nlohmann::json::parse(spawn_summary_json(config.spawn, trainer_result.agent_reports));
    output::ensure_directory(config.output.dir);
    output::write_text(config.output.dir + "/modes_timeline.csv",
                       modes_timeline_csv(trainer_result.agent_reports, config.train.batch_size));
    output::write_json(config.output.dir + "/summary.json", summary);
    output::write_text(config.output.dir + "/config.yaml", roles::to_yaml(config) + "\n");
    spdlog::info("wrote {}/summary.json ({} iterations in {:.1f} s, {:.2f} ms/iteration)",
                 config.output.dir, trainer_result.iterations, wall_s, median(trainer_ms));
  }
  const bool wrote_summary = role == Role::kTrainer && ctx.trainer_group().rank() == 0;
  ctx.cleanup();
  // output.plots: after the transport is closed, so that no rank waits for the plots.
  if (config.output.plots && wrote_summary) {
    const auto plots = output::run_plots(output::default_plot_script(), config.output.dir);
    if (plots.ran && plots.exit_code == 0) {
      spdlog::info("{}", plots.message);
    } else {
      spdlog::warn("{}", plots.message);
    }
  }
  return 0;
}

}  // namespace gfn::roles
