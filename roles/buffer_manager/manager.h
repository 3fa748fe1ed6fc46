#pragma once
// The replay-buffer manager role as an object (the protocol it speaks is documented in
// roles/buffer_manager/buffer_manager.h and README.md, "Replay-buffer protocol").
// run_buffer_manager() is `BufferManager(...).run()`; the pieces are public so that a
// test can drive one handler at a time (tests/roles/buffer_manager/, over the loopback
// transport of tests/support/loopback_transport.h).
//
// Files: manager.cc (construction, the receive loop and its dispatch, the end: final
// BASELINE_REPORT, MANAGER_EXIT handshake with the coordinator, pending sends),
// handlers.cc (one handler per message type), outbox.cc (sends, ERROR refusals, baseline
// reports and pushes), manager_state.cc (checkpoint state), manager_checkpoint.cc (CHECKPOINT:
// the state written at the trainers' boundary). Types, tags and the ERROR reply tag
// come from the protocol table (roles/protocol/message_table.h).
//
// Receive path of one DATA message (3 copies of the submission): the transport receives
// it into `inbox_`, a buffer reused for every message (recv_into: no allocation once it
// is large enough; the torch backend copies once more a message that was already queued
// before the call, transport/gloo/gloo_recv.h); the envelope is parsed in place
// (protocol::decode_message_view: no copy); the payload is decoded from there into
// `submission_`, also reused (protocol::decode_into: its vectors keep their capacity); mode
// detection and scoring read it in place; the replay table copies the items it stores.
//
// The store is a replay table (runtime/buffer/table.h, manager_table_options): lowest-reward
// remover (the `capacity` highest rewards are kept), samplers "prioritized" and "uniform"
// named by GET_SAMPLE (protocol::SampleRequest::sampler).
//
// Thread-safety: none. One thread owns a BufferManager (it is the body of the manager
// rank); the transport may be shared with other threads as the transport allows.
// Blocking: run(), serve_one() and finish() block on the transport (each wait bounded by
// BufferManagerOptions::idle_timeout_s); the handlers never block (replies are isend).
// Liveness (docs/protocol.md "Shutdown and failures"): while serving, a manager that has sent its
// coordinator nothing for idle_timeout_s / 4 sends it MANAGER_ALIVE, also while it waits
// for its trainers, so the coordinator's bounded wait only fires for a stopped manager.
// Errors: see each method. A transport::MessageError thrown by a handler is a malformed
// message: serve_one() answers it with ERROR and carries on; every other exception ends
// the manager (it propagates out of run()).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "runtime/buffer/baseline.h"
#include "runtime/buffer/rate_limiter.h"
#include "runtime/buffer/scorer.h"
#include "runtime/buffer/table.h"
#include "transport/framing/envelope.h"
#include "transport/transport.h"

namespace gfn::roles {

class BufferManager {
 public:
  /// A manager serving `assigned_trainers` (global ranks) over `transport` (which must
  /// outlive it), scoring DATA with options.scorer (null: buffer::ModesScorer) and
  /// `is_mode`; step durations go to `timing` if non-null (see run_buffer_manager).
  /// Sends and receives nothing. Throws std::invalid_argument for bad options
  /// (baseline_report_interval < 1, baseline_tolerance < 0 or NaN, n_actions < 0, and
  /// what ReplayTable, BaselineTracker and RateLimiter refuse).
  BufferManager(transport::Transport& transport, const std::vector<int>& assigned_trainers,
                const BufferManagerOptions& options, ModePredicate is_mode,
                timing::TimingTable* timing = nullptr);
  BufferManager(const BufferManager&) = delete;
  BufferManager& operator=(const BufferManager&) = delete;
  /// Waits, without a deadline, for replies still being sent (SendHandle semantics).
  ~BufferManager();

  /// serve_one() while serving(), then finish(). Throws as those.
  BufferManagerResult run();

  /// True until every assigned trainer has sent TRAINER_EXIT.
  bool serving() const { return !running_.empty(); }

  /// Receives one message on tag kData from any source (waiting at most
  /// idle_timeout_s) and dispatches it: from the coordinator, BASELINE_SYNC
  /// (on_baseline_sync; anything else is logged and dropped); from a rank that is not an
  /// assigned trainer, an ERROR; otherwise the handler of its type (any other type:
  /// ERROR). A malformed message, or a MessageError from a handler, is answered with
  /// ERROR (refused) and the manager carries on. Every ERROR goes on
  /// protocol::error_tag() of the refused type (its reply tag, else kData).
  /// Throws transport::TimeoutError naming the trainers still expected, the tag and
  /// TRAINER_EXIT when nothing arrives in time; transport::MessageError if the transport refuses
  /// the message (above max_message_bytes); transport::TransportError when a reply cannot be sent
  /// (naming the reply, its destination and tag).
  void serve_one();

  /// The end, once serving() is false: the final BASELINE_REPORT (if the local baseline
  /// changed at all since the last one), MANAGER_EXIT to the coordinator and the wait
  /// for its MANAGER_EXIT_ACK (adopting BASELINE_SYNCs still in flight), then the wait
  /// for the pending sends. Returns the result. Throws transport::TimeoutError when the
  /// coordinator does not answer or a send does not complete within idle_timeout_s,
  /// transport::TransportError when a send fails.
  BufferManagerResult finish();

  // ---- Handlers: one per message type. `src` is the sender's global rank; `message`
  // views the received bytes and is read before the handler returns. They throw
  // transport::MessageError for a malformed payload (serve_one answers it with an ERROR)
  // and transport::TransportError when a reply cannot be sent.

  /// DATA (Submission) from an assigned trainer: validate, score against the buffer
  /// before the insert, store, SCORE on kData (unless fire-and-forget), MODE_REPORT and
  /// BASELINE_REPORT to the coordinator, BASELINE_PUSHes on kBaseline. Records the
  /// "recv" (= recv_s), "score", "add" and "reply" steps as one timing iteration.
  void on_data(int src, const transport::MessageView& message, double recv_s);
  /// The checks of a DATA payload (protocol::check_states, the buffer's ndim and state
  /// dtype, no trajectories with float32 states, protocol::check_trajectories); throws
  /// transport::MessageError.
  void check_submission(const protocol::Submission& sub) const;
  /// The modes of `sub` not seen before: recorded in modes_seen_ and appended to `report`
  /// (rows of terminating states, or of one mode id for float32 states:
  /// BufferManagerOptions::float_mode_hits). Returns how many.
  std::int64_t collect_new_modes(int src, const protocol::Submission& sub,
                                 protocol::ModeReport& report);
  /// The replay table's options: manager_table_options and options.state_dtype.
  static buffer::TableOptions manager_table(const BufferManagerOptions& options);
  /// GET_METADATA (Query) -> METADATA on kMetadata; a bad query gets ERROR on kMetadata.
  void on_get_metadata(int src, const transport::MessageView& message);
  /// GET_SAMPLE (SampleRequest) -> SAMPLE on kSample, granted or refused by the rate
  /// limiter (or because the buffer is empty); a bad request (n < 0, a sampler the table
  /// does not have) gets ERROR on kSample.
  void on_get_sample(int src, const transport::MessageView& message);
  /// TRAINER_EXIT from an assigned trainer: it is no longer expected; the end of its
  /// baseline feed (BASELINE_FEED_END on kBaseline) if it has one; counts checked against
  /// what arrived (exit_mismatches). A second TRAINER_EXIT is logged.
  void on_exit(int src, const transport::MessageView& message);
  /// BASELINE_SYNC (from the coordinator): adopt the global baseline and push it to the
  /// trainers with a baseline feed.
  void on_baseline_sync(const transport::MessageView& message);
  /// CHECKPOINT (CheckpointRequest) from an assigned trainer: noted; once every running
  /// trainer has sent it for the same iteration, write_checkpoint. Throws
  /// transport::MessageError (answered with ERROR on kCheckpoint) when no checkpoint_root is
  /// set, the trainer's counts differ from the DATA that arrived from it, or its iteration
  /// differs from the other trainers' pending ones; checkpoint::CheckpointError (ends the
  /// manager) when the file cannot be written. manager_checkpoint.cc.
  void on_checkpoint(int src, const transport::MessageView& message);

  // ---- Checkpoints (docs/checkpoints.md "Checkpoint and resume"; manager_state.cc, written by
  // on_checkpoint at the boundary the trainers agreed on, restored by run_job on --resume).
  /// Everything the next answers depend on, as bytes (cereal portable binary, format
  /// version first): the replay table (ReplayTable::save_state: items, samplers' order,
  /// generator), the scorer's state (ModesScorer: its EMA), the baseline tracker (EMA,
  /// synced global), the rate limiter's counters, the modes seen, the counters and
  /// per-sender statistics of result(), the baseline feeds and the last baseline report;
  /// since format version 2 the seconds served, the mode-discovery timeline and the timing
  /// table (when one was given), so a restarted manager's reports cover the whole run.
  /// Not saved: who is still running, the liveness clocks, pending sends (a checkpoint is
  /// taken between messages). O(stored items + modes).
  std::string save_state() const;
  /// Restores a fresh manager (built with the same options) from save_state's bytes: it
  /// then answers every message as the saved one would have. Reads format versions 1 (an
  /// older build's: no timeline, the time counted from the restore) and 2. Throws
  /// std::runtime_error for unreadable bytes and std::invalid_argument for a state that does not
  /// fit these options (naming what differs); after an error the manager must not be used.
  void restore_state(const std::string& bytes);

  // ---- State, for tests and reports.
  /// Counters so far (buffer_size, modes_found and the final baseline are set by finish).
  const BufferManagerResult& result() const { return result_; }
  const buffer::ReplayTable& replay() const { return replay_; }
  /// Assigned trainers that have not sent TRAINER_EXIT yet.
  const std::set<int>& running() const { return running_; }
  /// Replies not yet known to be complete.
  std::size_t pending_sends() const { return pending_.size(); }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t0);

  /// A pending reply and whom it goes to, so a stuck or failed send can be named.
  struct PendingReply {
    transport::SendHandle handle;
    int dst;
    int tag;
    const char* type;
  };
  /// A trainer's baseline feed (fire-and-forget filtering): the last value pushed to it.
  struct Feed {
    std::optional<float> last;
    std::int64_t updates = 0;
  };

  static const BufferManagerOptions& checked(const BufferManagerOptions& options);
  /// Whether `now` moved by more than baseline_tolerance from `last` (or there is none).
  bool moved(const std::optional<float>& last, float now) const;
  /// Routes one decoded message (serve_one after the receive).
  void dispatch(int src, const transport::MessageView& message, double recv_s);
  /// A message from the coordinator while serving: BASELINE_SYNC, or logged and dropped.
  void from_coordinator(const transport::MessageView& message);
  void adopt_sync(const transport::MessageView& message);
  void exit_handshake();
  void wait_pending_sends();
  /// The next message on kData from anyone, waiting at most idle_ and sending
  /// MANAGER_ALIVE when due meanwhile (keep_alive). Throws as serve_one().
  transport::RecvInfo receive();

  /// Sends `payload` (isend) to `dst` on its tag, as the table says.
  template <class Payload>
  void send(int dst, const Payload& payload) {
    send_bytes(dst, protocol::MessageSpec<Payload>::tag, protocol::MessageSpec<Payload>::name,
               protocol::encode(payload));
  }

  // outbox.cc
  void send_bytes(int dst, int tag, const char* type, transport::Bytes bytes);
  void prune_completed_sends();
  /// ERROR to `src` about a message of type `type` (0: unreadable), on its error_tag().
  void refuse(int src, std::uint16_t type, const std::string& why);
  /// A message the transport refused before it was read (above max_message_bytes): ERROR
  /// to its sender when the transport names one that is not the coordinator, else a
  /// warning; counted in rejected_messages either way. The manager keeps serving.
  void refuse_dropped(const transport::MessageError& e);
  void report_baseline(bool final);
  void push_baselines();
  /// MANAGER_ALIVE to the coordinator if it has been sent nothing for alive_every_.
  void keep_alive();
  /// save_state as rank_<me>.pt of the checkpoint at `iteration`, then CHECKPOINT_DONE to
  /// every trainer in checkpoint_requests_ (cleared). manager_checkpoint.cc.
  void write_checkpoint(std::int64_t iteration);
  /// With a coordinator, before the manager saves its state: MANAGER_CHECKPOINT, the wait
  /// for COORDINATOR_CHECKPOINT_DONE (idle_timeout_s, naming the coordinator), then the
  /// BASELINE_SYNCs it had sent up to its count. manager_checkpoint.cc.
  protocol::CoordinatorCheckpointDone coordinator_checkpoint(std::int64_t iteration);

  transport::Transport& transport_;
  const BufferManagerOptions options_;
  const ModePredicate is_mode_;
  timing::TimingTable* const timing_;
  const std::set<int> assigned_;
  const int me_;
  const int coordinator_;
  const std::size_t cap_;          // max_message_bytes of the transport
  const transport::Seconds idle_;  // idle_timeout_s

  buffer::ReplayTable replay_;
  buffer::BaselineTracker baseline_;
  buffer::RateLimiter limiter_;
  std::shared_ptr<buffer::Scorer> scorer_;

  std::set<int> running_;  // assigned trainers that have not sent TRAINER_EXIT yet
  // When each assigned trainer's last message arrived (the start for a silent one): an idle
  // timeout names the trainers silent longest (docs/protocol.md "Shutdown and failures").
  std::map<int, Clock::time_point> last_heard_;
  // MANAGER_ALIVE: sent when nothing went to the coordinator for alive_every_ (idle_ / 4).
  const transport::Seconds alive_every_;
  Clock::time_point last_to_coordinator_;
  const Clock::time_point started_;  // this attempt's start
  // Seconds the run had been serving before this attempt (a restored checkpoint's elapsed
  // time): result_.modes_timeline's times continue the checkpointed run's.
  double elapsed_before_ = 0;
  std::set<std::vector<std::int64_t>> modes_seen_;
  std::map<int, Feed> feeds_;
  std::optional<float> last_reported_;
  std::int64_t last_report_at_ = 0;  // result_.submissions when the last report went out
  std::list<PendingReply> pending_;  // async replies, pruned as they complete
  // CHECKPOINT received and not answered yet: trainer rank -> iteration (all equal).
  std::map<int, std::int64_t> checkpoint_requests_;

  transport::Bytes inbox_;           // every receive lands here (reused)
  protocol::Submission submission_;  // every DATA is decoded into it (reused)
  BufferManagerResult result_;
};

}  // namespace gfn::roles
