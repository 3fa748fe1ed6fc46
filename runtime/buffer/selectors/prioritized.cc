#include "runtime/buffer/selectors/prioritized.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/buffer/selectors/gumbel_top_n.h"

namespace gfn::buffer {

PrioritizedSampler::PrioritizedSampler(Replacement replacement, double priority_exponent)
    : replacement_(replacement), exponent_(priority_exponent) {
  if (!(priority_exponent > 0) || !std::isfinite(priority_exponent)) {
    throw std::invalid_argument(
        "PrioritizedSampler: the priority exponent must be finite and > 0, got " +
        std::to_string(priority_exponent));
  }
}

void PrioritizedSampler::insert(Slot slot, const ItemKey& key) {
  live_.insert(slot);
  if (static_cast<std::size_t>(slot) >= log_reward_.size()) {
    log_reward_.resize(static_cast<std::size_t>(slot) + 1);
  }
  log_reward_[static_cast<std::size_t>(slot)] = key.log_reward;
}

void PrioritizedSampler::select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) {
  const auto& slots = live_.slots();
  const std::size_t size = slots.size();
  const auto lr = [&](std::size_t k) { return log_reward_[static_cast<std::size_t>(slots[k])]; };
  if (replacement_ == Replacement::kAlways || static_cast<std::size_t>(n) > size) {
    float top = lr(0);
    for (std::size_t k = 1; k < size; ++k) top = std::max(top, lr(k));
    weights_.resize(size);
    for (std::size_t k = 0; k < size; ++k)
      weights_[k] = std::exp(exponent_ * (double(lr(k)) - top));
    std::discrete_distribution<std::size_t> pick(weights_.begin(), weights_.end());
    for (std::int64_t k = 0; k < n; ++k) out.push_back(slots[pick(rng)]);
    return;
  }
  // Gumbel top-n: argsort of α log R + Gumbel noise = sampling without replacement.
  gumbel_top_n(
      slots, [&](std::size_t k) { return exponent_ * double(lr(k)); }, n, rng, out);
}

}  // namespace gfn::buffer
