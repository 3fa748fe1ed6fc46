#pragma once
// Spawn-policy decisions as pure functions (docs/spawn.md "Spawn policies"): given every agent's
// local metric (higher is better), which agents of an agent group are replaced, by which
// donors, with which weights. No communication and no LibTorch: every member of a group
// takes the same decision from the same gathered metrics (runtime/distributed/spawn/
// combine.h applies it); thread-safe (no state). Cost: O(n log n) for n agents.
//
// Source: torchgfn tutorials/examples/multinode/spawn_policy.py (AsyncSelectiveAveragingPolicy:
// _determine_ranks_for_averaging, _compute_averaging_weights, the threshold / cooldown gate),
// with these deliberate differences, each so that the decision is well defined for any
// metric and identical on every rank:
//  - ties: agents are ordered by (metric, group rank); the worst are replaced first, and
//    among equal metrics the lower group rank is replaced first (torch.argsort leaves
//    ties unordered). A NaN metric counts as the worst (-inf).
//  - at most n - 1 agents are replaced (torchgfn replaces max(1, int(n * ratio)), which
//    leaves no donor for n = 1); a group of one agent never replaces.
//  - weighted_mean: donor i weighs (m_i - m_min), m_min the smallest finite metric of the
//    group, normalised to sum 1, so better donors weigh more and negative metrics
//    (neg_loss) work; equal weights when every donor's is 0 (all tied). torchgfn uses
//    1 / (m_i + 1e-8), which weighs the worse donors more and is undefined for m_i <= 0.
//  - best_only: the donor with the highest metric (ties: lower group rank).
//  - cooldown applies whatever the threshold (torchgfn applies it only with a threshold).
//  - momentum (validated but unused in torchgfn): a replaced agent becomes
//    momentum * own + (1 - momentum) * combination (blend()).

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/distributed/spawn/options.h"
#include "runtime/gfn/flat_parameters.h"

namespace gfn::dist::spawn {

/// What an agent group does at one decision point.
struct Decision {
  /// True if some agents are replaced; false: nobody changes (see `skipped`).
  bool replace = false;
  std::vector<int> replaced;  ///< group ranks of the replaced agents, ascending
  std::vector<int> donors;    ///< group ranks of the donors, ascending (empty: reset_weights)
  /// Donor weight of every group rank (size n; 0 for a non-donor; the donors' sum to 1).
  /// All zero for reset_weights or when nothing is replaced.
  std::vector<double> weights;
  /// Why nothing is replaced: "single agent", "cooldown", "threshold" ("" when replace).
  std::string skipped;
};

/// Number of agents replaced in a group of n: max(1, floor(n * ratio)) capped at n - 1
/// (0 for n <= 1). ratio in (0, 1]; floor tolerates the rounding of n * ratio (1e-9).
int replacement_count(int n, double ratio);

/// The decision at iteration `iteration` for the group whose agent of group rank r has
/// metric `metrics[r]` (higher is better; NaN = worst), `last_replacement` being the
/// iteration of the group's previous replacement (< 0: none yet). Uses
/// options.replacement_ratio, strategy, threshold and cooldown (policy and metric are
/// the caller's). Throws std::invalid_argument for an empty `metrics` or a ratio outside
/// (0, 1].
Decision decide(const std::vector<double>& metrics, std::int64_t iteration,
                std::int64_t last_replacement, const SpawnOptions& options);

/// Donor weights of group ranks `donors` (ascending) for `strategy`, from `metrics`:
/// size metrics.size(), 0 outside the donors, the donors' sum 1 (mean: 1 / |donors|;
/// weighted_mean: see the file comment; best_only: 1 for the best donor). All zero for
/// reset_weights or no donors.
std::vector<double> donor_weights(const std::vector<double>& metrics,
                                  const std::vector<int>& donors, SpawnStrategy strategy);

/// The blend of a replaced agent with its combination (runtime/gfn/flat_parameters.h).
using core::blend;

}  // namespace gfn::dist::spawn
