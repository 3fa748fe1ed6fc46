#pragma once
// Runs one `gfn-train` job of the quality matrix (single rank, world of one: no
// launcher) and reads its summary.json (nlohmann_json).

#include <optional>
#include <string>
#include <vector>

#include "tools/quality-matrix/schedule.h"

namespace gfn::quality {

/// The summary.json fields the matrix reports (docs/outputs.md "summary.json"; sums over states).
struct RunMetrics {
  double l1_exact = 0;    ///< sum_x |P_theta(x) - P_true(x)|
  double l1_sampled = 0;  ///< sum_x |empirical(x) - P_true(x)|, fresh on-policy samples
  /// torchgfn's l1_dist: mean_x |visited(x) - P_true(x)| over the last validation.n_samples
  /// terminating states sampled during training (summary.json "l1_visited").
  double l1_visited = 0;
  double logz_error = 0;  ///< |logZ - log Z_true|
  double ms_per_iteration = 0;
  long long modes_found = 0;  ///< distinct modes sampled during training
  long long n_modes = 0;      ///< the environment's
  long long iterations = 0;
  long long trajectories = 0;
  /// The metrics.csv row of the validation torchgfn's test asserts on (schedule.h),
  /// checked against the schedule; set by attach_judged_row. Its l1_visited is the
  /// verdict's metric; l1_visited above is the end-of-run one.
  std::optional<MetricsRow> judged;
  /// The loss over training.csv (learning-bar cells only); set by attach_loss_trend.
  std::optional<LossTrend> loss;
};

/// Reads `path`. Throws std::runtime_error naming the file and key when it cannot be
/// read, is not JSON, or a key is missing / null (validation disabled or run stopped).
RunMetrics read_summary(const std::string& path);

enum class RunStatus { kOk, kFailed, kUnsupported };

struct RunOutcome {
  RunStatus status = RunStatus::kFailed;
  std::optional<RunMetrics> metrics;  ///< set when status == kOk
  std::string message;                ///< why it failed / is unsupported
  std::string log_path;               ///< stdout + stderr of the run
  double wall_s = 0;                  ///< seconds
};

/// Runs `gfn_train args...` in `working_dir` with stdout and stderr appended to
/// `log_path`, waiting at most `timeout_s` seconds (then the child is terminated and
/// the run counts as failed). On exit code 0 reads `<output_dir>/summary.json`. Exit code
/// 2 with "unknown key 'replay." in the log means this gfn-train has no `replay:` section
/// yet: status kUnsupported. Blocking; not thread-safe (one run at a time).
RunOutcome run_gfn_train(const std::string& gfn_train, const std::vector<std::string>& args,
                         const std::string& working_dir, const std::string& output_dir,
                         const std::string& log_path, double timeout_s);

/// Reads `<output_dir>/metrics.csv`'s row at p.iteration into outcome.metrics->judged,
/// checked with check_row(row, p, batch_size); if that throws, the outcome becomes
/// kFailed with the message. Does nothing unless outcome.status == kOk.
void attach_judged_row(RunOutcome& outcome, const std::string& output_dir, const ValidationPoint& p,
                       std::int64_t batch_size);

/// Reads `<output_dir>/training.csv` into outcome.metrics->loss (read_loss_trend); if that
/// throws, the outcome becomes kFailed with the message. Does nothing unless kOk.
void attach_loss_trend(RunOutcome& outcome, const std::string& output_dir);

/// The outcome of a previous run left in output_dir (--reuse-runs): kOk with its
/// summary.json, else kFailed naming what is missing. Runs nothing; wall_s is 0.
RunOutcome read_previous_run(const std::string& output_dir, const std::string& log_path);

/// Probes whether `gfn_train` accepts the `replay:` section (`--print-config` with
/// `replay_sets`, no training). Returns "" if it does, else the refusal message.
std::string probe_replay_support(const std::string& gfn_train, const std::string& config,
                                 const std::vector<std::string>& replay_sets,
                                 const std::string& working_dir);

}  // namespace gfn::quality
