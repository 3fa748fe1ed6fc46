#pragma once
// Reward-prioritized replay buffer of terminating states, as kept by a buffer
// manager (DESIGN.md section 3). It retains the `capacity` highest-reward items
// seen so far: an insert into a full buffer evicts the lowest-reward item if the
// new one is better, and is refused otherwise. Follows the prioritized mode of
// torchgfn's ReplayBuffer (gfn/containers/replay_buffer.py). An item may carry its
// trajectory as a forward action sequence (exit last; full payloads, issue 7), stored
// and sampled with it; items added without one have an empty action sequence.
//
// Lazy sorting: inserts go into a min-heap (O(log capacity) per item, so k
// submissions of b items cost O(k b log capacity), never a re-sort of the whole
// buffer per submission as a sorted container would). The sorted view needed by
// percentiles and prioritized sampling is built on first use after an insert
// (O(n log n)) and cached until the next insert.
// The stored states are also kept in a StateIndex (state_index.h), updated on every
// insert and eviction, for the scorer's nearest-neighbour queries.
// Thread-compatible (no internal locking): one thread owns a buffer.

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "runtime/buffer/state_index.h"

namespace gfn::buffer {

struct ReplayItem {
  std::vector<std::int64_t> state;    ///< terminating state, length ndim
  float log_reward = 0.f;             ///< natural log of the reward
  std::vector<std::int64_t> actions;  ///< forward actions, exit last; empty = no trajectory
};

class ReplayBuffer {
 public:
  /// Throws std::invalid_argument if capacity < 1.
  explicit ReplayBuffer(std::int64_t capacity);

  /// Inserts `n = log_rewards.size()` items; `states` is row-major int64 [n, ndim].
  /// Returns how many of them are retained after the insert (evictions of items
  /// of the same batch count against it). Non-finite log rewards are refused.
  /// O(n log capacity). Throws std::invalid_argument if states.size() != n * ndim,
  /// ndim < 1, or ndim differs from earlier inserts.
  std::int64_t add(const std::vector<std::int64_t>& states, const std::vector<float>& log_rewards,
                   int ndim);
  /// As above, with trajectories: `lengths` int32 [n] (actions of item i; 0 = none) and
  /// `actions` int64 [Σ lengths] (the sequences concatenated in item order), or both
  /// empty. Throws std::invalid_argument if lengths.size() != n, a length is negative, or
  /// Σ lengths != actions.size() (the values themselves are the caller's to check,
  /// roles/protocol/trajectory_payload.h).
  std::int64_t add(const std::vector<std::int64_t>& states, const std::vector<float>& log_rewards,
                   int ndim, const std::vector<std::int32_t>& lengths,
                   const std::vector<std::int64_t>& actions);

  /// How many of `log_rewards` an insert would retain, with torchgfn's
  /// ModesReplayBufferManager semantics (scored before the insert): all finite items
  /// if they fit in the free space, else those >= the current lowest retained log
  /// reward (-inf when empty). Does not modify the buffer. O(n).
  std::int64_t would_retain(const std::vector<float>& log_rewards) const;

  std::int64_t size() const { return static_cast<std::int64_t>(heap_.size()); }
  std::int64_t capacity() const { return capacity_; }
  bool full() const { return size() >= capacity_; }
  /// State dimension of the stored items (0 while empty and never inserted into).
  int ndim() const { return ndim_; }
  /// Lowest / highest retained log reward; 0 when empty. min is O(1), max O(n).
  float min_log_reward() const;
  float max_log_reward() const;
  /// The q-th percentile (q in [0, 100], nearest rank on the ascending order) of the
  /// retained log rewards. Uses the lazily sorted view. Throws std::logic_error when
  /// empty, std::invalid_argument for q outside [0, 100].
  float percentile_log_reward(double q) const;
  /// The retained items sorted by decreasing log reward (cached; O(n log n) after an insert).
  const std::vector<ReplayItem>& sorted_view() const;
  /// A copy of sorted_view().
  std::vector<ReplayItem> sorted_items() const { return sorted_view(); }
  /// State of the i-th stored item (heap order, 0 <= i < size()): ndim() int64 values.
  const std::int64_t* state_data(std::int64_t i) const { return heap_[i].state.data(); }
  float log_reward_at(std::int64_t i) const { return heap_[i].log_reward; }
  /// The stored states as a nearest-neighbour index (in step with inserts and evictions).
  const StateIndex& index() const { return index_; }

  /// Draws `n` items with replacement: uniformly, or (prioritized) with probability
  /// proportional to the reward exp(log_reward). Returns an empty vector when the
  /// buffer is empty or n <= 0.
  /// Items keep their action sequences (copies).
  std::vector<ReplayItem> sample(std::int64_t n, bool prioritized, std::mt19937_64& rng) const;

 private:
  struct Entry {
    float log_reward;
    std::uint64_t serial;  ///< insertion order, to tell items of one batch apart
    std::vector<std::int64_t> state;
    std::vector<std::int64_t> actions;
  };
  std::int64_t capacity_;
  int ndim_ = 0;
  std::uint64_t next_serial_ = 0;
  std::vector<Entry> heap_;  ///< min-heap on log_reward
  StateIndex index_;         ///< the states of heap_
  mutable std::vector<ReplayItem> sorted_;
  mutable bool sorted_valid_ = false;
};

}  // namespace gfn::buffer
