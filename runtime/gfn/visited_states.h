#pragma once
// The terminating states visited during training, as torchgfn's train_hypergrid.py keeps
// them for its `l1_dist` (gfn/utils/training.py `validate` with visited_terminating_states):
// every iteration appends the terminating states of the freshly SAMPLED trajectories
// (before any replay-buffer mixing; off-policy exploration included), and validation
// builds the empirical distribution of the LAST `window` of them (torchgfn:
// visited_terminating_states[-validation_samples:], validation_samples = 200,000 by
// default), so early, untrained samples count while they are in the window.
//
// Bounded memory: a ring of the last `window` terminating-state indices (8 bytes each) and
// a count per terminating state (Environment::terminating_state_indices), so the
// distribution costs O(T) whatever the number of states added. Enumerable environments
// only. Not thread-safe (one owner).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace gfn::core {

class Environment;

class VisitedTerminatingStates {
 public:
  /// Keeps a reference to env. Throws std::domain_error if env is not enumerable,
  /// std::invalid_argument if window < 1.
  VisitedTerminatingStates(const Environment& env, std::int64_t window);

  /// Appends terminating states int64 [B, state_dim] (B may be 0), oldest first; once
  /// more than window() states were added, the oldest ones leave the window. Throws
  /// std::invalid_argument for a wrong shape or dtype (env.check_states).
  void add(const at::Tensor& terminating_states);

  std::int64_t window() const { return static_cast<std::int64_t>(ring_.size()); }
  /// States currently in the window: min(total_added(), window()).
  std::int64_t size() const { return size_; }
  /// States added since construction.
  std::int64_t total_added() const { return total_; }
  /// Checkpoints: the window's terminating-state indices oldest first, int64 [size()];
  /// restore() of it (after total_added() earlier additions) rebuilds an equal tracker.
  /// Throws std::invalid_argument in restore for more indices than the window or an index
  /// outside [0, T).
  at::Tensor window_indices() const;
  void restore(const at::Tensor& indices, std::int64_t total_added);

  /// Empirical distribution of the states in the window, float64 [n_terminating_states]
  /// (torchgfn get_terminating_state_dist_pmf). Throws std::logic_error when empty.
  at::Tensor distribution() const;

 private:
  const Environment* env_;
  std::vector<std::int64_t> ring_;    ///< terminating indices; ring_[head_] is the oldest when full
  std::vector<std::int64_t> counts_;  ///< [T]: occurrences in the window
  std::int64_t head_ = 0;             ///< next write position
  std::int64_t size_ = 0;
  std::int64_t total_ = 0;
};

}  // namespace gfn::core
