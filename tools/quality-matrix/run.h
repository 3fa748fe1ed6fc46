#pragma once
// Runs one `gfn-train` job of the quality matrix (single rank, world of one: no
// launcher) and reads its summary.json (nlohmann_json).

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "tools/quality-matrix/cells.h"
#include "tools/quality-matrix/schedule.h"

namespace gfn::quality {

/// The summary.json fields the matrix reports (docs/outputs.md "summary.json"; sums over states).
/// A run of a cell without enumeration (Cell::bar with log_z_true) has no L1 (NaN here) and its
/// logz_error is set by apply_bar.
struct RunMetrics {
  double l1_exact = 0;    ///< sum_x |P_theta(x) - P_true(x)|
  double l1_sampled = 0;  ///< sum_x |empirical(x) - P_true(x)|, fresh on-policy samples
  /// torchgfn's l1_dist: mean_x |visited(x) - P_true(x)| over the last validation.n_samples
  /// terminating states sampled during training (summary.json "l1_visited").
  double l1_visited = 0;
  /// train_box.py's KDE Jensen-Shannon divergence at the final validation of a continuous
  /// environment (summary.json "jsd"; NaN when null or absent: validation off, or an
  /// environment without it). The verdict's metric of a TargetMetric::kJsd cell.
  double jsd = std::nan("");
  double logz_error = 0;       ///< |logZ - log Z_true|
  double logz = std::nan("");  ///< the learned log Z (NaN when summary.json has none)
  long long modes_found = 0;   ///< distinct modes sampled during training (all trainers)
  long long n_modes = 0;       ///< modes of the environment
  /// Distinct modes among validation.fresh_samples fresh samples of the final policy (-1: off).
  long long fresh_sample_modes = -1;
  /// Cell::bar: median TB loss of the last / first logged iterations of training.csv
  /// (apply_bar with the bar's loss_tail / loss_head).
  double loss_ratio = std::nan("");
  double ms_per_iteration = 0;
  long long iterations = 0;
  long long trajectories = 0;
  /// The metrics.csv row of the validation torchgfn's test asserts on (schedule.h),
  /// checked against the schedule; set by attach_judged_row. Its l1_visited is the
  /// verdict's metric; l1_visited above is the end-of-run one.
  std::optional<MetricsRow> judged;
};

/// Reads `path`. Throws std::runtime_error naming the file and key when it cannot be
/// read, is not JSON, or a key is missing / null (validation disabled or run stopped); with
/// `exact` false (an environment that cannot be enumerated) the L1s and logz_error may be null
/// (NaN), logz, modes_found and n_modes may not. jsd may always be null or absent (NaN).
RunMetrics read_summary(const std::string& path, bool exact = true);

enum class RunStatus { kOk, kFailed, kUnsupported };

struct RunOutcome {
  RunStatus status = RunStatus::kFailed;
  std::optional<RunMetrics> metrics;  ///< set when status == kOk
  std::string message;                ///< why it failed / is unsupported
  std::string log_path;               ///< stdout + stderr of the run
  double wall_s = 0;                  ///< seconds
};

/// median(last `tail` losses) / median(first `head` losses) of a training.csv (its `loss`
/// column, one row per logged iteration). Throws std::runtime_error naming the file when it
/// cannot be read, has no loss column or fewer than head + tail rows.
double loss_ratio(const std::string& training_csv, int head, int tail);

/// For a cell with a LearningBar, of a kOk outcome: metrics.loss_ratio from
/// `<output_dir>/training.csv` (loss_ratio with the bar's loss_head and loss_tail) and, when the
/// bar has log_z_true (no enumeration), metrics.logz_error = |logz - log_z_true|; if reading
/// training.csv throws, the outcome becomes kFailed with the message. Does nothing otherwise.
void apply_bar(RunOutcome& outcome, const LearningBar* bar, const std::string& output_dir);

/// Runs `gfn_train args...` in `working_dir` with stdout and stderr appended to
/// `log_path`, waiting at most `timeout_s` seconds (then the child is terminated and
/// the run counts as failed). On exit code 0 reads `<output_dir>/summary.json`. Exit code
/// 2 with "unknown key 'replay." in the log means this gfn-train has no `replay:` section
/// yet: status kUnsupported. Blocking; not thread-safe (one run at a time). `exact`: as
/// read_summary's.
RunOutcome run_gfn_train(const std::string& gfn_train, const std::vector<std::string>& args,
                         const std::string& working_dir, const std::string& output_dir,
                         const std::string& log_path, double timeout_s, bool exact = true);

/// Reads `<output_dir>/metrics.csv`'s row at p.iteration into outcome.metrics->judged,
/// checked with check_row(row, p, batch_size); if that throws, the outcome becomes
/// kFailed with the message. Does nothing unless outcome.status == kOk.
void attach_judged_row(RunOutcome& outcome, const std::string& output_dir, const ValidationPoint& p,
                       std::int64_t batch_size);

/// The outcome of a previous run left in output_dir (--reuse-runs): kOk with its
/// summary.json, else kFailed naming what is missing. Runs nothing; wall_s is 0. `exact`: as
/// read_summary's.
RunOutcome read_previous_run(const std::string& output_dir, const std::string& log_path,
                             bool exact = true);

/// Probes whether `gfn_train` accepts the `replay:` section (`--print-config` with
/// `replay_sets`, no training). Returns "" if it does, else the refusal message.
std::string probe_replay_support(const std::string& gfn_train, const std::string& config,
                                 const std::vector<std::string>& replay_sets,
                                 const std::string& working_dir);

}  // namespace gfn::quality
