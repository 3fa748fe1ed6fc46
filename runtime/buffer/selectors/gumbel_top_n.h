#pragma once
// Sampling without replacement by Gumbel top-n, shared by the samplers that draw in proportion
// to a weight (prioritized.h, rank.h): the n largest of log w_k + G_k, G_k standard Gumbel
// noise, are n successive draws ∝ w without replacement (like torch.multinomial with
// replacement=False). Cost O(size) draws plus O(size log n) for the partial sort.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "runtime/buffer/selectors/selector.h"

namespace gfn::buffer {

/// Appends n <= slots.size() distinct slots to `out`, drawn ∝ exp(log_weight(k)) for the slot
/// slots[k], one uniform draw of `rng` per slot in slot order.
template <class LogWeight>
void gumbel_top_n(const std::vector<Slot>& slots, LogWeight log_weight, std::int64_t n,
                  std::mt19937_64& rng, std::vector<Slot>& out) {
  std::uniform_real_distribution<double> u(std::numeric_limits<double>::min(), 1.0);
  std::vector<std::pair<double, Slot>> keys(slots.size());
  for (std::size_t k = 0; k < slots.size(); ++k) {
    keys[k] = {log_weight(k) - std::log(-std::log(u(rng))), slots[k]};
  }
  std::partial_sort(keys.begin(), keys.begin() + n, keys.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::int64_t k = 0; k < n; ++k) out.push_back(keys[static_cast<std::size_t>(k)].second);
}

}  // namespace gfn::buffer
