// announce, report_timings and write_summary (roles/job/job_phases.h).
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "roles/experiment/experiment.h"
#include "roles/job/job_phases.h"
#include "roles/job/restart.h"
#include "roles/trainer/spawn_report.h"
#include "runtime/log/logging.h"
#include "runtime/output/run_output.h"
#include "runtime/output/timing_json.h"
#include "runtime/process/peak_rss.h"
#include "runtime/timing/gather.h"
#include "runtime/timing/reports.h"
#include "runtime/timing/timing_table.h"

namespace gfn::roles {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// summary.json "engine": the paths the trainer's engine took (the engine plan's report,
// runtime/gfn/engine_plan.h, e.g. state_table auto -> on | off) and the process set-up (OpenBLAS
// core type in effect, malloc tuning) from the `engine:` options.
nlohmann::json engine_summary(const core::EngineOptions& engine,
                              const std::map<std::string, std::string>& paths) {
  nlohmann::json out = paths;
  const char* core =
      std::getenv("OPENBLAS_CORETYPE");  // set by set_library_environment or the user
  out["blas_kernels"] = config::enum_name(engine.blas_kernels);
  out["openblas_coretype"] = core != nullptr ? core : "";
  out["malloc_tune"] =
      engine.malloc_tune && std::getenv("GLIBC_TUNABLES") == nullptr ? "on" : "off";
  return out;
}

/// The validation metrics of summary.json: null when validation is disabled or the run
/// stopped early; modes are tracked while training, with or without validation.
void put_final_metrics(nlohmann::json& summary, const TrainerResult& result) {
  for (const char* key : {"l1_exact", "l1_sampled", "l1_visited", "spearman_logp_logr", "jsd",
                          "wasserstein", "elbo", "iw_elbo", "eubo", "delta_logz", "delta_logz_iw",
                          "delta_eubo", "logz_error", "logz", "modes_found", "n_modes"}) {
    summary[key] = nullptr;
  }
  const auto& f = result.final_metrics;
  if (result.has_final_metrics) {
    summary["l1_exact"] = f.l1_exact;
    summary["l1_sampled"] = f.l1_sampled;
    summary["l1_visited"] = f.l1_visited;  // NaN (not enumerable) is written as null
    summary["spearman_logp_logr"] = f.spearman_logp_logr;
    summary["jsd"] = f.jsd;
    summary["wasserstein"] = f.wasserstein;  // NaN (not a 1-D target) is written as null
    // log Z estimates of continuous targets (NaN, written as null, for discrete ones) and
    // their errors log Z_true - estimate (torchgfn's Δ_elbo, Δ_iw_elbo, Δ_eubo).
    summary["elbo"] = f.elbo;
    summary["iw_elbo"] = f.iw_elbo;
    summary["eubo"] = f.eubo;
    summary["delta_logz"] = f.logz_true - f.elbo;
    summary["delta_logz_iw"] = f.logz_true - f.iw_elbo;
    summary["delta_eubo"] = f.logz_true - f.eubo;
    summary["logz_error"] = f.logz_error;
    summary["logz"] = f.logz;
  }
  summary["modes_found"] = f.modes_found;
  summary["n_modes"] = f.n_modes;
  // An exact sampler's probability of each mode; null when the environment does not know it.
  summary["mode_probability"] = nullptr;
  if (f.mode_probability >= 0) summary["mode_probability"] = f.mode_probability;
  // validation.fresh_samples: null when off.
  summary["fresh_sample_modes"] = nullptr;
  summary["fresh_sample_modes_found"] = nullptr;
  if (f.fresh_sample_modes >= 0) {
    summary["fresh_sample_modes"] = f.fresh_sample_modes;
    summary["fresh_sample_modes_found"] = f.fresh_sample_modes_found;
  }
}

/// The run's counts and times in summary.json.
void put_run(nlohmann::json& summary, DistributedContext& ctx,
             const roles::ExperimentConfig& config, const TrainerOutcome& trainer, double wall_s) {
  const auto& layout = ctx.layout();
  const std::map<std::string, std::int64_t> role_counts{
      {"trainer", static_cast<std::int64_t>(layout.trainer_ranks().size())},
      {"buffer_manager", static_cast<std::int64_t>(layout.buffer_ranks().size())},
      {"coordinator", layout.coordinator_rank() >= 0 ? 1 : 0}};
  const auto& result = trainer.result;
  summary["iterations"] = result.iterations;
  summary["trajectories"] = result.iterations * config.train.batch_size;
  summary["wall_s"] = wall_s;
  summary["train_s"] = trainer.train_s;
  summary["ms_per_iteration"] = median(trainer.trainer_ms);
  summary["ms_per_iteration_per_trainer"] = trainer.trainer_ms;
  summary["world_size"] = ctx.world_size();
  summary["roles"] = role_counts;
  summary["backend"] = ctx.transport().backend();
  summary["stopped_by_signal"] = result.stopped_by_signal;
  summary["submissions"] = trainer.totals[0];  // DATA messages, all trainers
  summary["items_submitted"] = trainer.totals[1];
  summary["items_filtered"] = trainer.totals[2];
  summary["remote_items_trained"] = trainer.totals[3];         // remote sampling, all trainers
  summary["remote_trajectories_trained"] = trainer.totals[4];  // of which as submitted
  summary["baseline_updates"] = trainer.totals[5];             // fire-and-forget baseline feed
  summary["local_search_proposals"] = trainer.totals[6];       // local_search.h, all trainers
  summary["local_search_accepted"] = trainer.totals[7];
  summary["trajectories_sampled"] = trainer.totals[8];  // forward: from s0 and local search
  summary["target_evaluations"] = trainer.totals[9];    // points log R was evaluated at (diffusion)
}

/// summary.json / timing.json "peak_rss_mb": per global rank, the largest and the total.
nlohmann::json peak_rss_json(const std::vector<std::int64_t>& rss) {
  constexpr double kMb = 1024.0 * 1024.0;
  nlohmann::json per_rank = nlohmann::json::array();
  double total = 0, largest = 0;
  for (const auto bytes : rss) {
    const double mb = std::round(static_cast<double>(bytes) / kMb * 10) / 10;
    per_rank.push_back(mb);
    total += mb;
    largest = std::max(largest, mb);
  }
  return {{"per_rank", per_rank}, {"max", largest}, {"total", std::round(total * 10) / 10}};
}

/// Rank 0's log line of the job's memory: the total and the largest rank per role.
void log_peak_rss(const RankLayout& layout, const std::vector<std::int64_t>& rss) {
  std::map<std::string, std::pair<std::int64_t, int>> largest;  // role -> (bytes, rank)
  std::int64_t total = 0;
  for (int r = 0; r < static_cast<int>(rss.size()); ++r) {
    total += rss[static_cast<std::size_t>(r)];
    auto& entry = largest[to_string(layout.role(r))];
    if (rss[static_cast<std::size_t>(r)] >= entry.first)
      entry = {rss[static_cast<std::size_t>(r)], r};
  }
  std::string roles;
  for (const auto& [role, e] : largest) {
    roles += fmt::format(", largest {} {:.0f} MB (rank {})", role, e.first / 1048576.0, e.second);
  }
  spdlog::info("peak RSS: {:.0f} MB over {} ranks{}", total / 1048576.0, rss.size(), roles);
}

}  // namespace

void announce(DistributedContext& ctx, const roles::ExperimentConfig& config) {
  log::setup_logging(ctx.rank(), to_string(ctx.role()));
  if (ctx.rank() != 0) return;
  spdlog::info("world of {} rank(s), {} transport, config '{}'\n{}", ctx.world_size(),
               ctx.transport().backend(),
               config.source_file.empty() ? "(defaults)" : config.source_file,
               ctx.layout().summary());
}

std::vector<std::int64_t> report_timings(DistributedContext& ctx,
                                         const roles::ExperimentConfig& config,
                                         const timing::TimingTable& timing) {
  const auto tables = timing::gather_timing_tables(ctx.world(), timing, 0);
  const std::int64_t mine = runtime::peak_rss_bytes();
  std::vector<std::int64_t> rss(static_cast<std::size_t>(ctx.world_size()));
  ctx.world().all_gather(&mine, 1, transport::DType::kInt64, rss.data());
  if (ctx.rank() != 0) return rss;
  log_peak_rss(ctx.layout(), rss);
  const auto& layout = ctx.layout();
  std::vector<timing::TimingTable> trainer_tables;
  for (int r : layout.trainer_ranks()) trainer_tables.push_back(tables.at(r));
  const auto trainer_times = timing::report_time_info(trainer_tables, layout.trainer_ranks());
  const auto imbalance = timing::report_load_imbalance(trainer_tables);
  spdlog::info("time report (trainers):\n{}", trainer_times.to_string());
  spdlog::info("load-imbalance report (trainers):\n{}", imbalance.to_string());
  // timing.json (runtime/output/timing_json.h): the same reports for tools/gfn-plot.
  nlohmann::json timing_out;
  timing_out["trainers"] = output::time_report_json(trainer_times);
  timing_out["trainers"]["load_imbalance"] = output::load_imbalance_json(imbalance);
  std::vector<timing::TimingTable> manager_tables;
  for (int r : layout.buffer_ranks()) manager_tables.push_back(tables.at(r));
  if (!manager_tables.empty()) {
    const auto manager_times = timing::report_time_info(manager_tables, layout.buffer_ranks());
    spdlog::info("time report (buffer managers):\n{}", manager_times.to_string());
    timing_out["buffer_managers"] = output::time_report_json(manager_times);
  }
  timing_out["peak_rss_mb"] = peak_rss_json(rss);
  output::ensure_directory(config.output.dir);
  output::write_json(config.output.dir + "/timing.json", timing_out);
  return rss;
}

std::string write_summary(DistributedContext& ctx, const roles::ExperimentConfig& config,
                          const TrainerOutcome& trainer,
                          std::chrono::steady_clock::time_point t_start, const JobFacts& facts) {
  const double attempt_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  const auto job_wall = job_wall_time(config.output.dir, attempt_s);
  const double wall_s = job_wall.wall_s;
  const auto& result = trainer.result;
  nlohmann::json summary;
  put_final_metrics(summary, result);
  put_run(summary, ctx, config, trainer, wall_s);
  summary["config"] = config.source_file;
  summary["engine"] = engine_summary(config.engine, result.engine);
  summary["spawn"] = nlohmann::json::parse(spawn_summary_json(config.spawn, result.agent_reports));
  const auto& dir = config.output.dir;
  summary["restarts"] = restarts_summary(dir, facts.restart_count);
  summary["attempts"] = nlohmann::json::array();
  for (const auto& a : job_wall.attempts) {
    summary["attempts"].push_back(
        {{"attempt", a.attempt}, {"started", a.started}, {"wall_s", a.wall_s}});
  }
  summary["peak_rss_mb"] = peak_rss_json(facts.peak_rss_bytes);
  output::ensure_directory(dir);
  // The timeline's trajectories count the trajectories sampled forward (replayed and remote
  // ones cost nothing): per iteration, the run's total over its iterations.
  const double per_iteration =
      result.iterations > 0 && trainer.totals[8] > 0
          ? static_cast<double>(trainer.totals[8]) / static_cast<double>(result.iterations)
          : static_cast<double>(config.train.batch_size);
  output::write_text(dir + "/modes_timeline.csv",
                     modes_timeline_csv(result.agent_reports, per_iteration));
  // The population's result first ("result", "population"), then the other keys in order.
  const PopulationModes population{result.final_metrics.modes_found, result.final_metrics.n_modes,
                                   result.agent_modes};
  nlohmann::ordered_json ordered;
  ordered["result"] = population_line(population);
  ordered["population"] = nlohmann::ordered_json::parse(population_json(population));
  for (const auto& [key, value] : summary.items()) {
    ordered[key] = nlohmann::ordered_json::parse(value.dump());
  }
  output::write_text(dir + "/summary.json", ordered.dump(2) + "\n");
  output::write_text(dir + "/config.yaml", roles::to_yaml(config) + "\n");
  note_attempt_end(dir, job_wall.attempts.back().attempt);
  spdlog::info("wrote {}/summary.json ({} iterations in {:.1f} s, {:.2f} ms/iteration)", dir,
               result.iterations, wall_s, median(trainer.trainer_ms));
  return ordered["result"].get<std::string>();
}

}  // namespace gfn::roles
