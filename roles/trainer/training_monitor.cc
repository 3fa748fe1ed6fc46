// TrainingMonitor (roles/trainer/training_monitor.h).
#include "roles/trainer/training_monitor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "roles/trainer/trainer_checkpoint.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/validation.h"
#include "runtime/gfn/visited_states.h"
#include "runtime/output/logp_logr_csv.h"
#include "runtime/output/validation_samples.h"

namespace gfn::roles {
namespace {

FinalMetrics final_metrics(const core::ValidationResult& v, const core::Agent& agent) {
  FinalMetrics f;
  f.l1_exact = v.l1_exact;
  f.l1_sampled = v.l1_sampled;
  f.l1_visited = v.l1_visited;
  f.spearman_logp_logr = v.spearman_logp_logr;
  f.jsd = v.jsd;
  f.wasserstein = v.wasserstein;
  f.elbo = v.elbo;
  f.iw_elbo = v.iw_elbo;
  f.eubo = v.eubo;
  f.logz_true = v.log_z_true;
  f.logz_error = v.log_z_error;
  f.logz = v.log_z;
  f.n_modes = agent.n_modes();
  return f;
}

}  // namespace

TrainingMonitor::TrainingMonitor(const roles::ExperimentConfig& config, bool leader,
                                 std::int64_t resumed_at, timing::TimingTable* timing)
    : config_(config), leader_(leader), iterations_(config.iterations()), timing_(timing) {
  if (!leader_) return;
  const auto& dir = config.output.dir;
  const bool resumed = resumed_at >= 0;
  output::ensure_directory(dir);
  if (resumed) {  // rows written after the checkpoint are written again
    drop_csv_rows_after(dir + "/metrics.csv", resumed_at);
    drop_csv_rows_after(dir + "/training.csv", resumed_at);
  }
  // Sample files of a previous run, or after the checkpoint (written again).
  output::remove_validation_samples_after(dir, resumed ? resumed_at : -1);
  metrics_.emplace(dir + "/metrics.csv",
                   std::vector<std::string>{"iteration",     "trajectories", "loss",
                                            "logz",          "l1_exact",     "jsd",
                                            "logz_error",    "l1_sampled",   "modes_found",
                                            "elapsed_s",     "l1_visited",   "spearman_logp_logr",
                                            "n_visited",     "wasserstein",  "elbo",
                                            "iw_elbo",       "eubo",         "delta_logz",
                                            "delta_logz_iw", "delta_eubo",   "target_evaluations"},
                   resumed);
  progress_.emplace(
      output::resolve_progress_mode(config.output.progress, isatty(fileno(stderr)) != 0),
      config.output.progress_every_s);
  training_.emplace(dir + "/training.csv",
                    std::vector<std::string>{"iteration", "trajectories", "elapsed_s", "loss",
                                             "logz", "modes_found"},
                    resumed);
}

bool TrainingMonitor::validation_due(std::int64_t iteration) const {
  const auto& v = config_.validation;
  return v.enabled && (iteration == iterations_ || (v.interval > 0 && iteration % v.interval == 0));
}

void TrainingMonitor::after_step(std::int64_t iteration, const core::IterationResult& step,
                                 core::Agent& agent, const core::VisitedTerminatingStates* visited,
                                 TrainerClock::time_point t_start, double last_loss,
                                 TrainerResult& result) {
  if (validation_due(iteration)) {
    if (leader_) {
      validate(iteration, step, agent, visited, t_start, result);
    } else {
      add_time(timing_, "validate", 0.0);  // the wait for the leader shows as imbalance
    }
  }
  if (leader_) log_training(iteration, agent, t_start, last_loss);
}

void TrainingMonitor::validate(std::int64_t iteration, const core::IterationResult& step,
                               core::Agent& agent, const core::VisitedTerminatingStates* visited,
                               TrainerClock::time_point t_start, TrainerResult& result) {
  const auto t0 = TrainerClock::now();
  const auto v = agent.validate(config_.validation, visited);
  add_time(timing_, "validate", seconds_since(t0));
  metrics_->append({std::to_string(iteration),
                    std::to_string(iteration * config_.train.batch_size),
                    fmt::format("{:.6g}", step.loss),
                    fmt::format("{:.6g}", step.log_z),
                    fmt::format("{:.6g}", v.l1_exact),
                    fmt::format("{:.6g}", v.jsd),
                    fmt::format("{:.6g}", v.log_z_error),
                    fmt::format("{:.6g}", v.l1_sampled),
                    std::to_string(v.n_modes_found),
                    fmt::format("{:.3f}", seconds_since(t_start)),
                    fmt::format("{:.6g}", v.l1_visited),
                    fmt::format("{:.6g}", v.spearman_logp_logr),
                    std::to_string(v.n_visited),
                    fmt::format("{:.6g}", v.wasserstein),
                    fmt::format("{:.6g}", v.elbo),
                    fmt::format("{:.6g}", v.iw_elbo),
                    fmt::format("{:.6g}", v.eubo),
                    fmt::format("{:.6g}", v.log_z_true - v.elbo),
                    fmt::format("{:.6g}", v.log_z_true - v.iw_elbo),
                    fmt::format("{:.6g}", v.log_z_true - v.eubo),
                    std::to_string(agent.batch_counts().target_evaluations)});
  if (v.learned_points.defined() && v.target_points.defined()) {
    output::write_validation_samples(output::validation_samples_path(config_.output.dir, iteration),
                                     v.learned_points, v.target_points);
  }
  progress_->clear_line();
  spdlog::info("validation at iteration {}: {} ({:.2f} s)", iteration, core::describe(v),
               v.seconds);
  if (iteration != iterations_) return;
  if (v.test_log_p.defined()) {
    output::write_logp_logr_csv(config_.output.dir + "/logp_logr.csv", v.test_log_p, v.test_log_r);
  }
  result.final_metrics = final_metrics(v, agent);
  result.has_final_metrics = true;
}

void TrainingMonitor::log_training(std::int64_t iteration, core::Agent& agent,
                                   TrainerClock::time_point t_start, double last_loss) {
  const int every = config_.output.log_every;
  if (every <= 0) return;
  const auto* modes = agent.mode_tracker();
  const std::int64_t found = modes ? modes->n_found() : 0;
  // The current logZ: after the step and after any averaging of this iteration.
  const double log_z = agent.current_log_z();
  if (iteration % every == 0 || iteration == iterations_) {
    training_->append(
        {std::to_string(iteration), std::to_string(iteration * config_.train.batch_size),
         fmt::format("{:.3f}", seconds_since(t_start)), fmt::format("{:.6g}", last_loss),
         fmt::format("{:.6g}", log_z), std::to_string(found)});
  }
  if (iteration % every == 0) {
    progress_->clear_line();
    spdlog::info("iteration {}/{}: loss {:.4f}, logZ {:.4f}, modes found (this trainer) {}/{}",
                 iteration, iterations_, last_loss, log_z, found, agent.n_modes());
  }
}

void TrainingMonitor::progress(std::int64_t iteration, const core::Agent& agent,
                               TrainerClock::time_point t_start, double last_loss) {
  if (!progress_) return;
  const auto* modes = agent.mode_tracker();
  progress_->update({iteration, iterations_, iteration * config_.train.batch_size,
                     seconds_since(t_start), last_loss, modes ? modes->n_found() : 0,
                     agent.n_modes()});
}

void TrainingMonitor::finish() {
  if (progress_) progress_->finish();
}

}  // namespace gfn::roles
