#pragma once
// Nearest-neighbour index over the terminating states held by a replay buffer, kept in
// step with its inserts and evictions, so that the novelty of a submission (Σ over the
// batch of the minimum Minkowski distance to the stored states, runtime/buffer/scorer.h)
// costs O(batch · log distinct) instead of O(batch · capacity).
//
// A multiset: every stored item is inserted once and erased once when the buffer evicts
// it, so equal states are counted. Queries look at the DISTINCT states only:
//   - a hash of the distinct states (boost::hash_range) answers exact duplicates, the
//     common case once training has converged, with distance 0;
//   - the other queries go to a k-d tree over the distinct states (nanoflann's
//     KDTreeSingleIndexDynamicAdaptor: logarithmic forest, O(log² n) amortised per added
//     point, lazy removal). The tree's shape does not depend on the metric, so one tree
//     serves every p; a query accumulates Σ_k |a_k − b_k|^p in dimension order, exactly as
//     the brute-force reference (novelty_sum_reference in scorer.h) does, and takes the
//     p-th root of the minimum.
//   When the points removed from the tree outnumber the live ones (and at least 1,024 of
//   them), the tree is rebuilt from the live states (O(n log n), amortised over as many
//   removals), so memory stays proportional to the distinct states held.
//
// States are int64 [ndim] rows (discrete environments) or float32 [ndim] rows (continuous
// ones, finite values); the first insert fixes the index's dtype and a row of the other is
// refused (std::invalid_argument). The tree holds them as doubles (int64 exact up to 2^53,
// float32 always); the hash keys float rows by their bit patterns with -0 read as +0, so
// "exact duplicate" means equal values. The float overloads take the same paths (one
// template), so the distances of float rows are Euclidean (p = 2) or any p-norm as for int64.
// Thread-compatible: no internal locking, one thread owns an index (the buffer's).

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/buffer/options.h"

namespace gfn::buffer {

class StateIndex {
 public:
  StateIndex();
  ~StateIndex();
  StateIndex(StateIndex&&) noexcept;
  StateIndex& operator=(StateIndex&&) noexcept;
  StateIndex(const StateIndex&) = delete;
  StateIndex& operator=(const StateIndex&) = delete;

  /// Adds one occurrence of `state` (ndim int64 values). The first insert fixes ndim;
  /// throws std::invalid_argument if ndim < 1 or differs from the first insert's.
  /// O(1) for a state already present, O(log² distinct) amortised for a new one.
  /// The float32 overloads (here and below) do the same for float rows; a row of the dtype
  /// the index does not hold throws std::invalid_argument.
  void insert(const std::int64_t* state, int ndim);
  void insert(const float* state, int ndim);
  /// Removes one occurrence of `state`. Throws std::logic_error if it is not present.
  /// O(1) (the tree removal is lazy; see the rebuild rule above).
  void erase(const std::int64_t* state);
  void erase(const float* state);
  /// Removes everything (ndim is kept).
  void clear();

  /// Stored occurrences (the multiset's size) and distinct states.
  std::int64_t size() const { return size_; }
  std::int64_t distinct() const;
  /// ndim of the stored states; 0 before the first insert.
  int ndim() const { return ndim_; }
  /// dtype of the stored states (kInt64 before the first insert).
  StateDtype dtype() const { return dtype_; }
  /// Occurrences of `state` (0 if absent or of the other dtype). O(ndim).
  std::int64_t count(const std::int64_t* state) const;
  std::int64_t count(const float* state) const;

  /// min_j ||query − b_j||_p over the stored states b_j, for one int64 [ndim] row, in
  /// double. +infinity when the index is empty. Throws std::invalid_argument if p <= 0.
  double nearest_distance(const std::int64_t* query, double p) const;
  double nearest_distance(const float* query, double p) const;
  /// Σ_i float(min_j ||batch_i − b_j||_p) over `n` rows of row-major int64 [n, ndim]
  /// (each minimum rounded to float32 before the sum, as torch.cdist's float result is),
  /// or `n` when the index is empty (the scorer's placeholder). Throws
  /// std::invalid_argument if p <= 0 or (index not empty) ndim differs from the index's.
  /// Cost: O(n · ndim) hash look-ups plus one tree query per row that is not a duplicate.
  /// Also throws std::invalid_argument (index not empty) for rows of the other dtype.
  double novelty_sum(const std::int64_t* batch, std::int64_t n, int ndim, double p) const;
  double novelty_sum(const float* batch, std::int64_t n, int ndim, double p) const;

 private:
  struct Impl;
  template <class T>
  void insert_row(const T* state, int ndim);
  template <class T>
  void erase_row(const T* state);
  template <class T>
  std::int64_t count_row(const T* state) const;
  template <class T>
  double nearest_row(const T* query, double p) const;
  template <class T>
  double novelty_rows(const T* batch, std::int64_t n, int ndim, double p) const;
  template <class T>
  void check_dtype(const char* what) const;
  std::unique_ptr<Impl> impl_;
  int ndim_ = 0;
  StateDtype dtype_ = StateDtype::kInt64;
  std::int64_t size_ = 0;
};

}  // namespace gfn::buffer
