#include "runtime/buffer/selectors/uniform.h"

#include <utility>

namespace gfn::buffer {

void UniformSampler::select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) {
  const auto& slots = live_.slots();
  const std::size_t size = slots.size();
  if (replacement_ == Replacement::kAlways || static_cast<std::size_t>(n) > size) {
    std::uniform_int_distribution<std::size_t> pick(0, size - 1);
    for (std::int64_t k = 0; k < n; ++k) out.push_back(slots[pick(rng)]);
    return;
  }
  // Partial Fisher-Yates: n distinct items.
  scratch_.assign(slots.begin(), slots.end());
  for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
    std::uniform_int_distribution<std::size_t> pick(k, size - 1);
    std::swap(scratch_[k], scratch_[pick(rng)]);
    out.push_back(scratch_[k]);
  }
}

}  // namespace gfn::buffer
