#pragma once
// Decisions of the donor_pull spawn policy (spawn.policy donor_pull; README "Spawn
// policies") as pure functions: when an agent decides it is dying, and which donors it pulls
// from. No communication (the pull itself: roles/trainer/donor_puller.h over
// transport/parameter_window.h); deterministic for a given seed; thread-safe (no state).
//
// Source: torchgfn tutorials/examples/multinode/spawn_policy.py
// (AsyncSelectiveAveragingPolicympi4py and its V2: is_agent_dying, _get_donors: k random ranks
// other than itself; the dying agent averages them without their participation), with:
//  - replacement_mode age (a maximum age drawn per agent from age_range, redrawn after each
//    respawn) and worst_ratio (the agent reads every member's exposed metric and is dying
//    if it is among the replacement_count(n, ratio) worst, ordered as decide() orders them)
//    besides torchgfn's threshold (metric < threshold);
//  - cooldown (threshold and worst_ratio): no respawn within `cooldown` iterations of the
//    previous one (the age mode has its own clock).

#include <cstdint>
#include <vector>

#include "runtime/distributed/spawn/options.h"

namespace gfn::dist::spawn {

/// Draw number `draw` (0 at start, k after the k-th respawn) of an agent's maximum age,
/// uniform in [options.age_range.min, options.age_range.max], from `seed` (train.seed +
/// rank). std::invalid_argument for an empty range or min < 1.
std::int64_t draw_max_age(const SpawnOptions& options, std::uint64_t seed, std::int64_t draw);

/// What a donor_pull agent knows when it asks whether it is dying.
struct DyingInput {
  std::int64_t iteration = 0;         ///< the current iteration
  std::int64_t last_respawn = 0;      ///< iteration of its last respawn (0: the start)
  std::int64_t max_age = 0;           ///< age mode: its current draw_max_age
  double metric = 0.0;                ///< its local metric (higher is better)
  std::vector<double> group_metrics;  ///< worst_ratio: every member's metric, by group rank
  int group_rank = 0;                 ///< its rank in the agent group
};

/// True if the agent is dying under options.replacement_mode:
///  - age: iteration - last_respawn >= max_age;
///  - threshold: metric < options.threshold (NaN counts as dying), outside the cooldown;
///  - worst_ratio: group_rank is among the replacement_count(n, replacement_ratio) worst of
///    group_metrics (ties: lower group rank first, NaN worst), outside the cooldown.
/// A group of one is never dying. std::invalid_argument if worst_ratio has
/// group_metrics.size() <= group_rank.
bool is_dying(const DyingInput& in, int group_size, const SpawnOptions& options);

/// `k` distinct group ranks other than `self`, drawn uniformly from [0, n) (k capped at
/// n - 1), ascending; draw number `draw` of the agent seeded with `seed`. Empty for n <= 1.
std::vector<int> draw_donors(int n, int self, std::int64_t k, std::uint64_t seed,
                             std::int64_t draw);

}  // namespace gfn::dist::spawn
