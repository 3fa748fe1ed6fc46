#pragma once
// Uniform sampler (Reverb's Uniform selector, reverb/cc/selectors/uniform.h; torchgfn's
// ReplayBuffer.sample): every held item is equally likely.
//   Replacement::kAlways          n independent draws (O(n)).
//   Replacement::kOnlyWhenNeeded  n <= size: n distinct items (partial Fisher-Yates over
//                                 the held slots, O(size + n)); n > size: independent draws.
// Insert and erase O(1). Thread-compatible.

#include "runtime/buffer/selectors/selector.h"
#include "runtime/buffer/selectors/slot_set.h"

namespace gfn::buffer {

class UniformSampler final : public ItemSelector {
 public:
  explicit UniformSampler(Replacement replacement) : replacement_(replacement) {}
  const char* name() const override { return "uniform"; }
  void insert(Slot slot, const ItemKey&) override { live_.insert(slot); }
  void erase(Slot slot) override { live_.erase(slot); }
  std::int64_t size() const override { return live_.size(); }
  void select(std::int64_t n, std::mt19937_64& rng, std::vector<Slot>& out) override;
  std::vector<Slot> order() const override { return live_.slots(); }
  void restore_order(const std::vector<Slot>& order) override { live_.reorder(order); }

 private:
  Replacement replacement_;
  SlotSet live_;
  std::vector<Slot> scratch_;
};

}  // namespace gfn::buffer
