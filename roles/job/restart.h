#pragma once
// Automatic restart (docs/checkpoints.md "Automatic restart"): a job started again after a
// rank died (gfn-launch --max-restarts, tools/mpirun-restart.sh, torchrun --max-restarts, a
// requeued Slurm job) knows it from its launch values (LaunchEnv::restart_count > 0) and
// continues from the newest checkpoint of its output.dir that verifies, falling back to an
// older one when the newest is corrupted or partial, or starts afresh when there is none.
// Global rank 0 appends one record per restart to <output.dir>/restarts.jsonl before any
// communication (so an attempt that fails in its rendezvous is recorded too), and summary.json's
// "restarts" reports them (what ended each attempt, where it resumed, the iterations trained
// again).
//
// Blocking (disk I/O); not thread-safe (one caller per process). Errors: ConfigError
// (config/schema.h) when the given experiment differs from the checkpoint's in a key a
// resumed run may not change; std::runtime_error when restarts.jsonl cannot be written.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "roles/experiment/experiment_config.h"
#include "runtime/checkpoint/store.h"
#include "runtime/launch/launch_env.h"

namespace gfn::roles {

/// One restart, as restarts.jsonl and summary.json's "restarts" hold it.
struct RestartRecord {
  int restart = 0;       ///< 1 for the first restart, ...
  std::string ended_by;  ///< what ended the previous attempt ("" when the launcher did not say)
  std::int64_t resumed_from = -1;  ///< the checkpoint's iteration; -1: none, started afresh
  std::vector<std::string> skipped_checkpoints;  ///< newer ones refused, "<dir>: <why>"
  /// Iterations the previous attempt had logged beyond the checkpoint, trained again now
  /// (from its training.csv, so counted at output.log_every's granularity).
  std::int64_t iterations_redone = 0;
};

/// The checkpoint an automatic restart continues from: for `launch.restart_count` > 0 the
/// newest valid one under `config.output.dir` (skipped ones are listed in `record`), after
/// checking that `config` (from --config and --set) differs from its config only in keys a
/// resumed run may change. nullopt for a first attempt, or when no checkpoint verifies.
/// Fills `record` (all but iterations_redone) when restart_count > 0.
std::optional<checkpoint::OpenedCheckpoint> restart_checkpoint(const ExperimentConfig& config,
                                                               const launch::LaunchEnv& launch,
                                                               RestartRecord* record);

/// Global rank 0, before any communication (hence before the trainer drops training.csv's
/// rows after the checkpoint): a first attempt (`fresh_start`: no --resume, no restart)
/// removes an old restarts.jsonl and attempts.jsonl; a restart counts the iterations redone
/// and appends `record` (null: nothing to append); every attempt appends its start to
/// attempts.jsonl (job_wall_time).
void note_restart(const std::string& output_dir, bool fresh_start, RestartRecord* record);

/// summary.json "restarts": {"count": restart_count, "attempts": [each record of
/// restarts.jsonl]} (unreadable lines are skipped).
nlohmann::json restarts_summary(const std::string& output_dir, int restart_count);

/// The job's wall time across its attempts, from <output.dir>/attempts.jsonl: note_restart
/// appends each attempt's start (unix seconds; "started": start, restart or resume) and
/// note_attempt_end its end when it writes summary.json.
struct AttemptTime {
  int attempt = 1;
  std::string started;  ///< "start", "restart" or "resume"
  double wall_s = 0;
};
struct JobWallTime {
  /// summary.json "wall_s": the attempts' wall times summed (seconds). An attempt that ended
  /// without a summary (killed) lasts until the next attempt's start, so the launcher's
  /// detection and backoff count; the time between a stopped run and its --resume does not.
  double wall_s = 0;
  /// summary.json "attempts", in order; the last one's wall_s is `this_attempt_s`.
  std::vector<AttemptTime> attempts;
};
/// Reads attempts.jsonl (unreadable lines skipped; missing: this attempt alone). Blocking
/// (disk I/O); never throws for the file's content.
JobWallTime job_wall_time(const std::string& output_dir, double this_attempt_s);
/// Appends the end of `attempt` (job_wall_time's last) to attempts.jsonl: the summary's
/// writer, after job_wall_time. Throws std::runtime_error when it cannot be written.
void note_attempt_end(const std::string& output_dir, int attempt);

}  // namespace gfn::roles
