#pragma once
// The replay-buffer manager role (docs/architecture.md; torchgfn's
// ReplayBufferManager / ModesReplayBufferManager). It loops on recv(any source, kData):
//   DATA          -> validate it (sizes; for full payloads the trajectories: lengths,
//                    actions in range, exit last — protocol/trajectory_payload.h), score
//                    the batch against the buffer before the insert (Scorer; default
//                    ModesScorer), store it with its trajectories (unless store = false
//                    or the payload is scoring-only), reply SCORE with the baseline in
//                    force (unless fire-and-forget), report new modes (MODE_REPORT) to
//                    the coordinator, and the local baseline (BASELINE_REPORT) when it
//                    moved by more than baseline_tolerance since the last report and at
//                    least baseline_report_interval DATA messages have arrived since then;
//                    if the DATA set want_baseline, push the baseline in force to that
//                    trainer (BASELINE_PUSH on kBaseline) whenever it moves by more than
//                    baseline_tolerance (fire-and-forget filtering);
//   GET_METADATA  -> METADATA on kMetadata;
//   GET_SAMPLE    -> SAMPLE (SampleBatch, with the stored trajectories) on kSample,
//                    drawn by the sampler the request names ("prioritized" | "uniform",
//                    the replay table's selectors, runtime/buffer/table.h), granted or
//                    refused by the rate limiter; an unknown sampler name gets ERROR;
//   BASELINE_SYNC -> (from the coordinator only) adopt the global baseline (and push it
//                    to the trainers that asked for pushes);
//   CHECKPOINT    -> (docs/checkpoints.md "Checkpoint and resume") once every running trainer has
//   sent
//                    it for the same iteration, with counts matching the DATA that arrived,
//                    (with a coordinator, first MANAGER_CHECKPOINT to it and the wait for
//                    COORDINATOR_CHECKPOINT_DONE and the BASELINE_SYNCs it counts), then
//                    write the manager's state (BufferManager::save_state) as its rank file
//                    of that checkpoint (runtime/checkpoint/store.h, atomic) and answer each
//                    of them CHECKPOINT_DONE (size, CRC-32) on kCheckpoint;
//   TRAINER_EXIT  -> counted only from assigned trainers (a trainer with a baseline feed
//                    gets BASELINE_FEED_END on kBaseline, the end of its feed); the
//                    loop ends once every assigned trainer has sent it. Then the final
//                    BASELINE_REPORT if the local baseline changed at all since the last
//                    one, MANAGER_EXIT to the coordinator, and the manager waits
//                    (bounded) for its MANAGER_EXIT_ACK, adopting any BASELINE_SYNC still
//                    in flight, so no message is left unreceived.
// A malformed message, an unknown or unexpected type, or a message from a rank that
// is not an assigned trainer is logged, answered with an ERROR (protocol::ErrorReply)
// on the tag where the sender waits for its reply (protocol::error_tag: kData, kMetadata
// or kSample), and the manager keeps serving the others. Types and tags: the protocol
// table, roles/protocol/message_table.h.
// All replies are isend (handles pruned as they complete, waited for, bounded, at the end).
// The manager is an object, roles/buffer_manager/manager.h (BufferManager: one handler
// per message type); run_buffer_manager() constructs one and runs it.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "runtime/buffer/baseline.h"
#include "runtime/buffer/rate_limiter.h"
#include "runtime/buffer/scorer.h"
#include "transport/transport.h"

namespace gfn::timing {
class TimingTable;
}

namespace gfn::roles {

/// Which of `n` terminating states (row-major int64 [n, ndim]) are modes of the
/// environment. Returns n flags.
using ModePredicate =
    std::function<std::vector<bool>(const std::vector<std::int64_t>& states, int ndim)>;

/// The modes that float32 terminating states (row-major [n, ndim], a continuous
/// environment's) hit: the id of every row lying in a mode, in row order, duplicates possible
/// (core::ContinuousEnvironment::mode_hits; Box: its 2^d corner regions).
using FloatModeHits =
    std::function<std::vector<std::int64_t>(const std::vector<float>& states, int ndim)>;

struct BufferManagerOptions {
  std::int64_t capacity = 10000;  ///< replay-table capacity (items)
  bool store = true;              ///< keep submitted items (false: score only)
  int coordinator_rank = -1;      ///< global rank of the coordinator, -1 if none
  /// Seconds without any message before the manager gives up on the trainers that
  /// have not sent TRAINER_EXIT (TimeoutError naming them); also bounds the final waits.
  double idle_timeout_s = 300.0;
  /// Scores DATA; null = buffer::ModesScorer with default weights.
  std::shared_ptr<buffer::Scorer> scorer;
  buffer::BaselineOptions baseline;
  buffer::RateLimiterOptions rate_limiter;
  std::uint64_t seed = 0;  ///< the replay table's sampling generator
  /// Exponent α of the table's prioritized sampler (draws ∝ R^α, > 0): buffer.priority_exponent.
  double priority_exponent = 1.0;
  /// Weight k of the table's rank sampler (draws ∝ 1 / (k N + rank)), kept only when the
  /// trainers ask for it (buffer.remote_sampler: rank; buffer.rank_weight); nullopt: no rank
  /// sampler, a GET_SAMPLE naming rank is refused.
  std::optional<double> rank_weight;
  /// Forward actions of the environment (exit = n_actions - 1) for checking the
  /// trajectories of full payloads; 0 = unknown (only their sizes are checked).
  std::int64_t n_actions = 0;
  /// The replay table's state dtype from the start (kFloat32 for a continuous environment:
  /// int64 DATA is then refused); nullopt = fixed by the first stored DATA.
  std::optional<buffer::StateDtype> state_dtype;
  /// Modes of float32 DATA (mode_predicate.h environment_float_mode_hits): the manager counts
  /// distinct mode ids and reports each new one as a one-column MODE_REPORT row; null: float32
  /// states count no modes.
  FloatModeHits float_mode_hits;
  /// BASELINE_REPORT throttle: at most one report per this many DATA messages (>= 1),
  /// and only when the local baseline moved by more than baseline_tolerance.
  int baseline_report_interval = 10;
  /// Log-reward change below which a baseline counts as unchanged (>= 0), for
  /// BASELINE_REPORTs and the pushes to trainers.
  double baseline_tolerance = 0.01;
  /// The folder of the run's checkpoints (checkpoint::checkpoints_root(output.dir)), where
  /// CHECKPOINT writes this manager's rank file; empty: CHECKPOINT is refused with ERROR.
  std::string checkpoint_root;
};

/// The manager's options from the experiment (buffer.*, transport.timeout_s, train.seed,
/// env for n_actions): `rank` is the manager's global rank (seed = train.seed + rank),
/// `coordinator_rank` the coordinator's (-1 if none). Its scorer is a buffer::ModesScorer
/// with modes_scorer_options(config.buffer).
BufferManagerOptions buffer_manager_options(const roles::ExperimentConfig& config, int rank,
                                            int coordinator_rank);

/// The ModesScorer's weights and novelty method from buffer.score_*.
buffer::ModesScorerOptions modes_scorer_options(const roles::BufferOptions& buffer);

/// Per-sender traffic and timing profile (seconds), reported at shutdown.
struct SenderStats {
  std::int64_t requests = 0;     ///< messages received from this rank
  std::int64_t bytes_in = 0;     ///< bytes received (envelope included)
  std::int64_t bytes_out = 0;    ///< bytes replied
  std::int64_t submissions = 0;  ///< DATA messages from this rank
  std::int64_t items = 0;        ///< terminating states submitted
  std::int64_t errors = 0;       ///< ERROR replies sent to this rank
  std::int64_t samples = 0;      ///< items sent back by remote sampling
  double recv_s = 0, add_s = 0, score_s = 0, send_s = 0;
};

/// One point of a manager's mode-discovery curve: after the DATA that found new modes.
struct ManagerModesPoint {
  double elapsed_s = 0;             ///< seconds since the manager started
  std::int64_t items_received = 0;  ///< terminating states received so far
  std::int64_t modes_found = 0;     ///< distinct modes among them
};

struct BufferManagerResult {
  std::map<int, SenderStats> per_sender;  ///< by global rank
  /// Modes found vs time and items received: a point each time a DATA brings new modes
  /// (at most one per distinct mode; written to buffer_manager_<rank>.json modes_timeline).
  std::vector<ManagerModesPoint> modes_timeline;
  std::int64_t submissions = 0;
  std::int64_t items_received = 0;
  std::int64_t items_filtered_by_trainers = 0;  ///< Σ Submission::filtered
  std::int64_t buffer_size = 0;
  std::int64_t modes_found = 0;
  std::int64_t rejected_messages = 0;  ///< malformed, unknown, or from unassigned ranks
  std::int64_t errors_sent = 0;        ///< ERROR replies
  std::int64_t exit_mismatches = 0;    ///< TRAINER_EXITs whose counts differ from arrivals
  std::int64_t sample_requests = 0, sample_requests_refused = 0, samples_served = 0;
  std::int64_t baseline_reports = 0, baseline_syncs = 0;
  std::int64_t baseline_pushes = 0;        ///< BASELINE_PUSHes to trainers (kBaseline)
  std::int64_t alive_messages = 0;         ///< MANAGER_ALIVEs to the coordinator
  std::int64_t trajectories_received = 0;  ///< items that came with a trajectory
  std::int64_t trajectories_served = 0;    ///< sampled items sent with their trajectory
  bool has_baseline = false;
  float baseline = 0.f;  ///< in force at the end
  /// Aligned table of per_sender (traffic and timing profile), for the shutdown log.
  std::string stats_table() const;
};

/// Runs the manager loop until all `assigned_trainers` (global ranks) sent TRAINER_EXIT,
/// then the MANAGER_EXIT handshake with the coordinator if there is one
/// (`BufferManager(transport, assigned_trainers, options, is_mode, timing).run()`).
/// Reentrant (no shared state): managers on different transports may run in parallel
/// threads; one call is one manager and uses its transport from the calling thread.
/// Blocking; records "recv", "add", "score", "reply" step durations (seconds) in
/// `timing` (one timing iteration per DATA message) if non-null.
/// Throws transport::TimeoutError if no message arrives for idle_timeout_s while
/// trainers are still expected (the message names them, the tag and TRAINER_EXIT), or the
/// coordinator does not acknowledge; std::invalid_argument for bad options
/// (baseline_report_interval < 1, baseline_tolerance < 0 or NaN, n_actions < 0);
/// transport::TransportError when a reply cannot be sent (naming it, its destination
/// and tag); transport::MessageError when the transport refuses a message above
/// max_message_bytes.
BufferManagerResult run_buffer_manager(transport::Transport& transport,
                                       const std::vector<int>& assigned_trainers,
                                       const BufferManagerOptions& options,
                                       const ModePredicate& is_mode,
                                       timing::TimingTable* timing = nullptr);

}  // namespace gfn::roles
