#pragma once
// Lowest-reward remover (Reverb's MinHeap selector on the reward,
// reverb/cc/selectors/heap.h; torchgfn's ReplayBuffer with prioritized_capacity and the
// buffer manager's store): selects the held item of lowest log reward (among equal ones,
// the oldest), so a full table keeps the `capacity` highest rewards. Unlike Reverb's
// removers it may refuse an incoming item (admits):
//   Ties::kKeepOlder  the incoming item must be strictly better than the lowest held one
//                     (the buffer manager: an equal item is refused);
//   Ties::kKeepNewer  equal is enough: among equal rewards the newer item is kept
//                     (torchgfn's prioritized capacity; the trainer-local buffer).
// select(n) returns that lowest item n times. Insert / erase / select O(log size);
// lowest_log_reward O(1).
// Thread-compatible.

#include <set>
#include <tuple>

#include "runtime/buffer/selectors/selector.h"

namespace gfn::buffer {

class LowestRewardRemover final : public ItemSelector {
 public:
  enum class Ties { kKeepOlder, kKeepNewer };
  explicit LowestRewardRemover(Ties ties) : ties_(ties) {}
  const char* name() const override { return "lowest_reward"; }
  void insert(Slot slot, const ItemKey& key) override;
  void erase(Slot slot) override;
  std::int64_t size() const override { return static_cast<std::int64_t>(order_.size()); }
  void select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) override;
  bool admits(const ItemKey& incoming, const ItemKey& victim) const override {
    return ties_ == Ties::kKeepOlder ? incoming.log_reward > victim.log_reward
                                     : incoming.log_reward >= victim.log_reward;
  }
  /// The first key of the order: O(1).
  std::optional<float> lowest_log_reward() const override {
    if (order_.empty()) return std::nullopt;
    return std::get<0>(*order_.begin());
  }

 private:
  Ties ties_;
  std::set<std::tuple<float, std::uint64_t, Slot>> order_;  ///< lowest (then oldest) first
  std::vector<ItemKey> key_;                                ///< per slot
};

}  // namespace gfn::buffer
