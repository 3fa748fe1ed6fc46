#pragma once
// YAML `spawn:` (docs/configuration.md; docs/spawn.md): the spawn policy of the agent
// groups (decision.h, donor_pull.h, strategy.h; roles/trainer/spawn/ runs it; torchgfn
// tutorials/examples/multinode/spawn_policy.py AverageAllPolicy /
// AsyncSelectiveAveragingPolicy). The defaults keep plain averaging. Plain value types,
// no LibTorch.

#include <cstdint>
#include <limits>

#include "runtime/config/enum_names.h"
#include "runtime/config/int_range.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::dist::spawn {

/// spawn.policy: what an agent group does every train.average_every iterations.
enum class SpawnPolicy {
  kAverageAll,  ///< average every member (train.average; AverageAllPolicy)
  kSelective,   ///< replace the worst agents by a combination of the others
  kDonorPull,   ///< a dying agent pulls k random donors' parameters (MPI one-sided windows)
};
inline constexpr config::EnumName<SpawnPolicy> kSpawnPolicyNames[] = {
    {SpawnPolicy::kAverageAll, "average_all"},
    {SpawnPolicy::kSelective, "selective"},
    {SpawnPolicy::kDonorPull, "donor_pull"}};

/// spawn.replacement_mode (donor_pull): when an agent decides it is dying (donor_pull.h).
enum class SpawnReplacementMode {
  kAge,         ///< its age reached its maximum age, drawn from spawn.age_range
  kThreshold,   ///< its metric is below spawn.threshold
  kWorstRatio,  ///< its metric is among the spawn.replacement_ratio worst of the group
};
inline constexpr config::EnumName<SpawnReplacementMode> kSpawnReplacementModeNames[] = {
    {SpawnReplacementMode::kAge, "age"},
    {SpawnReplacementMode::kThreshold, "threshold"},
    {SpawnReplacementMode::kWorstRatio, "worst_ratio"}};

/// spawn.strategy: what a replaced agent becomes (decision.h).
enum class SpawnStrategy {
  kMean,          ///< the plain mean of the donors (every agent that is not replaced)
  kWeightedMean,  ///< the donors weighted by their metrics (better donors weigh more)
  kBestOnly,      ///< a copy of the best agent
  kResetWeights,  ///< a fresh initialisation (no donors)
};
inline constexpr config::EnumName<SpawnStrategy> kSpawnStrategyNames[] = {
    {SpawnStrategy::kMean, "mean"},
    {SpawnStrategy::kWeightedMean, "weighted_mean"},
    {SpawnStrategy::kBestOnly, "best_only"},
    {SpawnStrategy::kResetWeights, "reset_weights"}};

/// spawn.mode: how a selective decision point runs.
enum class SpawnMode {
  kSync,   ///< every member waits: all-gather of the metrics, all-reduce of the donors
  kAsync,  ///< no barrier: SPAWN_METRIC / SPAWN_PARAMS point to point, applied when arrived
};
inline constexpr config::EnumName<SpawnMode> kSpawnModeNames[] = {{SpawnMode::kSync, "sync"},
                                                                  {SpawnMode::kAsync, "async"}};

/// spawn.metric: each agent's local metric, higher is better.
enum class SpawnMetric {
  kScore,       ///< the score of its manager's latest SCORE reply (needs a buffer manager)
  kNegLoss,     ///< minus its latest training loss
  kModesFound,  ///< modes it has sampled so far
};
inline constexpr config::EnumName<SpawnMetric> kSpawnMetricNames[] = {
    {SpawnMetric::kScore, "score"},
    {SpawnMetric::kNegLoss, "neg_loss"},
    {SpawnMetric::kModesFound, "modes_found"}};

inline constexpr const auto& enum_names(SpawnPolicy) { return kSpawnPolicyNames; }
inline constexpr const auto& enum_names(SpawnStrategy) { return kSpawnStrategyNames; }
inline constexpr const auto& enum_names(SpawnMetric) { return kSpawnMetricNames; }
inline constexpr const auto& enum_names(SpawnMode) { return kSpawnModeNames; }
inline constexpr const auto& enum_names(SpawnReplacementMode) { return kSpawnReplacementModeNames; }

struct SpawnOptions {
  SpawnPolicy policy = SpawnPolicy::kAverageAll;
  /// selective: sync (every member waits at the decision point) | async (no barrier;
  /// replacers apply the donors' parameters at a later iteration boundary).
  SpawnMode mode = SpawnMode::kSync;
  /// Share (0, 1] of the agent group replaced at a decision: max(1, floor(n * ratio))
  /// agents, at most n - 1 (one agent at least stays a donor).
  double replacement_ratio = 0.2;
  SpawnStrategy strategy = SpawnStrategy::kMean;
  /// [0, 1]: a replaced agent becomes momentum * its own weights + (1 - momentum) * the
  /// strategy's result (0: the result alone).
  double momentum = 0.0;
  /// Replace only when some agent's metric is below this (+inf, the default: always).
  double threshold = std::numeric_limits<double>::infinity();
  /// Iterations after a replacement during which no other replacement happens (>= 0).
  std::int64_t cooldown = 0;
  SpawnMetric metric = SpawnMetric::kScore;
  /// Per-agent exploration (strategy.h): each trainer draws its epsilon, temperature and
  /// noisy sigma_0 from normal distributions around train.epsilon, train.temperature and
  /// model.noisy_std_init with the standard deviations below (clamped; seeded by
  /// train.seed + rank), and draws again when it is replaced. Any spawn.policy.
  bool random_strategies = false;
  double epsilon_std = 0.05;         ///< >= 0; drawn epsilon clamped to [0, 1]
  double temperature_std = 0.5;      ///< >= 0; drawn temperature clamped to [0.05, 20]
  double noisy_std_init_std = 0.05;  ///< >= 0; drawn sigma_0 clamped to [1e-3, 10]
  /// donor_pull: when an agent is dying.
  SpawnReplacementMode replacement_mode = SpawnReplacementMode::kAge;
  /// donor_pull, age: each agent's maximum age (iterations) drawn uniformly from
  /// [min, max] (1 <= min <= max), at start and after each respawn.
  config::IntRange age_range{100, 400};
  /// donor_pull: donors pulled by a dying agent (>= 1; at most the group size - 1).
  std::int64_t num_donors = 2;
};

/// The `spawn:` keys (options.cc).
const config::Fields<SpawnOptions>& spawn_fields();

}  // namespace gfn::dist::spawn
