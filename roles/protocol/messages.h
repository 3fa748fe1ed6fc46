#pragma once
// Payloads of the trainer / buffer-manager / coordinator protocol (README
// "Replay-buffer protocol"; message types follow torchgfn's MessageType). Each payload is a
// cereal-serializable struct carried inside the transport envelope
// (transport/framing). Which message type carries which payload, from which role to
// which on which tag, and what answers it, is defined once in
// roles/protocol/message_table.h; encode and decode with roles/protocol/codec.h
// (`protocol::encode(payload)`, `protocol::decode<T>(message)`: the type comes from the
// table; decoding is bounded and never allocates more than the bytes received).
//
// Channels (tags): GFN_PROTOCOL_TAGS below names each one; which messages travel on which
// tag, between which roles, is the table's (message_table.h; channel_overview() renders
// it, docs/protocol.md "Tags" shows it). A receiver only ever waits on one (source, tag)
// pair per reply kind, so a SCORE, a METADATA, a SAMPLE, a baseline update and population
// stats can never be taken for one another.
//
// Payload kinds of DATA: full (terminating states, log rewards AND the trajectories as
// forward action sequences; the manager may store all of it and a SAMPLE returns the
// trajectories) or scoring-only (terminating states and log rewards; never stored).
//
// State dtypes of DATA and SAMPLE (Submission::state_dtype, SampleBatch::state_dtype):
// int64 rows in `states` (discrete environments) or float32 rows in `float_states`
// (continuous environments such as Box; finite values), the other vector empty. Continuous
// submissions carry no trajectories: a full one is stored without them (its items are
// replayed as terminating states only), a scoring-only one as for int64 states.

#include <cstdint>
#include <string>
#include <vector>

#include <cereal/types/common.hpp>

#include "runtime/buffer/options.h"
#include "runtime/buffer/packed_trajectories.h"

namespace gfn::protocol {

/// The protocol's channels (transport tags): X(constant, value, "what travels there").
/// Values are never renumbered; message_table.h's rows name the tag of each message.
// clang-format off
#define GFN_PROTOCOL_TAGS(X)                                                                  \
  X(kData,       0, "the buffer manager's inbox and its replies to trainers")                 \
  X(kMetadata,   1, "metadata replies")                                                       \
  X(kControl,    2, "the coordinator's inbox")                                                \
  X(kSample,     3, "replayed samples")                                                       \
  X(kPopulation, 4, "population statistics")                                                  \
  X(kBaseline,   5, "the manager's baseline, pushed to fire-and-forget trainers that filter") \
  X(kSpawn,      6, "the asynchronous spawn policy, between the trainers of one agent group") \
  X(kCheckpoint, 7, "checkpoint acknowledgements")
// clang-format on
namespace tags {
#define GFN_PROTOCOL_TAG_CONSTANT(constant, value, what) constexpr int constant = value;
GFN_PROTOCOL_TAGS(GFN_PROTOCOL_TAG_CONSTANT)
#undef GFN_PROTOCOL_TAG_CONSTANT
}  // namespace tags

/// DATA: one batch of items. The terminating states are row-major [n, ndim]: int64 in
/// `states` when state_dtype is kInt64, float32 in `float_states` when it is kFloat32 (the
/// other vector empty; protocol::check_states, state_payload.h, is the receiver's check);
/// `log_rewards` is float32 [n] (natural log).
/// Full payloads also carry the trajectories, packed (runtime/buffer/packed_trajectories.h,
/// the layout the replay table stores): `trajectories.lengths` int32 [n], the number of
/// forward actions of item i (exit included, >= 1), and `trajectories.actions` int64
/// [Σ lengths], the forward action sequences concatenated in item order (each ends with the
/// exit action, n_actions - 1). Both are empty for scoring-only payloads (and for full
/// payloads of a sender without trajectories); then the items have no trajectory.
struct Submission {
  std::int64_t iteration = 0;  ///< trainer iteration that produced the batch
  std::int32_t ndim = 0;
  buffer::StateDtype state_dtype = buffer::StateDtype::kInt64;  ///< which vector holds the rows
  std::vector<std::int64_t> states;                             ///< int64 [n, ndim] or empty
  std::vector<float> float_states;                              ///< float32 [n, ndim] or empty
  std::vector<float> log_rewards;
  /// Payload kind: false = full (the manager stores the items, with their trajectories,
  /// if it keeps a buffer), true = scoring-only (score, never store).
  bool scoring_only = false;
  /// false in fire-and-forget mode: the manager sends no SCORE back.
  bool want_score = true;
  /// Items the trainer's baseline filter dropped from this batch (for statistics).
  std::int64_t filtered = 0;
  /// [n] trajectories or none (serialized as lengths int32 [n], then actions int64 [Σ lengths]).
  buffer::PackedTrajectories trajectories;
  /// The trainer wants the manager's baseline pushed to it (BASELINE_PUSH on tag
  /// kBaseline) whenever it changes: set by fire-and-forget trainers that filter.
  bool want_baseline = false;

  std::int64_t size() const { return static_cast<std::int64_t>(log_rewards.size()); }
  bool has_trajectories() const { return !trajectories.empty(); }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration, ndim, state_dtype, states, float_states, log_rewards, scoring_only, want_score,
       filtered, trajectories, want_baseline);
  }
};

/// SCORE: the manager's verdict on one submission (torchgfn ModesReplayBufferManager
/// scoring_function keys), plus the baseline the trainer may filter with.
struct Score {
  std::int64_t iteration = 0;     ///< echoes Submission::iteration
  std::int64_t retained = 0;      ///< items of the batch the buffer keeps (before the insert)
  double reward_sum = 0.0;        ///< Σ exp(log_reward) over the batch
  std::int64_t new_modes = 0;     ///< modes this manager had not seen before
  std::int64_t buffer_size = 0;   ///< items in the buffer after the insert
  double novelty_sum = 0.0;       ///< Σ min distance of the batch to the buffer
  double score_before_ema = 0.0;  ///< weighted sum
  double score = 0.0;             ///< EMA of score_before_ema over submissions
  bool has_baseline = false;      ///< false until the manager's baseline is defined
  float baseline = 0.f;           ///< log reward; items below it need not be sent
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration, retained, reward_sum, new_modes, buffer_size, novelty_sum, score_before_ema,
       score, has_baseline, baseline);
  }
};

/// GET_METADATA: a query to the manager, answered by METADATA on tag kMetadata. kind
/// must be kMetadata (anything else is answered with ERROR on kMetadata; samples have
/// their own request, GET_SAMPLE).
struct Query {
  enum Kind : std::uint8_t { kMetadata = 0 };
  std::uint8_t kind = kMetadata;
  std::int64_t request = 0;  ///< a request counter of the trainer (not echoed by METADATA)
  template <class Archive>
  void serialize(Archive& ar) {
    ar(kind, request);
  }
};
using MetadataRequest = Query;

/// GET_SAMPLE (trainer -> manager, tag kData): asks for `n` >= 0 replayed items, drawn
/// with replacement by the named sampler of the manager's replay table (YAML
/// buffer.remote_sampler; runtime/buffer/table.h manager_table_options): "prioritized"
/// (proportional to exp(log reward)) or "uniform". Answered by SAMPLE (SampleBatch) on tag
/// kSample, or by ERROR on kSample for n < 0 or a sampler name the table does not have.
struct SampleRequest {
  std::int64_t n = 0;  ///< items wanted
  /// Sampler name: config::enum_name of a buffer::SamplerKind ("prioritized" | "uniform").
  std::string sampler = config::enum_name(buffer::SamplerKind::kPrioritized);
  std::int64_t request = 0;  ///< echoed in SampleBatch::request, to pair requests and replies
  template <class Archive>
  void serialize(Archive& ar) {
    ar(n, sampler, request);
  }
};

struct Metadata {
  std::int64_t buffer_size = 0;
  std::int64_t capacity = 0;
  std::int64_t submissions = 0;  ///< DATA messages received so far
  std::int64_t items_received = 0;
  std::int64_t modes_found = 0;  ///< distinct modes this manager has seen
  float min_log_reward = 0.f;    ///< over the buffer (0 if empty)
  float max_log_reward = 0.f;
  bool has_baseline = false;
  float baseline = 0.f;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(buffer_size, capacity, submissions, items_received, modes_found, min_log_reward,
       max_log_reward, has_baseline, baseline);
  }
};

/// SAMPLE (manager -> trainer, tag kSample): the reply to GET_SAMPLE. When the rate
/// limiter refuses, granted is false, `reason` says why, and the trainer proceeds with
/// fresh data. Items stored from full payloads come with their trajectories, packed as in
/// Submission: `trajectories.lengths` int32 [n] (0 = this item has no trajectory, e.g. it
/// was submitted without one) and `trajectories.actions` int64 [Σ lengths]; `lengths` is
/// empty when no item of the batch has a trajectory. The states as in Submission: int64
/// rows in `states` or, from a buffer of float32 rows, in `float_states` (state_dtype says).
struct SampleBatch {
  std::int64_t request = 0;  ///< echoes SampleRequest::request
  bool granted = false;
  std::string reason;
  std::int32_t ndim = 0;
  buffer::StateDtype state_dtype = buffer::StateDtype::kInt64;  ///< which vector holds the rows
  std::vector<std::int64_t> states;                             ///< row-major int64 [n, ndim]
  std::vector<float> float_states;                              ///< row-major float32 [n, ndim]
  std::vector<float> log_rewards;                               ///< [n]
  buffer::PackedTrajectories trajectories;                      ///< [n] (lengths 0 allowed) or none
  std::int64_t size() const { return static_cast<std::int64_t>(log_rewards.size()); }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(request, granted, reason, ndim, state_dtype, states, float_states, log_rewards,
       trajectories);
  }
};

/// TRAINER_EXIT (trainer -> manager): the trainer sends nothing more.
struct TrainerExit {
  std::int64_t submissions = 0;  ///< DATA messages this trainer sent, for a consistency check
  std::int64_t items = 0;        ///< items in those DATA messages
  template <class Archive>
  void serialize(Archive& ar) {
    ar(submissions, items);
  }
};

/// CHECKPOINT (trainer -> manager, tag kData): the trainers agreed on a checkpoint after
/// iteration `iteration` (docs/checkpoints.md "Checkpoint and resume"); this trainer has drained
/// its submissions (no SCORE outstanding, every DATA send complete) and sends nothing more until
/// CHECKPOINT_DONE. The counts are the trainer's so far (as in TRAINER_EXIT): the manager
/// checks it has processed every DATA of this trainer before it saves its state.
struct CheckpointRequest {
  std::int64_t iteration = 0;    ///< iterations completed (the checkpoint's directory)
  std::int64_t submissions = 0;  ///< DATA messages this trainer sent so far
  std::int64_t items = 0;        ///< items in those DATA messages
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration, submissions, items);
  }
};

/// CHECKPOINT_DONE (manager -> trainer, tag kCheckpoint): once CHECKPOINT arrived from every
/// trainer it serves, the manager wrote its rank file (runtime/checkpoint/store.h, atomic);
/// its manifest entry (size and CRC-32 of rank_<manager rank>.pt), and how many
/// BASELINE_PUSHes it had sent this trainer by then (the trainer drains its feed up to
/// there, so the saved states agree; 0 without a feed).
struct CheckpointDone {
  std::int64_t iteration = 0;
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;
  std::int64_t baseline_pushes = 0;
  /// With a coordinator: its rank file's entry (coordinator_rank -1 without one).
  std::int32_t coordinator_rank = -1;
  std::uint64_t coordinator_bytes = 0;
  std::uint32_t coordinator_crc32 = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration, bytes, crc32, baseline_pushes, coordinator_rank, coordinator_bytes,
       coordinator_crc32);
  }
};

/// MANAGER_CHECKPOINT (manager -> coordinator, tag kControl): every trainer of this manager
/// asked for the checkpoint after `iteration` (CHECKPOINT); the manager has sent everything
/// it will report before it (MODE_REPORT, BASELINE_REPORT) and sends nothing more until
/// COORDINATOR_CHECKPOINT_DONE.
struct ManagerCheckpoint {
  std::int64_t iteration = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration);
  }
};

/// COORDINATOR_CHECKPOINT_DONE (coordinator -> manager, tag kCheckpoint): once
/// MANAGER_CHECKPOINT arrived from every running manager, the coordinator wrote its rank
/// file; its size and CRC-32, and how many BASELINE_SYNCs it had sent this manager by then
/// (the manager receives them before saving its own state, so both states agree).
struct CoordinatorCheckpointDone {
  std::int64_t iteration = 0;
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;
  std::int64_t baseline_syncs = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration, bytes, crc32, baseline_syncs);
  }
};

/// MODE_REPORT (manager -> coordinator): modes newly found by a manager.
/// `states` is row-major int64 [n, ndim]; `trainer_ranks` [n] names who submitted each. A
/// continuous environment's modes are regions: ndim 1 and one mode id per row
/// (ContinuousEnvironment::mode_hits).
struct ModeReport {
  std::int32_t ndim = 0;
  std::vector<std::int64_t> states;
  std::vector<std::int32_t> trainer_ranks;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(ndim, states, trainer_ranks);
  }
};

/// BASELINE_REPORT (manager -> coordinator): the manager's local baseline.
struct BaselineReport {
  float baseline = 0.f;  ///< log reward
  std::int64_t buffer_size = 0;
  std::string strategy;  ///< "min" | "percentile" | "ema"
  template <class Archive>
  void serialize(Archive& ar) {
    ar(baseline, buffer_size, strategy);
  }
};

/// BASELINE_SYNC (coordinator -> manager, tag kData): the global baseline to adopt.
struct BaselineSync {
  float baseline = 0.f;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(baseline);
  }
};

/// BASELINE_PUSH (manager -> trainer, tag kBaseline): the baseline in force at the
/// manager, pushed to trainers that asked with Submission::want_baseline.
struct BaselinePush {
  float baseline = 0.f;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(baseline);
  }
};

/// BASELINE_FEED_END (manager -> trainer, tag kBaseline): the last message of a
/// trainer's baseline feed, sent after its TRAINER_EXIT arrived; `updates` =
/// BASELINE_PUSHes sent to it.
struct BaselineFeedEnd {
  std::int64_t updates = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(updates);
  }
};

/// SPAWN_METRIC (trainer -> every other trainer of its agent group, tag kSpawn; spawn.mode
/// async, roles/trainer/spawn/selective_async.h): the sender's local metric (higher is better) at
/// the decision point `iteration` (a multiple of train.average_every). Sent without
/// blocking; the receivers decide once every member's metric of that point has arrived.
struct SpawnMetricReport {
  std::int64_t iteration = 0;    ///< the decision point
  std::int32_t group_rank = -1;  ///< the sender's rank in the agent group
  double metric = 0.0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration, group_rank, metric);
  }
};

/// SPAWN_PARAMS (donor trainer -> replaced trainer of its agent group, tag kSpawn): the
/// donor's flat parameters, float32 [sum of the parameters' numels] in the model's
/// parameter order, as they were after its iteration `sent_iteration` (>= `decision`),
/// for the replacement decided at the decision point `decision`. The replacer applies the
/// weighted combination at its next iteration boundary once every donor's has arrived.
struct SpawnParameters {
  std::int64_t decision = 0;
  std::int64_t sent_iteration = 0;
  std::int32_t group_rank = -1;  ///< the donor's rank in the agent group
  std::vector<float> parameters;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(decision, sent_iteration, group_rank, parameters);
  }
};

/// GET_POPULATION_STATS (trainer -> coordinator, tag kControl).
struct PopulationStatsRequest {
  std::int64_t iteration = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(iteration);
  }
};

/// POPULATION_STATS (coordinator -> trainer, tag kPopulation).
struct PopulationStats {
  std::int64_t modes_found = 0;   ///< distinct modes over all managers
  std::int64_t mode_reports = 0;  ///< MODE_REPORT messages so far
  std::int32_t managers_running = 0;
  bool has_baseline = false;
  float global_baseline = 0.f;
  std::vector<std::int32_t> manager_ranks;     ///< aligned with modes_by_manager
  std::vector<std::int64_t> modes_by_manager;  ///< first discoveries credited to each
  template <class Archive>
  void serialize(Archive& ar) {
    ar(modes_found, mode_reports, managers_running, has_baseline, global_baseline, manager_ranks,
       modes_by_manager);
  }
};

/// MANAGER_EXIT (manager -> coordinator, tag kControl): all of the manager's trainers
/// have exited.
struct ManagerExit {
  std::int64_t submissions = 0;
  std::int64_t items_received = 0;
  std::int64_t modes_found = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(submissions, items_received, modes_found);
  }
};

/// MANAGER_ALIVE (manager -> coordinator, tag kControl): the manager's counts so far, sent
/// when it has sent the coordinator nothing for a quarter of transport.timeout_s, so that
/// the coordinator's bounded wait tells a quiet manager from a stopped one (README
/// "Shutdown and failures"). The coordinator only notes it.
struct ManagerAlive {
  std::int64_t submissions = 0;
  std::int64_t items_received = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(submissions, items_received);
  }
};

/// MANAGER_EXIT_ACK (coordinator -> manager, tag kData): the answer to MANAGER_EXIT,
/// sent after any BASELINE_SYNC to that manager; nothing follows it. No fields.
struct ManagerExitAck {
  template <class Archive>
  void serialize(Archive&) {}
};

/// ERROR (any -> any): the receiver refused a message; sent on the tag where the
/// sender waits for the reply it expected (protocol::error_tag, message_table.h).
struct ErrorReply {
  std::int32_t from_rank = -1;     ///< who refused
  std::uint16_t refused_type = 0;  ///< MessageType value of the refused message (0 if unreadable)
  std::int32_t tag = 0;            ///< tag the refused message arrived on
  std::string what;                ///< why
  template <class Archive>
  void serialize(Archive& ar) {
    ar(from_rank, refused_type, tag, what);
  }
};

}  // namespace gfn::protocol
