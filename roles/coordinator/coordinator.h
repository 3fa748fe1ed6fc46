#pragma once
// The coordinator role (docs/architecture.md): the last rank, optional. On tag
// kControl it receives:
//   MODE_REPORT          (managers) modes newly found, with the submitting trainer rank;
//                        aggregated into one global set, each first discovery credited to
//                        its manager and trainer and timestamped (modes over time);
//   BASELINE_REPORT      (managers) a manager's local baseline; the global baseline is
//                        aggregated over managers (min | mean | max) and, only when it
//                        moved by more than baseline_tolerance since the last sync (or on
//                        the first report), sent as BASELINE_SYNC (tag kData) to every
//                        manager still running;
//   GET_POPULATION_STATS (trainers) answered with POPULATION_STATS on tag kPopulation;
//   MANAGER_EXIT         (managers) answered with MANAGER_EXIT_ACK on tag kData (after
//                        any BASELINE_SYNC to that manager); the loop ends when every
//                        manager has exited;
//   MANAGER_ALIVE        (managers) liveness only: a serving manager sends it when it has
//                        sent nothing else for idle_timeout_s / 4;
//   MANAGER_CHECKPOINT   (managers, README "Checkpoint and resume") once every running
//                        manager has sent it for the same iteration, the coordinator writes
//                        its state (coordinator_state.h) as its rank file of that checkpoint
//                        and answers each COORDINATOR_CHECKPOINT_DONE on kCheckpoint (size,
//                        CRC-32, BASELINE_SYNCs sent to that manager so far).
// Each running manager must be heard from within idle_timeout_s; otherwise the coordinator
// throws transport::TimeoutError naming the silent managers (a stopped one, README
// "Shutdown and failures").
// Malformed or unexpected messages are logged and answered with ERROR on the table's
// error tag (protocol::error_tag: to trainers on kPopulation, to managers on kData); the
// coordinator keeps serving the others. Types and tags: roles/protocol/message_table.h.
// Mirrors the coordinator of torchgfn's distributed trainer.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "transport/transport.h"

namespace gfn::roles {

struct CoordinatorOptions {
  /// Seconds without any message from a running manager (one that has not sent
  /// MANAGER_EXIT) before giving up on it (TimeoutError naming it).
  double idle_timeout_s = 300.0;
  /// How managers' baselines combine into the global one: "min" | "mean" | "max".
  roles::BaselineAggregate baseline_aggregate = roles::BaselineAggregate::kMin;
  /// Send BASELINE_SYNC to managers (false: only aggregate and report).
  bool sync_baselines = true;
  /// Log-reward change of the global baseline below which no BASELINE_SYNC is sent (>= 0).
  double baseline_tolerance = 0.01;
  /// The folder of the run's checkpoints (checkpoint::checkpoints_root(output.dir)), where
  /// MANAGER_CHECKPOINT writes the coordinator's rank file; empty: it is refused with ERROR.
  std::string checkpoint_root;
};

/// The coordinator's options from the experiment (transport.timeout_s, buffer.baseline_*).
CoordinatorOptions coordinator_options(const roles::ExperimentConfig& config);

/// One first discovery of a mode, for the modes-over-time summary.
struct ModeDiscovery {
  double t_s = 0;  ///< seconds since the coordinator started
  int manager = -1;
  int trainer = -1;
};

struct CoordinatorResult {
  std::int64_t modes_found = 0;                  ///< distinct modes over all managers
  std::int64_t mode_reports = 0;                 ///< MODE_REPORT messages received
  std::map<int, std::int64_t> modes_by_manager;  ///< first reports, by manager rank
  std::map<int, std::int64_t> modes_by_trainer;  ///< first discoveries, by trainer rank
  std::vector<ModeDiscovery> discoveries;        ///< in arrival order
  std::map<int, float> manager_baselines;        ///< last BASELINE_REPORT per manager
  std::int64_t baseline_reports = 0;
  std::int64_t baseline_syncs_sent = 0;
  bool has_global_baseline = false;
  float global_baseline = 0.f;
  std::int64_t population_queries = 0;
  std::int64_t rejected_messages = 0;
  std::int64_t alive_messages = 0;  ///< MANAGER_ALIVEs received (liveness only)
  /// Final summary: modes over time per manager (cumulative counts at first
  /// discoveries), per-trainer credits and baselines.
  std::string summary() const;
};

/// Runs until all `managers` (global ranks) sent MANAGER_EXIT. Blocking. `state`: bytes of a
/// checkpoint's coordinator file (--resume; coordinator_state.h) to start from, or null.
/// Throws std::runtime_error for a state that cannot be decoded, checkpoint::CheckpointError
/// when its rank file cannot be written.
/// Throws transport::TimeoutError naming the silent managers, std::invalid_argument
/// for a negative (or NaN) baseline_tolerance.
CoordinatorResult run_coordinator(transport::Transport& transport, const std::vector<int>& managers,
                                  const CoordinatorOptions& options,
                                  const std::string* state = nullptr);

}  // namespace gfn::roles
