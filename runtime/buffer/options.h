#pragma once
// The replay table's enumerated options and the trainer-local replay buffer's section,
// each name written once here (docs/configuration.md): buffer.baseline, buffer.remote_sampler,
// buffer.score_novelty (the buffer-manager's options, roles/buffer_manager/buffer_options.h)
// and the `replay:` section (torchgfn ReplayBuffer / NormBasedDiversePrioritizedReplayBuffer
// in train_hypergrid.py). Plain value types, no LibTorch.

#include <cstdint>

#include "runtime/config/enum_names.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::buffer {

/// buffer.baseline: a manager's reward baseline (baseline.h documents each).
enum class BaselineStrategy { kMin, kPercentile, kEma };
inline constexpr config::EnumName<BaselineStrategy> kBaselineStrategyNames[] = {
    {BaselineStrategy::kMin, "min"},
    {BaselineStrategy::kPercentile, "percentile"},
    {BaselineStrategy::kEma, "ema"}};

/// A sampler of a replay table (table.h): buffer.remote_sampler, named on the wire in
/// GET_SAMPLE (roles/protocol/messages.h SampleRequest::sampler).
enum class SamplerKind {
  kPrioritized,  ///< proportional to exp(log reward)
  kUniform,
  kRank,  ///< proportional to 1 / (k N + rank of the log reward) (selectors/rank.h)
};
inline constexpr config::EnumName<SamplerKind> kSamplerKindNames[] = {
    {SamplerKind::kPrioritized, "prioritized"},
    {SamplerKind::kUniform, "uniform"},
    {SamplerKind::kRank, "rank"}};

/// The element type of a replay table's state rows (table.h), fixed by its first insert or
/// by TableOptions::state_dtype, and of the states of DATA and SAMPLE payloads
/// (roles/protocol/messages.h Submission::state_dtype; the wire value is the enumerator's).
enum class StateDtype : std::uint8_t {
  kInt64 = 0,    ///< discrete environments: int64 [n, ndim]
  kFloat32 = 1,  ///< continuous environments (Box): float32 [n, ndim], finite values
};
inline constexpr config::EnumName<StateDtype> kStateDtypeNames[] = {
    {StateDtype::kInt64, "int64"}, {StateDtype::kFloat32, "float32"}};

/// buffer.score_novelty: how the ModesScorer's novelty term is computed (scorer.h).
enum class NoveltyMethod {
  kIndex,       ///< nearest-neighbour index (state_index.h)
  kBruteForce,  ///< all distances (the reference)
};
inline constexpr config::EnumName<NoveltyMethod> kNoveltyMethodNames[] = {
    {NoveltyMethod::kIndex, "index"}, {NoveltyMethod::kBruteForce, "brute_force"}};

/// replay.kind: the trainer-local replay buffer (table.h local_table_options).
enum class ReplayKind { kNone, kUniform, kPrioritized, kDiverse };
inline constexpr config::EnumName<ReplayKind> kReplayKindNames[] = {
    {ReplayKind::kNone, "none"},
    {ReplayKind::kUniform, "uniform"},
    {ReplayKind::kPrioritized, "prioritized"},
    {ReplayKind::kDiverse, "diverse"}};

inline constexpr const auto& enum_names(BaselineStrategy) { return kBaselineStrategyNames; }
inline constexpr const auto& enum_names(SamplerKind) { return kSamplerKindNames; }
inline constexpr const auto& enum_names(NoveltyMethod) { return kNoveltyMethodNames; }
inline constexpr const auto& enum_names(ReplayKind) { return kReplayKindNames; }
inline constexpr const auto& enum_names(StateDtype) { return kStateDtypeNames; }

/// YAML `replay:`: the trainer-local replay buffer, a replay table (table.h
/// local_table_options) the Learner samples from (runtime/gfn/learner.h).
struct ReplayOptions {
  ReplayKind kind = ReplayKind::kNone;
  std::int64_t capacity = 1000;  ///< trajectories kept
  double fraction = 1.0;         ///< [0, 1]: share of the batch drawn from the buffer once ready
  double cutoff = 0.0;      ///< diverse: min p-norm distance to the batch / buffer (< 0: no filter)
  double p_norm = 1.0;      ///< diverse: p of the Minkowski distance (> 0)
  std::int64_t warmup = 0;  ///< trajectories the buffer must hold before replay starts
};

/// The `replay:` keys (options.cc).
const config::Fields<ReplayOptions>& replay_fields();

}  // namespace gfn::buffer
