#include "runtime/buffer/diversity_filter.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "runtime/buffer/state_index.h"
#include "runtime/buffer/table.h"

namespace gfn::buffer {

DiversityFilter::DiversityFilter(const DiversityFilterOptions& options) : options_(options) {
  if (!(options.p_norm > 0)) {
    throw std::invalid_argument("replay.p_norm must be > 0, got " + std::to_string(options.p_norm));
  }
}

void DiversityFilter::filter(const IncomingBatch& batch, const ReplayTable& before,
                             std::vector<std::int64_t>& keep) {
  if (!before.full() || keep.empty()) return;
  // Rank by decreasing log reward (stable), then the reward floor.
  std::stable_sort(keep.begin(), keep.end(), [&](std::int64_t a, std::int64_t b) {
    return batch.log_rewards[a] > batch.log_rewards[b];
  });
  const float floor = before.min_log_reward();
  keep.erase(std::remove_if(keep.begin(), keep.end(),
                            [&](std::int64_t i) { return !(batch.log_rewards[i] >= floor); }),
             keep.end());
  if (options_.cutoff >= 0 && !keep.empty()) {
    const double p = options_.p_norm;
    StateIndex ranked;  // the batch items of higher rank than the current one
    std::vector<std::int64_t> out;
    for (const std::int64_t i : keep) {
      const bool far_in_batch = ranked.nearest_distance(batch.state(i), p) > options_.cutoff;
      ranked.insert(batch.state(i), batch.ndim);
      if (far_in_batch && before.index().nearest_distance(batch.state(i), p) > options_.cutoff) {
        out.push_back(i);
      }
    }
    keep = std::move(out);
  }
  std::sort(keep.begin(), keep.end());  // insertion (serial) order = batch order
}

}  // namespace gfn::buffer
