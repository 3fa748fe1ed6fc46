#pragma once
// The diversity cutoff as an insert filter of the replay table (insert_filter.h), with the
// semantics of torchgfn's NormBasedDiversePrioritizedReplayBuffer.add
// (gfn/containers/replay_buffer.py; YAML replay.kind: diverse, replay.cutoff, replay.p_norm):
//   - while the table is not full, every item passes (the table's lowest-reward remover
//     then keeps the highest rewards);
//   - once full, the batch is ranked by decreasing log reward (stable: equal rewards keep
//     their batch order); items below the table's lowest log reward are dropped; if
//     cutoff >= 0, so is every item whose Minkowski p-norm distance to a HIGHER-ranked
//     item of the same batch (dropped ones included) or to any item in the table is
//     <= cutoff (an item is kept iff its minimum distance is > cutoff).
// Distances come from StateIndex::nearest_distance (state_index.h): the table's index for
// the stored items, and an index of the batch built in rank order for the batch, so a batch
// of b items against a table of c items costs O(b log b + b log c) instead of O(b² + b c).
// Needs a table that keeps its index (TableOptions::keep_index). Thread-compatible.

#include "runtime/buffer/insert_filter.h"

namespace gfn::buffer {

struct DiversityFilterOptions {
  double cutoff = 0.0;  ///< distance threshold; < 0 keeps only the reward floor
  double p_norm = 1.0;  ///< p (> 0) of the Minkowski distance
};

class DiversityFilter final : public InsertFilter {
 public:
  /// Throws std::invalid_argument naming replay.p_norm if p_norm <= 0 (or NaN).
  explicit DiversityFilter(const DiversityFilterOptions& options);
  const char* name() const override { return "diversity"; }
  void filter(const IncomingBatch& batch, const ReplayTable& before,
              std::vector<std::int64_t>& keep) override;

 private:
  DiversityFilterOptions options_;
};

}  // namespace gfn::buffer
