#pragma once
// YAML `buffer:` (docs/configuration.md; docs/protocol.md): the replay-buffer managers and
// how trainers talk to them: what a manager keeps and how it scores (buffer_manager.h),
// how a trainer submits (roles/trainer/submitter.h), the baselines the coordinator
// aggregates (roles/coordinator/coordinator.h), remote sampling and the rate limiter.
// The defaults keep the simplest behaviour. Plain value types, no LibTorch.

#include <cstdint>

#include "runtime/buffer/options.h"
#include "runtime/config/enum_names.h"
#include "transport/transport.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::roles {

/// buffer.submit_mode: how a trainer submits to its manager (roles/trainer/submitter.h).
enum class SubmitMode { kSync, kAsync, kFireAndForget };
inline constexpr config::EnumName<SubmitMode> kSubmitModeNames[] = {
    {SubmitMode::kSync, "sync"},
    {SubmitMode::kAsync, "async"},
    {SubmitMode::kFireAndForget, "fire_and_forget"}};

/// buffer.payload: what a submission carries (roles/trainer/payload.h).
enum class Payload {
  kFull,         ///< states, rewards and trajectories: the manager may store them
  kScoringOnly,  ///< states and rewards, for the SCORE only
};
inline constexpr config::EnumName<Payload> kPayloadNames[] = {
    {Payload::kFull, "full"}, {Payload::kScoringOnly, "scoring_only"}};

/// buffer.remote_paths: how a trainer trains on a replayed item that came with its trajectory.
enum class RemotePaths {
  kSubmitted,  ///< the submitted trajectory, replayed in the environment
  /// a fresh backward trajectory sampled with PB from its terminating state (as items without
  /// a trajectory always are): the path is the trainer's current PB's, not the submitter's
  kBackward,
};
inline constexpr config::EnumName<RemotePaths> kRemotePathsNames[] = {
    {RemotePaths::kSubmitted, "submitted"}, {RemotePaths::kBackward, "backward"}};

/// buffer.baseline_aggregate: how the coordinator combines the managers' baselines
/// (roles/coordinator/coordinator.h).
enum class BaselineAggregate { kMin, kMean, kMax };
inline constexpr config::EnumName<BaselineAggregate> kBaselineAggregateNames[] = {
    {BaselineAggregate::kMin, "min"},
    {BaselineAggregate::kMean, "mean"},
    {BaselineAggregate::kMax, "max"}};

inline constexpr const auto& enum_names(SubmitMode) { return kSubmitModeNames; }
inline constexpr const auto& enum_names(Payload) { return kPayloadNames; }
inline constexpr const auto& enum_names(RemotePaths) { return kRemotePathsNames; }
inline constexpr const auto& enum_names(BaselineAggregate) { return kBaselineAggregateNames; }

struct BufferOptions {
  std::int64_t capacity = 10000;  ///< highest-reward items kept
  int remote_buffer_freq = 1;     ///< submit to the manager every N iterations
  SubmitMode submit_mode = SubmitMode::kSync;
  Payload payload = Payload::kFull;
  bool store = true;               ///< the manager keeps submitted items
  bool baseline_filter = false;    ///< trainers send only items >= the manager's baseline
  int baseline_refresh_after = 5;  ///< fully-filtered batches before sending anyway
  buffer::BaselineStrategy baseline = buffer::BaselineStrategy::kMin;
  double baseline_percentile = 10.0;  ///< [0, 100], for "percentile"
  double baseline_ema_decay = 0.9;    ///< [0, 1), for "ema" (of incoming batch minima)
  BaselineAggregate baseline_aggregate = BaselineAggregate::kMin;
  bool baseline_sync = true;  ///< coordinator sends BASELINE_SYNC to every manager
  /// BASELINE_REPORT throttle, in DATA messages received by the manager: at most one
  /// report per this many submissions (>= 1), and only when the local baseline moved by
  /// more than baseline_tolerance (the final one before MANAGER_EXIT goes out on any change).
  int baseline_report_interval = 10;
  /// Log-reward change below which a baseline counts as unchanged (>= 0): managers'
  /// BASELINE_REPORTs and pushes to fire-and-forget trainers, the coordinator's BASELINE_SYNCs.
  double baseline_tolerance = 0.01;
  double score_w_retained = 1.0;  ///< ModesScorer weights (runtime/buffer/scorer.h)
  double score_w_novelty = 1.0;
  double score_w_reward = 0.0;
  double score_w_mode_bonus = 10.0;
  double score_p_norm = 2.0;  ///< Minkowski p of the novelty distances
  buffer::NoveltyMethod score_novelty = buffer::NoveltyMethod::kIndex;
  std::int64_t score_cdist_max_bytes = std::int64_t{256} << 20;  ///< brute_force block cap
  double score_ema_decay = 0.9;                                  ///< [0, 1)
  double drain_timeout_s = 60.0;  ///< drain bound of pending sends/SCOREs before TRAINER_EXIT
  transport::ReceiveWait receive_wait = transport::ReceiveWait::kSpin;
  int population_stats_every = 0;       ///< iterations between GET_POPULATION_STATS (0 = never)
  double remote_sample_fraction = 0.0;  ///< [0, 1]: share of the local batch asked from the manager
  /// Replayed items a trainer asks per iteration on top of its share of train.batch_size
  /// (then all sampled forward); 0: remote_sample_fraction decides. Per agent, so more agents
  /// train on more replayed items for the same sampled trajectories.
  std::int64_t remote_batch_size = 0;
  buffer::SamplerKind remote_sampler = buffer::SamplerKind::kPrioritized;  ///< named in GET_SAMPLE
  double priority_exponent = 1.0;  ///< prioritized: draws ∝ R^priority_exponent (> 0)
  double rank_weight = 0.01;       ///< rank: draws ∝ 1 / (rank_weight · N + rank) (> 0)
  RemotePaths remote_paths = RemotePaths::kSubmitted;
  double remote_sample_wait_s = 0.0;    ///< retry a refused request this long, then go fresh
  double samples_per_insert = 0.0;      ///< rate limiter (Reverb); 0 = no ratio
  std::int64_t min_size_to_sample = 1;  ///< rate limiter: items before sampling is allowed
  double rate_error_buffer = 1e9;       ///< rate limiter: allowed deviation (items)
};

/// The `buffer:` keys (buffer_options.cc).
const config::Fields<BufferOptions>& buffer_fields();

}  // namespace gfn::roles
