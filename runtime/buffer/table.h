#pragma once
// The replay table: one store for both replay buffers of the runtime, after Reverb's
// Table (reverb/cc/table.h) — storage here, policy in item selectors (selectors/):
//   - the buffer manager's store (roles/buffer_manager/manager.h): manager_table_options()
//     — samplers "prioritized" and "uniform" (with replacement), lowest-reward remover
//     keeping the older of equal rewards, non-finite rewards skipped, trajectories optional;
//   - the trainer-local replay buffer (runtime/gfn/learner.h, YAML replay.kind):
//     local_table_options() — uniform: FIFO remover + uniform sampler; prioritized:
//     lowest-reward remover (newer kept on ties) + prioritized sampler; diverse: the same
//     remover + uniform sampler + the diversity insert filter (diversity_filter.h); samples
//     without replacement when n <= size (torchgfn's ReplayBuffer).
//
// Storage (structure of arrays, one row per slot, slots [0, size) used):
//   states       int64   [capacity, ndim]  contiguous, row-major; or, in a table of float32
//                rows (continuous environments), float32 [capacity, ndim] — the table's
//                state dtype is TableOptions::state_dtype, or fixed by its first stored
//                item; an add of the other dtype is refused (std::invalid_argument)
//   log_rewards  float32 [capacity]
//   serials      uint64  [capacity]        insertion order (ItemKey::serial)
//   trajectories packed: lengths int32 [capacity] (0 = none), offsets int64 [capacity] into
//                one int64 action pool; an evicted item's actions become garbage, compacted
//                when garbage outnumbers live actions (amortised O(1) per action).
// Rows are allocated as the table fills (capacity is an upper bound, not a reservation).
//
// An insert (add) of n items: the batch is checked whole (nothing is stored if it is
// malformed); the candidates (finite rewards, see TableOptions::skip_non_finite) go through
// the insert filter if any; then each in batch order is stored in a free slot, or, when the
// table is full, replaces the remover's victim if the remover admits it (else it is
// refused). Every sampler, the remover and the StateIndex (state_index.h; the manager's
// scorer reads it, the diversity filter too) are kept in step with every store and
// eviction. Cost per item: O(ndim + log capacity) plus the index's (hash; k-d tree for a
// new distinct state) and the selectors'.
//
// Checkpoints: save_state / restore_state (table_state.h) carry the items, the samplers'
// order and the generator, so a restored table continues exactly.
//
// Statistics (min / max / percentile of the log rewards) are computed on demand and cached
// until the next change: min / max O(size), a percentile O(size) (nth_element), instead of
// a sorted copy per insert.
//
// Errors: std::invalid_argument for bad options or a malformed batch, std::logic_error for
// a sample from an empty table. Thread-compatible (no locking): one thread owns a table.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "runtime/buffer/insert_filter.h"
#include "runtime/buffer/options.h"
#include "runtime/buffer/packed_trajectories.h"
#include "runtime/buffer/selectors/selector.h"
#include "runtime/buffer/state_index.h"
#include "runtime/buffer/table_state.h"

namespace gfn::buffer {

struct TableOptions {
  std::int64_t capacity = 1000;  ///< >= 1
  /// Samplers (names: kSamplerKindNames); the first is the default of sample().
  std::vector<SamplerKind> samplers = {SamplerKind::kUniform};
  Replacement replacement = Replacement::kAlways;  ///< of every sampler
  /// The prioritized sampler's exponent α (draws ∝ R^α; > 0, selectors/prioritized.h).
  double priority_exponent = 1.0;
  /// The rank sampler's weight k (draws ∝ 1 / (k N + rank); > 0, selectors/rank.h).
  double rank_weight = 0.01;
  /// Remover: "fifo" or "lowest_reward" (ties as below).
  std::string remover = "fifo";
  /// lowest_reward: false = an incoming item must beat the lowest (the manager), true =
  /// equal is enough, the newer is kept (torchgfn's prioritized capacity).
  bool ties_keep_newer = false;
  /// true: non-finite log rewards are skipped (not stored, not an error); false: NaN is an
  /// error (std::invalid_argument), ±inf are stored.
  bool skip_non_finite = true;
  /// true: every item must come with a trajectory (length >= 1).
  bool require_trajectories = false;
  /// Keep a StateIndex of the stored states (the manager's scorer, the diversity filter).
  bool keep_index = true;
  /// Optional insert filter (shared by copies of these options; needs keep_index).
  std::shared_ptr<InsertFilter> filter;
  std::uint64_t seed = 0;  ///< of the sampling generator
  /// The rows' dtype from the start; nullopt = fixed by the first stored item.
  std::optional<StateDtype> state_dtype;
};

/// The buffer manager's store (docs/protocol.md "Replay-buffer protocol"): see the header comment.
/// Samplers prioritized and uniform, plus rank when rank_weight is given.
/// priority_exponent: buffer.priority_exponent (the prioritized sampler draws ∝ R^α);
/// rank_weight: buffer.rank_weight when buffer.remote_sampler is rank (the rank sampler draws
/// ∝ 1 / (k N + rank); it costs O(log N) per insert, so it is kept only when asked for).
TableOptions manager_table_options(std::int64_t capacity, std::uint64_t seed,
                                   double priority_exponent = 1.0,
                                   std::optional<double> rank_weight = std::nullopt);
/// The trainer-local buffer of YAML replay.kind uniform | prioritized | diverse (cutoff and
/// p_norm for diverse). Throws std::invalid_argument for kind none (no buffer: the caller
/// makes none), replay.capacity < 1 or a bad replay.p_norm.
TableOptions local_table_options(ReplayKind kind, std::int64_t capacity, double cutoff,
                                 double p_norm, std::uint64_t seed);

/// What an add did.
struct AddResult {
  std::int64_t accepted = 0;  ///< items that passed the checks and the insert filter
  std::int64_t retained = 0;  ///< items of the batch still stored after the insert
};

/// Items drawn from a table (a copy).
struct TableBatch {
  int ndim = 0;
  StateDtype dtype = StateDtype::kInt64;  ///< the table's: which of the two holds the rows
  std::vector<std::int64_t> states;       ///< row-major [n, ndim] (int64 rows)
  std::vector<float> float_states;        ///< row-major [n, ndim] (float32 rows)
  std::vector<float> log_rewards;         ///< [n]
  /// lengths [n] (0 = an item stored without trajectory), or empty when no drawn item has one.
  PackedTrajectories trajectories;
  std::int64_t size() const { return static_cast<std::int64_t>(log_rewards.size()); }
};

class ReplayTable {
 public:
  /// Throws std::invalid_argument for capacity < 1 (naming replay capacity), no sampler,
  /// a sampler given twice, an unknown remover name, or a filter without keep_index.
  explicit ReplayTable(const TableOptions& options);
  ~ReplayTable();
  ReplayTable(ReplayTable&&) noexcept;
  ReplayTable& operator=(ReplayTable&&) noexcept;

  /// Inserts n = log_rewards.size() items: states row-major int64 [n, ndim], optional
  /// trajectories (empty, or n lengths; layout of packed_trajectories.h, values unchecked
  /// beyond lengths >= 0 and Σ lengths == actions.size()). Throws std::invalid_argument,
  /// storing nothing, if ndim < 1, states.size() != n * ndim, ndim differs from the stored
  /// items', the trajectories are inconsistent or missing where required, or (not
  /// skip_non_finite) a log reward is NaN.
  AddResult add(const std::vector<std::int64_t>& states, const std::vector<float>& log_rewards,
                int ndim, const PackedTrajectories& trajectories = {});
  /// The same for float32 rows (continuous environments; named apart so that a braced
  /// list of integers still means int64 rows). Also throws std::invalid_argument
  /// if a state value is not finite, the table holds int64 rows (state_dtype()), or an insert
  /// filter is set (the diversity filter reads int64 rows).
  AddResult add_float(const std::vector<float>& states, const std::vector<float>& log_rewards,
                      int ndim, const PackedTrajectories& trajectories = {});

  /// How many of `log_rewards` an insert would retain, with torchgfn's
  /// ModesReplayBufferManager semantics (scored before the insert): all finite items if
  /// they fit in the free space, else those >= the lowest stored log reward. O(n + size)
  /// (cached min). Ignores the insert filter.
  std::int64_t would_retain(const std::vector<float>& log_rewards) const;

  /// n >= 0 items drawn by `sampler` (nullopt = the first of TableOptions::samplers).
  /// Throws std::invalid_argument for n < 0 or a sampler this table does not have,
  /// std::logic_error if n > 0 and the table is empty.
  TableBatch sample(std::int64_t n, std::optional<SamplerKind> sampler = std::nullopt);
  /// The slots sample() would gather (same rules); for callers that read items in place.
  std::vector<Slot> sample_slots(std::int64_t n, std::optional<SamplerKind> sampler = std::nullopt);
  /// True if this table has `sampler`.
  bool has_sampler(SamplerKind sampler) const;
  /// The samplers' names, in TableOptions order.
  std::vector<std::string> sampler_names() const;

  std::int64_t size() const { return size_; }
  std::int64_t capacity() const { return options_.capacity; }
  bool full() const { return size_ >= options_.capacity; }
  bool empty() const { return size_ == 0; }
  /// State width of the stored items (0 before the first stored item).
  int ndim() const { return ndim_; }
  /// dtype of the rows: TableOptions::state_dtype, else the first stored item's (kInt64
  /// while nothing was stored).
  StateDtype state_dtype() const { return dtype_.value_or(StateDtype::kInt64); }

  /// Lowest / highest stored log reward; 0 when empty. The lowest: O(1) with the
  /// lowest-reward remover (the buffer manager's table, whose order holds it), else O(size)
  /// after a change, then cached. The highest: O(size) after a change, then cached.
  float min_log_reward() const;
  float max_log_reward() const;
  /// The q-th percentile (q in [0, 100], nearest rank on the ascending order) of the
  /// stored log rewards. O(size) after a change (nth_element), cached per q. Throws
  /// std::invalid_argument for q outside [0, 100], std::logic_error when empty.
  float percentile_log_reward(double q) const;

  /// Item in `slot` (0 <= slot < size()): its state (ndim() values), log reward, serial and
  /// trajectory (length 0 = none). Unchecked, O(1).
  /// state(): int64 rows only; float_state(): float32 rows only.
  const std::int64_t* state(Slot slot) const { return states_.data() + slot * ndim_; }
  const float* float_state(Slot slot) const { return float_states_.data() + slot * ndim_; }
  float log_reward(Slot slot) const { return log_rewards_[static_cast<std::size_t>(slot)]; }
  std::uint64_t serial(Slot slot) const { return serials_[static_cast<std::size_t>(slot)]; }
  std::int32_t trajectory_length(Slot slot) const {
    return lengths_[static_cast<std::size_t>(slot)];
  }
  const std::int64_t* trajectory(Slot slot) const {
    return pool_.data() + offsets_[static_cast<std::size_t>(slot)];
  }
  /// The used slots by decreasing log reward (ties: newer first). O(size log size), not
  /// cached (tests and reports).
  std::vector<Slot> slots_by_reward() const;
  /// The used slots by insertion order (oldest first). O(size log size), not cached.
  std::vector<Slot> slots_by_age() const;

  /// The stored states as a nearest-neighbour index (empty unless keep_index).
  const StateIndex& index() const { return index_; }

  /// Checkpoints (table_state.h): the items, serials, each sampler's order and the
  /// sampling generator. O(size + stored actions).
  TableState save_state() const;
  /// Replaces this table's content by `state` (from save_state of a table built with the
  /// same TableOptions): afterwards every call returns what it would have returned on the
  /// saved table. Throws std::invalid_argument, changing nothing, if the state's capacity,
  /// samplers or remover differ from this table's options or the state is inconsistent
  /// (sizes, serials, trajectories, orders, generator). O(size · (ndim + log size)) plus
  /// the index's inserts.
  void restore_state(const TableState& state);

 private:
  struct Selectors;
  struct Stats;
  template <class T>
  void check_batch(const std::vector<T>& states, const std::vector<float>& log_rewards, int ndim,
                   const PackedTrajectories& trajectories) const;
  template <class T>
  AddResult add_rows(const std::vector<T>& states, const std::vector<float>& log_rewards, int ndim,
                     const PackedTrajectories& trajectories);
  template <class T>
  void store(Slot slot, const T* state, float log_reward, const std::int64_t* actions,
             std::int32_t length);
  /// Removes the stored row of `slot` from the index.
  void unindex(Slot slot);
  template <class T>
  std::vector<T>& rows();
  void select_into(std::optional<SamplerKind> sampler, std::int64_t n, std::vector<Slot>& out);
  void changed();

  TableOptions options_;
  int ndim_ = 0;
  std::optional<StateDtype> dtype_;
  std::int64_t size_ = 0;
  std::uint64_t next_serial_ = 0;
  std::vector<std::int64_t> states_;
  std::vector<float> float_states_;
  std::vector<float> log_rewards_;
  std::vector<std::uint64_t> serials_;
  std::vector<std::int32_t> lengths_;
  std::vector<std::int64_t> offsets_;
  std::vector<std::int64_t> pool_;  ///< trajectory actions, with garbage
  std::int64_t live_actions_ = 0;
  StateIndex index_;
  std::unique_ptr<Selectors> selectors_;
  std::unique_ptr<Stats> stats_;
  std::mt19937_64 rng_;
};

}  // namespace gfn::buffer
