#pragma once
// Trainer -> buffer-manager submissions (docs/architecture.md, "One submission"; torchgfn's
// ReplayBuffer(remote_manager_rank=...)): a DATA message with terminating states, log
// rewards and (full payloads) the trajectories as action sequences on tag kData,
// answered by a SCORE on the same tag. Scoring-only payloads never carry trajectories.
//   sync:            send, then block until the SCORE arrives.
//   async:           isend now; the SCORE of a submission is collected when the next
//                    one is made (or by drain()), and the previous send is complete
//                    before a new one starts, so at most one submission is in flight.
//   fire_and_forget: isend with want_score = false; the manager sends no SCORE.
//                    At most max_in_flight sends are pending (the oldest is waited for).
// Baseline filtering: items whose log reward is below the manager's last known
// baseline are not sent (with their trajectories); a batch left empty is not sent
// either, unless `baseline_refresh_after` batches in a row were fully filtered, then it
// is sent whole so the manager can refresh the baseline. In sync/async mode the
// baseline comes with each SCORE. In fire-and-forget mode the DATA asks for a baseline
// feed (Submission::want_baseline): the manager pushes BASELINE_PUSH on tag kBaseline
// when its baseline moves, and submit() polls that tag without blocking (a receive
// with a zero timeout) before filtering; exit() drains the feed up to the manager's
// BASELINE_FEED_END on kBaseline, so nothing is left in flight. Any other type on
// kBaseline is refused with transport::MessageError.
// Every wait is bounded by `timeout_s` and ends in transport::TimeoutError naming
// the buffer manager's rank, the tag and the message type (docs/protocol.md "Shutdown and
// failures": a stopped manager is named by the trainers waiting for it). The sync DATA send is an
// isend waited for with that bound too, so a manager that does not receive cannot block
// a trainer forever. A Submitter destroyed while an exception propagates (the rank is
// failing) abandons its pending sends with their buffers instead of waiting for them
// again: the rank ends at the first timeout, with that error. Not thread-safe: owned by
// the trainer loop.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/protocol/messages.h"
#include "transport/transport.h"

namespace gfn::roles {

struct SubmitterOptions {
  using Mode = roles::SubmitMode;  ///< YAML buffer.submit_mode
  Mode mode = Mode::kSync;
  bool scoring_only = false;       ///< payload kind (Submission::scoring_only)
  bool baseline_filter = false;    ///< drop items below the manager's baseline
  int baseline_refresh_after = 5;  ///< >= 1 fully-filtered batches before sending anyway
  double timeout_s = 300.0;        ///< every wait on the manager (seconds)
  int max_in_flight = 8;           ///< fire-and-forget: pending sends bound (>= 1)
};

/// A trainer's submitter options from the experiment (buffer.submit_mode, buffer.payload,
/// buffer.baseline_filter, buffer.baseline_refresh_after, transport.timeout_s).
SubmitterOptions submitter_options(const roles::ExperimentConfig& config);

class Submitter {
 public:
  using Mode = SubmitterOptions::Mode;
  /// `manager` is the global rank of the trainer's buffer manager.
  Submitter(transport::Transport& transport, int manager, const SubmitterOptions& options);
  /// Compatibility: default options with `mode`.
  Submitter(transport::Transport& transport, int manager, Mode mode);
  /// Normally waits for pending sends (each handle's own bounded wait); during stack
  /// unwinding abandons them instead (see the file comment). Never throws.
  ~Submitter();
  Submitter(const Submitter&) = delete;
  Submitter& operator=(const Submitter&) = delete;

  /// Submits `batch` (moved from), after baseline filtering. Returns false if the
  /// batch was not sent (fully filtered). Blocking in sync mode until the SCORE
  /// arrives; in async mode blocks only to collect the previous SCORE. Throws
  /// transport::TimeoutError (names manager, tag, SCORE), protocol::RemoteError if
  /// the manager answered ERROR, transport::MessageError for any other reply.
  bool submit(protocol::Submission batch);
  /// Collects the SCORE still outstanding (async) and waits for every pending send,
  /// each bounded by `timeout_s`. Call before exit(). Blocking.
  void drain(double timeout_s);
  void drain() { drain(options_.timeout_s); }
  /// drain(timeout_s), then TRAINER_EXIT (with this submitter's counts) to the manager
  /// on kData, then, if a baseline feed was requested, receives the rest of it up to
  /// the manager's BASELINE_FEED_END on kBaseline. Every wait bounded by
  /// `timeout_s`: transport::TimeoutError names the manager, the tag and the message
  /// type; transport::MessageError if the feed's update count does not match. Blocking.
  void exit(double timeout_s);

  /// GET_METADATA -> METADATA (tag kMetadata), never confused with a pending SCORE.
  protocol::Metadata query_metadata();
  /// GET_SAMPLE -> SAMPLE (tag kSample): n replayed items drawn by the manager's sampler
  /// `sampler` (YAML buffer.remote_sampler; sent by its name, buffer::kSamplerKindNames),
  /// with the trajectories of the items stored from full payloads (checked for
  /// consistency). Blocking, bounded by timeout_s; throws as submit() does (the names say
  /// SAMPLE, tag 3; a sampler the manager's table lacks comes back as protocol::RemoteError).
  protocol::SampleBatch request_samples(std::int64_t n, buffer::SamplerKind sampler);

  std::int64_t submissions() const { return state_.submissions; }
  std::int64_t items_sent() const { return state_.items_sent; }
  std::int64_t items_filtered() const { return state_.items_filtered; }
  std::int64_t batches_skipped() const { return state_.batches_skipped; }
  std::int64_t scores_received() const { return state_.scores; }
  /// Sums over the SCOREs received so far.
  std::int64_t items_retained() const { return state_.retained; }
  std::int64_t new_modes_reported() const { return state_.new_modes; }
  /// The baseline of the last SCORE, if the manager had one.
  std::optional<float> baseline() const { return state_.baseline; }
  const protocol::Score& last_score() const { return state_.last_score; }
  /// Baseline updates (BASELINE_PUSH on kBaseline) received so far (fire-and-forget).
  std::int64_t baseline_updates() const { return state_.baseline_updates; }

  // ---- Checkpoints (docs/checkpoints.md "Checkpoint and resume"; submitter_state.cc).
  /// The trainer's side of a checkpoint after iteration `iteration`: drain() (the SCORE
  /// still outstanding, every pending DATA send), CHECKPOINT with this submitter's counts to
  /// the manager on kData, the wait for its CHECKPOINT_DONE on kCheckpoint (the manager
  /// answers once every trainer it serves has sent CHECKPOINT and its rank file is written),
  /// then, with a baseline feed, the BASELINE_PUSHes up to the count CHECKPOINT_DONE gives,
  /// so this submitter's state and the manager's saved one agree. Returns the reply (the
  /// manager's file entry). Blocking; every wait bounded by `timeout_s`:
  /// transport::TimeoutError names the manager, the tag and the message type;
  /// protocol::RemoteError if the manager refused the CHECKPOINT.
  protocol::CheckpointDone checkpoint(std::int64_t iteration, double timeout_s);
  /// Everything later submissions depend on, as bytes (cereal portable binary): counters,
  /// the baseline and the fully-filtered streak, the last SCORE, the request numbering,
  /// whether a baseline feed was requested. Only between submissions of a drained
  /// submitter (after checkpoint()): std::logic_error otherwise. O(1).
  std::string save_state() const;
  /// Restores a fresh submitter (same options) from save_state's bytes. Throws
  /// std::runtime_error for unreadable bytes.
  void restore_state(const std::string& bytes);

 private:
  void collect_score();
  /// Waits for `handle` (a DATA send) at most `timeout`; a TimeoutError is rethrown
  /// naming this trainer, the manager, DATA, the tag and `when`.
  void wait_data_send(transport::SendHandle& handle, transport::Seconds timeout, const char* when);
  void filter(protocol::Submission& batch);
  void poll_baseline();
  /// Handles one kBaseline message; returns true for BASELINE_FEED_END. Throws
  /// transport::MessageError for a malformed message or any other type.
  bool take_feed_message(const transport::Received& in);
  bool feed_wanted() const {
    return options_.baseline_filter && options_.mode == Mode::kFireAndForget;
  }

  transport::Transport& transport_;
  int manager_;
  SubmitterOptions options_;
  transport::SendHandle in_flight_;          // async
  std::deque<transport::SendHandle> fired_;  // fire-and-forget
  bool score_pending_ = false;
  std::int64_t pending_iteration_ = 0;
  /// What a checkpoint keeps of the submitter (save_state / restore_state, cereal; the field
  /// order is the byte format). The pending sends are drained before it is taken.
  struct State {
    std::int64_t submissions = 0, items_sent = 0, items_filtered = 0, batches_skipped = 0;
    std::int64_t scores = 0, retained = 0, new_modes = 0, requests = 0;
    int fully_filtered_in_a_row = 0;
    bool feed_requested = false;  // a DATA with want_baseline went out
    std::int64_t baseline_updates = 0;
    std::optional<float> baseline;
    protocol::Score last_score;
    template <class Archive>
    void serialize(Archive& ar) {
      ar(submissions, items_sent, items_filtered, batches_skipped, scores, retained, new_modes,
         requests, fully_filtered_in_a_row, feed_requested, baseline_updates, baseline, last_score);
    }
  };
  State state_;
};

}  // namespace gfn::roles
