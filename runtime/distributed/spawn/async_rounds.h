#pragma once
// Bookkeeping of the asynchronous selective spawn policy (spawn.mode async; README "Spawn
// policies"), as pure data structures: no communication, no LibTorch. The messages that
// fill them travel in roles/trainer/async_spawner.h.
//
// MetricRounds collects, per decision point, every agent's metric as the SPAWN_METRIC
// messages arrive (in any order across senders) and hands out the decision points in
// iteration order once complete, so that every member takes the same decisions in the same
// order (decide() with the same cooldown state). weighted_sum combines the donors'
// parameters as they arrived.
//
// Source: torchgfn tutorials/examples/multinode/spawn_policy.py (AsyncSelectiveAveragingPolicy:
// metrics sent without blocking, the donors' parameters streamed to the replacers); here
// without its background thread: the trainer polls at its iteration boundaries.
//
// Not thread-safe (one trainer thread). Errors: std::invalid_argument as documented.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace gfn::dist::spawn {

/// One complete decision point: its iteration and every group rank's metric.
struct MetricRound {
  std::int64_t iteration = 0;
  std::vector<double> metrics;  ///< per group rank
};

class MetricRounds {
 public:
  /// Rounds of a group of `group_size` (>= 1) agents; std::invalid_argument otherwise.
  explicit MetricRounds(int group_size);

  /// Records group rank `group_rank`'s metric of the decision point `iteration`.
  /// std::invalid_argument for a rank outside [0, group_size), a second metric of the same
  /// rank and point, or a point at or before one already handed out (a late message).
  /// O(log rounds).
  void add(std::int64_t iteration, int group_rank, double metric);

  /// The oldest pending decision point, removed, if every rank's metric of it is in; else
  /// nullopt (also when a later point is complete: decisions stay in iteration order).
  std::optional<MetricRound> pop_complete();

  /// True when no decision point has a metric waiting.
  bool empty() const { return pending_.empty(); }
  /// True when a decision point at or before `iteration` has a metric waiting (later ones
  /// may already hold the metrics of faster members). O(1).
  bool pending_through(std::int64_t iteration) const {
    return !pending_.empty() && pending_.begin()->first <= iteration;
  }

 private:
  struct Pending {
    std::vector<double> metrics;
    std::vector<bool> seen;
    int count = 0;
  };
  int group_size_;
  std::int64_t last_popped_ = -1;  ///< iteration of the last handed-out point, -1: none
  std::map<std::int64_t, Pending> pending_;
};

/// out[i] = sum over k of weights[k] * sources[k][i] for i < n, accumulated in double in
/// the order of `sources`, rounded to float32 once. std::invalid_argument if the sizes of
/// sources and weights differ. O(n * sources).
void weighted_sum(const std::vector<const float*>& sources, const std::vector<double>& weights,
                  std::int64_t n, float* out);

}  // namespace gfn::dist::spawn
