#pragma once
// An insert filter of the replay table (table.h): decides, before an insert, which items
// of an incoming batch the table may store at all (the remover then decides what they
// evict). The one implementation is the diversity cutoff (diversity_filter.h).
// Thread-compatible: called by the table's owner thread.

#include <cstdint>
#include <vector>

namespace gfn::buffer {

class ReplayTable;

/// An incoming batch: row-major int64 states [n, ndim] and float32 log rewards [n].
struct IncomingBatch {
  const std::int64_t* states = nullptr;
  const float* log_rewards = nullptr;
  std::int64_t n = 0;
  int ndim = 0;
  const std::int64_t* state(std::int64_t i) const { return states + i * ndim; }
};

class InsertFilter {
 public:
  virtual ~InsertFilter() = default;
  virtual const char* name() const = 0;
  /// `keep` holds, in ascending order, the indices of the batch's candidate items (those
  /// the table accepts: well-formed, finite where required); the filter removes the ones it
  /// refuses and leaves the rest in ascending order. `before` is the table before the
  /// insert. Must not throw for a well-formed batch.
  virtual void filter(const IncomingBatch& batch, const ReplayTable& before,
                      std::vector<std::int64_t>& keep) = 0;
};

}  // namespace gfn::buffer
