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
//   MANAGER_CHECKPOINT   (managers, docs/checkpoints.md "Checkpoint and resume") once every running
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
//
// The role is an object, as the buffer manager (roles/buffer_manager/manager.h):
// run_coordinator() is `Coordinator(...).run()`; its pieces are public so that a test can
// drive one handler at a time (tests/roles/coordinator/, over the loopback transport of
// tests/support/loopback_transport.h). Files: coordinator.cc (construction, the receive
// loop with its liveness bound, the dispatch by message type, refusals, the end),
// handlers.cc (one handler per message type), coordinator_state.cc (checkpoint bytes).
// Thread-safety: none; one thread owns a Coordinator (the body of the coordinator rank).
// Blocking: run(), serve_one() and finish() block on the transport (each wait bounded by
// idle_timeout_s); the handlers never block (replies are isend).

#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/protocol/codec.h"
#include "transport/framing/envelope.h"
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

class Coordinator {
 public:
  /// A coordinator of the buffer managers `managers` (global ranks) over `transport` (which
  /// must outlive it). `state`: bytes of a checkpoint's coordinator file (--resume;
  /// coordinator_state.h) to start from, or null. Sends and receives nothing. Throws
  /// std::invalid_argument for a negative (or NaN) baseline_tolerance, std::runtime_error for
  /// a state that cannot be decoded.
  Coordinator(transport::Transport& transport, const std::vector<int>& managers,
              const CoordinatorOptions& options, const std::string* state = nullptr);
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  /// serve_one() while serving(), then finish(). Throws as those.
  CoordinatorResult run();
  /// True until every manager has sent MANAGER_EXIT.
  bool serving() const { return !running_.empty(); }
  /// Receives one message on kControl from any source, waiting until the earliest running
  /// manager's liveness deadline (its last message + idle_timeout_s), and dispatches it to
  /// the handler of its type. A malformed or unexpected message, or a MessageError from a
  /// handler, is refused (refuse) and the coordinator carries on. Returns without a message
  /// when the wait ended before any manager's deadline. Throws transport::TimeoutError
  /// naming the managers silent for idle_timeout_s; what the handlers throw otherwise
  /// (checkpoint::CheckpointError when its rank file cannot be written).
  void serve_one();
  /// The end: modes_found set, every pending send waited for (idle_timeout_s each).
  /// Returns the result. Throws transport::TimeoutError / TransportError from a send.
  CoordinatorResult finish();

  // ---- Handlers: one per message type (handlers.cc). `src` is the sender's global rank;
  // `message` views the received bytes. They throw transport::MessageError for a malformed
  // or unexpected payload (serve_one refuses it) and never block.

  /// GET_POPULATION_STATS (from anyone) -> POPULATION_STATS on kPopulation.
  void on_get_population_stats(int src, const transport::MessageView& message);
  /// MODE_REPORT: each new mode counted once, credited to its manager and trainer,
  /// timestamped. Inconsistent sizes: MessageError.
  void on_mode_report(int src, const transport::MessageView& message);
  /// BASELINE_REPORT: the manager's baseline; the global one aggregated and, when it moved
  /// by more than baseline_tolerance since the last sync (or on the first report) and
  /// sync_baselines is set, BASELINE_SYNC to every running manager.
  void on_baseline_report(int src, const transport::MessageView& message);
  /// MANAGER_ALIVE: counted (liveness only; serve_one notes when each manager was heard).
  void on_manager_alive(int src, const transport::MessageView& message);
  /// MANAGER_CHECKPOINT: noted; once every running manager asked for the same iteration,
  /// the state is written as this rank's file of that checkpoint and each gets
  /// COORDINATOR_CHECKPOINT_DONE on kCheckpoint. MessageError without a checkpoint_root or
  /// for an iteration other than the pending requests'; checkpoint::CheckpointError when the
  /// file cannot be written.
  void on_manager_checkpoint(int src, const transport::MessageView& message);
  /// MANAGER_EXIT: the manager no longer runs; MANAGER_EXIT_ACK on kData (the first time).
  void on_manager_exit(int src, const transport::MessageView& message);

  // ---- State, for tests and reports.
  const CoordinatorResult& result() const { return result_; }
  /// Managers that have not sent MANAGER_EXIT yet.
  const std::set<int>& running() const { return running_; }
  /// Distinct modes reported so far.
  std::int64_t modes_found() const { return static_cast<std::int64_t>(modes_.size()); }
  /// Replies not yet known to be complete.
  std::size_t pending_sends() const { return pending_.size(); }

 private:
  using Clock = std::chrono::steady_clock;

  static const CoordinatorOptions& checked(const CoordinatorOptions& options);
  /// The next message on kControl, waiting until the earliest liveness deadline; nothing
  /// when that wait ends with no manager silent too long. Throws TimeoutError naming them.
  std::optional<transport::Received> receive();
  /// Routes one decoded message by type (serve_one after the receive).
  void dispatch(int src, const transport::MessageView& message);
  /// ERROR about `type` (0: unreadable) to `src` on the table's error tag, unless `src` is
  /// a manager that has exited; counted and logged either way.
  void refuse(int src, std::uint16_t type, const std::string& why);
  /// Sends `payload` (isend) to `dst` on its tag, as the table says.
  template <class Payload>
  void send(int dst, const Payload& payload) {
    keep(protocol::isend(transport_, dst, payload));
  }
  void keep(transport::SendHandle handle);
  bool from_manager(int src) const { return known_.count(src) > 0; }

  transport::Transport& transport_;
  const CoordinatorOptions options_;
  const int me_;
  const std::size_t cap_;  // max_message_bytes of the transport
  const Clock::duration idle_;
  const Clock::time_point started_;              // discoveries' time origin
  const std::set<int> known_;                    // every manager
  std::set<int> running_;                        // managers that have not sent MANAGER_EXIT
  std::map<int, Clock::time_point> last_heard_;  // per manager: its last message (or the start)
  // Checkpointed (coordinator_state.h):
  std::set<std::vector<std::int64_t>> modes_;
  CoordinatorResult result_;
  std::optional<float> last_synced_;      // the global baseline last sent as BASELINE_SYNC
  std::map<int, std::int64_t> syncs_to_;  // BASELINE_SYNCs sent, per manager
  // MANAGER_CHECKPOINT not answered yet: manager rank -> iteration (all equal).
  std::map<int, std::int64_t> checkpoint_requests_;
  std::list<transport::SendHandle> pending_;
};

/// Runs until all `managers` (global ranks) sent MANAGER_EXIT: Coordinator(transport,
/// managers, options, state).run(). Blocking; throws as those.
CoordinatorResult run_coordinator(transport::Transport& transport, const std::vector<int>& managers,
                                  const CoordinatorOptions& options,
                                  const std::string* state = nullptr);

}  // namespace gfn::roles
