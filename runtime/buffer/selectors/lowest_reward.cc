#include "runtime/buffer/selectors/lowest_reward.h"

#include <stdexcept>

namespace gfn::buffer {

void LowestRewardRemover::insert(Slot slot, const ItemKey& key) {
  if (static_cast<std::size_t>(slot) >= key_.size())
    key_.resize(static_cast<std::size_t>(slot) + 1);
  if (!order_.emplace(key.log_reward, key.serial, slot).second) {
    throw std::logic_error("lowest_reward selector: slot inserted twice");
  }
  key_[static_cast<std::size_t>(slot)] = key;
}

void LowestRewardRemover::erase(Slot slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= key_.size()) {
    throw std::logic_error("lowest_reward selector: erase of a slot it does not hold");
  }
  const ItemKey& k = key_[static_cast<std::size_t>(slot)];
  if (order_.erase({k.log_reward, k.serial, slot}) == 0) {
    throw std::logic_error("lowest_reward selector: erase of a slot it does not hold");
  }
}

void LowestRewardRemover::select(std::int64_t n, std::mt19937_64& /*rng*/, std::vector<Slot>& out) {
  for (std::int64_t k = 0; k < n; ++k) out.push_back(std::get<2>(*order_.begin()));
}

}  // namespace gfn::buffer
